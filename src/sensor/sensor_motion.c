/* Sensor motion: constant velocity and roll/pitch/yaw rates, or a keyframed trajectory on which
 * the sensor is mounted (sensor.h). */
#include "sensor/sensor.h"

#include "core/context.h"
#include "core/motion.h"
#include "core/motion_make.h"

#include <stdlib.h>

lsim_pose lsim_sensor_pose_at(const lsim_sensor *s, double t)
{
    if (!s->motion)
        return s->pose;
    if (s->motion->keys) {
        lsim_pose body = lsim_motion_pose(s->motion, t);
        return lsim_pose_compose(&body, &s->pose);
    }
    if (!lsim_motion_moves(s->motion))
        return s->pose;
    return lsim_motion_pose(s->motion, t);
}

int lsim_sensor_moves(const lsim_sensor *s) { return s->motion && lsim_motion_moves(s->motion); }

lsim_status lsim_sensor_set_motion(lsim_sensor *sensor, const double velocity[3], const double rpy_rate_deg_s[3])
{
    if (!sensor)
        return LSIM_ERR_INVALID_ARGUMENT;
    lsim_motion *m = NULL;
    lsim_status st = lsim_motion_make_rates(sensor->ctx, "sensor", sensor->position, sensor->rotation_deg, velocity,
                                            rpy_rate_deg_s, &m);
    if (st != LSIM_OK)
        return st;
    lsim_motion_free(sensor->motion);
    sensor->motion = NULL;
    if (lsim_motion_moves(m)) /* zero rates: a static sensor, exactly as without motion */
        sensor->motion = m;
    else
        lsim_motion_free(m);
    return LSIM_OK;
}

lsim_status lsim_sensor_set_trajectory(lsim_sensor *sensor, size_t count, const double *t,
                                       const double (*position)[3], const double (*rpy_deg)[3])
{
    if (!sensor)
        return LSIM_ERR_INVALID_ARGUMENT;
    lsim_motion *m = NULL;
    if (count > 0) {
        lsim_status st = lsim_motion_make_keys(sensor->ctx, "sensor", count, t, position, rpy_deg, &m);
        if (st != LSIM_OK)
            return st;
    }
    lsim_motion_free(sensor->motion);
    sensor->motion = m;
    return LSIM_OK;
}

lsim_status lsim_sensor_get_pose_at(const lsim_sensor *sensor, double t, double out[7])
{
    if (!sensor || !out)
        return LSIM_ERR_INVALID_ARGUMENT;
    if (!(t == t) || t > LSIM_MOTION_MAX_TIME || t < -LSIM_MOTION_MAX_TIME)
        return lsim_fail(sensor->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "lsim_sensor_get_pose_at: time %g must be a finite number of seconds within +-%g", t,
                         LSIM_MOTION_MAX_TIME);
    lsim_pose p = lsim_sensor_pose_at(sensor, t);
    out[0] = p.t.x;
    out[1] = p.t.y;
    out[2] = p.t.z;
    lsim_mat3_to_quat(&p.r, &out[3]);
    return LSIM_OK;
}
