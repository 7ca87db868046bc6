/* Philox4x32-10 for many counters at once (core/rng_block.h): 8 lanes of 32-bit words in AVX2,
 * the 32 x 32 -> 64-bit products from _mm256_mul_epu32 on the even and odd lanes. */
#include "core/rng_block.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define LSIM_HAVE_AVX2_PATH 1
#endif

static void blocks_scalar(uint64_t seed, uint32_t frame, uint64_t first, size_t from, size_t count,
                          const lsim_rng_blocks *out)
{
    for (size_t j = from; j < count; ++j) {
        const lsim_u32x4 b = lsim_rng_words(seed, frame, first + j, 0);
        out->w[0][j] = b.v[0];
        out->w[1][j] = b.v[1];
        out->w[2][j] = b.v[2];
        out->w[3][j] = b.v[3];
    }
}

#ifdef LSIM_HAVE_AVX2_PATH
/* a x m for 8 lanes: the low and high 32 bits of each 64-bit product. */
__attribute__((target("avx2"))) static inline void mulhilo8(__m256i a, __m256i m, __m256i *lo, __m256i *hi)
{
    const __m256i even = _mm256_mul_epu32(a, m);
    const __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), m);
    *lo = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
    *hi = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
}

/* Returns how many beams it did (a multiple of 8); the rest is the scalar loop's. */
__attribute__((target("avx2"))) static size_t blocks_avx2(uint64_t seed, uint32_t frame, uint64_t first,
                                                          size_t count, const lsim_rng_blocks *out)
{
    const __m256i m0 = _mm256_set1_epi32((int)0xD2511F53u), m1 = _mm256_set1_epi32((int)0xCD9E8D57u);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    size_t j = 0;
    for (; j + 8 <= count; j += 8) {
        const uint64_t b0 = first + j;
        __m256i v0, v1;
        if ((uint32_t)b0 <= UINT32_MAX - 7u) { /* the 8 beams share their high word */
            v0 = _mm256_add_epi32(_mm256_set1_epi32((int)(uint32_t)b0), lane);
            v1 = _mm256_set1_epi32((int)(uint32_t)(b0 >> 32));
        } else {
            uint32_t lo[8], hi[8];
            for (int k = 0; k < 8; ++k) {
                lo[k] = (uint32_t)(b0 + (uint64_t)k);
                hi[k] = (uint32_t)((b0 + (uint64_t)k) >> 32);
            }
            v0 = _mm256_loadu_si256((const __m256i *)lo);
            v1 = _mm256_loadu_si256((const __m256i *)hi);
        }
        __m256i v2 = _mm256_set1_epi32((int)frame), v3 = _mm256_setzero_si256();
        uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
        for (int round = 0; round < 10; ++round) {
            __m256i lo0, hi0, lo1, hi1;
            mulhilo8(v0, m0, &lo0, &hi0);
            mulhilo8(v2, m1, &lo1, &hi1);
            const __m256i n0 = _mm256_xor_si256(_mm256_xor_si256(hi1, v1), _mm256_set1_epi32((int)k0));
            const __m256i n2 = _mm256_xor_si256(_mm256_xor_si256(hi0, v3), _mm256_set1_epi32((int)k1));
            v0 = n0;
            v1 = lo1;
            v2 = n2;
            v3 = lo0;
            k0 += 0x9E3779B9u;
            k1 += 0xBB67AE85u;
        }
        _mm256_storeu_si256((__m256i *)(out->w[0] + j), v0);
        _mm256_storeu_si256((__m256i *)(out->w[1] + j), v1);
        _mm256_storeu_si256((__m256i *)(out->w[2] + j), v2);
        _mm256_storeu_si256((__m256i *)(out->w[3] + j), v3);
    }
    return j;
}
#endif

int lsim_rng_blocks_vectorized(void)
{
#ifdef LSIM_HAVE_AVX2_PATH
    return __builtin_cpu_supports("avx2") != 0;
#else
    return 0;
#endif
}

void lsim_rng_first_blocks(uint64_t seed, uint32_t frame, uint64_t first, size_t count, const lsim_rng_blocks *out,
                           int vector)
{
    size_t done = 0;
#ifdef LSIM_HAVE_AVX2_PATH
    if (vector && lsim_rng_blocks_vectorized())
        done = blocks_avx2(seed, frame, first, count, out);
#else
    (void)vector;
#endif
    blocks_scalar(seed, frame, first, done, count, out);
}
