/* The measured ray-drop table (sensor.noise.drop; noise/drop_table.h): a 360 deg planar sensor
 * (36,000 beams) in a room of four walls, each in a bin of its own:
 *   A  +x,  8 m, head-on,         white (0.5):  range [5, 10) x incidence [0, 30)  x refl [0.4, ...)  rate 0.3
 *   B  +y,  8 m, turned 45 deg,   white (0.5):  range [5, 10) x incidence [30, 60) x refl [0.4, ...)  rate 0.6
 *   C  -x,  8 m, head-on,         dark (0.1):   range [5, 10) x incidence [0, 30)  x refl [0.05, 0.15) rate 0.1
 *   D  -y, 25 m, head-on,         white (0.5):  range [20, 40) x incidence [0, 30) x refl [0.4, ...)  rate 0
 * Each wall loses its bin's rate of its beams (within 3 sigma of a binomial); D loses none. Rate 1
 * everywhere drops every echo; noise off ignores the table; 1 and 2 threads give the same bytes; a
 * table of zeros gives exactly the points of no table. Malformed tables are refused at their line
 * with the key named; lsim_sensor_describe lists the table. */
#include "harness.h"
#include "scan_fixture.h"

#include "lidarsim.h"
#include "noise/drop_table.h"
#include "sensor/sensor.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCENE_PATH "test_drop_table.tmp.yaml"
#define BEAMS 36000

enum { WALL_A = 201, WALL_B, WALL_C, WALL_D };

/* The table's axes: 5 x 4 x 4 bins. */
#define EDGES "      range_m: [0, 5, 10, 20, 40]\n      incidence_deg: [0, 30, 60, 75]\n" \
              "      reflectance: [0, 0.05, 0.15, 0.4]\n"
#define NR 5
#define NI 4
#define NF 4

static int rate_index(int i, int j, int k) { return (i * NI + j) * NF + k; }

/* The `drop:` lines for rates rate[80] ("" when rate is NULL: no table). */
static void drop_yaml(const double *rate, char *out, size_t size)
{
    if (!rate) {
        out[0] = '\0';
        return;
    }
    int n = snprintf(out, size, "    drop:\n" EDGES "      rate: [");
    for (int i = 0; i < NR * NI * NF; ++i)
        n += snprintf(out + n, size - (size_t)n, "%s%.9g", i ? ", " : "", rate[i]);
    snprintf(out + n, size - (size_t)n, "]\n");
}

/* Load the room with the given `drop:` lines (may be "") under the sensor's noise. */
static void load_room(lsim_context *ctx, const char *drop, lsim_scene **scene, lsim_sensor **sensor)
{
    FILE *f = fopen(SCENE_PATH, "w");
    if (!f) {
        fprintf(stderr, "cannot write %s\n", SCENE_PATH);
        exit(1);
    }
    fprintf(f,
            "sensor:\n"
            "  type: planar\n  fov_deg: 360\n  steps: %d\n  range: [0.5, 100]\n"
            "  noise:\n    model: constant\n    range_sigma: 0.005\n    intensity_sigma: 0.05\n%s"
            "labels: {wall_a: %d, wall_b: %d, wall_c: %d, wall_d: %d}\n"
            "materials:\n  white: {brdf: lambertian, reflectance: 0.5}\n"
            "  dark: {brdf: lambertian, reflectance: 0.1}\n"
            "objects:\n"
            "  - plane: {size: [4, 4]}\n    position: [8, 0, 0]\n    rotation: [0, -90, 0]\n"
            "    material: white\n    label: wall_a\n"
            "  - plane: {size: [3.2, 4]}\n    position: [0, 8, 0]\n    rotation: [90, 0, 45]\n"
            "    material: white\n    label: wall_b\n"
            "  - plane: {size: [4, 4]}\n    position: [-8, 0, 0]\n    rotation: [0, 90, 0]\n"
            "    material: dark\n    label: wall_c\n"
            "  - plane: {size: [4, 4]}\n    position: [0, -25, 0]\n    rotation: [-90, 0, 0]\n"
            "    material: white\n    label: wall_d\n",
            BEAMS, drop, WALL_A, WALL_B, WALL_C, WALL_D);
    fclose(f);
    REQUIRE_OK(ctx, lsim_scene_load(ctx, SCENE_PATH, scene, sensor));
    remove(SCENE_PATH);
}

static lsim_points *scan(lsim_context *ctx, lsim_scene *scene, const lsim_sensor *sensor, int noise, int threads,
                         int keep_misses)
{
    lsim_scan_options opt;
    lsim_scan_options_init(&opt);
    opt.noise = noise;
    opt.seed = 20240611;
    opt.frame_index = 3;
    opt.threads = threads;
    opt.keep_misses = keep_misses;
    lsim_points *p = NULL;
    REQUIRE_OK(ctx, lsim_scene_scan(scene, sensor, &opt, &p));
    return p;
}

static size_t field_bytes(lsim_field f) { return lsim_field_get_type(f) == LSIM_TYPE_U16 ? 2 : 4; }

/* 1 if both buffers hold the same points, every column byte for byte. */
static int identical(const lsim_points *a, const lsim_points *b)
{
    if (lsim_points_count(a) != lsim_points_count(b) || lsim_points_fields(a) != lsim_points_fields(b))
        return 0;
    for (int f = 0; f < LSIM_FIELD_COUNT; ++f) {
        const void *ca = lsim_points_column(a, (lsim_field)f), *cb = lsim_points_column(b, (lsim_field)f);
        if (!ca != !cb)
            return 0;
        if (ca && memcmp(ca, cb, lsim_points_count(a) * field_bytes((lsim_field)f)) != 0) {
            fprintf(stderr, "  column %s differs\n", lsim_field_name((lsim_field)f));
            return 0;
        }
    }
    return 1;
}

static const uint32_t *labels_of(const lsim_points *p) { return (const uint32_t *)lsim_points_column(p, LSIM_FIELD_LABEL); }

/* Per wall: beams that hit it without noise, and of those, beams with an echo in the noisy scan
 * (one row per beam: keep_misses). */
typedef struct wall_count {
    size_t hit, kept;
    double inc_min, inc_max, range_min, range_max;
} wall_count;

static void count_walls(const lsim_points *clean, const lsim_points *noisy, wall_count w[4])
{
    CHECK(lsim_points_count(clean) == BEAMS && lsim_points_count(noisy) == BEAMS);
    CHECK(lsim_field_get_type(LSIM_FIELD_LABEL) == LSIM_TYPE_U32);
    const uint32_t *lc = labels_of(clean);
    const float *rc = fixture_f32(clean, LSIM_FIELD_RANGE), *ic = fixture_f32(clean, LSIM_FIELD_INCIDENCE);
    const float *rn = fixture_f32(noisy, LSIM_FIELD_RANGE);
    const uint32_t *ln = labels_of(noisy);
    for (int k = 0; k < 4; ++k)
        w[k] = (wall_count){0, 0, INFINITY, -INFINITY, INFINITY, -INFINITY};
    size_t elsewhere = 0;
    for (size_t i = 0; i < BEAMS; ++i) {
        if (!(rc[i] > 0.0f)) {
            elsewhere += rn[i] > 0.0f; /* a beam that missed every wall has no echo with noise either */
            continue;
        }
        const int k = (int)lc[i] - WALL_A;
        if (k < 0 || k > 3) {
            ++elsewhere;
            continue;
        }
        w[k].hit++;
        w[k].kept += rn[i] > 0.0f && ln[i] == lc[i];
        w[k].inc_min = fmin(w[k].inc_min, ic[i]);
        w[k].inc_max = fmax(w[k].inc_max, ic[i]);
        w[k].range_min = fmin(w[k].range_min, rc[i]);
        w[k].range_max = fmax(w[k].range_max, rc[i]);
    }
    CHECK(elsewhere == 0);
}

static void test_rates(lsim_context *ctx)
{
    double rate[NR * NI * NF] = {0};
    rate[rate_index(1, 0, 3)] = 0.3; /* A */
    rate[rate_index(1, 1, 3)] = 0.6; /* B */
    rate[rate_index(1, 0, 1)] = 0.1; /* C */
    /* D's bin (3, 0, 3) stays 0; the neighbours of every wall's bin drop everything, so an echo
     * binned one step off on any axis would show */
    rate[rate_index(0, 0, 3)] = rate[rate_index(2, 0, 3)] = rate[rate_index(1, 2, 3)] = 1.0;
    rate[rate_index(1, 0, 2)] = rate[rate_index(1, 0, 0)] = rate[rate_index(1, 1, 2)] = 1.0;
    rate[rate_index(2, 0, 3)] = rate[rate_index(4, 0, 3)] = rate[rate_index(3, 1, 3)] = rate[rate_index(3, 0, 2)] = 1.0;
    static char drop[4096];
    drop_yaml(rate, drop, sizeof drop);
    lsim_scene *scene;
    lsim_sensor *sensor;
    load_room(ctx, drop, &scene, &sensor);
    lsim_points *clean = scan(ctx, scene, sensor, 0, 0, 1), *noisy = scan(ctx, scene, sensor, 1, 0, 1);
    wall_count w[4];
    count_walls(clean, noisy, w);
    static const double expect[4] = {0.3, 0.6, 0.1, 0.0};
    static const double inc_bin[4][2] = {{0, 30}, {30, 60}, {0, 30}, {0, 30}};
    static const double range_bin[4][2] = {{5, 10}, {5, 10}, {5, 10}, {20, 40}};
    for (int k = 0; k < 4; ++k) {
        const double dropped = 1.0 - (double)w[k].kept / (double)w[k].hit;
        const double sigma = sqrt(expect[k] * (1.0 - expect[k]) / (double)w[k].hit);
        printf("  wall %c: %zu beams, range %.2f..%.2f m, incidence %.1f..%.1f deg: %.4f dropped (rate %.2f, "
               "3 sigma %.4f)\n", 'A' + k, w[k].hit, w[k].range_min, w[k].range_max, w[k].inc_min, w[k].inc_max,
               dropped, expect[k], 3.0 * sigma);
        CHECK(w[k].hit > 800);
        /* every beam of the wall lies in the bin meant for it, clear of its edges */
        CHECK(w[k].inc_min >= 0.0 && w[k].inc_max < inc_bin[k][1] - 1.0);
        CHECK(inc_bin[k][0] == 0.0 || w[k].inc_min > inc_bin[k][0] + 1.0);
        CHECK(w[k].range_min > range_bin[k][0] + 0.1 && w[k].range_max < range_bin[k][1] - 0.1);
        if (expect[k] > 0.0)
            CHECK_NEAR(dropped, expect[k], 3.0 * sigma);
        else
            CHECK(w[k].kept == w[k].hit); /* rate 0: not one echo lost */
    }
    lsim_points_destroy(noisy);

    /* noise off: the table does not apply, the points are those of the same room without it */
    lsim_scene *plain_scene;
    lsim_sensor *plain;
    load_room(ctx, "", &plain_scene, &plain);
    lsim_points *clean_plain = scan(ctx, plain_scene, plain, 0, 0, 1);
    CHECK(identical(clean, clean_plain));
    lsim_points_destroy(clean_plain);

    /* 1 and 2 threads: the same bytes */
    lsim_points *one = scan(ctx, scene, sensor, 1, 1, 0), *two = scan(ctx, scene, sensor, 1, 2, 0);
    printf("  1 thread: %zu points, 2 threads: %zu\n", lsim_points_count(one), lsim_points_count(two));
    CHECK(identical(one, two));
    /* the table's draws are its own: every point it keeps is the point the plain sensor makes */
    lsim_points *base = scan(ctx, plain_scene, plain, 1, 2, 0);
    CHECK(lsim_points_count(one) < lsim_points_count(base));
    const float *ro = fixture_f32(one, LSIM_FIELD_RANGE), *rb = fixture_f32(base, LSIM_FIELD_RANGE);
    const float *ao = fixture_f32(one, LSIM_FIELD_AZIMUTH), *ab = fixture_f32(base, LSIM_FIELD_AZIMUTH);
    size_t matched = 0, j = 0;
    for (size_t i = 0; i < lsim_points_count(one); ++i) {
        while (j < lsim_points_count(base) && ab[j] != ao[i])
            ++j;
        matched += j < lsim_points_count(base) && rb[j] == ro[i];
    }
    CHECK(matched == lsim_points_count(one));
    lsim_points_destroy(one);
    lsim_points_destroy(two);
    lsim_points_destroy(base);
    lsim_points_destroy(clean);
    lsim_sensor_destroy(plain);
    lsim_scene_destroy(plain_scene);

    /* describe lists the table */
    char text[8192];
    lsim_sensor_describe(sensor, text, sizeof text);
    const char *line = strstr(text, "drop_table: ");
    CHECK(line != NULL);
    if (line) {
        printf("  %.*s\n", (int)strcspn(line, "\n"), line);
        double sum = 0.0;
        for (int i = 0; i < NR * NI * NF; ++i)
            sum += rate[i];
        char want[160];
        snprintf(want, sizeof want, "drop_table: 5 x 4 x 4 bins (range x incidence x reflectance), mean rate %.3g, "
                 "max 1\n", sum / (NR * NI * NF));
        CHECK(strncmp(line, want, strlen(want)) == 0);
    }
    lsim_sensor_destroy(sensor);
    lsim_scene_destroy(scene);
}

/* Rate 1 everywhere: no point with noise; noise off: every wall beam. */
static void test_all_and_off(lsim_context *ctx)
{
    double rate[NR * NI * NF];
    for (int i = 0; i < NR * NI * NF; ++i)
        rate[i] = 1.0;
    static char drop[4096];
    drop_yaml(rate, drop, sizeof drop);
    lsim_scene *scene, *plain_scene;
    lsim_sensor *sensor, *plain;
    load_room(ctx, drop, &scene, &sensor);
    load_room(ctx, "", &plain_scene, &plain);
    lsim_points *all = scan(ctx, scene, sensor, 1, 0, 0);
    lsim_points *off = scan(ctx, scene, sensor, 0, 0, 0), *off_plain = scan(ctx, plain_scene, plain, 0, 0, 0);
    printf("  rate 1: %zu points with noise; noise off: %zu (no table: %zu)\n", lsim_points_count(all),
           lsim_points_count(off), lsim_points_count(off_plain));
    CHECK(lsim_points_count(all) == 0);
    CHECK(lsim_points_count(off) > 8000);
    CHECK(identical(off, off_plain));
    lsim_points_destroy(all);
    lsim_points_destroy(off);
    lsim_points_destroy(off_plain);

    /* rates all 0: exactly the points of no table, with noise */
    for (int i = 0; i < NR * NI * NF; ++i)
        rate[i] = 0.0;
    drop_yaml(rate, drop, sizeof drop);
    lsim_scene *zero_scene;
    lsim_sensor *zero;
    load_room(ctx, drop, &zero_scene, &zero);
    for (int threads = 1; threads <= 2; ++threads) {
        lsim_points *a = scan(ctx, zero_scene, zero, 1, threads, 1), *b = scan(ctx, plain_scene, plain, 1, threads, 1);
        CHECK(identical(a, b));
        lsim_points_destroy(a);
        lsim_points_destroy(b);
    }
    /* no table in the description */
    char text[8192];
    lsim_sensor_describe(plain, text, sizeof text);
    CHECK(strstr(text, "drop_table") == NULL);
    lsim_sensor_destroy(zero);
    lsim_scene_destroy(zero_scene);
    lsim_sensor_destroy(sensor);
    lsim_scene_destroy(scene);
    lsim_sensor_destroy(plain);
    lsim_scene_destroy(plain_scene);
}

/* Two echoes a beam (a glass pane 6 m ahead of a white wall at 15 m, every echo reported): each
 * echo has its own draw from its own bin. The pane (reflectance 0.04, range bin 0) keeps half its
 * echoes, the wall (0.5, range bin 1) three quarters, independently of each other. */
static void test_dual(lsim_context *ctx)
{
    FILE *f = fopen(SCENE_PATH, "w");
    if (!f)
        exit(1);
    fprintf(f, "sensor:\n  type: camera\n  width: 100\n  height: 100\n  hfov_deg: 0.2\n  vfov_deg: 0.2\n"
               "  range: [0.5, 100]\n  receiver: {returns: all, max_returns: 2}\n"
               "  noise:\n    model: constant\n    range_sigma: 0.005\n    intensity_sigma: 0.05\n"
               "    drop: {range_m: [0, 10], incidence_deg: [0], reflectance: [0, 0.3], rate: [0.5, 1, 1, 0.25]}\n"
               "materials:\n  pane: {brdf: glass, ior: 1.5, transmittance: 0.9}\n"
               "  white: {brdf: lambertian, reflectance: 0.5}\n"
               "objects:\n  - plane: {size: [6, 6]}\n    position: [6, 0, 0]\n    rotation: [0, -90, 0]\n"
               "    material: pane\n  - plane: {size: [20, 20]}\n    position: [15, 0, 0]\n"
               "    rotation: [0, -90, 0]\n    material: white\n");
    fclose(f);
    lsim_scene *scene;
    lsim_sensor *sensor;
    REQUIRE_OK(ctx, lsim_scene_load(ctx, SCENE_PATH, &scene, &sensor));
    remove(SCENE_PATH);
    lsim_points *off = scan(ctx, scene, sensor, 0, 0, 0), *p = scan(ctx, scene, sensor, 1, 0, 0);
    CHECK(lsim_points_count(off) == 20000); /* without noise: both echoes of all 10,000 beams */
    const float *r = fixture_f32(p, LSIM_FIELD_RANGE);
    const uint16_t *n = (const uint16_t *)lsim_points_column(p, LSIM_FIELD_NUM_RETURNS);
    size_t pane = 0, wall = 0, both = 0;
    for (size_t i = 0; i < lsim_points_count(p); ++i) {
        pane += fabsf(r[i] - 6.0f) < 0.1f;
        wall += fabsf(r[i] - 15.0f) < 0.1f;
        both += n[i] == 2;
    }
    const double N = 10000.0, fp = pane / N, fw = wall / N, fb = both / 2 / N;
    printf("  two echoes a beam: pane kept %.4f (0.5), wall %.4f (0.75), both %.4f (0.375)\n", fp, fw, fb);
    CHECK(pane + wall == lsim_points_count(p));
    CHECK_NEAR(fp, 0.5, 3.0 * sqrt(0.25 / N));
    CHECK_NEAR(fw, 0.75, 3.0 * sqrt(0.75 * 0.25 / N));
    CHECK_NEAR(fb, 0.375, 3.0 * sqrt(0.375 * 0.625 / N));
    lsim_points_destroy(off);
    lsim_points_destroy(p);
    lsim_sensor_destroy(sensor);
    lsim_scene_destroy(scene);
}

/* The lookup: lower edges inclusive, the last bin open-ended, below 0 and NaN in bin 0; the
 * reflectance of each kind of material. */
static void test_lookup(void)
{
    const double e[4] = {0, 5, 10, 20};
    CHECK(lsim_drop_table_bin(e, 4, 0.0) == 0);
    CHECK(lsim_drop_table_bin(e, 4, 4.999) == 0);
    CHECK(lsim_drop_table_bin(e, 4, 5.0) == 1);
    CHECK(lsim_drop_table_bin(e, 4, 19.99) == 2);
    CHECK(lsim_drop_table_bin(e, 4, 20.0) == 3);
    CHECK(lsim_drop_table_bin(e, 4, 1e9) == 3);
    CHECK(lsim_drop_table_bin(e, 4, -1.0) == 0);
    CHECK(lsim_drop_table_bin(e, 4, NAN) == 0);
    CHECK(lsim_drop_table_bin(e, 1, 7.0) == 0);
    lsim_drop_table t;
    memset(&t, 0, sizeof t);
    t.n_range = 2;
    t.n_incidence = 2;
    t.n_reflectance = 3;
    t.range_m[1] = 10;
    t.incidence_deg[1] = 45;
    t.reflectance[1] = 0.2;
    t.reflectance[2] = 10;
    double rate[12];
    for (int i = 0; i < 12; ++i)
        rate[i] = i / 100.0;
    t.rate = rate;
    CHECK(lsim_drop_table_rate(&t, 3, 10, 0.1) == 0.00);
    CHECK(lsim_drop_table_rate(&t, 3, 10, 0.5) == 0.01);
    CHECK(lsim_drop_table_rate(&t, 3, 50, 0.1) == 0.03);
    CHECK(lsim_drop_table_rate(&t, 12, 10, 0.1) == 0.06);
    CHECK(lsim_drop_table_rate(&t, 12, 89, 942) == 0.11);
    lsim_brdf b;
    lsim_brdf_defaults(&b, LSIM_BRDF_OREN_NAYAR);
    b.reflectance = 0.27;
    CHECK(lsim_drop_table_reflectance(&b) == 0.27);
    lsim_brdf_defaults(&b, LSIM_BRDF_MIRROR);
    CHECK(lsim_drop_table_reflectance(&b) == 0.9);
    lsim_brdf_defaults(&b, LSIM_BRDF_GLASS);
    CHECK_NEAR(lsim_drop_table_reflectance(&b), 0.04, 1e-12);
    lsim_brdf_defaults(&b, LSIM_BRDF_RETROREFLECTOR);
    CHECK_NEAR(lsim_drop_table_reflectance(&b), 300.0 * 3.14159265358979323846, 1e-9);
    /* the draw: a fixed key gives a fixed answer; over many echoes the rate */
    size_t kept = 0;
    for (uint32_t k = 0; k < 100000; ++k)
        kept += lsim_drop_table_keep(&t, 7, 0, k, 0, 3, 10, 0.5); /* rate 0.01 */
    printf("  draw at rate 0.01: %.5f of 100000 dropped\n", 1.0 - kept / 1e5);
    CHECK_NEAR(1.0 - kept / 1e5, 0.01, 3.0 * sqrt(0.01 * 0.99 / 1e5));
    CHECK(lsim_drop_table_keep(&t, 7, 0, 5, 1, 3, 10, 0.5) == lsim_drop_table_keep(&t, 7, 0, 5, 1, 3, 10, 0.5));
}

/* A malformed table fails at its line, naming the key and what is valid. */
static void expect_error(lsim_context *ctx, const char *what, const char *drop, const char *const *contains)
{
    char yaml[2048];
    snprintf(yaml, sizeof yaml, "  preset: vlp16\n  noise:\n    model: snr\n%s", drop);
    lsim_sensor *s = NULL;
    lsim_status st = fixture_load_sensor(ctx, SCENE_PATH, yaml, &s);
    const char *msg = lsim_context_last_error(ctx);
    CHECK(report_case(what, st == LSIM_ERR_PARSE && s == NULL && strstr(msg, SCENE_PATH ":") != NULL &&
                                contains_all(msg, contains), st, msg));
    lsim_sensor_destroy(s);
}

static void test_errors(lsim_context *ctx)
{
    static const char *const count[] = {SCENE_PATH ":9:", "sensor.noise.drop.rate", "3 rates", "need 8", NULL};
    expect_error(ctx, "wrong count",
                 "    drop:\n      range_m: [0, 5]\n      incidence_deg: [0, 45]\n      reflectance: [0, 0.2]\n"
                 "      rate: [0, 0.1, 0.2]\n", count);
    static const char *const big[] = {SCENE_PATH ":9:", "sensor.noise.drop.rate[2]", "1.5", "[0, 1]", NULL};
    expect_error(ctx, "rate 1.5",
                 "    drop:\n      range_m: [0]\n      incidence_deg: [0]\n      reflectance: [0, 0.1, 0.2]\n"
                 "      rate: [0, 0.1, 1.5]\n", big);
    static const char *const negative[] = {"sensor.noise.drop.rate[0]", "-0.1", "[0, 1]", NULL};
    expect_error(ctx, "rate -0.1",
                 "    drop:\n      range_m: [0]\n      incidence_deg: [0]\n      reflectance: [0]\n"
                 "      rate: [-0.1]\n", negative);
    static const char *const descending[] = {SCENE_PATH ":6:", "sensor.noise.drop.range_m[2]", "must rise", NULL};
    expect_error(ctx, "descending edges",
                 "    drop:\n      range_m: [0, 10, 5]\n      incidence_deg: [0]\n      reflectance: [0]\n"
                 "      rate: [0, 0, 0]\n", descending);
    static const char *const first[] = {SCENE_PATH ":8:", "sensor.noise.drop.reflectance[0]", "must be 0", NULL};
    expect_error(ctx, "first edge not 0",
                 "    drop:\n      range_m: [0]\n      incidence_deg: [0]\n      reflectance: [0.1, 0.2]\n"
                 "      rate: [0, 0]\n", first);
    static const char *const right[] = {SCENE_PATH ":7:", "sensor.noise.drop.incidence_deg[1]", "below 90", NULL};
    expect_error(ctx, "incidence edge 90",
                 "    drop:\n      range_m: [0]\n      incidence_deg: [0, 90]\n      reflectance: [0]\n"
                 "      rate: [0, 0]\n", right);
    char many[1024] = "    drop:\n      range_m: [0";
    for (int i = 1; i < 65; ++i)
        snprintf(many + strlen(many), sizeof many - strlen(many), ", %d", i);
    strncat(many, "]\n      incidence_deg: [0]\n      reflectance: [0]\n      rate: [0]\n",
            sizeof many - strlen(many) - 1);
    static const char *const edges65[] = {SCENE_PATH ":6:", "sensor.noise.drop.range_m", "65 edges", "1 to 64", NULL};
    expect_error(ctx, "65 edges", many, edges65);
    static const char *const scalar[] = {SCENE_PATH ":9:", "sensor.noise.drop.rate", "list", NULL};
    expect_error(ctx, "rate not a list",
                 "    drop:\n      range_m: [0]\n      incidence_deg: [0]\n      reflectance: [0]\n"
                 "      rate: 0.3\n", scalar);
    static const char *const axis[] = {SCENE_PATH ":7:", "sensor.noise.drop.incidence_deg", "list", NULL};
    expect_error(ctx, "edges not a list",
                 "    drop:\n      range_m: [0]\n      incidence_deg: {a: 1}\n      reflectance: [0]\n"
                 "      rate: [0]\n", axis);
    static const char *const missing[] = {"sensor.noise.drop.reflectance", "missing", NULL};
    expect_error(ctx, "missing axis", "    drop:\n      range_m: [0]\n      incidence_deg: [0]\n      rate: [0]\n",
                 missing);
    static const char *const unknown[] = {"sensor.noise.drop", "rates", NULL};
    expect_error(ctx, "unknown key",
                 "    drop:\n      range_m: [0]\n      incidence_deg: [0]\n      reflectance: [0]\n      rates: [0]\n",
                 unknown);
    static const char *const not_map[] = {SCENE_PATH ":5:", "sensor.noise.drop", "mapping", NULL};
    expect_error(ctx, "drop not a mapping", "    drop: [0.1]\n", not_map);
    /* a good one loads, its arrays owned by the sensor */
    lsim_sensor *s = NULL;
    REQUIRE_OK(ctx, fixture_load_sensor(ctx, SCENE_PATH,
                                        "  preset: vlp16\n  noise:\n    drop:\n      range_m: [0, 50]\n"
                                        "      incidence_deg: [0]\n      reflectance: [0, 0.5]\n"
                                        "      rate: [0.1, 0.2, 0.3, 0.4]\n", &s));
    CHECK(s->spec.drop.n_range == 2 && s->spec.drop.n_incidence == 1 && s->spec.drop.n_reflectance == 2);
    CHECK(s->spec.drop.range_m[1] == 50.0 && s->spec.drop.reflectance[1] == 0.5);
    CHECK(s->spec.drop.rate && s->spec.drop.rate[3] == 0.4);
    lsim_sensor_spec copy;
    REQUIRE_OK(ctx, lsim_sensor_spec_copy(ctx, &s->spec, &copy));
    CHECK(copy.drop.rate != s->spec.drop.rate && copy.drop.rate[2] == 0.3);
    lsim_sensor_spec_free(&copy);
    CHECK(copy.drop.rate == NULL && copy.drop.n_range == 0);
    lsim_sensor_destroy(s);
}

int main(void)
{
    lsim_context *ctx;
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    test_lookup();
    test_rates(ctx);
    test_all_and_off(ctx);
    test_dual(ctx);
    test_errors(ctx);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_drop_table");
}
