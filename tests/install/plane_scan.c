/* An installed lidarsim's smoke test (tests/test_install.py builds it with pkg-config and with
 * find_package): a wall whose face is 10 m ahead, 21 beams across it, noise off; every range must
 * be 10 / cos(azimuth). Only include/lidarsim.h. Prints "ok N" and exits 0, or names the fault. */
#include <lidarsim.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#define FAIL(...) do { fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); return 1; } while (0)

int main(void)
{
    char header_version[32];
    snprintf(header_version, sizeof header_version, "%d.%d.%d", LSIM_VERSION_MAJOR, LSIM_VERSION_MINOR,
             LSIM_VERSION_PATCH);
    if (strcmp(header_version, lsim_version_string()) != 0)
        FAIL("header version %s, library %s", header_version, lsim_version_string());

    lsim_context *ctx;
    lsim_scene *scene;
    lsim_sensor *sensor;
    lsim_points *pts;
    if (lsim_context_create(&ctx) != LSIM_OK)
        FAIL("lsim_context_create failed");
    if (lsim_scene_create(ctx, &scene) != LSIM_OK)
        FAIL("lsim_scene_create: %s", lsim_context_last_error(ctx));
    lsim_object_desc desc;
    lsim_object_desc_init(&desc);
    desc.position[0] = 10.5; /* a 1 m thick wall: its face at x = 10 */
    const double size[3] = {1.0, 40.0, 40.0};
    if (lsim_scene_add_box(scene, size, &desc) != LSIM_OK || lsim_scene_commit(scene) != LSIM_OK)
        FAIL("scene: %s", lsim_context_last_error(ctx));

    enum { N = 21 };
    double az[N], el[N];
    for (int i = 0; i < N; ++i) {
        az[i] = -30.0 + 3.0 * i;
        el[i] = 0.0;
    }
    if (lsim_sensor_create_pattern(ctx, N, az, el, NULL, NULL, &sensor) != LSIM_OK ||
        lsim_sensor_set_range(sensor, 0.1, 100.0) != LSIM_OK)
        FAIL("sensor: %s", lsim_context_last_error(ctx));

    lsim_scan_options opt;
    lsim_scan_options_init(&opt);
    opt.noise = 0;
    opt.threads = 1;
    if (lsim_scene_scan(scene, sensor, &opt, &pts) != LSIM_OK)
        FAIL("scan: %s", lsim_context_last_error(ctx));
    size_t n = lsim_points_count(pts);
    const float *range = lsim_points_column(pts, LSIM_FIELD_RANGE);
    const float *azimuth = lsim_points_column(pts, LSIM_FIELD_AZIMUTH);
    if (n != N || !range || !azimuth)
        FAIL("%zu points (expected %d)", n, N);
    for (size_t i = 0; i < n; ++i) {
        double a = azimuth[i] * 3.14159265358979323846 / 180.0; /* degrees */
        double expect = 10.0 / cos(a);
        if (fabs(range[i] - expect) > 1e-3)
            FAIL("point %zu: range %.6f m, expected %.6f m", i, range[i], expect);
    }
    printf("ok %zu\n", n);
    lsim_points_destroy(pts);
    lsim_sensor_destroy(sensor);
    lsim_scene_destroy(scene);
    lsim_context_destroy(ctx);
    return 0;
}
