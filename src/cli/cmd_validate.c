/* lidarsim validate CONFIG -o OUTDIR: calibrate each material from its real scan, re-simulate
 * the setup with the calibration and with a BRDF-only model, and compare bin by bin. The work is
 * the library's (lsim_validate_run); this file parses the arguments. */
#include "args.h"
#include "commands.h"
#include "opts.h"

#include "lidarsim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    int quiet = 0;
    lsim_validate_options opt;
    lsim_validate_options_init(&opt);
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
            if (lsim_arg_double(val, 0.05, 45.0, &opt.bin_width_deg))
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
    opt.progress = quiet ? LSIM_PROGRESS_OFF : LSIM_PROGRESS_BAR; /* a bar when the run takes over a second */
    lsim_context *ctx = NULL;
    if (lsim_context_create(&ctx) != LSIM_OK)
        return LSIM_EXIT_FAILURE;
    lsim_cli_signal_context(ctx); /* Ctrl-C: no staging folder left */
    lsim_context_track_inputs(ctx, 1); /* no output may replace the config or a scan */
    lsim_validate_result result;
    int rc = LSIM_EXIT_OK;
    if (lsim_validate_run(ctx, config, outdir, &opt, &result) != LSIM_OK) {
        fprintf(stderr, "lidarsim validate: %s\n", lsim_context_last_error(ctx));
        rc = LSIM_EXIT_FAILURE;
    } else if (result.failed) {
        rc = LSIM_EXIT_VALIDATION_FAILED;
    }
    lsim_cli_signal_context(NULL);
    lsim_context_destroy(ctx);
    return rc;
}
