/* Analytic primitives: box (12 triangles), plane (2 triangles), sphere (exact), raw triangles. */
#include "scene/scene.h"

#include "core/context.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* double -> float without overflow (out-of-range conversion is undefined); values this large
 * are rejected afterwards by the scene's extent check. */
static float clamp_to_float(double x)
{
    return (float)(x > 1e30 ? 1e30 : x < -1e30 ? -1e30 : x);
}

void lsim_transform_vertices(float *v, size_t n, const lsim_object_desc *desc)
{
    static const double zero[3] = {0.0, 0.0, 0.0};
    const int own_frame = lsim_object_desc_motion(desc) == 1; /* the motion places it */
    lsim_pose pose = lsim_pose_make(own_frame ? zero : desc->position, own_frame ? zero : desc->rotation_deg);
    for (size_t i = 0; i < n; ++i) {
        lsim_vec3 p = lsim_v3_scale(lsim_v3(v[3 * i], v[3 * i + 1], v[3 * i + 2]), desc->scale);
        p = lsim_v3_add(lsim_mat3_mul(&pose.r, p), pose.t);
        v[3 * i] = clamp_to_float(p.x);
        v[3 * i + 1] = clamp_to_float(p.y);
        v[3 * i + 2] = clamp_to_float(p.z);
    }
}

static lsim_status alloc_triangles(lsim_context *ctx, lsim_object *o, const char *kind, size_t nv, size_t nt)
{
    memset(o, 0, sizeof *o);
    o->shape = LSIM_SHAPE_TRIANGLES;
    strncpy(o->kind, kind, sizeof o->kind - 1);
    o->vertices = malloc(3 * nv * sizeof(float));
    o->indices = malloc(3 * nt * sizeof(uint32_t));
    o->vertex_count = nv;
    o->triangle_count = nt;
    if (!o->vertices || !o->indices) {
        free(o->vertices);
        free(o->indices);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for a %s of %zu triangles", kind, nt);
    }
    return LSIM_OK;
}

/* A length in (0, 1e7] m. */
static int length_ok(double v) { return v > 0.0 && v <= 1e7; }

lsim_status lsim_scene_add_box(lsim_scene *scene, const double size[3], const lsim_object_desc *desc)
{
    if (!scene || !size || !desc)
        return LSIM_ERR_INVALID_ARGUMENT;
    if (lsim_object_desc_validate(scene->ctx, desc) != LSIM_OK)
        return lsim_context_last_status(scene->ctx);
    for (int i = 0; i < 3; ++i)
        if (!length_ok(size[i]))
            return lsim_fail(scene->ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "box size [%g, %g, %g]: every edge must be a number in (0, 1e7] m", size[0], size[1], size[2]);
    lsim_object o;
    lsim_status st = alloc_triangles(scene->ctx, &o, "box", 8, 12);
    if (st != LSIM_OK)
        return st;
    for (int i = 0; i < 8; ++i) {
        o.vertices[3 * i] = (float)((i & 1 ? 0.5 : -0.5) * size[0]);
        o.vertices[3 * i + 1] = (float)((i & 2 ? 0.5 : -0.5) * size[1]);
        o.vertices[3 * i + 2] = (float)((i & 4 ? 0.5 : -0.5) * size[2]);
    }
    /* Faces as quads of corner indices (bit 0 = +x, bit 1 = +y, bit 2 = +z), outward winding. */
    static const uint32_t quads[6][4] = {
        {0, 2, 3, 1}, /* -z */ {4, 5, 7, 6}, /* +z */ {0, 1, 5, 4}, /* -y */
        {2, 6, 7, 3}, /* +y */ {0, 4, 6, 2}, /* -x */ {1, 3, 7, 5}, /* +x */
    };
    for (int f = 0; f < 6; ++f) {
        const uint32_t *q = quads[f];
        uint32_t tri[6] = {q[0], q[1], q[2], q[0], q[2], q[3]};
        memcpy(&o.indices[6 * f], tri, sizeof tri);
    }
    lsim_transform_vertices(o.vertices, 8, desc);
    return lsim_scene_take_object(scene, &o, desc);
}

lsim_status lsim_scene_add_plane(lsim_scene *scene, const double size[2], const lsim_object_desc *desc)
{
    if (!scene || !size || !desc)
        return LSIM_ERR_INVALID_ARGUMENT;
    if (lsim_object_desc_validate(scene->ctx, desc) != LSIM_OK)
        return lsim_context_last_status(scene->ctx);
    if (!length_ok(size[0]) || !length_ok(size[1]))
        return lsim_fail(scene->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "plane size [%g, %g]: both sides must be numbers in (0, 1e7] m", size[0], size[1]);
    lsim_object o;
    lsim_status st = alloc_triangles(scene->ctx, &o, "plane", 4, 2);
    if (st != LSIM_OK)
        return st;
    const float hx = (float)(0.5 * size[0]), hy = (float)(0.5 * size[1]);
    const float v[12] = {-hx, -hy, 0, hx, -hy, 0, hx, hy, 0, -hx, hy, 0};
    const uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    memcpy(o.vertices, v, sizeof v);
    memcpy(o.indices, idx, sizeof idx);
    lsim_transform_vertices(o.vertices, 4, desc);
    return lsim_scene_take_object(scene, &o, desc);
}

lsim_status lsim_scene_add_sphere(lsim_scene *scene, double radius, const lsim_object_desc *desc)
{
    if (!scene || !desc)
        return LSIM_ERR_INVALID_ARGUMENT;
    if (lsim_object_desc_validate(scene->ctx, desc) != LSIM_OK)
        return lsim_context_last_status(scene->ctx);
    if (!length_ok(radius))
        return lsim_fail(scene->ctx, LSIM_ERR_INVALID_ARGUMENT, "sphere radius %g must be a number in (0, 1e7] m", radius);
    lsim_object o;
    memset(&o, 0, sizeof o);
    o.shape = LSIM_SHAPE_SPHERE;
    strcpy(o.kind, "sphere");
    const int own_frame = lsim_object_desc_motion(desc) == 1; /* the motion places it */
    for (int i = 0; i < 3; ++i)
        o.center[i] = own_frame ? 0.0 : desc->position[i];
    o.radius = radius * desc->scale;
    return lsim_scene_take_object(scene, &o, desc);
}

lsim_status lsim_scene_add_triangles(lsim_scene *scene, const float *vertices, size_t vertex_count,
                                     const uint32_t *indices, size_t triangle_count,
                                     const lsim_object_desc *desc)
{
    if (!scene || !vertices || !indices || !desc)
        return LSIM_ERR_INVALID_ARGUMENT;
    if (lsim_object_desc_validate(scene->ctx, desc) != LSIM_OK)
        return lsim_context_last_status(scene->ctx);
    if (vertex_count == 0 || triangle_count == 0 || vertex_count > UINT32_MAX)
        return lsim_fail(scene->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "triangle mesh needs >= 1 vertex and >= 1 triangle (got %zu and %zu)",
                         vertex_count, triangle_count);
    for (size_t i = 0; i < 3 * triangle_count; ++i)
        if (indices[i] >= vertex_count)
            return lsim_fail(scene->ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "triangle %zu refers to vertex %u but the mesh has %zu vertices", i / 3,
                             indices[i], vertex_count);
    for (size_t i = 0; i < 3 * vertex_count; ++i)
        if (!isfinite(vertices[i]))
            return lsim_fail(scene->ctx, LSIM_ERR_INVALID_ARGUMENT, "vertex %zu has a non-finite coordinate", i / 3);
    if (lsim_scene_check_room(scene, triangle_count, "triangles") != LSIM_OK) /* before the copy */
        return lsim_context_last_status(scene->ctx);
    lsim_object o;
    lsim_status st = alloc_triangles(scene->ctx, &o, "triangles", vertex_count, triangle_count);
    if (st != LSIM_OK)
        return st;
    memcpy(o.vertices, vertices, 3 * vertex_count * sizeof(float));
    memcpy(o.indices, indices, 3 * triangle_count * sizeof(uint32_t));
    lsim_transform_vertices(o.vertices, vertex_count, desc);
    return lsim_scene_take_object(scene, &o, desc);
}
