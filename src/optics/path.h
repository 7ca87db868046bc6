/* Optics of one sub-ray: the range equation at every surface it meets, and Whitted recursion
 * through mirrors and glass (DESIGN.md §2, cw paper §III-A). Each surface whose BRDF sends
 * light back along the path gives a contribution for the receiver:
 *   amplitude = w T^2 pi f_r(theta) cos(theta) / L^2 exp(-2 alpha L_air)
 * with w the sub-ray's share of the beam, T the one-way throughput of the mirrors and glass on
 * the way (the light comes back the same way, hence T^2), L the one-way optical path (the
 * apparent range: a ghost behind a mirror lies along the emitted ray at the total path) and
 * L_air its part in air. In intensity units: rho cos / R^2 for a Lambertian surface. */
#ifndef LSIM_OPTICS_PATH_H
#define LSIM_OPTICS_PATH_H

#include "geometry/engine.h"
#include "optics/brdf.h"
#include "receiver/pulsed.h"

#include <stddef.h>
#include <stdint.h>

/* Per-object surface data, flattened for the hot loops. */
typedef struct lsim_surfaces {
    size_t count;
    lsim_brdf *brdf;
    uint8_t *thin;    /* 1 for planes: glass is a thin sheet (no refraction, two interfaces) */
    float *albedo;    /* diffuse albedo lit by the sun (ambient light) */
    float *lambert;   /* rho / pi for Lambertian surfaces (the hot path), -1 otherwise */
    uint32_t *label, *instance;
    const struct lsim_calib_material **calibration; /* per object: measured statistics, or NULL */
} lsim_surfaces;

typedef struct lsim_optics {
    const lsim_surfaces *surfaces;
    int max_bounces;
    float extinction;        /* alpha, 1/m */
    float divergence;        /* full beam angle (rad) for the footprint's range spread; 0: none */
    float range_max;         /* no path is followed beyond this apparent range */
    int baseline;            /* 1: check the receiver sees direct returns */
    float receiver[3];       /* receiver position (world) */
    float sun[3];            /* unit, towards the sun */
    float sun_level;         /* E_sun Omega_rx / P_t: background of a white surface facing the sun */
} lsim_optics;

/* The first surface's own return for a sub-ray along dir (unit) whose hit (t, object, ng) the batch
 * trace found: writes *out and returns 1, or returns 0 (a miss, or no light back). The whole answer
 * when lsim_optics_needs_paths says no (optics/wavefront.h follows the rest). */
int lsim_optics_first_return(const lsim_optics *o, const float dir[3], float t, uint32_t object, const float ng[3],
                             float weight, lsim_contribution *out);
/* The same with the facing unit normal n and cos_t already known (lsim_facing_normals). */
int lsim_optics_first_return_facing(const lsim_optics *o, float t, uint32_t object, const float n[3], float cos_t,
                                    float weight, lsim_contribution *out);
/* lsim_facing_normal of rays [0, count) at once (the same arithmetic, in vectors): unit normals
 * facing each ray and cos(theta) in [0, 1] from the hits' geometric normals. */
void lsim_facing_normals(const float *ngx, const float *ngy, const float *ngz, const float *dx, const float *dy,
                         const float *dz, size_t count, float *nx, float *ny, float *nz, float *cos_t);

#endif
