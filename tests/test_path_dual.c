/* Dual numbers (core/dual.h) and the differentiable path re-trace (optics/path_dual.h), the first
 * pieces of issue 11's gradients, checked against closed forms and central finite differences of
 * the exact geometry (for planar surfaces the tangent-plane re-trace is the exact geometry, so its
 * value at perturbed parameters is the true path):
 * - every dual operation's partials against finite differences of a compound function;
 * - a direct return: d range / d (sensor x, yaw) in closed form;
 * - a ghost through a mirror (sensor pose and the mirror's SE(2) pose);
 * - a path through a tilted glass slab (refraction in and out) to a wall;
 * - no derivative when the ray runs parallel to a surface or is totally reflected. */
#include "harness.h"
#include "optics/path_dual.h"

#include <math.h>
#include <string.h>

#define DEG (3.14159265358979323846 / 180.0)

static lsim_dual compound(lsim_dual x, lsim_dual y)
{
    /* atan2(sin x * y, exp(x / 3) + sqrt y) / (x y + 2) - cos(x - y) */
    lsim_dual a = lsim_dual_atan2(lsim_dual_mul(lsim_dual_sin(x), y),
                                  lsim_dual_add(lsim_dual_exp(lsim_dual_scale(x, 1.0 / 3.0)), lsim_dual_sqrt(y)));
    lsim_dual b = lsim_dual_add(lsim_dual_mul(x, y), lsim_dual_const(2.0));
    return lsim_dual_sub(lsim_dual_div(a, b), lsim_dual_cos(lsim_dual_sub(x, y)));
}

static void test_dual_ops(void)
{
    const double x = 0.7, y = 1.9, h = 1e-6;
    lsim_dual f = compound(lsim_dual_var(x, 0), lsim_dual_var(y, 1));
    double fx = (compound(lsim_dual_const(x + h), lsim_dual_const(y)).v -
                 compound(lsim_dual_const(x - h), lsim_dual_const(y)).v) / (2 * h);
    double fy = (compound(lsim_dual_const(x), lsim_dual_const(y + h)).v -
                 compound(lsim_dual_const(x), lsim_dual_const(y - h)).v) / (2 * h);
    printf("dual ops: df/dx %.10f (finite differences %.10f), df/dy %.10f (%.10f)\n", f.d[0], fx, f.d[1], fy);
    CHECK_NEAR(f.d[0], fx, 1e-8);
    CHECK_NEAR(f.d[1], fy, 1e-8);
    CHECK(f.d[2] == 0.0);
}

/* Parameters: 0 sensor x, 1 sensor y, 2 sensor yaw, 3 object x, 4 object y, 5 object yaw. */
#define NP 6

typedef struct scene_fn {
    const lsim_path_vertex *v;
    int n;
    double beam_az; /* the beam's azimuth in the sensor frame, radians */
} scene_fn;

static lsim_path_dual trace(const scene_fn *s, const double p[NP], int with_partials)
{
    lsim_dual q[NP];
    for (int k = 0; k < NP; ++k)
        q[k] = with_partials ? lsim_dual_var(p[k], k) : lsim_dual_const(p[k]);
    lsim_dual3 st = {q[0], q[1], lsim_dual_const(0.0)}, ot = {q[3], q[4], lsim_dual_const(0.0)};
    lsim_dual_pose sensor = lsim_dual_pose_make(st, lsim_dual_const(0.0), lsim_dual_const(0.0), q[2]);
    lsim_dual_pose object = lsim_dual_pose_make(ot, lsim_dual_const(0.0), lsim_dual_const(0.0), q[5]);
    const double dir[3] = {cos(s->beam_az), sin(s->beam_az), 0.0};
    lsim_dual3 d = lsim_dual_pose_rotate(&sensor, lsim_dual3_const(dir));
    return lsim_path_dual_trace(sensor.t, d, s->v, s->n, &object);
}

/* Worst |dual partial - central difference| over the parameters, and the result itself. */
static double check_fd(const scene_fn *s, const double p[NP], lsim_path_dual *out)
{
    *out = trace(s, p, 1);
    double worst = 0.0;
    for (int k = 0; k < NP; ++k) {
        double a[NP], b[NP];
        memcpy(a, p, sizeof a);
        memcpy(b, p, sizeof b);
        const double h = 1e-6;
        a[k] += h;
        b[k] -= h;
        const double fd = (trace(s, a, 0).range.v - trace(s, b, 0).range.v) / (2 * h);
        worst = fmax(worst, fabs(out->range.d[k] - fd));
    }
    return worst;
}

static void test_direct(void)
{
    /* a wall x = 10 fixed in the world; the sensor at (1, 0.5) turned 20 deg, beam at +15 deg */
    const lsim_path_vertex wall = {LSIM_VERTEX_RETURN, {10, 0, 0}, {-1, 0, 0}, -1, 1.0};
    scene_fn s = {&wall, 1, 15 * DEG};
    const double p[NP] = {1.0, 0.5, 20 * DEG, 0, 0, 0};
    lsim_path_dual r;
    const double fd = check_fd(&s, p, &r);
    const double a = 35 * DEG; /* yaw + azimuth */
    CHECK(r.ok);
    CHECK_NEAR(r.range.v, 9.0 / cos(a), 1e-12);
    CHECK_NEAR(r.range.d[0], -1.0 / cos(a), 1e-12);                 /* d/dx */
    CHECK_NEAR(r.range.d[1], 0.0, 1e-12);                           /* d/dy */
    CHECK_NEAR(r.range.d[2], 9.0 * sin(a) / (cos(a) * cos(a)), 1e-12); /* d/dyaw */
    CHECK_NEAR(r.cos_incidence.v, cos(a), 1e-12);
    printf("direct return: range %.6f m, d/dx %.6f, d/dyaw %.6f m/rad (closed form), finite differences within %.1e\n",
           r.range.v, r.range.d[0], r.range.d[2], fd);
    CHECK(fd < 1e-6);
}

static void test_mirror(void)
{
    /* a mirror through its object's origin, normal +x in its frame, at (3, 0) turned 135 deg: the
     * beam along +x turns to +y and returns from a wall y = 5; range 3 + 5 = 8 m */
    const lsim_path_vertex path[2] = {{LSIM_VERTEX_MIRROR, {0, 0, 0}, {1, 0, 0}, 0, 1.0},
                                      {LSIM_VERTEX_RETURN, {0, 5, 0}, {0, -1, 0}, -1, 1.0}};
    scene_fn s = {path, 2, 0.0};
    const double p[NP] = {0, 0, 0, 3, 0, 135 * DEG};
    lsim_path_dual r;
    double fd = check_fd(&s, p, &r);
    CHECK(r.ok);
    CHECK_NEAR(r.range.v, 8.0, 1e-12);
    CHECK_NEAR(r.range.d[3], 1.0, 1e-9);  /* the mirror moved along the beam: the ghost moves with it */
    CHECK_NEAR(r.range.d[0], -1.0, 1e-9); /* the sensor moved toward the mirror */
    printf("mirror ghost: range %.6f m, d/d(mirror x) %.6f, d/d(mirror yaw) %.6f, finite differences within %.1e\n",
           r.range.v, r.range.d[3], r.range.d[5], fd);
    CHECK(fd < 1e-6);
    /* off the symmetric point: every partial non-trivial */
    const double q[NP] = {0.2, -0.1, 3 * DEG, 3.1, 0.3, 131 * DEG};
    fd = check_fd(&s, q, &r);
    printf("mirror ghost, general pose: range %.6f m, partials %.4f %.4f %.4f %.4f %.4f %.4f, finite differences "
           "within %.1e\n", r.range.v, r.range.d[0], r.range.d[1], r.range.d[2], r.range.d[3], r.range.d[4],
           r.range.d[5], fd);
    CHECK(r.ok && fd < 1e-6);
    for (int k = 0; k < NP; ++k)
        CHECK(fabs(r.range.d[k]) > 1e-3);
}

static void test_glass(void)
{
    /* a 5 cm glass slab (ior 1.5) around its object's origin, tilted 25 deg; a wall x = 6 behind */
    const lsim_path_vertex path[3] = {{LSIM_VERTEX_REFRACT, {-0.025, 0, 0}, {-1, 0, 0}, 0, 1.0 / 1.5},
                                      {LSIM_VERTEX_REFRACT, {0.025, 0, 0}, {1, 0, 0}, 0, 1.5},
                                      {LSIM_VERTEX_RETURN, {6, 0, 0}, {-1, 0, 0}, -1, 1.0}};
    scene_fn s = {path, 3, 2 * DEG};
    const double p[NP] = {0.1, 0.2, 1 * DEG, 2.0, 0.1, 25 * DEG};
    lsim_path_dual r;
    const double fd = check_fd(&s, p, &r);
    CHECK(r.ok);
    /* a slab shifts the ray sideways but keeps its direction: the range is not 5.9 / cos(3 deg) */
    printf("glass slab: range %.6f m (without the slab %.6f), d/d(slab yaw) %.6f m/rad, finite differences within "
           "%.1e\n", r.range.v, 5.9 / cos(3 * DEG), r.range.d[5], fd);
    CHECK(fabs(r.range.v - 5.9 / cos(3 * DEG)) > 1e-4);
    CHECK(fabs(r.range.d[5]) > 1e-4);
    CHECK(fd < 1e-6);
}

static void test_no_derivative(void)
{
    const lsim_path_vertex parallel = {LSIM_VERTEX_RETURN, {0, 3, 0}, {0, -1, 0}, -1, 1.0};
    scene_fn s = {&parallel, 1, 0.0}; /* the beam runs along the plane y = 3 */
    const double p[NP] = {0};
    CHECK(!trace(&s, p, 1).ok);
    /* leaving dense glass at 60 deg: total internal reflection */
    const lsim_path_vertex tir[2] = {{LSIM_VERTEX_REFRACT, {1, 0, 0}, {-cos(60 * DEG), -sin(60 * DEG), 0}, -1, 1.5},
                                     {LSIM_VERTEX_RETURN, {5, 0, 0}, {-1, 0, 0}, -1, 1.0}};
    scene_fn t = {tir, 2, 0.0};
    CHECK(!trace(&t, p, 1).ok);
    const lsim_path_vertex behind = {LSIM_VERTEX_RETURN, {-2, 0, 0}, {1, 0, 0}, -1, 1.0};
    scene_fn b = {&behind, 1, 0.0};
    CHECK(!trace(&b, p, 1).ok);
}

int main(void)
{
    test_dual_ops();
    test_direct();
    test_mirror();
    test_glass();
    test_no_derivative();
    return lsim_test_summary("test_path_dual");
}
