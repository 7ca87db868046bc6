/* One benchmark size: the lidarsim frame vs raw Embree on the same rays and mesh. */
#ifndef LSIM_BENCH_FRAME_H
#define LSIM_BENCH_FRAME_H

#include "bench/bench_scene.h"

#include <stddef.h>

typedef struct lsim_bench_frame_result {
    size_t beams, triangles;
    int threads;
    int engine;           /* lsim_engine_kind of the frames: LSIM_ENGINE_EMBREE or LSIM_ENGINE_RASTER */
    int moving;           /* 1: the sensor drove at 10 m/s and turned at 30 deg/s during every frame */
    double raw_ms;        /* best raw Embree trace */
    double first_ms;      /* the first lidarsim frame (with the raster engine: its cube-map render) */
    double frame_ms;      /* best lidarsim frame after the first (the first when repeat is 1): rays + trace +
                           * shade + noise + points */
    double trace_ms, shade_ms, noise_ms; /* split of the best lidarsim frame */
    size_t raw_hits, frame_points;
} lsim_bench_frame_result;

/* Run `repeat` frames of each kind, alternating, keeping the best (the lidarsim frame: the best
 * after the first, which is reported alone). The frames are traced by `engine` (an
 * lsim_engine_kind: LSIM_ENGINE_EMBREE, or LSIM_ENGINE_RASTER, whose cube map is rendered in the
 * first frame and reused by later ones when the sensor is static). `moving`: the sensor drives at
 * 10 m/s and turns at 30 deg/s, so every frame is a moving one (the raster engine draws a view per
 * 1 ms group of firing, every frame; raw Embree traces the frame's rays from their own origins).
 * The frame fills the point fields of `fields` (LSIM_FIELD_BIT mask; 0: every field), with noise on
 * or off. 0 on success. */
int lsim_bench_frame_run(const lsim_bench_mesh *mesh, size_t beams, int engine, int moving, int threads, int repeat,
                   uint32_t fields, int noise, lsim_bench_frame_result *out, char *error, size_t error_size);

#endif
