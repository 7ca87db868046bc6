/* The range equation for a monostatic pulsed sensor, single bounce, extended target:
 *   P_r = P_t * f_r * cos(theta) * A_rx / R^2 * eta * exp(-2 alpha R)
 * lidarsim reports intensity = P_r / (P_t A_rx eta / pi) = pi f_r cos(theta) / R^2, which is
 * rho cos(theta) / R^2 for a Lambertian surface: 1.0 for a white wall at 1 m. */
#ifndef LSIM_OPTICS_RANGE_EQUATION_H
#define LSIM_OPTICS_RANGE_EQUATION_H

#include "geometry/engine.h"
#include "optics/returns.h"

/* Per-object surface properties, flattened for the hot loop. */
typedef struct lsim_surfaces {
    size_t count;
    float *reflectance; /* Lambertian rho per object */
} lsim_surfaces;

/* Shade `count` rays of a slice (element k of every array is the slice's k-th ray): incidence,
 * facing normal, intensity of each hit. */
void lsim_optics_shade(const lsim_rays *rays, const lsim_hits *hits, const lsim_surfaces *surfaces,
                       size_t count, lsim_returns *returns);

#endif
