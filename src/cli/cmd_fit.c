/* lidarsim fit FIT.yaml -o FITTED.yaml: the parameters a fit file names, fitted to a real scan
 * (lsim_fit_*, L-BFGS), written into a copy of the scene file (lsim_fit_file_run in
 * include/lidarsim.h). */
#include "args.h"
#include "commands.h"
#include "opts.h"

#include "lidarsim.h"

#include <stdio.h>
#include <string.h>

typedef struct fit_args {
    const char *fit, *output;
    long max_iterations; /* 0: the fit file's (default 100) */
    int quiet;
} fit_args;

static void fit_usage(FILE *out)
{
    fprintf(out,
            "usage: lidarsim fit FIT.yaml -o FITTED.yaml [options]\n\n"
            "Fit the parameters FIT.yaml names (the sensor's pose, named objects' poses, Lambertian\n"
            "reflectances, the CW receiver's bias) to a real scan, and write the scene file with the\n"
            "fitted values in. FIT.yaml (paths relative to it):\n\n"
            "  scene: room.yaml          the scene; its `sensor:` is the sensor being fitted\n"
            "  scan: real.csv            one row per beam in the sensor's beam order: CSV with `range`\n"
            "                            (and `intensity`) columns, PCD or PLY; `lidarsim scan SCENE -o\n"
            "                            real.csv --keep-misses` writes one\n"
            "  intensity_weight: 1.0     optional: also fit the intensities (m^2 per relative error^2)\n"
            "  parameters:               at least one, at most 8 values in all\n"
            "    sensor: {dof: se2, initial: {x: 0.1, yaw_deg: 3}, bounds: {x: [-1, 1]}}\n"
            "    objects: {door: {dof: se2, initial: {...}, bounds: {...}}}   (the objects' `name:`)\n"
            "    reflectance: {white: {initial: 0.5}}                        (Lambertian materials)\n"
            "    cw_bias: {initial: [0, 0, 0], bounds: {c1: [-1, 1]}}\n"
            "  loss: {type: huber, scale: 0.05}   squared (default), huber or cauchy (scale in m)\n"
            "  max_iterations: 100\n\n"
            "Pose axes: x y z (m), roll_deg pitch_deg yaw_deg; se2 fits x, y, yaw; se3 all six.\n\n"
            "  -o, --output FILE         the fitted scene (YAML); its relative file names are rewritten\n"
            "                            to resolve from its folder\n"
            "  --max-iterations N        L-BFGS iterations, 1..10000 (default: the fit file's, or 100)\n"
            "  --quiet                   print nothing on success (no progress, no result block)\n"
            "  -h, --help  this help (on standard output);  --version  print the version\n");
}

static int parse_args(int argc, char **argv, fit_args *a)
{
    memset(a, 0, sizeof *a);
    static const struct option longopts[] = {
        LSIM_OPTS_COMMON,
        {"output", required_argument, NULL, 'o'},
        {"max-iterations", required_argument, NULL, 0},
        {"quiet", no_argument, NULL, 0},
        {0, 0, 0, 0}};
    lsim_opts g;
    lsim_opts_init(&g, "fit", argc, argv, "ho:", longopts, fit_usage);
    for (int c; (c = lsim_opts_next(&g)) != LSIM_OPT_END;) {
        if (c == LSIM_OPT_ERROR)
            return LSIM_EXIT_USAGE;
        if (c == LSIM_OPT_EXIT)
            return -1;
        /* getopt_long has matched the option and its value: dispatch on its full name */
        const char *opt = c == LSIM_OPT_ARG ? "" : g.name, *val = g.arg;
        if (strcmp(opt, "-o") == 0 || strcmp(opt, "--output") == 0 || strcmp(opt, "--max-iterations") == 0) {
            if (strcmp(opt, "--max-iterations") != 0)
                a->output = val;
            else if (lsim_arg_long(val, 1, 10000, &a->max_iterations))
                return lsim_arg_invalid("fit", opt, val, "an integer 1..10000");
        } else if (strcmp(opt, "--quiet") == 0) {
            a->quiet = 1;
        } else if (!a->fit) {
            a->fit = val;
        } else {
            fprintf(stderr, "lidarsim fit: unexpected argument '%s' (one fit file only)\n", val);
            return LSIM_EXIT_USAGE;
        }
    }
    if (!a->fit || !a->output) {
        fprintf(stderr, "lidarsim fit: %s\n", !a->fit ? "missing the fit file (FIT.yaml)" : "missing -o FITTED.yaml");
        fit_usage(stderr);
        return LSIM_EXIT_USAGE;
    }
    return 0;
}

int lsim_cmd_fit(int argc, char **argv)
{
    fit_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? LSIM_EXIT_OK : rc;
    lsim_context *ctx = NULL;
    if (lsim_context_create(&ctx) != LSIM_OK) {
        fprintf(stderr, "lidarsim fit: out of memory\n");
        return LSIM_EXIT_FAILURE;
    }
    lsim_context_track_inputs(ctx, 1); /* the fitted scene may not replace a mesh or other file the scene reads */
    lsim_fit_file_options o;
    lsim_fit_file_options_init(&o);
    o.max_iterations = (int)a.max_iterations;
    o.progress = a.quiet ? LSIM_PROGRESS_OFF : LSIM_PROGRESS_AUTO;
    o.report = !a.quiet;
    const lsim_status st = lsim_fit_file_run(ctx, a.fit, a.output, &o, NULL);
    if (st != LSIM_OK) /* invalid arguments: -o names one of the inputs */
        fprintf(stderr, "lidarsim fit: %s\n", lsim_context_last_error(ctx));
    lsim_context_destroy(ctx);
    return st == LSIM_OK ? LSIM_EXIT_OK : st == LSIM_ERR_INVALID_ARGUMENT ? LSIM_EXIT_USAGE : LSIM_EXIT_FAILURE;
}
