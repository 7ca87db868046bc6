/* Returns: what the optics stage hands to the receiver/noise stage, per beam (SoA). */
#ifndef LSIM_OPTICS_RETURNS_H
#define LSIM_OPTICS_RETURNS_H

#include <stddef.h>
#include <stdint.h>

typedef struct lsim_returns {
    float *range;        /* noise-free range (m); 0 for a miss */
    float *intensity;    /* received power relative to a white Lambertian at 1 m, normal incidence */
    float *cos_incidence;/* cosine of the angle between the reversed ray and the surface normal */
    float *nx, *ny, *nz; /* unit surface normal facing the sensor (world frame) */
    uint32_t *object;    /* object index, LSIM_NO_HIT for a miss */
} lsim_returns;

/* The same arrays advanced to element `begin` (a view of a slice). */
static inline lsim_returns lsim_returns_at(const lsim_returns *r, size_t begin)
{
    lsim_returns v = {r->range + begin, r->intensity + begin, r->cos_incidence + begin, r->nx + begin,
                      r->ny + begin, r->nz + begin, r->object + begin};
    return v;
}

#endif
