/* Range quantisation in calibration (calib/range_quant.h), no real data:
 *   1. the range grid of a scan is found (1 mm, 0.25 mm), and none for ranges off any grid;
 *   2. the rounded moments of a known error are right (sigma 0; sigma large: Sheppard);
 *   3. a bin of 8 beams whose true ranges lie within 0.2 mm of each other (as near normal
 *      incidence), read through a 1 mm rounding with a known error N(mu, sigma), sigma below one
 *      step: lsim_quant_latent recovers mu and sigma from the readings' mean and variance, where
 *      Sheppard's sigma^2 - step^2 / 12 misses sigma by far more;
 *   4. beams that read one step every time: sigma 0, mu in the middle of its stair (no beam on a
 *      rounding edge). */
#include "harness.h"

#include "calib/range_quant.h"
#include "core/rng.h"

#include <stdlib.h>
#include <string.h>

#define STEP 0.001

/* Readings round((t_j + mu + sigma Z) / step) step of `beams` beams, `reps` times each. */
static void read_bin(const double *t, size_t beams, double mu, double sigma, size_t reps, uint64_t seed, double *mean,
                     double *var, double *cells)
{
    double s = 0.0, s2 = 0.0;
    size_t n = 0;
    memset(cells, 0, LSIM_QUANT_CELLS * sizeof *cells);
    for (size_t j = 0; j < beams; ++j) {
        lsim_rng_stream rng = lsim_rng_stream_make(seed, 0, j);
        cells[lsim_quant_cell(t[j], STEP)] += (double)reps;
        for (size_t r = 0; r < reps; ++r) {
            double q = nearbyint((t[j] + mu + sigma * lsim_rng_stream_normalf(&rng)) / STEP) * STEP;
            double e = q - t[j];
            s += e;
            s2 += e * e;
            ++n;
        }
    }
    *mean = s / (double)n;
    *var = (s2 - s * s / (double)n) / (double)(n - 1);
}

static void test_grid(void)
{
    const size_t n = 200;
    lsim_scan_data s;
    memset(&s, 0, sizeof s);
    s.count = n;
    s.range_m = malloc(n * sizeof(double));
    s.intensity = malloc(n * sizeof(double));
    s.angle_rad = calloc(n, sizeof(double));
    for (size_t i = 0; i < n; ++i) {
        s.range_m[i] = (double)(float)(0.3 + 0.001 * (double)(i % 37)); /* float32 as the RPLIDAR files */
        s.intensity[i] = 47.0;
    }
    CHECK(lsim_scan_range_step(&s) == 0.001);
    for (size_t i = 0; i < n; ++i)
        s.range_m[i] = 0.3 + 0.00025 * (double)(i % 37);
    CHECK(lsim_scan_range_step(&s) == 0.00025);
    for (size_t i = 0; i < n; ++i)
        s.range_m[i] = 0.3 + 0.0001234567 * (double)(i % 37);
    CHECK(lsim_scan_range_step(&s) == 0.0);
    for (size_t i = 0; i < n; ++i)
        s.range_m[i] = 0.384; /* one value: no grid to speak of */
    CHECK(lsim_scan_range_step(&s) == 0.0);
    s.count = 10; /* too few returns */
    CHECK(lsim_scan_range_step(&s) == 0.0);
    free(s.range_m);
    free(s.intensity);
    free(s.angle_rad);
}

static void test_moments(void)
{
    double cells[LSIM_QUANT_CELLS] = {0}, m, v;
    cells[lsim_quant_cell(0.3842, STEP)] = 1.0; /* t 0.2 steps above a step */
    lsim_quant_moments(cells, STEP, 0.0, 0.0, &m, &v); /* reads the step below: -0.2 mm (cell centre) */
    CHECK_NEAR(m, -(12.5 / 64.0) * STEP, 1e-12);
    CHECK_NEAR(v, 0.0, 1e-18);
    lsim_quant_moments(cells, STEP, 0.0004, 0.0, &m, &v); /* t + mu 0.6 steps up: reads the next */
    CHECK_NEAR(m, (1.0 - 12.5 / 64.0) * STEP, 1e-12);
    for (size_t c = 0; c < LSIM_QUANT_CELLS; ++c)
        cells[c] = 1.0;
    lsim_quant_moments(cells, STEP, 0.0002, 0.003, &m, &v); /* well above a step: Sheppard */
    CHECK_NEAR(m, 0.0002, 1e-9);
    CHECK_NEAR(v, 0.003 * 0.003 + STEP * STEP / 12.0, 1e-11);
}

static void test_recovery(void)
{
    /* 8 beams within 0.21 mm, as the wall's 0-2 degree bin (384.49..384.70 mm). */
    const double t[8] = {0.384494, 0.384535, 0.384547, 0.384605, 0.384623, 0.384640, 0.384680, 0.384704};
    const double truth[][2] = {{-0.0003, 0.00025}, {0.0002, 0.0004}, {0.0011, 0.00015}, {-0.0006, 0.0006}};
    for (size_t k = 0; k < sizeof truth / sizeof truth[0]; ++k) {
        double cells[LSIM_QUANT_CELLS], mean, var, mu, sigma;
        read_bin(t, 8, truth[k][0], truth[k][1], 20000, 11 + k, &mean, &var, cells);
        lsim_quant_latent(cells, STEP, mean, var, &mu, &sigma);
        double sheppard = sqrt(fmax(0.0, var - STEP * STEP / 12.0));
        printf("mu %+.3f sigma %.3f mm: readings mean %+.3f std %.3f; recovered mu %+.3f sigma %.3f; Sheppard "
               "sigma %.3f mm\n", 1e3 * truth[k][0], 1e3 * truth[k][1], 1e3 * mean, 1e3 * sqrt(var), 1e3 * mu,
               1e3 * sigma, 1e3 * sheppard);
        CHECK_NEAR(mu, truth[k][0], 0.00003);
        CHECK_NEAR(sigma, truth[k][1], 0.1 * truth[k][1]);
        /* The rounded moments of the recovered error are the readings' own. */
        double m2, v2;
        lsim_quant_moments(cells, STEP, mu, sigma, &m2, &v2);
        CHECK_NEAR(m2, mean, 1e-7);
        CHECK_NEAR(sqrt(v2), sqrt(var), 1e-7);
        /* Below ~0.3 steps Sheppard's sigma and the readings' mean are far off: the test can tell. */
        if (k == 0 || k == 2) {
            CHECK(fabs(sheppard - truth[k][1]) > (k == 0 ? 0.15 : 0.35) * truth[k][1]);
            CHECK(fabs(mean - truth[k][0]) > 0.00007);
        }
    }
}

static void test_no_spread(void)
{
    /* Every beam reads 314 mm every time (the wood near normal: t 312.85..313.00 mm). */
    const double t[7] = {0.312849, 0.312867, 0.312875, 0.312912, 0.312926, 0.312981, 0.313000};
    double cells[LSIM_QUANT_CELLS] = {0}, s = 0.0, s2 = 0.0;
    for (size_t j = 0; j < 7; ++j) {
        cells[lsim_quant_cell(t[j], STEP)] += 39.0;
        s += 39.0 * (0.314 - t[j]);
        s2 += 39.0 * (0.314 - t[j]) * (0.314 - t[j]);
    }
    double mean = s / 273.0, var = (s2 - s * s / 273.0) / 272.0, mu, sigma;
    lsim_quant_latent(cells, STEP, mean, var, &mu, &sigma);
    printf("one step every time: mean %+.3f std %.3f mm -> mu %+.3f sigma %.3f mm\n", 1e3 * mean, 1e3 * sqrt(var),
           1e3 * mu, 1e3 * sigma);
    CHECK(sigma == 0.0);
    /* t + mu rounds to 314 mm for all: mu in (313.5 - 312.849, 314.5 - 313.0) mm, away from the edges. */
    CHECK(mu > 0.000651 + 0.0002 && mu < 0.0015 - 0.0002);
}

int main(void)
{
    test_grid();
    test_moments();
    test_recovery();
    test_no_spread();
    return lsim_test_summary("test_calib_quant");
}
