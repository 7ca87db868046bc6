/* lsim_bench_run (include/lidarsim.h): the benchmarks of `lidarsim bench`, chosen by
 * kind from one table (name, default repetitions, runner), with their options checked here and
 * their reports written to standard output or, atomically, to a report file. The runners call
 * the measuring code of this folder (bench_frame.c, bench_blooming.c, bench_pulses.c,
 * bench_fit.c, bench_dataset.c) and print its results in the formats `lidarsim bench` has always
 * printed (README "Performance", tests/test_cli_bench.py). */
#include "lidarsim.h"

#include "bench/bench_blooming.h"
#include "bench/bench_dataset.h"
#include "bench/bench_fit.h"
#include "bench/bench_frame.h"
#include "bench/bench_pulses.h"
#include "bench/bench_scene.h"
#include "core/context.h"
#include "core/progress.h"
#include "output/atomic_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef lsim_status (*bench_runner)(lsim_context *ctx, const lsim_bench_options *o, FILE *out);

static lsim_status run_frame(lsim_context *ctx, const lsim_bench_options *o, FILE *out);
static lsim_status run_blooming(lsim_context *ctx, const lsim_bench_options *o, FILE *out);
static lsim_status run_pulses(lsim_context *ctx, const lsim_bench_options *o, FILE *out);
static lsim_status run_fit(lsim_context *ctx, const lsim_bench_options *o, FILE *out);
static lsim_status run_dataset(lsim_context *ctx, const lsim_bench_options *o, FILE *out);

/* Indexed by lsim_bench_kind. */
static const struct bench_kind {
    const char *name;
    int repeat; /* default repetitions */
    bench_runner run;
} KINDS[] = {
    {"frame", 5, run_frame},
    {"blooming", 3, run_blooming},
    {"pulses", 5, run_pulses},
    {"fit", 3, run_fit},
    {"dataset", 1, run_dataset},
};
#define KIND_COUNT ((int)(sizeof KINDS / sizeof KINDS[0]))

const char *lsim_bench_kind_name(lsim_bench_kind kind)
{
    return (int)kind >= 0 && (int)kind < KIND_COUNT ? KINDS[kind].name : NULL;
}

void lsim_bench_options_init(lsim_bench_options *o, lsim_bench_kind kind)
{
    if (!o)
        return;
    static const size_t beams[] = {1000, 10000, 100000, 1000000, 10000000};
    memset(o, 0, sizeof *o);
    o->kind = kind;
    o->repeat = (int)kind >= 0 && (int)kind < KIND_COUNT ? KINDS[kind].repeat : 1;
    o->progress = LSIM_PROGRESS_OFF;
    memcpy(o->beams, beams, sizeof beams);
    o->beam_count = (int)(sizeof beams / sizeof beams[0]);
    o->triangles = 1000000;
    o->engine = LSIM_ENGINE_EMBREE;
    o->noise = 1;
    o->rings = 2;
    o->scenes_dir = "examples/cw";
    o->config = "examples/dataset/dataset.yaml";
    o->frames = 500;
}

/* ------------------------------------------------------------------ checks */

static lsim_status check_options(lsim_context *ctx, const lsim_bench_options *o)
{
    if (!o)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "bench: no options given (lsim_bench_options_init fills them)");
    if ((int)o->kind < 0 || (int)o->kind >= KIND_COUNT)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "bench: kind %d is not a benchmark (frame 0, blooming 1, pulses 2, fit 3, dataset 4)",
                         (int)o->kind);
    const char *name = KINDS[o->kind].name;
    if (o->repeat < 1 || o->repeat > 1000)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "bench %s: repeat %d is outside 1..1000", name, o->repeat);
    if (o->threads < 0 || o->threads > 1024)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "bench %s: threads %d is outside 0..1024 (0: all cores)",
                         name, o->threads);
    if (o->report_path && !*o->report_path)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "bench %s: the report path is empty (NULL: standard output)",
                         name);
    switch (o->kind) {
    case LSIM_BENCH_FRAME:
        if (o->beam_count < 1 || o->beam_count > LSIM_BENCH_MAX_SIZES)
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "bench frame: beam_count %d is outside 1..%d",
                             o->beam_count, LSIM_BENCH_MAX_SIZES);
        for (int s = 0; s < o->beam_count; ++s)
            if (o->beams[s] < 128 || o->beams[s] > 100000000)
                return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "bench frame: beams[%d] = %zu is outside 128..100000000",
                                 s, o->beams[s]);
        if (o->triangles < 64 || o->triangles > 100000000)
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "bench frame: triangles %zu is outside 64..100000000",
                             o->triangles);
        if (o->engine != LSIM_ENGINE_EMBREE && o->engine != LSIM_ENGINE_RASTER)
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "bench frame: engine %d is neither LSIM_ENGINE_EMBREE (0) nor LSIM_ENGINE_RASTER (2)",
                             o->engine);
        if (o->fields & ~LSIM_FIELDS_ALL)
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "bench frame: fields 0x%x has bits beyond LSIM_FIELDS_ALL "
                             "(0x%x)", (unsigned)o->fields, (unsigned)LSIM_FIELDS_ALL);
        break;
    case LSIM_BENCH_PULSES:
        if (o->rings < 1 || o->rings > 8)
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "bench pulses: rings %d is outside 1..8", o->rings);
        break;
    case LSIM_BENCH_FIT:
        if (!o->scenes_dir || !*o->scenes_dir)
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "bench fit: no scenes folder given (scenes_dir)");
        break;
    case LSIM_BENCH_DATASET:
        if (!o->config || !*o->config)
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "bench dataset: no dataset config given (config)");
        if (o->frames < 2 || o->frames > 1000000)
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "bench dataset: frames %ld is outside 2..1000000",
                             o->frames);
        if (!o->program || !*o->program)
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "bench dataset: no lidarsim program to spawn (set options.program to the lidarsim binary)");
        break;
    case LSIM_BENCH_BLOOMING:
        break;
    }
    return LSIM_OK;
}

/* ------------------------------------------------------------------ runners */

static lsim_status run_frame(lsim_context *ctx, const lsim_bench_options *o, FILE *out)
{
    lsim_bench_mesh mesh;
    if (lsim_bench_mesh_make(o->triangles, &mesh))
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for the mesh");
    if (!o->json)
        fprintf(out, "%-9s %-10s %-10s %-8s %12s %12s %12s %11s %11s %7s   %s\n", "engine", "beams", "triangles",
                "threads", "raw_ms", "first_ms", "frame_ms", "raw_Mray/s", "lsim_Mray/s", "ratio",
                "frame split trace/shade/noise ms");
    lsim_status st = LSIM_OK;
    const int raster = o->engine == LSIM_ENGINE_RASTER;
    const char *name = raster ? (o->moving ? "raster/m" : "raster") : (o->moving ? "raycast/m" : "raycast");
    /* the bar counts beams: each size's time grows with its beam count */
    double beams_total = 0.0, beams_done = 0.0;
    for (int s = 0; s < o->beam_count; ++s)
        beams_total += (double)o->beams[s];
    lsim_progress bar;
    lsim_progress_start(&bar, o->progress, stderr, "bench", "beams", beams_total, 1.0);
    for (int s = 0; s < o->beam_count; ++s) {
        lsim_bench_frame_result r;
        char err[512];
        if (lsim_bench_frame_run(&mesh, o->beams[s], o->engine, o->moving, o->threads, o->repeat, o->fields, o->noise,
                                 &r, err, sizeof err)) {
            st = lsim_fail(ctx, LSIM_ERR_ENGINE, "%s", err);
            break;
        }
        lsim_progress_clear(&bar); /* the row starts on a line of its own */
        const double ratio = r.raw_ms / r.frame_ms;
        if (o->json)
            fprintf(out, "{\"engine\": \"%s\", \"moving\": %s, \"beams\": %zu, \"triangles\": %zu, \"threads\": %d, "
                    "\"raw_embree_ms\": %.3f, \"first_ms\": %.3f, \"frame_ms\": %.3f, \"trace_ms\": %.3f, "
                    "\"shade_ms\": %.3f, \"noise_ms\": %.3f, \"ratio\": %.3f, \"points\": %zu}\n",
                    raster ? "raster" : "raycast", o->moving ? "true" : "false", r.beams, r.triangles, r.threads,
                    r.raw_ms, r.first_ms, r.frame_ms, r.trace_ms, r.shade_ms, r.noise_ms, ratio, r.frame_points);
        else
            fprintf(out, "%-9s %-10zu %-10zu %-8d %12.3f %12.3f %12.3f %11.2f %11.2f %7.3f   %.2f/%.2f/%.2f\n", name,
                    r.beams, r.triangles, r.threads, r.raw_ms, r.first_ms, r.frame_ms,
                    (double)r.beams / r.raw_ms / 1e3, (double)r.beams / r.frame_ms / 1e3, ratio, r.trace_ms,
                    r.shade_ms, r.noise_ms);
        fflush(out);
        beams_done += (double)o->beams[s];
        lsim_progress_update(&bar, beams_done);
    }
    lsim_progress_finish(&bar, st == LSIM_OK);
    lsim_bench_mesh_free(&mesh);
    return st;
}

static lsim_status run_blooming(lsim_context *ctx, const lsim_bench_options *o, FILE *out)
{
    lsim_bench_blooming_result r;
    char err[512];
    if (lsim_bench_blooming_run(o->threads, o->repeat, &r, err, sizeof err))
        return lsim_fail(ctx, LSIM_ERR_ENGINE, "%s", err);
    fprintf(out, "{\"beams\": %zu, \"image\": [%d, %d], \"kernel_px\": %d, \"range_bins\": %d, \"threads\": %d, "
            "\"alg1_ms\": %.3f, \"alg2_ms\": %.3f, \"alg2_all_slices_ms\": %.3f, \"slices_occupied\": %zu, "
            "\"alg2_slices_processed\": %zu, \"echoes\": %zu, \"bloomed\": %zu, \"mismatches\": %zu, "
            "\"max_power_rel_diff\": %.3g, \"match\": %s}\n",
            r.beams, r.width, r.height, 2 * r.kernel_half, r.range_bins, r.threads, r.alg1_ms, r.alg2_ms,
            r.alg2_all_ms, r.slices_occupied, r.alg2_slices_processed, r.echoes, r.bloomed, r.mismatches,
            r.max_power_rel_diff, r.mismatches == 0 ? "true" : "false");
    if (r.mismatches)
        return lsim_fail(ctx, LSIM_ERR_ENGINE,
                         "Alg. 1 and Alg. 2 differ on %zu of %zu beams (largest relative power difference %.3g)",
                         r.mismatches, r.beams, r.max_power_rel_diff);
    return LSIM_OK;
}

static void print_pulses_case(FILE *out, const char *name, const lsim_bench_pulses_case *c,
                              const lsim_bench_pulses_result *r, int json)
{
    if (json)
        fprintf(out, "{\"case\": \"%s\", \"pulses\": %zu, \"triangles\": %zu, \"threads\": %d, \"rings\": %d, "
                "\"rays_per_pulse\": %d, \"frame_ms\": %.3f, \"trace_ms\": %.3f, \"shade_ms\": %.3f, "
                "\"noise_ms\": %.3f, \"pulses_per_s\": %.0f, \"rays_per_s\": %.0f, \"points\": %llu, "
                "\"engine_trace_ms\": %.3f, \"raw_embree_ms\": %.3f}\n",
                name, r->pulses, r->triangles, r->threads, c->rings, c->rays_per_pulse, c->frame_ms, c->trace_ms,
                c->shade_ms, c->noise_ms, c->pulses_per_s, c->rays_per_s, (unsigned long long)c->points,
                c->engine_trace_ms, c->raw_embree_ms);
    else
        fprintf(out, "%-10s %-8zu %-8d %5d %10.3f %13.0f %13.0f %9llu   %5.2f/%.2f/%.2f   %10.3f %10.3f\n", name,
                r->pulses, r->threads, c->rays_per_pulse, c->frame_ms, c->pulses_per_s, c->rays_per_s,
                (unsigned long long)c->points, c->trace_ms, c->shade_ms, c->noise_ms, c->engine_trace_ms,
                c->raw_embree_ms);
}

static lsim_status run_pulses(lsim_context *ctx, const lsim_bench_options *o, FILE *out)
{
    lsim_bench_mesh mesh;
    if (lsim_bench_mesh_make(1000000, &mesh))
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for the mesh");
    lsim_bench_pulses_result r;
    char err[512];
    const int rc = lsim_bench_pulses_run(&mesh, o->threads, o->repeat, o->rings, &r, err, sizeof err);
    lsim_bench_mesh_free(&mesh);
    if (rc)
        return lsim_fail(ctx, LSIM_ERR_ENGINE, "%s", err);
    if (!o->json)
        fprintf(out, "%-10s %-8s %-8s %5s %10s %13s %13s %9s   %-18s %10s %10s\n", "beam", "pulses", "threads", "rays",
                "frame_ms", "pulses/s", "rays/s", "points", "trace/shade/noise", "engine_ms", "embree1_ms");
    print_pulses_case(out, "single", &r.single, &r, o->json);
    char name[16];
    snprintf(name, sizeof name, "rings%d", r.rays.rings);
    print_pulses_case(out, name, &r.rays, &r, o->json);
    return LSIM_OK;
}

static lsim_status run_fit(lsim_context *ctx, const lsim_bench_options *o, FILE *out)
{
    lsim_bench_fit_case c[LSIM_BENCH_FIT_CASES];
    char err[1024];
    if (lsim_bench_fit_run(o->scenes_dir, o->repeat, o->baselines_dir, c, err, sizeof err))
        return lsim_fail(ctx, LSIM_ERR_IO, "%s", err);
    fprintf(out, "%-20s %6s %11s %6s %10s %10s %10s %7s %8s %6s %9s\n", "experiment", "scans", "iterations", "sims",
            "fit_ms", "error_mm", "error_deg", "beams", "bounced", "edges", "unmatched");
    for (int k = 0; k < LSIM_BENCH_FIT_CASES; ++k)
        fprintf(out, "%-20s %6d %11d %6d %10.1f %10.3f %10.4f %7zu %8zu %6zu %9zu\n", c[k].name,
                c[k].scans_in_sequence, c[k].iterations, c[k].evaluations, c[k].best_ms, c[k].error_mm,
                c[k].error_deg, c[k].beams_used, c[k].bounced_beams, c[k].silhouette_beams, c[k].unmatched_beams);
    return LSIM_OK;
}

/* 1 if an executable `name` is in a folder of $PATH. */
static int on_path(const char *name)
{
    const char *path = getenv("PATH");
    char buf[4096];
    while (path && *path) {
        const char *colon = strchr(path, ':');
        const size_t n = colon ? (size_t)(colon - path) : strlen(path);
        if (n > 0 && n + strlen(name) + 2 <= sizeof buf) {
            memcpy(buf, path, n);
            snprintf(buf + n, sizeof buf - n, "/%s", name);
            if (access(buf, X_OK) == 0)
                return 1;
        }
        path = colon ? colon + 1 : NULL;
    }
    return 0;
}

static lsim_status run_dataset(lsim_context *ctx, const lsim_bench_options *o, FILE *out)
{
    const int mpi = o->mpi && on_path("mpirun");
    lsim_bench_dataset_result r;
    char err[1024];
    if (lsim_bench_dataset_run(o->program, o->config, o->frames, o->repeat, mpi, &r, err, sizeof err))
        return lsim_fail(ctx, LSIM_ERR_IO, "%s", err);
    const double f = (double)o->frames;
    fprintf(out, "{\"frames\": %ld, \"serial_1core_s\": %.3f, \"serial_1core_fps\": %.2f, \"serial_2threads_s\": %.3f, "
            "\"serial_2threads_fps\": %.2f, \"shards2_s\": %.3f, \"shards2_fps\": %.2f, \"shards2_efficiency\": %.3f",
            o->frames, r.serial1_s, f / r.serial1_s, r.serial2_s, f / r.serial2_s, r.shards2_s, f / r.shards2_s,
            r.serial1_s / (2.0 * r.shards2_s));
    if (r.mpi)
        fprintf(out, ", \"mpi2_s\": %.3f, \"mpi2_fps\": %.2f, \"mpi2_efficiency\": %.3f", r.mpi2_s, f / r.mpi2_s,
                r.serial1_s / (2.0 * r.mpi2_s));
    else
        fprintf(out, ", \"mpi2_s\": null");
    fprintf(out, "}\n");
    return LSIM_OK;
}

/* ------------------------------------------------------------------ run */

lsim_status lsim_bench_run(lsim_context *ctx, const lsim_bench_options *o)
{
    if (!ctx)
        return LSIM_ERR_INVALID_ARGUMENT;
    lsim_status st = check_options(ctx, o);
    if (st != LSIM_OK)
        return st;
    if (!o->report_path || strcmp(o->report_path, "-") == 0) {
        st = KINDS[o->kind].run(ctx, o, stdout);
        fflush(stdout);
        return st;
    }
    lsim_atomic_group g;
    lsim_atomic_begin(&g, ctx);
    FILE *fp;
    st = lsim_atomic_open(&g, o->report_path, &fp);
    if (st == LSIM_OK)
        st = KINDS[o->kind].run(ctx, o, fp);
    return lsim_atomic_finish(&g, st);
}
