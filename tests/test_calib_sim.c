/* Simulation with a calibration: a board of a calibrated material scanned by an RPLIDAR-like
 * planar sensor reproduces the calibration's per-angle drop rate, range spread and intensity
 * (binary 0/47 intensity stays binary); noise off gives the bins' mean intensity exactly. */
#include "harness.h"
#include "scan_fixture.h"
#include "test_scenes.h"

#include "calib/calibration.h"

#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

static void write_calibration(lsim_context *ctx, const char *path)
{
    lsim_calibration cal;
    memset(&cal, 0, sizeof cal);
    cal.version = LSIM_CALIB_VERSION;
    snprintf(cal.sensor, sizeof cal.sensor, "rplidar-a1");
    cal.count = 1;
    lsim_calib_material m;
    memset(&m, 0, sizeof m);
    snprintf(m.name, sizeof m.name, "board");
    m.configured_distance_m = 1.0;
    m.fitted_distance_m = 1.0;
    m.board_width_m = 3.0;
    m.configured_width_m = 3.0;
    m.band_m = 0.05;
    m.revolutions = 1;
    m.beams_per_revolution = 720;
    m.bin_width_deg = 10.0;
    m.bin_count = 6;
    lsim_calib_bin bins[6];
    memset(bins, 0, sizeof bins);
    for (int i = 0; i < 6; ++i) { /* drop rate rising with the angle, range spread too */
        bins[i].angle_deg = 5.0 + 10.0 * i;
        bins[i].n = 1000;
        bins[i].mean_intensity = 47.0;
        bins[i].std_intensity = 0.0;
        bins[i].std_range_m = 0.002 + 0.001 * i;
        bins[i].drop_rate = 0.1 * i;
        bins[i].mean_range_m = 0.0;
    }
    m.bins = bins;
    lsim_brdf_defaults(&m.brdf, LSIM_BRDF_OREN_NAYAR);
    lsim_brdf_defaults(&m.brdf_configured, LSIM_BRDF_OREN_NAYAR);
    m.brdf_scale = 47.0;
    cal.materials = &m;
    REQUIRE_OK(ctx, lsim_calibration_write(ctx, path, &cal));
}

int main(void)
{
    lsim_context *ctx;
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    const char *path = "test_calib_sim.yaml";
    write_calibration(ctx, path);
    lsim_scene *scene;
    REQUIRE_OK(ctx, lsim_scene_create(ctx, &scene));
    CHECK(lsim_scene_add_calibrated_material(scene, "board", path, "nope") == LSIM_ERR_NOT_FOUND);
    CHECK(strstr(lsim_context_last_error(ctx), "board") != NULL); /* lists the names it has */
    REQUIRE_OK(ctx, lsim_scene_add_calibrated_material(scene, "board", path, "board"));
    test_scene_wall(ctx, scene, "board", 1.0, 1.0, 3.0, 90.0, 0.0); /* 3 m wide: incidence up to ~56 deg at 1 m */
    /* 2000 revolutions' worth of beams: a dense fan over the board, many frames. */
    const size_t n = 36000;
    double *az = malloc(n * sizeof *az), *el = calloc(n, sizeof *el);
    for (size_t i = 0; i < n; ++i)
        az[i] = -55.0 + 110.0 * (double)(i % 1100) / 1100.0;
    lsim_sensor *s;
    REQUIRE_OK(ctx, lsim_sensor_create_pattern(ctx, n, az, el, NULL, NULL, &s));
    const double zero[3] = {0, 0, 0};
    REQUIRE_OK(ctx, lsim_sensor_set_pose(s, zero, zero));
    REQUIRE_OK(ctx, lsim_sensor_set_range(s, 0.15, 12.0));
    lsim_scan_options opt;
    lsim_scan_options_init(&opt);
    opt.keep_misses = 1;
    opt.seed = 5;
    lsim_points *p;
    REQUIRE_OK(ctx, lsim_scene_scan(scene, s, &opt, &p));
    CHECK(lsim_points_count(p) == n);
    const float *r = fixture_f32(p, LSIM_FIELD_RANGE), *in = fixture_f32(p, LSIM_FIELD_INTENSITY);
    const float *inc = fixture_f32(p, LSIM_FIELD_INCIDENCE), *a = fixture_f32(p, LSIM_FIELD_AZIMUTH);
    /* per 10-degree bin of the beam's incidence (= |azimuth| on this board) */
    for (int b = 0; b < 5; ++b) {
        size_t total = 0, kept = 0, binary = 1;
        double s2 = 0.0;
        for (size_t i = 0; i < n; ++i) {
            double theta = fabs(a[i]);
            if (theta < 10.0 * b + 1.0 || theta >= 10.0 * b + 9.0) /* inside the bin, away from its edges */
                continue;
            ++total;
            if (r[i] > 0.0f) {
                ++kept;
                binary &= in[i] == 47.0f;
                double truth = 1.0 / cos(theta * PI / 180.0);
                s2 += (r[i] - truth) * (r[i] - truth);
                (void)inc;
            }
        }
        /* interpolated statistics at the bin's centre = the bin's own */
        double drop = 1.0 - (double)kept / total, expected = 0.1 * b;
        double sigma = sqrt(expected * (1 - expected) / total) + 1e-9;
        double std = sqrt(s2 / kept), expected_std = 0.002 + 0.001 * b;
        printf("bin %d: %zu beams, drop %.4f (expected ~%.2f), range std %.5f (expected ~%.4f), binary %zu\n", b, total,
               drop, expected, std, expected_std, binary);
        CHECK(fabs(drop - expected) < 4.0 * sigma + 0.05); /* interpolation across the bin: +-0.05 */
        CHECK(fabs(std - expected_std) < 0.25 * expected_std);
        CHECK(binary);
    }
    lsim_points_destroy(p);
    /* Noise off: the bins' mean intensity, the exact range, no drop-out. */
    opt.noise = 0;
    REQUIRE_OK(ctx, lsim_scene_scan(scene, s, &opt, &p));
    size_t hits = 0, exact = 1;
    for (size_t i = 0; i < lsim_points_count(p); ++i)
        if (fixture_f32(p, LSIM_FIELD_RANGE)[i] > 0.0f) {
            ++hits;
            exact &= fixture_f32(p, LSIM_FIELD_INTENSITY)[i] == 47.0f;
        }
    CHECK(hits == n);
    CHECK(exact);
    lsim_points_destroy(p);
    lsim_sensor_destroy(s);
    lsim_scene_destroy(scene);
    free(az);
    free(el);
    remove(path);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_calib_sim");
}
