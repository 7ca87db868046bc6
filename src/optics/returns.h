/* Returns: what the optics stage hands to the receiver/noise stage, per ray (SoA). */
#ifndef LSIM_OPTICS_RETURNS_H
#define LSIM_OPTICS_RETURNS_H

#include <stddef.h>
#include <stdint.h>

typedef struct lsim_returns {
    float *range;        /* noise-free range (m); 0 for a miss */
    float *intensity;    /* received power relative to a white Lambertian at 1 m, normal incidence */
    float *reflectivity; /* intensity * range^2: what a calibrated sensor reports */
    float *incidence;    /* radians between the reversed ray and the surface normal */
    float *nx, *ny, *nz; /* unit surface normal facing the sensor (world frame) */
} lsim_returns;

#endif
