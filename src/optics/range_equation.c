#include "optics/range_equation.h"

#include <math.h>

void lsim_optics_shade(const lsim_rays *rays, const lsim_hits *hits, const lsim_surfaces *surfaces,
                       size_t count, lsim_returns *out)
{
    for (size_t i = 0; i < count; ++i) {
        uint32_t obj = hits->object[i];
        out->object[i] = obj;
        if (obj == LSIM_NO_HIT) {
            out->range[i] = out->intensity[i] = out->cos_incidence[i] = 0.0f;
            out->nx[i] = out->ny[i] = out->nz[i] = 0.0f;
            continue;
        }
        float nx = hits->ngx[i], ny = hits->ngy[i], nz = hits->ngz[i];
        float len = sqrtf(nx * nx + ny * ny + nz * nz);
        float inv = len > 0.0f ? 1.0f / len : 0.0f;
        nx *= inv;
        ny *= inv;
        nz *= inv;
        float cos_t = -(nx * rays->dx[i] + ny * rays->dy[i] + nz * rays->dz[i]);
        if (cos_t < 0.0f) { /* back face: the surface seen from behind faces the sensor */
            nx = -nx;
            ny = -ny;
            nz = -nz;
            cos_t = -cos_t;
        }
        if (cos_t > 1.0f)
            cos_t = 1.0f;
        float r = hits->t[i];
        out->range[i] = r;
        out->intensity[i] = surfaces->reflectance[obj] * cos_t / (r * r); /* pi f_r cos(theta) / R^2 */
        out->cos_incidence[i] = cos_t;
        out->nx[i] = nx;
        out->ny[i] = ny;
        out->nz[i] = nz;
    }
}
