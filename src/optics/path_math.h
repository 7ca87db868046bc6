/* Small vector and interface formulas shared by the first-return shading (path.c) and the
 * wavefront (wavefront.c). Private to src/optics/. */
#ifndef LSIM_OPTICS_PATH_MATH_H
#define LSIM_OPTICS_PATH_MATH_H

#include "optics/brdf.h"

#include <math.h>

static inline float lsim_dot3f(const float a[3], const float b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static inline void lsim_normalize3f(float v[3])
{
    float n = sqrtf(lsim_dot3f(v, v));
    float inv = n > 0.0f ? 1.0f / n : 0.0f;
    v[0] *= inv;
    v[1] *= inv;
    v[2] *= inv;
}

/* The unit normal facing a ray along dir, from the geometric normal ng; returns cos(theta) in
 * [0, 1]. */
static inline float lsim_facing_normal(const float ng[3], const float dir[3], float n[3])
{
    n[0] = ng[0];
    n[1] = ng[1];
    n[2] = ng[2];
    lsim_normalize3f(n);
    float cos_t = -lsim_dot3f(n, dir);
    if (cos_t < 0.0f) { /* seen from behind: the normal facing the ray */
        n[0] = -n[0];
        n[1] = -n[1];
        n[2] = -n[2];
        cos_t = -cos_t;
    }
    return cos_t < 1.0f ? cos_t : 1.0f; /* fminf(cos_t, 1), 1 for NaN too, without a call */
}

/* Range spread of a surface inside the beam footprint: footprint diameter L * divergence
 * times tan(theta), bounded. */
static inline float lsim_footprint_spread(float divergence, float range, float cos_t)
{
    if (divergence <= 0.0f)
        return 0.0f;
    float tan_t = cos_t > 0.02f ? sqrtf(fmaxf(0.0f, 1.0f - cos_t * cos_t)) / cos_t : 50.0f;
    float s = range * divergence * tan_t;
    return fminf(s, 0.5f * range);
}

/* Fresnel reflectance of a dielectric interface crossed at cos_i, from index n1 into n2. */
static inline float lsim_fresnel_interface(float cos_i, float n1, float n2)
{
    if (n1 <= n2)
        return (float)lsim_fresnel_dielectric(cos_i, n2 / n1);
    float sin_t = n1 / n2 * sqrtf(fmaxf(0.0f, 1.0f - cos_i * cos_i));
    if (sin_t >= 1.0f)
        return 1.0f; /* total internal reflection */
    float cos_t = sqrtf(1.0f - sin_t * sin_t);
    return (float)lsim_fresnel_dielectric(cos_t, n1 / n2); /* reciprocity: same as entering at theta_t */
}

/* Offset that lifts a ray's origin off the surface it leaves: a few float steps at the
 * point's magnitude, independent of the path so far (thin glass far away stays thin). */
static inline float lsim_surface_offset(const float p[3])
{
    float m = fmaxf(fmaxf(fabsf(p[0]), fabsf(p[1])), fmaxf(fabsf(p[2]), 1.0f));
    return 1e-5f * m;
}

#endif
