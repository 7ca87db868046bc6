/* lsim_calibrate_run (include/lidarsim.h): `lidarsim calibrate`'s work -- read the config (or take
 * the one material of the options), check every output before any scan is read, calibrate each
 * material with a progress bar, write the calibration and the views together, then the report. */
#include "calib/calib_config.h"
#include "calib/calib_view.h"
#include "calib/calibrate.h"
#include "calib/calibrate_report.h"
#include "calib/calibration.h"
#include "core/context.h"
#include "core/progress.h"
#include "core/text.h"
#include "core/vec.h"
#include "output/output_set.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lsim_calibrate_options_init(lsim_calibrate_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->brdf = LSIM_MATERIAL_OREN_NAYAR;
    o->roughness = o->ior = NAN;
    o->bin_width_deg = o->direction_deg = o->window_deg = NAN;
    o->report = LSIM_REPORT_TEXT;
    o->progress = LSIM_PROGRESS_OFF;
}

static int given(double v) { return !isnan(v); }

static lsim_status check_options(lsim_context *ctx, const char *config_path, const lsim_calibrate_options *o)
{
    if (!o)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "calibrate: no options given; pass options set by "
                         "lsim_calibrate_options_init");
    if (given(o->bin_width_deg) && !(o->bin_width_deg >= 0.05 && o->bin_width_deg <= 45.0))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "bin_width_deg %g is invalid; valid: 0.05..45 degrees",
                         o->bin_width_deg);
    if (o->sensor && !lsim_calib_name_valid(o->sensor))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "sensor '%.80s' is invalid; valid: 1 to 63 letters, "
                         "digits, '_', '-', '.' (e.g. rplidar-a1)", o->sensor);
    if (given(o->direction_deg) && !(fabs(o->direction_deg) <= 720.0))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "direction_deg %g is invalid; valid: degrees within +-720",
                         o->direction_deg);
    if (given(o->window_deg) && !(o->window_deg >= 1e-3 && o->window_deg <= 180.0))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "window_deg %g is invalid; valid: degrees in (0, 180]",
                         o->window_deg);
    if (o->view_dir && !*o->view_dir)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "view_dir is empty; give a folder for the view PNGs "
                         "(NULL: none)");
    if ((int)o->report < LSIM_REPORT_NONE || (int)o->report > LSIM_REPORT_JSON)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "report %d is invalid; valid: LSIM_REPORT_NONE, _TEXT, "
                         "_JSON", (int)o->report);
    if ((int)o->progress < LSIM_PROGRESS_OFF || (int)o->progress > LSIM_PROGRESS_BAR)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "progress %d is invalid; valid: LSIM_PROGRESS_OFF, "
                         "_AUTO, _LINES, _BAR", (int)o->progress);
    const int single = o->scan_path || o->name || o->width_m != 0.0 || o->distance_m != 0.0 ||
                       given(o->roughness) || given(o->ior);
    if (config_path)
        return single ? lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "give either the config file '%s' or "
                                  "scan_path, name and width_m (one material), not both", config_path)
                      : LSIM_OK;
    if (!o->scan_path || !o->name || o->width_m == 0.0)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "no config file given; one material needs scan_path, name "
                         "and width_m (missing %s)", !o->scan_path ? "scan_path" : !o->name ? "name" : "width_m");
    if (!lsim_calib_name_valid(o->name))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "name '%.80s' is invalid; valid: 1 to 63 letters, digits, "
                         "'_', '-', '.'", o->name);
    if (!(o->width_m > 0.0 && o->width_m <= 100.0))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "width_m %g is invalid; valid: the board width in metres, "
                         "> 0 and <= 100", o->width_m);
    if (!(o->distance_m >= 0.0 && o->distance_m <= 1000.0))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "distance_m %g is invalid; valid: metres in 0..1000 (0 = "
                         "not measured)", o->distance_m);
    if (o->brdf != LSIM_MATERIAL_OREN_NAYAR && o->brdf != LSIM_MATERIAL_COOK_TORRANCE &&
        o->brdf != LSIM_MATERIAL_LAMBERTIAN)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "brdf %d is invalid; valid: LSIM_MATERIAL_OREN_NAYAR, "
                         "_COOK_TORRANCE or _LAMBERTIAN", (int)o->brdf);
    if (given(o->roughness) && !(o->roughness >= 0.0 && o->roughness <= LSIM_PI / 2.0))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "roughness %g is invalid; valid: oren-nayar [0, pi/2] "
                         "radians, cook-torrance (0, 1]", o->roughness);
    if (given(o->ior) && !(o->ior >= 1.0 && o->ior <= 10.0))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "ior %g is invalid; valid: an index of refraction in "
                         "[1, 10]", o->ior);
    return LSIM_OK;
}

/* The one-material form as a config. */
static lsim_status single_config(lsim_context *ctx, const lsim_calibrate_options *o, lsim_calib_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    lsim_strlcpy(cfg->sensor, LSIM_CALIB_DEFAULT_SENSOR, sizeof cfg->sensor);
    cfg->inputs = calloc(1, sizeof *cfg->inputs);
    if (!cfg->inputs)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory");
    lsim_calib_input *in = &cfg->inputs[0];
    lsim_calib_input_init(in);
    cfg->count = 1;
    lsim_strlcpy(in->name, o->name, sizeof in->name);
    in->width_m = o->width_m;
    in->distance_m = o->distance_m;
    lsim_brdf_defaults(&in->brdf, o->brdf == LSIM_MATERIAL_COOK_TORRANCE ? LSIM_BRDF_COOK_TORRANCE
                                  : o->brdf == LSIM_MATERIAL_LAMBERTIAN  ? LSIM_BRDF_LAMBERTIAN
                                                                         : LSIM_BRDF_OREN_NAYAR);
    if (given(o->roughness))
        in->brdf.roughness = o->roughness;
    if (given(o->ior))
        in->brdf.ior = o->ior;
    in->scan_path = lsim_strdup(o->scan_path);
    return in->scan_path ? LSIM_OK : lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory");
}

/* "PREFIX: <the context's message>", keeping its status. */
static lsim_status wrap_error(lsim_context *ctx, lsim_status st, const char *prefix, const char *suffix)
{
    char why[LSIM_ERROR_MAX];
    snprintf(why, sizeof why, "%s", lsim_context_last_error(ctx));
    return lsim_fail(ctx, st, "%s%s%s", prefix, why, suffix);
}

/* The outputs: the view folder with NAME_view.png per material and the calibration beside its
 * final name (committed together), or the calibration alone (written atomically as it is). */
static lsim_status plan_outputs(lsim_context *ctx, const lsim_calibrate_options *o, const lsim_calib_config *cfg,
                                const char *out_path, lsim_output_set *outs, char (*view_path)[4096],
                                char *cal_path, size_t cal_size)
{
    lsim_status st = LSIM_OK;
    if (o->view_dir) {
        st = lsim_output_set_folder(outs, o->view_dir, "view folder");
        for (size_t i = 0; st == LSIM_OK && i < cfg->count; ++i)
            st = lsim_output_set_add(outs, cfg->inputs[i].name, "_view.png", view_path[i], sizeof view_path[i]);
    }
    if (st == LSIM_OK && out_path) {
        if (o->view_dir) {
            st = lsim_output_set_add_file(outs, out_path, cal_path, cal_size);
            if (st != LSIM_OK)
                st = wrap_error(ctx, st, "cannot write the calibration: ", "");
        } else {
            lsim_strlcpy(cal_path, out_path, cal_size);
        }
    }
    return st;
}

static lsim_status calibrate_all(lsim_context *ctx, const char *config_path, const lsim_calibrate_options *o,
                                 lsim_calib_config *cfg, lsim_calibration *cal, lsim_board_fit *fits)
{
    lsim_calib_options opt;
    lsim_calib_options_init(&opt);
    opt.bin_width_deg = given(o->bin_width_deg) ? o->bin_width_deg
                      : cfg->bin_width_deg > 0.0 ? cfg->bin_width_deg : LSIM_CALIB_DEFAULT_BIN_WIDTH_DEG;
    opt.fit.seed = o->seed;
    lsim_status st = LSIM_OK;
    lsim_progress bar; /* on a terminal, when the materials take more than a second */
    lsim_progress_start(&bar, o->progress, stderr, "calibrate", "materials", (double)cfg->count, 1.0);
    for (size_t i = 0; st == LSIM_OK && i < cfg->count; ++i) {
        lsim_progress_update(&bar, (double)i);
        lsim_calib_input *in = &cfg->inputs[i];
        if (given(o->direction_deg))
            in->direction_deg = o->direction_deg;
        if (given(o->window_deg))
            in->window_deg = o->window_deg;
        st = lsim_calibrate_input(ctx, in, &opt, &cal->materials[i], &fits[i]);
        if (st != LSIM_OK) {
            char prefix[512];
            if (config_path)
                snprintf(prefix, sizeof prefix, "material %s (%s:%zu): ", in->name, config_path, in->line);
            else
                snprintf(prefix, sizeof prefix, "material %s: ", in->name);
            st = wrap_error(ctx, st, prefix, "");
        } else {
            cal->count = i + 1;
        }
    }
    lsim_progress_finish(&bar, st == LSIM_OK);
    return st;
}

static lsim_status write_report(lsim_context *ctx, const lsim_calibrate_options *o, const lsim_calibration *cal,
                                const lsim_board_fit *fits, const char *out_path)
{
    if (o->report == LSIM_REPORT_NONE)
        return LSIM_OK;
    lsim_atomic_group g;
    FILE *fp = NULL;
    lsim_status st = lsim_report_open(&g, ctx, o->report_path, &fp);
    if (st == LSIM_OK && o->report == LSIM_REPORT_JSON) {
        lsim_calibrate_print_json(fp, cal, fits, out_path);
    } else if (st == LSIM_OK) {
        for (size_t i = 0; i < cal->count; ++i)
            lsim_calibrate_print_summary(fp, &cal->materials[i], &fits[i]);
        if (out_path)
            fprintf(fp, "lidarsim: %zu material%s calibrated (sensor %s), wrote %s\n", cal->count,
                    cal->count == 1 ? "" : "s", cal->sensor, out_path);
    }
    return lsim_report_close(&g, fp, st);
}

lsim_status lsim_calibrate_run(lsim_context *ctx, const char *config_path, const char *out_path,
                               const lsim_calibrate_options *o)
{
    if (!ctx)
        return LSIM_ERR_INVALID_ARGUMENT;
    lsim_status st = check_options(ctx, config_path, o);
    if (st == LSIM_OK && out_path)
        st = lsim_output_check_file(ctx, out_path, "the calibration");
    if (st == LSIM_OK && o->report != LSIM_REPORT_NONE && o->report_path)
        st = lsim_output_check_file(ctx, o->report_path, "the report");
    if (st != LSIM_OK)
        return st;
    lsim_calib_config cfg;
    memset(&cfg, 0, sizeof cfg);
    st = config_path ? lsim_calib_config_read(ctx, config_path, &cfg) : single_config(ctx, o, &cfg);
    if (st == LSIM_OK) {
        const char *outputs[2] = {out_path, o->report != LSIM_REPORT_NONE ? o->report_path : NULL};
        const char *what[2] = {"the calibration", "the report"};
        st = lsim_calib_config_check_outputs(ctx, &cfg, config_path, outputs, what, 2);
    }
    /* Every output named, and the view folder made writable, before any work; on any failure none
     * of them is left, nor the view folder when this run created it. */
    lsim_output_set outs;
    lsim_output_set_init(&outs, ctx, "calibrate");
    char cal_path[4096] = "", (*view_path)[4096] = NULL;
    lsim_calibration cal;
    memset(&cal, 0, sizeof cal);
    cal.version = LSIM_CALIB_VERSION;
    lsim_strlcpy(cal.sensor, o->sensor ? o->sensor : cfg.sensor, sizeof cal.sensor);
    lsim_board_fit *fits = NULL;
    if (st == LSIM_OK) {
        view_path = calloc(cfg.count ? cfg.count : 1, sizeof *view_path);
        cal.materials = calloc(cfg.count ? cfg.count : 1, sizeof *cal.materials);
        fits = calloc(cfg.count ? cfg.count : 1, sizeof *fits);
        if (!view_path || !cal.materials || !fits)
            st = lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory");
    }
    if (st == LSIM_OK)
        st = plan_outputs(ctx, o, &cfg, out_path, &outs, view_path, cal_path, sizeof cal_path);
    if (st == LSIM_OK)
        st = lsim_calib_config_check_set(ctx, &cfg, config_path, &outs,
                                         o->report != LSIM_REPORT_NONE ? o->report_path : NULL);
    if (st == LSIM_OK)
        st = calibrate_all(ctx, config_path, o, &cfg, &cal, fits);
    if (st == LSIM_OK && out_path && (st = lsim_calibration_write(ctx, cal_path, &cal)) != LSIM_OK)
        st = wrap_error(ctx, st, "cannot write the calibration: ", "");
    for (size_t i = 0; st == LSIM_OK && o->view_dir && i < cal.count; ++i) {
        if ((st = lsim_calib_view_write(ctx, view_path[i], &cal.materials[i])) != LSIM_OK) {
            char prefix[128];
            snprintf(prefix, sizeof prefix, "cannot draw the view of %s: ", cal.materials[i].name);
            st = wrap_error(ctx, st, prefix, "");
        }
    }
    if (st != LSIM_OK)
        lsim_output_set_name_finals(&outs); /* the message names the file, not its staging copy */
    if (st == LSIM_OK && o->view_dir && (st = lsim_output_set_commit(&outs)) != LSIM_OK)
        st = wrap_error(ctx, st, "", "; nothing was written");
    lsim_output_set_abort(&outs); /* after a failure: removes every temporary file; else nothing left */
    if (st == LSIM_OK)
        st = write_report(ctx, o, &cal, fits, out_path);
    free(view_path);
    lsim_calibration_free(&cal);
    free(fits);
    lsim_calib_config_free(&cfg);
    return st;
}
