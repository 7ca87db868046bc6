/* Counter-based random numbers: Philox4x32-10 (Salmon et al., SC'11, "Random123").
 * Every draw is a pure function of (seed, frame, beam, draw), so results do not depend on
 * the thread count or on the order beams are processed. */
#ifndef LSIM_CORE_RNG_H
#define LSIM_CORE_RNG_H

#include <math.h>
#include <stdint.h>

#include "core/ziggurat_tables.h"

typedef struct lsim_u32x4 { uint32_t v[4]; } lsim_u32x4;

static inline uint32_t lsim_mulhilo32(uint32_t a, uint32_t b, uint32_t *hi)
{
    uint64_t p = (uint64_t)a * b;
    *hi = (uint32_t)(p >> 32);
    return (uint32_t)p;
}

/* Philox4x32 with 10 rounds. */
static inline lsim_u32x4 lsim_philox4x32(lsim_u32x4 ctr, uint32_t k0, uint32_t k1)
{
#pragma GCC unroll 10
    for (int round = 0; round < 10; ++round) {
        uint32_t hi0, hi1;
        uint32_t lo0 = lsim_mulhilo32(0xD2511F53u, ctr.v[0], &hi0);
        uint32_t lo1 = lsim_mulhilo32(0xCD9E8D57u, ctr.v[2], &hi1);
        lsim_u32x4 next = {{hi1 ^ ctr.v[1] ^ k0, lo1, hi0 ^ ctr.v[3] ^ k1, lo0}};
        ctr = next;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    return ctr;
}

/* Four 32-bit words for (seed, frame, beam, draw). */
static inline lsim_u32x4 lsim_rng_words(uint64_t seed, uint32_t frame, uint64_t beam, uint32_t draw)
{
    lsim_u32x4 ctr = {{(uint32_t)beam, (uint32_t)(beam >> 32), frame, draw}};
    return lsim_philox4x32(ctr, (uint32_t)seed, (uint32_t)(seed >> 32));
}

/* Uniform in (0, 1): never 0, never 1. */
static inline double lsim_u32_to_open01(uint32_t a, uint32_t b)
{
    uint64_t bits = ((uint64_t)a << 21) ^ (uint64_t)(b >> 11); /* 53 bits */
    bits &= (1ull << 53) - 1;
    return ((double)bits + 0.5) * (1.0 / 9007199254740992.0);
}

/* Uniform in (0, 1) as a float from 23 random bits: (k + 0.5) / 2^23, exactly representable,
 * so never 0 and never 1. */
static inline float lsim_u32_to_open01f(uint32_t a)
{
    return ((float)(a >> 9) + 0.5f) * (1.0f / 8388608.0f);
}

/* A stream of words for one beam: Philox blocks (seed, frame, beam, draw), draw = 0, 1, ...
 * Everything a beam draws comes from its own stream, so no beam depends on another. */
typedef struct lsim_rng_stream {
    uint64_t seed, beam;
    uint32_t frame, draw;
    lsim_u32x4 block;
    int next; /* next unused word of block; 4 = empty */
} lsim_rng_stream;

static inline lsim_rng_stream lsim_rng_stream_make(uint64_t seed, uint32_t frame, uint64_t beam)
{
    lsim_rng_stream s = {seed, beam, frame, 0, {{0, 0, 0, 0}}, 4};
    return s;
}

static inline uint32_t lsim_rng_stream_u32(lsim_rng_stream *s)
{
    if (s->next == 4) {
        s->block = lsim_rng_words(s->seed, s->frame, s->beam, s->draw++);
        s->next = 0;
    }
    return s->block.v[s->next++];
}

/* Rejection path of the ziggurat (about 1.5% of draws); rng.c. */
float lsim_rng_normal_slow(lsim_rng_stream *s, int32_t value, uint32_t layer);

/* Standard normal deviate (float) by the ziggurat method: one word per draw on the fast path. */
static inline float lsim_rng_stream_normalf(lsim_rng_stream *s)
{
    uint32_t u = lsim_rng_stream_u32(s);
    uint32_t layer = u & 127u;
    int32_t value = (int32_t)(u >> 7) - (1 << 24); /* uniform in [-2^24, 2^24) */
    uint32_t magnitude = value < 0 ? (uint32_t)(-(int64_t)value) : (uint32_t)value;
    if (magnitude < lsim_zig_k[layer])
        return (float)value * lsim_zig_w[layer];
    return lsim_rng_normal_slow(s, value, layer);
}

/* Standard normal deviate in double precision (Box–Muller on one Philox block), for callers
 * outside the per-beam hot loops. */
static inline double lsim_rng_normal(uint64_t seed, uint32_t frame, uint64_t beam, uint32_t draw)
{
    lsim_u32x4 w = lsim_rng_words(seed, frame, beam, draw);
    double u1 = lsim_u32_to_open01(w.v[0], w.v[1]);
    double u2 = lsim_u32_to_open01(w.v[2], w.v[3]);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

#endif
