/* lidarsim twin RECORDING -o TWIN/: a scene rebuilt from a real recording (src/twin/, docs/twin.md). */
#include "args.h"
#include "commands.h"
#include "opts.h"

#include "lidarsim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FRAME_LIST 100000

typedef struct twin_args {
    const char *recording, *output;
    lsim_twin_options o;
    int64_t *frames;
    int quiet;
} twin_args;

static void twin_usage(FILE *out)
{
    fprintf(out,
            "usage: lidarsim twin RECORDING -o TWIN/ --poses POSES [options]\n\n"
            "A digital twin of a real recording: a scene lidarsim scans with the recorded sensor on the\n"
            "recorded path, or with any sensor anywhere near it (docs/twin.md). Each frame's returns go on\n"
            "the sensor's beam grid and into the world at their own firing time (the sweep of a moving\n"
            "sensor undone); neighbouring returns become triangles except across depth edges; a return\n"
            "another frame's beam saw through is a moving object and left out; where frames see one\n"
            "surface they are averaged. Reflectances are inverted from the reflectivity (or intensity)\n"
            "and the sensor's ray drop is measured frame against frame.\n"
            "RECORDING: a pcap of an Ouster's or Velodyne's packets (with --metadata), or a sequence\n"
            "folder (points/NNNNNN.{pcd,ply,las,csv} or velodyne/NNNNNN.bin, with poses.txt; --sensor or\n"
            "--metadata). Writes TWIN/scene.yaml, surface_NNN.ply, trajectory.csv, sensor.json (the\n"
            "calibration) and twin.json, together. Scan recorded frame k with --scan-time k / rate.\n\n"
            "  -o, --output DIR         the twin's folder (created when missing)\n"
            "  --metadata FILE          the unit's calibration (Ouster metadata JSON, Velodyne table)\n"
            "  --sensor NAME            a preset as the sensor instead (a folder of frames)\n"
            "  --poses FILE             the sensor's pose per frame from 0, KITTI's 3 x 4 a line\n"
            "                           (default: the folder's poses.txt)\n"
            "  --frames LIST            the frames to build from, e.g. 0,2 (default: every posed frame)\n"
            "  --pose-time F            where in its frame a pose holds, 0..1 of the period (default\n"
            "                           0.5: mid-sweep, as SLAM gives them; 0: the first firing, as\n"
            "                           lidarsim's datasets write them)\n"
            "  --levels N               reflectance materials, 1..256 (default 48)\n"
            "  --shadow-angle DEG       no triangle edge within DEG of its beam, 0.1..45 (default 3)\n"
            "  --no-drop                no measured ray-drop table\n"
            "  --naive                  the baseline: frames at their poses, meshed as read, one\n"
            "                           material, no drop table\n"
            "  --partial                count a pcap's incomplete first and last frames too\n"
            "  --quiet                  no progress and no summary\n"
            "  -h, --help  this help (on standard output);  --version  print the version\n");
}

static int parse_frames(const char *val, twin_args *a)
{
    size_t n = 1;
    for (const char *p = val; *p; ++p)
        n += *p == ',';
    if (n > MAX_FRAME_LIST)
        return -1;
    a->frames = malloc(n * sizeof *a->frames);
    if (!a->frames)
        return -1;
    size_t k = 0;
    for (const char *p = val;;) {
        char *end;
        long f;
        char buf[32];
        const char *comma = strchr(p, ',');
        const size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == 0 || len >= sizeof buf)
            return -1;
        memcpy(buf, p, len);
        buf[len] = '\0';
        f = strtol(buf, &end, 10);
        if (*end || f < 0 || f > 1000000000L)
            return -1;
        a->frames[k++] = f;
        if (!comma)
            break;
        p = comma + 1;
    }
    a->o.frames = a->frames;
    a->o.frame_count = k;
    return 0;
}

static int parse_args(int argc, char **argv, twin_args *a)
{
    static const struct option longopts[] = {
        LSIM_OPTS_COMMON,
        {"output", required_argument, NULL, 'o'},
        {"metadata", required_argument, NULL, 0},
        {"sensor", required_argument, NULL, 0},
        {"poses", required_argument, NULL, 0},
        {"frames", required_argument, NULL, 0},
        {"pose-time", required_argument, NULL, 0},
        {"levels", required_argument, NULL, 0},
        {"shadow-angle", required_argument, NULL, 0},
        {"no-drop", no_argument, NULL, 0},
        {"naive", no_argument, NULL, 0},
        {"partial", no_argument, NULL, 0},
        {"quiet", no_argument, NULL, 0},
        {0, 0, 0, 0}};
    lsim_opts g;
    lsim_opts_init(&g, "twin", argc, argv, "ho:", longopts, twin_usage);
    for (int c; (c = lsim_opts_next(&g)) != LSIM_OPT_END;) {
        if (c == LSIM_OPT_ERROR)
            return LSIM_EXIT_USAGE;
        if (c == LSIM_OPT_EXIT)
            return -1;
        const char *opt = c == LSIM_OPT_ARG ? "" : g.name, *val = g.arg;
        if (c == LSIM_OPT_ARG) {
            if (a->recording) {
                fprintf(stderr, "lidarsim twin: unexpected argument '%s' (one recording)\n", val);
                return LSIM_EXIT_USAGE;
            }
            a->recording = val;
        } else if (!strcmp(opt, "-o") || !strcmp(opt, "--output")) {
            a->output = val;
        } else if (!strcmp(opt, "--metadata")) {
            a->o.calibration = val;
        } else if (!strcmp(opt, "--sensor")) {
            a->o.sensor = val;
        } else if (!strcmp(opt, "--poses")) {
            a->o.poses = val;
        } else if (!strcmp(opt, "--frames")) {
            free(a->frames);
            a->frames = NULL;
            if (parse_frames(val, a))
                return lsim_arg_invalid("twin", opt, val, "frame numbers from 0, comma-separated (e.g. 0,2)");
        } else if (!strcmp(opt, "--pose-time")) {
            if (lsim_arg_double(val, 0.0, 1.0, &a->o.pose_time))
                return lsim_arg_invalid("twin", opt, val, "a fraction of the frame 0..1");
        } else if (!strcmp(opt, "--levels")) {
            long l;
            if (lsim_arg_long(val, 1, 256, &l))
                return lsim_arg_invalid("twin", opt, val, "a count 1..256");
            a->o.reflectance_levels = (int)l;
        } else if (!strcmp(opt, "--shadow-angle")) {
            if (lsim_arg_double(val, 0.1, 45.0, &a->o.shadow_angle_deg))
                return lsim_arg_invalid("twin", opt, val, "degrees 0.1..45");
        } else if (!strcmp(opt, "--no-drop")) {
            a->o.drop_model = 0;
        } else if (!strcmp(opt, "--naive")) {
            a->o.naive = 1;
        } else if (!strcmp(opt, "--partial")) {
            a->o.partial = 1;
        } else { /* --quiet */
            a->quiet = 1;
        }
    }
    if (!a->recording || !a->output) {
        fprintf(stderr, "lidarsim twin: %s is missing\n", !a->recording ? "the RECORDING" : "-o TWIN/");
        twin_usage(stderr);
        return LSIM_EXIT_USAGE;
    }
    return LSIM_EXIT_OK;
}

int lsim_cmd_twin(int argc, char **argv)
{
    twin_args a;
    memset(&a, 0, sizeof a);
    lsim_twin_options_init(&a.o);
    int rc = parse_args(argc, argv, &a);
    if (rc) {
        free(a.frames);
        return rc < 0 ? LSIM_EXIT_OK : rc;
    }
    a.o.progress = a.quiet ? LSIM_PROGRESS_OFF : LSIM_PROGRESS_BAR;
    lsim_context *ctx;
    if (lsim_context_create(&ctx) != LSIM_OK) {
        free(a.frames);
        fprintf(stderr, "lidarsim twin: out of memory\n");
        return LSIM_EXIT_FAILURE;
    }
    lsim_context_track_inputs(ctx, 1); /* the twin may not replace its recording */
    lsim_twin_stats s;
    lsim_cli_signal_context(ctx);
    lsim_status st = lsim_twin_build(ctx, a.recording, &a.o, a.output, &s);
    lsim_cli_signal_context(NULL);
    free(a.frames);
    if (st != LSIM_OK) {
        const char *msg = lsim_context_last_error(ctx);
        fprintf(stderr, "lidarsim twin: %s\n", strncmp(msg, "twin: ", 6) ? msg : msg + 6);
        lsim_context_destroy(ctx);
        return LSIM_EXIT_FAILURE;
    }
    if (!a.quiet) {
        printf("lidarsim twin: wrote %s/scene.yaml: %llu frames, %llu returns, %llu triangles in %d materials\n",
               a.output, (unsigned long long)s.frames, (unsigned long long)s.points, (unsigned long long)s.triangles,
               s.materials);
        printf("  moving returns left out %llu, averaged with another frame %llu\n", (unsigned long long)s.transient,
               (unsigned long long)s.fused);
        if (s.drop_beams)
            printf("  ray drop measured on %llu beams: %.4f\n", (unsigned long long)s.drop_beams, s.drop_rate);
        else
            printf("  no ray-drop table (%s)\n", a.o.naive ? "the baseline" : !a.o.drop_model ? "--no-drop" : "one frame: nothing to measure against");
    }
    lsim_context_destroy(ctx);
    return LSIM_EXIT_OK;
}
