/* Sensor presets against their datasheets, beam geometry of every kind, spec validation. */
#include "harness.h"

#include "core/vec.h"
#include "lidarsim.h"
#include "sensor/sensor.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PI 3.14159265358979323846

/* Beam table of a sensor in degrees (exact, from lsim_sensor_get_beams). */
typedef struct table {
    size_t n;
    double *az, *el, *t;
    uint16_t *ring;
} table;

static table get_table(lsim_context *ctx, const lsim_sensor *s)
{
    table tb;
    tb.n = lsim_sensor_beam_count(s);
    tb.az = malloc(tb.n * sizeof(double));
    tb.el = malloc(tb.n * sizeof(double));
    tb.t = malloc(tb.n * sizeof(double));
    tb.ring = malloc(tb.n * sizeof(uint16_t));
    if (!tb.az || !tb.el || !tb.t || !tb.ring) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    REQUIRE_OK(ctx, lsim_sensor_get_beams(s, tb.az, tb.el, tb.t, tb.ring));
    return tb;
}

static void free_table(table *tb)
{
    free(tb->az);
    free(tb->el);
    free(tb->t);
    free(tb->ring);
}

static double wrap(double d)
{
    d = fmod(d, 360.0);
    if (d > 180.0)
        d -= 360.0;
    if (d <= -180.0)
        d += 360.0;
    return d;
}

/* Float beams: unit directions that agree with azimuth/elevation; times in [0, 1/rate). */
static void check_common(const lsim_sensor *s, const table *tb)
{
    const lsim_beams *b = &s->beams;
    CHECK(b->count == tb->n);
    int bad_unit = 0, bad_dir = 0, bad_time = 0, bad_float = 0;
    double period = 1.0 / s->spec.rate_hz;
    for (size_t i = 0; i < b->count; ++i) {
        double x = b->dx[i], y = b->dy[i], z = b->dz[i];
        if (fabs(sqrt(x * x + y * y + z * z) - 1.0) > 1e-6)
            ++bad_unit;
        double az = b->azimuth[i], el = b->elevation[i];
        if (fabs(cos(el) * cos(az) - x) > 1e-6 || fabs(cos(el) * sin(az) - y) > 1e-6 || fabs(sin(el) - z) > 1e-6)
            ++bad_dir;
        /* in firing order; a rotating sensor's channels fire in their own slots within a column */
        const size_t back = s->spec.kind == LSIM_SENSOR_ROTATING ? (size_t)s->spec.channels : 1;
        if (!(b->time[i] >= 0.0f && b->time[i] < period) || !(tb->t[i] >= 0.0 && tb->t[i] < period) ||
            (i >= back && tb->t[i] < tb->t[i - back]))
            ++bad_time;
        if (fabs(wrap(az / LSIM_DEG - tb->az[i])) > 1e-4 || fabs(el / LSIM_DEG - tb->el[i]) > 1e-4 ||
            b->ring[i] != tb->ring[i])
            ++bad_float;
    }
    CHECK(bad_unit == 0);
    CHECK(bad_dir == 0);
    CHECK(bad_time == 0);
    CHECK(bad_float == 0);
}

/* `expect`: the datasheet elevations ascending, matched within `tol` degrees (datasheets round to
 * 0.01 deg); the beams must carry the preset's own elevations exactly. `spin` -1: clockwise from
 * `start` deg; `firing_hz` > 0: columns start every 1 / firing_hz s (else 1 / (columns rate)).
 * Every beam's time and azimuth are checked against the head model of beams_rotating.c written
 * out here: time = column start + the channel's slot, azimuth = start + spin 360 rate time +
 * the channel's azimuth offset. */
static void check_rotating(lsim_context *ctx, const char *name, const double *expect, double tol, int channels,
                           int columns, double rate_hz, int spin, double start, double firing_hz)
{
    lsim_sensor *s;
    REQUIRE_OK(ctx, lsim_sensor_create_preset(ctx, name, &s));
    fprintf(stderr, "checking %s\n", name);
    CHECK(strcmp(lsim_sensor_name(s), name) == 0);
    CHECK(s->spec.kind == LSIM_SENSOR_ROTATING);
    CHECK(s->spec.channels == channels);
    CHECK(s->spec.columns == columns);
    CHECK(s->spec.spin == spin);
    CHECK_NEAR(s->spec.azimuth_start_deg, start, 0);
    CHECK_NEAR(s->spec.firing_rate_hz, firing_hz, 1e-9 * firing_hz);
    CHECK_NEAR(s->spec.rate_hz, rate_hz, 0);
    CHECK(lsim_sensor_beam_count(s) == (size_t)channels * (size_t)columns);
    if (s->spec.channels != channels || s->spec.columns != columns) {
        lsim_sensor_destroy(s);
        return;
    }
    const double *elev = s->spec.elevations_deg;
    for (int i = 0; i < channels; ++i)
        CHECK_NEAR(elev[i], expect[i], tol);

    table tb = get_table(ctx, s);
    check_common(s, &tb);
    int bad_el = 0, bad_ring = 0, bad_az = 0, bad_time = 0;
    const double period = firing_hz > 0 ? 1.0 / firing_hz : 1.0 / (columns * rate_hz);
    for (size_t i = 0; i < tb.n; ++i) {
        const int ch = (int)(i % (size_t)channels);
        const double col = (double)(i / (size_t)channels);
        const double slot = s->spec.channel_time_s ? s->spec.channel_time_s[ch] : 0.0;
        const double offset = s->spec.channel_azimuth_deg ? s->spec.channel_azimuth_deg[ch] : 0.0;
        const double t = col * period + slot;
        if (tb.ring[i] != ch)
            ++bad_ring;
        if (fabs(tb.el[i] - elev[ch]) > 1e-6)
            ++bad_el;
        if (fabs(tb.t[i] - t) > 1e-12)
            ++bad_time;
        if (fabs(wrap(tb.az[i] - (start + spin * 360.0 * rate_hz * t + offset))) > 1e-7)
            ++bad_az;
    }
    CHECK(bad_el == 0);
    CHECK(bad_ring == 0);
    CHECK(bad_time == 0);
    CHECK(bad_az == 0);
    for (int i = 1; i < channels; ++i)
        CHECK(elev[i] > elev[i - 1]); /* ring 0 lowest, ascending */
    /* the revolution: at most one column short of a whole turn, never past it */
    const double turned = 360.0 * rate_hz * columns * period;
    CHECK(turned <= 360.0 + 1e-9 && turned > 360.0 * (columns - 1.0) / columns);
    for (size_t i = 0; i < tb.n; ++i)
        if (!(tb.az[i] > -180.0 && tb.az[i] <= 180.0)) {
            CHECK(!"azimuth outside (-180, 180]");
            break;
        }
    free_table(&tb);
    lsim_sensor_destroy(s);
}

/* Velodyne VLP-16 user manual (63-9243), vertical angle of each laser, ascending. */
static const double vlp16_datasheet[16] = {-15, -13, -11, -9, -7, -5, -3, -1, 1, 3, 5, 7, 9, 11, 13, 15};
/* Velodyne HDL-32E user manual (63-9113), vertical angle of each laser (2 decimals), ascending. */
static const double hdl32e_datasheet[32] = {
    -30.67, -29.33, -28.00, -26.67, -25.33, -24.00, -22.67, -21.33, -20.00, -18.67, -17.33,
    -16.00, -14.67, -13.33, -12.00, -10.67, -9.33,  -8.00,  -6.67,  -5.33,  -4.00,  -2.67,
    -1.33,  0.00,   1.33,   2.67,   4.00,   5.33,   6.67,   8.00,   9.33,   10.67};

static void test_rotating_presets(lsim_context *ctx)
{
    /* VLP-16: the literal datasheet table (its nominal calibration is exact: every 2 deg); one
     * firing sequence every 55.296 us, clockwise. */
    check_rotating(ctx, "vlp16", vlp16_datasheet, 1e-9, 16, 1808, 10.0, -1, 0.0, 1.0 / 55.296e-6);
    /* HDL-32E: the literal datasheet table, which rounds 4/3-deg steps to 0.01 deg; a 46.08 us
     * firing cycle. */
    check_rotating(ctx, "hdl32e", hdl32e_datasheet, 0.01, 32, 2170, 10.0, -1, 0.0, 1.0 / 46.08e-6);
    /* HDL-64E: a real unit's table (64e_utexas; test_real_units checks it beam by beam). The S2
     * manual's vertical field of view is +2.0..-24.8 deg (26.8 deg): the preset's top and bottom
     * lasers are the datasheet's within 0.1 deg (the old 64e_s2.1-sztaki table topped at +4.97). */
    lsim_sensor_spec spec;
    REQUIRE_OK(ctx, lsim_sensor_spec_from_preset(ctx, "hdl64e", &spec));
    CHECK(spec.channels == 64);
    if (spec.channels == 64) {
        printf("hdl64e: elevations %+.3f..%+.3f deg (S2 datasheet +2.0..-24.8)\n", spec.elevations_deg[63],
               spec.elevations_deg[0]);
        CHECK_NEAR(spec.elevations_deg[63], 2.0, 0.1);
        CHECK_NEAR(spec.elevations_deg[0], -24.8, 0.1);
        CHECK_NEAR(spec.elevations_deg[63] - spec.elevations_deg[0], 26.8, 0.2);
    }
    check_rotating(ctx, "hdl64e", spec.elevations_deg, 0, 64, 2083, 10.0, -1, 0.0, 1e6 / 48.0);
    lsim_sensor_spec_free(&spec);
    /* Ouster: real units' metadata (test_preset_units checks the beams against the files);
     * clockwise from behind the sensor; 1024 columns at 10 Hz, the units' lidar mode */
    static const struct { const char *name; int channels; } ouster[] = {
        {"os0-32", 32}, {"os1-32", 32}, {"os1-64", 64}, {"os1-128", 128}, {"os2-128", 128}};
    for (size_t i = 0; i < sizeof ouster / sizeof ouster[0]; ++i) {
        REQUIRE_OK(ctx, lsim_sensor_spec_from_preset(ctx, ouster[i].name, &spec));
        check_rotating(ctx, ouster[i].name, spec.elevations_deg, 0, ouster[i].channels, 1024, 10.0, -1, 180.0, 0);
        lsim_sensor_spec_free(&spec);
    }
}

static void check_planar(lsim_context *ctx, const char *name, int steps, double step_deg, double rate_hz,
                         double rmin, double rmax)
{
    lsim_sensor *s;
    REQUIRE_OK(ctx, lsim_sensor_create_preset(ctx, name, &s));
    fprintf(stderr, "checking %s\n", name);
    CHECK(s->spec.kind == LSIM_SENSOR_PLANAR);
    CHECK(lsim_sensor_beam_count(s) == (size_t)steps);
    CHECK_NEAR(s->spec.rate_hz, rate_hz, 0);
    CHECK_NEAR(s->spec.range_min, rmin, 0);
    CHECK_NEAR(s->spec.range_max, rmax, 0);
    table tb = get_table(ctx, s);
    check_common(s, &tb);
    double fov = steps * step_deg;
    int bad = 0;
    /* the head turns at rate_hz: the steps take fov / 360 of a turn */
    const double sweep = (fov < 360.0 ? fov / 360.0 : 1.0) / rate_hz;
    for (int i = 0; i < steps && (size_t)i < tb.n; ++i) {
        double expect = -fov / 2 + (i + 0.5) * step_deg;
        if (fabs(tb.az[i] - expect) > 1e-9 || tb.el[i] != 0.0 || tb.ring[i] != 0 ||
            fabs(tb.t[i] - i * sweep / steps) > 1e-12)
            ++bad;
    }
    CHECK(bad == 0);
    CHECK_NEAR(tb.az[0], -fov / 2 + step_deg / 2, 1e-9);
    CHECK_NEAR(tb.az[tb.n - 1], fov / 2 - step_deg / 2, 1e-9);
    free_table(&tb);
    lsim_sensor_destroy(s);
}

/* Pixel (u, v) centre direction ratios y/x and z/x from the beam's azimuth and elevation. */
static void ratios(const table *tb, size_t i, double *yx, double *zx)
{
    double ta = tan(tb->az[i] * PI / 180.0);
    *yx = ta;
    *zx = tan(tb->el[i] * PI / 180.0) * sqrt(1.0 + ta * ta);
}

static void test_camera(lsim_context *ctx)
{
    lsim_sensor *s;
    REQUIRE_OK(ctx, lsim_sensor_create_preset(ctx, "kinect-v2", &s));
    fprintf(stderr, "checking kinect-v2\n");
    const int w = 512, h = 424;
    CHECK(s->spec.kind == LSIM_SENSOR_CAMERA);
    CHECK(lsim_sensor_beam_count(s) == (size_t)w * h);
    CHECK_NEAR(s->spec.rate_hz, 30.0, 0);
    table tb = get_table(ctx, s);
    check_common(s, &tb);
    /* top-left pixel (0,0) looks left and up; bottom-right looks right and down */
    double yx0, zx0, yx1, zx1;
    ratios(&tb, 0, &yx0, &zx0);
    ratios(&tb, tb.n - 1, &yx1, &zx1);
    CHECK(yx0 > 0 && zx0 > 0 && yx1 < 0 && zx1 < 0);
    CHECK_NEAR(yx0, -yx1, 1e-12);
    CHECK_NEAR(zx0, -zx1, 1e-12);
    /* pixel centres sit half a pixel inside the edges: extrapolate to the outer edges */
    double left_edge = yx0 * (w / 2.0) / (w / 2.0 - 0.5), right_edge = yx1 * (w / 2.0) / (w / 2.0 - 0.5);
    double top_edge = zx0 * (h / 2.0) / (h / 2.0 - 0.5), bottom_edge = zx1 * (h / 2.0) / (h / 2.0 - 0.5);
    CHECK_NEAR((atan(left_edge) - atan(right_edge)) * 180.0 / PI, 70.6, 1e-9);
    CHECK_NEAR((atan(top_edge) - atan(bottom_edge)) * 180.0 / PI, 60.0, 1e-9);
    /* uniform pixel pitch on the image plane along row 0 */
    double prev = yx0, pitch = 0;
    int bad = 0;
    for (int u = 1; u < w; ++u) {
        double yx, zx;
        ratios(&tb, (size_t)u, &yx, &zx);
        if (u == 1)
            pitch = prev - yx;
        else if (fabs((prev - yx) - pitch) > 1e-12)
            ++bad;
        if (fabs(zx - zx0) > 1e-12)
            ++bad;
        prev = yx;
    }
    CHECK(bad == 0);
    CHECK(tb.ring[0] == 0 && tb.ring[(size_t)w] == 1 && tb.ring[tb.n - 1] == h - 1);
    CHECK(tb.t[tb.n - 1] == 0.0);
    free_table(&tb);
    lsim_sensor_destroy(s);
}

/* A rosette sensor's beams lie inside its circular field of view `fov` degrees, reach its edge, and
 * cover at least 90% of the `cell` x `cell` degree cells inside 0.9 fov/2 (at least `min_cells`). */
static void check_rosette_coverage(lsim_context *ctx, const lsim_sensor *s, const char *label, double fov,
                                   double cell, int min_cells)
{
    table tb = get_table(ctx, s);
    check_common(s, &tb);
    const double half = fov / 2;
    enum { G = 64 };
    static unsigned char hit[2 * G][2 * G];
    memset(hit, 0, sizeof hit);
    int outside = 0;
    double max_off = 0;
    for (size_t i = 0; i < tb.n; ++i) {
        double az = tb.az[i] * PI / 180.0, el = tb.el[i] * PI / 180.0;
        double x = cos(el) * cos(az), y = cos(el) * sin(az), z = sin(el);
        double off = atan2(hypot(y, z), x) * 180.0 / PI; /* angle from +x, degrees */
        if (off > half + 1e-9)
            ++outside;
        if (off > max_off)
            max_off = off;
        double phi = atan2(z, y);
        int a = (int)floor(off * cos(phi) / cell) + G, b = (int)floor(off * sin(phi) / cell) + G;
        if (a >= 0 && a < 2 * G && b >= 0 && b < 2 * G)
            hit[a][b] = 1;
        /* float beams too */
        double fx = s->beams.dx[i];
        if (fx < cos(half * PI / 180.0) - 1e-6)
            ++outside;
    }
    CHECK(outside == 0);
    CHECK(max_off > 0.95 * half); /* reaches the edge of the field of view */
    int cells = 0, covered = 0;
    double r = 0.9 * half / cell;
    for (int a = 0; a < 2 * G; ++a)
        for (int b = 0; b < 2 * G; ++b) {
            double cx = a - G + 0.5, cy = b - G + 0.5;
            if (cx * cx + cy * cy <= r * r) {
                ++cells;
                covered += hit[a][b];
            }
        }
    fprintf(stderr, "%s covers %d of %d %g-deg cells inside 0.9 fov/2 (max off-axis %.2f of %.2f deg)\n", label,
            covered, cells, cell, max_off, half);
    CHECK(cells >= min_cells);
    CHECK(covered >= 0.9 * cells);
    free_table(&tb);
}

static void test_rosette(lsim_context *ctx)
{
    lsim_sensor *s;
    REQUIRE_OK(ctx, lsim_sensor_create_preset(ctx, "livox-mid40", &s));
    fprintf(stderr, "checking livox-mid40\n");
    CHECK(s->spec.kind == LSIM_SENSOR_ROSETTE);
    CHECK(lsim_sensor_beam_count(s) == 10000);
    CHECK_NEAR(s->spec.rate_hz * 10000, 100000, 0); /* 100k points/s */
    check_rosette_coverage(ctx, s, "livox-mid40", 38.4, 1.0, 800);
    CHECK(s->spec.rosette_hz[0] * s->spec.rosette_hz[1] < 0); /* counter-rotating prisms */
    CHECK(s->spec.rosette_hz[0] == lsim_sensor_default_prism_hz[0]);
    CHECK(s->spec.rosette_hz[1] == lsim_sensor_default_prism_hz[1]);
    lsim_sensor_destroy(s);

    /* An inline rosette (scene `sensor: {type: rosette, points: 1000, fov_deg: 30}`) starts from the
     * spec defaults: the same prism rates as the preset, so its beams spread over the field of view. */
    lsim_sensor_spec spec;
    lsim_sensor_spec_defaults(&spec);
    CHECK(spec.rosette_hz[0] == lsim_sensor_default_prism_hz[0]);
    CHECK(spec.rosette_hz[1] == lsim_sensor_default_prism_hz[1]);
    CHECK(spec.rosette_hz[0] != 0 && spec.rosette_hz[1] != 0 && spec.rosette_hz[0] != spec.rosette_hz[1]);
    spec.kind = LSIM_SENSOR_ROSETTE;
    spec.rosette_points = 1000;
    spec.rosette_fov_deg = 30;
    CHECK(lsim_sensor_spec_validate(ctx, &spec) == LSIM_OK);
    REQUIRE_OK(ctx, lsim_sensor_create_from_spec(ctx, &spec, &s));
    fprintf(stderr, "checking inline rosette\n");
    CHECK(lsim_sensor_beam_count(s) == 1000);
    check_rosette_coverage(ctx, s, "inline rosette (1000 points, 30 deg)", 30.0, 2.0, 120);

    /* explicit rates: the pattern follows them (a different rate, different beams) */
    lsim_sensor_spec_defaults(&spec);
    spec.kind = LSIM_SENSOR_ROSETTE;
    spec.rosette_points = 1000;
    spec.rosette_fov_deg = 30;
    spec.rosette_hz[0] = 400;
    spec.rosette_hz[1] = -247.2;
    lsim_sensor *s2;
    REQUIRE_OK(ctx, lsim_sensor_create_from_spec(ctx, &spec, &s2));
    CHECK(s2->spec.rosette_hz[0] == 400 && s2->spec.rosette_hz[1] == -247.2);
    CHECK(s2->beams.dy[10] != s->beams.dy[10] && s2->beams.dz[10] != s->beams.dz[10]);
    check_rosette_coverage(ctx, s2, "inline rosette (400, -247.2 Hz)", 30.0, 2.0, 120);
    lsim_sensor_destroy(s2);
    lsim_sensor_destroy(s);
}

static void test_preset_list(lsim_context *ctx)
{
    const char *const *names = lsim_sensor_preset_names();
    static const char *const expect[] = {"vlp16",   "hdl32e",     "hdl64e",   "os0-32",      "os1-32",
                                         "os1-64",  "os1-128",    "os2-128",  "rplidar-a1",  "urg-04lx",
                                         "livox-mid40", "kinect-v2"};
    size_t n = 0;
    while (names[n])
        ++n;
    CHECK(n == sizeof expect / sizeof expect[0]);
    for (size_t i = 0; i < sizeof expect / sizeof expect[0]; ++i) {
        const char *d = lsim_sensor_preset_description(expect[i]);
        CHECK(d != NULL && strlen(d) > 20);
        int found = 0;
        for (size_t j = 0; j < n; ++j)
            found |= strcmp(names[j], expect[i]) == 0;
        CHECK(found);
    }
    CHECK(lsim_sensor_preset_description("nope") == NULL);
    CHECK(lsim_sensor_preset_description(NULL) == NULL);
    lsim_sensor *s = (lsim_sensor *)1;
    CHECK(lsim_sensor_create_preset(ctx, "vlp-16", &s) == LSIM_ERR_NOT_FOUND);
    CHECK(s == NULL);
    CHECK(strstr(lsim_context_last_error(ctx), "vlp-16") != NULL);
    CHECK(strstr(lsim_context_last_error(ctx), "vlp16") != NULL);
    CHECK(strstr(lsim_context_last_error(ctx), "kinect-v2") != NULL);
    CHECK(lsim_sensor_create_preset(ctx, NULL, &s) == LSIM_ERR_NOT_FOUND);
    CHECK(lsim_sensor_create_preset(ctx, "vlp16", NULL) == LSIM_ERR_INVALID_ARGUMENT);

    /* datasheet ranges and noise */
    static const struct { const char *name; double rmin, rmax, sigma, rate; } r[] = {
        {"vlp16", 0.5, 100, 0.015, 10}, {"hdl32e", 1, 100, 0.01, 10},   {"hdl64e", 0.9, 120, 0.01, 10},
        {"os0-32", 0.24, 50, 0.015, 10}, {"os1-32", 0.3, 120, 0.015, 10}, {"os1-64", 0.8, 120, 0.015, 10},
        {"os1-128", 0.3, 120, 0.015, 10}, {"os2-128", 0.8, 240, 0.01, 10} /* the real unit's 1 cm */, {"rplidar-a1", 0.15, 12, 0.005, 5.5},
        {"urg-04lx", 0.02, 5.6, 0.01, 10}, {"livox-mid40", 1, 260, 0.02, 10}, {"kinect-v2", 0.5, 4.5, 0.005, 30},
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; ++i) {
        lsim_sensor_spec spec;
        REQUIRE_OK(ctx, lsim_sensor_spec_from_preset(ctx, r[i].name, &spec));
        CHECK_NEAR(spec.range_min, r[i].rmin, 0);
        CHECK_NEAR(spec.range_max, r[i].rmax, 0);
        CHECK_NEAR(spec.range_sigma, r[i].sigma, 0);
        CHECK_NEAR(spec.rate_hz, r[i].rate, 0);
        CHECK_NEAR(spec.intensity_sigma, 0.05, 0);
        double reach10 = 0.0; /* the threshold gives the radiometry table's 10 % reach (preset_radiometry.c) */
        CHECK(lsim_sensor_preset_reach(r[i].name, &reach10, NULL));
        CHECK_NEAR(spec.detection_reflectance, 0.1 * (r[i].rmax / reach10) * (r[i].rmax / reach10), 1e-12);
        CHECK(strcmp(spec.name, r[i].name) == 0);
        CHECK(lsim_sensor_spec_validate(ctx, &spec) == LSIM_OK);
        lsim_sensor_spec_free(&spec);
    }
}

static void test_pattern_roundtrip(lsim_context *ctx)
{
    const double az[] = {0.0, 45.5, -179.25, 180.0, 270.0, 10.0};
    const double el[] = {0.0, -10.25, 89.0, -90.0, 5.0, 90.0};
    const double t[] = {0.0, 0.001, 0.002, 0.002, 0.01, 0.02};
    const uint16_t ring[] = {3, 1, 65535, 0, 7, 2};
    lsim_sensor *s;
    REQUIRE_OK(ctx, lsim_sensor_create_pattern(ctx, 6, az, el, t, ring, &s));
    CHECK(lsim_sensor_beam_count(s) == 6);
    CHECK(strcmp(lsim_sensor_name(s), "pattern") == 0);
    double gaz[6], gel[6], gt[6];
    uint16_t gr[6];
    REQUIRE_OK(ctx, lsim_sensor_get_beams(s, gaz, gel, gt, gr));
    for (int i = 0; i < 6; ++i) {
        CHECK_NEAR(gaz[i], i == 4 ? -90.0 : az[i], 1e-12); /* wrapped into (-180, 180] */
        CHECK_NEAR(gel[i], el[i], 1e-12);
        CHECK_NEAR(gt[i], t[i], 0);
        CHECK(gr[i] == ring[i]);
        double x = s->beams.dx[i], y = s->beams.dy[i], z = s->beams.dz[i];
        CHECK_NEAR(sqrt(x * x + y * y + z * z), 1.0, 1e-6);
        CHECK_NEAR(z, sin(el[i] * PI / 180.0), 1e-6);
    }
    CHECK_NEAR(s->beams.dy[1], cos(-10.25 * PI / 180) * sin(45.5 * PI / 180), 1e-6);
    /* any output pointer may be NULL */
    REQUIRE_OK(ctx, lsim_sensor_get_beams(s, NULL, gel, NULL, NULL));
    lsim_sensor_destroy(s);

    /* time and ring optional: 0 */
    REQUIRE_OK(ctx, lsim_sensor_create_pattern(ctx, 2, az, el, NULL, NULL, &s));
    REQUIRE_OK(ctx, lsim_sensor_get_beams(s, gaz, gel, gt, gr));
    CHECK(gt[0] == 0 && gt[1] == 0 && gr[0] == 0 && gr[1] == 0);
    lsim_sensor_destroy(s);

    /* bad patterns */
    const double bad_el[] = {0.0, 95.0};
    CHECK(lsim_sensor_create_pattern(ctx, 2, az, bad_el, NULL, NULL, &s) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "sensor.pattern[1].elevation_deg") != NULL);
    const double bad_t[] = {0.0, -1.0};
    CHECK(lsim_sensor_create_pattern(ctx, 2, az, el, bad_t, NULL, &s) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "time_s") != NULL);
    CHECK(lsim_sensor_create_pattern(ctx, 0, az, el, NULL, NULL, &s) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "sensor.pattern") != NULL);
    CHECK(lsim_sensor_create_pattern(ctx, 2, NULL, el, NULL, NULL, &s) == LSIM_ERR_INVALID_ARGUMENT);
    const double nan_az[] = {NAN, 0.0};
    CHECK(lsim_sensor_create_pattern(ctx, 2, nan_az, el, NULL, NULL, &s) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "sensor.pattern[0].azimuth_deg") != NULL);
}

static void test_api_constructors(lsim_context *ctx)
{
    lsim_sensor *s;
    const double el[] = {-1.0, 3.0, 2.0};
    REQUIRE_OK(ctx, lsim_sensor_create_rotating(ctx, 3, el, 4, 20.0, &s));
    table tb = get_table(ctx, s);
    CHECK(tb.n == 12);
    CHECK_NEAR(tb.el[1], 3.0, 0); /* user order kept: ring i = elevations_deg[i] */
    CHECK(tb.ring[1] == 1);
    CHECK_NEAR(tb.az[3], 90.0, 1e-12);
    CHECK_NEAR(tb.az[6], 180.0, 1e-12);
    CHECK_NEAR(tb.az[9], -90.0, 1e-12);
    CHECK_NEAR(tb.t[9], 3.0 / 80.0, 1e-15);
    check_common(s, &tb);
    free_table(&tb);

    /* pose, range, noise */
    const double pos[3] = {1, 2, 3}, rpy[3] = {10, -20, 30};
    REQUIRE_OK(ctx, lsim_sensor_set_pose(s, pos, rpy));
    lsim_pose p = lsim_pose_make(pos, rpy);
    CHECK(memcmp(&p, &s->pose, sizeof p) == 0);
    CHECK(s->position[2] == 3 && s->rotation_deg[1] == -20);
    const double bad_pos[3] = {0, NAN, 0};
    CHECK(lsim_sensor_set_pose(s, bad_pos, rpy) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "sensor.position") != NULL);
    CHECK(s->position[1] == 2); /* unchanged on failure */
    /* positions beyond +-1e7 m (Embree aborts near 1e19) */
    const double far_pos[3] = {1e19, 0, 0}, far_neg[3] = {0, 0, -1.0000001e7}, edge_pos[3] = {1e7, -1e7, 0};
    CHECK(lsim_sensor_set_pose(s, far_pos, rpy) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "sensor.position: x = 1e+19 m") != NULL);
    CHECK(strstr(lsim_context_last_error(ctx), "must be finite and within \u00b11e7 m") != NULL);
    CHECK(lsim_sensor_set_pose(s, far_neg, rpy) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "sensor.position: z = ") != NULL);
    CHECK(s->position[0] == 1 && s->position[2] == 3); /* unchanged on failure */
    REQUIRE_OK(ctx, lsim_sensor_set_pose(s, edge_pos, rpy));
    CHECK(s->position[0] == 1e7 && s->position[1] == -1e7);
    const double bad_rpy[3] = {0, 0, INFINITY};
    CHECK(lsim_sensor_set_pose(s, pos, bad_rpy) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "sensor.rotation: yaw") != NULL);
    REQUIRE_OK(ctx, lsim_sensor_set_pose(s, pos, rpy));
    CHECK(memcmp(&p, &s->pose, sizeof p) == 0);
    /* range max at most 1e6 m */
    CHECK(lsim_sensor_set_range(s, 0, 2e6) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "sensor.range: max 2e+06 m must be finite and <= 1e6 m") != NULL);
    REQUIRE_OK(ctx, lsim_sensor_set_range(s, 0, 1e6));
    REQUIRE_OK(ctx, lsim_sensor_set_range(s, 0.2, 50));
    CHECK(s->spec.range_min == 0.2 && s->spec.range_max == 50);
    CHECK(lsim_sensor_set_range(s, 5, 2) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "sensor.range: min 5 must be below max 2") != NULL);
    CHECK(lsim_sensor_set_range(s, -1, 2) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_sensor_set_range(s, 0, INFINITY) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(s->spec.range_min == 0.2 && s->spec.range_max == 50);
    REQUIRE_OK(ctx, lsim_sensor_set_noise(s, 0.03, 0.1, 0.2));
    CHECK(s->spec.range_sigma == 0.03 && s->spec.intensity_sigma == 0.1 && s->spec.detection_reflectance == 0.2);
    CHECK(lsim_sensor_set_noise(s, -0.1, 0.1, 0.2) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "sensor.noise.range_sigma") != NULL);
    CHECK(lsim_sensor_set_noise(s, 0.1, NAN, 0.2) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "sensor.noise.intensity_sigma") != NULL);
    CHECK(lsim_sensor_set_noise(s, 0.1, 0.1, 0) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "sensor.detection_reflectance") != NULL);
    lsim_sensor_destroy(s);
    CHECK(lsim_sensor_set_range(NULL, 0, 1) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_sensor_beam_count(NULL) == 0);
    lsim_sensor_destroy(NULL);

    s = (lsim_sensor *)1;
    CHECK(lsim_sensor_create_rotating(ctx, 3, NULL, 4, 10, &s) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(s == NULL);
    CHECK(strstr(lsim_context_last_error(ctx), "sensor.elevations") != NULL);
    CHECK(lsim_sensor_create_rotating(ctx, 0, el, 4, 10, &s) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "sensor.channels") != NULL);
    CHECK(lsim_sensor_create_rotating(ctx, 3, el, 4, 0, &s) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "sensor.rate_hz") != NULL);
    CHECK(lsim_sensor_create_rotating(ctx, 3, el, 4, 1e-300, &s) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "sensor.rate_hz: 1e-300 Hz is out of range") != NULL);
    CHECK(lsim_sensor_create_planar(ctx, 90, 10, 2e6, &s) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "sensor.rate_hz") != NULL);
    CHECK(lsim_sensor_create_rotating(ctx, LSIM_SENSOR_MAX_CHANNELS + 1, el, 4, 10, &s) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "sensor.channels: 1025 is out of range, must be 1..1024") != NULL);
    CHECK(lsim_sensor_create_planar(ctx, 400, 10, 10, &s) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "sensor.fov_deg") != NULL);
    CHECK(lsim_sensor_create_camera(ctx, 64, 0, 60, 40, 10, &s) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "sensor.height") != NULL);

    REQUIRE_OK(ctx, lsim_sensor_create_planar(ctx, 90, 3, 4, &s));
    tb = get_table(ctx, s);
    CHECK_NEAR(tb.az[0], -30, 1e-12);
    CHECK_NEAR(tb.az[1], 0, 1e-12);
    CHECK_NEAR(tb.az[2], 30, 1e-12);
    CHECK_NEAR(tb.t[2], 2.0 / 12.0 * 90.0 / 360.0, 1e-15); /* 90 of 360 deg: a quarter of the 0.25 s turn */
    free_table(&tb);
    lsim_sensor_destroy(s);

    REQUIRE_OK(ctx, lsim_sensor_create_camera(ctx, 3, 1, 90, 30, 10, &s));
    tb = get_table(ctx, s);
    CHECK_NEAR(tb.az[1], 0, 1e-12); /* centre pixel of an odd width looks straight ahead */
    CHECK_NEAR(tb.el[1], 0, 1e-12);
    CHECK_NEAR(tan(tb.az[0] * PI / 180), 2.0 / 3.0, 1e-12); /* (1.5 - 0.5) / fx, fx = 1.5 */
    free_table(&tb);
    lsim_sensor_destroy(s);
}

/* Start from a valid spec of `kind` (fresh copy each time). */
static void valid_spec(lsim_sensor_spec *s, lsim_sensor_kind kind)
{
    static const double elev[4] = {-10, 0, 5, 10};
    static const double paz[2] = {0, 1}, pel[2] = {0, 1};
    lsim_sensor_spec_defaults(s);
    s->kind = kind;
    s->channels = 4;
    s->elevations_deg = malloc(sizeof elev);
    memcpy(s->elevations_deg, elev, sizeof elev);
    s->columns = 100;
    s->fov_deg = 270;
    s->steps = 100;
    s->width = 64;
    s->height = 48;
    s->hfov_deg = 60;
    s->vfov_deg = 45;
    s->rosette_points = 1000;
    s->rosette_fov_deg = 38.4;
    s->rosette_hz[0] = 100;
    s->rosette_hz[1] = -61.8;
    s->pattern_count = 2;
    s->pattern_azimuth_deg = malloc(sizeof paz);
    s->pattern_elevation_deg = malloc(sizeof pel);
    memcpy(s->pattern_azimuth_deg, paz, sizeof paz);
    memcpy(s->pattern_elevation_deg, pel, sizeof pel);
}

typedef void (*mutate_fn)(lsim_sensor_spec *);
#define MUTATOR(name, body) static void name(lsim_sensor_spec *s) { body; }
MUTATOR(m_channels0, s->channels = 0)
MUTATOR(m_channels_big, s->channels = 1025)
MUTATOR(m_elev_null, free(s->elevations_deg); s->elevations_deg = NULL)
MUTATOR(m_elev_91, s->elevations_deg[2] = 91)
MUTATOR(m_elev_nan, s->elevations_deg[0] = NAN)
MUTATOR(m_columns0, s->columns = 0)
MUTATOR(m_columns_big, s->columns = 10000001)
MUTATOR(m_total_rot, s->channels = 1024; s->elevations_deg = realloc(s->elevations_deg, 1024 * sizeof(double));
        for (int i = 0; i < 1024; ++i) s->elevations_deg[i] = 0; s->columns = 10000000)
MUTATOR(m_fov0, s->fov_deg = 0)
MUTATOR(m_fov_big, s->fov_deg = 360.5)
MUTATOR(m_fov_nan, s->fov_deg = NAN)
MUTATOR(m_steps0, s->steps = 0)
MUTATOR(m_steps_big, s->steps = 20000000)
MUTATOR(m_width0, s->width = 0)
MUTATOR(m_height_big, s->height = 16385)
MUTATOR(m_hfov_big, s->hfov_deg = 179.5)
MUTATOR(m_vfov0, s->vfov_deg = 0)
MUTATOR(m_total_cam, s->width = 16384; s->height = 16384)
MUTATOR(m_ros_fov180, s->rosette_fov_deg = 180)
MUTATOR(m_ros_fov_neg, s->rosette_fov_deg = -5)
MUTATOR(m_ros_points0, s->rosette_points = 0)
MUTATOR(m_ros_points_big, s->rosette_points = 100000001)
MUTATOR(m_ros_hz_nan, s->rosette_hz[1] = NAN)
MUTATOR(m_ros_hz_inf, s->rosette_hz[0] = -INFINITY)
MUTATOR(m_ros_hz_zero0, s->rosette_hz[0] = 0)
MUTATOR(m_ros_hz_zero1, s->rosette_hz[1] = 0)
MUTATOR(m_ros_hz_equal, s->rosette_hz[0] = 250; s->rosette_hz[1] = 250)
MUTATOR(m_ros_hz_both0, s->rosette_hz[0] = 0; s->rosette_hz[1] = 0)
MUTATOR(m_pat_count0, s->pattern_count = 0)
MUTATOR(m_pat_el, s->pattern_elevation_deg[1] = -90.5)
MUTATOR(m_pat_null, free(s->pattern_azimuth_deg); s->pattern_azimuth_deg = NULL)
MUTATOR(m_rate0, s->rate_hz = 0)
MUTATOR(m_rate_inf, s->rate_hz = INFINITY)
MUTATOR(m_rate_tiny, s->rate_hz = 1e-300)
MUTATOR(m_rate_low, s->rate_hz = 0.999e-3)
MUTATOR(m_rate_high, s->rate_hz = 1.000001e6)
MUTATOR(m_rate_neg, s->rate_hz = -10)
MUTATOR(m_range_order, s->range_min = 5; s->range_max = 2)
MUTATOR(m_range_neg, s->range_min = -1)
MUTATOR(m_range_inf, s->range_max = INFINITY)
MUTATOR(m_range_big, s->range_max = 1.0000001e6)
MUTATOR(m_range_min_nan, s->range_min = NAN)
MUTATOR(m_rsigma, s->range_sigma = -0.01)
MUTATOR(m_isigma, s->intensity_sigma = NAN)
MUTATOR(m_det0, s->detection_reflectance = 0)
MUTATOR(m_det_big, s->detection_reflectance = 1500.0)
MUTATOR(m_kind, s->kind = (lsim_sensor_kind)99)

static void test_validation(lsim_context *ctx)
{
    static const struct {
        lsim_sensor_kind kind;
        mutate_fn mutate;
        const char *key;
    } cases[] = {
        {LSIM_SENSOR_ROTATING, m_channels0, "sensor.channels"},
        {LSIM_SENSOR_ROTATING, m_channels_big, "sensor.channels"},
        {LSIM_SENSOR_ROTATING, m_elev_null, "sensor.elevations"},
        {LSIM_SENSOR_ROTATING, m_elev_91, "sensor.elevations[2]"},
        {LSIM_SENSOR_ROTATING, m_elev_nan, "sensor.elevations[0]"},
        {LSIM_SENSOR_ROTATING, m_columns0, "sensor.columns"},
        {LSIM_SENSOR_ROTATING, m_columns_big, "sensor.columns"},
        {LSIM_SENSOR_ROTATING, m_total_rot, "sensor.channels x sensor.columns"},
        {LSIM_SENSOR_PLANAR, m_fov0, "sensor.fov_deg"},
        {LSIM_SENSOR_PLANAR, m_fov_big, "sensor.fov_deg"},
        {LSIM_SENSOR_PLANAR, m_fov_nan, "sensor.fov_deg"},
        {LSIM_SENSOR_PLANAR, m_steps0, "sensor.steps"},
        {LSIM_SENSOR_PLANAR, m_steps_big, "sensor.steps"},
        {LSIM_SENSOR_CAMERA, m_width0, "sensor.width"},
        {LSIM_SENSOR_CAMERA, m_height_big, "sensor.height"},
        {LSIM_SENSOR_CAMERA, m_hfov_big, "sensor.hfov_deg"},
        {LSIM_SENSOR_CAMERA, m_vfov0, "sensor.vfov_deg"},
        {LSIM_SENSOR_CAMERA, m_total_cam, "sensor.width x sensor.height"},
        {LSIM_SENSOR_ROSETTE, m_ros_fov180, "sensor.fov_deg"},
        {LSIM_SENSOR_ROSETTE, m_ros_fov_neg, "sensor.fov_deg"},
        {LSIM_SENSOR_ROSETTE, m_ros_points0, "sensor.points"},
        {LSIM_SENSOR_ROSETTE, m_ros_points_big, "sensor.points"},
        {LSIM_SENSOR_ROSETTE, m_ros_hz_nan, "sensor.prism_hz[1]"},
        {LSIM_SENSOR_ROSETTE, m_ros_hz_inf, "sensor.prism_hz[0]: -inf Hz"},
        {LSIM_SENSOR_ROSETTE, m_ros_hz_zero0, "sensor.prism_hz[0]: 0 Hz"},
        {LSIM_SENSOR_ROSETTE, m_ros_hz_zero1, "sensor.prism_hz[1]: 0 Hz"},
        {LSIM_SENSOR_ROSETTE, m_ros_hz_equal, "sensor.prism_hz: both prisms turn at 250 Hz"},
        {LSIM_SENSOR_ROSETTE, m_ros_hz_both0, "sensor.prism_hz[0]"},
        {LSIM_SENSOR_PATTERN, m_pat_count0, "sensor.pattern"},
        {LSIM_SENSOR_PATTERN, m_pat_el, "sensor.pattern[1].elevation_deg"},
        {LSIM_SENSOR_PATTERN, m_pat_null, "sensor.pattern"},
        {LSIM_SENSOR_ROTATING, m_rate0, "sensor.rate_hz"},
        {LSIM_SENSOR_PLANAR, m_rate_inf, "sensor.rate_hz"},
        {LSIM_SENSOR_ROTATING, m_rate_tiny, "sensor.rate_hz: 1e-300 Hz"},
        {LSIM_SENSOR_ROSETTE, m_rate_low, "[1e-3, 1e6] Hz"},
        {LSIM_SENSOR_CAMERA, m_rate_high, "sensor.rate_hz: 1e+06 Hz"},
        {LSIM_SENSOR_PATTERN, m_rate_neg, "sensor.rate_hz: -10 Hz"},
        {LSIM_SENSOR_CAMERA, m_range_order, "sensor.range: min 5 must be below max 2"},
        {LSIM_SENSOR_ROTATING, m_range_neg, "sensor.range"},
        {LSIM_SENSOR_ROTATING, m_range_inf, "sensor.range: max inf m"},
        {LSIM_SENSOR_PLANAR, m_range_big, "sensor.range: max 1e+06 m must be finite and <= 1e6 m"},
        {LSIM_SENSOR_CAMERA, m_range_min_nan, "sensor.range: min nan"},
        {LSIM_SENSOR_ROSETTE, m_rsigma, "sensor.noise.range_sigma"},
        {LSIM_SENSOR_ROTATING, m_isigma, "sensor.noise.intensity_sigma"},
        {LSIM_SENSOR_PATTERN, m_det0, "sensor.detection_reflectance"},
        {LSIM_SENSOR_ROTATING, m_det_big, "sensor.detection_reflectance"},
        {LSIM_SENSOR_ROTATING, m_kind, "sensor.type"},
    };
    for (lsim_sensor_kind k = LSIM_SENSOR_ROTATING; k <= LSIM_SENSOR_ROSETTE; ++k) {
        lsim_sensor_spec s;
        valid_spec(&s, k);
        CHECK(lsim_sensor_spec_validate(ctx, &s) == LSIM_OK);
        lsim_sensor *sensor;
        REQUIRE_OK(ctx, lsim_sensor_create_from_spec(ctx, &s, &sensor));
        CHECK(s.elevations_deg == NULL && s.pattern_azimuth_deg == NULL); /* ownership moved */
        CHECK(strcmp(lsim_sensor_name(sensor), lsim_sensor_kind_name(k)) == 0);
        lsim_sensor_destroy(sensor);
    }
    /* the bounds themselves are valid */
    {
        lsim_sensor_spec s;
        valid_spec(&s, LSIM_SENSOR_ROSETTE);
        s.rate_hz = LSIM_SENSOR_MIN_RATE_HZ;
        s.range_min = 0;
        s.range_max = LSIM_SENSOR_MAX_RANGE_M;
        s.rosette_hz[0] = -s.rosette_hz[1]; /* equal magnitude, opposite signs: a line, still valid */
        CHECK(lsim_sensor_spec_validate(ctx, &s) == LSIM_OK);
        s.rate_hz = LSIM_SENSOR_MAX_RATE_HZ;
        CHECK(lsim_sensor_spec_validate(ctx, &s) == LSIM_OK);
        lsim_sensor_spec_free(&s);
    }
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        lsim_sensor_spec s;
        valid_spec(&s, cases[i].kind);
        cases[i].mutate(&s);
        lsim_status st = lsim_sensor_spec_validate(ctx, &s);
        const char *msg = lsim_context_last_error(ctx);
        if (st != LSIM_ERR_INVALID_ARGUMENT || !strstr(msg, cases[i].key))
            fprintf(stderr, "validation case %zu (%s): status %d, message '%s'\n", i, cases[i].key, (int)st, msg);
        CHECK(st == LSIM_ERR_INVALID_ARGUMENT);
        CHECK(strstr(msg, cases[i].key) != NULL);
        /* create_from_spec rejects it too and frees the arrays */
        lsim_sensor *sensor = (lsim_sensor *)1;
        CHECK(lsim_sensor_create_from_spec(ctx, &s, &sensor) == LSIM_ERR_INVALID_ARGUMENT);
        CHECK(sensor == NULL);
        CHECK(s.elevations_deg == NULL);
    }
}

static void test_spec_copy(lsim_context *ctx)
{
    lsim_sensor_spec a, b;
    REQUIRE_OK(ctx, lsim_sensor_spec_from_preset(ctx, "hdl64e", &a));
    REQUIRE_OK(ctx, lsim_sensor_spec_copy(ctx, &a, &b));
    CHECK(b.elevations_deg != a.elevations_deg);
    CHECK(memcmp(a.elevations_deg, b.elevations_deg, 64 * sizeof(double)) == 0);
    a.elevations_deg[0] = 42;
    CHECK(b.elevations_deg[0] != 42);
    lsim_sensor_spec_free(&a);
    lsim_sensor_spec_free(&b);
    lsim_sensor_spec_free(&b); /* idempotent */
}

int main(void)
{
    lsim_context *ctx;
    if (lsim_context_create(&ctx) != LSIM_OK)
        return 1;
    test_preset_list(ctx);
    test_rotating_presets(ctx);
    check_planar(ctx, "rplidar-a1", 720, 0.5, 5.5, 0.15, 12.0);
    check_planar(ctx, "urg-04lx", 682, 0.3515625, 10.0, 0.02, 5.6);
    test_camera(ctx);
    test_rosette(ctx);
    test_pattern_roundtrip(ctx);
    test_api_constructors(ctx);
    test_validation(ctx);
    test_spec_copy(ctx);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_presets");
}
