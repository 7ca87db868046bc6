/* Named objects re-placed between frames (lsim_scene_set_object_pose): a board 3 m ahead of a
 * URG-04LX moved to 2 m and turned, scanned again without a rebuild; the range to its centre and
 * its normal follow the new pose exactly (noise off), with the brute-force engine as well; the
 * reference pose leaves every point where it was; the pose reads back; bad names, moving objects
 * and non-finite poses are clear errors. */
#include "harness.h"
#include "test_scenes.h"
#include "lidarsim.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define DEG (3.14159265358979323846 / 180.0)

/* Range, normal and azimuth of the sensor's middle beam (nearly straight ahead). */
static double azimuth_deg;

static void centre(lsim_context *ctx, lsim_scene *scene, lsim_sensor *s, float *range, float *nx, float *ny)
{
    lsim_scan_options opt;
    lsim_scan_options_init(&opt);
    opt.noise = 0;
    opt.keep_misses = 1;
    opt.frame = LSIM_FRAME_WORLD;
    lsim_points *p;
    REQUIRE_OK(ctx, lsim_scene_scan(scene, s, &opt, &p));
    const size_t mid = lsim_points_count(p) / 2;
    *range = ((const float *)lsim_points_column(p, LSIM_FIELD_RANGE))[mid];
    *nx = ((const float *)lsim_points_column(p, LSIM_FIELD_NX))[mid];
    *ny = ((const float *)lsim_points_column(p, LSIM_FIELD_NY))[mid];
    azimuth_deg = ((const float *)lsim_points_column(p, LSIM_FIELD_AZIMUTH))[mid];
    lsim_points_destroy(p);
}

/* 1 if two PCD files have the same header (up to and with its DATA line). */
static int same_header(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb;
    char la[512], lb[512];
    while (same && fgets(la, sizeof la, fa) && fgets(lb, sizeof lb, fb)) {
        same = strcmp(la, lb) == 0;
        if (strncmp(la, "DATA", 4) == 0)
            break;
    }
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same;
}

static void run(lsim_context *ctx, lsim_engine_kind engine)
{
    lsim_scene *scene = test_scene_new(ctx, NULL, 0.0);
    REQUIRE_OK(ctx, lsim_scene_set_engine(scene, engine));
    lsim_object_desc desc = test_object(NULL, NULL, 3.0, 0.0, 0.0);
    desc.name = "board";
    desc.rotation_deg[1] = 90.0; /* the plane's normal along x */
    const double size[2] = {1.0, 1.0};
    REQUIRE_OK(ctx, lsim_scene_add_plane(scene, size, &desc));
    desc = test_object(NULL, NULL, -5.0, 0.0, 0.0); /* something else, unnamed */
    REQUIRE_OK(ctx, lsim_scene_add_plane(scene, size, &desc));
    lsim_sensor *s;
    REQUIRE_OK(ctx, lsim_sensor_create_preset(ctx, "urg-04lx", &s));
    /* one ray, so the range is the plane's exactly (the preset's three rays mix 3 / cos of each,
     * about 4e-5 m farther) */
    REQUIRE_OK(ctx, lsim_sensor_set_beam(s, 13.0, LSIM_BEAM_SINGLE, 1));
    float r0, nx0, ny0, r1, nx1, ny1, r2, nx2, ny2;
    centre(ctx, scene, s, &r0, &nx0, &ny0);
    CHECK_NEAR(r0, 3.0 / cos(azimuth_deg * DEG), 1e-5);
    double pos[3], rpy[3];
    REQUIRE_OK(ctx, lsim_scene_get_object_pose(scene, "board", pos, rpy));
    CHECK(pos[0] == 3.0 && rpy[1] == 90.0 && rpy[2] == 0.0);
    /* the reference pose: nothing moves, and the frame is no more "timed" than before (the same
     * file header: no frame-start pose; the points differ in the last float bits, the instance's
     * transform being float) */
    const char *before = "test_object_pose_before.pcd", *after = "test_object_pose_after.pcd";
    lsim_scan_options wopt;
    lsim_scan_options_init(&wopt);
    wopt.noise = 0;
    REQUIRE_OK(ctx, lsim_scene_scan_write(scene, s, &wopt, before, LSIM_FORMAT_PCD, NULL));
    REQUIRE_OK(ctx, lsim_scene_set_object_pose(scene, "board", pos, rpy));
    centre(ctx, scene, s, &r1, &nx1, &ny1);
    CHECK_NEAR(r1, r0, 1e-5);
    REQUIRE_OK(ctx, lsim_scene_scan_write(scene, s, &wopt, after, LSIM_FORMAT_PCD, NULL));
    CHECK(same_header(before, after));
    /* 2 m ahead, turned 30 deg about z: the normal turns with it */
    const double p2[3] = {2.0, 0.0, 0.0}, a2[3] = {0.0, 90.0, 30.0};
    REQUIRE_OK(ctx, lsim_scene_set_object_pose(scene, "board", p2, a2));
    centre(ctx, scene, s, &r2, &nx2, &ny2);
    CHECK_NEAR(r2, 2.0 * cos(30 * DEG) / cos((30 - azimuth_deg) * DEG), 1e-5); /* the plane x cos30 + y sin30 = 2 cos30 */
    CHECK_NEAR(fabs(nx2), cos(30 * DEG), 1e-4);
    CHECK_NEAR(fabs(ny2), sin(30 * DEG), 1e-4);
    REQUIRE_OK(ctx, lsim_scene_get_object_pose(scene, "board", pos, rpy));
    CHECK(pos[0] == 2.0 && rpy[2] == 30.0);
    /* bad use */
    CHECK(lsim_scene_set_object_pose(scene, "door", p2, a2) == LSIM_ERR_NOT_FOUND);
    CHECK(strstr(lsim_context_last_error(ctx), "named objects: board") != NULL);
    const double bad[3] = {NAN, 0, 0};
    CHECK(lsim_scene_set_object_pose(scene, "board", bad, a2) == LSIM_ERR_INVALID_ARGUMENT);
    lsim_object_desc_init(&desc);
    desc.name = "cart";
    desc.velocity[0] = 1.0;
    REQUIRE_OK(ctx, lsim_scene_add_plane(scene, size, &desc));
    CHECK(lsim_scene_set_object_pose(scene, "cart", p2, a2) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "moves") != NULL);
    lsim_sensor_destroy(s);
    lsim_scene_destroy(scene);
}

int main(void)
{
    lsim_context *ctx;
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    run(ctx, LSIM_ENGINE_EMBREE);
    run(ctx, LSIM_ENGINE_BRUTE);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_object_pose");
}
