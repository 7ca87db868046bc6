/* lsim_validate_run (include/lidarsim.h): `lidarsim validate`'s work -- read the config, name
 * every output and make the output folder writable before any simulation, validate each
 * material with a progress bar, write the CSV, the calibration, the plots and the views into
 * the staging folder, move them into place together, then print the verdicts. */
#include "calib/calib_view.h"
#include "core/context.h"
#include "core/progress.h"
#include "output/output_set.h"
#include "validate/validate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lsim_validate_options_init(lsim_validate_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->bin_width_deg = NAN;
    o->seed = 1;
    o->report = LSIM_REPORT_TEXT;
    o->progress = LSIM_PROGRESS_OFF;
}

static lsim_status check_options(lsim_context *ctx, const char *config_path, const char *out_dir,
                                 const lsim_validate_options *o)
{
    if (!o)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "validate: no options given; pass options set by "
                         "lsim_validate_options_init");
    if (!config_path || !*config_path)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "validate: no config file given");
    if (!out_dir || !*out_dir)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "validate: no output folder given");
    if (!isnan(o->bin_width_deg) && !(o->bin_width_deg >= 0.05 && o->bin_width_deg <= 45.0))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "bin_width_deg %g is invalid; valid: 0.05..45 degrees",
                         o->bin_width_deg);
    if (o->threads < 0 || o->threads > 1024)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "threads %d is invalid; valid: 0..1024 (0 = all cores)",
                         o->threads);
    if (o->holdout != 0 && o->holdout != 1)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "holdout %d is invalid; valid: 0 or 1", o->holdout);
    if (o->report != LSIM_REPORT_NONE && o->report != LSIM_REPORT_TEXT)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "report %d is invalid; valid: LSIM_REPORT_NONE or "
                         "LSIM_REPORT_TEXT", (int)o->report);
    if ((int)o->progress < LSIM_PROGRESS_OFF || (int)o->progress > LSIM_PROGRESS_BAR)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "progress %d is invalid; valid: LSIM_PROGRESS_OFF, "
                         "_AUTO, _LINES, _BAR", (int)o->progress);
    return LSIM_OK;
}

/* path[0]: validation.csv, [1]: calibration.yaml, [2 + 2i]: NAME_validation.png, [3 + 2i]: NAME_view.png */
static lsim_status plan_outputs(lsim_output_set *outs, const char *out_dir, const lsim_calib_config *cfg,
                                char (*path)[4096])
{
    lsim_status st = lsim_output_set_folder(outs, out_dir, "output folder");
    if (st == LSIM_OK)
        st = lsim_output_set_add(outs, "validation", ".csv", path[0], sizeof path[0]);
    if (st == LSIM_OK)
        st = lsim_output_set_add(outs, "calibration", ".yaml", path[1], sizeof path[1]);
    for (size_t i = 0; st == LSIM_OK && i < cfg->count; ++i) {
        st = lsim_output_set_add(outs, cfg->inputs[i].name, "_validation.png", path[2 + 2 * i], sizeof path[0]);
        if (st == LSIM_OK)
            st = lsim_output_set_add(outs, cfg->inputs[i].name, "_view.png", path[3 + 2 * i], sizeof path[0]);
    }
    return st;
}

static lsim_status validate_all(lsim_context *ctx, const lsim_calib_config *cfg, const char *sensor,
                                const lsim_valid_options *opt, lsim_progress_mode progress, lsim_valid_material *v,
                                size_t *done)
{
    lsim_status st = LSIM_OK;
    lsim_progress bar; /* on a terminal, when the materials take more than a second */
    lsim_progress_start(&bar, progress, stderr, "validate", "materials", (double)cfg->count, 1.0);
    for (size_t i = 0; st == LSIM_OK && i < cfg->count; ++i) {
        lsim_progress_update(&bar, (double)i);
        st = lsim_validate_input(ctx, &cfg->inputs[i], sensor, opt, &v[i]);
        if (st == LSIM_OK)
            *done = i + 1;
        if (st != LSIM_OK || v[i].beams_dropped)
            lsim_progress_clear(&bar); /* the message starts on a line of its own */
        if (st != LSIM_OK) {
            char why[LSIM_ERROR_MAX];
            snprintf(why, sizeof why, "%s", lsim_context_last_error(ctx));
            st = lsim_fail(ctx, st, "%s: %s", cfg->inputs[i].name, why);
        } else if (v[i].beams_dropped) {
            fprintf(stderr, "lidarsim validate: %s: note: %s ends in a partial revolution: its last %zu beams are "
                    "left out; using %zu complete revolution%s of %zu beams\n", cfg->inputs[i].name,
                    cfg->inputs[i].scan_path, v[i].beams_dropped, v[i].revolutions_used,
                    v[i].revolutions_used == 1 ? "" : "s", v[i].beams_per_revolution);
        }
    }
    lsim_progress_finish(&bar, st == LSIM_OK);
    return st;
}

/* The statistics (CSV), the calibration used, and per material the plot and the view. */
static lsim_status write_outputs(lsim_context *ctx, const char *sensor, const lsim_valid_material *v, size_t done,
                                 char (*path)[4096])
{
    lsim_atomic_group g;
    lsim_atomic_begin(&g, ctx);
    FILE *fp = NULL;
    lsim_status st = lsim_atomic_open(&g, path[0], &fp);
    for (size_t i = 0; st == LSIM_OK && i < done; ++i)
        lsim_valid_write_csv(fp, &v[i], i == 0);
    st = lsim_atomic_finish(&g, st);
    lsim_calibration cal = {LSIM_CALIB_VERSION, "", done, NULL};
    snprintf(cal.sensor, sizeof cal.sensor, "%s", sensor);
    lsim_calib_material *ms = calloc(done ? done : 1, sizeof *ms);
    for (size_t i = 0; ms && i < done; ++i)
        ms[i] = v[i].calibration; /* shallow: written, not freed here */
    cal.materials = ms;
    if (st == LSIM_OK && !ms)
        st = lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory");
    if (st == LSIM_OK)
        st = lsim_calibration_write(ctx, path[1], &cal);
    free(ms);
    for (size_t i = 0; st == LSIM_OK && i < done; ++i) {
        st = lsim_valid_plot(ctx, &v[i], path[2 + 2 * i]);
        if (st == LSIM_OK)
            st = lsim_calib_view_write(ctx, path[3 + 2 * i], &v[i].calibration);
    }
    return st;
}

static lsim_status write_report(lsim_context *ctx, const lsim_validate_options *o, const lsim_valid_material *v,
                                size_t done)
{
    if (o->report == LSIM_REPORT_NONE)
        return LSIM_OK;
    lsim_atomic_group g;
    FILE *fp = NULL;
    lsim_status st = lsim_report_open(&g, ctx, o->report_path, &fp);
    for (size_t i = 0; st == LSIM_OK && i < done; ++i) {
        char line[1024];
        lsim_valid_verdict(&v[i], line, sizeof line);
        fprintf(fp, "%s\n", line);
    }
    return lsim_report_close(&g, fp, st);
}

lsim_status lsim_validate_run(lsim_context *ctx, const char *config_path, const char *out_dir,
                              const lsim_validate_options *o, lsim_validate_result *result)
{
    if (!ctx)
        return LSIM_ERR_INVALID_ARGUMENT;
    if (result)
        memset(result, 0, sizeof *result);
    lsim_status st = check_options(ctx, config_path, out_dir, o);
    if (st == LSIM_OK && o->report != LSIM_REPORT_NONE && o->report_path)
        st = lsim_output_check_file(ctx, o->report_path, "the report");
    if (st != LSIM_OK)
        return st;
    lsim_valid_options opt;
    memset(&opt, 0, sizeof opt);
    lsim_calib_options_init(&opt.calib);
    opt.seed = o->seed;
    opt.threads = o->threads;
    opt.holdout = o->holdout;
    lsim_calib_config cfg;
    memset(&cfg, 0, sizeof cfg);
    st = lsim_calib_config_read(ctx, config_path, &cfg);
    if (!isnan(o->bin_width_deg))
        opt.calib.bin_width_deg = o->bin_width_deg;
    else if (cfg.bin_width_deg > 0.0)
        opt.calib.bin_width_deg = cfg.bin_width_deg;
    /* Every output is named and its folder made writable before any simulation: a folder that
     * cannot be written fails in milliseconds, not after the work. Files are written into a
     * staging folder inside OUT_DIR and moved into place together at the end; on any failure none
     * is left, nor OUT_DIR when this run created it. */
    lsim_output_set outs;
    lsim_output_set_init(&outs, ctx, "validate");
    const char *sensor = cfg.sensor[0] ? cfg.sensor : LSIM_CALIB_DEFAULT_SENSOR;
    char (*path)[4096] = NULL;
    lsim_valid_material *v = NULL;
    if (st == LSIM_OK) {
        path = calloc(2 + 2 * cfg.count, sizeof *path);
        v = calloc(cfg.count ? cfg.count : 1, sizeof *v);
        if (!path || !v)
            st = lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory");
    }
    if (st == LSIM_OK) {
        /* the report, and the files the output folder will get, against the inputs */
        const char *outputs[3] = {o->report != LSIM_REPORT_NONE ? o->report_path : NULL, NULL, NULL};
        const char *what[3] = {"the report", "the output", "the output"};
        char csv[4096], yaml[4096];
        snprintf(csv, sizeof csv, "%s/validation.csv", out_dir);
        snprintf(yaml, sizeof yaml, "%s/calibration.yaml", out_dir);
        outputs[1] = csv, outputs[2] = yaml;
        st = lsim_calib_config_check_outputs(ctx, &cfg, config_path, outputs, what, 3);
    }
    if (st == LSIM_OK)
        st = plan_outputs(&outs, out_dir, &cfg, path);
    if (st == LSIM_OK)
        st = lsim_calib_config_check_set(ctx, &cfg, config_path, &outs,
                                         o->report != LSIM_REPORT_NONE ? o->report_path : NULL);
    size_t done = 0;
    if (st == LSIM_OK)
        st = validate_all(ctx, &cfg, sensor, &opt, o->progress, v, &done);
    if (st == LSIM_OK) {
        st = write_outputs(ctx, sensor, v, done, path);
        if (st != LSIM_OK)
            lsim_output_set_name_finals(&outs); /* the message names the file, not its staging copy */
        if (st == LSIM_OK)
            st = lsim_output_set_commit(&outs);
        if (st != LSIM_OK) {
            char why[LSIM_ERROR_MAX];
            snprintf(why, sizeof why, "%s", lsim_context_last_error(ctx));
            st = lsim_fail(ctx, st, "%s; nothing was written to %s", why, out_dir);
        }
    }
    lsim_output_set_abort(&outs); /* nothing left to do after a commit */
    free(path);
    if (st == LSIM_OK)
        st = write_report(ctx, o, v, done);
    if (st == LSIM_OK && result) {
        result->materials = done;
        for (size_t i = 0; i < done; ++i)
            result->failed += !lsim_valid_passed(&v[i]);
    }
    for (size_t i = 0; v && i < cfg.count; ++i)
        lsim_valid_material_free(&v[i]);
    free(v);
    lsim_calib_config_free(&cfg);
    return st;
}
