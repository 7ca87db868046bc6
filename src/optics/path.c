/* The first return of a sub-ray whose surface only scatters back (no mirror or glass to follow),
 * seen by a monostatic receiver without ambient light: the common case, and the kernel mode's
 * single bounce. Everything else goes through the wavefront (optics/wavefront.c). */
#include "optics/path.h"

#include "optics/path_math.h"

int lsim_optics_first_return(const lsim_optics *o, const float dir[3], float t, uint32_t object, const float ng[3],
                             float weight, lsim_contribution *out)
{
    if (object == LSIM_NO_HIT || !(t > 0.0f))
        return 0;
    float n[3];
    const float cos_t = lsim_facing_normal(ng, dir, n);
    return lsim_optics_first_return_facing(o, t, object, n, cos_t, weight, out);
}

int lsim_optics_first_return_facing(const lsim_optics *o, float t, uint32_t object, const float n[3], float cos_t,
                                    float weight, lsim_contribution *out)
{
    if (object == LSIM_NO_HIT || !(t > 0.0f))
        return 0;
    const float lambert = o->surfaces->lambert[object];
    float fr = lambert >= 0.0f ? lambert : (float)lsim_brdf_backscatter(&o->surfaces->brdf[object], cos_t);
    float amp = weight * 3.14159265f * fr * cos_t / (t * t);
    if (o->extinction > 0.0f)
        amp *= expf(-2.0f * o->extinction * t);
    if (!(amp > 0.0f) || !isfinite(amp))
        return 0;
    out->range = t;
    out->amplitude = amp;
    out->spread = lsim_footprint_spread(o->divergence, t, cos_t);
    out->object = object;
    out->cos_incidence = cos_t;
    out->nx = n[0];
    out->ny = n[1];
    out->nz = n[2];
    return 1;
}

/* Cloned for AVX2 (a static function: the clones' resolver of an extern one would be exported). */
__attribute__((target_clones("avx2", "default"))) static void
facing_normals(const float *restrict ngx, const float *restrict ngy, const float *restrict ngz,
                    const float *restrict dx, const float *restrict dy, const float *restrict dz, size_t count,
                    float *restrict nx, float *restrict ny, float *restrict nz, float *restrict cos_t)
{
    for (size_t i = 0; i < count; ++i) {
        const float x = ngx[i], y = ngy[i], z = ngz[i];
        const float len = sqrtf(x * x + y * y + z * z);
        const float inv = len > 0.0f ? 1.0f / len : 0.0f;
        const float ux = x * inv, uy = y * inv, uz = z * inv;
        const float c = -(ux * dx[i] + uy * dy[i] + uz * dz[i]);
        const int back = c < 0.0f; /* seen from behind: the normal facing the ray */
        nx[i] = back ? -ux : ux;
        ny[i] = back ? -uy : uy;
        nz[i] = back ? -uz : uz;
        const float f = back ? -c : c;
        cos_t[i] = f < 1.0f ? f : 1.0f; /* fminf(f, 1): 1 for NaN too */
    }
}

void lsim_facing_normals(const float *ngx, const float *ngy, const float *ngz, const float *dx, const float *dy,
                         const float *dz, size_t count, float *nx, float *ny, float *nz, float *cos_t)
{
    facing_normals(ngx, ngy, ngz, dx, dy, dz, count, nx, ny, nz, cos_t);
}
