/* lidarsim bench: full lidarsim frames vs raw Embree on the same rays and ~1M-triangle mesh. */
#include "cli/args.h"
#include "cli/commands.h"

#include "bench_run.h"
#include "bench_scene.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void bench_usage(FILE *out)
{
    fprintf(out,
            "usage: lidarsim bench [options]\n\n"
            "Casts the same rays against the same ~1M-triangle mesh twice per repetition: once as a full\n"
            "lidarsim frame (rays + trace + shade + noise into the point buffer) and once with raw\n"
            "Embree (rtcIntersect1 per ray, hits stored). Best of --repeat runs each.\n\n"
            "  --beams N[,N...]   beam counts (default 1000,10000,100000,1000000,10000000)\n"
            "  --quick            beam counts 1000,10000,100000 and 3 repetitions\n"
            "  --triangles N      mesh size (default 1000000)\n"
            "  --threads N        threads, 0 = all cores (default 0)\n"
            "  --repeat N         repetitions per size (default 5)\n"
            "  --json             one JSON object per size instead of the table\n");
}

int lsim_cmd_bench(int argc, char **argv)
{
    size_t sizes[16] = {1000, 10000, 100000, 1000000, 10000000};
    int nsizes = 5, threads = 0, repeat = 5, json = 0;
    long triangles = 1000000;
    for (int i = 1; i < argc; ++i) {
        const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        long v;
        if (strcmp(opt, "--help") == 0 || strcmp(opt, "-h") == 0) {
            bench_usage(stdout);
            return LSIM_EXIT_OK;
        } else if (strcmp(opt, "--json") == 0) {
            json = 1;
        } else if (strcmp(opt, "--quick") == 0) {
            nsizes = 3;
            repeat = 3;
        } else if (strcmp(opt, "--beams") == 0 && val) {
            ++i;
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
        } else if (strcmp(opt, "--triangles") == 0 && val) {
            ++i;
            if (lsim_arg_long(val, 64, 100000000, &triangles)) {
                fprintf(stderr, "lidarsim bench: --triangles '%s': expected 64..100000000\n", val);
                return LSIM_EXIT_USAGE;
            }
        } else if (strcmp(opt, "--threads") == 0 && val) {
            ++i;
            if (lsim_arg_long(val, 0, 1024, &v)) {
                fprintf(stderr, "lidarsim bench: --threads '%s': expected 0..1024\n", val);
                return LSIM_EXIT_USAGE;
            }
            threads = (int)v;
        } else if (strcmp(opt, "--repeat") == 0 && val) {
            ++i;
            if (lsim_arg_long(val, 1, 1000, &v)) {
                fprintf(stderr, "lidarsim bench: --repeat '%s': expected 1..1000\n", val);
                return LSIM_EXIT_USAGE;
            }
            repeat = (int)v;
        } else {
            fprintf(stderr, "lidarsim bench: unknown or incomplete option '%s' (see lidarsim bench --help)\n", opt);
            return LSIM_EXIT_USAGE;
        }
    }
    lsim_bench_mesh mesh;
    if (lsim_bench_mesh_make((size_t)triangles, &mesh)) {
        fprintf(stderr, "lidarsim bench: out of memory for the mesh\n");
        return LSIM_EXIT_FAILURE;
    }
    if (!json) {
        printf("%-10s %-10s %-8s %12s %12s %11s %11s %7s   %s\n", "beams", "triangles", "threads", "raw_ms",
               "frame_ms", "raw_Mray/s", "lsim_Mray/s", "ratio", "frame split trace/shade/noise ms");
    }
    int rc = LSIM_EXIT_OK;
    for (int s = 0; s < nsizes; ++s) {
        lsim_bench_result r;
        char err[512];
        if (lsim_bench_run(&mesh, sizes[s], threads, repeat, &r, err, sizeof err)) {
            fprintf(stderr, "lidarsim bench: %s\n", err);
            rc = LSIM_EXIT_FAILURE;
            break;
        }
        double ratio = r.raw_ms / r.frame_ms;
        if (json)
            printf("{\"beams\": %zu, \"triangles\": %zu, \"threads\": %d, \"raw_embree_ms\": %.3f, "
                   "\"frame_ms\": %.3f, \"trace_ms\": %.3f, \"shade_ms\": %.3f, \"noise_ms\": %.3f, "
                   "\"ratio\": %.3f, \"points\": %zu}\n",
                   r.beams, r.triangles, r.threads, r.raw_ms, r.frame_ms, r.trace_ms, r.shade_ms, r.noise_ms, ratio,
                   r.frame_points);
        else
            printf("%-10zu %-10zu %-8d %12.3f %12.3f %11.2f %11.2f %7.3f   %.2f/%.2f/%.2f\n", r.beams, r.triangles,
                   r.threads, r.raw_ms, r.frame_ms, (double)r.beams / r.raw_ms / 1e3,
                   (double)r.beams / r.frame_ms / 1e3, ratio, r.trace_ms, r.shade_ms, r.noise_ms);
        fflush(stdout);
    }
    lsim_bench_mesh_free(&mesh);
    return rc;
}
