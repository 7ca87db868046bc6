/* The offscreen OpenGL rasterizer (src/geometry/raster_gl.h) against analytic ranges: a closed
 * box room seen from an off-centre point through the 6 faces of a cube, every pixel's range,
 * object id and normal checked; a posed second box (object id 2, occlusion, pose); the 16-bit
 * depth option; the depth-precision ablation (range from the depth buffer, 32 vs 16 bits, on
 * walls at 5..50 m: the raster paper's Fig. 5 artefact); and the time of one 1024x1024 view with readback. EGL must be there (make test
 * installs Mesa): without it this test fails with the rasterizer's message.
 *
 * With --expect-no-egl (ctest test_raster_gl_no_egl runs it with glvnd pointed at no EGL vendor)
 * it checks the other side: creating the rasterizer fails with LSIM_ERR_ENGINE and a message
 * that names the EGL error and what to install. */
#include "geometry/raster_gl.h"
#include "harness.h"
#include "test_scenes.h"

#include "lidarsim.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const double room_lo[3] = {-3.0, -2.5, 0.0}, room_hi[3] = {5.0, 3.5, 3.0}; /* box 8 x 6 x 3 at (1, 0.5, 1.5) */
static const double eye[3] = {2.3, -0.7, 1.1};

/* Cube face k: camera looks along forward, with up; rotation columns x = right, y = up, z = -forward. */
static void cube_face(int k, double rot[9])
{
    static const double fwd[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    static const double up[6][3] = {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {1, 0, 0}, {1, 0, 0}};
    const double *f = fwd[k], *u = up[k];
    double x[3] = {f[1] * u[2] - f[2] * u[1], f[2] * u[0] - f[0] * u[2], f[0] * u[1] - f[1] * u[0]}; /* f x u */
    for (int r = 0; r < 3; ++r) {
        rot[3 * r + 0] = x[r];
        rot[3 * r + 1] = u[r];
        rot[3 * r + 2] = -f[r];
    }
}

/* World direction (unit) of pixel (i, j)'s centre. */
static void pixel_ray(const lsim_raster_view *v, uint32_t i, uint32_t j, double d[3])
{
    double c[3] = {v->left + (i + 0.5) * (v->right - v->left) / v->width,
                   v->bottom + (j + 0.5) * (v->top - v->bottom) / v->height, -1.0};
    double len = 0.0;
    for (int r = 0; r < 3; ++r) {
        d[r] = v->rotation[3 * r] * c[0] + v->rotation[3 * r + 1] * c[1] + v->rotation[3 * r + 2] * c[2];
        len += d[r] * d[r];
    }
    for (int r = 0; r < 3; ++r)
        d[r] /= sqrt(len);
}

/* Distance from inside the room to its wall along d; the wall's outward normal axis and sign,
 * and the second-nearest wall's distance (to excuse edge pixels). */
static double room_hit(const double d[3], int *axis, double *sign, double *second)
{
    double best = INFINITY, next = INFINITY;
    for (int a = 0; a < 3; ++a) {
        if (d[a] == 0.0)
            continue;
        double t = ((d[a] > 0 ? room_hi[a] : room_lo[a]) - eye[a]) / d[a];
        if (t < best) {
            next = best;
            best = t;
            *axis = a;
            *sign = d[a] > 0 ? 1.0 : -1.0;
        } else if (t < next) {
            next = t;
        }
    }
    *second = next;
    return best;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int expect_no_egl(void)
{
    lsim_context *ctx = NULL;
    REQUIRE_OK(ctx, lsim_context_create(&ctx));
    lsim_raster_gl *gl = NULL;
    lsim_status st = lsim_raster_gl_create(ctx, &gl);
    const char *msg = lsim_context_last_error(ctx);
    printf("without EGL: %s\n", msg);
    CHECK(st == LSIM_ERR_ENGINE);
    CHECK(gl == NULL);
    CHECK(strstr(msg, "EGL_") != NULL);
    CHECK(strstr(msg, "apt-get install libegl1 libegl-mesa0 libgl1-mesa-dri") != NULL);
    lsim_raster_gl_destroy(gl);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_raster_gl --expect-no-egl");
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--expect-no-egl") == 0)
        return expect_no_egl();
    lsim_context *ctx = NULL;
    REQUIRE_OK(ctx, lsim_context_create(&ctx));
    lsim_scene *scene = test_scene_new(ctx, NULL, 0.0);
    /* the room: a box from room_lo to room_hi */
    const lsim_object_desc room_desc = test_object(NULL, NULL, 0.5 * (room_hi[0] + room_lo[0]),
                                                   0.5 * (room_hi[1] + room_lo[1]), 0.5 * (room_hi[2] + room_lo[2]));
    const double room[3] = {room_hi[0] - room_lo[0], room_hi[1] - room_lo[1], room_hi[2] - room_lo[2]};
    REQUIRE_OK(ctx, lsim_scene_add_box(scene, room, &room_desc));
    lsim_object_desc desc;
    /* a named small box, re-placed below through the rasterizer's pose */
    lsim_object_desc_init(&desc);
    const double cube[3] = {0.4, 0.4, 0.4};
    desc.name = "crate";
    REQUIRE_OK(ctx, lsim_scene_add_box(scene, cube, &desc));
    REQUIRE_OK(ctx, lsim_scene_commit(scene));

    lsim_raster_gl *gl = NULL;
    lsim_status st = lsim_raster_gl_create(ctx, &gl);
    if (st != LSIM_OK) {
        fprintf(stderr, "test_raster_gl: FAILED: no OpenGL rasterizer: %s\n", lsim_context_last_error(ctx));
        lsim_scene_destroy(scene);
        lsim_context_destroy(ctx);
        return 1;
    }
    printf("rasterizer: %s\n", lsim_raster_gl_describe(gl));
    REQUIRE_OK(ctx, lsim_raster_gl_set_scene(gl, scene));
    /* the crate (object 1, built at the origin) goes 1.5 m behind the eye along -x, turned 30 degrees about z */
    const double c30 = sqrt(3.0) / 2.0, s30 = 0.5;
    const double crate_at[3] = {eye[0] - 1.5, eye[1], eye[2]};
    const double pose[12] = {c30, -s30, 0, crate_at[0], s30, c30, 0, crate_at[1], 0, 0, 1, crate_at[2]};
    REQUIRE_OK(ctx, lsim_raster_gl_set_object_pose(gl, 1, pose));
    CHECK(lsim_raster_gl_set_object_pose(gl, 7, pose) == LSIM_ERR_INVALID_ARGUMENT);

    enum { W = 256, H = 256 };
    float *range = malloc(sizeof(float) * W * H), *normal = malloc(sizeof(float) * 3 * W * H);
    uint32_t *object = malloc(sizeof(uint32_t) * W * H), *prim = malloc(sizeof(uint32_t) * W * H);
    if (!range || !normal || !object || !prim)
        return 1;
    lsim_raster_image img = {range, normal, object, prim, NULL};
    double worst_rel = 0.0, worst_rel16 = 0.0;
    long wall_pixels = 0, crate_pixels = 0, bad_range = 0, bad_object = 0, bad_normal = 0, edge_excused = 0;
    for (int depth = 32; depth >= 16; depth -= 16) {
        for (int k = 0; k < 6; ++k) {
            lsim_raster_view v = {{eye[0], eye[1], eye[2]}, {0}, -1, 1, -1, 1, W, H, 0.05, 50.0, depth};
            cube_face(k, v.rotation);
            REQUIRE_OK(ctx, lsim_raster_gl_render_view(gl, &v, &img));
            for (uint32_t j = 0; j < H; ++j)
                for (uint32_t i = 0; i < W; ++i) {
                    size_t p = (size_t)j * W + i;
                    double d[3], sign = 0.0, second = 0.0;
                    int axis = 0;
                    pixel_ray(&v, i, j, d);
                    double t = room_hit(d, &axis, &sign, &second);
                    if (object[p] == 2) { /* the crate: only in the -x face, nearer than the wall */
                        if (depth == 32) {
                            ++crate_pixels;
                            CHECK(k == 1);
                            CHECK(range[p] < t && range[p] > 1.0 && range[p] < 2.0);
                        }
                        continue;
                    }
                    double rel = fabs(range[p] - t) / t;
                    if (depth == 16) {
                        worst_rel16 = rel > worst_rel16 ? rel : worst_rel16;
                        continue;
                    }
                    ++wall_pixels;
                    worst_rel = rel > worst_rel ? rel : worst_rel;
                    bad_range += !(rel <= 1e-3);
                    bad_object += object[p] != 1;
                    double nd = normal[3 * p + (size_t)axis] * sign;
                    if (!(nd > 0.9999)) {
                        if (second - t <= 1e-4 * t)
                            ++edge_excused; /* the pixel centre lies on the edge between two walls */
                        else
                            ++bad_normal;
                    }
                    CHECK(prim[p] < 12);
                }
        }
    }
    printf("walls: %ld pixels at 32-bit depth, worst relative range error %.3g; crate %ld pixels; "
           "%ld edge pixels with the other wall's normal; 16-bit depth worst relative error %.3g\n",
           wall_pixels, worst_rel, crate_pixels, edge_excused, worst_rel16);
    CHECK(wall_pixels + crate_pixels == 6L * W * H);
    CHECK(crate_pixels > 100);
    CHECK(bad_range == 0);
    CHECK(bad_object == 0);
    CHECK(bad_normal == 0);
    CHECK(edge_excused < 50);
    CHECK(worst_rel < 1e-5);

    /* the crate's visible face nearest the eye: its centre pixel sees the crate's +x side, turned by 30 degrees */
    {
        lsim_raster_view v = {{eye[0], eye[1], eye[2]}, {0}, -1, 1, -1, 1, W, H, 0.05, 50.0, 32};
        cube_face(1, v.rotation);
        REQUIRE_OK(ctx, lsim_raster_gl_render_view(gl, &v, &img));
        size_t p = (size_t)(H / 2) * W + W / 2;
        CHECK(object[p] == 2);
        /* the pixel centre's ray meets the crate's face with outward normal R (1,0,0) = (c30, s30, 0), whose
         * plane lies 0.2 m from the crate's centre (1.5 m from the eye along -x) */
        double d[3], n[3] = {c30, s30, 0.0};
        pixel_ray(&v, W / 2, H / 2, d);
        double expect = (n[0] * (crate_at[0] - eye[0]) + 0.2) / (n[0] * d[0] + n[1] * d[1] + n[2] * d[2]);
        CHECK(expect > 1.2 && expect < 1.3);
        CHECK_NEAR(range[p], expect, 1e-5 * expect);
        CHECK_NEAR(normal[3 * p], c30, 1e-4);
        CHECK_NEAR(normal[3 * p + 1], s30, 1e-4);
    }

    /* invalid views are refused with a message */
    {
        lsim_raster_view v = {{0, 0, 0}, {1, 0, 0, 0, 1, 0, 0, 0, 1}, 1, -1, -1, 1, W, H, 0.05, 50.0, 32};
        CHECK(lsim_raster_gl_render_view(gl, &v, &img) == LSIM_ERR_INVALID_ARGUMENT);
        v.left = -1;
        v.right = 1;
        v.near_m = 0.0;
        CHECK(lsim_raster_gl_render_view(gl, &v, &img) == LSIM_ERR_INVALID_ARGUMENT);
        v.near_m = 0.05;
        v.depth_bits = 24;
        CHECK(lsim_raster_gl_render_view(gl, &v, &img) == LSIM_ERR_INVALID_ARGUMENT);
    }

    /* one 1024 x 1024 view with readback of every target (the first render allocates the targets) */
    {
        enum { B = 1024 };
        lsim_raster_image big = {malloc(sizeof(float) * B * B), malloc(sizeof(float) * 3 * B * B),
                                 malloc(sizeof(uint32_t) * B * B), malloc(sizeof(uint32_t) * B * B), NULL};
        if (!big.range || !big.normal || !big.object || !big.primitive)
            return 1;
        lsim_raster_view v = {{eye[0], eye[1], eye[2]}, {0}, -1, 1, -1, 1, B, B, 0.05, 50.0, 32};
        cube_face(0, v.rotation);
        REQUIRE_OK(ctx, lsim_raster_gl_render_view(gl, &v, &big));
        double best = INFINITY;
        for (int rep = 0; rep < 5; ++rep) {
            double t0 = now();
            REQUIRE_OK(ctx, lsim_raster_gl_render_view(gl, &v, &big));
            double dt = now() - t0;
            best = dt < best ? dt : best;
        }
        lsim_raster_image range_only = {big.range, NULL, NULL, NULL, NULL};
        double t0 = now();
        REQUIRE_OK(ctx, lsim_raster_gl_render_view(gl, &v, &range_only));
        double range_dt = now() - t0;
        printf("1024x1024 view: %.2f ms render + readback of all targets (best of 5), %.2f ms range only\n",
               1e3 * best, 1e3 * range_dt);
        CHECK(big.object[(size_t)(B / 2) * B + B / 2] == 1);
        free(big.range);
        free(big.normal);
        free(big.object);
        free(big.primitive);
    }

    /* The raster paper's Fig. 5 ablation, depth precision: slanted walls at 5..50 m, near
     * 0.1 m, far 100 m. Range reconstructed from the depth buffer (depth_range: inverting the
     * projection) is within 1e-3 relative with 32-bit float depth; with 16-bit depth it steps by
     * about z^2 / near x 2^-16 (0.38 m at 50 m), many times the 32-bit error. The engine's range
     * (interpolated camera-space position) does not depend on the depth format. */
    {
        static const double wall_at[5] = {5.0, 10.0, 20.0, 35.0, 50.0};
        enum { WW = 500, WH = 200 };
        const double xl = -0.5, xr = 0.5, yb = -0.2, yt = 0.2;
        lsim_scene *walls = NULL;
        REQUIRE_OK(ctx, lsim_scene_create(ctx, &walls));
        /* wall k: the plane s X + Z = h_k (camera frame; slope s, about 27 degrees off facing the camera, so
         * each wall spans many depth steps) through (xc_k D_k, 0, -D_k), where xc_k is the centre of its
         * strip of tangents [xl + 0.2 k, xl + 0.2 (k + 1)] (it is drawn a little wider) */
        const double slope = 0.5;
        double h[5];
        for (int k = 0; k < 5; ++k) {
            const double D = wall_at[k], xa = xl + 0.2 * k - 0.01, xb = xl + 0.2 * (k + 1) + 0.01;
            h[k] = slope * (xl + 0.2 * k + 0.1) * D - D;
            const double x0 = fmin(xa * 0.8 * D, xa * 1.2 * D), x1 = fmax(xb * 0.8 * D, xb * 1.2 * D);
            const double z0 = h[k] - slope * x0, z1 = h[k] - slope * x1;
            const float vtx[12] = {(float)x0, (float)(-0.3 * D), (float)z0, (float)x1, (float)(-0.3 * D), (float)z1,
                                   (float)x1, (float)(0.3 * D),  (float)z1, (float)x0, (float)(0.3 * D),  (float)z0};
            const uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
            lsim_object_desc_init(&desc);
            REQUIRE_OK(ctx, lsim_scene_add_triangles(walls, vtx, 4, idx, 2, &desc));
        }
        REQUIRE_OK(ctx, lsim_scene_commit(walls));
        lsim_raster_gl *gl3 = NULL;
        REQUIRE_OK(ctx, lsim_raster_gl_create(ctx, &gl3));
        REQUIRE_OK(ctx, lsim_raster_gl_set_scene(gl3, walls));
        float *wr = malloc(sizeof(float) * WW * WH), *wd = malloc(sizeof(float) * WW * WH);
        uint32_t *wo = malloc(sizeof(uint32_t) * WW * WH);
        if (!wr || !wd || !wo)
            return 1;
        lsim_raster_image wimg = {wr, NULL, wo, NULL, wd};
        double worst_depth[2][5] = {{0}}, worst_range[2] = {0, 0}; /* [32-bit, 16-bit] */
        long seen[5] = {0};
        for (int b = 0; b < 2; ++b) {
            lsim_raster_view v = {{0, 0, 0}, {1, 0, 0, 0, 1, 0, 0, 0, 1}, xl, xr, yb, yt, WW, WH, 0.1, 100.0,
                                  b ? 16 : 32};
            REQUIRE_OK(ctx, lsim_raster_gl_render_view(gl3, &v, &wimg));
            for (uint32_t j = 0; j < WH; ++j)
                for (uint32_t i = 0; i < WW; ++i) {
                    const size_t p = (size_t)j * WW + i;
                    const double x = xl + (i + 0.5) * (xr - xl) / WW, y = yb + (j + 0.5) * (yt - yb) / WH;
                    CHECK(wo[p] >= 1 && wo[p] <= 5);
                    if (!(wo[p] >= 1 && wo[p] <= 5))
                        continue;
                    const int k = (int)wo[p] - 1;
                    const double want = h[k] / (slope * x - 1.0) * sqrt(1.0 + x * x + y * y); /* ray t (x, y, -1) */
                    const double ed = fabs(wd[p] - want) / want, er = fabs(wr[p] - want) / want;
                    worst_depth[b][k] = ed > worst_depth[b][k] ? ed : worst_depth[b][k];
                    worst_range[b] = er > worst_range[b] ? er : worst_range[b];
                    seen[k] += b == 0;
                }
        }
        double w32 = 0.0, w16 = 0.0;
        printf("depth ablation (near 0.1 m, far 100 m), worst relative range error from the depth buffer:\n");
        for (int k = 0; k < 5; ++k) {
            const double half_step = 0.5 * wall_at[k] * wall_at[k] * (100.0 - 0.1) / (100.0 * 0.1) / 65535.0;
            printf("  wall %4.0f m (%5ld px): 32-bit %.3g (%.3g mm), 16-bit %.3g (%.3g mm; half a 16-bit step %.3g mm)\n",
                   wall_at[k], seen[k], worst_depth[0][k], 1e3 * worst_depth[0][k] * wall_at[k], worst_depth[1][k],
                   1e3 * worst_depth[1][k] * wall_at[k], 1e3 * half_step);
            CHECK(seen[k] > 1000);
            w32 = worst_depth[0][k] > w32 ? worst_depth[0][k] : w32;
            w16 = worst_depth[1][k] > w16 ? worst_depth[1][k] : w16;
        }
        printf("  all walls: 32-bit %.3g, 16-bit %.3g (%.0fx); range from the camera-space position (the engine's): "
               "32-bit %.3g, 16-bit %.3g\n",
               w32, w16, w16 / w32, worst_range[0], worst_range[1]);
        CHECK(w32 < 1e-3);
        CHECK(w16 > 1e-3);
        CHECK(w16 > 10.0 * w32);
        CHECK(worst_depth[1][4] > 5.0 * worst_depth[1][0]); /* the 16-bit error grows with range */
        CHECK(worst_range[0] < 1e-5 && worst_range[1] < 1e-5); /* the engine's path: no depth artefact */
        free(wr);
        free(wd);
        free(wo);
        lsim_raster_gl_destroy(gl3);
        lsim_scene_destroy(walls);
    }

    /* a second handle alive beside the first, on a second scene with a moving box: set_time places it */
    {
        lsim_scene *moving = test_scene_new(ctx, NULL, 0.0);
        REQUIRE_OK(ctx, lsim_scene_add_box(moving, room, &room_desc));
        /* a 0.2 m box 1 m behind the eye's foot along -y at t = 0, moving +y at 0.5 m/s: under the eye at t = 2 */
        lsim_object_desc_init(&desc);
        const double small[3] = {0.2, 0.2, 0.2};
        desc.position[0] = eye[0];
        desc.position[1] = eye[1] - 1.0;
        desc.position[2] = 0.3;
        desc.velocity[1] = 0.5;
        REQUIRE_OK(ctx, lsim_scene_add_box(moving, small, &desc));
        REQUIRE_OK(ctx, lsim_scene_commit(moving));
        lsim_raster_gl *gl2 = NULL;
        REQUIRE_OK(ctx, lsim_raster_gl_create(ctx, &gl2));
        REQUIRE_OK(ctx, lsim_raster_gl_set_scene(gl2, moving));
        lsim_raster_view v = {{eye[0], eye[1], eye[2]}, {0}, -1, 1, -1, 1, W, H, 0.05, 50.0, 32};
        cube_face(5, v.rotation); /* looking down */
        /* a pixel next to the centre (W/2, H/2 is 0.5 pixel off the axis: the box covers it either way) */
        size_t p = (size_t)(H / 2) * W + W / 2;
        double d[3];
        pixel_ray(&v, W / 2, H / 2, d);
        REQUIRE_OK(ctx, lsim_raster_gl_render_view(gl2, &v, &img)); /* t = 0: the floor */
        CHECK(object[p] == 1);
        CHECK_NEAR(range[p], -eye[2] / d[2], 1e-5);
        REQUIRE_OK(ctx, lsim_raster_gl_set_time(gl2, 2.0)); /* the box's top (z = 0.4) under the eye */
        REQUIRE_OK(ctx, lsim_raster_gl_render_view(gl2, &v, &img));
        CHECK(object[p] == 2);
        CHECK_NEAR(range[p], (0.4 - eye[2]) / d[2], 1e-5);
        CHECK_NEAR(normal[3 * p + 2], 1.0, 1e-6);
        /* the first handle still renders its own scene (its context made current again) */
        REQUIRE_OK(ctx, lsim_raster_gl_render_view(gl, &v, &img));
        CHECK(object[p] == 1);
        CHECK_NEAR(range[p], -eye[2] / d[2], 1e-5);
        lsim_raster_gl_destroy(gl2);
        lsim_scene_destroy(moving);
    }

    free(range);
    free(normal);
    free(object);
    free(prim);
    lsim_raster_gl_destroy(gl);
    lsim_scene_destroy(scene);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_raster_gl");
}
