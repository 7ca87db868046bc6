/* The raster engine's rays that Embree answers (raster_engine.c): spheres (never drawn) and rays
 * no view holds, and the hit records they share. */
#ifndef LSIM_GEOMETRY_RASTER_FALLBACK_H
#define LSIM_GEOMETRY_RASTER_FALLBACK_H

#include "geometry/engine.h"

#include <stddef.h>
#include <stdint.h>

/* Hit i a miss (t infinite, no object, u, v and normal 0). */
void raster_set_miss(lsim_hits *h, size_t i);
/* Hit k of `from` into hit i of `h` (u, v only where h has them). */
void raster_copy_hit(lsim_hits *h, size_t i, const lsim_hits *from, size_t k);
/* Spheres through the Embree engine `embree` (sphere mask only), the nearer hit kept. */
void raster_add_spheres(const void *embree, const lsim_rays *rays, size_t begin, size_t count, lsim_hits *h);
/* Rays idx[0..n) of `rays` through the Embree engine `embree`. */
void raster_cast_some(const void *embree, const lsim_rays *rays, const uint32_t *idx, size_t n, lsim_hits *h);

#endif
