/* lidarsim bench: the benchmarks of lsim_bench_run (include/lidarsim.h). This file
 * parses the arguments into lsim_bench_options; the library runs the benchmark and prints its report. */
#include "args.h"
#include "commands.h"
#include "mpi_ranks.h"
#include "opts.h"

#include "lidarsim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void bench_usage(FILE *out)
{
    fprintf(out,
            "usage: lidarsim bench [options]\n\n"
            "Casts the same rays against the same ~1M-triangle mesh twice per repetition: once as a full\n"
            "lidarsim frame (rays + trace + shade + noise into the point buffer) and once with raw\n"
            "Embree (rtcIntersect1 per ray, hits stored). Best of --repeat runs each; the frame's first run is\n"
            "reported alone (first_ms) and frame_ms is the best of the later ones (the first with --repeat 1).\n\n"
            "  --engine E         raycast (default: Embree) or raster (OpenGL views through EGL: a cube map\n"
            "                     rendered in the first frame and reused by later ones while the sensor is\n"
            "                     static; with --moving a view per 1 ms of firing, every frame)\n"
            "  --moving           the sensor drives at 10 m/s and turns at 30 deg/s during every frame\n"
            "  --beams N[,N...]   beam counts (default 1000,10000,100000,1000000,10000000)\n"
            "  --quick            beam counts 1000,10000,100000 and 3 repetitions\n"
            "  --triangles N      mesh size (default 1000000)\n"
            "  --threads N        threads, 0 = all cores (default 0)\n"
            "  --repeat N         repetitions per size (default 5)\n"
            "  --fields LIST      point fields the frame fills, comma-separated names as in the CSV header\n"
            "                     (e.g. x,y,z,intensity,ring,time), or all (default)\n"
            "  --noise on|off     range and intensity noise (default on)\n"
            "  --json             one JSON object per size instead of the table\n"
            "  --quiet            no progress bar (drawn on stderr when it is a terminal and the run is long)\n\n"
            "       lidarsim bench blooming [--threads N] [--repeat N]\n\n"
            "Beam divergence and blooming at the pbr paper's size (16,384 beams, 4096 x 308 px render,\n"
            "68-px kernel, 1,200 range bins): Alg. 1 (beam iteration) and Alg. 2 (range stacking), best of\n"
            "--repeat runs each (default 3), checked against each other; prints one JSON line.\n\n"
            "       lidarsim bench pulses [--threads N] [--repeat N] [--rings R] [--json]\n\n"
            "Pulses per second of a VLP-16 (preset vlp16, 28,800 pulses) in the middle of the ~1M-triangle\n"
            "mesh: a full frame (lsim_scene_scan_into) with one ray a pulse (beam mode single) and one with\n"
            "sub-rays (mode rays, --rings R rings, default 2: 19 rays a pulse), best of --repeat frames\n"
            "(default 5) after a warm-up frame; prints pulses/s and rays/s of each, the frame's split, and the\n"
            "same rays traced alone: by lidarsim's engine (engine_ms) and by raw Embree, rtcIntersect1 per ray\n"
            "(embree1_ms).\n\n"
            "       lidarsim bench dataset [--config FILE] [--frames N] [--repeat N]\n\n"
            "Whole `lidarsim dataset` runs of FILE (default examples/dataset/dataset.yaml, --frames 500), timed\n"
            "from spawn to exit, best of --repeat (default 1): one process with 1 thread on 1 core and with 2\n"
            "threads, two"
            " shards at once (1 thread each) and, in an MPI build, mpirun -n 2 (1 thread a rank); prints\n"
            "frames/s and the efficiency at 2 = t(1 process on 1 core) / (2 t(2 shards or ranks)) as JSON.\n\n"
            "       lidarsim bench fit [--scenes DIR] [--repeat N] [--baselines DIR]\n\n"
            "The cw paper's experiments on the scenes of DIR (default examples/cw): 1 localise a URG-04LX in\n"
            "a room (room.yaml), 2 in a room with mirrors and glass (mirror_room.yaml), 3 track a mirror\n"
            "pillar over 8 scans (mirror_pillar.yaml); the real scans are lidarsim's own with noise. Prints\n"
            "iterations, scans, the fit's wall time (best of --repeat, default 3) and the final pose error.\n"
            "--baselines DIR also writes what a point-cloud registration needs for experiments 1 and 2\n"
            "(expN_source.csv: simulated at the start pose; expN_target.csv: the real scan; expN_poses.txt):\n"
            "bench/pcl_compare.py runs PCL's ICP, GICP and NDT on them.\n"
            "  -h, --help  this help (on standard output);  --version  print the version\n");
}

/* The subcommands: the word after `bench` ("" for `lidarsim bench` itself) and its benchmark. */
static const struct {
    const char *word;
    lsim_bench_kind kind;
} SUBCOMMANDS[] = {
    {"blooming", LSIM_BENCH_BLOOMING},
    {"pulses", LSIM_BENCH_PULSES},
    {"fit", LSIM_BENCH_FIT},
    {"dataset", LSIM_BENCH_DATASET},
};

#define K(kind) (1u << (kind))
#define FRAME K(LSIM_BENCH_FRAME)

/* Every option, the benchmarks that take it and, for a number, its range (the message's
 * "expected ..." text). A subcommand's getopt table holds its own options only, so abbreviations
 * resolve among them. */
static const struct bench_option {
    const char *name;
    int has_arg;
    unsigned kinds;
    long lo, hi;
} OPTIONS[] = {
    {"quiet", no_argument, FRAME, 0, 0},
    {"beams", required_argument, FRAME, 128, 100000000},
    {"fields", required_argument, FRAME, 0, 0},
    {"engine", required_argument, FRAME, 0, 0},
    {"noise", required_argument, FRAME, 0, 0},
    {"triangles", required_argument, FRAME, 64, 100000000},
    {"config", required_argument, K(LSIM_BENCH_DATASET), 0, 0},
    {"frames", required_argument, K(LSIM_BENCH_DATASET), 2, 1000000},
    {"scenes", required_argument, K(LSIM_BENCH_FIT), 0, 0},
    {"baselines", required_argument, K(LSIM_BENCH_FIT), 0, 0},
    {"threads", required_argument, FRAME | K(LSIM_BENCH_BLOOMING) | K(LSIM_BENCH_PULSES), 0, 1024},
    {"repeat", required_argument, ~0u, 1, 1000},
    {"rings", required_argument, K(LSIM_BENCH_PULSES), 1, 8},
    {"json", no_argument, FRAME | K(LSIM_BENCH_PULSES), 0, 0},
    {"moving", no_argument, FRAME, 0, 0},
    {"quick", no_argument, FRAME, 0, 0},
};
#define OPTION_COUNT ((int)(sizeof OPTIONS / sizeof OPTIONS[0]))

/* Apply option `spec` with value `val` to `o`; 0, or LSIM_EXIT_USAGE after the message. */
static int set_option(const char *command, const struct bench_option *spec, const char *val, lsim_bench_options *o)
{
    const char *n = spec->name;
    long v = 0;
    if (spec->hi > 0 && strcmp(n, "beams") != 0 && lsim_arg_long(val, spec->lo, spec->hi, &v)) {
        fprintf(stderr, "lidarsim %s: --%s '%s': expected %ld..%ld\n", command, n, val, spec->lo, spec->hi);
        return LSIM_EXIT_USAGE;
    }
    if (strcmp(n, "quiet") == 0) {
        o->progress = LSIM_PROGRESS_OFF;
    } else if (strcmp(n, "json") == 0) {
        o->json = 1;
    } else if (strcmp(n, "moving") == 0) {
        o->moving = 1;
    } else if (strcmp(n, "quick") == 0) {
        o->beam_count = 3;
        o->repeat = 3;
    } else if (strcmp(n, "beams") == 0) {
        char buf[256];
        snprintf(buf, sizeof buf, "%s", val);
        o->beam_count = 0;
        for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
            if (o->beam_count == LSIM_BENCH_MAX_SIZES || lsim_arg_long(tok, spec->lo, spec->hi, &v)) {
                fprintf(stderr, "lidarsim %s: --beams '%s': expected up to %d counts in 128..100000000\n", command,
                        val, LSIM_BENCH_MAX_SIZES);
                return LSIM_EXIT_USAGE;
            }
            o->beams[o->beam_count++] = (size_t)v;
        }
    } else if (strcmp(n, "fields") == 0) {
        o->fields = 0;
        if (strcmp(val, "all") != 0 && lsim_arg_fields(command, val, &o->fields))
            return LSIM_EXIT_USAGE;
    } else if (strcmp(n, "engine") == 0) {
        if (strcmp(val, "raycast") != 0 && strcmp(val, "raster") != 0) {
            fprintf(stderr, "lidarsim %s: --engine '%s': expected raycast or raster\n", command, val);
            return LSIM_EXIT_USAGE;
        }
        o->engine = strcmp(val, "raster") == 0 ? LSIM_ENGINE_RASTER : LSIM_ENGINE_EMBREE;
    } else if (strcmp(n, "noise") == 0) {
        if (strcmp(val, "on") != 0 && strcmp(val, "off") != 0) {
            fprintf(stderr, "lidarsim %s: --noise '%s': expected on or off\n", command, val);
            return LSIM_EXIT_USAGE;
        }
        o->noise = strcmp(val, "on") == 0;
    } else if (strcmp(n, "triangles") == 0) {
        o->triangles = (size_t)v;
    } else if (strcmp(n, "config") == 0) {
        o->config = val;
    } else if (strcmp(n, "frames") == 0) {
        o->frames = v;
    } else if (strcmp(n, "scenes") == 0) {
        o->scenes_dir = val;
    } else if (strcmp(n, "baselines") == 0) {
        o->baselines_dir = val;
    } else if (strcmp(n, "threads") == 0) {
        o->threads = (int)v;
    } else if (strcmp(n, "repeat") == 0) {
        o->repeat = (int)v;
    } else if (strcmp(n, "rings") == 0) {
        o->rings = (int)v;
    }
    return 0;
}

int lsim_cmd_bench(int argc, char **argv)
{
    lsim_bench_kind kind = LSIM_BENCH_FRAME;
    char command[32] = "bench";
    for (size_t k = 0; argc >= 2 && k < sizeof SUBCOMMANDS / sizeof SUBCOMMANDS[0]; ++k)
        if (strcmp(argv[1], SUBCOMMANDS[k].word) == 0) {
            kind = SUBCOMMANDS[k].kind;
            snprintf(command, sizeof command, "bench %s", SUBCOMMANDS[k].word);
            --argc, ++argv; /* the subcommand's word is its argv[0] */
            break;
        }
    lsim_bench_options o;
    lsim_bench_options_init(&o, kind);
    o.progress = LSIM_PROGRESS_BAR;

    struct option longopts[OPTION_COUNT + 3] = {LSIM_OPTS_COMMON};
    int n = 2;
    for (int k = 0; k < OPTION_COUNT; ++k)
        if (OPTIONS[k].kinds & K(kind))
            longopts[n++] = (struct option){OPTIONS[k].name, OPTIONS[k].has_arg, NULL, 0};
    longopts[n] = (struct option){0, 0, 0, 0};
    lsim_opts g;
    lsim_opts_init(&g, command, argc, argv, "h", longopts, bench_usage);
    for (int c; (c = lsim_opts_next(&g)) != LSIM_OPT_END;) {
        if (c == LSIM_OPT_ERROR)
            return LSIM_EXIT_USAGE;
        if (c == LSIM_OPT_EXIT)
            return LSIM_EXIT_OK;
        if (c == LSIM_OPT_ARG) {
            fprintf(stderr, "lidarsim %s: unexpected argument '%s' (see lidarsim bench --help)\n", command, g.arg);
            return LSIM_EXIT_USAGE;
        }
        for (int k = 0; k < OPTION_COUNT; ++k)
            if (strcmp(g.name + 2, OPTIONS[k].name) == 0 && set_option(command, &OPTIONS[k], g.arg, &o))
                return LSIM_EXIT_USAGE;
    }

    char self[4096];
    if (kind == LSIM_BENCH_DATASET) { /* the runs spawn this very program */
        const ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
        if (len <= 0) {
            fprintf(stderr, "lidarsim %s: cannot find this program (/proc/self/exe)\n", command);
            return LSIM_EXIT_FAILURE;
        }
        self[len] = 0;
        o.program = self;
        o.mpi = lsim_cli_mpi_built();
    }
    lsim_context *ctx;
    if (lsim_context_create(&ctx) != LSIM_OK) {
        fprintf(stderr, "lidarsim %s: out of memory\n", command);
        return LSIM_EXIT_FAILURE;
    }
    const lsim_status st = lsim_bench_run(ctx, &o);
    if (st != LSIM_OK)
        fprintf(stderr, "lidarsim %s: %s\n", command, lsim_context_last_error(ctx));
    lsim_context_destroy(ctx);
    return st == LSIM_OK ? LSIM_EXIT_OK : LSIM_EXIT_FAILURE;
}
