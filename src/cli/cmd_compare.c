/* lidarsim compare REAL SIM -o REPORT/: per-beam agreement of two frames of one sensor
 * (src/compare/, docs/compare.md). */
#include "args.h"
#include "commands.h"
#include "opts.h"

#include "lidarsim.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct compare_args {
    const char *file[2], *output, *metadata[2];
    long frame[2], columns, rings;
    int partial, match;
} compare_args;

static void compare_usage(FILE *out)
{
    fprintf(out,
            "usage: lidarsim compare REAL SIM -o REPORT/ [options]\n\n"
            "Per-beam agreement of two frames of one sensor (a real frame and a simulated one, or any\n"
            "two): ray-drop precision, recall and F1 (a hit: the beam returned), range error of the beams\n"
            "both hit (median, MAE, RMSE, p95 of |dr|, signed median), Chamfer distance, intensity and\n"
            "reflectivity error, all by ring and by range band (0-10, 10-20, 20-40, 40-80, 80+ m).\n"
            "REAL and SIM: any point file lidarsim reads (PCD, PLY, CSV, LAS, KITTI .bin) or a recording\n"
            "(pcap). Beams match by (ring, column) when both hold ring and azimuth or time, else by\n"
            "direction (docs/compare.md). Writes REPORT/summary.json, REPORT/errors.png and (matched by\n"
            "beam) REPORT/range_images.png, together.\n\n"
            "  -o, --output DIR         the report folder (created when missing)\n"
            "  --match auto|beam|direction\n"
            "                           how beams are matched (default auto)\n"
            "  --columns N              columns per frame (default: from the azimuth steps)\n"
            "  --rings N                rings of the sensor (default: the frames' largest ring + 1)\n"
            "Recordings (a pcap of an Ouster's or a Velodyne's packets; docs/formats.md):\n"
            "  --metadata FILE          the unit's calibration, for both frames\n"
            "  --real-metadata FILE, --sim-metadata FILE\n"
            "                           each frame's own\n"
            "  --frame N                the frame of both recordings, from 0 (default 0)\n"
            "  --real-frame N, --sim-frame N\n"
            "  --partial                count incomplete frames too\n"
            "  -h, --help  this help (on standard output);  --version  print the version\n");
}

static int parse_args(int argc, char **argv, compare_args *a)
{
    memset(a, 0, sizeof *a);
    static const struct option longopts[] = {
        LSIM_OPTS_COMMON,
        {"output", required_argument, NULL, 'o'},
        {"match", required_argument, NULL, 0},
        {"columns", required_argument, NULL, 0},
        {"rings", required_argument, NULL, 0},
        {"metadata", required_argument, NULL, 0},
        {"real-metadata", required_argument, NULL, 0},
        {"sim-metadata", required_argument, NULL, 0},
        {"frame", required_argument, NULL, 0},
        {"real-frame", required_argument, NULL, 0},
        {"sim-frame", required_argument, NULL, 0},
        {"partial", no_argument, NULL, 0},
        {0, 0, 0, 0}};
    lsim_opts g;
    lsim_opts_init(&g, "compare", argc, argv, "ho:", longopts, compare_usage);
    int files = 0;
    for (int c; (c = lsim_opts_next(&g)) != LSIM_OPT_END;) {
        if (c == LSIM_OPT_ERROR)
            return LSIM_EXIT_USAGE;
        if (c == LSIM_OPT_EXIT)
            return -1;
        const char *opt = c == LSIM_OPT_ARG ? "" : g.name, *val = g.arg;
        if (c == LSIM_OPT_ARG) {
            if (files == 2) {
                fprintf(stderr, "lidarsim compare: unexpected argument '%s' (two frames: REAL SIM)\n", val);
                return LSIM_EXIT_USAGE;
            }
            a->file[files++] = val;
        } else if (!strcmp(opt, "-o") || !strcmp(opt, "--output")) {
            a->output = val;
        } else if (!strcmp(opt, "--partial")) {
            a->partial = 1;
        } else if (!strcmp(opt, "--match")) {
            a->match = !strcmp(val, "auto") ? LSIM_COMPARE_MATCH_AUTO : !strcmp(val, "beam") ? LSIM_COMPARE_MATCH_BEAM
                       : !strcmp(val, "direction") ? LSIM_COMPARE_MATCH_DIRECTION : -1;
            if (a->match < 0)
                return lsim_arg_invalid("compare", opt, val, "auto, beam or direction");
        } else if (!strcmp(opt, "--columns") || !strcmp(opt, "--rings")) {
            const int cols = !strcmp(opt, "--columns");
            if (lsim_arg_long(val, 1, cols ? 10000000L : 65536L, cols ? &a->columns : &a->rings))
                return lsim_arg_invalid("compare", opt, val, cols ? "a column count 1..10000000" : "a ring count 1..65536");
        } else if (!strcmp(opt, "--metadata")) {
            a->metadata[0] = a->metadata[1] = val;
        } else if (!strcmp(opt, "--real-metadata") || !strcmp(opt, "--sim-metadata")) {
            a->metadata[opt[2] == 's'] = val;
        } else { /* --frame, --real-frame, --sim-frame */
            long f;
            if (lsim_arg_long(val, 0, 1000000000L, &f))
                return lsim_arg_invalid("compare", opt, val, "a frame number from 0");
            if (strcmp(opt, "--sim-frame"))
                a->frame[0] = f;
            if (strcmp(opt, "--real-frame"))
                a->frame[1] = f;
        }
    }
    if (files < 2 || !a->output) {
        fprintf(stderr, "lidarsim compare: %s is missing\n", files < 2 ? "a frame (REAL SIM)" : "-o REPORT/");
        compare_usage(stderr);
        return LSIM_EXIT_USAGE;
    }
    return LSIM_EXIT_OK;
}

static int is_recording(const char *path, const char *metadata)
{
    const size_t len = strlen(path);
    return metadata || (len > 5 && !strcmp(path + len - 5, ".pcap")) || (len > 7 && !strcmp(path + len - 7, ".pcapng"));
}

static void print_errors(const char *what, const lsim_compare_errors *e, const char *unit)
{
    if (e->count)
        printf("  %-13s median %+.4g %s, median |d| %.4g, MAE %.4g, RMSE %.4g, p95 |d| %.4g (%llu beams)\n", what,
               e->median, unit, e->median_abs, e->mean_abs, e->rmse, e->p95_abs, (unsigned long long)e->count);
}

int lsim_cmd_compare(int argc, char **argv)
{
    compare_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? LSIM_EXIT_OK : rc;
    lsim_context *ctx;
    if (lsim_context_create(&ctx) != LSIM_OK) {
        fprintf(stderr, "lidarsim compare: out of memory\n");
        return LSIM_EXIT_FAILURE;
    }
    lsim_context_track_inputs(ctx, 1); /* the report may not replace a frame */
    lsim_points *pts[2] = {NULL, NULL};
    lsim_status st = LSIM_OK;
    for (int k = 0; k < 2 && st == LSIM_OK; ++k) {
        lsim_recording_options ro;
        lsim_recording_options_init(&ro);
        ro.frame = a.frame[k];
        ro.partial = a.partial;
        st = is_recording(a.file[k], a.metadata[k])
                 ? lsim_points_read_recording(ctx, a.file[k], a.metadata[k], &ro, &pts[k])
                 : lsim_points_read(ctx, a.file[k], 0, &pts[k]);
    }
    lsim_compare_options o;
    lsim_compare_options_init(&o);
    o.match = (lsim_compare_match)a.match;
    o.columns = (int)a.columns;
    o.rings = (int)a.rings;
    lsim_compare *cmp = NULL;
    if (st == LSIM_OK)
        st = lsim_compare_points(ctx, pts[0], pts[1], &o, &cmp);
    lsim_points_destroy(pts[0]);
    lsim_points_destroy(pts[1]);
    if (st == LSIM_OK) {
        lsim_cli_signal_context(ctx); /* Ctrl-C: no staging folder left */
        st = lsim_compare_write_report(cmp, a.output, a.file[0], a.file[1]);
        lsim_cli_signal_context(NULL);
    }
    if (st != LSIM_OK) {
        fprintf(stderr, "lidarsim compare: %s\n", lsim_context_last_error(ctx));
        lsim_compare_destroy(cmp);
        lsim_context_destroy(ctx);
        return LSIM_EXIT_FAILURE;
    }
    lsim_compare_stats s;
    lsim_compare_match match;
    int rings, columns;
    double tol;
    lsim_compare_get_stats(cmp, LSIM_COMPARE_ALL, 0, &s);
    lsim_compare_get_layout(cmp, &match, &rings, &columns, &tol);
    if (match == LSIM_COMPARE_MATCH_BEAM)
        printf("lidarsim compare: wrote %s/summary.json, errors.png, range_images.png: beams matched by ring and column "
               "(%d x %d)\n",
               a.output, rings, columns);
    else
        printf("lidarsim compare: wrote %s/summary.json, errors.png: beams matched by direction (within %.4g deg)\n",
               a.output, tol);
    printf("  hits          both %llu, real only %llu, sim only %llu, both missed %llu\n",
           (unsigned long long)s.both_hit, (unsigned long long)s.real_only, (unsigned long long)s.sim_only,
           (unsigned long long)s.both_miss);
    printf("  ray drop      precision %.4f, recall %.4f, F1 %.4f\n", s.precision, s.recall, s.f1);
    print_errors("range", &s.range, "m");
    print_errors("intensity", &s.intensity, "");
    print_errors("reflectivity", &s.reflectivity, "");
    printf("  Chamfer       %.4g m\n", s.chamfer_m);
    lsim_compare_destroy(cmp);
    lsim_context_destroy(ctx);
    return LSIM_EXIT_OK;
}
