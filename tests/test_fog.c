/* Fog against the published model: Hahner et al., "Fog Simulation on Real LiDAR Point Clouds for
 * 3D Object Detection in Adverse Weather", ICCV 2021, section 3 (after Rasshofer et al. 2011),
 * with the constants of the authors' code (github.com/MartinHahner/LiDAR_fog_sim, ParameterSet):
 *   MOR = ln(20) / alpha, beta = 0.046 / MOR, half-power pulse width tau_H = 20 ns, a linear
 *   overlap xi from R1 = 0.9 m to R2 = 1.0 m, a hard target at R0 = 30 m;
 *   P_R,soft(R) = C_A P0 beta int_0^{2 tau_H} sin^2(pi t / (2 tau_H)) exp(-2 alpha (R - ct/2))
 *                 xi(R - ct/2) / (R - ct/2)^2 U(R0 - R + ct/2) dt,
 * plotted against R - c tau_H / 2 (so a hard target peaks at its range).
 * This test integrates that formula itself (Simpson's rule, no lidarsim code) and compares it with
 * lidarsim's fog (optics/fog.c segments through the pulsed receiver's waveform):
 *  1. the curve P_R,soft for MOR 49.9 m (alpha = 0.06, the code's default): the fog peak's range
 *     within 0.05 m and height within 1 %; the whole curve within 7 % of the peak (lidarsim's pulse
 *     is a Gaussian of the same FWHM, the paper's a sin^2: they differ on the flanks) and within
 *     0.5 % of the peak against the same formula with lidarsim's Gaussian pulse;
 *  2. the fog peak's range and height against MOR (the alphas of the paper's lookup tables);
 *  3. the default overlap is Rasshofer's eqs. 11-12 with the geometry in Hahner's code; visibility
 *     gives alpha = ln(20) / V and beta = 0.046 / V; bad overlaps and visibilities are errors;
 *  The curve and the peaks are drawn into fog_curve.png (the README's docs/fog_curve.png).
 *  4. scans: beams into an empty sky at 20 m visibility each return one fog echo (label outlier)
 *     at the range and power the formula predicts for the sensor's pulse and overlap; at 1,000 m
 *     visibility none; the visibility where fog echoes start is where the formula's peak meets
 *     the threshold; the scan is the same on 1 and 3 threads. */
#include "harness.h"
#include "scan_fixture.h"

#include "optics/fog.h"
#include "pictures/plot_png.h"
#include "scene/scene.h"
#include "sensor/sensor.h"

#include <string.h>

#define PI 3.14159265358979323846
#define C_LIGHT 299792458.0
#define LN20 2.995732273553991 /* ln(1 / 0.05): the 5 % contrast of the MOR */

typedef struct model {
    double alpha, beta, r1, r2, r0; /* fog, overlap, hard target */
    double tau;                     /* pulse width (FWHM), seconds */
} model;

static double overlap(const model *m, double r)
{
    if (r <= m->r1)
        return 0.0;
    if (r >= m->r2)
        return 1.0;
    return (r - m->r1) / (m->r2 - m->r1);
}

/* exp(-2 alpha r) xi(r) / r^2 U(R0 - r): the channel without beta. */
static double channel(const model *m, double r)
{
    if (r <= m->r1 || r > m->r0)
        return 0.0;
    return exp(-2.0 * m->alpha * r) * overlap(m, r) / (r * r);
}

/* The paper's P_R,soft / (C_A P0 beta) at R = x + c tau_H / 2 (Simpson, 4000 intervals over the
 * pulse), in lidarsim's intensity units: times pi beta c / 2 (C_A = c eta A_R / 2; lidarsim's
 * intensity is power / (P0 A_R eta / pi)). */
static double paper_sin2(const model *m, double x)
{
    const int n = 4000;
    const double R = x + C_LIGHT * m->tau / 2.0, T = 2.0 * m->tau, h = T / n;
    double s = 0.0;
    for (int i = 0; i <= n; ++i) {
        double t = i * h, sn = sin(PI * t / (2.0 * m->tau));
        double f = sn * sn * channel(m, R - C_LIGHT * t / 2.0);
        s += f * (i == 0 || i == n ? 1.0 : (i % 2 ? 4.0 : 2.0));
    }
    return PI * m->beta * C_LIGHT / 2.0 * s * h / 3.0;
}

/* The same formula with a Gaussian pulse of the same FWHM centred at 0 (lidarsim's pulse):
 * pi beta int exp(-(x - r)^2 / 2 sigma^2) channel(r) dr, Simpson (2000 intervals) on the ramp [R1, R2] and on
 * [R2, R0] (a step when R1 = R2: the integrand's value at R2 is its limit from the right). */
static double paper_gauss(const model *m, double x)
{
    const double sigma = C_LIGHT * m->tau / 2.0 / 2.3548200450309493;
    const double edges[3] = {m->r1, m->r2, m->r0};
    double total = 0.0;
    for (int piece = 0; piece < 2; ++piece) {
        const double a = edges[piece], b = edges[piece + 1];
        if (!(b > a))
            continue;
        const int n = 2000;
        const double h = (b - a) / n;
        double s = 0.0;
        for (int i = 0; i <= n; ++i) {
            double r = a + i * h, d = (x - r) / sigma;
            double xi = piece == 0 ? (r - m->r1) / (m->r2 - m->r1) : 1.0; /* limits inside the piece */
            double f = exp(-0.5 * d * d) * exp(-2.0 * m->alpha * r) * xi / (r * r);
            s += f * (i == 0 || i == n ? 1.0 : (i % 2 ? 4.0 : 2.0));
        }
        total += s * h / 3.0;
    }
    return PI * m->beta * total;
}

/* lidarsim's fog waveform for the model: its segments in front of R0 through the receiver. */
typedef struct lsim_side {
    lsim_fog fog;
    lsim_contribution c[LSIM_FOG_MAX_SEGMENTS];
    int n;
    lsim_receiver rx;
} lsim_side;

static void lsim_side_make(lsim_side *s, const model *m, double threshold)
{
    const lsim_fog_params p = {m->alpha, m->beta, m->r1, m->r2, 200.0, m->tau * 1e9, threshold, NULL};
    lsim_fog_setup(&s->fog, &p);
    s->n = lsim_fog_contributions(&s->fog, (float)m->r0, s->c);
    memset(&s->rx, 0, sizeof s->rx);
    s->rx.pulse_width_ns = m->tau * 1e9;
    s->rx.threshold = threshold;
    s->rx.mode = LSIM_RETURN_ALL;
    s->rx.max_returns = 4;
}

static double lsim_wave(const lsim_side *s, double x) { return lsim_receiver_waveform(&s->rx, s->c, s->n, x); }

/* Peak of f on [lo, hi]: a grid of step `step`, then golden-section search around the best. */
typedef double (*wave_fn)(const void *, double);
static double find_peak(wave_fn f, const void *arg, double lo, double hi, double step, double *value)
{
    double best = lo, bv = -1.0;
    for (double x = lo; x <= hi; x += step) {
        double v = f(arg, x);
        if (v > bv) {
            bv = v;
            best = x;
        }
    }
    double a = best - step, b = best + step;
    const double g = 0.6180339887498949;
    double x1 = b - g * (b - a), x2 = a + g * (b - a), f1 = f(arg, x1), f2 = f(arg, x2);
    for (int i = 0; i < 40; ++i) {
        if (f1 > f2) {
            b = x2;
            x2 = x1;
            f2 = f1;
            x1 = b - g * (b - a);
            f1 = f(arg, x1);
        } else {
            a = x1;
            x1 = x2;
            f1 = f2;
            x2 = a + g * (b - a);
            f2 = f(arg, x2);
        }
    }
    *value = f1 > f2 ? f1 : f2;
    return f1 > f2 ? x1 : x2;
}

static double sin2_fn(const void *m, double x) { return paper_sin2((const model *)m, x); }
static double gauss_fn(const void *m, double x) { return paper_gauss((const model *)m, x); }
static double lsim_fn(const void *s, double x) { return lsim_wave((const lsim_side *)s, x); }

/* What the README's figure shows. */
#define FIG_POINTS 261
#define FIG_MORS 9
static struct {
    double x[FIG_POINTS], sin2[FIG_POINTS], gauss[FIG_POINTS], lsim[FIG_POINTS];
    double log_mor[FIG_MORS], peak_range[2][FIG_MORS], peak[2][FIG_MORS];
} fig;

static model hahner(double alpha)
{
    model m = {alpha, 0.046 / (LN20 / alpha), 0.9, 1.0, 30.0, 20e-9};
    return m;
}

static void paper_curve(void)
{
    const model m = hahner(0.06); /* MOR 49.93 m */
    lsim_side s;
    lsim_side_make(&s, &m, 1e-5);
    double ps, pl, pg;
    double xs = find_peak(sin2_fn, &m, 0.0, 10.0, 0.01, &ps);
    double xl = find_peak(lsim_fn, &s, 0.0, 10.0, 0.01, &pl);
    double xg = find_peak(gauss_fn, &m, 0.0, 10.0, 0.01, &pg);
    double worst_sin2 = 0.0, worst_gauss = 0.0, at_sin2 = 0.0;
    for (double x = 0.0; x <= 35.0; x += 0.05) {
        double l = lsim_wave(&s, x), a = paper_sin2(&m, x), g = paper_gauss(&m, x);
        if (fabs(l - a) > worst_sin2) {
            worst_sin2 = fabs(l - a);
            at_sin2 = x;
        }
        worst_gauss = fmax(worst_gauss, fabs(l - g));
    }
    printf("paper curve, MOR %.2f m (alpha 0.06, beta %.3g, tau_H 20 ns, R1 0.9, R2 1.0, R0 30 m), %d segments:\n"
           "  fog peak: paper (sin^2 pulse) %.4g at %.3f m; same formula, Gaussian pulse %.4g at %.3f m; "
           "lidarsim %.4g at %.3f m\n"
           "  curve 0..35 m: max |lidarsim - paper| %.2f %% of the peak (at %.2f m), "
           "vs the Gaussian-pulse formula %.3f %%\n",
           LN20 / 0.06, m.beta, s.n, ps, xs, pg, xg, pl, xl, 100.0 * worst_sin2 / ps, at_sin2, 100.0 * worst_gauss / pg);
    CHECK(fabs(xl - xs) <= 0.05);
    CHECK(fabs(pl / ps - 1.0) <= 0.01);
    CHECK(worst_sin2 <= 0.07 * ps);
    CHECK(worst_gauss <= 0.005 * pg);
    /* The curve for the README's figure (figure(), fog_curve.png in the test's directory). */
    for (int i = 0; i < FIG_POINTS; ++i) {
        double x = -1.0 + 13.0 * i / (FIG_POINTS - 1);
        fig.x[i] = x;
        fig.sin2[i] = paper_sin2(&m, x);
        fig.gauss[i] = paper_gauss(&m, x);
        fig.lsim[i] = lsim_wave(&s, x);
    }
}

static void peak_vs_mor(void)
{
    /* The alphas of the paper's integral lookup tables (generate_integral_lookup_table.py). */
    const double alphas[] = {0.005, 0.01, 0.02, 0.03, 0.06, 0.1, 0.12, 0.15, 0.2};
    printf("fog peak vs MOR (paper sin^2 pulse | lidarsim):\n");
    for (size_t i = 0; i < sizeof alphas / sizeof alphas[0]; ++i) {
        const model m = hahner(alphas[i]);
        lsim_side s;
        lsim_side_make(&s, &m, 1e-5);
        double ps, pl;
        double xs = find_peak(sin2_fn, &m, 0.0, 10.0, 0.01, &ps);
        double xl = find_peak(lsim_fn, &s, 0.0, 10.0, 0.01, &pl);
        printf("  MOR %7.2f m: %.3f m %.4g | %.3f m %.4g (%+.2f %%)\n", LN20 / alphas[i], xs, ps, xl, pl,
               100.0 * (pl / ps - 1.0));
        fig.log_mor[i] = log10(LN20 / alphas[i]);
        fig.peak_range[0][i] = xs;
        fig.peak_range[1][i] = xl;
        fig.peak[0][i] = 1e3 * ps;
        fig.peak[1][i] = 1e3 * pl;
        CHECK(fabs(xl - xs) <= 0.05);
        CHECK(fabs(pl / ps - 1.0) <= 0.01);
    }
}

/* The README's figure (docs/fog_curve.png is a copy), drawn with lidarsim's own plot renderer. */
static void figure(lsim_context *ctx)
{
    static const unsigned char black[3] = {0, 0, 0}, grey[3] = {150, 150, 150}, red[3] = {214, 39, 40};
    lsim_plot *p;
    REQUIRE_OK(ctx, lsim_plot_grid(ctx, 1500, 480, 1, 3,
                                   "Fog after Hahner et al. (ICCV 2021): the paper's integral vs lidarsim", &p));
    REQUIRE_OK(ctx, lsim_plot_select(p, 0, 0));
    REQUIRE_OK(ctx, lsim_plot_set_labels(p, "P_R,soft at MOR 49.9 m",
                                         "range R - c tau_H / 2 (m)", "intensity (rho / R^2 units)"));
    REQUIRE_OK(ctx, lsim_plot_add_series(p, "paper sin^2", fig.x, fig.sin2, FIG_POINTS, LSIM_PLOT_LINE, black));
    REQUIRE_OK(ctx, lsim_plot_add_series(p, "paper Gauss", fig.x, fig.gauss, FIG_POINTS, LSIM_PLOT_LINE, grey));
    REQUIRE_OK(ctx, lsim_plot_add_series(p, "lidarsim", fig.x, fig.lsim, FIG_POINTS, LSIM_PLOT_LINE, red));
    lsim_plot_set_legend(p, LSIM_LEGEND_TOP_RIGHT);
    REQUIRE_OK(ctx, lsim_plot_select(p, 0, 1));
    REQUIRE_OK(ctx, lsim_plot_set_labels(p, "range of the fog's peak", "log10 MOR (m)", "peak range (m)"));
    REQUIRE_OK(ctx, lsim_plot_add_series(p, "paper, sin^2 pulse", fig.log_mor, fig.peak_range[0], FIG_MORS,
                                         LSIM_PLOT_BOTH, black));
    REQUIRE_OK(ctx, lsim_plot_add_series(p, "lidarsim", fig.log_mor, fig.peak_range[1], FIG_MORS, LSIM_PLOT_BOTH, red));
    REQUIRE_OK(ctx, lsim_plot_select(p, 0, 2));
    REQUIRE_OK(ctx, lsim_plot_set_labels(p, "height of the fog's peak", "log10 MOR (m)", "peak (1e-3 intensity)"));
    REQUIRE_OK(ctx, lsim_plot_add_series(p, "paper, sin^2 pulse", fig.log_mor, fig.peak[0], FIG_MORS,
                                         LSIM_PLOT_BOTH, black));
    REQUIRE_OK(ctx, lsim_plot_add_series(p, "lidarsim", fig.log_mor, fig.peak[1], FIG_MORS, LSIM_PLOT_BOTH, red));
    REQUIRE_OK(ctx, lsim_plot_write(p, "fog_curve.png"));
    lsim_plot_destroy(p);
    printf("wrote fog_curve.png (the README's docs/fog_curve.png)\n");
}

/* The segments against the formula (Gaussian pulse) for other pulses, overlaps and visibilities:
 * the box approximation stays within 2 % of the fog's peak (short pulses over the long default
 * ramp are the hardest case), plus the fog left out where it stays under 1 % of the threshold. */
static void segments(void)
{
    const double pulses[] = {3.0, 6.0, 10.0}, vis[] = {10.0, 50.0, 1000.0};
    const double overlaps[][2] = {{LSIM_OVERLAP_START_DEFAULT, LSIM_OVERLAP_FULL_DEFAULT}, {0.9, 1.0}, {0.3, 0.3}};
    double worst = 0.0;
    int most = 0;
    for (size_t i = 0; i < 3; ++i)
        for (size_t j = 0; j < 3; ++j)
            for (size_t k = 0; k < 3; ++k) {
                model m = {LN20 / vis[j], 0.046 / vis[j], overlaps[k][0], overlaps[k][1], 45.0, pulses[i] * 1e-9};
                lsim_side s;
                lsim_side_make(&s, &m, 1e-5);
                double peak = 0.0, err = 0.0;
                for (double x = 0.0; x <= 40.0; x += 0.04) {
                    double g = paper_gauss(&m, x);
                    peak = fmax(peak, g);
                    err = fmax(err, fabs(lsim_wave(&s, x) - g));
                }
                /* lidarsim leaves out the fog beyond where it stays under 1 % of the threshold */
                const double cut = LSIM_FOG_NEGLIGIBLE * 1e-5;
                worst = fmax(worst, fmax(err - cut, 0.0) / peak);
                most = s.n > most ? s.n : most;
                CHECK(err <= 0.02 * peak + cut);
            }
    printf("segments: 3-10 ns pulses, 10-1000 m visibility, 3 overlaps: at most %d segments, max error %.2f %% of "
           "the peak (+ up to 1 %% of the threshold where the fog is cut)\n", most, 100.0 * worst);
}

static void settings(lsim_context *ctx)
{
    /* Rasshofer et al. eqs. 11-12 with Hahner's D = 0.1, rho_T = rho_R = 0.01, 2 and 3.5 deg. */
    const double D = 0.1, rt = 0.01, rr = 0.01, gt = 2.0 * PI / 180.0, gr = 3.5 * PI / 180.0;
    const double r1 = (D - rt - rr) / (tan(gt / 2) + tan(gr / 2)), r2 = (D - rr + rt) / (tan(gr / 2) - tan(gt / 2));
    lsim_sensor *s;
    REQUIRE_OK(ctx, lsim_sensor_create_preset(ctx, "vlp16", &s));
    printf("default overlap %.4f..%.4f m (Rasshofer eqs. 11-12: %.4f..%.4f m)\n", s->spec.receiver.overlap_m[0],
           s->spec.receiver.overlap_m[1], r1, r2);
    CHECK_NEAR(s->spec.receiver.overlap_m[0], r1, 1e-3);
    CHECK_NEAR(s->spec.receiver.overlap_m[1], r2, 1e-3);
    const double bad[][2] = {{0.0, 1.0}, {-1.0, 2.0}, {2.0, 1.0}, {1.0, 2000.0}, {NAN, 1.0}, {1.0, INFINITY}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        CHECK(lsim_sensor_set_overlap(s, bad[i][0], bad[i][1]) == LSIM_ERR_INVALID_ARGUMENT);
        CHECK(strstr(lsim_context_last_error(ctx), "sensor.receiver.overlap_m") != NULL);
    }
    CHECK(s->spec.receiver.overlap_m[0] == LSIM_OVERLAP_START_DEFAULT); /* a refused value changes nothing */
    REQUIRE_OK(ctx, lsim_sensor_set_overlap(s, 0.9, 1.0));
    CHECK(s->spec.receiver.overlap_m[0] == 0.9 && s->spec.receiver.overlap_m[1] == 1.0);
    lsim_sensor_destroy(s);

    lsim_scene *scene;
    REQUIRE_OK(ctx, lsim_scene_create(ctx, &scene));
    REQUIRE_OK(ctx, lsim_scene_set_visibility(scene, 50.0));
    CHECK_NEAR(scene->extinction, log(20.0) / 50.0, 1e-12);
    CHECK_NEAR(scene->backscatter, 0.046 / 50.0, 1e-12);
    const double vis_bad[] = {0.0, -5.0, 0.1, NAN, INFINITY};
    for (size_t i = 0; i < sizeof vis_bad / sizeof vis_bad[0]; ++i) {
        CHECK(lsim_scene_set_visibility(scene, vis_bad[i]) == LSIM_ERR_INVALID_ARGUMENT);
        CHECK(strstr(lsim_context_last_error(ctx), "atmosphere.visibility_m") != NULL);
    }
    CHECK_NEAR(scene->extinction, log(20.0) / 50.0, 1e-12);
    lsim_scene_destroy(scene);
}

/* A VLP-16-like receiver (6 ns, 0.5-100 m, 10 % detected at 100 m) looking into an empty sky. */
static lsim_sensor *sky_sensor(lsim_context *ctx, size_t n)
{
    double az[64], el[64];
    for (size_t i = 0; i < n; ++i) {
        az[i] = 360.0 * (double)i / (double)n;
        el[i] = 10.0;
    }
    lsim_sensor *s;
    REQUIRE_OK(ctx, lsim_sensor_create_pattern(ctx, n, az, el, NULL, NULL, &s));
    const double zero[3] = {0, 0, 0};
    REQUIRE_OK(ctx, lsim_sensor_set_pose(s, zero, zero));
    REQUIRE_OK(ctx, lsim_sensor_set_range(s, 0.5, 100.0));
    REQUIRE_OK(ctx, lsim_sensor_set_noise(s, 0.0, 0.0, 0.1));
    REQUIRE_OK(ctx, lsim_sensor_set_receiver(s, 6.0, LSIM_RETURNS_ALL, 4));
    return s;
}

static lsim_points *sky_scan(lsim_context *ctx, lsim_scene *scene, const lsim_sensor *s, int threads)
{
    lsim_scan_options opt;
    lsim_scan_options_init(&opt);
    opt.noise = 0;
    opt.threads = threads;
    lsim_points *p;
    REQUIRE_OK(ctx, lsim_scene_scan(scene, s, &opt, &p));
    return p;
}

/* The formula's fog peak for the sky sensor at visibility v (default overlap, Gaussian pulse). */
static double predicted_peak(double v, double *range)
{
    model m = {LN20 / v, 0.046 / v, LSIM_OVERLAP_START_DEFAULT, LSIM_OVERLAP_FULL_DEFAULT, 100.0, 6e-9};
    double peak;
    *range = find_peak(gauss_fn, &m, 1.0, 8.0, 0.05, &peak);
    return peak;
}

static void scans(lsim_context *ctx)
{
    const size_t n = 64;
    const double threshold = 0.1 / (100.0 * 100.0);
    lsim_sensor *s = sky_sensor(ctx, n);
    lsim_scene *scene;
    REQUIRE_OK(ctx, lsim_scene_create(ctx, &scene));

    REQUIRE_OK(ctx, lsim_scene_set_visibility(scene, 20.0));
    double want_range, want = predicted_peak(20.0, &want_range);
    lsim_points *p = sky_scan(ctx, scene, s, 1);
    size_t got = lsim_points_count(p);
    const float *range = fixture_f32(p, LSIM_FIELD_RANGE), *power = fixture_f32(p, LSIM_FIELD_INTENSITY);
    const uint32_t *label = lsim_points_column(p, LSIM_FIELD_LABEL);
    double worst_r = 0.0, worst_p = 0.0;
    int outliers = 0;
    for (size_t i = 0; i < got; ++i) {
        worst_r = fmax(worst_r, fabs(range[i] - want_range));
        worst_p = fmax(worst_p, fabs(power[i] / want - 1.0));
        outliers += label[i] == 1;
    }
    printf("sky at 20 m visibility: %zu echoes of %zu beams; formula: peak %.4g at %.3f m; "
           "lidarsim: max |range error| %.4f m, max power error %.2f %%\n",
           got, n, want, want_range, worst_r, 100.0 * worst_p);
    CHECK(got == n && outliers == (int)n);
    CHECK(worst_r <= 0.02);
    CHECK(worst_p <= 0.01);
    lsim_points *q = sky_scan(ctx, scene, s, 3);
    CHECK(lsim_points_count(q) == got &&
          memcmp(fixture_f32(q, LSIM_FIELD_RANGE), range, got * sizeof(float)) == 0 &&
          memcmp(fixture_f32(q, LSIM_FIELD_INTENSITY), power, got * sizeof(float)) == 0);
    lsim_points_destroy(q);
    lsim_points_destroy(p);

    REQUIRE_OK(ctx, lsim_scene_set_visibility(scene, 1000.0));
    p = sky_scan(ctx, scene, s, 2);
    printf("sky at 1000 m visibility: %zu echoes (formula: peak %.3g x the threshold)\n", lsim_points_count(p),
           predicted_peak(1000.0, &want_range) / threshold);
    CHECK(lsim_points_count(p) == 0);
    lsim_points_destroy(p);

    /* Where fog echoes start: the formula's peak equals the threshold (bisection in visibility). */
    double lo = 20.0, hi = 1000.0;
    for (int i = 0; i < 16; ++i) {
        double mid = sqrt(lo * hi), r;
        if (predicted_peak(mid, &r) > threshold)
            lo = mid;
        else
            hi = mid;
    }
    size_t below, above;
    REQUIRE_OK(ctx, lsim_scene_set_visibility(scene, 0.95 * lo));
    p = sky_scan(ctx, scene, s, 2);
    below = lsim_points_count(p);
    lsim_points_destroy(p);
    REQUIRE_OK(ctx, lsim_scene_set_visibility(scene, 1.05 * lo));
    p = sky_scan(ctx, scene, s, 2);
    above = lsim_points_count(p);
    lsim_points_destroy(p);
    printf("fog echoes start below %.1f m visibility (formula): %zu echoes at %.1f m, %zu at %.1f m\n", lo, below,
           0.95 * lo, above, 1.05 * lo);
    CHECK(below == n && above == 0);
    lsim_scene_destroy(scene);
    lsim_sensor_destroy(s);
}

int main(void)
{
    lsim_context *ctx;
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    paper_curve();
    peak_vs_mor();
    figure(ctx);
    segments();
    settings(ctx);
    scans(ctx);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_fog");
}
