/* Pulses per second (issue 9, "Speed"): a VLP-16 (preset vlp16) in the middle of the bench's
 * ~1M-triangle mesh, one frame with one ray per pulse and one with sub-rays (mode rays, `rings`
 * rings: 1 + 3 r (r + 1) rays a pulse, 19 for rings 2, HELIOS++'s default), through the public API
 * (lsim_scene_scan_into: rays, trace, optics, receiver, noise and every point column). */
#ifndef LSIM_BENCH_PULSES_H
#define LSIM_BENCH_PULSES_H

#include "bench/bench_scene.h"

#include <stddef.h>
#include <stdint.h>

typedef struct lsim_bench_pulses_case {
    int rings;                 /* 0: one ray a pulse (beam mode single) */
    int rays_per_pulse;
    double frame_ms;           /* best wall time of lsim_scene_scan_into */
    double trace_ms, shade_ms, noise_ms; /* the best frame's split (--stats) */
    double pulses_per_s, rays_per_s;
    uint64_t points;           /* echoes of the best frame */
    /* The same frame's rays traced alone (best of the repetitions): lidarsim's engine in slices
     * of 2,048 pulses on the same threads (what the frame's trace stage calls), and raw Embree
     * (rtcIntersect1 per ray, geometry/embree_reference.h). Their pulses/s bound the frame's. */
    double engine_trace_ms, raw_embree_ms;
} lsim_bench_pulses_case;

typedef struct lsim_bench_pulses_result {
    size_t pulses, triangles;
    int threads;
    lsim_bench_pulses_case single, rays;
} lsim_bench_pulses_result;

/* Run `repeat` frames of each case on `threads` threads (0 = all cores), keep the best. 0 on
 * success; otherwise `error` says why. */
int lsim_bench_pulses_run(const lsim_bench_mesh *mesh, int threads, int repeat, int rings,
                          lsim_bench_pulses_result *out, char *error, size_t error_size);

#endif
