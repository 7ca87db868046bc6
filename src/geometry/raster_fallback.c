/* The raster engine's rays that Embree answers (raster_fallback.h). */
#include "geometry/raster_fallback.h"

#include <math.h>

void raster_set_miss(lsim_hits *h, size_t i)
{
    h->t[i] = INFINITY;
    h->object[i] = LSIM_NO_HIT;
    h->primitive[i] = LSIM_NO_HIT;
    if (h->u)
        h->u[i] = 0.0f;
    if (h->v)
        h->v[i] = 0.0f;
    h->ngx[i] = h->ngy[i] = h->ngz[i] = 0.0f;
}

/* Hit k of `from` into hit i of `h` (u, v only where h has them). */
void raster_copy_hit(lsim_hits *h, size_t i, const lsim_hits *from, size_t k)
{
    h->t[i] = from->t[k];
    h->object[i] = from->object[k];
    h->primitive[i] = from->primitive[k];
    if (h->u)
        h->u[i] = from->u[k];
    if (h->v)
        h->v[i] = from->v[k];
    h->ngx[i] = from->ngx[k];
    h->ngy[i] = from->ngy[k];
    h->ngz[i] = from->ngz[k];
}

/* Spheres through Embree (sphere mask only), the nearer hit kept. */
void raster_add_spheres(const void *embree, const lsim_rays *rays, size_t begin, size_t count, lsim_hits *h)
{
    enum { B = 256 };
    uint32_t mask[B], object[B], primitive[B];
    float t[B], u[B], v[B], nx[B], ny[B], nz[B];
    for (size_t at = begin; at < begin + count; at += B) {
        size_t m = begin + count - at < B ? begin + count - at : B;
        for (size_t k = 0; k < m; ++k)
            mask[k] = rays->mask[at + k] & LSIM_GEOMETRY_MASK_SPHERES;
        lsim_rays sub = {m,
                         rays->ox + at, rays->oy + at, rays->oz + at,
                         rays->dx + at, rays->dy + at, rays->dz + at,
                         rays->time + at, rays->tnear + at, rays->tfar + at, mask, 0, NULL, 0.0};
        lsim_hits sh = {t, object, primitive, u, v, nx, ny, nz};
        lsim_engine_embree.intersect(embree, &sub, 0, m, &sh);
        for (size_t k = 0; k < m; ++k) {
            size_t i = at + k;
            if (object[k] == LSIM_NO_HIT || !(t[k] < h->t[i]))
                continue;
            raster_copy_hit(h, i, &sh, k);
        }
    }
}

/* Rays idx[0..n) of `rays` through Embree (rays no view holds). */
void raster_cast_some(const void *embree, const lsim_rays *rays, const uint32_t *idx, size_t n, lsim_hits *h)
{
    enum { B = 256 };
    float ox[B], oy[B], oz[B], dx[B], dy[B], dz[B], time[B], tnear[B], tfar[B], t[B], u[B], v[B], nx[B], ny[B], nz[B];
    uint32_t mask[B], object[B], primitive[B];
    for (size_t at = 0; at < n; at += B) {
        const size_t m = n - at < B ? n - at : B;
        for (size_t k = 0; k < m; ++k) {
            const size_t i = idx[at + k];
            ox[k] = rays->ox[i], oy[k] = rays->oy[i], oz[k] = rays->oz[i];
            dx[k] = rays->dx[i], dy[k] = rays->dy[i], dz[k] = rays->dz[i];
            time[k] = rays->time[i], tnear[k] = rays->tnear[i], tfar[k] = rays->tfar[i];
            mask[k] = rays->mask[i];
        }
        lsim_rays sub = {m, ox, oy, oz, dx, dy, dz, time, tnear, tfar, mask, 0, NULL, 0.0};
        lsim_hits sh = {t, object, primitive, u, v, nx, ny, nz};
        lsim_engine_embree.intersect(embree, &sub, 0, m, &sh);
        for (size_t k = 0; k < m; ++k) {
            const size_t i = idx[at + k];
            raster_copy_hit(h, i, &sh, k);
        }
    }
}

