/* Small 3-D vector and rotation helpers (double precision, by value). */
#ifndef LSIM_CORE_VEC_H
#define LSIM_CORE_VEC_H

#include <math.h>

#define LSIM_PI 3.14159265358979323846
#define LSIM_DEG (LSIM_PI / 180.0)

typedef struct lsim_vec3 { double x, y, z; } lsim_vec3;
typedef struct lsim_mat3 { double m[3][3]; } lsim_mat3; /* row-major */

static inline lsim_vec3 lsim_v3(double x, double y, double z) { lsim_vec3 v = {x, y, z}; return v; }
static inline lsim_vec3 lsim_v3_add(lsim_vec3 a, lsim_vec3 b) { return lsim_v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline lsim_vec3 lsim_v3_sub(lsim_vec3 a, lsim_vec3 b) { return lsim_v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline lsim_vec3 lsim_v3_scale(lsim_vec3 a, double s) { return lsim_v3(a.x * s, a.y * s, a.z * s); }
static inline double lsim_v3_dot(lsim_vec3 a, lsim_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline lsim_vec3 lsim_v3_cross(lsim_vec3 a, lsim_vec3 b)
{
    return lsim_v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline double lsim_v3_norm(lsim_vec3 a) { return sqrt(lsim_v3_dot(a, a)); }

/* R = Rz(yaw) * Ry(pitch) * Rx(roll), angles in degrees. */
static inline lsim_mat3 lsim_mat3_from_rpy_deg(const double rpy_deg[3])
{
    double cr = cos(rpy_deg[0] * LSIM_DEG), sr = sin(rpy_deg[0] * LSIM_DEG);
    double cp = cos(rpy_deg[1] * LSIM_DEG), sp = sin(rpy_deg[1] * LSIM_DEG);
    double cy = cos(rpy_deg[2] * LSIM_DEG), sy = sin(rpy_deg[2] * LSIM_DEG);
    lsim_mat3 r = {{
        {cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr},
        {sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr},
        {-sp, cp * sr, cp * cr},
    }};
    return r;
}

static inline lsim_vec3 lsim_mat3_mul(const lsim_mat3 *r, lsim_vec3 v)
{
    return lsim_v3(r->m[0][0] * v.x + r->m[0][1] * v.y + r->m[0][2] * v.z,
                   r->m[1][0] * v.x + r->m[1][1] * v.y + r->m[1][2] * v.z,
                   r->m[2][0] * v.x + r->m[2][1] * v.y + r->m[2][2] * v.z);
}

/* Transpose times v (inverse rotation). */
static inline lsim_vec3 lsim_mat3_tmul(const lsim_mat3 *r, lsim_vec3 v)
{
    return lsim_v3(r->m[0][0] * v.x + r->m[1][0] * v.y + r->m[2][0] * v.z,
                   r->m[0][1] * v.x + r->m[1][1] * v.y + r->m[2][1] * v.z,
                   r->m[0][2] * v.x + r->m[1][2] * v.y + r->m[2][2] * v.z);
}

/* Unit quaternion (w, x, y, z) of a rotation matrix (Shepperd's method). */
static inline void lsim_mat3_to_quat(const lsim_mat3 *r, double q[4])
{
    const double (*m)[3] = r->m;
    double tr = m[0][0] + m[1][1] + m[2][2];
    if (tr > 0.0) {
        double s = 2.0 * sqrt(tr + 1.0);
        q[0] = 0.25 * s;
        q[1] = (m[2][1] - m[1][2]) / s;
        q[2] = (m[0][2] - m[2][0]) / s;
        q[3] = (m[1][0] - m[0][1]) / s;
    } else if (m[0][0] > m[1][1] && m[0][0] > m[2][2]) {
        double s = 2.0 * sqrt(1.0 + m[0][0] - m[1][1] - m[2][2]);
        q[0] = (m[2][1] - m[1][2]) / s;
        q[1] = 0.25 * s;
        q[2] = (m[0][1] + m[1][0]) / s;
        q[3] = (m[0][2] + m[2][0]) / s;
    } else if (m[1][1] > m[2][2]) {
        double s = 2.0 * sqrt(1.0 + m[1][1] - m[0][0] - m[2][2]);
        q[0] = (m[0][2] - m[2][0]) / s;
        q[1] = (m[0][1] + m[1][0]) / s;
        q[2] = 0.25 * s;
        q[3] = (m[1][2] + m[2][1]) / s;
    } else {
        double s = 2.0 * sqrt(1.0 + m[2][2] - m[0][0] - m[1][1]);
        q[0] = (m[1][0] - m[0][1]) / s;
        q[1] = (m[0][2] + m[2][0]) / s;
        q[2] = (m[1][2] + m[2][1]) / s;
        q[3] = 0.25 * s;
    }
}

/* A rigid pose: world = R * local + t. */
typedef struct lsim_pose { lsim_mat3 r; lsim_vec3 t; } lsim_pose;

static inline lsim_pose lsim_pose_make(const double position[3], const double rpy_deg[3])
{
    lsim_pose p;
    p.r = lsim_mat3_from_rpy_deg(rpy_deg);
    p.t = lsim_v3(position[0], position[1], position[2]);
    return p;
}

#endif
