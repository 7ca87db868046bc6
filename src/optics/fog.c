#include "optics/fog.h"

#include "geometry/engine.h"

#include <math.h>

void lsim_fog_setup(lsim_fog *fog, double extinction, double backscatter, double range_min, double pulse_width_ns)
{
    (void)pulse_width_ns;
    fog->extinction = (float)extinction;
    fog->backscatter = (float)backscatter;
    fog->range_min = (float)(range_min > 0.3 ? range_min : 0.3);
}

int lsim_fog_contributions(const lsim_fog *fog, float end, lsim_contribution *out)
{
    if (fog->backscatter <= 0.0f)
        return 0;
    /* Beyond ~4 / alpha the two-way extinction leaves < 0.03 %: no need to go further. */
    float stop = fog->extinction > 0.0f ? fminf(end, fog->range_min + 4.0f / fog->extinction) : end;
    if (stop <= fog->range_min)
        return 0;
    /* Geometric segments: dense near the sensor where 1/r^2 changes fastest. */
    const float ratio = powf(stop / fog->range_min, 1.0f / LSIM_FOG_MAX_SEGMENTS);
    float a = fog->range_min;
    int n = 0;
    for (int k = 0; k < LSIM_FOG_MAX_SEGMENTS; ++k) {
        float b = a * ratio, w = b - a, r = 0.5f * (a + b);
        float h = 3.14159265f * fog->backscatter * expf(-2.0f * fog->extinction * r) / (r * r);
        lsim_contribution *c = &out[n++];
        c->range = r;
        c->amplitude = h * w;
        c->spread = w;
        c->object = LSIM_NO_HIT;
        c->cos_incidence = 1.0f;
        c->nx = c->ny = c->nz = 0.0f;
        a = b;
    }
    return n;
}
