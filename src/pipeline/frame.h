/* One frame through the data flow: beams -> rays -> hits -> returns -> measurements -> points.
 * The frame loop runs the stages slice by slice (LSIM_FRAME_CHUNK beams): a slice's rays and
 * hits live in per-thread scratch that stays in cache; returns and measurements, which point
 * emission reads, are frame-sized. The workspace is sized once and reusable frame after frame. */
#ifndef LSIM_PIPELINE_FRAME_H
#define LSIM_PIPELINE_FRAME_H

#include "lidarsim.h"
#include "geometry/engine.h"
#include "noise/noise.h"
#include "optics/range_equation.h"
#include "sensor/sensor.h"

/* Beams per work item of the frame loop: at most LSIM_FRAME_CHUNK (a slice's arrays stay in
 * L2), fewer for small frames so every thread gets work (lsim_frame_chunk). */
#define LSIM_FRAME_CHUNK 2048
#define LSIM_FRAME_CHUNK_MIN 256

/* Slice size for a frame of n beams on `threads` threads: about 8 slices per thread. */
static inline size_t lsim_frame_chunk(size_t n, int threads)
{
    size_t c = (n / ((size_t)threads * 8) + 63) / 64 * 64;
    return c < LSIM_FRAME_CHUNK_MIN ? LSIM_FRAME_CHUNK_MIN : c > LSIM_FRAME_CHUNK ? LSIM_FRAME_CHUNK : c;
}

typedef struct lsim_frame_scratch {
    lsim_rays rays; /* LSIM_FRAME_CHUNK each */
    lsim_hits hits;
} lsim_frame_scratch;

typedef struct lsim_frame_workspace {
    size_t capacity;
    lsim_returns returns;
    lsim_measurements measured;
    size_t chunk;         /* slice size of the current frame */
    size_t *chunk_points; /* [c + 1]: points slice c emits; prefix-summed into offsets by emit */
    lsim_frame_scratch *scratch; /* one per thread */
    int scratch_count;
    lsim_surfaces surfaces;
    uint32_t *object_label, *object_instance;
    size_t object_capacity;
} lsim_frame_workspace;

lsim_status lsim_frame_workspace_reserve(lsim_context *ctx, lsim_frame_workspace *ws, size_t beams,
                                         size_t objects, int threads);
void lsim_frame_workspace_free(lsim_frame_workspace *ws);

/* Ray generation: `count` beams from frame beam `begin`, placed at the sensor's pose (world). */
void lsim_rays_generate(const lsim_sensor *sensor, size_t begin, size_t count, lsim_rays *rays);
/* Allocate / free `count` rays (for callers outside the frame loop, e.g. the benchmark). */
int lsim_rays_alloc(lsim_rays *rays, size_t count);
void lsim_rays_free(lsim_rays *rays);

/* Emit the detected beams (or all, with keep_misses) as points in the requested frame, from
 * chunk_points counted by the frame loop. `points` must have capacity >= beam count. */
void lsim_points_emit(const lsim_sensor *sensor, const lsim_frame_workspace *ws,
                      const lsim_scan_options *options, lsim_points *points, int threads);

/* Run one frame into `points` (capacity >= beam count), filling stats except load/write. */
lsim_status lsim_frame_run(lsim_scene *scene, const lsim_sensor *sensor, const lsim_scan_options *options,
                           lsim_frame_workspace *ws, lsim_points *points);

/* Number of threads an options struct asks for (0 -> all cores). */
int lsim_threads_resolve(int requested);

#endif
