/* Rigid motion: constant rates or interpolated keyframes (see motion.h). */
#include "core/motion.h"

#include <stdlib.h>
#include <string.h>

lsim_mat3 lsim_quat_to_mat3(const double q[4])
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    lsim_mat3 r = {{
        {1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
        {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
        {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)},
    }};
    return r;
}

void lsim_motion_keys_from_rpy(lsim_motion_key *keys, const double (*rpy_deg)[3], size_t count)
{
    for (size_t i = 0; i < count; ++i) {
        lsim_mat3 r = lsim_mat3_from_rpy_deg(rpy_deg[i]);
        lsim_mat3_to_quat(&r, keys[i].q);
        if (i > 0) {
            const double *p = keys[i - 1].q;
            double *q = keys[i].q;
            if (p[0] * q[0] + p[1] * q[1] + p[2] * q[2] + p[3] * q[3] < 0.0)
                for (int k = 0; k < 4; ++k)
                    q[k] = -q[k];
        }
    }
}

/* Spherical linear interpolation of unit quaternions a -> b at s in [0, 1]. */
static void slerp(const double a[4], const double b[4], double s, double out[4])
{
    double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    double wa, wb;
    if (d > 0.9995) { /* nearly the same rotation: linear, then normalised */
        wa = 1.0 - s;
        wb = s;
    } else {
        double th = acos(d < -1.0 ? -1.0 : d), sn = sin(th);
        wa = sin((1.0 - s) * th) / sn;
        wb = sin(s * th) / sn;
    }
    double n = 0.0;
    for (int k = 0; k < 4; ++k) {
        out[k] = wa * a[k] + wb * b[k];
        n += out[k] * out[k];
    }
    n = 1.0 / sqrt(n);
    for (int k = 0; k < 4; ++k)
        out[k] *= n;
}

lsim_pose lsim_motion_pose(const lsim_motion *m, double t)
{
    lsim_pose p;
    if (!m->keys || m->key_count == 0) {
        double rpy[3];
        for (int k = 0; k < 3; ++k)
            rpy[k] = m->rpy_deg[k] + m->rpy_rate_deg_s[k] * t;
        p.r = lsim_mat3_from_rpy_deg(rpy);
        p.t = lsim_v3(m->position[0] + m->velocity[0] * t, m->position[1] + m->velocity[1] * t,
                      m->position[2] + m->velocity[2] * t);
        return p;
    }
    const lsim_motion_key *k = m->keys;
    size_t n = m->key_count;
    if (t <= k[0].t || n == 1) {
        p.r = lsim_quat_to_mat3(k[0].q);
        p.t = lsim_v3(k[0].position[0], k[0].position[1], k[0].position[2]);
        return p;
    }
    if (t >= k[n - 1].t) {
        p.r = lsim_quat_to_mat3(k[n - 1].q);
        p.t = lsim_v3(k[n - 1].position[0], k[n - 1].position[1], k[n - 1].position[2]);
        return p;
    }
    size_t lo = 0, hi = n - 1; /* k[lo].t <= t < k[hi].t */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (k[mid].t <= t)
            lo = mid;
        else
            hi = mid;
    }
    double s = (t - k[lo].t) / (k[hi].t - k[lo].t), q[4];
    slerp(k[lo].q, k[hi].q, s, q);
    p.r = lsim_quat_to_mat3(q);
    p.t = lsim_v3(k[lo].position[0] + s * (k[hi].position[0] - k[lo].position[0]),
                  k[lo].position[1] + s * (k[hi].position[1] - k[lo].position[1]),
                  k[lo].position[2] + s * (k[hi].position[2] - k[lo].position[2]));
    return p;
}

void lsim_motion_pose_at(const lsim_motion *motion, double t, double out[12])
{
    lsim_pose p = lsim_motion_pose(motion, t);
    for (int i = 0; i < 3; ++i) {
        out[4 * i + 0] = p.r.m[i][0];
        out[4 * i + 1] = p.r.m[i][1];
        out[4 * i + 2] = p.r.m[i][2];
    }
    out[3] = p.t.x;
    out[7] = p.t.y;
    out[11] = p.t.z;
}

int lsim_motion_moves(const lsim_motion *m)
{
    if (!m->keys || m->key_count == 0) {
        for (int k = 0; k < 3; ++k)
            if (m->velocity[k] != 0.0 || m->rpy_rate_deg_s[k] != 0.0)
                return 1;
        return 0;
    }
    for (size_t i = 1; i < m->key_count; ++i)
        if (memcmp(m->keys[i].position, m->keys[0].position, sizeof m->keys[0].position) != 0 ||
            memcmp(m->keys[i].q, m->keys[0].q, sizeof m->keys[0].q) != 0)
            return 1;
    return 0;
}

void lsim_motion_free(lsim_motion *motion)
{
    if (!motion)
        return;
    free(motion->keys);
    free(motion);
}
