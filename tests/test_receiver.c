/* Pulsed receiver: echoes against closed forms (range, power, EPW of a Gaussian above T), EPW
 * growing with amplitude and with spread, integral conservation, multi-echo return modes, merging
 * of close targets, ambient noise (range spread, drop-outs, false echoes at Rice's rate),
 * determinism, robustness. */
#include "harness.h"

#include "receiver/pulsed.h"

#include <stdint.h>
#include <string.h>

static lsim_receiver make_rx(lsim_return_mode mode)
{
    lsim_receiver rx;
    memset(&rx, 0, sizeof rx);
    rx.pulse_width_ns = 4.0;
    rx.threshold = 1.0;
    rx.mode = mode;
    rx.max_returns = LSIM_MAX_RETURNS;
    return rx;
}

static lsim_contribution contrib(float range, float amplitude, float spread)
{
    lsim_contribution c;
    memset(&c, 0, sizeof c);
    c.range = range;
    c.amplitude = amplitude;
    c.spread = spread;
    c.cos_incidence = 1.0f;
    return c;
}

static double sigma_of(double tau_ns)
{
    return lsim_pulse_range_fwhm(tau_ns) / (2.0 * sqrt(2.0 * log(2.0)));
}

static void test_single_target(void)
{
    CHECK_NEAR(lsim_pulse_range_fwhm(4.0), 299792458.0 * 4e-9 / 2.0, 1e-12);
    CHECK_NEAR(lsim_pulse_range_fwhm(1.0), 0.149896229, 1e-9);
    const double sigma = sigma_of(4.0);
    lsim_receiver rx = make_rx(LSIM_RETURN_ALL);
    const double amps[] = {1.01, 1.5, 5.0, 40.0, 1e4};
    for (size_t k = 0; k < sizeof amps / sizeof amps[0]; ++k) {
        double a = amps[k];
        double epw = 2.0 * sigma * sqrt(2.0 * log(a / rx.threshold));
        lsim_contribution c = contrib(50.0f, (float)a, 0.0f);
        lsim_echo e[LSIM_MAX_RETURNS];
        int n = lsim_receiver_echoes(&rx, &c, 1, NULL, e);
        CHECK(n == 1);
        CHECK_NEAR(e[0].range, 50.0, 1e-4);
        CHECK_NEAR(e[0].power / (float)a, 1.0, 1e-6);
        CHECK_NEAR(e[0].epw, epw, 1e-4);
        CHECK(e[0].dominant == 0);
        /* the sampled path (two halves at the same range form a cluster) agrees */
        lsim_contribution two[2] = {contrib(50.0f, (float)(a / 2), 0.0f), contrib(50.0f, (float)(a / 2), 0.0f)};
        n = lsim_receiver_echoes(&rx, two, 2, NULL, e);
        CHECK(n == 1);
        CHECK_NEAR(e[0].range, 50.0, 1e-4);
        CHECK_NEAR(e[0].power / a, 1.0, 1e-6);
        CHECK_NEAR(e[0].epw, epw, 1e-4);
        CHECK(e[0].dominant == 0 || e[0].dominant == 1);
    }
    /* spread: closed-form lone path vs sampled path */
    const double spreads[] = {0.05, 0.5, 3.0, 0.05, 0.5, 3.0};
    for (size_t k = 0; k < sizeof spreads / sizeof spreads[0]; ++k) {
        float amp = k < 3 ? 8.0f : 5000.0f;
        lsim_contribution one = contrib(30.0f, amp, (float)spreads[k]);
        lsim_contribution two[2] = {contrib(30.0f, amp / 2, (float)spreads[k]), contrib(30.0f, amp / 2, (float)spreads[k])};
        lsim_echo a[LSIM_MAX_RETURNS], b[LSIM_MAX_RETURNS];
        CHECK(lsim_receiver_echoes(&rx, &one, 1, NULL, a) == 1);
        CHECK(lsim_receiver_echoes(&rx, two, 2, NULL, b) == 1);
        CHECK_NEAR(a[0].range, 30.0, 1e-6);
        CHECK_NEAR(b[0].range, 30.0, 1e-4);
        CHECK_NEAR(b[0].power / a[0].power, 1.0, 1e-6);
        CHECK_NEAR(b[0].epw, a[0].epw, 1e-4);
        /* the peak is the closed form at the centre, and the waveform is T at the echo's ends */
        double peak = lsim_receiver_waveform(&rx, &one, 1, 30.0);
        CHECK_NEAR(a[0].power / peak, 1.0, 1e-6);
        CHECK_NEAR(lsim_receiver_waveform(&rx, &one, 1, 30.0 + 0.5 * a[0].epw), rx.threshold, 1e-4);
    }
    /* below or at the threshold: nothing */
    lsim_echo e[LSIM_MAX_RETURNS];
    lsim_contribution weak = contrib(50.0f, 0.9f, 0.0f);
    CHECK(lsim_receiver_echoes(&rx, &weak, 1, NULL, e) == 0);
    weak.amplitude = 1.0f;
    CHECK(lsim_receiver_echoes(&rx, &weak, 1, NULL, e) == 0);
    weak.amplitude = 3.0f;
    weak.spread = 20.0f; /* peak 3 sigma sqrt(2 pi) / 20 < 1 */
    CHECK(lsim_receiver_echoes(&rx, &weak, 1, NULL, e) == 0);
    /* two sub-threshold returns that add up above it */
    lsim_contribution pair[2] = {contrib(10.0f, 0.7f, 0.0f), contrib(10.02f, 0.7f, 0.0f)};
    CHECK(lsim_receiver_echoes(&rx, pair, 2, NULL, e) == 1);
    CHECK_NEAR(e[0].range, 10.01, 1e-4);
}

static void test_epw_growth(void)
{
    lsim_receiver rx = make_rx(LSIM_RETURN_STRONGEST);
    lsim_echo e[LSIM_MAX_RETURNS];
    /* perpendicular target: EPW grows with amplitude */
    const double amps[] = {1.2, 2.0, 5.0, 20.0, 100.0, 1000.0};
    double prev = 0.0;
    for (size_t k = 0; k < sizeof amps / sizeof amps[0]; ++k) {
        lsim_contribution c = contrib(20.0f, (float)amps[k], 0.0f);
        CHECK(lsim_receiver_echoes(&rx, &c, 1, NULL, e) == 1);
        CHECK(e[0].epw > prev);
        prev = e[0].epw;
    }
    /* grazing incidence: at a fixed amplitude the EPW grows with the spread, the peak falls */
    const double spreads[] = {0.0, 0.1, 0.3, 0.6, 1.0, 2.0, 4.0};
    double prev_epw = 0.0, prev_power = 1e30;
    for (size_t k = 0; k < sizeof spreads / sizeof spreads[0]; ++k) {
        lsim_contribution c = contrib(20.0f, 10.0f, (float)spreads[k]);
        CHECK(lsim_receiver_echoes(&rx, &c, 1, NULL, e) == 1);
        CHECK(e[0].epw > prev_epw);
        CHECK(e[0].power < prev_power);
        CHECK_NEAR(e[0].range, 20.0, 1e-5);
        prev_epw = e[0].epw;
        prev_power = e[0].power;
    }
    CHECK(prev_epw > 4.0 * 0.9); /* a wide spread: the EPW approaches the spread itself */
    /* the spread conserves the integral of the waveform: a sigma sqrt(2 pi) */
    const double sigma = sigma_of(rx.pulse_width_ns);
    const double w_list[] = {0.0, 2.0};
    double integral[2];
    for (int k = 0; k < 2; ++k) {
        lsim_contribution c = contrib(20.0f, 10.0f, (float)w_list[k]);
        const double lo = 10.0, hi = 30.0, dr = 1e-3;
        double s = 0.0;
        for (int i = 0; i <= (int)((hi - lo) / dr + 0.5); ++i) {
            double v = lsim_receiver_waveform(&rx, &c, 1, lo + i * dr);
            s += (i == 0 || lo + i * dr >= hi - 1e-9) ? 0.5 * v : v;
        }
        integral[k] = s * dr;
    }
    CHECK_NEAR(integral[1] / integral[0], 1.0, 1e-3);
    CHECK_NEAR(integral[0] / (10.0 * sigma * sqrt(2.0 * 3.14159265358979)), 1.0, 1e-3);
    /* the spread shape tends to the Gaussian as the spread vanishes */
    lsim_contribution g = contrib(20.0f, 10.0f, 0.0f), tiny = contrib(20.0f, 10.0f, 1e-3f);
    for (double r = 19.0; r <= 21.0; r += 0.1)
        CHECK_NEAR(lsim_receiver_waveform(&rx, &tiny, 1, r), lsim_receiver_waveform(&rx, &g, 1, r), 1e-5);
}

static int run(lsim_return_mode mode, int max_returns, const lsim_contribution *c, int n, lsim_echo *e)
{
    lsim_receiver rx = make_rx(mode);
    rx.max_returns = max_returns;
    return lsim_receiver_echoes(&rx, c, n, NULL, e);
}

static void test_modes(void)
{
    lsim_echo e[LSIM_MAX_RETURNS];
    /* two targets 10 m apart, the far one brighter */
    lsim_contribution two[2] = {contrib(30.0f, 3.0f, 0.0f), contrib(40.0f, 8.0f, 0.0f)};
    CHECK(run(LSIM_RETURN_ALL, 16, two, 2, e) == 2);
    CHECK_NEAR(e[0].range, 30.0, 1e-4);
    CHECK_NEAR(e[1].range, 40.0, 1e-4);
    CHECK(e[0].dominant == 0 && e[1].dominant == 1);
    CHECK_NEAR(e[0].power, 3.0, 1e-5);
    CHECK_NEAR(e[1].power, 8.0, 1e-5);
    CHECK(run(LSIM_RETURN_FIRST, 16, two, 2, e) == 1);
    CHECK_NEAR(e[0].range, 30.0, 1e-4);
    CHECK(run(LSIM_RETURN_LAST, 16, two, 2, e) == 1);
    CHECK_NEAR(e[0].range, 40.0, 1e-4);
    CHECK(run(LSIM_RETURN_STRONGEST, 16, two, 2, e) == 1);
    CHECK_NEAR(e[0].range, 40.0, 1e-4);
    /* strongest == last: dual gives strongest and second strongest, nearest first */
    CHECK(run(LSIM_RETURN_DUAL, 16, two, 2, e) == 2);
    CHECK_NEAR(e[0].range, 30.0, 1e-4);
    CHECK_NEAR(e[1].range, 40.0, 1e-4);
    CHECK(run(LSIM_RETURN_ALL, 1, two, 2, e) == 1);
    CHECK_NEAR(e[0].range, 30.0, 1e-4);

    /* three targets: dual = strongest + last; coincident case = strongest + second strongest */
    lsim_contribution three[3] = {contrib(30.0f, 5.0f, 0.0f), contrib(35.0f, 8.0f, 0.0f), contrib(40.0f, 2.0f, 0.0f)};
    CHECK(run(LSIM_RETURN_DUAL, 16, three, 3, e) == 2);
    CHECK_NEAR(e[0].range, 35.0, 1e-4);
    CHECK_NEAR(e[1].range, 40.0, 1e-4);
    CHECK(e[0].dominant == 1 && e[1].dominant == 2);
    CHECK(run(LSIM_RETURN_DUAL, 1, three, 3, e) == 1); /* capped: the strongest */
    CHECK_NEAR(e[0].range, 35.0, 1e-4);
    lsim_contribution three_b[3] = {contrib(30.0f, 5.0f, 0.0f), contrib(35.0f, 2.0f, 0.0f), contrib(40.0f, 8.0f, 0.0f)};
    CHECK(run(LSIM_RETURN_DUAL, 16, three_b, 3, e) == 2);
    CHECK_NEAR(e[0].range, 30.0, 1e-4);
    CHECK_NEAR(e[1].range, 40.0, 1e-4);
    CHECK(run(LSIM_RETURN_ALL, 2, three_b, 3, e) == 2);
    CHECK_NEAR(e[0].range, 30.0, 1e-4);
    CHECK_NEAR(e[1].range, 35.0, 1e-4);
    CHECK(run(LSIM_RETURN_ALL, 16, three_b, 3, e) == 3);
    CHECK(e[0].range < e[1].range && e[1].range < e[2].range);
    /* input order does not matter */
    lsim_contribution rev[3] = {three_b[2], three_b[1], three_b[0]};
    CHECK(run(LSIM_RETURN_ALL, 16, rev, 3, e) == 3);
    CHECK_NEAR(e[0].range, 30.0, 1e-4);
    CHECK(e[0].dominant == 2 && e[2].dominant == 0);
    /* a single echo in dual mode */
    CHECK(run(LSIM_RETURN_DUAL, 16, two + 1, 1, e) == 1);

    /* 5 cm apart with a 4 ns pulse (FWHM 0.6 m): one echo, between them, nearer the brighter */
    lsim_contribution close[2] = {contrib(20.0f, 6.0f, 0.0f), contrib(20.05f, 3.0f, 0.0f)};
    CHECK(run(LSIM_RETURN_ALL, 16, close, 2, e) == 1);
    CHECK(e[0].range > 20.0f && e[0].range < 20.025f);
    CHECK(e[0].dominant == 0);
    CHECK(e[0].power > 6.0f && e[0].power < 9.0f);
    close[1].amplitude = 12.0f;
    CHECK(run(LSIM_RETURN_ALL, 16, close, 2, e) == 1);
    CHECK(e[0].range > 20.025f && e[0].range < 20.05f);
    CHECK(e[0].dominant == 1);
    /* 2 m apart (several FWHM): two echoes */
    lsim_contribution apart[2] = {contrib(20.0f, 6.0f, 0.0f), contrib(22.0f, 3.0f, 0.0f)};
    CHECK(run(LSIM_RETURN_ALL, 16, apart, 2, e) == 2);
    CHECK_NEAR(e[0].range, 20.0, 1e-3);
    CHECK_NEAR(e[1].range, 22.0, 1e-3);
}

typedef struct stats {
    double n, sum, sum2;
} stats;

static void stats_add(stats *s, double x)
{
    s->n += 1;
    s->sum += x;
    s->sum2 += x * x;
}

static double stats_std(const stats *s)
{
    double m = s->sum / s->n;
    return sqrt(fmax(s->sum2 / s->n - m * m, 0.0));
}

enum { BEAMS = 20000 };

/* Over BEAMS streams: std of the target's range, its drop-out rate (no echo within 0.3 m) and
 * false echoes per beam. */
static void ambient_run(double background, double shot, float amplitude, double max_range, double *range_std,
                        double *dropout, double *false_rate)
{
    lsim_receiver rx = make_rx(LSIM_RETURN_ALL);
    rx.background = background;
    rx.shot_noise = shot;
    rx.max_range = max_range;
    lsim_contribution c = contrib(50.0f, amplitude, 0.0f);
    stats st = {0, 0, 0};
    long drops = 0, falses = 0;
    for (int b = 0; b < BEAMS; ++b) {
        lsim_rng_stream s = lsim_rng_stream_make(42, 7, (uint64_t)b);
        lsim_echo e[LSIM_MAX_RETURNS];
        int n = lsim_receiver_echoes(&rx, &c, 1, &s, e);
        int found = 0;
        for (int i = 0; i < n; ++i) {
            if (e[i].dominant < 0) {
                ++falses;
            } else if (fabs(e[i].range - 50.0) < 0.3 && !found) {
                found = 1;
                stats_add(&st, e[i].range);
            }
        }
        drops += !found;
    }
    *range_std = st.n > 1 ? stats_std(&st) : 0.0;
    *dropout = (double)drops / BEAMS;
    *false_rate = (double)falses / BEAMS;
}

static void test_ambient(void)
{
    double std0, drop0, false0, std1, drop1, false1;
    /* a bright target: range noise grows with the background */
    ambient_run(0.0, 0.05, 10.0f, 200.0, &std0, &drop0, &false0);
    ambient_run(50.0, 0.05, 10.0f, 200.0, &std1, &drop1, &false1);
    printf("bright target: range std %.5f m (B = 0) vs %.5f m (B = 50); false echoes per beam %.4f vs %.4f\n",
           std0, std1, false0, false1);
    CHECK(std0 > 0.0);
    CHECK(std1 > 1.5 * std0);
    CHECK(drop0 == 0.0);
    CHECK(false0 == 0.0);
    CHECK(false1 > 0.1);
    /* a weak target (a = 1.2 T): drop-outs grow with the background */
    double stdw0, dropw0, falsew0, stdw1, dropw1, falsew1;
    ambient_run(0.0, 0.05, 1.2f, 200.0, &stdw0, &dropw0, &falsew0);
    ambient_run(20.0, 0.05, 1.2f, 200.0, &stdw1, &dropw1, &falsew1);
    printf("weak target: drop-out %.4f (B = 0) vs %.4f (B = 20)\n", dropw0, dropw1);
    CHECK(dropw1 > dropw0 + 0.05);
    CHECK(dropw0 < 0.01);
    /* false echoes: more with more background */
    double prev = -1.0;
    const double bgs[] = {0.0, 20.0, 40.0, 60.0};
    for (size_t k = 0; k < sizeof bgs / sizeof bgs[0]; ++k) {
        double sd, dr, fr;
        ambient_run(bgs[k], 0.05, 10.0f, 200.0, &sd, &dr, &fr);
        printf("false echoes per beam, B = %g: %.4f\n", bgs[k], fr);
        CHECK(fr > prev);
        CHECK(fr < 16.0);
        prev = fr;
    }
    CHECK(prev > 1.0);
    /* the analytic (Rice) rate outside the sampled window matches the sampled noise inside it:
     * a faint return spread over 100 m makes a 100 m noise-only window */
    {
        lsim_receiver rx = make_rx(LSIM_RETURN_ALL);
        rx.background = 40.0;
        rx.shot_noise = 0.05;
        const double sigma = sigma_of(rx.pulse_width_ns);
        const double sn = rx.shot_noise * sqrt(rx.background);
        const double u = rx.threshold / sn;
        const double rate = exp(-0.5 * u * u) / (2.0 * 3.14159265358979 * sqrt(2.0) * sigma);
        lsim_contribution faint = contrib(100.0f, 0.5f, 100.0f);
        long inside = 0, outside = 0;
        for (int b = 0; b < BEAMS; ++b) {
            lsim_echo e[LSIM_MAX_RETURNS];
            lsim_rng_stream s = lsim_rng_stream_make(9, 1, (uint64_t)b);
            rx.max_range = 0.0; /* sampled window only */
            int n = lsim_receiver_echoes(&rx, &faint, 1, &s, e);
            for (int i = 0; i < n; ++i)
                inside += e[i].dominant < 0 && e[i].range > 55.0 && e[i].range < 145.0;
            s = lsim_rng_stream_make(9, 2, (uint64_t)b);
            rx.max_range = 90.0; /* nothing but the analytic part: no contribution */
            n = lsim_receiver_echoes(&rx, &faint, 0, &s, e);
            outside += n;
        }
        double in_rate = (double)inside / (BEAMS * 90.0), out_rate = (double)outside / (BEAMS * 90.0);
        printf("noise-only echoes per metre: sampled %.5f, analytic %.5f, Rice %.5f\n", in_rate, out_rate, rate);
        CHECK_NEAR(in_rate / rate, 1.0, 0.12);
        CHECK_NEAR(out_rate / rate, 1.0, 0.06);
    }
    /* no stream or no shot noise: exactly the noise-free result; same stream: same echoes */
    lsim_receiver rx = make_rx(LSIM_RETURN_ALL);
    rx.background = 30.0;
    rx.shot_noise = 0.05;
    rx.max_range = 200.0;
    lsim_receiver quiet = make_rx(LSIM_RETURN_ALL);
    lsim_contribution cs[3] = {contrib(20.0f, 6.0f, 0.0f), contrib(20.3f, 3.0f, 0.5f), contrib(80.0f, 2.0f, 0.0f)};
    lsim_echo a[LSIM_MAX_RETURNS], b[LSIM_MAX_RETURNS];
    int na = lsim_receiver_echoes(&rx, cs, 3, NULL, a);
    int nb = lsim_receiver_echoes(&quiet, cs, 3, NULL, b);
    CHECK(na == nb && na > 0 && memcmp(a, b, sizeof(lsim_echo) * (size_t)na) == 0);
    lsim_receiver zero_shot = rx;
    zero_shot.shot_noise = 0.0;
    lsim_rng_stream s0 = lsim_rng_stream_make(1, 2, 3);
    na = lsim_receiver_echoes(&zero_shot, cs, 3, &s0, a);
    CHECK(na == nb && memcmp(a, b, sizeof(lsim_echo) * (size_t)na) == 0);
    int differ = 0;
    for (int k = 0; k < 50; ++k) {
        lsim_rng_stream s1 = lsim_rng_stream_make(5, 0, (uint64_t)k), s2 = lsim_rng_stream_make(5, 0, (uint64_t)k);
        lsim_rng_stream s3 = lsim_rng_stream_make(6, 0, (uint64_t)k);
        memset(a, 0, sizeof a);
        memset(b, 0, sizeof b);
        na = lsim_receiver_echoes(&rx, cs, 3, &s1, a);
        nb = lsim_receiver_echoes(&rx, cs, 3, &s2, b);
        CHECK(na == nb && memcmp(a, b, sizeof(lsim_echo) * (size_t)na) == 0);
        nb = lsim_receiver_echoes(&rx, cs, 3, &s3, b);
        differ += na != nb || memcmp(a, b, sizeof(lsim_echo) * (size_t)na) != 0;
    }
    CHECK(differ > 40);
}

/* lsim_receiver_ambient, the scan's model of sunlight on a noise-free beam: nothing without
 * background; the analytic drop-out rate, range noise and Rice false-echo rate; the mode's
 * selection over true and false echoes. */
static void test_ambient_analytic(void)
{
    lsim_receiver rx = make_rx(LSIM_RETURN_ALL);
    rx.shot_noise = 0.05;
    rx.max_range = 200.0;
    lsim_contribution c = contrib(50.0f, 1.1f, 0.0f);
    lsim_echo in[LSIM_MAX_RETURNS], out[LSIM_MAX_RETURNS];
    int m = lsim_receiver_echoes(&rx, &c, 1, NULL, in);
    CHECK(m == 1);
    /* no background: the echoes as they are, no draw */
    lsim_rng_stream s = lsim_rng_stream_make(3, 0, 0);
    CHECK(lsim_receiver_ambient(&rx, in, m, &s, out) == 1 && memcmp(in, out, sizeof(lsim_echo)) == 0);
    CHECK(s.draw == 0 && s.next == 4);
    CHECK(lsim_receiver_ambient(&rx, in, m, NULL, out) == 1 && memcmp(in, out, sizeof(lsim_echo)) == 0);
    /* B = 16: s_n = 0.2, an echo 0.1 (half a sigma) above T = 1 is lost with P = Phi(-0.5) = 0.3085;
     * its range noise sqrt2 sigma s_n / 1.1. B = 49: false echoes at Rice's rate over the 200 m
     * less the echo's width (about 1.5 a beam) */
    rx.background = 16.0;
    const double sigma = sigma_of(rx.pulse_width_ns), sn = 0.2;
    long lost = 0, falses = 0;
    stats st = {0, 0, 0};
    for (int b = 0; b < BEAMS; ++b) {
        s = lsim_rng_stream_make(8, 1, (uint64_t)b);
        int n = lsim_receiver_ambient(&rx, in, m, &s, out), found = 0;
        for (int i = 0; i < n; ++i) {
            if (out[i].dominant >= 0) {
                found = 1;
                stats_add(&st, out[i].range);
            }
        }
        lost += !found;
    }
    rx.background = 49.0;
    const double u = rx.threshold / 0.35, rate = exp(-0.5 * u * u) / (2.0 * 3.14159265358979 * sqrt(2.0) * sigma);
    for (int b = 0; b < BEAMS; ++b) {
        s = lsim_rng_stream_make(8, 3, (uint64_t)b);
        int n = lsim_receiver_ambient(&rx, in, m, &s, out);
        for (int i = 0; i < n; ++i) {
            if (out[i].dominant < 0) {
                ++falses;
                CHECK(out[i].power > rx.threshold && out[i].range >= 0.0f && out[i].range <= 200.0f);
            }
        }
    }
    const double drop = (double)lost / BEAMS, per_beam = (double)falses / BEAMS;
    const double range_sd = stats_std(&st), expect_sd = sqrt(2.0) * sigma * sn / 1.1;
    const double expect_falses = rate * (200.0 - in[0].epw);
    printf("ambient (analytic): drop-out %.4f (expected 0.3085), range std %.5f m (expected %.5f), false echoes "
           "per beam %.4f (Rice %.4f)\n", drop, range_sd, expect_sd, per_beam, expect_falses);
    CHECK_NEAR(drop, 0.3085, 0.015);
    CHECK_NEAR(range_sd / expect_sd, 1.0, 0.04);
    CHECK_NEAR(per_beam / expect_falses, 1.0, 0.05);
    /* first: the nearest of the echo and the false echoes before it; last: the farthest */
    rx.background = 400.0; /* u = 1 / 2: false echoes all over the 200 m */
    rx.mode = LSIM_RETURN_FIRST;
    s = lsim_rng_stream_make(8, 2, 0);
    CHECK(lsim_receiver_ambient(&rx, in, m, &s, out) == 1 && out[0].dominant < 0 && out[0].range < 50.0f);
    rx.mode = LSIM_RETURN_LAST;
    s = lsim_rng_stream_make(8, 2, 0);
    CHECK(lsim_receiver_ambient(&rx, in, m, &s, out) == 1 && out[0].dominant < 0 && out[0].range > 50.0f);
    /* the same stream: the same echoes */
    lsim_echo again[LSIM_MAX_RETURNS];
    s = lsim_rng_stream_make(8, 2, 0);
    CHECK(lsim_receiver_ambient(&rx, in, m, &s, again) == 1 && memcmp(out, again, sizeof(lsim_echo)) == 0);
}

static void test_robustness(void)
{
    lsim_receiver rx = make_rx(LSIM_RETURN_ALL);
    lsim_echo e[LSIM_MAX_RETURNS];
    CHECK(lsim_receiver_echoes(&rx, NULL, 0, NULL, e) == 0);
    lsim_contribution ok = contrib(25.0f, 4.0f, 0.0f);
    CHECK(lsim_receiver_echoes(&rx, &ok, 0, NULL, e) == 0);
    CHECK(lsim_receiver_echoes(&rx, &ok, -3, NULL, e) == 0);
    /* NaN, infinite, negative and zero amplitudes, NaN range: ignored */
    lsim_contribution bad[6] = {contrib(10.0f, NAN, 0.0f), contrib(12.0f, -5.0f, 0.0f), contrib(14.0f, INFINITY, 0.0f),
                                contrib(NAN, 5.0f, 0.0f), contrib(16.0f, 0.0f, 0.0f), contrib(25.0f, 4.0f, NAN)};
    int n = lsim_receiver_echoes(&rx, bad, 6, NULL, e);
    CHECK(n == 1);
    CHECK_NEAR(e[0].range, 25.0, 1e-4);
    CHECK(e[0].dominant == 5);
    bad[5].spread = -1.0f; /* a negative spread counts as 0 */
    CHECK(lsim_receiver_echoes(&rx, bad, 6, NULL, e) == 1);
    CHECK_NEAR(e[0].power, 4.0, 1e-6);
    CHECK(isfinite(lsim_receiver_waveform(&rx, bad, 6, 25.0)));
    /* invalid receivers: no echoes */
    lsim_receiver bad_rx = rx;
    bad_rx.pulse_width_ns = 0.0;
    CHECK(lsim_receiver_echoes(&bad_rx, &ok, 1, NULL, e) == 0);
    bad_rx = rx;
    bad_rx.threshold = NAN;
    CHECK(lsim_receiver_echoes(&bad_rx, &ok, 1, NULL, e) == 0);
    bad_rx = rx;
    bad_rx.max_returns = 0; /* clamped to 1 */
    CHECK(lsim_receiver_echoes(&bad_rx, &ok, 1, NULL, e) == 1);
    CHECK(lsim_receiver_echoes(NULL, &ok, 1, NULL, e) == 0);

    /* more than 64 contributions: the 64 strongest count */
    enum { MANY = 100 };
    lsim_contribution many[MANY];
    for (int i = 0; i < MANY; ++i)
        many[i] = contrib(10.0f + 2.0f * (float)i, 2.0f + 0.01f * (float)i, 0.0f);
    n = lsim_receiver_echoes(&rx, many, MANY, NULL, e);
    CHECK(n == LSIM_MAX_RETURNS);
    CHECK(e[0].dominant == MANY - LSIM_RECEIVER_MAX_CONTRIBUTIONS);
    for (int i = 0; i < n; ++i)
        CHECK(e[i].dominant == MANY - LSIM_RECEIVER_MAX_CONTRIBUTIONS + i);
    rx.mode = LSIM_RETURN_LAST;
    CHECK(lsim_receiver_echoes(&rx, many, MANY, NULL, e) == 1);
    CHECK(e[0].dominant == MANY - 1);
    /* many sub-rays on one surface: one echo; with noise too */
    lsim_contribution sub[200];
    for (int i = 0; i < 200; ++i)
        sub[i] = contrib(30.0f + 0.001f * (float)(i % 17), 0.05f, 0.2f);
    rx.mode = LSIM_RETURN_ALL;
    n = lsim_receiver_echoes(&rx, sub, 200, NULL, e);
    CHECK(n == 1);
    CHECK(n == 1 && e[0].range > 30.0f && e[0].range < 30.02f);
    rx.background = 10.0;
    rx.shot_noise = 0.01;
    rx.max_range = 100.0;
    lsim_rng_stream s = lsim_rng_stream_make(1, 1, 1);
    n = lsim_receiver_echoes(&rx, sub, 200, &s, e);
    CHECK(n >= 1 && n <= LSIM_MAX_RETURNS);
    /* a very long cluster (3 km of spread): the grid coarsens; one echo over the whole plateau,
     * its peak on the point target riding on it */
    lsim_contribution longc[2] = {contrib(2000.0f, 1e4f, 3000.0f), contrib(1000.0f, 5.0f, 0.0f)};
    lsim_receiver rl = make_rx(LSIM_RETURN_ALL);
    n = lsim_receiver_echoes(&rl, longc, 2, NULL, e);
    CHECK(n == 1);
    CHECK(n == 1 && fabs(e[0].range - 1000.0) < 0.01 && fabs(e[0].epw - 3000.0) < 0.5);
    CHECK(n == 1 && e[0].dominant == 1);
    rl.shot_noise = 0.01;
    s = lsim_rng_stream_make(4, 4, 4);
    n = lsim_receiver_echoes(&rl, longc, 2, &s, e);
    CHECK(n >= 1 && fabs(e[0].epw - 3000.0) < 1.0);
    /* a huge background: many false echoes, capped, nearest first */
    rx.background = 1e4;
    rx.max_range = 1000.0;
    s = lsim_rng_stream_make(1, 1, 2);
    n = lsim_receiver_echoes(&rx, &ok, 1, &s, e);
    CHECK(n == LSIM_MAX_RETURNS);
    for (int i = 1; i < n; ++i)
        CHECK(e[i - 1].range <= e[i].range);
    rx.mode = LSIM_RETURN_LAST;
    s = lsim_rng_stream_make(1, 1, 3);
    n = lsim_receiver_echoes(&rx, &ok, 1, &s, e);
    CHECK(n == 1 && e[0].range > 900.0f && e[0].range <= 1000.0f);
}

/* The noise-free fast path for sub-ray clusters (pulsed.c, fast_beam) against the sampled path
 * (lsim_receiver_echoes_sampled) on random contributions: clusters like a beam's sub-rays on one
 * surface (points within a fraction of sigma, amplitudes over 1e-7..1e5 of the threshold, weights
 * like the rings'), every return mode, a second surface behind some (two clusters, each solved
 * alone, or one the fast path leaves to the sampled path), and wider ones.
 * Same echo count; range and EPW within the sampled path's own tolerance (2e-6 m each crossing or
 * peak) plus float rounding; power within 1e-6 relative; the same dominant contribution unless two
 * tie at the peak to 1e-6. Cases whose peak is within 1e-6 of the threshold are left out (the grid
 * may not see an interval narrower than its step). */
static uint64_t fast_rng_state = 0x9e3779b97f4a7c15ull;

static double fast_u01(void)
{
    fast_rng_state ^= fast_rng_state << 13;
    fast_rng_state ^= fast_rng_state >> 7;
    fast_rng_state ^= fast_rng_state << 17;
    return (double)(fast_rng_state >> 11) * (1.0 / 9007199254740992.0);
}

static void test_fast_path_matches_sampled(void)
{
    const double taus[] = {1.0, 3.0, 4.0, 6.0, 10.0};
    const double spans[] = {0.0, 1e-4, 0.02, 0.1, 0.3, 0.6, 0.99, 1.5, 4.0}; /* x sigma; > 1: sampled */
    const lsim_return_mode modes[] = {LSIM_RETURN_FIRST, LSIM_RETURN_STRONGEST, LSIM_RETURN_LAST, LSIM_RETURN_DUAL,
                                      LSIM_RETURN_ALL};
    int cases = 0, compared = 0, echoes = 0, count_mismatch = 0, dominant_mismatch = 0;
    double max_dr = 0.0, max_depw = 0.0, max_dp = 0.0;
    for (int iter = 0; iter < 6000; ++iter) {
        lsim_receiver rx = make_rx(modes[iter % 5]);
        rx.pulse_width_ns = taus[(iter / 5) % 5];
        rx.max_returns = 1 + (int)(fast_u01() * 4.0);
        const double sigma = sigma_of(rx.pulse_width_ns);
        const double span = spans[(iter / 25) % 9] * sigma;
        const int n = 2 + (int)(fast_u01() * 37.0);
        const double base = 0.5 + fast_u01() * 150.0;
        /* total amplitude from 1e-7 to 1e5 x T (log-uniform), shared like sub-ray weights */
        const double total = pow(10.0, -7.0 + 12.0 * fast_u01());
        lsim_contribution c[40];
        double wsum = 0.0, w[40];
        for (int j = 0; j < n; ++j) {
            w[j] = j == 0 ? 1.0 : exp(-2.0 * fast_u01()) * (fast_u01() < 0.2 ? 1e-3 : 1.0);
            wsum += w[j];
        }
        for (int j = 0; j < n; ++j) {
            float spread = fast_u01() < 0.1 ? (float)(0.5e-4 * sigma * fast_u01()) : 0.0f;
            c[j] = contrib((float)(base + span * (fast_u01() - 0.5)), (float)(total * w[j] / wsum), spread);
            c[j].object = (uint32_t)j;
        }
        if (iter % 3 == 1) /* a second surface behind (glass and wall; an edge): two clusters or one */
            for (int j = 2 * n / 3; j < n; ++j)
                c[j].range += (float)(sigma * (2.0 + 30.0 * fast_u01()));
        if (iter % 7 == 0) /* exact duplicates: ties in the dominant */
            c[1] = c[0];
        ++cases;
        lsim_echo a[LSIM_MAX_RETURNS], b[LSIM_MAX_RETURNS];
        int na = lsim_receiver_echoes(&rx, c, n, NULL, a);
        int nb = lsim_receiver_echoes_sampled(&rx, c, n, NULL, b);
        /* near the threshold the grid may miss a sliver: leave such cases out */
        int near_t = 0;
        for (int k = 0; k < na; ++k)
            near_t |= fabs(a[k].power - rx.threshold) <= 1e-6 * rx.threshold;
        for (int k = 0; k < nb; ++k)
            near_t |= fabs(b[k].power - rx.threshold) <= 1e-6 * rx.threshold;
        if (near_t)
            continue;
        ++compared;
        if (na != nb) {
            ++count_mismatch;
            continue;
        }
        for (int k = 0; k < na; ++k) {
            ++echoes;
            double dr = fabs((double)a[k].range - (double)b[k].range);
            double depw = fabs((double)a[k].epw - (double)b[k].epw);
            double dp = fabs((double)a[k].power - (double)b[k].power) / (double)b[k].power;
            max_dr = fmax(max_dr, dr);
            max_depw = fmax(max_depw, depw);
            max_dp = fmax(max_dp, dp);
            CHECK(dr <= 3e-6 + 2.0 * 1.2e-7 * fabs(b[k].range));
            CHECK(depw <= 6e-6 + 2.0 * 1.2e-7 * b[k].epw);
            CHECK(dp <= 1e-6);
            if (a[k].dominant != b[k].dominant) {
                /* only a tie at the peak may pick another contribution */
                int da = a[k].dominant, db = b[k].dominant;
                CHECK(da >= 0 && db >= 0);
                if (da >= 0 && db >= 0) {
                    double va = lsim_receiver_waveform(&rx, &c[da], 1, b[k].range);
                    double vb = lsim_receiver_waveform(&rx, &c[db], 1, b[k].range);
                    CHECK(fabs(va - vb) <= 1e-6 * vb);
                    dominant_mismatch += !(fabs(va - vb) <= 1e-6 * vb);
                }
            }
        }
    }
    CHECK(count_mismatch == 0);
    CHECK(dominant_mismatch == 0);
    CHECK(compared > cases * 9 / 10 && echoes > cases / 4);
    printf("fast path vs sampled: %d cases (%d compared), %d echoes; max |d range| %.3g m, |d epw| %.3g m, "
           "power %.3g rel\n",
           cases, compared, echoes, max_dr, max_depw, max_dp);
}

/* lsim_receiver_single (the frame's closed form for one return, no noise) against
 * lsim_receiver_echoes on random single contributions: points and spreads from 1e-4 to 10 sigma,
 * amplitudes 1..1e8 x T. Same count and range; power within 1e-6; EPW within the closed form's
 * Newton tolerance (1e-7 m per crossing) plus float rounding, where the erf difference is accurate
 * (a / T x sigma / w <= 1e6; beyond it both carry rounding of the cancelling erfs). */
static void test_single_closed_form(void)
{
    int echoes = 0;
    double max_depw = 0.0;
    for (int iter = 0; iter < 20000; ++iter) {
        lsim_receiver rx = make_rx(LSIM_RETURN_STRONGEST);
        rx.pulse_width_ns = 1.0 + 9.0 * fast_u01();
        rx.threshold = 1e-5;
        const double sigma = sigma_of(rx.pulse_width_ns);
        const double amp = rx.threshold * pow(10.0, 8.0 * fast_u01());
        const double w = iter % 4 == 0 ? 0.0 : sigma * pow(10.0, -4.0 + 5.0 * fast_u01());
        if (w > 0.0 && amp * sigma > 1e6 * rx.threshold * w)
            continue;
        lsim_contribution c = contrib((float)(1.0 + 150.0 * fast_u01()), (float)amp, (float)w);
        lsim_echo a, b[LSIM_MAX_RETURNS];
        int na = lsim_receiver_single(&rx, &c, &a), nb = lsim_receiver_echoes(&rx, &c, 1, NULL, b);
        /* right at the threshold either may see the sliver */
        if (na != nb && fabs(amp - rx.threshold) <= 1e-6 * rx.threshold)
            continue;
        CHECK(na == nb);
        if (na != 1 || nb != 1)
            continue;
        ++echoes;
        CHECK(a.range == b[0].range);
        CHECK(fabs(a.power - b[0].power) <= 1e-6 * b[0].power);
        double depw = fabs((double)a.epw - (double)b[0].epw);
        max_depw = fmax(max_depw, depw);
        CHECK(depw <= 2.5e-7 + 2.0 * 1.2e-7 * b[0].epw);
    }
    CHECK(echoes > 5000);
    printf("single closed form vs receiver: %d echoes, max |d epw| %.3g m\n", echoes, max_depw);
}

int main(void)
{
    test_single_target();
    test_epw_growth();
    test_modes();
    test_ambient();
    test_ambient_analytic();
    test_robustness();
    test_fast_path_matches_sampled();
    test_single_closed_form();
    return lsim_test_summary("test_receiver");
}
