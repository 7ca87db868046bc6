/* A return's path re-traced with dual numbers (issue 11: gradients of the simulation).
 *
 * The fast tracer finds which surfaces a beam's path meets; this re-traces that path
 * analytically as a function of the parameters: the ray (from the sensor's dual pose) meets each
 * vertex's surface in its tangent plane there (exact for triangles, and the exact first
 * derivative for any smooth surface), which moves with its object's dual pose; a mirror reflects
 * the ray about the (dual) normal, glass refracts it by Snell's law, and a diffuse vertex ends the
 * path. The result is the return's apparent range (the one-way optical path length, glass
 * counting ior x length, as lidarsim reports a ghost seen through a mirror or a wall behind glass), the last segment's length and the cosine of incidence at the
 * end, each with its partial derivatives. As long as the path keeps meeting the same surfaces
 * (no silhouette is crossed), these are the derivatives of what the simulation measures. */
#ifndef LSIM_OPTICS_PATH_DUAL_H
#define LSIM_OPTICS_PATH_DUAL_H

#include "core/dual.h"

typedef enum lsim_vertex_kind {
    LSIM_VERTEX_RETURN = 0, /* a diffuse (or retroreflective) surface: the return comes from here */
    LSIM_VERTEX_MIRROR,     /* specular reflection */
    LSIM_VERTEX_REFRACT     /* transmission through an interface (glass) */
} lsim_vertex_kind;

typedef struct lsim_path_vertex {
    lsim_vertex_kind kind;
    double point[3];  /* a point of the surface's tangent plane (the hit), in the object's frame */
    double normal[3]; /* unit normal there, object frame (either side) */
    int pose;         /* which of the poses moves the surface; -1: fixed in the world */
    double eta;       /* refraction: n_incident / n_transmitted when entering against the normal */
} lsim_path_vertex;

typedef struct lsim_path_dual {
    lsim_dual range;         /* one-way path length to the return vertex */
    lsim_dual last_segment;  /* length of the segment that reaches the return vertex */
    lsim_dual cos_incidence; /* |cos| of the angle between the last segment and the normal */
    int ok;                  /* 0: the ray misses a tangent plane (parallel or behind) or total
                              * internal reflection where the path refracted: no derivative */
} lsim_path_dual;

/* Re-trace `n` vertices from origin/direction (unit) with the object poses `poses`. */
lsim_path_dual lsim_path_dual_trace(lsim_dual3 origin, lsim_dual3 direction, const lsim_path_vertex *v, int n,
                                    const lsim_dual_pose *poses);

#endif
