#include "optics/subrays.h"

#include <math.h>

void lsim_subrays_make(lsim_subrays *s, double divergence_rad, int rings, int layout)
{
    s->count = 1;
    s->offset[0][0] = s->offset[0][1] = 0.0f;
    s->weight[0] = 1.0f;
    if (rings <= 0 || !(divergence_rad > 0.0))
        return;
    if (rings > 8)
        rings = 8;
    const double half = 0.5 * divergence_rad, pi = 3.14159265358979323846;
    if (layout == LSIM_SUBRAYS_LINE) { /* centre first, then -1, +1, -2, +2, ... along v */
        for (int j = 1; j <= rings; ++j)
            for (int side = -1; side <= 1; side += 2) {
                s->offset[s->count][0] = 0.0f;
                s->offset[s->count][1] = (float)(side * tan(half * j / rings));
                ++s->count;
            }
        for (int i = 0; i < s->count; ++i)
            s->weight[i] = 1.0f / (float)s->count;
        return;
    }
    double total = 1.0;
    for (int k = 1; k <= rings; ++k) {
        double angle = half * k / rings, w = exp(-2.0 * (angle / half) * (angle / half));
        for (int i = 0; i < 6 * k; ++i) {
            double phi = 2.0 * pi * (i + 0.5 * (k & 1)) / (6 * k); /* stagger odd rings */
            s->offset[s->count][0] = (float)(tan(angle) * cos(phi));
            s->offset[s->count][1] = (float)(tan(angle) * sin(phi));
            s->weight[s->count] = (float)w;
            total += w;
            ++s->count;
        }
    }
    for (int i = 0; i < s->count; ++i)
        s->weight[i] = (float)(s->weight[i] / total);
}

void lsim_subray_basis(const float d[3], float u[3], float v[3])
{
    /* Any vector not parallel to d, then Gram-Schmidt. */
    float a[3] = {0.0f, 0.0f, 1.0f};
    if (fabsf(d[2]) > 0.9f) {
        a[0] = 1.0f;
        a[2] = 0.0f;
    }
    float dot = a[0] * d[0] + a[1] * d[1] + a[2] * d[2];
    for (int k = 0; k < 3; ++k)
        u[k] = a[k] - dot * d[k];
    float n = sqrtf(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    for (int k = 0; k < 3; ++k)
        u[k] /= n;
    v[0] = d[1] * u[2] - d[2] * u[1];
    v[1] = d[2] * u[0] - d[0] * u[2];
    v[2] = d[0] * u[1] - d[1] * u[0];
}
