/* Rigid motion on the scene's clock (seconds): where a body (the sensor, or a moving object)
 * is at time t. Either constant rates from a pose at time 0 (linear velocity in the world frame,
 * roll/pitch/yaw rates), or keyframes (t, x, y, z, roll, pitch, yaw) interpolated linearly in
 * position and by slerp in rotation, held constant before the first and after the last. */
#ifndef LSIM_CORE_MOTION_H
#define LSIM_CORE_MOTION_H

#include "core/vec.h"

#include <stddef.h>

typedef struct lsim_motion_key {
    double t;
    double position[3];
    double q[4]; /* unit quaternion (w, x, y, z), each the shorter way from the previous key */
} lsim_motion_key;

typedef struct lsim_motion {
    /* constant rates (keys == NULL) */
    double position[3];       /* at t = 0, world */
    double rpy_deg[3];        /* at t = 0 */
    double velocity[3];       /* m/s, world */
    double rpy_rate_deg_s[3]; /* roll, pitch, yaw rates, deg/s */
    /* keyframes (overrides the rates): ascending, distinct t */
    lsim_motion_key *keys;    /* owned */
    size_t key_count;
} lsim_motion;

/* The body's pose at time t. */
lsim_pose lsim_motion_pose(const lsim_motion *motion, double t);
/* The same as a 3x4 row-major matrix [R | p]: x_world = R x_body + p. */
void lsim_motion_pose_at(const lsim_motion *motion, double t, double out[12]);
/* 1 if the body moves at all (non-zero rates, or keys that differ). */
int lsim_motion_moves(const lsim_motion *motion);
/* Unit quaternion (w, x, y, z) -> rotation matrix. */
lsim_mat3 lsim_quat_to_mat3(const double q[4]);
/* Keyframes from poses (position, roll/pitch/yaw degrees) at ascending times: fills keys[i].q
 * so consecutive keys take the shorter way round. */
void lsim_motion_keys_from_rpy(lsim_motion_key *keys, const double (*rpy_deg)[3], size_t count);
void lsim_motion_free(lsim_motion *motion);

#endif
