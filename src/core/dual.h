/* Forward-mode automatic differentiation with dual numbers (issue 11: gradients of the
 * simulation). A dual carries a value and its partial derivatives with respect to up to
 * LSIM_DUAL_N parameters (sensor pose, an object's pose, a reflectance, bias coefficients: few
 * parameters, many beams, so forward mode is the right tool). Every operation applies the chain
 * rule to all partials at once. Plain values are lsim_dual_const; parameter k is
 * lsim_dual_var(value, k). Header-only, no allocation, no state. */
#ifndef LSIM_CORE_DUAL_H
#define LSIM_CORE_DUAL_H

#include <math.h>

#define LSIM_DUAL_N 8

typedef struct lsim_dual {
    double v;                /* value */
    double d[LSIM_DUAL_N];   /* d value / d parameter k */
} lsim_dual;

static inline lsim_dual lsim_dual_const(double v)
{
    lsim_dual r = {v, {0}};
    return r;
}

/* Parameter `k` (0 <= k < LSIM_DUAL_N) at value v: its own partial is 1. */
static inline lsim_dual lsim_dual_var(double v, int k)
{
    lsim_dual r = lsim_dual_const(v);
    r.d[k] = 1.0;
    return r;
}

static inline lsim_dual lsim_dual_add(lsim_dual a, lsim_dual b)
{
    lsim_dual r;
    r.v = a.v + b.v;
    for (int k = 0; k < LSIM_DUAL_N; ++k)
        r.d[k] = a.d[k] + b.d[k];
    return r;
}

static inline lsim_dual lsim_dual_sub(lsim_dual a, lsim_dual b)
{
    lsim_dual r;
    r.v = a.v - b.v;
    for (int k = 0; k < LSIM_DUAL_N; ++k)
        r.d[k] = a.d[k] - b.d[k];
    return r;
}

static inline lsim_dual lsim_dual_mul(lsim_dual a, lsim_dual b)
{
    lsim_dual r;
    r.v = a.v * b.v;
    for (int k = 0; k < LSIM_DUAL_N; ++k)
        r.d[k] = a.d[k] * b.v + a.v * b.d[k];
    return r;
}

static inline lsim_dual lsim_dual_scale(lsim_dual a, double s)
{
    lsim_dual r;
    r.v = a.v * s;
    for (int k = 0; k < LSIM_DUAL_N; ++k)
        r.d[k] = a.d[k] * s;
    return r;
}

static inline lsim_dual lsim_dual_div(lsim_dual a, lsim_dual b)
{
    lsim_dual r;
    const double inv = 1.0 / b.v;
    r.v = a.v * inv;
    for (int k = 0; k < LSIM_DUAL_N; ++k)
        r.d[k] = (a.d[k] - r.v * b.d[k]) * inv;
    return r;
}

/* f(a) with f(a.v) = fv and f'(a.v) = dfv. */
static inline lsim_dual lsim_dual_chain(lsim_dual a, double fv, double dfv)
{
    lsim_dual r;
    r.v = fv;
    for (int k = 0; k < LSIM_DUAL_N; ++k)
        r.d[k] = dfv * a.d[k];
    return r;
}

static inline lsim_dual lsim_dual_sqrt(lsim_dual a)
{
    const double s = sqrt(a.v);
    return lsim_dual_chain(a, s, s > 0.0 ? 0.5 / s : 0.0);
}

static inline lsim_dual lsim_dual_sin(lsim_dual a) { return lsim_dual_chain(a, sin(a.v), cos(a.v)); }
static inline lsim_dual lsim_dual_cos(lsim_dual a) { return lsim_dual_chain(a, cos(a.v), -sin(a.v)); }
static inline lsim_dual lsim_dual_exp(lsim_dual a)
{
    const double e = exp(a.v);
    return lsim_dual_chain(a, e, e);
}

/* atan2(y, x): d = (x dy - y dx) / (x^2 + y^2). */
static inline lsim_dual lsim_dual_atan2(lsim_dual y, lsim_dual x)
{
    lsim_dual r;
    const double q = x.v * x.v + y.v * y.v;
    r.v = atan2(y.v, x.v);
    for (int k = 0; k < LSIM_DUAL_N; ++k)
        r.d[k] = q > 0.0 ? (x.v * y.d[k] - y.v * x.d[k]) / q : 0.0;
    return r;
}

/* 3-vectors of duals. */
typedef struct lsim_dual3 {
    lsim_dual x, y, z;
} lsim_dual3;

static inline lsim_dual3 lsim_dual3_const(const double v[3])
{
    lsim_dual3 r = {lsim_dual_const(v[0]), lsim_dual_const(v[1]), lsim_dual_const(v[2])};
    return r;
}

static inline lsim_dual3 lsim_dual3_add(lsim_dual3 a, lsim_dual3 b)
{
    lsim_dual3 r = {lsim_dual_add(a.x, b.x), lsim_dual_add(a.y, b.y), lsim_dual_add(a.z, b.z)};
    return r;
}

static inline lsim_dual3 lsim_dual3_sub(lsim_dual3 a, lsim_dual3 b)
{
    lsim_dual3 r = {lsim_dual_sub(a.x, b.x), lsim_dual_sub(a.y, b.y), lsim_dual_sub(a.z, b.z)};
    return r;
}

static inline lsim_dual3 lsim_dual3_mul(lsim_dual3 a, lsim_dual s)
{
    lsim_dual3 r = {lsim_dual_mul(a.x, s), lsim_dual_mul(a.y, s), lsim_dual_mul(a.z, s)};
    return r;
}

static inline lsim_dual lsim_dual3_dot(lsim_dual3 a, lsim_dual3 b)
{
    return lsim_dual_add(lsim_dual_add(lsim_dual_mul(a.x, b.x), lsim_dual_mul(a.y, b.y)), lsim_dual_mul(a.z, b.z));
}

static inline lsim_dual lsim_dual3_norm(lsim_dual3 a) { return lsim_dual_sqrt(lsim_dual3_dot(a, a)); }

static inline lsim_dual3 lsim_dual3_normalize(lsim_dual3 a)
{
    const lsim_dual n = lsim_dual3_norm(a);
    lsim_dual3 r = {lsim_dual_div(a.x, n), lsim_dual_div(a.y, n), lsim_dual_div(a.z, n)};
    return r;
}

/* A rigid pose with dual parameters: R = Rz(yaw) Ry(pitch) Rx(roll) (as lsim_pose_make), t. */
typedef struct lsim_dual_pose {
    lsim_dual r[3][3];
    lsim_dual3 t;
} lsim_dual_pose;

/* Angles in radians. */
static inline lsim_dual_pose lsim_dual_pose_make(lsim_dual3 t, lsim_dual roll, lsim_dual pitch, lsim_dual yaw)
{
    const lsim_dual cr = lsim_dual_cos(roll), sr = lsim_dual_sin(roll);
    const lsim_dual cp = lsim_dual_cos(pitch), sp = lsim_dual_sin(pitch);
    const lsim_dual cy = lsim_dual_cos(yaw), sy = lsim_dual_sin(yaw);
    lsim_dual_pose p;
    p.t = t;
    p.r[0][0] = lsim_dual_mul(cy, cp);
    p.r[0][1] = lsim_dual_sub(lsim_dual_mul(lsim_dual_mul(cy, sp), sr), lsim_dual_mul(sy, cr));
    p.r[0][2] = lsim_dual_add(lsim_dual_mul(lsim_dual_mul(cy, sp), cr), lsim_dual_mul(sy, sr));
    p.r[1][0] = lsim_dual_mul(sy, cp);
    p.r[1][1] = lsim_dual_add(lsim_dual_mul(lsim_dual_mul(sy, sp), sr), lsim_dual_mul(cy, cr));
    p.r[1][2] = lsim_dual_sub(lsim_dual_mul(lsim_dual_mul(sy, sp), cr), lsim_dual_mul(cy, sr));
    p.r[2][0] = lsim_dual_scale(sp, -1.0);
    p.r[2][1] = lsim_dual_mul(cp, sr);
    p.r[2][2] = lsim_dual_mul(cp, cr);
    return p;
}

/* R v (a direction) and R v + t (a point). */
static inline lsim_dual3 lsim_dual_pose_rotate(const lsim_dual_pose *p, lsim_dual3 v)
{
    lsim_dual3 r;
    lsim_dual *out[3] = {&r.x, &r.y, &r.z};
    for (int i = 0; i < 3; ++i)
        *out[i] = lsim_dual_add(lsim_dual_add(lsim_dual_mul(p->r[i][0], v.x), lsim_dual_mul(p->r[i][1], v.y)),
                                lsim_dual_mul(p->r[i][2], v.z));
    return r;
}

static inline lsim_dual3 lsim_dual_pose_apply(const lsim_dual_pose *p, lsim_dual3 v)
{
    return lsim_dual3_add(lsim_dual_pose_rotate(p, v), p->t);
}

#endif
