/* The closed loop through lidarsim itself, with no real data: a calibration with known noise
 * tables drives scans of a board (lidarsim's own scanner, 60 revolutions of a 720-beam planar
 * sensor), the scans are written in the sensor's `range,intensity,angle_rad` form, and
 * `lsim_calibrate_input` recovers the tables within sampling error, and the board's distance. */
#include "harness.h"
#include "test_scenes.h"

#include "calib/calibrate.h"
#include "core/text.h"
#include "scene/scene.h"

#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846
#define BINS 20
#define REVOLUTIONS 60

static double table_drop(double angle) { return angle < 20.0 ? 0.02 : fmin(0.9, 0.02 + 0.03 * (angle - 20.0)); }
static double table_std(double angle) { return 0.002 + 0.0001 * angle; }

int main(void)
{
    lsim_context *ctx;
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    /* 1. the known tables, as a calibration (2-degree bins, binary 47 intensity) */
    lsim_calib_bin bins[BINS];
    for (int i = 0; i < BINS; ++i) {
        double a = 1.0 + 2.0 * i;
        bins[i] = (lsim_calib_bin){a, 1000, 47.0, 0.0, table_std(a), table_drop(a), 0.0, 0.0, table_std(a), {0.0, 0.0}, 0};
    }
    lsim_calib_material truth;
    memset(&truth, 0, sizeof truth);
    lsim_strlcpy(truth.name, "board", sizeof truth.name);
    truth.fitted_distance_m = truth.configured_distance_m = 0.8;
    truth.normal_angle_rad = PI;
    truth.board_width_m = truth.configured_width_m = 1.2;
    truth.band_m = 0.05;
    truth.revolutions = REVOLUTIONS;
    truth.beams_per_revolution = 720;
    truth.bin_width_deg = 2.0;
    truth.bin_count = BINS;
    truth.bins = bins;
    lsim_brdf_defaults(&truth.brdf, LSIM_BRDF_OREN_NAYAR);
    lsim_brdf_defaults(&truth.brdf_configured, LSIM_BRDF_OREN_NAYAR);
    truth.brdf_scale = 47.0;

    /* 2. scan a 1.2 m board 0.8 m behind the sensor (facing it, as in the thesis) */
    lsim_scene *scene;
    REQUIRE_OK(ctx, lsim_scene_create(ctx, &scene));
    REQUIRE_OK(ctx, lsim_scene_add_calibration(scene, "board", &truth));
    test_scene_wall(ctx, scene, "board", -0.8, 1.0, 1.2, 90.0, 0.0);
    double az[720], el[720];
    for (int i = 0; i < 720; ++i) {
        az[i] = -179.75 + 0.5 * i;
        el[i] = 0.0;
    }
    lsim_sensor *s;
    REQUIRE_OK(ctx, lsim_sensor_create_pattern(ctx, 720, az, el, NULL, NULL, &s));
    const double zero[3] = {0, 0, 0};
    REQUIRE_OK(ctx, lsim_sensor_set_pose(s, zero, zero));
    REQUIRE_OK(ctx, lsim_sensor_set_range(s, 0.15, 12.0));
    const char *path = "test_calib_loop_scan.txt";
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    for (int r = 0; r < REVOLUTIONS && f; ++r) {
        lsim_scan_options opt;
        lsim_scan_options_init(&opt);
        opt.seed = 11;
        opt.frame_index = (uint32_t)r;
        opt.keep_misses = 1;
        lsim_points *p;
        REQUIRE_OK(ctx, lsim_scene_scan(scene, s, &opt, &p));
        const float *range = lsim_points_column(p, LSIM_FIELD_RANGE), *in = lsim_points_column(p, LSIM_FIELD_INTENSITY);
        for (size_t i = 0; i < lsim_points_count(p); ++i) {
            double angle = az[i] * PI / 180.0;
            if (range[i] > 0.0f)
                fprintf(f, "%.9g,%.9g,%.12g\n", range[i], in[i], angle);
            else
                fprintf(f, "inf,0.0,%.12g\n", angle);
        }
        lsim_points_destroy(p);
    }
    if (f)
        fclose(f);

    /* 3. calibrate from the scans and compare with the tables */
    lsim_calib_input input;
    lsim_calib_input_init(&input);
    lsim_strlcpy(input.name, "board", sizeof input.name);
    input.scan_path = lsim_strdup(path);
    input.width_m = 1.2;
    input.distance_m = 0.8;
    input.direction_deg = LSIM_CALIB_DEFAULT_DIRECTION_DEG;
    input.window_deg = LSIM_CALIB_DEFAULT_WINDOW_DEG;
    lsim_calib_options copt;
    lsim_calib_options_init(&copt);
    lsim_calib_material got;
    memset(&got, 0, sizeof got);
    lsim_board_fit fit;
    REQUIRE_OK(ctx, lsim_calibrate_input(ctx, &input, &copt, &got, &fit));
    printf("fitted distance %.5f m (truth 0.8), normal %.3f deg (truth 180), %zu bins\n", got.fitted_distance_m,
           fabs(got.normal_angle_rad) * 180.0 / PI, got.bin_count);
    CHECK_NEAR(got.fitted_distance_m, 0.8, 0.001);
    CHECK_NEAR(fabs(got.normal_angle_rad), PI, 0.2 * PI / 180.0);
    size_t compared = 0, drop_ok = 0, std_ok = 0;
    for (size_t k = 0; k < got.bin_count; ++k) {
        const lsim_calib_bin *b = &got.bins[k];
        if (b->angle_deg > 35.0 || b->n < 50) /* the board spans +-36.9 deg: edge bins are partial */
            continue;
        ++compared;
        double p = table_drop(b->angle_deg), sigma = sqrt(p * (1.0 - p) / b->n);
        /* the bin's average of the table (linear across most bins): its centre value, +- the
         * minmod slope's contribution, within 4 binomial sigma */
        drop_ok += fabs(b->drop_rate - p) <= 4.0 * sigma + 0.01;
        size_t returns = (size_t)((1.0 - b->drop_rate) * b->n + 0.5);
        double rel = 1.0 / sqrt(2.0 * (returns > 1 ? returns - 1 : 1));
        std_ok += fabs(b->std_range_m / table_std(b->angle_deg) - 1.0) <= 4.0 * rel + 0.03;
        CHECK(b->mean_intensity == 47.0 && b->std_intensity == 0.0);
        if (fabs(b->drop_rate - p) > 4.0 * sigma + 0.01 || fabs(b->std_range_m / table_std(b->angle_deg) - 1.0) > 4.0 * rel + 0.03)
            printf("bin %.0f: n %zu drop %.4f (table %.4f) std %.5f (table %.5f)\n", b->angle_deg, b->n, b->drop_rate,
                   p, b->std_range_m, table_std(b->angle_deg));
    }
    printf("recovered: drop rate in %zu/%zu bins, range std in %zu/%zu bins\n", drop_ok, compared, std_ok, compared);
    CHECK(compared >= 15);
    CHECK(drop_ok == compared);
    CHECK(std_ok == compared);
    lsim_calib_material_free(&got);
    free(input.scan_path);
    remove(path);
    lsim_sensor_destroy(s);
    lsim_scene_destroy(scene);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_calib_loop");
}
