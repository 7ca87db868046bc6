/* Offscreen OpenGL rasterizer through EGL (DESIGN.md §2 "Rasterization", issue 12): the raster
 * paper's per-view rendering on the real graphics pipeline, with no window and no hand-written
 * rasterizer. It runs on Mesa's llvmpipe on CPU-only machines and on a GPU driver unchanged.
 *
 * One handle owns one EGL display connection, one OpenGL 4.3 core context (surfaceless: no
 * window, no pbuffer), the scene's triangles in GPU buffers and one framebuffer. The context is
 * made current on the thread that creates the handle; every later call must come from that
 * thread (an OpenGL context is current on one thread at a time). Several handles may share a
 * thread: each call makes its own context current. Nothing outside src/geometry/ names EGL or
 * OpenGL.
 *
 * Internal API: the raster engine behind geometry/engine.h (raster_engine.c) is built on it. Views
 * are either read back (lsim_raster_gl_render_view: the CPU lookup, the tests) or drawn into
 * layered textures that stay on the device, where a compute shader looks the beams up
 * (lsim_raster_gl_render_layer, lsim_raster_gl_look_up: raster_gl_lookup.c). */
#ifndef LSIM_GEOMETRY_RASTER_GL_H
#define LSIM_GEOMETRY_RASTER_GL_H

#include "lidarsim.h"

#include <stddef.h>
#include <stdint.h>

typedef struct lsim_raster_gl lsim_raster_gl;
struct lsim_scene;

/* One perspective view (the raster paper's eq. 3, glFrustum). Camera frame: x right, y up, the
 * camera looks along -z (OpenGL's convention). Pixel (i, j), i = 0..width-1 from the left and
 * j = 0..height-1 FROM THE BOTTOM (glReadPixels order; image index j * width + i), has its centre
 * on the camera-frame ray (left + (i + 0.5) (right - left) / width,
 * bottom + (j + 0.5) (top - bottom) / height, -1). */
typedef struct lsim_raster_view {
    double origin[3];   /* camera origin, world frame (metres) */
    double rotation[9]; /* row-major camera -> world: column k is camera axis k in world coordinates */
    /* frustum edges as tangents at unit distance: left < right, bottom < top (asymmetric allowed;
     * a 90 x 90 degree cube face is -1, 1, -1, 1) */
    double left, right, bottom, top;
    uint32_t width, height; /* pixels, 1..16384 */
    double near_m, far_m;   /* clip distances along -z: the sensor's range_min and range_max, 0 < near < far */
    int depth_bits;         /* 32 (GL_DEPTH_COMPONENT32F, the default when 0) or 16 (ablation) */
} lsim_raster_view;

/* Caller-owned outputs of one view, width * height entries each (3 per pixel for normal), in
 * the pixel order above. Any pointer may be NULL: that target is not read back.
 *   range:     Euclidean distance from the camera origin to the surface seen at the pixel centre
 *              (metres; INFINITY where nothing lies within [near, far] of the frustum)
 *   normal:    unit geometric normal in world space, interleaved x, y, z (the winding's
 *              (b - a) x (c - a), as the ray-casting engines report it; 0, 0, 0 for nothing)
 *   object:    scene object index + 1 (0: nothing)
 *   primitive: triangle index within that object (0 for nothing)
 *   depth_range: the ablation of the raster paper's Fig. 5 (not used by the engine): the same
 *              Euclidean range, but reconstructed from the DEPTH BUFFER by inverting the
 *              projection (the paper's eq. 2 with eq. 3's z mapping): z_ndc = 2 d - 1,
 *              z_eye = P14 / (z_ndc + P10) with the float projection terms actually drawn,
 *              range = z_eye sqrt(1 + x^2 + y^2) at the pixel centre's tangents (x, y); INFINITY
 *              where the depth is the cleared 1. Its precision is the depth format's (depth_bits):
 *              with 16 bits it shows the stair-step artefacts that `range` (interpolated
 *              camera-space position, 32-bit float) does not. */
typedef struct lsim_raster_image {
    float *range;
    float *normal;
    uint32_t *object;
    uint32_t *primitive;
    float *depth_range;
} lsim_raster_image;

/* EGL display + OpenGL 4.3 core context, current on this thread. LSIM_ERR_ENGINE when EGL or a
 * suitable context is not available (the message names the EGL error and what to install). */
lsim_status lsim_raster_gl_create(lsim_context *ctx, lsim_raster_gl **out);
void lsim_raster_gl_destroy(lsim_raster_gl *gl);

/* "OpenGL <version> (<renderer>)" of the context, e.g. "4.5 (Core Profile) Mesa 22.3.6 (llvmpipe ...)". */
const char *lsim_raster_gl_describe(const lsim_raster_gl *gl);

/* Upload every triangle object of the scene (once; replaces an earlier upload). Static objects
 * are in world space; objects with motion are in their own frame and are drawn at the pose of
 * lsim_raster_gl_set_object_pose / lsim_raster_gl_set_time (identity until then). Spheres are
 * not drawn yet (TODO: tessellate, or ray-cast them in the fragment shader on a bounding box).
 * The triangles are copied to GL buffers; the handle keeps a pointer to the scene only for
 * lsim_raster_gl_set_time (the objects' motions), so the scene must outlive those calls. */
lsim_status lsim_raster_gl_set_scene(lsim_raster_gl *gl, const struct lsim_scene *scene);

/* Pose of object `object` for the next renders: 3x4 row-major [R | p], x_world = R x_own + p
 * (the layout of lsim_motion_pose_at). R must be a rotation (normals are rotated by it). */
lsim_status lsim_raster_gl_set_object_pose(lsim_raster_gl *gl, size_t object, const double pose[12]);
/* Every moving object at its pose at time t on the scene's clock. */
lsim_status lsim_raster_gl_set_time(lsim_raster_gl *gl, double t);

/* Make no context current on this thread if this handle's is (so another thread may take the
 * handle next; the raster engine renders from whichever pipeline thread needs a view). */
void lsim_raster_gl_release_current(lsim_raster_gl *gl);

/* Render one view and read its targets back into `out`. */
lsim_status lsim_raster_gl_render_view(lsim_raster_gl *gl, const lsim_raster_view *view, const lsim_raster_image *out);

/* ---- The per-beam lookup on the GL device (raster_gl_lookup.c) ----
 * Views stay on the device as layered textures (range R32F, object id + 1 R32UI, triangle R32UI;
 * one layer a face, pixel (i, j) of layer k where the CPU image has k w h + j w + i), and a
 * compute shader answers each ray from them: the raster engine's lookup (raster_engine.c's
 * raster_hit: the pixel, the normal correction, the second lookup from the view centre, the
 * barycentrics) in double precision, the same operations in the same order. */

/* 1 where the context runs the lookup (compute shaders: OpenGL 4.3; the scene's vertex and index
 * buffers within the shader storage block size), 0 where the engine must look up on the CPU. */
int lsim_raster_gl_can_look_up(const lsim_raster_gl *gl);

/* Compile and link a compute shader from `source`, then delete it: LSIM_OK, or LSIM_ERR_ENGINE
 * with the driver's compile or link log in the message (how the lookup's own program is built at
 * lsim_raster_gl_create; for tests of that error path). */
lsim_status lsim_raster_gl_try_compute(lsim_raster_gl *gl, const char *source);

/* A view kept on the device: three texture arrays of width x height x layers. */
typedef struct lsim_raster_gl_target {
    uint32_t range, object, primitive; /* GL texture names (0: none) */
    uint32_t width, height, layers;
} lsim_raster_gl_target;

/* (Re)make the target for a size (kept when it has that size already). */
lsim_status lsim_raster_gl_target_make(lsim_raster_gl *gl, lsim_raster_gl_target *target, uint32_t width,
                                       uint32_t height, uint32_t layers);
void lsim_raster_gl_target_free(lsim_raster_gl *gl, lsim_raster_gl_target *target);
/* Render one view into layer `layer` of the target (its size: the view's), nothing read back. */
lsim_status lsim_raster_gl_render_layer(lsim_raster_gl *gl, const lsim_raster_view *view,
                                        const lsim_raster_gl_target *target, uint32_t layer);

/* A view's frame for the lookup (the raster engine's raster_view): centre, each face's axes,
 * the window in tangents, the face size, the time the view was drawn at (the objects' poses). */
typedef struct lsim_raster_lookup_view {
    double c[3];
    double right[6][3], up[6][3], fwd[6][3];
    double x0, x1, y0, y1;
    uint32_t w, h;
    int faces; /* 6 (cube) or 1 (sector) */
    double time;
    int normal_correction;
} lsim_raster_lookup_view;

/* One looked-up ray: LSIM_RASTER_LOOKUP_RAY floats in (origin, unit direction, tnear, tfar) and
 * LSIM_RASTER_LOOKUP_HIT words out: t, u, v, normal x, y, z (float bits), object, triangle.
 * object is UINT32_MAX (a miss) or LSIM_RASTER_LOOKUP_OUTSIDE (the view does not hold the ray:
 * ray-cast it). */
#define LSIM_RASTER_LOOKUP_RAY 8
#define LSIM_RASTER_LOOKUP_HIT 8
#define LSIM_RASTER_LOOKUP_OUTSIDE (UINT32_MAX - 1u)
/* Look up n rays against the target drawn for `view`: upload the rays, dispatch the compute
 * shader, read back the hits. */
lsim_status lsim_raster_gl_look_up(lsim_raster_gl *gl, const lsim_raster_gl_target *target,
                                   const lsim_raster_lookup_view *view, const float *rays, size_t n, uint32_t *hits);

#endif
