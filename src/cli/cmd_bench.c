/* lidarsim bench: full lidarsim frames vs raw Embree on the same rays and ~1M-triangle mesh. */
#include "cli/args.h"
#include "cli/commands.h"
#include "core/progress.h"
#include "cli/opts.h"

#include "bench_blooming.h"
#include "bench_fit.h"
#include "bench_dataset.h"
#include "cli/mpi_ranks.h"
#include "bench_pulses.h"
#include "bench_run.h"
#include "bench_scene.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

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

/* The options every benchmark takes: --threads N and --repeat N (`opt` the full name getopt_long
 * matched, `val` its value). Returns 1 when `opt` was one of them, 0 when it was not, and -1 when
 * its value is invalid (the message printed, naming `command`). */
static int common_option(const char *command, const char *opt, const char *val, int *threads, int *repeat)
{
    long v;
    if (strcmp(opt, "--threads") == 0) {
        if (lsim_arg_long(val, 0, 1024, &v)) {
            fprintf(stderr, "lidarsim %s: --threads '%s': expected 0..1024\n", command, val);
            return -1;
        }
        *threads = (int)v;
        return 1;
    }
    if (strcmp(opt, "--repeat") == 0) {
        if (lsim_arg_long(val, 1, 1000, &v)) {
            fprintf(stderr, "lidarsim %s: --repeat '%s': expected 1..1000\n", command, val);
            return -1;
        }
        *repeat = (int)v;
        return 1;
    }
    return 0;
}

static int bench_blooming(int argc, char **argv)
{
    int threads = 0, repeat = 3;
    static const struct option longopts[] = {
        LSIM_OPTS_COMMON,
        {"threads", required_argument, NULL, 0},
        {"repeat", required_argument, NULL, 0},
        {0, 0, 0, 0}};
    lsim_opts g;
    lsim_opts_init(&g, "bench blooming", argc - 1, argv + 1, "h", longopts, bench_usage);
    for (int c; (c = lsim_opts_next(&g)) != LSIM_OPT_END;) {
        if (c == LSIM_OPT_ERROR)
            return LSIM_EXIT_USAGE;
        if (c == LSIM_OPT_EXIT)
            return LSIM_EXIT_OK;
        if (c == LSIM_OPT_ARG) {
            fprintf(stderr, "lidarsim bench blooming: unexpected argument '%s' (see lidarsim bench --help)\n", g.arg);
            return LSIM_EXIT_USAGE;
        }
        const char *opt = g.name, *val = g.arg; /* the option getopt_long matched, and its value */
        if (common_option("bench blooming", opt, val, &threads, &repeat) < 0)
            return LSIM_EXIT_USAGE;
    }
    lsim_bench_blooming_result r;
    char err[512];
    if (lsim_bench_blooming_run(threads, repeat, &r, err, sizeof err)) {
        fprintf(stderr, "lidarsim bench blooming: %s\n", err);
        return LSIM_EXIT_FAILURE;
    }
    printf("{\"beams\": %zu, \"image\": [%d, %d], \"kernel_px\": %d, \"range_bins\": %d, \"threads\": %d, "
           "\"alg1_ms\": %.3f, \"alg2_ms\": %.3f, \"alg2_all_slices_ms\": %.3f, \"slices_occupied\": %zu, "
           "\"alg2_slices_processed\": %zu, \"echoes\": %zu, \"bloomed\": %zu, \"mismatches\": %zu, "
           "\"max_power_rel_diff\": %.3g, \"match\": %s}\n",
           r.beams, r.width, r.height, 2 * r.kernel_half, r.range_bins, r.threads, r.alg1_ms, r.alg2_ms, r.alg2_all_ms,
           r.slices_occupied, r.alg2_slices_processed, r.echoes, r.bloomed, r.mismatches, r.max_power_rel_diff,
           r.mismatches == 0 ? "true" : "false");
    return r.mismatches == 0 ? LSIM_EXIT_OK : LSIM_EXIT_FAILURE;
}

static void print_pulses_case(const char *name, const lsim_bench_pulses_case *c, const lsim_bench_pulses_result *r,
                              int json)
{
    if (json)
        printf("{\"case\": \"%s\", \"pulses\": %zu, \"triangles\": %zu, \"threads\": %d, \"rings\": %d, "
               "\"rays_per_pulse\": %d, \"frame_ms\": %.3f, \"trace_ms\": %.3f, \"shade_ms\": %.3f, "
               "\"noise_ms\": %.3f, \"pulses_per_s\": %.0f, \"rays_per_s\": %.0f, \"points\": %llu, "
               "\"engine_trace_ms\": %.3f, \"raw_embree_ms\": %.3f}\n",
               name, r->pulses, r->triangles, r->threads, c->rings, c->rays_per_pulse, c->frame_ms, c->trace_ms,
               c->shade_ms, c->noise_ms, c->pulses_per_s, c->rays_per_s, (unsigned long long)c->points,
               c->engine_trace_ms, c->raw_embree_ms);
    else
        printf("%-10s %-8zu %-8d %5d %10.3f %13.0f %13.0f %9llu   %5.2f/%.2f/%.2f   %10.3f %10.3f\n", name, r->pulses,
               r->threads, c->rays_per_pulse, c->frame_ms, c->pulses_per_s, c->rays_per_s,
               (unsigned long long)c->points, c->trace_ms, c->shade_ms, c->noise_ms, c->engine_trace_ms,
               c->raw_embree_ms);
}

static int bench_dataset(int argc, char **argv)
{
    const char *config = "examples/dataset/dataset.yaml";
    long frames = 500, repeat = 1;
    static const struct option longopts[] = {
        LSIM_OPTS_COMMON,
        {"config", required_argument, NULL, 0},
        {"frames", required_argument, NULL, 0},
        {"repeat", required_argument, NULL, 0},
        {0, 0, 0, 0}};
    lsim_opts g;
    lsim_opts_init(&g, "bench dataset", argc - 1, argv + 1, "h", longopts, bench_usage);
    for (int c; (c = lsim_opts_next(&g)) != LSIM_OPT_END;) {
        if (c == LSIM_OPT_ERROR)
            return LSIM_EXIT_USAGE;
        if (c == LSIM_OPT_EXIT)
            return LSIM_EXIT_OK;
        if (c == LSIM_OPT_ARG) {
            fprintf(stderr, "lidarsim bench dataset: unexpected argument '%s' (see lidarsim bench --help)\n", g.arg);
            return LSIM_EXIT_USAGE;
        }
        const char *opt = g.name, *val = g.arg; /* the option getopt_long matched, and its value */
        if (strcmp(opt, "--config") == 0) {
            config = val;
        } else if (strcmp(opt, "--frames") == 0) {
            if (lsim_arg_long(val, 2, 1000000, &frames)) {
                fprintf(stderr, "lidarsim bench dataset: --frames '%s': expected 2..1000000\n", val);
                return LSIM_EXIT_USAGE;
            }
        } else if (lsim_arg_long(val, 1, 1000, &repeat)) { /* --repeat */
            fprintf(stderr, "lidarsim bench dataset: --repeat '%s': expected 1..1000\n", val);
            return LSIM_EXIT_USAGE;
        }
    }
    char self[4096];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        fprintf(stderr, "lidarsim bench dataset: cannot find this program (/proc/self/exe)\n");
        return LSIM_EXIT_FAILURE;
    }
    self[n] = 0;
    const int mpi = lsim_cli_mpi_built() && system("command -v mpirun >/dev/null 2>&1") == 0;
    lsim_bench_dataset_result r;
    char err[1024];
    if (lsim_bench_dataset_run(self, config, frames, (int)repeat, mpi, &r, err, sizeof err)) {
        fprintf(stderr, "lidarsim bench dataset: %s\n", err);
        return LSIM_EXIT_FAILURE;
    }
    const double f = (double)frames;
    printf("{\"frames\": %ld, \"serial_1core_s\": %.3f, \"serial_1core_fps\": %.2f, \"serial_2threads_s\": %.3f, "
           "\"serial_2threads_fps\": %.2f, \"shards2_s\": %.3f, \"shards2_fps\": %.2f, \"shards2_efficiency\": %.3f",
           frames, r.serial1_s, f / r.serial1_s, r.serial2_s, f / r.serial2_s, r.shards2_s, f / r.shards2_s,
           r.serial1_s / (2.0 * r.shards2_s));
    if (r.mpi)
        printf(", \"mpi2_s\": %.3f, \"mpi2_fps\": %.2f, \"mpi2_efficiency\": %.3f", r.mpi2_s, f / r.mpi2_s,
               r.serial1_s / (2.0 * r.mpi2_s));
    else
        printf(", \"mpi2_s\": null");
    printf("}\n");
    return LSIM_EXIT_OK;
}

static int bench_fit(int argc, char **argv)
{
    const char *dir = "examples/cw", *baselines = NULL;
    long repeat = 3;
    static const struct option longopts[] = {
        LSIM_OPTS_COMMON,
        {"scenes", required_argument, NULL, 0},
        {"baselines", required_argument, NULL, 0},
        {"repeat", required_argument, NULL, 0},
        {0, 0, 0, 0}};
    lsim_opts g;
    lsim_opts_init(&g, "bench fit", argc - 1, argv + 1, "h", longopts, bench_usage);
    for (int c; (c = lsim_opts_next(&g)) != LSIM_OPT_END;) {
        if (c == LSIM_OPT_ERROR)
            return LSIM_EXIT_USAGE;
        if (c == LSIM_OPT_EXIT)
            return LSIM_EXIT_OK;
        if (c == LSIM_OPT_ARG) {
            fprintf(stderr, "lidarsim bench fit: unexpected argument '%s' (see lidarsim bench --help)\n", g.arg);
            return LSIM_EXIT_USAGE;
        }
        const char *opt = g.name, *val = g.arg; /* the option getopt_long matched, and its value */
        if (strcmp(opt, "--scenes") == 0) {
            dir = val;
        } else if (strcmp(opt, "--baselines") == 0) {
            baselines = val;
        } else if (lsim_arg_long(val, 1, 1000, &repeat)) { /* --repeat */
            fprintf(stderr, "lidarsim bench fit: --repeat '%s': expected 1..1000\n", val);
            return LSIM_EXIT_USAGE;
        }
    }
    lsim_bench_fit_case c[LSIM_BENCH_FIT_CASES];
    char err[1024];
    if (lsim_bench_fit_run(dir, (int)repeat, baselines, c, err, sizeof err)) {
        fprintf(stderr, "lidarsim bench fit: %s\n", err);
        return LSIM_EXIT_FAILURE;
    }
    printf("%-20s %6s %11s %6s %10s %10s %10s %7s %8s %6s %9s\n", "experiment", "scans", "iterations", "sims",
           "fit_ms", "error_mm", "error_deg", "beams", "bounced", "edges", "unmatched");
    for (int k = 0; k < LSIM_BENCH_FIT_CASES; ++k)
        printf("%-20s %6d %11d %6d %10.1f %10.3f %10.4f %7zu %8zu %6zu %9zu\n", c[k].name, c[k].scans_in_sequence,
               c[k].iterations, c[k].evaluations, c[k].best_ms, c[k].error_mm, c[k].error_deg, c[k].beams_used,
               c[k].bounced_beams, c[k].silhouette_beams, c[k].unmatched_beams);
    return LSIM_EXIT_OK;
}

static int bench_pulses(int argc, char **argv)
{
    int threads = 0, repeat = 5, json = 0;
    long rings = 2;
    static const struct option longopts[] = {
        LSIM_OPTS_COMMON,
        {"threads", required_argument, NULL, 0},
        {"repeat", required_argument, NULL, 0},
        {"rings", required_argument, NULL, 0},
        {"json", no_argument, NULL, 0},
        {0, 0, 0, 0}};
    lsim_opts g;
    lsim_opts_init(&g, "bench pulses", argc - 1, argv + 1, "h", longopts, bench_usage);
    for (int c; (c = lsim_opts_next(&g)) != LSIM_OPT_END;) {
        if (c == LSIM_OPT_ERROR)
            return LSIM_EXIT_USAGE;
        if (c == LSIM_OPT_EXIT)
            return LSIM_EXIT_OK;
        if (c == LSIM_OPT_ARG) {
            fprintf(stderr, "lidarsim bench pulses: unexpected argument '%s' (see lidarsim bench --help)\n", g.arg);
            return LSIM_EXIT_USAGE;
        }
        const char *opt = g.name, *val = g.arg; /* the option getopt_long matched, and its value */
        const int common = common_option("bench pulses", opt, val, &threads, &repeat);
        if (common < 0)
            return LSIM_EXIT_USAGE;
        if (common) {
            continue;
        } else if (strcmp(opt, "--json") == 0) {
            json = 1;
        } else if (lsim_arg_long(val, 1, 8, &rings)) { /* --rings */
            fprintf(stderr, "lidarsim bench pulses: --rings '%s': expected 1..8\n", val);
            return LSIM_EXIT_USAGE;
        }
    }
    lsim_bench_mesh mesh;
    if (lsim_bench_mesh_make(1000000, &mesh)) {
        fprintf(stderr, "lidarsim bench pulses: out of memory for the mesh\n");
        return LSIM_EXIT_FAILURE;
    }
    lsim_bench_pulses_result r;
    char err[512];
    int rc = lsim_bench_pulses_run(&mesh, threads, repeat, (int)rings, &r, err, sizeof err);
    lsim_bench_mesh_free(&mesh);
    if (rc) {
        fprintf(stderr, "lidarsim bench pulses: %s\n", err);
        return LSIM_EXIT_FAILURE;
    }
    if (!json)
        printf("%-10s %-8s %-8s %5s %10s %13s %13s %9s   %-18s %10s %10s\n", "beam", "pulses", "threads", "rays",
               "frame_ms", "pulses/s", "rays/s", "points", "trace/shade/noise", "engine_ms", "embree1_ms");
    print_pulses_case("single", &r.single, &r, json);
    char name[16];
    snprintf(name, sizeof name, "rings%d", r.rays.rings);
    print_pulses_case(name, &r.rays, &r, json);
    return LSIM_EXIT_OK;
}

int lsim_cmd_bench(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "blooming") == 0)
        return bench_blooming(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "pulses") == 0)
        return bench_pulses(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "fit") == 0)
        return bench_fit(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "dataset") == 0)
        return bench_dataset(argc, argv);
    size_t sizes[16] = {1000, 10000, 100000, 1000000, 10000000};
    int nsizes = 5, threads = 0, repeat = 5, json = 0, noise = 1, engine = LSIM_ENGINE_EMBREE, moving = 0, quiet = 0;
    uint32_t fields = 0;
    long triangles = 1000000;
    static const struct option longopts[] = {
        LSIM_OPTS_COMMON,
        {"quiet", no_argument, NULL, 0},
        {"beams", required_argument, NULL, 0},
        {"fields", required_argument, NULL, 0},
        {"engine", required_argument, NULL, 0},
        {"noise", required_argument, NULL, 0},
        {"triangles", required_argument, NULL, 0},
        {"threads", required_argument, NULL, 0},
        {"repeat", required_argument, NULL, 0},
        {"json", no_argument, NULL, 0},
        {"moving", no_argument, NULL, 0},
        {"quick", no_argument, NULL, 0},
        {0, 0, 0, 0}};
    lsim_opts g;
    lsim_opts_init(&g, "bench", argc, argv, "h", longopts, bench_usage);
    for (int c; (c = lsim_opts_next(&g)) != LSIM_OPT_END;) {
        if (c == LSIM_OPT_ERROR)
            return LSIM_EXIT_USAGE;
        if (c == LSIM_OPT_EXIT)
            return LSIM_EXIT_OK;
        if (c == LSIM_OPT_ARG) {
            fprintf(stderr, "lidarsim bench: unexpected argument '%s' (see lidarsim bench --help)\n", g.arg);
            return LSIM_EXIT_USAGE;
        }
        const char *opt = g.name, *val = g.arg; /* the option getopt_long matched, and its value */
        long v;
        if (strcmp(opt, "--json") == 0) {
            json = 1;
        } else if (strcmp(opt, "--quiet") == 0) {
            quiet = 1;
        } else if (strcmp(opt, "--moving") == 0) {
            moving = 1;
        } else if (strcmp(opt, "--quick") == 0) {
            nsizes = 3;
            repeat = 3;
        } else if (strcmp(opt, "--beams") == 0) {
            nsizes = 0;
            char buf[256];
            snprintf(buf, sizeof buf, "%s", val);
            for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
                if (nsizes == 16 || lsim_arg_long(tok, 128, 100000000, &v)) {
                    fprintf(stderr, "lidarsim bench: --beams '%s': expected up to 16 counts in 128..100000000\n", val);
                    return LSIM_EXIT_USAGE;
                }
                sizes[nsizes++] = (size_t)v;
            }
        } else if (strcmp(opt, "--fields") == 0) {
            if (strcmp(val, "all") == 0)
                fields = 0;
            else if (lsim_arg_fields("bench", val, &fields))
                return LSIM_EXIT_USAGE;
        } else if (strcmp(opt, "--engine") == 0) {
            if (strcmp(val, "raycast") == 0) {
                engine = LSIM_ENGINE_EMBREE;
            } else if (strcmp(val, "raster") == 0) {
                engine = LSIM_ENGINE_RASTER;
            } else {
                fprintf(stderr, "lidarsim bench: --engine '%s': expected raycast or raster\n", val);
                return LSIM_EXIT_USAGE;
            }
        } else if (strcmp(opt, "--noise") == 0) {
            if (strcmp(val, "on") != 0 && strcmp(val, "off") != 0) {
                fprintf(stderr, "lidarsim bench: --noise '%s': expected on or off\n", val);
                return LSIM_EXIT_USAGE;
            }
            noise = strcmp(val, "on") == 0;
        } else if (strcmp(opt, "--triangles") == 0) {
            if (lsim_arg_long(val, 64, 100000000, &triangles)) {
                fprintf(stderr, "lidarsim bench: --triangles '%s': expected 64..100000000\n", val);
                return LSIM_EXIT_USAGE;
            }
        } else if (common_option("bench", opt, val, &threads, &repeat) < 0) {
            return LSIM_EXIT_USAGE;
        }
    }
    lsim_bench_mesh mesh;
    if (lsim_bench_mesh_make((size_t)triangles, &mesh)) {
        fprintf(stderr, "lidarsim bench: out of memory for the mesh\n");
        return LSIM_EXIT_FAILURE;
    }
    if (!json) {
        printf("%-9s %-10s %-10s %-8s %12s %12s %12s %11s %11s %7s   %s\n", "engine", "beams", "triangles", "threads",
               "raw_ms", "first_ms", "frame_ms", "raw_Mray/s", "lsim_Mray/s", "ratio", "frame split trace/shade/noise ms");
    }
    int rc = LSIM_EXIT_OK;
    /* a bar on a terminal (stderr), in beams: each size's time grows with its beam count */
    double beams_total = 0.0, beams_done = 0.0;
    for (int s = 0; s < nsizes; ++s)
        beams_total += (double)sizes[s];
    lsim_progress bar;
    lsim_progress_start(&bar, quiet ? LSIM_PROGRESS_OFF : LSIM_PROGRESS_BAR, stderr, "bench", "beams", beams_total,
                        1.0);
    for (int s = 0; s < nsizes; ++s) {
        lsim_bench_result r;
        char err[512];
        if (lsim_bench_run(&mesh, sizes[s], engine, moving, threads, repeat, fields, noise, &r, err, sizeof err)) {
            fprintf(stderr, "lidarsim bench: %s\n", err);
            rc = LSIM_EXIT_FAILURE;
            break;
        }
        lsim_progress_clear(&bar); /* the row starts on a line of its own */
        double ratio = r.raw_ms / r.frame_ms;
        const char *name = engine == LSIM_ENGINE_RASTER ? (moving ? "raster/m" : "raster")
                                                        : (moving ? "raycast/m" : "raycast");
        if (json)
            printf("{\"engine\": \"%s\", \"moving\": %s, \"beams\": %zu, \"triangles\": %zu, \"threads\": %d, "
                   "\"raw_embree_ms\": %.3f, \"first_ms\": %.3f, \"frame_ms\": %.3f, \"trace_ms\": %.3f, "
                   "\"shade_ms\": %.3f, \"noise_ms\": %.3f, \"ratio\": %.3f, \"points\": %zu}\n",
                   engine == LSIM_ENGINE_RASTER ? "raster" : "raycast", moving ? "true" : "false", r.beams, r.triangles,
                   r.threads, r.raw_ms, r.first_ms, r.frame_ms, r.trace_ms, r.shade_ms,
                   r.noise_ms, ratio, r.frame_points);
        else
            printf("%-9s %-10zu %-10zu %-8d %12.3f %12.3f %12.3f %11.2f %11.2f %7.3f   %.2f/%.2f/%.2f\n", name, r.beams,
                   r.triangles, r.threads, r.raw_ms, r.first_ms, r.frame_ms, (double)r.beams / r.raw_ms / 1e3,
                   (double)r.beams / r.frame_ms / 1e3, ratio, r.trace_ms, r.shade_ms, r.noise_ms);
        fflush(stdout);
        beams_done += (double)sizes[s];
        lsim_progress_update(&bar, beams_done);
    }
    lsim_progress_finish(&bar, rc == LSIM_EXIT_OK);
    lsim_bench_mesh_free(&mesh);
    return rc;
}
