/* Noise: Gaussian along the ray with the sensor's sigma; bit-identical output for a seed
 * whatever the thread count; different seeds differ; noise off is exact. */
#include "harness.h"
#include "scan_fixture.h"
#include "test_scenes.h"

#include <string.h>

static lsim_points *scan_wall(lsim_context *ctx, int noise, uint64_t seed, int threads, double sigma)
{
    lsim_scene *scene = test_scene_room(ctx, 20.0, 20.0, 20.0);
    lsim_sensor *s;
    REQUIRE_OK(ctx, lsim_sensor_create_preset(ctx, "os1-64", &s));
    const double zero[3] = {0, 0, 0};
    REQUIRE_OK(ctx, lsim_sensor_set_pose(s, zero, zero));
    REQUIRE_OK(ctx, lsim_sensor_set_noise(s, sigma, 0.1, 0.1));
    lsim_scan_options opt;
    lsim_scan_options_init(&opt);
    opt.noise = noise;
    opt.seed = seed;
    opt.threads = threads;
    opt.keep_misses = 1; /* one row per beam, so noisy and clean scans align row by row */
    lsim_points *p;
    REQUIRE_OK(ctx, lsim_scene_scan(scene, s, &opt, &p));
    lsim_sensor_destroy(s);
    lsim_scene_destroy(scene);
    return p;
}

static int same_points(const lsim_points *a, const lsim_points *b)
{
    if (lsim_points_count(a) != lsim_points_count(b))
        return 0;
    for (int f = 0; f < LSIM_FIELD_COUNT; ++f) {
        size_t bytes = lsim_points_count(a) * (lsim_field_get_type((lsim_field)f) == LSIM_TYPE_U16 ? 2 : 4);
        if (memcmp(lsim_points_column(a, (lsim_field)f), lsim_points_column(b, (lsim_field)f), bytes) != 0)
            return 0;
    }
    return 1;
}

int main(void)
{
    lsim_context *ctx;
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    const double sigma = 0.05;
    lsim_points *one = scan_wall(ctx, 1, 1234, 1, sigma);
    lsim_points *two = scan_wall(ctx, 1, 1234, 2, sigma);
    lsim_points *seven = scan_wall(ctx, 1, 1234, 7, sigma);
    lsim_points *other = scan_wall(ctx, 1, 1235, 2, sigma);
    lsim_points *clean = scan_wall(ctx, 0, 1234, 2, sigma);
    CHECK(same_points(one, two));
    CHECK(same_points(one, seven));
    CHECK(!same_points(one, other));

    /* Range error statistics: range - clean range ~ N(0, sigma^2). */
    size_t n = lsim_points_count(one);
    CHECK(n == lsim_points_count(clean) && n == 65536);
    const float *r = fixture_f32(one, LSIM_FIELD_RANGE);
    const float *x = fixture_f32(one, LSIM_FIELD_X), *xc = fixture_f32(one, LSIM_FIELD_X_CLEAN);
    const float *rc = fixture_f32(clean, LSIM_FIELD_RANGE), *xcc = fixture_f32(clean, LSIM_FIELD_X);
    double s = 0, s2 = 0;
    int clean_matches = 1, along_ray = 1;
    size_t used = 0;
    for (size_t i = 0; i < n; ++i) {
        if (r[i] == 0.0f) /* dropped: intensity noise took it below the detection threshold */
            continue;
        ++used;
        double e = (double)r[i] - rc[i];
        s += e;
        s2 += e * e;
        clean_matches &= xc[i] == xcc[i]; /* x_clean of a noisy scan == x of a clean scan */
        /* the displacement is along the ray: x / x_clean == range / clean range */
        if (fabsf(xc[i]) > 1.0f)
            along_ray &= fabs(x[i] / xc[i] - r[i] / rc[i]) < 1e-4;
    }
    double mean = s / used, sd = sqrt(s2 / used - mean * mean);
    printf("range noise: mean %.5f m, std %.5f m (sigma %.3f), n = %zu of %zu beams\n", mean, sd, sigma, used, n);
    /* at most a few grazing returns drop out (the real os1-64 spans +-16.7 deg, so in this box none
     * may graze enough to) */
    CHECK(used > n - n / 100 && used <= n);
    CHECK_NEAR(mean, 0.0, 4.0 * sigma / sqrt((double)used));
    CHECK_NEAR(sd, sigma, 0.02 * sigma);
    CHECK(clean_matches);
    CHECK(along_ray);
    lsim_points_destroy(one);
    lsim_points_destroy(two);
    lsim_points_destroy(seven);
    lsim_points_destroy(other);
    lsim_points_destroy(clean);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_noise");
}
