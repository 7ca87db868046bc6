/* The range equation: intensity = rho cos(theta) / R^2 for Lambertian surfaces. Ratios of two
 * reflectances, the inverse-square law, the cosine law, reflectivity = rho cos(theta), and the
 * detection threshold (rho_det at max range). Also an analytic sphere. Noise off. */
#include "harness.h"
#include "scan_fixture.h"
#include "test_scenes.h"

#include <string.h>

/* A planar scanner at the origin looking along +x (single beam at azimuth ~0). */
static lsim_sensor *one_beam(lsim_context *ctx, double max_range)
{
    double az = 0.0, el = 0.0;
    lsim_sensor *s;
    REQUIRE_OK(ctx, lsim_sensor_create_pattern(ctx, 1, &az, &el, NULL, NULL, &s));
    const double zero[3] = {0, 0, 0};
    REQUIRE_OK(ctx, lsim_sensor_set_pose(s, zero, zero));
    REQUIRE_OK(ctx, lsim_sensor_set_range(s, 0.1, max_range));
    return s;
}

/* Intensity of a wall of reflectance rho at distance d, rotated by yaw_deg about z. */
static double wall_intensity(lsim_context *ctx, double rho, double d, double yaw_deg, double *reflectivity,
                             double *incidence, size_t *count)
{
    lsim_scene *scene = test_scene_new(ctx, "m", rho);
    /* Ry(90) then Rz(yaw): the plane's normal (+z) along x, rotated by yaw. */
    test_scene_wall(ctx, scene, "m", d, 50.0, 50.0, 90.0, yaw_deg);
    lsim_sensor *s = one_beam(ctx, 100.0);
    lsim_scan_options opt;
    lsim_scan_options_init(&opt);
    opt.noise = 0;
    lsim_points *p;
    REQUIRE_OK(ctx, lsim_scene_scan(scene, s, &opt, &p));
    *count = lsim_points_count(p);
    double v = *count ? fixture_f32(p, LSIM_FIELD_INTENSITY)[0] : 0.0;
    *reflectivity = *count ? fixture_f32(p, LSIM_FIELD_REFLECTIVITY)[0] : 0.0;
    *incidence = *count ? fixture_f32(p, LSIM_FIELD_INCIDENCE)[0] : 0.0;
    lsim_points_destroy(p);
    lsim_sensor_destroy(s);
    lsim_scene_destroy(scene);
    return v;
}

int main(void)
{
    lsim_context *ctx;
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    double refl, inc;
    size_t n;
    /* Reflectance ratio at equal range and angle. */
    double a = wall_intensity(ctx, 0.2, 10.0, 0.0, &refl, &inc, &n);
    double b = wall_intensity(ctx, 0.6, 10.0, 0.0, &refl, &inc, &n);
    CHECK(n == 1);
    CHECK_NEAR(b / a, 3.0, 1e-5);
    CHECK_NEAR(b, 0.6 / 100.0, 1e-7); /* rho / R^2 at normal incidence */
    CHECK_NEAR(refl, 0.6, 1e-5);
    CHECK_NEAR(inc, 0.0, 0.05);
    /* Inverse square law. */
    double near = wall_intensity(ctx, 0.5, 5.0, 0.0, &refl, &inc, &n);
    double far = wall_intensity(ctx, 0.5, 20.0, 0.0, &refl, &inc, &n);
    CHECK_NEAR(near / far, 16.0, 1e-3);
    /* Cosine law: a wall turned by 60 degrees returns half the power at the same range. */
    double turned = wall_intensity(ctx, 0.5, 10.0, 60.0, &refl, &inc, &n);
    CHECK_NEAR(inc, 60.0, 1e-3);
    CHECK_NEAR(refl, 0.25, 1e-5);
    CHECK_NEAR(turned, 0.25 / 100.0, 1e-7);
    /* Detection threshold: rho_det 0.1 at max range 100 m -> 1e-5. A 0.1 wall at 90 m
     * (1.23e-5) is detected; a 0.05 wall at 90 m (6.2e-6) is not. */
    wall_intensity(ctx, 0.1, 90.0, 0.0, &refl, &inc, &n);
    CHECK(n == 1);
    wall_intensity(ctx, 0.05, 90.0, 0.0, &refl, &inc, &n);
    CHECK(n == 0);
    wall_intensity(ctx, 0.0, 5.0, 0.0, &refl, &inc, &n);
    CHECK(n == 0); /* a black surface returns nothing */

    /* Analytic sphere: radius 1.5 at 12 m on the beam -> range 10.5, normal incidence. */
    lsim_scene *scene;
    REQUIRE_OK(ctx, lsim_scene_create(ctx, &scene));
    lsim_object_desc desc;
    lsim_object_desc_init(&desc);
    desc.position[0] = 12.0;
    desc.label = "vegetation";
    REQUIRE_OK(ctx, lsim_scene_add_sphere(scene, 1.5, &desc));
    lsim_sensor *s = one_beam(ctx, 100.0);
    lsim_scan_options opt;
    lsim_scan_options_init(&opt);
    opt.noise = 0;
    lsim_points *p;
    REQUIRE_OK(ctx, lsim_scene_scan(scene, s, &opt, &p));
    CHECK(lsim_points_count(p) == 1);
    if (lsim_points_count(p) == 1) {
        CHECK_NEAR(fixture_f32(p, LSIM_FIELD_RANGE)[0], 10.5, 1e-4);
        CHECK_NEAR(fixture_f32(p, LSIM_FIELD_NX)[0], -1.0, 1e-4);
        CHECK_NEAR(fixture_f32(p, LSIM_FIELD_INTENSITY)[0], 0.5 / (10.5 * 10.5), 1e-6); /* default rho 0.5 */
        CHECK(((const uint32_t *)lsim_points_column(p, LSIM_FIELD_LABEL))[0] == 70);
    }
    lsim_points_destroy(p);
    lsim_sensor_destroy(s);
    lsim_scene_destroy(scene);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_intensity");
}
