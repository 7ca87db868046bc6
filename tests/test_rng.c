/* Philox4x32-10 known-answer vectors (Random123's kat_vectors), and the distribution of the
 * ziggurat normal deviates: moments, tail probabilities beyond the ziggurat's base strip, and
 * the Kolmogorov–Smirnov distance to the normal CDF. */
#include "harness.h"

#include "core/rng.h"

#include <stdlib.h>

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    lsim_u32x4 zero = {{0, 0, 0, 0}};
    lsim_u32x4 a = lsim_philox4x32(zero, 0, 0);
    CHECK(a.v[0] == 0x6627e8d5u && a.v[1] == 0xe169c58du && a.v[2] == 0xbc57ac4cu && a.v[3] == 0x9b00dbd8u);
    lsim_u32x4 ones = {{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}};
    lsim_u32x4 b = lsim_philox4x32(ones, 0xffffffffu, 0xffffffffu);
    CHECK(b.v[0] == 0x408f276du && b.v[1] == 0x41c83b0eu && b.v[2] == 0xa20bc7c6u && b.v[3] == 0x6d5451fdu);
    lsim_u32x4 pi = {{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}};
    lsim_u32x4 c = lsim_philox4x32(pi, 0xa4093822u, 0x299f31d0u);
    CHECK(c.v[0] == 0xd16cfe09u && c.v[1] == 0x94fdccebu && c.v[2] == 0x5001e420u && c.v[3] == 0x24126ea1u);

    /* 2M ziggurat deviates from 1M beam streams (two per beam, as the noise stage draws). */
    const size_t n = 2000000;
    float *x = malloc(n * sizeof *x);
    CHECK(x != NULL);
    if (!x)
        return 1;
    double s = 0, s2 = 0, s4 = 0;
    size_t beyond2 = 0, beyond3 = 0, beyond_r = 0;
    for (size_t i = 0; i < n / 2; ++i) {
        lsim_rng_stream rng = lsim_rng_stream_make(42, 3, i);
        x[2 * i] = lsim_rng_stream_normalf(&rng);
        x[2 * i + 1] = lsim_rng_stream_normalf(&rng);
    }
    for (size_t i = 0; i < n; ++i) {
        double v = x[i];
        s += v;
        s2 += v * v;
        s4 += v * v * v * v;
        beyond2 += fabs(v) > 2.0;
        beyond3 += fabs(v) > 3.0;
        beyond_r += fabs(v) > 3.442619855899;
    }
    double mean = s / n, var = s2 / n - mean * mean, kurt = s4 / n / (var * var);
    printf("mean %.5f var %.5f kurtosis %.4f P(|x|>2) %.5f P(|x|>3) %.6f P(|x|>r) %.6f\n", mean, var, kurt,
           (double)beyond2 / n, (double)beyond3 / n, (double)beyond_r / n);
    CHECK_NEAR(mean, 0.0, 0.003);  /* 4 sigma of the mean: 4 / sqrt(2e6) */
    CHECK_NEAR(var, 1.0, 0.004);
    CHECK_NEAR(kurt, 3.0, 0.02);
    /* Tails: 2 (1 - Phi(t)); binomial std in the tolerance (4 sigma). */
    CHECK_NEAR((double)beyond2 / n, 0.0455003, 4 * sqrt(0.0455 / n));
    CHECK_NEAR((double)beyond3 / n, 0.0026998, 4 * sqrt(0.0027 / n));
    CHECK_NEAR((double)beyond_r / n, 0.000576, 4 * sqrt(0.000576 / n)); /* served by the base-strip tail */
    /* Kolmogorov–Smirnov distance to Phi; the 0.1% critical value for n = 2e6 is 1.95/sqrt(n). */
    qsort(x, n, sizeof *x, cmp_float);
    double d = 0;
    for (size_t i = 0; i < n; ++i) {
        double cdf = 0.5 * erfc(-x[i] / sqrt(2.0));
        d = fmax(d, fmax(fabs(cdf - (double)i / n), fabs(cdf - (double)(i + 1) / n)));
    }
    printf("KS distance %.6f (critical %.6f)\n", d, 1.95 / sqrt((double)n));
    CHECK(d < 1.95 / sqrt((double)n));
    free(x);

    /* Double-precision normal: moments. */
    double ds = 0, ds2 = 0;
    for (uint64_t i = 0; i < 200000; ++i) {
        double g = lsim_rng_normal(9, 1, i, 0);
        ds += g;
        ds2 += g * g;
    }
    CHECK_NEAR(ds / 200000, 0.0, 0.01);
    CHECK_NEAR(ds2 / 200000, 1.0, 0.013);
    /* Same key, same words; another draw index, other words. */
    lsim_u32x4 k1 = lsim_rng_words(7, 1, 99, 0), k2 = lsim_rng_words(7, 1, 99, 0), k3 = lsim_rng_words(7, 1, 99, 1);
    CHECK(k1.v[0] == k2.v[0] && k1.v[3] == k2.v[3]);
    CHECK(k1.v[0] != k3.v[0]);
    return lsim_test_summary("test_rng");
}
