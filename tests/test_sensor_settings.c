/* The public sensor settings read back and the range resolution (lsim_sensor_get_range,
 * lsim_sensor_get_noise, lsim_sensor_set_range_resolution): every preset reads back as its spec,
 * bad resolutions are refused and leave the sensor as it was, and a noisy scan reports ranges in
 * whole steps of the resolution. */
#include "harness.h"
#include "test_scenes.h"

#include "lidarsim.h"
#include "sensor/sensor.h"

#include <math.h>
#include <string.h>

static void presets_read_back(lsim_context *ctx)
{
    for (const char *const *name = lsim_sensor_preset_names(); *name; ++name) {
        lsim_sensor_spec spec;
        lsim_sensor_spec_defaults(&spec);
        REQUIRE_OK(ctx, lsim_sensor_spec_from_preset(ctx, *name, &spec));
        lsim_sensor *s = NULL;
        REQUIRE_OK(ctx, lsim_sensor_create_preset(ctx, *name, &s));
        double lo = -1, hi = -1, res = -1, rs = -1, is = -1, dr = -1;
        CHECK(lsim_sensor_get_range(s, &lo, &hi, &res) == LSIM_OK);
        CHECK(lsim_sensor_get_noise(s, &rs, &is, &dr) == LSIM_OK);
        CHECK(lo == spec.range_min && hi == spec.range_max && res == spec.range_resolution);
        CHECK(rs == spec.range_sigma && is == spec.intensity_sigma && dr == spec.detection_reflectance);
        CHECK(lsim_sensor_get_range(s, NULL, NULL, NULL) == LSIM_OK); /* every output optional */
        CHECK(lsim_sensor_get_noise(s, NULL, NULL, NULL) == LSIM_OK);
        if (strcmp(*name, "rplidar-a1") == 0)
            CHECK(res == 0.001); /* planar presets report millimetres */
        lsim_sensor_destroy(s);
        lsim_sensor_spec_free(&spec);
    }
    double v = 0;
    CHECK(lsim_sensor_get_range(NULL, &v, &v, &v) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_sensor_get_noise(NULL, &v, &v, &v) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_sensor_set_range_resolution(NULL, 0.01) == LSIM_ERR_INVALID_ARGUMENT);
}

static void resolution_checked(lsim_context *ctx)
{
    lsim_sensor *s = NULL;
    REQUIRE_OK(ctx, lsim_sensor_create_planar(ctx, 360.0, 720, 10.0, &s));
    double res = -1;
    CHECK(lsim_sensor_get_range(s, NULL, NULL, &res) == LSIM_OK && res == 0.0); /* continuous */
    CHECK(lsim_sensor_set_range_resolution(s, 0.02) == LSIM_OK);
    const double bad[] = {-0.001, 1.5, NAN, INFINITY};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        CHECK(lsim_sensor_set_range_resolution(s, bad[i]) == LSIM_ERR_INVALID_ARGUMENT);
        CHECK(strstr(lsim_context_last_error(ctx), "range_resolution") != NULL);
    }
    CHECK(lsim_sensor_get_range(s, NULL, NULL, &res) == LSIM_OK && res == 0.02); /* unchanged */
    CHECK(lsim_sensor_set_range_resolution(s, 0.0) == LSIM_OK);
    CHECK(lsim_sensor_set_range_resolution(s, 1.0) == LSIM_OK);
    lsim_sensor_destroy(s);
}

/* Ranges of a noisy scan of a wall at 3.3 m are whole steps of the resolution. */
static void resolution_applied(lsim_context *ctx)
{
    lsim_scene *scene = test_scene_new(ctx, NULL, 0.0);
    test_scene_wall(ctx, scene, NULL, 3.3, 4.0, 4.0, 90.0, 0.0);
    double az[33], el[33];
    for (int i = 0; i < 33; ++i) {
        az[i] = -16.0 + i;
        el[i] = 0.0;
    }
    lsim_sensor *s = NULL;
    REQUIRE_OK(ctx, lsim_sensor_create_pattern(ctx, 33, az, el, NULL, NULL, &s));
    REQUIRE_OK(ctx, lsim_sensor_set_noise(s, 0.01, 0.0, 0.1));
    REQUIRE_OK(ctx, lsim_sensor_set_range_resolution(s, 0.05));
    lsim_scan_options opt;
    lsim_scan_options_init(&opt);
    lsim_points *p = NULL;
    REQUIRE_OK(ctx, lsim_scene_scan(scene, s, &opt, &p));
    const float *range = lsim_points_column(p, LSIM_FIELD_RANGE);
    size_t n = lsim_points_count(p), off_step = 0;
    CHECK(n == 33 && range != NULL);
    for (size_t i = 0; range && i < n; ++i)
        off_step += fabs(range[i] / 0.05 - round(range[i] / 0.05)) > 1e-3;
    CHECK(off_step == 0);
    lsim_points_destroy(p);
    lsim_sensor_destroy(s);
    lsim_scene_destroy(scene);
}

int main(void)
{
    lsim_context *ctx = NULL;
    if (lsim_context_create(&ctx) != LSIM_OK)
        return 1;
    presets_read_back(ctx);
    resolution_checked(ctx);
    resolution_applied(ctx);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_sensor_settings");
}
