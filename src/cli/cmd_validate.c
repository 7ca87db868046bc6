/* lidarsim validate CONFIG -o OUTDIR: calibrate each material from its real scan, re-simulate
 * the setup with the calibration and with a BRDF-only model, and compare bin by bin. */
#include "cli/args.h"
#include "cli/commands.h"
#include "core/progress.h"
#include "cli/opts.h"

#include "core/context.h"
#include "io/atomic_file.h"
#include "validate/validate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void validate_usage(FILE *out)
{
    fprintf(out,
            "usage: lidarsim validate CONFIG -o OUTDIR [options]\n\n"
            "CONFIG is a calibration config (the thesis's data.config, or YAML; see docs/calibration.md).\n"
            "For each material: calibrate from its real scan, simulate the setup (the board at its fitted\n"
            "pose, the scan's beam angles, each real revolution 8 times) with the calibration and with a\n"
            "BRDF-only model, and compare per incidence-angle bin. Writes OUTDIR/validation.csv,\n"
            "OUTDIR/calibration.yaml, OUTDIR/NAME_validation.png, OUTDIR/NAME_view.png, prints one\n"
            "verdict line per material, and exits 3 when a verdict is FAIL.\n\n"
            "  -o, --output DIR     output folder (created if missing)\n"
            "  --bin-width DEG      incidence bin width (default 2)\n"
            "  --seed N             simulation seed (default 1)\n"
            "  --holdout            calibrate on the even revolutions, compare with the odd ones, and\n"
            "                       compare the real odd half with the real even half by the same tests\n"
            "                       (default: compare with the scan it was calibrated from, as the thesis)\n"
            "  --threads N          threads, 0 = all cores (default 0)\n"
            "  --quiet              no progress bar (drawn on a terminal when the run takes over a second)\n"
            "  -h, --help  this help (on standard output);  --version  print the version\n");
}

static int bad(const char *opt, const char *value, const char *valid)
{
    return lsim_arg_invalid("validate", opt, value, valid);
}

int lsim_cmd_validate(int argc, char **argv)
{
    const char *config = NULL, *outdir = NULL;
    int has_bin_width = 0, quiet = 0;
    lsim_valid_options opt;
    memset(&opt, 0, sizeof opt);
    lsim_calib_options_init(&opt.calib);
    opt.seed = 1;
    static const struct option longopts[] = {
        LSIM_OPTS_COMMON,
        {"output", required_argument, NULL, 'o'},
        {"bin-width", required_argument, NULL, 0},
        {"seed", required_argument, NULL, 0},
        {"threads", required_argument, NULL, 0},
        {"holdout", no_argument, NULL, 0},
        {"quiet", no_argument, NULL, 0},
        {0, 0, 0, 0}};
    lsim_opts g;
    lsim_opts_init(&g, "validate", argc, argv, "ho:", longopts, validate_usage);
    for (int c; (c = lsim_opts_next(&g)) != LSIM_OPT_END;) {
        if (c == LSIM_OPT_ERROR)
            return LSIM_EXIT_USAGE;
        if (c == LSIM_OPT_EXIT)
            return LSIM_EXIT_OK;
        /* getopt_long has matched the option and its value: dispatch on its full name */
        const char *o = c == LSIM_OPT_ARG ? "" : g.name, *val = g.arg;
        if (strcmp(o, "-o") == 0 || strcmp(o, "--output") == 0) {
            outdir = val;
        } else if (strcmp(o, "--bin-width") == 0) {
            has_bin_width = 1;
            if (lsim_arg_double(val, 0.05, 45.0, &opt.calib.bin_width_deg))
                return bad("--bin-width", val, "degrees in 0.05..45");
        } else if (strcmp(o, "--holdout") == 0) {
            opt.holdout = 1;
        } else if (strcmp(o, "--quiet") == 0) {
            quiet = 1;
        } else if (strcmp(o, "--seed") == 0) {
            if (lsim_arg_u64(val, &opt.seed))
                return bad("--seed", val, "an integer 0..18446744073709551615");
        } else if (strcmp(o, "--threads") == 0) {
            long v;
            if (lsim_arg_long(val, 0, 1024, &v))
                return bad("--threads", val, "an integer 0..1024");
            opt.threads = (int)v;
        } else if (!config) {
            config = val;
        } else {
            fprintf(stderr, "lidarsim validate: unexpected argument '%s' (one config only)\n", val);
            return LSIM_EXIT_USAGE;
        }
    }
    if (!config || !outdir) {
        fprintf(stderr, "lidarsim validate: %s\n", !config ? "missing the CONFIG file" : "missing -o OUTDIR");
        validate_usage(stderr);
        return LSIM_EXIT_USAGE;
    }
    lsim_context *ctx = NULL;
    if (lsim_context_create(&ctx) != LSIM_OK)
        return LSIM_EXIT_FAILURE;
    lsim_calib_config cfg;
    memset(&cfg, 0, sizeof cfg);
    int rc = LSIM_EXIT_OK;
    if (lsim_calib_config_read(ctx, config, &cfg) != LSIM_OK) {
        fprintf(stderr, "lidarsim validate: %s\n", lsim_context_last_error(ctx));
        rc = LSIM_EXIT_FAILURE;
    }
    if (rc == LSIM_EXIT_OK && cfg.bin_width_deg > 0.0 && !has_bin_width)
        opt.calib.bin_width_deg = cfg.bin_width_deg;
    /* Every output is named and its folder made writable before any simulation: a folder that
     * cannot be written fails in milliseconds, not after the work. Files are written into a
     * staging folder inside OUTDIR and moved into place together at the end; on any failure none
     * is left, nor OUTDIR when this run created it. */
    lsim_cli_outputs outs;
    lsim_cli_outputs_init(&outs, ctx, "validate");
    if (rc == LSIM_EXIT_OK)
        rc = lsim_cli_outputs_folder(&outs, outdir, "output folder");
    const char *sensor = cfg.sensor[0] ? cfg.sensor : LSIM_CALIB_DEFAULT_SENSOR;
    const size_t n_paths = 2 + 2 * cfg.count;
    char (*path)[4096] = rc == LSIM_EXIT_OK ? calloc(n_paths, sizeof *path) : NULL;
    lsim_valid_material *v = rc == LSIM_EXIT_OK ? calloc(cfg.count ? cfg.count : 1, sizeof *v) : NULL;
    if (rc == LSIM_EXIT_OK && (!v || !path)) {
        fprintf(stderr, "lidarsim validate: out of memory\n");
        rc = LSIM_EXIT_FAILURE;
    }
    /* path[0]: validation.csv, [1]: calibration.yaml, [2 + 2i]: NAME_validation.png, [3 + 2i]: NAME_view.png */
    lsim_status st = rc == LSIM_EXIT_OK ? LSIM_OK : LSIM_ERR_INVALID_ARGUMENT;
    if (st == LSIM_OK)
        st = lsim_cli_outputs_add(&outs, "validation", ".csv", path[0], sizeof path[0]);
    if (st == LSIM_OK)
        st = lsim_cli_outputs_add(&outs, "calibration", ".yaml", path[1], sizeof path[1]);
    for (size_t i = 0; st == LSIM_OK && i < cfg.count; ++i) {
        st = lsim_cli_outputs_add(&outs, cfg.inputs[i].name, "_validation.png", path[2 + 2 * i], sizeof path[0]);
        if (st == LSIM_OK)
            st = lsim_cli_outputs_add(&outs, cfg.inputs[i].name, "_view.png", path[3 + 2 * i], sizeof path[0]);
    }
    if (rc == LSIM_EXIT_OK && st != LSIM_OK) {
        fprintf(stderr, "lidarsim validate: %s\n", lsim_context_last_error(ctx));
        rc = LSIM_EXIT_FAILURE;
    }
    size_t done = 0;
    lsim_progress bar; /* on a terminal, when the materials take more than a second */
    lsim_progress_start(&bar, quiet ? LSIM_PROGRESS_OFF : LSIM_PROGRESS_BAR, stderr, "validate", "materials",
                        (double)cfg.count, 1.0);
    for (size_t i = 0; rc == LSIM_EXIT_OK && i < cfg.count; ++i, ++done) {
        lsim_progress_update(&bar, (double)i);
        const lsim_status vst = lsim_validate_input(ctx, &cfg.inputs[i], sensor, &opt, &v[i]);
        if (vst != LSIM_OK || v[i].beams_dropped)
            lsim_progress_clear(&bar); /* the message starts on a line of its own */
        if (vst != LSIM_OK) {
            fprintf(stderr, "lidarsim validate: %s: %s\n", cfg.inputs[i].name, lsim_context_last_error(ctx));
            rc = LSIM_EXIT_FAILURE;
        } else if (v[i].beams_dropped) {
            fprintf(stderr, "lidarsim validate: %s: note: %s ends in a partial revolution: its last %zu beams are "
                    "left out; using %zu complete revolution%s of %zu beams\n", cfg.inputs[i].name,
                    cfg.inputs[i].scan_path, v[i].beams_dropped, v[i].revolutions_used,
                    v[i].revolutions_used == 1 ? "" : "s", v[i].beams_per_revolution);
        }
    }
    lsim_progress_finish(&bar, rc == LSIM_EXIT_OK);
    /* The statistics (CSV), the calibration used, and per material the plot and the view. */
    if (rc == LSIM_EXIT_OK) {
        lsim_atomic_group g;
        lsim_atomic_begin(&g, ctx);
        FILE *fp = NULL;
        st = lsim_atomic_open(&g, path[0], &fp);
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
                st = lsim_cli_write_view(ctx, path[3 + 2 * i], &v[i].calibration);
        }
        if (st == LSIM_OK)
            st = lsim_cli_outputs_commit(&outs);
        if (st != LSIM_OK) {
            fprintf(stderr, "lidarsim validate: %s; nothing was written to %s\n", lsim_context_last_error(ctx),
                    outdir);
            rc = LSIM_EXIT_FAILURE;
        }
    }
    lsim_cli_outputs_abort(&outs); /* nothing left to do after a commit */
    free(path);
    int failed = 0;
    for (size_t i = 0; rc == LSIM_EXIT_OK && i < done; ++i) {
        char line[1024];
        lsim_valid_verdict(&v[i], line, sizeof line);
        printf("%s\n", line);
        failed |= !lsim_valid_passed(&v[i]);
    }
    if (rc == LSIM_EXIT_OK && failed)
        rc = LSIM_EXIT_VALIDATION_FAILED;
    for (size_t i = 0; v && i < done; ++i)
        lsim_valid_material_free(&v[i]);
    free(v);
    lsim_calib_config_free(&cfg);
    lsim_context_destroy(ctx);
    return rc;
}
