/* Building a checked lsim_motion (core/motion.h) from what a user gives: constant rates from a
 * pose at t = 0, or keyframes (t, position, roll/pitch/yaw). Every value is checked first, and a
 * failure names the key it came from (`what`, e.g. "sensor" or "objects[2]") and what is valid:
 * "sensor.velocity: [1, nan, 0] ...", "objects[2].trajectory[3]: time 0.1 is not after 0.2 ...". */
#ifndef LSIM_CORE_MOTION_MAKE_H
#define LSIM_CORE_MOTION_MAKE_H

#include "lidarsim.h"
#include "core/motion.h"

#include <stddef.h>

#define LSIM_MOTION_MAX_SPEED 1e4    /* m/s, each velocity component */
#define LSIM_MOTION_MAX_RATE 1e5     /* deg/s, each roll/pitch/yaw rate */
#define LSIM_MOTION_MAX_TIME 1e7     /* s: keyframe times and scan times within +-this */
#define LSIM_MOTION_MAX_KEYS 1000000 /* keyframes per trajectory */
#define LSIM_MOTION_MAX_POSITION 1e7 /* m: keyframe positions within +-this */

/* A trajectory as arrays (owned when filled by lsim_trajectory_alloc / a reader). */
typedef struct lsim_trajectory {
    size_t count;
    double *t;
    double (*position)[3];
    double (*rpy_deg)[3];
} lsim_trajectory;

/* Arrays for n keys (count = n); 0 when out of memory (nothing left allocated). */
int lsim_trajectory_alloc(lsim_trajectory *tr, size_t n);
void lsim_trajectory_free(lsim_trajectory *tr);

/* Velocity (m/s) and roll/pitch/yaw rates (deg/s): finite, within the limits above. NULL = 0. */
lsim_status lsim_motion_check_rates(lsim_context *ctx, const char *what, const double velocity[3],
                                    const double rpy_rate_deg_s[3]);
/* Keyframes: 1..LSIM_MOTION_MAX_KEYS, finite, times strictly ascending within +-LSIM_MOTION_MAX_TIME,
 * positions within +-LSIM_MOTION_MAX_POSITION. */
lsim_status lsim_motion_check_keys(lsim_context *ctx, const char *what, size_t count, const double *t,
                                   const double (*position)[3], const double (*rpy_deg)[3]);
/* A new motion with constant rates from (position, rpy) at t = 0 (checked). */
lsim_status lsim_motion_make_rates(lsim_context *ctx, const char *what, const double position[3],
                                   const double rpy_deg[3], const double velocity[3], const double rpy_rate_deg_s[3],
                                   lsim_motion **out);
/* A new keyframed motion (checked). */
lsim_status lsim_motion_make_keys(lsim_context *ctx, const char *what, size_t count, const double *t,
                                  const double (*position)[3], const double (*rpy_deg)[3], lsim_motion **out);
/* A deep copy (NULL for NULL); 0 when out of memory. */
int lsim_motion_copy(const lsim_motion *src, lsim_motion **out);
/* The pose `body` composed with `mount`: x_world = R_b (R_m x + t_m) + t_b. */
lsim_pose lsim_pose_compose(const lsim_pose *body, const lsim_pose *mount);

#endif
