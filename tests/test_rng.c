/* Philox4x32-10 known-answer vectors (Random123's kat_vectors) and normal-deviate statistics. */
#include "harness.h"

#include "core/rng.h"

int main(void)
{
    /* Random123 kat_vectors: philox4x32 10 rounds. */
    lsim_u32x4 zero = {{0, 0, 0, 0}};
    lsim_u32x4 a = lsim_philox4x32(zero, 0, 0);
    CHECK(a.v[0] == 0x6627e8d5u && a.v[1] == 0xe169c58du && a.v[2] == 0xbc57ac4cu && a.v[3] == 0x9b00dbd8u);
    lsim_u32x4 ones = {{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}};
    lsim_u32x4 b = lsim_philox4x32(ones, 0xffffffffu, 0xffffffffu);
    CHECK(b.v[0] == 0x408f276du && b.v[1] == 0x41c83b0eu && b.v[2] == 0xa20bc7c6u && b.v[3] == 0x6d5451fdu);
    lsim_u32x4 pi = {{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}};
    lsim_u32x4 c = lsim_philox4x32(pi, 0xa4093822u, 0x299f31d0u);
    CHECK(c.v[0] == 0xd16cfe09u && c.v[1] == 0x94fdccebu && c.v[2] == 0x5001e420u && c.v[3] == 0x24126ea1u);

    /* Normal deviates: mean 0, variance 1, within sampling error of 400k draws. */
    const int n = 200000;
    double s = 0, s2 = 0, sf = 0, sf2 = 0;
    for (int i = 0; i < n; ++i) {
        double g0, g1;
        float f0, f1;
        lsim_rng_normal2(42, 3, (uint64_t)i, 0, &g0, &g1);
        lsim_rng_normal2f(42, 3, (uint64_t)i, 1, &f0, &f1);
        s += g0 + g1;
        s2 += g0 * g0 + g1 * g1;
        sf += f0 + f1;
        sf2 += (double)f0 * f0 + (double)f1 * f1;
    }
    CHECK_NEAR(s / (2.0 * n), 0.0, 0.01);
    CHECK_NEAR(s2 / (2.0 * n), 1.0, 0.01);
    CHECK_NEAR(sf / (2.0 * n), 0.0, 0.01);
    CHECK_NEAR(sf2 / (2.0 * n), 1.0, 0.01);
    /* Same key, same words; a different draw index, different words. */
    lsim_u32x4 k1 = lsim_rng_words(7, 1, 99, 0), k2 = lsim_rng_words(7, 1, 99, 0), k3 = lsim_rng_words(7, 1, 99, 1);
    CHECK(k1.v[0] == k2.v[0] && k1.v[3] == k2.v[3]);
    CHECK(k1.v[0] != k3.v[0]);
    return lsim_test_summary("test_rng");
}
