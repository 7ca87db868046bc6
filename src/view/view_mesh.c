/* The viewer's vertex arrays (view_mesh.h). */
#include "view/view_mesh.h"

#include "core/context.h"
#include "core/motion.h"
#include "core/vec.h"
#include "pictures/colormap.h"
#include "pictures/label_colors.h"
#include "scene/scene.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SPHERE_SLICES 24 /* around z */
#define SPHERE_STACKS 12 /* pole to pole */

void lsim_view_buffer_free(lsim_view_buffer *b)
{
    free(b->v);
    memset(b, 0, sizeof *b);
}

static lsim_status reserve(lsim_context *ctx, lsim_view_buffer *b, size_t more, const char *what)
{
    if (more <= b->cap - b->count)
        return LSIM_OK;
    if (more > (SIZE_MAX / sizeof *b->v) / 2 - b->count)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "too many vertices for the %s", what);
    size_t cap = b->cap ? b->cap : 1024;
    while (cap < b->count + more)
        cap *= 2;
    lsim_view_vertex *v = realloc(b->v, cap * sizeof *v);
    if (!v)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY,
                         "out of memory for %zu vertices of the %s; draw fewer (--beams) or a smaller scene",
                         b->count + more, what);
    b->v = v;
    b->cap = cap;
    return LSIM_OK;
}

static void put(lsim_view_buffer *b, lsim_vec3 p, const float c[3], lsim_vec3 n)
{
    lsim_view_vertex *v = &b->v[b->count++];
    v->p[0] = (float)p.x, v->p[1] = (float)p.y, v->p[2] = (float)p.z;
    memcpy(v->c, c, sizeof v->c);
    v->n[0] = (float)n.x, v->n[1] = (float)n.y, v->n[2] = (float)n.z;
}

/* A fixed, fairly bright colour from a number (integer hash -> hue). */
static void hash_colour(uint32_t x, float rgb[3])
{
    x ^= x >> 16, x *= 0x7feb352dU, x ^= x >> 15, x *= 0x846ca68bU, x ^= x >> 16;
    double h = (double)(x % 360u) / 60.0, f = h - floor(h);
    double v = 0.9, s = 0.6, p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
    double c[6][3] = {{v, t, p}, {q, v, p}, {p, v, t}, {p, q, v}, {t, p, v}, {v, p, q}};
    int i = (int)h % 6;
    for (int k = 0; k < 3; ++k)
        rgb[k] = (float)c[i][k];
}

void lsim_view_label_colour(uint32_t label, float rgb[3])
{
    unsigned char c[3]; /* the pictures' table (pictures/label_colors.h): lightened to show on the background */
    if (!lsim_label_color(label, c, NULL)) {
        hash_colour(label, rgb);
        return;
    }
    for (int k = 0; k < 3; ++k)
        rgb[k] = c[k] / 255.0f;
}

void lsim_view_material_colour(uint32_t index, float rgb[3])
{
    if (index == 0) {
        rgb[0] = rgb[1] = rgb[2] = 0.6f;
        return;
    }
    hash_colour(index * 2654435761u, rgb);
}

void lsim_view_intensity_colour(float intensity, double log_lo, double log_hi, float rgb[3])
{
    double t;
    if (!(intensity > 0.0f))
        t = 0.0;
    else if (!(log_hi > log_lo))
        t = 1.0;
    else
        t = (log((double)intensity) - log_lo) / (log_hi - log_lo);
    unsigned char c[3];
    lsim_colormap_viridis(t, c);
    for (int k = 0; k < 3; ++k)
        rgb[k] = c[k] / 255.0f;
}

static lsim_vec3 world_of(const lsim_object *o, const double m[12], const float *v)
{
    lsim_vec3 p = lsim_v3(v[0], v[1], v[2]);
    if (!o->motion)
        return p;
    return lsim_v3(m[0] * p.x + m[1] * p.y + m[2] * p.z + m[3], m[4] * p.x + m[5] * p.y + m[6] * p.z + m[7],
                   m[8] * p.x + m[9] * p.y + m[10] * p.z + m[11]);
}

static void put_triangle(lsim_view_buffer *b, lsim_vec3 a, lsim_vec3 c1, lsim_vec3 c2, const float col[3])
{
    lsim_vec3 n = lsim_v3_cross(lsim_v3_sub(c1, a), lsim_v3_sub(c2, a));
    double len = lsim_v3_norm(n);
    n = len > 0 ? lsim_v3_scale(n, 1.0 / len) : lsim_v3(0, 0, 1);
    put(b, a, col, n);
    put(b, c1, col, n);
    put(b, c2, col, n);
}

static lsim_vec3 sphere_point(const lsim_object *o, int stack, int slice)
{
    double th = LSIM_PI * stack / SPHERE_STACKS, ph = 2.0 * LSIM_PI * slice / SPHERE_SLICES;
    return lsim_v3(o->center[0] + o->radius * sin(th) * cos(ph), o->center[1] + o->radius * sin(th) * sin(ph),
                   o->center[2] + o->radius * cos(th));
}

lsim_status lsim_view_scene_triangles(lsim_context *ctx, const lsim_scene *scene, int by_material,
                                      lsim_view_buffer *out)
{
    for (size_t i = 0; i < scene->object_count; ++i) {
        const lsim_object *o = &scene->objects[i];
        float col[3];
        if (by_material)
            lsim_view_material_colour(o->material, col);
        else
            lsim_view_label_colour(o->label, col);
        if (o->shape == LSIM_SHAPE_SPHERE) {
            lsim_status st = reserve(ctx, out, 6u * SPHERE_STACKS * SPHERE_SLICES, "scene");
            if (st != LSIM_OK)
                return st;
            for (int s = 0; s < SPHERE_STACKS; ++s)
                for (int k = 0; k < SPHERE_SLICES; ++k) {
                    lsim_vec3 a = sphere_point(o, s, k), b = sphere_point(o, s, k + 1);
                    lsim_vec3 c = sphere_point(o, s + 1, k), d = sphere_point(o, s + 1, k + 1);
                    if (s > 0)
                        put_triangle(out, a, c, b, col);
                    if (s < SPHERE_STACKS - 1)
                        put_triangle(out, b, c, d, col);
                }
            continue;
        }
        if (o->triangle_count > SIZE_MAX / 3)
            return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "object %zu has too many triangles", i);
        lsim_status st = reserve(ctx, out, 3 * o->triangle_count, "scene");
        if (st != LSIM_OK)
            return st;
        double m[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
        if (o->motion)
            lsim_motion_pose_at(o->motion, 0.0, m);
        for (size_t t = 0; t < o->triangle_count; ++t) {
            const uint32_t *ix = &o->indices[3 * t];
            put_triangle(out, world_of(o, m, &o->vertices[3 * (size_t)ix[0]]),
                         world_of(o, m, &o->vertices[3 * (size_t)ix[1]]),
                         world_of(o, m, &o->vertices[3 * (size_t)ix[2]]), col);
        }
    }
    return LSIM_OK;
}

static int compare_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* log of the 2nd and 98th percentiles of the positive finite intensities (0, 0: none). */
static lsim_status intensity_range(lsim_context *ctx, const float *in, size_t n, double *lo, double *hi)
{
    *lo = *hi = 0.0;
    size_t m = 0;
    for (size_t i = 0; i < n; ++i)
        m += in[i] > 0.0f && isfinite(in[i]);
    if (m == 0)
        return LSIM_OK;
    float *v = malloc(m * sizeof *v);
    if (!v)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory sorting %zu intensities", m);
    m = 0;
    for (size_t i = 0; i < n; ++i)
        if (in[i] > 0.0f && isfinite(in[i]))
            v[m++] = in[i];
    qsort(v, m, sizeof *v, compare_float);
    *lo = log((double)v[(size_t)(0.02 * (double)(m - 1) + 0.5)]);
    *hi = log((double)v[(size_t)(0.98 * (double)(m - 1) + 0.5)]);
    free(v);
    return LSIM_OK;
}

lsim_status lsim_view_frame_arrays(lsim_context *ctx, const lsim_points *frame, const double origin[3],
                                   long max_beams, int by_label, lsim_view_buffer *beams,
                                   lsim_view_buffer *points)
{
    beams->count = points->count = 0;
    size_t n = lsim_points_count(frame);
    const float *x = lsim_points_column(frame, LSIM_FIELD_X), *y = lsim_points_column(frame, LSIM_FIELD_Y);
    const float *z = lsim_points_column(frame, LSIM_FIELD_Z);
    const float *in = lsim_points_column(frame, LSIM_FIELD_INTENSITY);
    const uint32_t *label = lsim_points_column(frame, LSIM_FIELD_LABEL);
    if (n == 0)
        return LSIM_OK;
    if (!x || !y || !z || !in || !label)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "the frame lacks x, y, z, intensity or label (scan with those fields)");
    double lo, hi;
    lsim_status st = intensity_range(ctx, in, n, &lo, &hi);
    size_t step = max_beams <= 0 ? 0 : (n + (size_t)max_beams - 1) / (size_t)max_beams;
    if (st == LSIM_OK)
        st = reserve(ctx, points, n, "points");
    if (st == LSIM_OK && step)
        st = reserve(ctx, beams, 2 * ((n + step - 1) / step), "beams");
    if (st != LSIM_OK)
        return st;
    lsim_vec3 o = lsim_v3(origin[0], origin[1], origin[2]), none = lsim_v3(0, 0, 0);
    for (size_t i = 0; i < n; ++i) {
        if (!isfinite(x[i]) || !isfinite(y[i]) || !isfinite(z[i]))
            continue;
        float ci[3], cp[3];
        lsim_view_intensity_colour(in[i], lo, hi, ci);
        if (by_label)
            lsim_view_label_colour(label[i], cp);
        else
            memcpy(cp, ci, sizeof cp);
        lsim_vec3 p = lsim_v3(x[i], y[i], z[i]);
        put(points, p, cp, none);
        if (step && i % step == 0) {
            put(beams, o, ci, none);
            put(beams, p, ci, none);
        }
    }
    return LSIM_OK;
}

lsim_status lsim_view_sensor_axes(lsim_context *ctx, const double position[3], const double rpy_deg[3],
                                  double length, lsim_view_buffer *lines)
{
    lines->count = 0;
    lsim_status st = reserve(ctx, lines, 6, "sensor axes");
    if (st != LSIM_OK)
        return st;
    lsim_pose pose = lsim_pose_make(position, rpy_deg);
    static const float colours[3][3] = {{1, 0.15f, 0.15f}, {0.2f, 1, 0.2f}, {0.3f, 0.5f, 1}};
    for (int k = 0; k < 3; ++k) {
        lsim_vec3 axis = lsim_mat3_mul(&pose.r, lsim_v3(k == 0, k == 1, k == 2));
        put(lines, pose.t, colours[k], lsim_v3(0, 0, 0));
        put(lines, lsim_v3_add(pose.t, lsim_v3_scale(axis, length)), colours[k], lsim_v3(0, 0, 0));
    }
    return LSIM_OK;
}
