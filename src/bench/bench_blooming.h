/* Blooming benchmark at the pbr paper's size (§IV): 16,384 beams sampled from a 4096-px-wide
 * render with 68-px kernels and 1,200 range bins; Alg. 1 (beam iteration) vs Alg. 2 (range
 * stacking) on the same deterministic synthetic street scene. */
#ifndef LSIM_BENCH_BLOOMING_H
#define LSIM_BENCH_BLOOMING_H

#include <stddef.h>

typedef struct lsim_bench_blooming_result {
    size_t beams;
    int width, height;         /* image U x V */
    int kernel_half;           /* kernel spans 2 half + 1 pixels per axis */
    int range_bins;            /* s_max */
    int threads;
    double alg1_ms, alg2_ms;   /* best of the repetitions */
    double alg2_all_ms;        /* Alg. 2 with dim slices not skipped (best of the repetitions) */
    size_t slices_occupied;    /* slices holding pixels */
    size_t alg2_slices_processed;
    size_t echoes;             /* beams with an echo (Alg. 1) */
    size_t bloomed;            /* beams whose echo comes from a retroreflector's slice they do not point at */
    size_t mismatches;         /* beams where Alg. 1 and Alg. 2 differ (slice or power beyond 1e-5) */
    double max_power_rel_diff; /* largest relative power difference over the beams */
} lsim_bench_blooming_result;

/* Build the scene, run each algorithm `repeat` times on `threads` threads (0 = all cores), keep the
 * best. 0 on success; otherwise `error` says why. */
int lsim_bench_blooming_run(int threads, int repeat, lsim_bench_blooming_result *out, char *error, size_t error_size);

#endif
