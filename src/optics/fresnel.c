/* Fresnel reflectance: the exact unpolarised dielectric form and Schlick's approximation. */
#include "optics/brdf.h"

#include <math.h>

/* Exact Fresnel equations for light going from a medium of index 1 into index `ior`:
 *   sin_t = sin_i / ior (Snell),
 *   Rs = ((cos_i - ior cos_t) / (cos_i + ior cos_t))^2,
 *   Rp = ((ior cos_i - cos_t) / (ior cos_i + cos_t))^2,
 *   R = (Rs + Rp) / 2 (unpolarised light).
 * cos_i is clamped to [0, 1]; grazing incidence (cos_i <= 0 or NaN) gives 1. A relative index
 * below 1 (leaving a denser medium: pass 1/ior) is handled too: total internal reflection
 * gives 1. */
double lsim_fresnel_dielectric(double cos_i, double ior)
{
    if (!(cos_i > 0.0))
        return 1.0;
    if (cos_i > 1.0)
        cos_i = 1.0;
    if (!(ior > 0.0))
        return 1.0;
    double sin2_i = fmax(0.0, 1.0 - cos_i * cos_i);
    double sin2_t = sin2_i / (ior * ior);
    if (sin2_t >= 1.0)
        return 1.0; /* total internal reflection */
    double cos_t = sqrt(1.0 - sin2_t);
    double rs = (cos_i - ior * cos_t) / (cos_i + ior * cos_t);
    double rp = (ior * cos_i - cos_t) / (ior * cos_i + cos_t);
    double r = 0.5 * (rs * rs + rp * rp);
    return r > 1.0 ? 1.0 : r;
}

/* Schlick: F0 + (1 - F0) (1 - cos)^5, cos clamped to [0, 1] (NaN counts as grazing). */
double lsim_fresnel_schlick(double cos_i, double f0)
{
    double c = cos_i > 0.0 ? (cos_i < 1.0 ? cos_i : 1.0) : 0.0;
    double m = 1.0 - c;
    double m2 = m * m;
    return f0 + (1.0 - f0) * (m2 * m2 * m);
}
