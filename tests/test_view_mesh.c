/* The viewer's vertex arrays and camera (src/view/view_mesh.c, view_camera.c; no window, no
 * OpenGL): a box is 12 flat-shaded triangles with outward unit normals in its label's colour, a
 * sphere 528 tessellated triangles on its surface, every k-th beam is drawn under --beams, the
 * colour maps, and the camera's matrix against a hand-computed projection. */
#include "harness.h"
#include "view/view_camera.h"
#include "view/view_mesh.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void test_scene(lsim_context *ctx)
{
    lsim_scene *scene;
    REQUIRE_OK(ctx, lsim_scene_create(ctx, &scene));
    lsim_object_desc d;
    lsim_object_desc_init(&d);
    d.position[0] = 8, d.position[2] = 1.5;
    d.label = "traffic-sign";
    const double size[3] = {0.2, 6, 3};
    REQUIRE_OK(ctx, lsim_scene_add_box(scene, size, &d));
    lsim_object_desc_init(&d);
    d.position[0] = 3, d.position[1] = -4, d.position[2] = 0.6;
    d.label = "car";
    REQUIRE_OK(ctx, lsim_scene_add_sphere(scene, 0.6, &d));
    lsim_view_buffer b = {0};
    REQUIRE_OK(ctx, lsim_view_scene_triangles(ctx, scene, 0, &b));
    /* box: 12 triangles; sphere: 24 slices x (2 x 12 stacks - 2 pole rows) = 528 */
    CHECK(b.count == 3 * (12 + 528));
    int outward = 1, unit = 1, red = 1, on_sphere = 1, blue = 1;
    for (size_t i = 0; i < 36; i += 3) {
        const lsim_view_vertex *v = &b.v[i];
        double c[3] = {(v[0].p[0] + v[1].p[0] + v[2].p[0]) / 3 - 8, (v[0].p[1] + v[1].p[1] + v[2].p[1]) / 3,
                       (v[0].p[2] + v[1].p[2] + v[2].p[2]) / 3 - 1.5};
        double n2 = v->n[0] * v->n[0] + v->n[1] * v->n[1] + v->n[2] * v->n[2];
        unit &= fabs(n2 - 1) < 1e-6;
        outward &= c[0] * v->n[0] + c[1] * v->n[1] + c[2] * v->n[2] > 0;
        red &= v->c[0] == 1.0f && v->c[1] == 0.0f && v->c[2] == 0.0f;
    }
    for (size_t i = 36; i < b.count; ++i) {
        double dx = b.v[i].p[0] - 3, dy = b.v[i].p[1] + 4, dz = b.v[i].p[2] - 0.6;
        on_sphere &= fabs(sqrt(dx * dx + dy * dy + dz * dz) - 0.6) < 1e-5;
        blue &= fabsf(b.v[i].c[2] - 245 / 255.0f) < 1e-6f && fabsf(b.v[i].c[0] - 100 / 255.0f) < 1e-6f;
    }
    CHECK(unit);
    CHECK(outward);
    CHECK(red);
    CHECK(on_sphere);
    CHECK(blue);
    /* by material: both objects have the default material, grey 0.6 */
    b.count = 0;
    REQUIRE_OK(ctx, lsim_view_scene_triangles(ctx, scene, 1, &b));
    CHECK(b.count == 3 * 540 && b.v[0].c[0] == 0.6f && b.v[0].c[1] == 0.6f && b.v[100].c[2] == 0.6f);

    /* a frame: VLP-16 at (0, 0, 1) before the wall */
    lsim_sensor *sensor;
    REQUIRE_OK(ctx, lsim_sensor_create_preset(ctx, "vlp16", &sensor));
    const double pos[3] = {0, 0, 1}, rpy[3] = {0, 0, 0};
    REQUIRE_OK(ctx, lsim_sensor_set_pose(sensor, pos, rpy));
    lsim_scan_options opt;
    lsim_scan_options_init(&opt);
    opt.frame = LSIM_FRAME_WORLD;
    lsim_points *pts;
    REQUIRE_OK(ctx, lsim_points_create(ctx, &pts));
    REQUIRE_OK(ctx, lsim_scene_scan_into(scene, sensor, &opt, pts));
    size_t n = lsim_points_count(pts);
    lsim_view_buffer beams = {0}, points = {0};
    REQUIRE_OK(ctx, lsim_view_frame_arrays(ctx, pts, pos, 100, 0, &beams, &points));
    size_t k = (n + 99) / 100;
    printf("frame: %zu points, every %zu-th beam drawn: %zu lines\n", n, k, beams.count / 2);
    CHECK(n > 1000);
    CHECK(points.count == n);
    CHECK(beams.count == 2 * ((n + k - 1) / k) && beams.count / 2 <= 100);
    const float *x = lsim_points_column(pts, LSIM_FIELD_X);
    CHECK(beams.v[0].p[0] == 0.0f && beams.v[0].p[2] == 1.0f && beams.v[1].p[0] == x[0]);
    CHECK(memcmp(beams.v[0].c, beams.v[1].c, sizeof beams.v[0].c) == 0); /* a line has its point's colour */
    REQUIRE_OK(ctx, lsim_view_frame_arrays(ctx, pts, pos, 0, 1, &beams, &points));
    CHECK(beams.count == 0 && points.count == n);
    lsim_view_buffer_free(&beams);
    lsim_view_buffer_free(&points);
    lsim_view_buffer_free(&b);
    lsim_points_destroy(pts);
    lsim_sensor_destroy(sensor);
    lsim_scene_destroy(scene);
}

static void test_colours(void)
{
    float c[3];
    lsim_view_intensity_colour(0.0f, 0, 1, c); /* dark end of viridis: 68, 1, 84 */
    CHECK(fabsf(c[0] - 68 / 255.0f) < 1e-6f && fabsf(c[1] - 1 / 255.0f) < 1e-6f && fabsf(c[2] - 84 / 255.0f) < 1e-6f);
    lsim_view_intensity_colour((float)exp(1.0), 0, 1, c); /* bright end: 253, 231, 37 */
    CHECK(fabsf(c[0] - 253 / 255.0f) < 1e-6f && fabsf(c[1] - 231 / 255.0f) < 1e-6f);
    lsim_view_label_colour(40, c); /* road: magenta */
    CHECK(c[0] == 1.0f && c[1] == 0.0f && c[2] == 1.0f);
    /* sidewalk: the pictures' lightened purple (142, 94, 142), not SemanticKITTI's (75, 0, 75), which
     * the grey background hid; moving-car as car */
    lsim_view_label_colour(48, c);
    CHECK(fabsf(c[0] - 142 / 255.0f) < 1e-6f && fabsf(c[1] - 94 / 255.0f) < 1e-6f &&
          fabsf(c[2] - 142 / 255.0f) < 1e-6f);
    lsim_view_label_colour(252, c);
    CHECK(fabsf(c[0] - 100 / 255.0f) < 1e-6f && fabsf(c[1] - 150 / 255.0f) < 1e-6f &&
          fabsf(c[2] - 245 / 255.0f) < 1e-6f);
    float d[3];
    lsim_view_label_colour(1234, c);
    lsim_view_label_colour(1234, d);
    CHECK(memcmp(c, d, sizeof c) == 0 && c[0] + c[1] + c[2] > 0.5f);
}

static void test_camera(void)
{
    lsim_view_camera cam;
    memset(&cam, 0, sizeof cam);
    const double eye[3] = {-16, -20, 14}, target[3] = {5, 0, 1};
    lsim_view_camera_look(&cam, eye, target);
    double e[3];
    lsim_view_camera_eye(&cam, e);
    CHECK_NEAR(e[0], -16, 1e-9);
    CHECK_NEAR(e[1], -20, 1e-9);
    CHECK_NEAR(e[2], 14, 1e-9);
    float m[16];
    lsim_view_camera_matrix(&cam, 640.0 / 480.0, m);
    /* the target projects to the centre; (0, 0, 1) to pixel (269.7, 261.6) of 640 x 480, as
     * tests/test_cli_view.py computes it */
    const double pts[2][3] = {{5, 0, 1}, {0, 0, 1}}, want[2][2] = {{320, 240}, {269.7, 261.6}};
    for (int i = 0; i < 2; ++i) {
        double clip[4];
        for (int r = 0; r < 4; ++r)
            clip[r] = m[r] * pts[i][0] + m[4 + r] * pts[i][1] + m[8 + r] * pts[i][2] + m[12 + r];
        double col = (clip[0] / clip[3] + 1) / 2 * 640, row = (1 - clip[1] / clip[3]) / 2 * 480;
        CHECK_NEAR(col, want[i][0], 0.06);
        CHECK_NEAR(row, want[i][1], 0.06);
        CHECK(clip[2] / clip[3] > -1 && clip[2] / clip[3] < 1);
    }
    double d0 = cam.distance;
    lsim_view_camera_zoom(&cam, 1);
    CHECK_NEAR(cam.distance, 0.9 * d0, 1e-9);
    lsim_view_camera_orbit(&cam, 0, 1e6); /* pitch stays below 89 degrees */
    CHECK(cam.pitch <= 89.0 * 3.14159265358979 / 180 + 1e-12);
}

int main(void)
{
    lsim_context *ctx;
    if (lsim_context_create(&ctx) != LSIM_OK)
        return 1;
    test_scene(ctx);
    test_colours();
    test_camera();
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_view_mesh");
}
