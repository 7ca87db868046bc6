/* One benchmark size: the lidarsim frame vs raw Embree on the same rays and mesh. */
#ifndef LSIM_BENCH_RUN_H
#define LSIM_BENCH_RUN_H

#include "bench_scene.h"

#include <stddef.h>

typedef struct lsim_bench_result {
    size_t beams, triangles;
    int threads;
    double raw_ms;        /* best raw Embree trace */
    double frame_ms;      /* best lidarsim frame: rays + trace + shade + noise + points */
    double trace_ms, shade_ms, noise_ms; /* split of the best lidarsim frame */
    size_t raw_hits, frame_points;
} lsim_bench_result;

/* Run `repeat` frames of each kind, alternating, keeping the best. The frame fills the point
 * fields of `fields` (LSIM_FIELD_BIT mask; 0: every field), with noise on or off. 0 on success. */
int lsim_bench_run(const lsim_bench_mesh *mesh, size_t beams, int threads, int repeat, uint32_t fields, int noise,
                   lsim_bench_result *out, char *error, size_t error_size);

#endif
