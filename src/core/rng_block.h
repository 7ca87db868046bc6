/* The first Philox block of many beams' streams at once: lsim_rng_words(seed, frame, beam, 0) for
 * beams first, first + 1, ... A beam's noise (two or three normal deviates) usually needs no more
 * than these four words, so drawing them a block at a time, 8 beams to a 256-bit vector where the
 * CPU has AVX2, takes the Philox rounds out of the per-beam loop. The words are exactly those of
 * the scalar generator (core/rng.h), so a frame is the same bit for bit on any CPU and any thread
 * count. */
#ifndef LSIM_CORE_RNG_BLOCK_H
#define LSIM_CORE_RNG_BLOCK_H

#include "core/rng.h"

#include <stddef.h>
#include <stdint.h>

/* Four words of each beam's first block, structure of arrays: word k of beam first + j in w[k][j]. */
typedef struct lsim_rng_blocks {
    uint32_t *w[4];
} lsim_rng_blocks;

/* Fill w[.][0 .. count) for beams first .. first + count - 1 (draw 0). `vector` 0 forces the scalar
 * generator (tests compare the two); 1 uses AVX2 where the CPU has it. */
void lsim_rng_first_blocks(uint64_t seed, uint32_t frame, uint64_t first, size_t count, const lsim_rng_blocks *out,
                           int vector);

/* 1 if lsim_rng_first_blocks runs 8 beams to a vector on this CPU. */
int lsim_rng_blocks_vectorized(void);

/* The stream of beam `beam` whose first block is already drawn (word k = w[k]): the same words
 * as lsim_rng_stream_make(seed, frame, beam). */
static inline lsim_rng_stream lsim_rng_stream_resume(uint64_t seed, uint32_t frame, uint64_t beam, uint32_t w0,
                                                     uint32_t w1, uint32_t w2, uint32_t w3)
{
    lsim_rng_stream s = {seed, beam, frame, 1, {{w0, w1, w2, w3}}, 0};
    return s;
}

#endif
