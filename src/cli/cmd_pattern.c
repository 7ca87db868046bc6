/* lidarsim pattern from-scan SCAN -o PATTERN.csv: a pattern file (beam table) from a scan of a flat
 * wall (raster paper §3.3; lsim_pattern_from_scan in include/lidarsim.h). */
#include "args.h"
#include "commands.h"
#include "opts.h"

#include "lidarsim.h"

#include <stdio.h>
#include <string.h>

typedef struct pattern_args {
    const char *scan, *output;
    double wall_distance; /* 0: not given */
    int quiet;
} pattern_args;

static void pattern_usage(FILE *out)
{
    fprintf(out,
            "usage: lidarsim pattern from-scan SCAN -o PATTERN.csv [--wall-distance M] [--quiet]\n\n"
            "Turn a scan of a flat wall, taken in the sensor's frame, into a pattern file: one beam per\n"
            "point with a return, in the scan's order, azimuth_deg = atan2(y, x) and elevation_deg =\n"
            "atan2(z, hypot(x, y)), with time_s and ring when the scan has `time` / `ring` columns.\n"
            "A scene with `sensor: {file: PATTERN.csv}` then fires the captured sensor's beams.\n\n"
            "  SCAN                      CSV (header line naming x, y, z, ...), PCD or PLY, as `lidarsim\n"
            "                            scan SCENE -o SCAN.csv --frame sensor` writes it\n"
            "  -o, --output FILE         the pattern file (azimuth_deg,elevation_deg[,time_s,ring])\n"
            "  --wall-distance M         the wall's known distance from the sensor (m): warn when the\n"
            "                            fitted plane is more than 2 cm off it\n"
            "  --quiet                   print nothing but warnings and errors\n\n"
            "The wall plane is fitted (least squares) and its distance and normal printed; a warning\n"
            "goes to stderr when the points are not planar (rms off the plane > 2 cm): then the capture\n"
            "was not of one flat wall (the directions are written all the same).\n"
            "  -h, --help  this help (on standard output);  --version  print the version\n");
}

static int parse_args(int argc, char **argv, pattern_args *a)
{
    memset(a, 0, sizeof *a);
    if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
        lsim_print_version();
        return -1;
    }
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        pattern_usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? LSIM_EXIT_USAGE : -1;
    }
    if (strcmp(argv[1], "from-scan") != 0) {
        fprintf(stderr, "lidarsim pattern: unknown subcommand '%s'; valid: from-scan (see lidarsim pattern --help)\n",
                argv[1]);
        return LSIM_EXIT_USAGE;
    }
    static const struct option longopts[] = {
        LSIM_OPTS_COMMON,
        {"output", required_argument, NULL, 'o'},
        {"wall-distance", required_argument, NULL, 0},
        {"quiet", no_argument, NULL, 0},
        {0, 0, 0, 0}};
    lsim_opts g;
    lsim_opts_init(&g, "pattern", argc - 1, argv + 1, "ho:", longopts, pattern_usage); /* after from-scan */
    for (int c; (c = lsim_opts_next(&g)) != LSIM_OPT_END;) {
        if (c == LSIM_OPT_ERROR)
            return LSIM_EXIT_USAGE;
        if (c == LSIM_OPT_EXIT)
            return -1;
        /* getopt_long has matched the option and its value: dispatch on its full name */
        const char *opt = c == LSIM_OPT_ARG ? "" : g.name, *val = g.arg;
        if (strcmp(opt, "-o") == 0 || strcmp(opt, "--output") == 0 || strcmp(opt, "--wall-distance") == 0) {
            if (strcmp(opt, "--wall-distance") != 0)
                a->output = val;
            else if (lsim_arg_double(val, 1e-6, 1e6, &a->wall_distance))
                return lsim_arg_invalid("pattern", opt, val, "a distance in metres, > 0 and <= 1e6");
        } else if (strcmp(opt, "--quiet") == 0) {
            a->quiet = 1;
        } else if (!a->scan) {
            a->scan = val;
        } else {
            fprintf(stderr, "lidarsim pattern: unexpected argument '%s' (one scan only)\n", val);
            return LSIM_EXIT_USAGE;
        }
    }
    if (!a->scan || !a->output) {
        fprintf(stderr, "lidarsim pattern: %s\n", !a->scan ? "missing the scan (SCAN)" : "missing -o PATTERN.csv");
        pattern_usage(stderr);
        return LSIM_EXIT_USAGE;
    }
    return 0;
}

int lsim_cmd_pattern(int argc, char **argv)
{
    pattern_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? LSIM_EXIT_OK : rc;
    lsim_context *ctx = NULL;
    if (lsim_context_create(&ctx) != LSIM_OK) {
        fprintf(stderr, "lidarsim pattern: out of memory\n");
        return LSIM_EXIT_FAILURE;
    }
    lsim_context_track_inputs(ctx, 1); /* the pattern may not replace the scan */
    lsim_pattern_options o;
    lsim_pattern_options_init(&o);
    o.wall_distance_m = a.wall_distance;
    o.report = !a.quiet;
    const lsim_status st = lsim_pattern_from_scan(ctx, a.scan, a.output, &o, NULL);
    if (st != LSIM_OK) /* invalid arguments: the output is the scan itself */
        fprintf(stderr, "lidarsim pattern: %s\n", lsim_context_last_error(ctx));
    lsim_context_destroy(ctx);
    return st == LSIM_OK ? LSIM_EXIT_OK : st == LSIM_ERR_INVALID_ARGUMENT ? LSIM_EXIT_USAGE : LSIM_EXIT_FAILURE;
}
