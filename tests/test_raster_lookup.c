/* The raster engine's per-beam lookup on the GL device (a compute shader, src/geometry/
 * raster_gl_lookup.c) against its CPU lookup (raster_engine.c's raster_hit), beam by beam, on the
 * same views: two raster engines on one scene, one built with LIDARSIM_RASTER_LOOKUP=cpu (the
 * CPU fallback, forced) and one without (the compute shader).
 *
 * The shader does the CPU's double-precision operations in the same order, `precise` (no fused
 * multiply-adds, no reassociation), from the same float range texels, the same float vertices and
 * the same double poses, and rounds the hit to float as the CPU does; so the hits are expected
 * equal. Asserted: identical hit/miss, object and triangle on every beam; t, the geometric normal
 * and the barycentrics within 1e-5 relative (|a - b| <= 1e-5 max(|a|, |b|), normals against
 * their length, barycentrics against 1) -- room for a driver whose double sqrt or division is not
 * correctly rounded; the share of beams whose t, u, v and normal are bit-identical is printed.
 *
 * Cases: the street (examples/street: boxes, planes, meshes; spheres ray-cast alike) seen by
 * vlp16 (a cube), os1-64 (per-laser origin offsets: the second lookup from the view centre),
 * livox-mid40 (a sector) and kinect-v2 (a sector, from the side), each with and without the
 * normal correction; the motion example (a driving sensor, moving cars: a view per 1 ms group,
 * objects posed at each group's time); and the kernel mode's pitch hint (finer views). First the
 * lookup's error statuses (a compute shader that does not compile: the driver's log in the
 * message; no target, a mismatched view) and one ray looked up by hand. EGL must be there, as for
 * test_raster_gl. */
#include "harness.h"
#include "test_scenes.h"

#include "geometry/engine.h"
#include "geometry/raster_gl.h"
#include "optics/subrays.h"
#include "pipeline/frame.h"
#include "scene/scene.h"
#include "sensor/sensor.h"

#include "lidarsim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SLICE = 2048 };

typedef struct record {
    float *t, *u, *v, *nx, *ny, *nz;
    uint32_t *object, *primitive;
} record;

static void record_alloc(record *r, size_t n)
{
    float **f[6] = {&r->t, &r->u, &r->v, &r->nx, &r->ny, &r->nz};
    for (int k = 0; k < 6; ++k)
        if (!(*f[k] = malloc(n * sizeof(float))))
            abort();
    r->object = malloc(n * sizeof(uint32_t));
    r->primitive = malloc(n * sizeof(uint32_t));
    if (!r->object || !r->primitive)
        abort();
}

static void record_free(record *r)
{
    free(r->t), free(r->u), free(r->v), free(r->nx), free(r->ny), free(r->nz);
    free(r->object), free(r->primitive);
}

/* Every beam's centre ray through `engine` in primary slices (as the frame sends them). */
static void trace_all(const lsim_sensor *framed, const lsim_engine *engine, size_t n, double pitch, record *out)
{
    lsim_subrays sub;
    lsim_subrays_make(&sub, 0.0, 0, LSIM_SUBRAYS_RINGS);
    lsim_rays rays;
    lsim_hits hits;
    if (lsim_rays_alloc(&rays, SLICE) || lsim_hits_alloc(&hits, SLICE))
        abort();
    for (size_t lo = 0; lo < n; lo += SLICE) {
        size_t m = n - lo < SLICE ? n - lo : SLICE;
        lsim_rays_generate(framed, &sub, lo, m, (float)framed->spec.range_max, &rays);
        rays.primary = 1;
        rays.pitch = pitch;
        lsim_engine_intersect(engine, &rays, m, &hits);
        for (size_t i = 0; i < m; ++i) {
            out->t[lo + i] = hits.t[i];
            out->u[lo + i] = hits.u[i];
            out->v[lo + i] = hits.v[i];
            out->nx[lo + i] = hits.ngx[i];
            out->ny[lo + i] = hits.ngy[i];
            out->nz[lo + i] = hits.ngz[i];
            out->object[lo + i] = hits.object[i];
            out->primitive[lo + i] = hits.primitive[i];
        }
    }
    lsim_rays_free(&rays);
    lsim_hits_free(&hits);
}

static int near_rel(double a, double b, double scale)
{
    return fabs(a - b) <= 1e-5 * scale;
}

/* Beam-by-beam comparison of the CPU lookup (a) and the GL lookup (b). */
static void compare(const char *what, const record *a, const record *b, size_t n)
{
    size_t hits = 0, same_id = 0, exact = 0, close = 0;
    double worst_t = 0.0;
    for (size_t i = 0; i < n; ++i) {
        if (a->object[i] != b->object[i] || a->primitive[i] != b->primitive[i])
            continue;
        ++same_id;
        if (a->object[i] == LSIM_NO_HIT)
            continue;
        ++hits;
        const double la = sqrt((double)a->nx[i] * a->nx[i] + (double)a->ny[i] * a->ny[i] + (double)a->nz[i] * a->nz[i]);
        const double lb = sqrt((double)b->nx[i] * b->nx[i] + (double)b->ny[i] * b->ny[i] + (double)b->nz[i] * b->nz[i]);
        const double ln = la > lb ? la : lb, st = fmax(fabs(a->t[i]), fabs(b->t[i]));
        const int ok = near_rel(a->t[i], b->t[i], st) && near_rel(a->nx[i], b->nx[i], ln) &&
                       near_rel(a->ny[i], b->ny[i], ln) && near_rel(a->nz[i], b->nz[i], ln) &&
                       near_rel(a->u[i], b->u[i], 1.0) && near_rel(a->v[i], b->v[i], 1.0);
        close += ok;
        exact += a->t[i] == b->t[i] && a->u[i] == b->u[i] && a->v[i] == b->v[i] && a->nx[i] == b->nx[i] &&
                 a->ny[i] == b->ny[i] && a->nz[i] == b->nz[i];
        const double dt = st > 0.0 ? fabs(a->t[i] - b->t[i]) / st : 0.0;
        worst_t = dt > worst_t ? dt : worst_t;
    }
    printf("%-28s %6zu beams, %6zu hits: ids identical %zu/%zu, within 1e-5 %zu/%zu, bit-identical %zu/%zu, "
           "worst |dt|/t %.2g\n",
           what, n, hits, same_id, n, close, hits, exact, hits, worst_t);
    CHECK(same_id == n);
    CHECK(close == hits);
    CHECK(hits > n / 10);
}

/* Two raster engines on `scene`: the CPU lookup (forced) and the GL lookup. */
static void build_pair(lsim_context *ctx, lsim_scene *scene, lsim_engine **cpu, lsim_engine **on_gl)
{
    setenv("LIDARSIM_RASTER_LOOKUP", "cpu", 1);
    REQUIRE_OK(ctx, lsim_engine_build(scene, &lsim_engine_raster, cpu));
    unsetenv("LIDARSIM_RASTER_LOOKUP");
    REQUIRE_OK(ctx, lsim_engine_build(scene, &lsim_engine_raster, on_gl));
}

static void check_preset(lsim_context *ctx, lsim_scene *scene, const char *preset, const double pos[3],
                         int correction, double pitch)
{
    lsim_raster_options ro;
    lsim_raster_options_init(&ro);
    ro.normal_correction = correction;
    REQUIRE_OK(ctx, lsim_scene_set_raster_options(scene, &ro));
    lsim_engine *cpu = NULL, *on_gl = NULL;
    build_pair(ctx, scene, &cpu, &on_gl);
    REQUIRE_OK(ctx, lsim_engine_set_frame_time(cpu, ctx, 0.0, 0.1));
    REQUIRE_OK(ctx, lsim_engine_set_frame_time(on_gl, ctx, 0.0, 0.1));
    lsim_sensor *sensor = NULL;
    REQUIRE_OK(ctx, lsim_sensor_create_preset(ctx, preset, &sensor));
    const double rpy[3] = {0, 0, 0};
    REQUIRE_OK(ctx, lsim_sensor_set_pose(sensor, pos, rpy));
    lsim_sensor framed = *sensor;
    framed.frame_start = 0.0;
    framed.pose = lsim_sensor_pose_at(sensor, 0.0);
    framed.frame_moves = 0;
    framed.frame_of = sensor;
    const size_t n = lsim_sensor_beam_count(sensor);
    record a, b;
    record_alloc(&a, n);
    record_alloc(&b, n);
    trace_all(&framed, cpu, n, pitch, &a);
    trace_all(&framed, on_gl, n, pitch, &b);
    char what[96];
    snprintf(what, sizeof what, "%s%s%s", preset, correction ? "" : " (no correction)", pitch > 0.0 ? " (pitch)" : "");
    compare(what, &a, &b, n);
    record_free(&a);
    record_free(&b);
    lsim_sensor_destroy(sensor);
    lsim_engine_destroy(cpu);
    lsim_engine_destroy(on_gl);
}

static void check_motion(lsim_context *ctx, const char *example)
{
    lsim_sensor *sensor = NULL;
    lsim_scene *scene = test_example_scene(ctx, example, &sensor);
    lsim_engine *cpu = NULL, *on_gl = NULL;
    build_pair(ctx, scene, &cpu, &on_gl);
    const double start = 0.3;
    REQUIRE_OK(ctx, lsim_engine_set_frame_time(cpu, ctx, start, 0.1));
    REQUIRE_OK(ctx, lsim_engine_set_frame_time(on_gl, ctx, start, 0.1));
    lsim_sensor framed = *sensor;
    framed.frame_start = start;
    framed.pose = lsim_sensor_pose_at(sensor, start);
    framed.frame_moves = 1;
    framed.frame_of = sensor;
    const size_t n = lsim_sensor_beam_count(sensor);
    record a, b;
    record_alloc(&a, n);
    record_alloc(&b, n);
    trace_all(&framed, cpu, n, 0.0, &a);
    trace_all(&framed, on_gl, n, 0.0, &b);
    compare("motion (vlp16 driving)", &a, &b, n);
    record_free(&a);
    record_free(&b);
    lsim_engine_destroy(cpu);
    lsim_engine_destroy(on_gl);
    lsim_sensor_destroy(sensor);
    lsim_scene_destroy(scene);
}

/* The lookup's failures are statuses with a message. */
static void check_errors(lsim_context *ctx, lsim_scene *scene)
{
    lsim_raster_gl *gl = NULL;
    REQUIRE_OK(ctx, lsim_raster_gl_create(ctx, &gl));
    printf("%s: per-beam lookup %s\n", lsim_raster_gl_describe(gl),
           lsim_raster_gl_can_look_up(gl) ? "on the GL device (compute shader)" : "on the CPU (no compute shaders)");
    CHECK(lsim_raster_gl_can_look_up(gl)); /* llvmpipe and any OpenGL 4.3 driver */
    REQUIRE_OK(ctx, lsim_raster_gl_set_scene(gl, scene));
    /* a compute shader that does not compile: the status carries the driver's log */
    CHECK(lsim_raster_gl_try_compute(gl, "#version 430 core\nlayout(local_size_x = 1) in;\n"
                                         "void main() { no_such_name = 1; }\n") == LSIM_ERR_ENGINE);
    CHECK(message_has(ctx, "shader does not compile", "no_such_name"));
    REQUIRE_OK(ctx, lsim_raster_gl_try_compute(gl, "#version 430 core\nlayout(local_size_x = 1) in;\nvoid main() {}\n"));
    lsim_raster_lookup_view v;
    memset(&v, 0, sizeof v);
    v.w = v.h = 16;
    v.faces = 6;
    lsim_raster_gl_target none;
    memset(&none, 0, sizeof none);
    const float ray[LSIM_RASTER_LOOKUP_RAY] = {0, 0, 1, 1, 0, 0, 0, 100};
    uint32_t hit[LSIM_RASTER_LOOKUP_HIT];
    CHECK(lsim_raster_gl_look_up(gl, &none, &v, ray, 1, hit) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(message_has(ctx, "a lookup in a 16x16x6 view", "0x0x0 target"));
    lsim_raster_gl_target tg;
    memset(&tg, 0, sizeof tg);
    REQUIRE_OK(ctx, lsim_raster_gl_target_make(gl, &tg, 8, 8, 6));
    CHECK(lsim_raster_gl_look_up(gl, &tg, &v, ray, 1, hit) == LSIM_ERR_INVALID_ARGUMENT);
    lsim_raster_view rv = {{0, 0, 1}, {1, 0, 0, 0, 1, 0, 0, 0, 1}, -1, 1, -1, 1, 16, 16, 0.01, 100, 32};
    CHECK(lsim_raster_gl_render_layer(gl, &rv, &tg, 0) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(message_has(ctx, "a 16x16 view into layer 0", "8x8x6 target"));
    /* a drawn target answers: straight down from 1 m onto the street's road */
    REQUIRE_OK(ctx, lsim_raster_gl_target_make(gl, &tg, 16, 16, 6));
    const double fwd[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    const double up[6][3] = {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {1, 0, 0}, {1, 0, 0}};
    v.c[2] = 1.0;
    v.x0 = v.y0 = -1.0;
    v.x1 = v.y1 = 1.0;
    v.normal_correction = 1;
    for (int k = 0; k < 6; ++k) {
        for (int r = 0; r < 3; ++r) {
            v.fwd[k][r] = fwd[k][r];
            v.up[k][r] = up[k][r];
        }
        v.right[k][0] = fwd[k][1] * up[k][2] - fwd[k][2] * up[k][1];
        v.right[k][1] = fwd[k][2] * up[k][0] - fwd[k][0] * up[k][2];
        v.right[k][2] = fwd[k][0] * up[k][1] - fwd[k][1] * up[k][0];
        for (int r = 0; r < 3; ++r) {
            rv.rotation[3 * r + 0] = v.right[k][r];
            rv.rotation[3 * r + 1] = v.up[k][r];
            rv.rotation[3 * r + 2] = -v.fwd[k][r];
        }
        REQUIRE_OK(ctx, lsim_raster_gl_render_layer(gl, &rv, &tg, (uint32_t)k));
    }
    const float down[LSIM_RASTER_LOOKUP_RAY] = {0, 0, 1, 0, 0, -1, 0, 100};
    REQUIRE_OK(ctx, lsim_raster_gl_look_up(gl, &tg, &v, down, 1, hit));
    float t;
    memcpy(&t, hit, sizeof t);
    printf("straight down from 1 m: object %u, t %.6f m\n", hit[6], t);
    CHECK(hit[6] != UINT32_MAX && hit[6] != LSIM_RASTER_LOOKUP_OUTSIDE && t > 0.5f && t < 1.5f);
    lsim_raster_gl_target_free(gl, &tg);
    lsim_raster_gl_destroy(gl);
}

int main(void)
{
    lsim_context *ctx = NULL;
    REQUIRE_OK(ctx, lsim_context_create(&ctx));
    lsim_scene *scene = test_example_scene(ctx, "examples/street/street.yaml", NULL);
    check_errors(ctx, scene);
    const char *presets[] = {"vlp16", "os1-64", "livox-mid40", "kinect-v2"};
    const double at[4][3] = {{0, 0, 1.8}, {0, 0, 1.8}, {0, 0, 1.8}, {-4, 0, 1.0}};
    for (size_t p = 0; p < sizeof presets / sizeof *presets; ++p)
        for (int correction = 1; correction >= 0; --correction)
            check_preset(ctx, scene, presets[p], at[p], correction, 0.0);
    check_preset(ctx, scene, "vlp16", at[0], 1, 0.05 * 3.14159265358979323846 / 180.0); /* a kernel image's pitch */
    lsim_scene_destroy(scene);
    check_motion(ctx, "examples/motion/motion.yaml");
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_raster_lookup");
}
