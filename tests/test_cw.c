/* The continuous-wave receiver (receiver/cw.h) against closed forms, and the URG-04LX preset
 * through the pipeline:
 * - a single return is measured exactly (<= 1 mm; measured ~1e-9 m) over the sensor's 0.02-5.6 m,
 *   and the two frequencies resolve the ambiguity over the whole unambiguous range (22.54 m for
 *   46.55 / 53.2 MHz); beyond it the range aliases to R - 22.54 m, as the real sensor's "22 m";
 * - a mixed pixel (two returns) comes out at the phasor-sum prediction, between its surfaces;
 * - a range-radiance bias c0 + c1 L + c2 L^2 makes dark returns nearer than bright ones by the
 *   predicted step (the URG-04LX's checkerboard staircase);
 * - noise on the samples: the range noise grows as the amplitude falls (x10 amplitude, /10 noise);
 * - the urg-04lx preset is continuous-wave: through the pipeline, a post half in front of a beam
 *   gives ranges between the post and the wall 0.6 m behind (the pulsed receiver gives none);
 * - the preset fires the cw paper's three-ray beam as it comes (§III-C: the centre ray and one at
 *   each edge of its 13 mrad, along the scan, equal shares): a post 1 m ahead and a wall 0.4 m
 *   behind it give mixed pixels at exactly the beams whose rays straddle a post edge, each at the
 *   phasor sum of its rays' returns (computed here from the geometry), strictly between. */
#include "harness.h"
#include "receiver/cw.h"
#include "scan_fixture.h"
#include "test_scenes.h"

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define C_LIGHT 299792458.0
#define M_PI 3.14159265358979323846

static lsim_cw_receiver urg(void)
{
    lsim_cw_receiver rx;
    memset(&rx, 0, sizeof rx);
    rx.freq_hz[0] = 46.55e6;
    rx.freq_hz[1] = 53.2e6;
    rx.samples = 30;
    rx.periods = 15;
    rx.threshold = 1e-6;
    lsim_cw_prepare(&rx);
    return rx;
}

static lsim_contribution ret(double range, double amplitude)
{
    lsim_contribution c = {(float)range, (float)amplitude, 0.0f, 0, 1.0f, 0.0f, 0.0f, 1.0f};
    return c;
}

/* What the receiver should report, computed from the phasors: per frequency the phase of
 * sum a_j exp(i phi_j), the fine range, unwrapped by the beat to the nearest wavelength count. */
static double phasor_prediction(const lsim_cw_receiver *rx, const lsim_contribution *c, int n)
{
    double shift[2], fine[2];
    for (int k = 0; k < 2; ++k) {
        double complex sum = 0;
        for (int j = 0; j < n; ++j) {
            double l = c[j].amplitude;
            double phi = 4 * M_PI * rx->freq_hz[k] * c[j].range / C_LIGHT + rx->bias[0] + rx->bias[1] * l +
                         rx->bias[2] * l * l;
            sum += l * cexp(I * phi);
        }
        shift[k] = fmod(carg(sum) + 2 * M_PI, 2 * M_PI);
        fine[k] = C_LIGHT * shift[k] / (4 * M_PI * rx->freq_hz[k]);
    }
    double beat = fmod(shift[1] - shift[0] + 4 * M_PI, 2 * M_PI); /* f2 > f1 */
    double coarse = C_LIGHT * beat / (4 * M_PI * (rx->freq_hz[1] - rx->freq_hz[0]));
    double r = 0;
    for (int k = 0; k < 2; ++k) {
        double half = C_LIGHT / (2 * rx->freq_hz[k]);
        r += 0.5 * (fine[k] + half * round((coarse - fine[k]) / half));
    }
    return r;
}

static void test_single_and_ambiguity(void)
{
    lsim_cw_receiver rx = urg();
    const double unamb = lsim_cw_unambiguous_range(&rx);
    CHECK_NEAR(unamb, C_LIGHT / (2 * 6.65e6), 1e-6);
    CHECK(lsim_cw_step(&rx) == 17); /* 30 samples over ~15 periods: every sample at its own phase */
    double worst_near = 0, worst_far = 0;
    for (double r = 0.02; r <= 5.6; r += 0.001) {
        lsim_contribution c = ret(r, 0.3);
        lsim_echo e;
        CHECK(lsim_cw_measure(&rx, &c, 1, NULL, &e) == 1);
        worst_near = fmax(worst_near, fabs(e.range - (float)r));
    }
    for (double r = 0.02; r < unamb - 0.01; r += 0.0137) {
        lsim_contribution c = ret(r, 0.01);
        lsim_echo e;
        CHECK(lsim_cw_measure(&rx, &c, 1, NULL, &e) == 1);
        worst_far = fmax(worst_far, fabs(e.range - (float)r));
    }
    lsim_contribution far = ret(unamb + 1.0, 0.01);
    lsim_echo e;
    CHECK(lsim_cw_measure(&rx, &far, 1, NULL, &e) == 1);
    printf("single return: worst error %.2e m over 0.02-5.6 m, %.2e m over 0.02-%.2f m; at %.2f m it reads %.3f m\n",
           worst_near, worst_far, unamb, unamb + 1.0, e.range);
    CHECK(worst_near <= 1e-3);
    CHECK(worst_far <= 1e-3);
    CHECK_NEAR(e.range, 1.0, 1e-3); /* aliased by the unambiguous range */
    lsim_contribution weak = ret(2.0, 0.5e-6);
    CHECK(lsim_cw_measure(&rx, &weak, 1, NULL, &e) == 0); /* under the threshold */
}

static void test_mixed_pixel(void)
{
    lsim_cw_receiver rx = urg();
    double worst = 0;
    for (int i = 0; i <= 20; ++i) {
        const double share = i / 20.0;
        lsim_contribution c[2] = {ret(1.0, 0.1 * (1 - share) + 1e-4), ret(1.5, 0.1 * share + 1e-4)};
        lsim_echo e;
        CHECK(lsim_cw_measure(&rx, c, 2, NULL, &e) == 1);
        const double expect = phasor_prediction(&rx, c, 2);
        worst = fmax(worst, fabs(e.range - expect));
        if (i == 10)
            printf("mixed pixel, half on 1 m and half on 1.5 m: %.4f m (phasor sum %.4f m)\n", e.range, expect);
        if (i > 0 && i < 20) /* 0.5 m apart, well within a quarter wavelength (0.8 m): between the two */
            CHECK(e.range > 1.0f && e.range < 1.5f);
    }
    printf("mixed pixels: worst |range - phasor-sum prediction| %.2e m\n", worst);
    CHECK(worst <= 1e-5);
}

static void test_staircase(void)
{
    lsim_cw_receiver rx = urg();
    rx.bias[0] = 0.02;
    rx.bias[1] = 2.0;  /* rad per intensity unit */
    rx.bias[2] = -3.0;
    const double dark = 0.05 / 4.0, bright = 0.9 / 4.0; /* rho / R^2 at 2 m */
    lsim_contribution cd = ret(2.0, dark), cb = ret(2.0, bright);
    lsim_echo ed, eb;
    CHECK(lsim_cw_measure(&rx, &cd, 1, NULL, &ed) == 1 && lsim_cw_measure(&rx, &cb, 1, NULL, &eb) == 1);
    double step = 0;
    for (int k = 0; k < 2; ++k) /* each frequency's range shift c b(L) / (4 pi f), averaged */
        step += 0.5 * C_LIGHT / (4 * M_PI * rx.freq_hz[k]) *
                (rx.bias[1] * (bright - dark) + rx.bias[2] * (bright * bright - dark * dark));
    printf("staircase: dark at %.4f m, bright at %.4f m (step %.2f mm, predicted %.2f mm)\n", ed.range, eb.range,
           1e3 * (eb.range - ed.range), 1e3 * step);
    CHECK_NEAR(eb.range - ed.range, step, 1e-5);
    CHECK(fabs(step) > 0.01);
    CHECK_NEAR(ed.range, phasor_prediction(&rx, &cd, 1), 1e-5);
}

static double range_sd(const lsim_cw_receiver *rx, double amplitude)
{
    double s = 0, s2 = 0;
    const int n = 4000;
    for (int i = 0; i < n; ++i) {
        lsim_rng_stream rng = lsim_rng_stream_make(11, 0, (uint64_t)i);
        lsim_contribution c = ret(2.5, amplitude);
        lsim_echo e;
        CHECK(lsim_cw_measure(rx, &c, 1, &rng, &e) == 1);
        s += e.range - 2.5;
        s2 += (e.range - 2.5) * (e.range - 2.5);
    }
    return sqrt(s2 / n - (s / n) * (s / n));
}

static void test_noise(void)
{
    lsim_cw_receiver rx = urg();
    rx.threshold = 0.0;
    rx.sample_noise = 1e-3;
    const double weak = range_sd(&rx, 0.02), strong = range_sd(&rx, 0.2);
    /* phase noise ~ sample noise sqrt(2 / N) / amplitude; range c / (4 pi f) of it (both frequencies averaged) */
    const double predicted = 1e-3 * sqrt(2.0 / 30) / 0.02 * C_LIGHT / (4 * M_PI) * 0.5 *
                             sqrt(1 / (46.55e6 * 46.55e6) + 1 / (53.2e6 * 53.2e6));
    printf("sample noise: range sd %.2f mm at amplitude 0.02, %.3f mm at 0.2 (predicted %.2f mm at 0.02)\n",
           1e3 * weak, 1e3 * strong, 1e3 * predicted);
    CHECK(weak > 8.0 * strong && weak < 12.0 * strong);
    CHECK_NEAR(weak, predicted, 0.1 * predicted);
}

/* A wall 0.2 m thick whose face is at wall_x - 0.1 and a post of post_width (along y) whose face is at
 * 1 m, both 2 m tall, straight ahead of the sensor. */
static lsim_scene *post_and_wall(lsim_context *ctx, double wall_x, double post_width)
{
    lsim_scene *scene = test_scene_new(ctx, NULL, 0.0);
    const double wall[3] = {0.2, 8.0, 2.0}, post[3] = {0.05, post_width, 2.0};
    lsim_object_desc desc = test_object(NULL, NULL, wall_x, 0.0, 0.0);
    REQUIRE_OK(ctx, lsim_scene_add_box(scene, wall, &desc));
    desc.position[0] = 1.025;
    REQUIRE_OK(ctx, lsim_scene_add_box(scene, post, &desc));
    return scene;
}

/* The URG-04LX through the pipeline: a thin post 1 m ahead, a wall 1.6 m ahead (closer than a
 * quarter wavelength behind it, so a mixed pixel lands between them rather than aliasing). */
static void test_depth_edge(lsim_context *ctx, int cw)
{
    lsim_scene *scene = post_and_wall(ctx, 1.7, 0.05);
    lsim_sensor *s;
    REQUIRE_OK(ctx, lsim_sensor_create_preset(ctx, "urg-04lx", &s)); /* as it comes: three rays, 13 mrad */
    if (!cw) { /* a pulse short enough (0.15 m FWHM in range) to tell the post from the wall */
        REQUIRE_OK(ctx, lsim_sensor_set_cw_receiver(s, NULL, 0, 0, NULL));
        REQUIRE_OK(ctx, lsim_sensor_set_receiver(s, 1.0, LSIM_RETURNS_STRONGEST, 1));
    }
    lsim_scan_options opt;
    lsim_scan_options_init(&opt);
    opt.noise = 0;
    lsim_points *p;
    REQUIRE_OK(ctx, lsim_scene_scan(scene, s, &opt, &p));
    const float *r = fixture_f32(p, LSIM_FIELD_RANGE);
    size_t between = 0, post_pts = 0, wall_pts = 0;
    for (size_t i = 0; i < lsim_points_count(p); ++i) {
        between += r[i] > 1.02f && r[i] < 1.58f;
        post_pts += r[i] <= 1.02f;
        wall_pts += r[i] >= 1.58f;
    }
    printf("%s receiver at a depth edge: %zu points on the post, %zu on the wall, %zu between\n", cw ? "cw" : "pulsed",
           post_pts, wall_pts, between);
    CHECK(post_pts > 0 && wall_pts > 30);
    CHECK(cw ? between >= 2 : between == 0);
    lsim_points_destroy(p);
    lsim_sensor_destroy(s);
    lsim_scene_destroy(scene);
}

/* The ranges the receiver reads from returns (r_j, a_j): each frequency's phasor sum, its phase
 * in [0, 2 pi) as a range, the two averaged (all ranges here are well inside a half wavelength). */
static double phasor_range(const double *r, const double *a, int n)
{
    const double f[2] = {46.55e6, 53.2e6};
    double range = 0.0;
    for (int k = 0; k < 2; ++k) {
        double complex sum = 0.0;
        for (int j = 0; j < n; ++j)
            sum += a[j] * cexp(I * 4.0 * M_PI * f[k] * r[j] / C_LIGHT);
        double phase = carg(sum);
        if (phase < 0.0)
            phase += 2.0 * M_PI;
        range += 0.5 * C_LIGHT * phase / (4.0 * M_PI * f[k]);
    }
    return range;
}

/* The urg-04lx preset as it comes at a post (front face 1.0 m ahead, 0.1 m wide) with a wall 0.4 m
 * behind it (front face at 1.4 m): the beams whose three rays (at -6.5, 0, +6.5 mrad from the beam,
 * in the scan plane) fall on both read the phasor sum of their rays' returns, amplitude
 * w cos / t^2 per ray (same material, equal shares w), strictly between post and wall. */
static void test_preset_mixed_pixels(lsim_context *ctx)
{
    lsim_scene *scene = post_and_wall(ctx, 1.5, 0.1);
    lsim_sensor *s;
    REQUIRE_OK(ctx, lsim_sensor_create_preset(ctx, "urg-04lx", &s));
    char text[4096];
    lsim_sensor_describe(s, text, sizeof text);
    CHECK(strstr(text, "beam_mode: rays (3 sub-rays a beam: the centre and 1 each side in a line along the scan, "
                        "equal shares, within 13 mrad)") != NULL);
    lsim_scan_options opt;
    lsim_scan_options_init(&opt);
    opt.noise = 0;
    opt.keep_misses = 1;
    lsim_points *p;
    REQUIRE_OK(ctx, lsim_scene_scan(scene, s, &opt, &p));
    const size_t n = lsim_sensor_beam_count(s);
    CHECK(lsim_points_count(p) == n);
    double *az = malloc(n * sizeof *az);
    if (!az)
        return;
    REQUIRE_OK(ctx, lsim_sensor_get_beams(s, az, NULL, NULL, NULL));
    const float *r = fixture_f32(p, LSIM_FIELD_RANGE);
    const double half = 6.5e-3; /* the rays: +-13 mrad / 2 */
    size_t mixed = 0, expected_mixed = 0, between = 0;
    double worst = 0.0;
    for (size_t i = 0; i < n; ++i) {
        const double b = az[i] * M_PI / 180.0;
        if (fabs(b) > 0.3)
            continue;
        double rr[3], aa[3];
        int on_post = 0;
        for (int j = 0; j < 3; ++j) {
            const double t = b + (j - 1) * half, x = fabs(tan(t)) <= 0.05 ? 1.0 : 1.4;
            on_post += x == 1.0;
            rr[j] = x / cos(t);
            aa[j] = cos(t) / (rr[j] * rr[j]); /* w rho cos / t^2, w and rho shared */
        }
        const double want = phasor_range(rr, aa, 3);
        const int is_mixed = on_post > 0 && on_post < 3;
        expected_mixed += is_mixed;
        const int got_between = r[i] > 1.0f / (float)cos(b) + 1e-3f && r[i] < 1.4f / (float)cos(b) - 1e-3f;
        between += got_between;
        if (is_mixed) {
            ++mixed;
            worst = fmax(worst, fabs(r[i] - want));
            printf("  beam %zu at %.4f deg: %d of 3 rays on the post, range %.5f m, phasor sum %.5f m\n", i, az[i],
                   on_post, r[i], want);
            CHECK(got_between);
        } else {
            CHECK_NEAR(r[i], want, 2e-4); /* one surface: its rays' own mix, within a float's ray */
        }
    }
    printf("urg-04lx preset, post at 1.0 m and wall at 1.4 m: %zu mixed pixels (expected %zu), %zu ranges between, "
           "worst %.2e m from the phasor sum\n", mixed, expected_mixed, between, worst);
    CHECK(expected_mixed >= 2 && between == expected_mixed);
    CHECK(worst < 2e-4);
    free(az);
    lsim_points_destroy(p);
    lsim_sensor_destroy(s);
    lsim_scene_destroy(scene);
}

int main(void)
{
    test_single_and_ambiguity();
    test_mixed_pixel();
    test_staircase();
    test_noise();
    lsim_context *ctx;
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    lsim_sensor *s;
    REQUIRE_OK(ctx, lsim_sensor_create_preset(ctx, "vlp16", &s));
    const double same[2] = {50e6, 50e6}, ok[2] = {10e6, 12e6};
    CHECK(lsim_sensor_set_cw_receiver(s, same, 30, 15, NULL) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "sensor.receiver.frequencies_hz") != NULL);
    CHECK(lsim_sensor_set_cw_receiver(s, ok, 2, 15, NULL) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "sensor.receiver.samples") != NULL);
    REQUIRE_OK(ctx, lsim_sensor_set_cw_receiver(s, ok, 30, 15, NULL));
    /* the sub-ray layout: a line or rings, nothing else; the scene key names its values */
    CHECK(lsim_sensor_set_beam_layout(s, (lsim_beam_layout)7) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "sensor.beam.layout: 7 is unknown; valid: rings, line") != NULL);
    REQUIRE_OK(ctx, lsim_sensor_set_beam(s, 3.0, LSIM_BEAM_RAYS, 2));
    REQUIRE_OK(ctx, lsim_sensor_set_beam_layout(s, LSIM_BEAM_LAYOUT_LINE));
    char text[4096];
    lsim_sensor_describe(s, text, sizeof text);
    CHECK(strstr(text, "beam_mode: rays (5 sub-rays a beam: the centre and 2 each side in a line") != NULL);
    REQUIRE_OK(ctx, lsim_sensor_set_beam_layout(s, LSIM_BEAM_LAYOUT_RINGS));
    lsim_sensor_describe(s, text, sizeof text);
    CHECK(strstr(text, "beam_mode: rays (19 sub-rays a beam: the centre and 2 rings of 6k rays") != NULL);
    lsim_sensor_destroy(s);
    FILE *yaml = fopen("test_cw_layout.yaml", "w");
    if (yaml) {
        fputs("sensor:\n  preset: urg-04lx\n  beam: {layout: zigzag}\nobjects:\n  - box: {size: [1, 1, 1]}\n", yaml);
        fclose(yaml);
    }
    lsim_scene *bad = NULL;
    CHECK(lsim_scene_load(ctx, "test_cw_layout.yaml", &bad, &s) == LSIM_ERR_PARSE && bad == NULL);
    CHECK(strstr(lsim_context_last_error(ctx), "sensor.beam.layout") != NULL &&
          strstr(lsim_context_last_error(ctx), "valid: rings, line") != NULL);
    remove("test_cw_layout.yaml");
    test_preset_mixed_pixels(ctx);
    test_depth_edge(ctx, 1);
    test_depth_edge(ctx, 0);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_cw");
}
