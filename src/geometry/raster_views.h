/* Views of the raster engine (raster_engine.c) and the sensor layouts they are fitted to.
 *
 * A view is either a cube map (6 faces of 90 x 90 degrees along the world's +-x, +-y, +-z, each
 * n x n pixels) or one sector: a perspective view along a group of beams' mean direction whose
 * window is the smallest that holds the group's beams plus a margin. Either is drawn from one
 * centre at one time on the scene's clock.
 *
 * A layout is what the engine derives once from a sensor's beams (sensor frame, so it holds for
 * every pose): the pixel pitch (the finest angular spacing between beams, sampled, divided by the
 * oversampling) and the beams cut by firing time into groups of group_s seconds, each with its
 * mean time and its sector (axis, window), and the same for all the beams together (a still
 * frame's view); a group whose beams spread beyond 65 degrees from their axis is "wide" and
 * drawn as a cube. Everything here depends on the sensor alone, never
 * on how the frame's beams were batched, so the views and the points are the same whatever the
 * thread count. */
#ifndef LSIM_GEOMETRY_RASTER_VIEWS_H
#define LSIM_GEOMETRY_RASTER_VIEWS_H

#include "geometry/raster_gl.h"

#include <stddef.h>
#include <stdint.h>

struct lsim_sensor;

#define RASTER_MAX_SIDE 4096u
#define RASTER_NO_PIXEL SIZE_MAX

typedef struct raster_view {
    int valid;
    int faces;                                  /* 6: a cube map; 1: a sector */
    double c[3];                                /* centre, world */
    double right[6][3], up[6][3], fwd[6][3];    /* each face's axes, world */
    double x0, x1, y0, y1;                      /* window of every face, tangents (a cube: -1..1) */
    uint32_t w, h;                              /* pixels of a face */
    double time;                                /* scene clock of the drawing */
    double far_m;
    long group;                                 /* the layout's group; -1: a still frame's cube */
    unsigned long layout_id;                    /* the layout it was drawn for */
    float *range;                               /* faces x w x h (the CPU lookup) */
    uint32_t *object, *prim;                    /* object + 1 (0: nothing), triangle */
    lsim_raster_gl_target target;               /* the same on the GL device (the GL lookup) */
    lsim_raster_gl *gl;                         /* the handle that holds `target` */
    size_t capacity;                            /* pixels allocated (CPU buffers or textures) */
    unsigned long stamp;                        /* last use */
} raster_view;

typedef struct raster_group {
    double time;                                /* mean firing time, seconds from the frame start */
    double right[3], up[3], fwd[3];             /* sector axes, sensor frame */
    double x0, x1, y0, y1;
    int wide;
} raster_group;

typedef struct raster_layout {
    unsigned long id;                           /* 0: unused */
    uint64_t beam_digest;                       /* key: the beam table's digest and count */
    size_t beams;
    double pitch_hint;                          /* key: lsim_rays.pitch */
    double pitch;                               /* radians per pixel */
    double group_s;                             /* seconds of firing per group */
    size_t groups;
    raster_group *group;
    raster_group all;                           /* every beam: a still frame's view unless wide */
} raster_layout;

/* Fill `layout` for the sensor's beams (its id and key are set by the caller). 0, or -1 out of memory. */
int raster_layout_make(raster_layout *layout, const struct lsim_sensor *sensor, double pitch_hint, double oversample,
                      double group_ms);
void raster_layout_free(raster_layout *layout);
/* The group of a beam fired `time` seconds into the frame. */
size_t raster_layout_group_of(const raster_layout *layout, float time);

/* Face size for a pitch over a window span of `span` tangent units, within 16..RASTER_MAX_SIDE. */
uint32_t raster_view_side(double span, double pitch);
/* Make v a cube (world-aligned faces, n x n) or the sector of group g rotated by the sensor
 * rotation `rot` (row-major sensor -> world); centre, time, far and keys are the caller's. */
void raster_view_set_cube(raster_view *v, uint32_t n);
void raster_view_set_sector(raster_view *v, const raster_group *g, const double rot[9], double pitch);
/* Draw v: on_gl 0 reads it back into its CPU buffers (grown as needed), 1 keeps it on the GL
 * device in v->target (made for its size; the CPU buffers are freed). */
lsim_status raster_view_render(lsim_raster_gl *gl, raster_view *v, int depth_bits, double near_m, int on_gl);
/* v's frame for the GL lookup. */
void raster_view_frame(const raster_view *v, int normal_correction, lsim_raster_lookup_view *out);
void raster_view_free(raster_view *v);
/* Bytes a view's buffers hold, and would hold for its current size (faces x w x h). */
size_t raster_view_bytes(const raster_view *v);
size_t raster_view_bytes_needed(const raster_view *v);
/* The bytes v will hold once drawn at its current size: a new buffer of that size, or the one it
 * keeps (raster_view_render's rule). */
size_t raster_view_bytes_after(const raster_view *v);
/* The cache's memory bound: free the least recently used of view[0..n), never `keep`, until
 * what the others hold plus `need` bytes fits in `budget` (or none is left to free). Returns the
 * bytes the others hold afterwards. Under the engine's write lock. */
size_t raster_views_trim(raster_view *view, int n, const raster_view *keep, size_t need, size_t budget);
/* The pixel of world direction w (any length) and its centre's unit direction `dir`;
 * RASTER_NO_PIXEL when the view does not hold w. */
size_t raster_view_pixel(const raster_view *v, const double w[3], double dir[3]);

#endif
