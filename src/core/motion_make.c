/* Checked construction of motions (core/motion_make.h). */
#include "core/motion_make.h"

#include "core/context.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int lsim_trajectory_alloc(lsim_trajectory *tr, size_t n)
{
    memset(tr, 0, sizeof *tr);
    if (n == 0 || n > LSIM_MOTION_MAX_KEYS)
        return 0;
    tr->t = malloc(n * sizeof *tr->t);
    tr->position = malloc(n * sizeof *tr->position);
    tr->rpy_deg = malloc(n * sizeof *tr->rpy_deg);
    if (!tr->t || !tr->position || !tr->rpy_deg) {
        lsim_trajectory_free(tr);
        return 0;
    }
    tr->count = n;
    return 1;
}

void lsim_trajectory_free(lsim_trajectory *tr)
{
    free(tr->t);
    free(tr->position);
    free(tr->rpy_deg);
    memset(tr, 0, sizeof *tr);
}

static int vec_within(const double v[3], double limit)
{
    for (int k = 0; k < 3; ++k)
        if (!(fabs(v[k]) <= limit)) /* NaN fails too */
            return 0;
    return 1;
}

lsim_status lsim_motion_check_rates(lsim_context *ctx, const char *what, const double velocity[3],
                                    const double rpy_rate_deg_s[3])
{
    if (velocity && !vec_within(velocity, LSIM_MOTION_MAX_SPEED))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "%s.velocity: [%g, %g, %g] is invalid; each component must be a finite number of m/s "
                         "within +-%g", what, velocity[0], velocity[1], velocity[2], LSIM_MOTION_MAX_SPEED);
    if (rpy_rate_deg_s && !vec_within(rpy_rate_deg_s, LSIM_MOTION_MAX_RATE))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "%s.angular_velocity_deg_s: [%g, %g, %g] is invalid; roll, pitch and yaw rates must be "
                         "finite numbers of deg/s within +-%g", what, rpy_rate_deg_s[0], rpy_rate_deg_s[1],
                         rpy_rate_deg_s[2], LSIM_MOTION_MAX_RATE);
    return LSIM_OK;
}

lsim_status lsim_motion_check_keys(lsim_context *ctx, const char *what, size_t count, const double *t,
                                   const double (*position)[3], const double (*rpy_deg)[3])
{
    if (count < 1 || count > LSIM_MOTION_MAX_KEYS)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "%s.trajectory: %zu keyframes; give 1 to %d (t, x, y, z, roll, pitch, yaw each)", what,
                         count, LSIM_MOTION_MAX_KEYS);
    if (!t || !position || !rpy_deg)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "%s.trajectory: the times, positions and rotations must not be NULL", what);
    for (size_t i = 0; i < count; ++i) {
        if (!(fabs(t[i]) <= LSIM_MOTION_MAX_TIME))
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "%s.trajectory[%zu]: time %g is invalid; must be a finite number of seconds within "
                             "+-%g", what, i, t[i], LSIM_MOTION_MAX_TIME);
        if (i > 0 && !(t[i] > t[i - 1]))
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "%s.trajectory[%zu]: time %.15g is not after the previous keyframe's %.15g; keyframe "
                             "times must be strictly ascending (sort them, and drop duplicates)", what, i, t[i],
                             t[i - 1]);
        if (!vec_within(position[i], LSIM_MOTION_MAX_POSITION))
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "%s.trajectory[%zu]: position [%g, %g, %g] is invalid; must be finite, within +-%g m",
                             what, i, position[i][0], position[i][1], position[i][2], LSIM_MOTION_MAX_POSITION);
        if (!vec_within(rpy_deg[i], 1e6))
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "%s.trajectory[%zu]: roll, pitch, yaw [%g, %g, %g] are invalid; must be finite degrees "
                             "within +-1e6", what, i, rpy_deg[i][0], rpy_deg[i][1], rpy_deg[i][2]);
    }
    return LSIM_OK;
}

lsim_status lsim_motion_make_rates(lsim_context *ctx, const char *what, const double position[3],
                                   const double rpy_deg[3], const double velocity[3], const double rpy_rate_deg_s[3],
                                   lsim_motion **out)
{
    *out = NULL;
    lsim_status st = lsim_motion_check_rates(ctx, what, velocity, rpy_rate_deg_s);
    if (st != LSIM_OK)
        return st;
    lsim_motion *m = calloc(1, sizeof *m);
    if (!m)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for the motion of %s", what);
    for (int k = 0; k < 3; ++k) {
        m->position[k] = position ? position[k] : 0.0;
        m->rpy_deg[k] = rpy_deg ? rpy_deg[k] : 0.0;
        m->velocity[k] = velocity ? velocity[k] : 0.0;
        m->rpy_rate_deg_s[k] = rpy_rate_deg_s ? rpy_rate_deg_s[k] : 0.0;
    }
    *out = m;
    return LSIM_OK;
}

lsim_status lsim_motion_make_keys(lsim_context *ctx, const char *what, size_t count, const double *t,
                                  const double (*position)[3], const double (*rpy_deg)[3], lsim_motion **out)
{
    *out = NULL;
    lsim_status st = lsim_motion_check_keys(ctx, what, count, t, position, rpy_deg);
    if (st != LSIM_OK)
        return st;
    lsim_motion *m = calloc(1, sizeof *m);
    lsim_motion_key *keys = m ? malloc(count * sizeof *keys) : NULL;
    if (!keys) {
        free(m);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for the %zu keyframes of %s", count, what);
    }
    for (size_t i = 0; i < count; ++i) {
        keys[i].t = t[i];
        memcpy(keys[i].position, position[i], sizeof keys[i].position);
    }
    lsim_motion_keys_from_rpy(keys, rpy_deg, count);
    m->keys = keys;
    m->key_count = count;
    *out = m;
    return LSIM_OK;
}

int lsim_motion_copy(const lsim_motion *src, lsim_motion **out)
{
    *out = NULL;
    if (!src)
        return 1;
    lsim_motion *m = malloc(sizeof *m);
    if (!m)
        return 0;
    *m = *src;
    if (src->keys) {
        m->keys = malloc(src->key_count * sizeof *m->keys);
        if (!m->keys) {
            free(m);
            return 0;
        }
        memcpy(m->keys, src->keys, src->key_count * sizeof *m->keys);
    }
    *out = m;
    return 1;
}

lsim_pose lsim_pose_compose(const lsim_pose *body, const lsim_pose *mount)
{
    lsim_pose p;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            p.r.m[i][j] = body->r.m[i][0] * mount->r.m[0][j] + body->r.m[i][1] * mount->r.m[1][j] +
                          body->r.m[i][2] * mount->r.m[2][j];
    p.t = lsim_v3_add(lsim_mat3_mul(&body->r, mount->t), body->t);
    return p;
}
