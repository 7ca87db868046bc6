/* lsim_compare (src/compare/): a frame against itself is exact; two noise seeds of one scene give
 * the constant noise model's statistics (sim - real of two independent N(0, sigma) draws: RMSE
 * sqrt(2) sigma, median |dr| 0.6745 sqrt(2) sigma, p95 |dr| 1.96 sqrt(2) sigma); matching by beam
 * and by direction agree; frames of other sensors, mismatched beams and a missing ring are clear
 * errors; the report is written whole or not at all. */
#include "harness.h"
#include "test_scenes.h"

#include "lidarsim.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SIGMA 0.02     /* the constant model's range noise, metres */
#define COLUMNS 900
#define RINGS 16

/* A ground plane and two boxes around the sensor: the upward beams miss, except on the boxes. */
static lsim_scene *make_scene(lsim_context *ctx)
{
    lsim_scene *scene = test_scene_new(ctx, "grey", 0.6);
    lsim_object_desc d = test_object("grey", NULL, 0.0, 0.0, -1.8);
    const double ground[2] = {120.0, 120.0};
    REQUIRE_OK(ctx, lsim_scene_add_plane(scene, ground, &d));
    const double box[3] = {4.0, 30.0, 8.0};
    d.position[0] = 15.0;
    d.position[2] = 2.0;
    REQUIRE_OK(ctx, lsim_scene_add_box(scene, box, &d));
    d.position[0] = -35.0;
    REQUIRE_OK(ctx, lsim_scene_add_box(scene, box, &d));
    REQUIRE_OK(ctx, lsim_scene_commit(scene));
    return scene;
}

static lsim_sensor *make_sensor(lsim_context *ctx, int channels, int columns)
{
    double el[64];
    for (int i = 0; i < channels; ++i)
        el[i] = -15.0 + 30.0 * i / (channels - 1);
    lsim_sensor *s;
    REQUIRE_OK(ctx, lsim_sensor_create_rotating(ctx, channels, el, columns, 10.0, &s));
    REQUIRE_OK(ctx, lsim_sensor_set_noise(s, SIGMA, 0.05, 0.1));
    REQUIRE_OK(ctx, lsim_sensor_set_noise_model(s, LSIM_NOISE_CONSTANT, 10.0));
    return s;
}

static lsim_points *scan(lsim_context *ctx, lsim_scene *scene, const lsim_sensor *s, uint64_t seed, int keep_misses)
{
    lsim_scan_options o;
    lsim_scan_options_init(&o);
    o.seed = seed;
    o.keep_misses = keep_misses;
    lsim_points *p;
    REQUIRE_OK(ctx, lsim_scene_scan(scene, s, &o, &p));
    return p;
}

static lsim_compare *compare(lsim_context *ctx, const lsim_points *a, const lsim_points *b, lsim_compare_match m,
                             lsim_compare_stats *all)
{
    lsim_compare_options o;
    lsim_compare_options_init(&o);
    o.match = m;
    lsim_compare *c;
    REQUIRE_OK(ctx, lsim_compare_points(ctx, a, b, &o, &c));
    REQUIRE_OK(ctx, lsim_compare_get_stats(c, LSIM_COMPARE_ALL, 0, all));
    return c;
}

static void check_self(lsim_context *ctx, const lsim_points *p)
{
    lsim_compare_stats s;
    lsim_compare *c = compare(ctx, p, p, LSIM_COMPARE_MATCH_AUTO, &s);
    lsim_compare_match m;
    int rings, columns;
    REQUIRE_OK(ctx, lsim_compare_get_layout(c, &m, &rings, &columns, NULL));
    CHECK(m == LSIM_COMPARE_MATCH_BEAM);
    CHECK(rings == RINGS);
    CHECK(columns == COLUMNS);
    CHECK(s.both_hit > 5000);
    CHECK(s.both_miss > 1000); /* the upward beams that pass the boxes */
    CHECK(s.both_hit + s.both_miss == (uint64_t)RINGS * COLUMNS);
    CHECK(s.real_only == 0 && s.sim_only == 0);
    CHECK(s.precision == 1.0 && s.recall == 1.0 && s.f1 == 1.0);
    CHECK(s.range.count == s.both_hit);
    CHECK(s.range.rmse == 0.0 && s.range.p95_abs == 0.0 && s.range.median == 0.0 && s.range.mean_abs == 0.0);
    CHECK(s.intensity.count == s.both_hit && s.intensity.rmse == 0.0);
    CHECK(s.reflectivity.count == s.both_hit && s.reflectivity.rmse == 0.0);
    CHECK(s.chamfer_m == 0.0);
    lsim_compare_destroy(c);
}

static void check_seeds(lsim_context *ctx, const lsim_points *a, const lsim_points *b, const lsim_points *a_bin,
                        const lsim_points *b_bin)
{
    lsim_compare_stats s, d, x;
    lsim_compare *c = compare(ctx, a, b, LSIM_COMPARE_MATCH_AUTO, &s);
    const double sd = sqrt(2.0) * SIGMA;
    printf("two seeds: %llu both hit, %llu + %llu one only, F1 %.5f; range RMSE %.5f (sqrt(2) sigma %.5f), median "
           "|dr| %.5f (%.5f), p95 |dr| %.5f (%.5f), signed median %.5f; Chamfer %.5f m\n",
           (unsigned long long)s.both_hit, (unsigned long long)s.real_only, (unsigned long long)s.sim_only, s.f1,
           s.range.rmse, sd, s.range.median_abs, 0.6745 * sd, s.range.p95_abs, 1.96 * sd, s.range.median,
           s.chamfer_m);
    /* N > 5000 pairs: the RMSE's relative sampling error is 1/sqrt(2N) < 1 %, the quantiles' ~2 % */
    CHECK(s.both_hit > 5000);
    CHECK_NEAR(s.range.rmse / sd, 1.0, 0.04);
    CHECK_NEAR(s.range.median_abs / (0.6745 * sd), 1.0, 0.06);
    CHECK_NEAR(s.range.p95_abs / (1.96 * sd), 1.0, 0.06);
    CHECK_NEAR(s.range.mean_abs / (sqrt(2.0 / 3.14159265358979) * sd), 1.0, 0.04);
    CHECK(fabs(s.range.median) < 0.002);
    CHECK(s.f1 > 0.995); /* strong echoes: the constant model drops none but grazing ones */
    CHECK(s.chamfer_m > 0.0 && s.chamfer_m < 3.0 * SIGMA);
    /* the groups partition the beams both hit */
    uint64_t by_ring = 0, by_band = 0;
    for (int g = 0; g < RINGS; ++g) {
        lsim_compare_stats r;
        REQUIRE_OK(ctx, lsim_compare_get_stats(c, LSIM_COMPARE_RING, g, &r));
        by_ring += r.both_hit;
        CHECK(isnan(r.chamfer_m));
    }
    for (int g = 0; g < LSIM_COMPARE_BANDS; ++g) {
        lsim_compare_stats r;
        REQUIRE_OK(ctx, lsim_compare_get_stats(c, LSIM_COMPARE_BAND, g, &r));
        by_band += r.both_hit;
        if (r.range.count > 500)
            CHECK_NEAR(r.range.rmse / sd, 1.0, 0.15); /* constant model: the same in every band */
    }
    CHECK(by_ring == s.both_hit && by_band == s.both_hit);
    lsim_compare_stats bad;
    CHECK(lsim_compare_get_stats(c, LSIM_COMPARE_RING, RINGS, &bad) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_compare_get_stats(c, LSIM_COMPARE_BAND, -1, &bad) == LSIM_ERR_INVALID_ARGUMENT);
    lsim_compare_destroy(c);

    /* by direction (the points' azimuth and elevation): the same pairs */
    c = compare(ctx, a, b, LSIM_COMPARE_MATCH_DIRECTION, &d);
    CHECK(d.both_hit == s.both_hit && d.real_only == s.real_only && d.sim_only == s.sim_only);
    CHECK(d.range.rmse == s.range.rmse && d.range.p95_abs == s.range.p95_abs);
    lsim_compare_destroy(c);

    /* KITTI .bin (x, y, z, reflectivity; no ring): by direction of x, y, z; matching by beam refused */
    c = compare(ctx, a_bin, b_bin, LSIM_COMPARE_MATCH_AUTO, &x);
    lsim_compare_match m;
    double tol;
    REQUIRE_OK(ctx, lsim_compare_get_layout(c, &m, NULL, NULL, &tol));
    printf("KITTI by direction (within %.4f deg): %llu both hit, F1 %.5f, range RMSE %.5f\n", tol,
           (unsigned long long)x.both_hit, x.f1, x.range.rmse);
    CHECK(m == LSIM_COMPARE_MATCH_DIRECTION);
    CHECK(tol > 0.0 && tol < 0.5 * 360.0 / COLUMNS + 1e-6);
    CHECK((double)x.both_hit >= 0.99 * (double)s.both_hit && x.both_hit <= s.both_hit + s.real_only);
    CHECK_NEAR(x.range.rmse / sd, 1.0, 0.05);
    CHECK(x.intensity.count == 0 && x.reflectivity.count == x.both_hit);
    lsim_compare_destroy(c);
    lsim_compare_options o;
    lsim_compare_options_init(&o);
    o.match = LSIM_COMPARE_MATCH_BEAM;
    c = (lsim_compare *)1;
    CHECK(lsim_compare_points(ctx, a_bin, b, &o, &c) == LSIM_ERR_INVALID_ARGUMENT && c == NULL);
    CHECK(strstr(lsim_context_last_error(ctx), "real frame has no ring") != NULL);
}

static void check_errors(lsim_context *ctx, lsim_scene *scene, const lsim_points *a)
{
    lsim_compare *c;
    lsim_compare_options o;
    /* another sensor: 32 rings; 16 rings at 1800 columns */
    lsim_sensor *s32 = make_sensor(ctx, 32, COLUMNS), *s1800 = make_sensor(ctx, RINGS, 1800);
    lsim_points *p32 = scan(ctx, scene, s32, 1, 0), *p1800 = scan(ctx, scene, s1800, 1, 0);
    CHECK(lsim_compare_points(ctx, a, p32, NULL, &c) == LSIM_ERR_INVALID_ARGUMENT && c == NULL);
    printf("32 rings: %s\n", lsim_context_last_error(ctx));
    CHECK(strstr(lsim_context_last_error(ctx), "16 rings") && strstr(lsim_context_last_error(ctx), "different sensors"));
    CHECK(lsim_compare_points(ctx, a, p1800, NULL, &c) == LSIM_ERR_INVALID_ARGUMENT);
    printf("1800 columns: %s\n", lsim_context_last_error(ctx));
    CHECK(strstr(lsim_context_last_error(ctx), "900 columns") && strstr(lsim_context_last_error(ctx), "1800"));
    /* mismatched beams: a column count the frames do not have */
    lsim_compare_options_init(&o);
    o.columns = COLUMNS / 2;
    CHECK(lsim_compare_points(ctx, a, a, &o, &c) == LSIM_ERR_INVALID_ARGUMENT);
    printf("450 columns: %s\n", lsim_context_last_error(ctx));
    CHECK(strstr(lsim_context_last_error(ctx), "share a beam") != NULL);
    o.columns = 0;
    o.rings = 8;
    CHECK(lsim_compare_points(ctx, a, a, &o, &c) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "beyond the 8 rings") != NULL);
    o.rings = -1;
    CHECK(lsim_compare_points(ctx, a, a, &o, &c) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_compare_points(ctx, NULL, a, NULL, &c) == LSIM_ERR_INVALID_ARGUMENT);
    /* degenerate frames (one point repeated 60,000 times: the k-d tree's equal keys) are refused
     * promptly: by direction, all of one direction; by beam, no azimuth step */
    const char *csv[2] = {"test_compare_same.csv", "test_compare_same_ring.csv"};
    for (int k = 0; k < 2; ++k) {
        FILE *f = fopen(csv[k], "w");
        CHECK(f != NULL);
        if (!f)
            continue;
        fputs(k ? "x,y,z,ring,azimuth\n" : "x,y,z\n", f);
        for (int i = 0; i < 60000; ++i)
            fputs(k ? "3,4,1,2,53.13\n" : "3,4,1\n", f);
        fclose(f);
        lsim_points *same;
        REQUIRE_OK(ctx, lsim_points_read(ctx, csv[k], 0, &same));
        CHECK(lsim_compare_points(ctx, same, same, NULL, &c) == LSIM_ERR_INVALID_ARGUMENT && c == NULL);
        printf("one point repeated%s: %s\n", k ? " (ring, azimuth)" : "", lsim_context_last_error(ctx));
        CHECK(strstr(lsim_context_last_error(ctx), k ? "0 columns" : "share one direction") != NULL);
        lsim_points_destroy(same);
        remove(csv[k]);
    }
    lsim_points_destroy(p32);
    lsim_points_destroy(p1800);
    lsim_sensor_destroy(s32);
    lsim_sensor_destroy(s1800);
}

static int has_staging(const char *dir)
{
    DIR *d = opendir(dir);
    int found = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        found |= strncmp(e->d_name, ".lidarsim-compare", 17) == 0;
    if (d)
        closedir(d);
    return found;
}

static void check_report(lsim_context *ctx, const lsim_points *a)
{
    lsim_compare_stats s;
    lsim_compare *c = compare(ctx, a, a, LSIM_COMPARE_MATCH_AUTO, &s);
    const char *dir = "test_compare.work";
    char path[512], buf[1 << 16];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    remove(path);
    snprintf(path, sizeof path, "%s/range_images.png", dir);
    remove(path);
    snprintf(path, sizeof path, "%s/errors.png", dir);
    remove(path);
    rmdir(dir);
    /* a folder that is a file: an error naming it, the file left as it was */
    FILE *f = fopen(dir, "w");
    CHECK(f != NULL);
    if (f)
        fclose(f);
    CHECK(lsim_compare_write_report(c, dir, "a.pcd", "b.pcd") == LSIM_ERR_IO);
    CHECK(strstr(lsim_context_last_error(ctx), dir) != NULL);
    struct stat st;
    CHECK(stat(dir, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0);
    remove(dir);
    REQUIRE_OK(ctx, lsim_compare_write_report(c, dir, "a \"real\".pcd", "b.pcd"));
    CHECK(stat(path, &st) == 0 && st.st_size > 1000); /* errors.png */
    snprintf(path, sizeof path, "%s/range_images.png", dir);
    CHECK(stat(path, &st) == 0 && st.st_size > 1000);
    CHECK(!has_staging(dir));
    snprintf(path, sizeof path, "%s/summary.json", dir);
    f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = 0;
    CHECK(strstr(buf, "\"real\": \"a \\\"real\\\".pcd\"") != NULL);
    CHECK(strstr(buf, "\"match\": \"beam\", \"rings\": 16, \"columns\": 900") != NULL);
    CHECK(strstr(buf, "\"precision\": 1, \"recall\": 1, \"f1\": 1") != NULL);
    CHECK(strstr(buf, "\"chamfer_m\": 0") != NULL);
    CHECK(strstr(buf, "\"ring\": 15") != NULL && strstr(buf, "\"from_m\": 80, \"to_m\": null") != NULL);
    lsim_compare_destroy(c);
}

int main(void)
{
    lsim_context *ctx;
    if (lsim_context_create(&ctx) != LSIM_OK)
        return 1;
    lsim_scene *scene = make_scene(ctx);
    lsim_sensor *sensor = make_sensor(ctx, RINGS, COLUMNS);
    lsim_points *a = scan(ctx, scene, sensor, 1, 1), *b = scan(ctx, scene, sensor, 2, 0);
    lsim_points *a0 = scan(ctx, scene, sensor, 1, 0);
    check_self(ctx, a);  /* misses kept: every beam listed */
    check_self(ctx, a0); /* misses left out: absent beams are misses */
    REQUIRE_OK(ctx, lsim_points_write(a0, "test_compare_a.bin", LSIM_FORMAT_KITTI));
    REQUIRE_OK(ctx, lsim_points_write(b, "test_compare_b.bin", LSIM_FORMAT_KITTI));
    lsim_points *a_bin, *b_bin;
    REQUIRE_OK(ctx, lsim_points_read(ctx, "test_compare_a.bin", 0, &a_bin));
    REQUIRE_OK(ctx, lsim_points_read(ctx, "test_compare_b.bin", 0, &b_bin));
    check_seeds(ctx, a, b, a_bin, b_bin);
    check_errors(ctx, scene, a0);
    check_report(ctx, a);
    lsim_points_destroy(a);
    lsim_points_destroy(a0);
    lsim_points_destroy(b);
    lsim_points_destroy(a_bin);
    lsim_points_destroy(b_bin);
    lsim_sensor_destroy(sensor);
    lsim_scene_destroy(scene);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_compare");
}
