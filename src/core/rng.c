/* The ziggurat's rejection path (Marsaglia & Tsang 2000), kept out of line. */
#include "core/rng.h"

static float uniform(lsim_rng_stream *s) { return lsim_u32_to_open01f(lsim_rng_stream_u32(s)); }

float lsim_rng_normal_slow(lsim_rng_stream *s, int32_t value, uint32_t layer)
{
    const float r = LSIM_ZIGGURAT_R;
    for (;;) {
        float x = (float)value * lsim_zig_w[layer];
        if (layer == 0) { /* the tail beyond r, sampled exactly (Marsaglia 1964) */
            float xt, y;
            do {
                xt = -logf(uniform(s)) / r;
                y = -logf(uniform(s));
            } while (y + y < xt * xt);
            return value > 0 ? r + xt : -r - xt;
        }
        if (lsim_zig_f[layer] + uniform(s) * (lsim_zig_f[layer - 1] - lsim_zig_f[layer]) < expf(-0.5f * x * x))
            return x;
        uint32_t u = lsim_rng_stream_u32(s);
        layer = u & 127u;
        value = (int32_t)(u >> 7) - (1 << 24);
        uint32_t magnitude = value < 0 ? (uint32_t)(-(int64_t)value) : (uint32_t)value;
        if (magnitude < lsim_zig_k[layer])
            return (float)value * lsim_zig_w[layer];
    }
}
