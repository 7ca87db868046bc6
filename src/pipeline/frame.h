/* One frame through the data flow: beams -> rays -> hits -> returns -> measurements -> points.
 * The workspace holds every per-ray array, sized once and reusable frame after frame. */
#ifndef LSIM_PIPELINE_FRAME_H
#define LSIM_PIPELINE_FRAME_H

#include "lidarsim.h"
#include "geometry/engine.h"
#include "noise/noise.h"
#include "optics/range_equation.h"
#include "sensor/sensor.h"

/* Beams per work item of the frame loop: small enough that a chunk's per-ray arrays stay in L2. */
#define LSIM_FRAME_CHUNK 2048

typedef struct lsim_frame_workspace {
    size_t capacity;
    lsim_rays rays;
    lsim_hits hits;
    lsim_returns returns;
    lsim_measurements measured;
    lsim_surfaces surfaces;
    uint32_t *object_label, *object_instance;
    size_t object_capacity;
    size_t *chunk_points; /* [c + 1]: points chunk c emits; prefix-summed into offsets by emit */
} lsim_frame_workspace;

lsim_status lsim_frame_workspace_reserve(lsim_context *ctx, lsim_frame_workspace *ws, size_t rays,
                                         size_t objects);
void lsim_frame_workspace_free(lsim_frame_workspace *ws);

/* Ray generation: beams [begin, end) of the sensor placed at its pose, in world space. */
void lsim_rays_generate(const lsim_sensor *sensor, lsim_rays *rays, size_t begin, size_t end);

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
