/* lidarsim calibrate: calibrated noise from real scans of benchmark boards (docs/calibration.md).
 *   lidarsim calibrate CONFIG -o CALIBRATION.yaml            (data.config or YAML, several materials)
 *   lidarsim calibrate --scan FILE --name NAME --width W -o CALIBRATION.yaml   (one material)
 * The work is the library's (lsim_calibrate_run); this file parses the arguments. */
#include "args.h"
#include "commands.h"
#include "opts.h"

#include "lidarsim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct calib_args {
    const char *config, *output;
    int json, quiet, single;
    lsim_calibrate_options opt;
} calib_args;

static void calibrate_usage(FILE *out)
{
    fprintf(out,
            "usage: lidarsim calibrate CONFIG -o CALIBRATION.yaml [options]\n"
            "       lidarsim calibrate --scan FILE --name NAME --width W -o CALIBRATION.yaml [options]\n\n"
            "Finds each benchmark board in its scan (robust line fit), bins the beams by incidence angle,\n"
            "fits the material's BRDF to the bins and writes a calibration file (docs/calibration.md).\n"
            "CONFIG: the thesis's data.config (name,file,distance_m,width_m,ON|CT,roughness,fresnel) or YAML.\n\n"
            "  -o, --output FILE      calibration file to write (YAML); optional with --json\n"
            "  --bin-width DEG        incidence-angle bin width, 0.05..45 (default 2, or the YAML's bin_width_deg)\n"
            "  --sensor NAME          sensor recorded in the file (default: the YAML's sensor, else rplidar-a1)\n"
            "  --direction DEG        expected direction of the board centre, sensor frame (default 180)\n"
            "  --window DEG           half-width of the window searched for the board (default 80)\n"
            "  --seed N               seed of the RANSAC line search (default 0)\n"
            "  --view DIR             also draw each material's calibration view, DIR/NAME_view.png (the\n"
            "                         board and the beams on it, coloured by mean intensity x (1 - drop rate))\n"
            "  --json                 print a JSON summary on stdout instead of the text summary\n"
            "  --quiet                no text summary and no progress bar (drawn on a terminal when the\n"
            "                         materials take more than a second)\n"
            "one material (instead of CONFIG):\n"
            "  --scan FILE            scan: `range_m,intensity,angle_rad` lines or a ROS LaserScan text dump\n"
            "  --name NAME            material name (letters, digits, '_', '-', '.')\n"
            "  --width W              board width in metres\n"
            "  --distance D           hand-measured distance in metres (reported beside the fitted one)\n"
            "  --brdf B               oren-nayar | cook-torrance | lambertian (default oren-nayar)\n"
            "  --roughness R          starting roughness of the fit\n"
            "  --ior N                index of refraction (cook-torrance)\n"
            "  -h, --help  this help (on standard output);  --version  print the version\n");
}

static int bad(const char *opt, const char *value, const char *valid)
{
    return lsim_arg_invalid("calibrate", opt, value, valid);
}

static int parse_args(int argc, char **argv, calib_args *a)
{
    memset(a, 0, sizeof *a);
    lsim_calibrate_options *o = &a->opt;
    lsim_calibrate_options_init(o);
    static const struct option longopts[] = {
        LSIM_OPTS_COMMON,
        {"output", required_argument, NULL, 'o'},
        {"bin-width", required_argument, NULL, 0},
        {"sensor", required_argument, NULL, 0},
        {"direction", required_argument, NULL, 0},
        {"window", required_argument, NULL, 0},
        {"seed", required_argument, NULL, 0},
        {"view", required_argument, NULL, 0},
        {"scan", required_argument, NULL, 0},
        {"name", required_argument, NULL, 0},
        {"width", required_argument, NULL, 0},
        {"distance", required_argument, NULL, 0},
        {"brdf", required_argument, NULL, 0},
        {"roughness", required_argument, NULL, 0},
        {"ior", required_argument, NULL, 0},
        {"json", no_argument, NULL, 0},
        {"quiet", no_argument, NULL, 0},
        {0, 0, 0, 0}};
    lsim_opts g;
    lsim_opts_init(&g, "calibrate", argc, argv, "ho:", longopts, calibrate_usage);
    for (int c; (c = lsim_opts_next(&g)) != LSIM_OPT_END;) {
        if (c == LSIM_OPT_ERROR)
            return LSIM_EXIT_USAGE;
        if (c == LSIM_OPT_EXIT)
            return -1;
        /* getopt_long has matched the option and its value: dispatch on its full name */
        const char *opt = c == LSIM_OPT_ARG ? "" : g.name, *val = g.arg;
        if (strcmp(opt, "-o") == 0 || strcmp(opt, "--output") == 0) {
            a->output = val;
        } else if (strcmp(opt, "--bin-width") == 0) {
            if (lsim_arg_double(val, 0.05, 45.0, &o->bin_width_deg))
                return bad("--bin-width", val, "degrees, 0.05..45");
        } else if (strcmp(opt, "--sensor") == 0) {
            if (!lsim_calibration_name_valid(val))
                return bad("--sensor", val, "1 to 63 letters, digits, '_', '-', '.' (e.g. rplidar-a1)");
            o->sensor = val;
        } else if (strcmp(opt, "--direction") == 0) {
            if (lsim_arg_double(val, -720.0, 720.0, &o->direction_deg))
                return bad("--direction", val, "degrees within +-720");
        } else if (strcmp(opt, "--window") == 0) {
            if (lsim_arg_double(val, 1e-3, 180.0, &o->window_deg))
                return bad("--window", val, "degrees, (0, 180]");
        } else if (strcmp(opt, "--seed") == 0) {
            if (lsim_arg_u64(val, &o->seed))
                return bad("--seed", val, "an integer 0..18446744073709551615");
        } else if (strcmp(opt, "--view") == 0) {
            if (!*val)
                return bad(opt, val, "a folder for the view PNGs");
            o->view_dir = val;
        } else if (strcmp(opt, "--json") == 0) {
            a->json = 1;
        } else if (strcmp(opt, "--quiet") == 0) {
            a->quiet = 1;
        } else if (strcmp(opt, "--scan") == 0) {
            o->scan_path = val;
            a->single = 1;
        } else if (strcmp(opt, "--name") == 0) {
            if (!lsim_calibration_name_valid(val))
                return bad("--name", val, "1 to 63 letters, digits, '_', '-', '.'");
            o->name = val;
            a->single = 1;
        } else if (strcmp(opt, "--width") == 0) {
            if (lsim_arg_double(val, 1e-6, 100.0, &o->width_m))
                return bad("--width", val, "the board width in metres, > 0 and <= 100");
            a->single = 1;
        } else if (strcmp(opt, "--distance") == 0) {
            if (lsim_arg_double(val, 0.0, 1000.0, &o->distance_m))
                return bad("--distance", val, "metres >= 0 (0 = not measured)");
            a->single = 1;
        } else if (strcmp(opt, "--brdf") == 0) {
            if (!lsim_calibration_brdf_parse(val, &o->brdf))
                return bad("--brdf", val, "oren-nayar, cook-torrance or lambertian");
            a->single = 1;
        } else if (strcmp(opt, "--roughness") == 0) {
            if (lsim_arg_double(val, 0.0, 3.14159265358979323846 / 2.0, &o->roughness))
                return bad("--roughness", val, "oren-nayar: [0, pi/2] radians; cook-torrance: (0, 1]");
            a->single = 1;
        } else if (strcmp(opt, "--ior") == 0) {
            if (lsim_arg_double(val, 1.0, 10.0, &o->ior))
                return bad("--ior", val, "an index of refraction in [1, 10]");
            a->single = 1;
        } else if (!a->config) {
            a->config = val;
        } else {
            fprintf(stderr, "lidarsim calibrate: unexpected argument '%s' (one config file only)\n", val);
            return LSIM_EXIT_USAGE;
        }
    }
    if (a->config && a->single) {
        fprintf(stderr, "lidarsim calibrate: give either CONFIG or --scan/--name/--width (one material), not "
                "both\n");
        return LSIM_EXIT_USAGE;
    }
    if (!a->config && !a->single) {
        fprintf(stderr, "lidarsim calibrate: missing the config file (data.config or .yaml) or --scan FILE\n");
        calibrate_usage(stderr);
        return LSIM_EXIT_USAGE;
    }
    if (a->single && (!o->scan_path || !o->name || o->width_m == 0.0)) {
        fprintf(stderr, "lidarsim calibrate: one material needs --scan FILE, --name NAME and --width W (missing "
                "%s)\n", !o->scan_path ? "--scan" : !o->name ? "--name" : "--width");
        return LSIM_EXIT_USAGE;
    }
    if (!a->output && !a->json) {
        fprintf(stderr, "lidarsim calibrate: missing -o CALIBRATION.yaml (or --json for a summary only)\n");
        return LSIM_EXIT_USAGE;
    }
    o->report = a->json ? LSIM_REPORT_JSON : a->quiet ? LSIM_REPORT_NONE : LSIM_REPORT_TEXT;
    o->progress = a->quiet ? LSIM_PROGRESS_OFF : LSIM_PROGRESS_BAR; /* a bar when the materials take over 1 s */
    return 0;
}

int lsim_cmd_calibrate(int argc, char **argv)
{
    calib_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? LSIM_EXIT_OK : rc;
    struct stat info;
    if (a.opt.view_dir && stat(a.opt.view_dir, &info) == 0 && !S_ISDIR(info.st_mode)) {
        fprintf(stderr, "lidarsim calibrate: --view '%s' is a file, not a folder; give a folder for the view PNGs\n",
                a.opt.view_dir);
        return LSIM_EXIT_USAGE;
    }
    lsim_context *ctx = NULL;
    if (lsim_context_create(&ctx) != LSIM_OK) {
        fprintf(stderr, "lidarsim calibrate: out of memory\n");
        return LSIM_EXIT_FAILURE;
    }
    lsim_cli_signal_context(ctx); /* Ctrl-C with --view: no staging files left */
    lsim_context_track_inputs(ctx, 1); /* no output may replace the config or a scan */
    rc = LSIM_EXIT_OK;
    if (lsim_calibrate_run(ctx, a.config, a.output, &a.opt) != LSIM_OK) {
        fprintf(stderr, "lidarsim calibrate: %s\n", lsim_context_last_error(ctx));
        rc = LSIM_EXIT_FAILURE;
    }
    lsim_cli_signal_context(NULL);
    lsim_context_destroy(ctx);
    return rc;
}
