/* The sensor's drive through a sequence (keyframed trajectory, yaw along the path) and each
 * frame's pose: the mount plus this frame's jitter (the raster paper §4: +-0.1 m, +-1 deg). */
#include "dataset/dataset_internal.h"

#include "core/context.h"
#include "core/motion.h"
#include "core/rng.h"
#include "core/text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DS_PI 3.14159265358979323846
#define DS_CIRCLE_STEP_DEG 2.0 /* keyframe spacing along a circle */

double lsim_ds_uniform(uint64_t seed, size_t sequence, uint64_t key, uint32_t draw)
{
    lsim_u32x4 w = lsim_rng_words(seed, (uint32_t)sequence, key, draw);
    return lsim_u32_to_open01(w.v[0], w.v[1]);
}

double lsim_ds_between(uint64_t seed, size_t sequence, uint64_t key, uint32_t draw, double lo, double hi)
{
    return lo + (hi - lo) * lsim_ds_uniform(seed, sequence, key, draw);
}

double lsim_ds_drive_s(const lsim_dataset *ds)
{
    return (double)ds->frames_per_sequence * ds->frame_period_s;
}

int lsim_ds_path_is_band(const lsim_dataset *ds)
{
    return ds->traj == LSIM_DS_STRAIGHT;
}

void lsim_ds_path_polyline(const lsim_dataset *ds, uint64_t seed, size_t sequence, double (*xy)[2], size_t max,
                           size_t *n)
{
    (void)seed;
    (void)sequence;
    *n = 0;
    if (ds->traj == LSIM_DS_CIRCLE) {
        /* the whole circle: every sequence's start phase keeps the same lane clear */
        size_t steps = max > 1 ? (max - 1 < 360 ? max - 1 : 360) : 0;
        for (size_t i = 0; i <= steps && steps; ++i) {
            double a = 2.0 * DS_PI * (double)i / (double)steps;
            xy[i][0] = ds->center[0] + ds->radius * cos(a);
            xy[i][1] = ds->center[1] + ds->radius * sin(a);
            *n = i + 1;
        }
    } else if (ds->traj == LSIM_DS_WAYPOINTS) {
        for (size_t i = 0; i < ds->waypoint_count && i < max; ++i) {
            xy[i][0] = ds->waypoints[i][0];
            xy[i][1] = ds->waypoints[i][1];
            *n = i + 1;
        }
    }
}

static double heading_deg(const double a[2], const double b[2])
{
    return atan2(b[1] - a[1], b[0] - a[0]) * 180.0 / DS_PI;
}

/* Keyframes of the sequence's drive into t / position / rpy (at most `max`); count returned. */
static size_t drive_keys(const lsim_dataset *ds, uint64_t seed, size_t sequence, double *t, double (*p)[3],
                         double (*r)[3], size_t max)
{
    const double drive = lsim_ds_drive_s(ds), dist = ds->speed * drive;
    const uint64_t key = LSIM_DS_KEY(LSIM_DS_RNG_TRAJ, 0, 0);
    size_t n = 0;
    memset(p, 0, max * sizeof *p);
    memset(r, 0, max * sizeof *r);
    if (ds->traj == LSIM_DS_STRAIGHT) {
        const double along = ds->layout == LSIM_DS_STREET ? ds->length : ds->extent[0];
        const double x0 = lsim_ds_between(seed, sequence, key, 0, -along / 2, along / 2 - dist);
        t[0] = 0.0, p[0][0] = x0, p[0][1] = ds->offset;
        n = 1;
        if (dist > 0.0) {
            t[1] = drive, p[1][0] = x0 + dist, p[1][1] = ds->offset;
            n = 2;
        }
    } else if (ds->traj == LSIM_DS_CIRCLE) {
        const double a0 = lsim_ds_between(seed, sequence, key, 0, 0.0, 360.0);
        const double sweep = dist / ds->radius * 180.0 / DS_PI; /* degrees driven, counter-clockwise */
        size_t steps = (size_t)ceil(sweep / DS_CIRCLE_STEP_DEG);
        if (steps + 1 > max)
            steps = max - 1;
        for (size_t i = 0; i <= steps; ++i) {
            double f = steps ? (double)i / (double)steps : 0.0, a = a0 + f * sweep, rad = a * DS_PI / 180.0;
            t[i] = f * drive;
            p[i][0] = ds->center[0] + ds->radius * cos(rad);
            p[i][1] = ds->center[1] + ds->radius * sin(rad);
            r[i][2] = remainder(a + 90.0, 360.0); /* keys 2 deg apart: slerp takes the short way */
        }
        n = steps + 1;
        if (dist <= 0.0)
            n = 1;
    } else {
        /* from the first waypoint along the polyline: a key at the start, at each corner (yaw
         * halfway between the two legs) and at the end of the drive */
        const double (*w)[2] = (const double(*)[2])ds->waypoints;
        double yaw = heading_deg(w[0], w[1]);
        t[0] = 0.0, p[0][0] = w[0][0], p[0][1] = w[0][1], r[0][2] = yaw;
        n = 1;
        double s = 0.0;
        for (size_t i = 1; i < ds->waypoint_count && dist > 0.0 && n < max; ++i) {
            double leg = hypot(w[i][0] - w[i - 1][0], w[i][1] - w[i - 1][1]);
            double seg_yaw = heading_deg(w[i - 1], w[i]);
            double turn = remainder(seg_yaw - yaw, 360.0);
            yaw += turn;
            r[n - 1][2] = n == 1 ? yaw : r[n - 1][2] + turn / 2; /* corner: half of the turn */
            if (s + leg >= dist) {
                double f = (dist - s) / leg;
                t[n] = drive;
                p[n][0] = w[i - 1][0] + f * (w[i][0] - w[i - 1][0]);
                p[n][1] = w[i - 1][1] + f * (w[i][1] - w[i - 1][1]);
                r[n][2] = yaw;
                ++n;
                break;
            }
            s += leg;
            t[n] = s / ds->speed;
            p[n][0] = w[i][0];
            p[n][1] = w[i][1];
            r[n][2] = yaw;
            ++n;
        }
    }
    return n;
}

lsim_status lsim_ds_set_trajectory(const lsim_dataset *ds, uint64_t seed, size_t sequence, lsim_sensor *sensor)
{
    size_t max = ds->traj == LSIM_DS_WAYPOINTS ? ds->waypoint_count + 2 : 2;
    if (ds->traj == LSIM_DS_CIRCLE)
        max = (size_t)fmin(1e6 - 2, ceil(ds->speed * lsim_ds_drive_s(ds) / ds->radius * 180.0 / DS_PI /
                                     DS_CIRCLE_STEP_DEG)) + 2;
    double *t = malloc(max * sizeof *t);
    double (*p)[3] = malloc(max * sizeof *p), (*r)[3] = malloc(max * sizeof *r);
    lsim_status st;
    if (!t || !p || !r) {
        st = lsim_fail(ds->ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory making the trajectory of sequence %zu", sequence);
    } else {
        size_t n = drive_keys(ds, seed, sequence, t, p, r, max);
        st = lsim_sensor_set_trajectory(sensor, n, t, (const double(*)[3])p, (const double(*)[3])r);
        if (st != LSIM_OK && st != LSIM_ERR_OUT_OF_MEMORY) {
            char msg[LSIM_ERROR_MAX];
            lsim_strlcpy(msg, lsim_context_last_error(ds->ctx), sizeof msg);
            st = lsim_fail(ds->ctx, st, "%s: trajectory of sequence %zu: %s; check trajectory.speed and the layout",
                           ds->path, sequence, msg);
        }
        if (st == LSIM_OK)
            st = lsim_sensor_set_pose(sensor, ds->mount_position, ds->mount_rotation);
    }
    free(t);
    free(p);
    free(r);
    return st;
}

void lsim_dataset_jitter(const lsim_dataset *ds, uint64_t seed, size_t sequence, size_t index, double dp[3],
                         double drpy[3])
{
    const uint64_t key = LSIM_DS_KEY(LSIM_DS_RNG_JITTER, 0, index);
    const double a = ds->jitter_position_m, b = ds->jitter_rotation_deg;
    for (uint32_t i = 0; i < 3; ++i) {
        dp[i] = a > 0.0 ? lsim_ds_between(seed, sequence, key, i, -a, a) : 0.0;
        drpy[i] = b > 0.0 ? lsim_ds_between(seed, sequence, key, 3 + i, -b, b) : 0.0;
    }
}

lsim_status lsim_dataset_place_frame(const lsim_dataset *ds, uint64_t seed, size_t sequence, size_t index,
                                     lsim_sensor *sensor, double *scan_time, double pose[12])
{
    if (!ds || !sensor || !scan_time || !pose)
        return lsim_fail(ds ? ds->ctx : NULL, LSIM_ERR_INVALID_ARGUMENT,
                         "lsim_dataset_place_frame: dataset, sensor, scan_time and pose must not be NULL");
    if (index >= ds->frames_per_sequence || sequence > UINT32_MAX)
        return lsim_fail(ds->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "%s: frame %zu of sequence %zu does not exist (frames_per_sequence is %zu; sequences "
                         "0..%u)", ds->path, index, sequence, ds->frames_per_sequence, UINT32_MAX);
    double dp[3], drpy[3], position[3], rotation[3];
    lsim_dataset_jitter(ds, seed, sequence, index, dp, drpy);
    for (int i = 0; i < 3; ++i) {
        position[i] = ds->mount_position[i] + dp[i];
        rotation[i] = ds->mount_rotation[i] + drpy[i];
    }
    lsim_status st = lsim_sensor_set_pose(sensor, position, rotation);
    if (st != LSIM_OK)
        return st;
    const double t = (double)index * ds->frame_period_s;
    double q[7];
    if ((st = lsim_sensor_get_pose_at(sensor, t, q)) != LSIM_OK)
        return st;
    lsim_mat3 rm = lsim_quat_to_mat3(q + 3);
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j)
            pose[4 * i + j] = rm.m[i][j];
        pose[4 * i + 3] = q[i];
    }
    *scan_time = t;
    return LSIM_OK;
}
