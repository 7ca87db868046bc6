/* Shared by the fit tests: the scenes of examples/cw/ and the URG-04LX room with a post, the sensor
 * placed in it, noisy "real" scans, and the check of the fit's Jacobian against per-beam central
 * differences. */
#ifndef LSIM_TESTS_FIT_CHECK_H
#define LSIM_TESTS_FIT_CHECK_H

#include "harness.h"
#include "lidarsim.h"
#include "test_scenes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A scene of examples/cw/ with its sensor. */
static inline lsim_scene *example(lsim_context *ctx, const char *file, lsim_sensor **sensor)
{
    const char *root = getenv("LSIM_SOURCE_DIR");
    char path[1024];
    snprintf(path, sizeof path, "%s/examples/cw/%s", root ? root : ".", file);
    lsim_scene *scene;
    REQUIRE_OK(ctx, lsim_scene_load(ctx, path, &scene, sensor));
    return scene;
}

/* The fit tests' room: a 6 x 4 x 3 m box centred at (0.5, 0, 1), walls at x = -2.5 and 3.5, y = +-2
 * (off-centre, so that the room has no symmetry the fit could fall into), and a post of `post`
 * size standing at (x, y). */
static inline lsim_scene *fit_room(lsim_context *ctx, const double post[3], double x, double y)
{
    lsim_scene *scene = test_scene_new(ctx, NULL, 0.0);
    lsim_object_desc desc = test_object(NULL, NULL, 0.5, 0.0, 1.0);
    const double size[3] = {6.0, 4.0, 3.0};
    REQUIRE_OK(ctx, lsim_scene_add_box(scene, size, &desc));
    desc = test_object(NULL, NULL, x, y, 1.0);
    REQUIRE_OK(ctx, lsim_scene_add_box(scene, post, &desc));
    return scene;
}

/* The urg-04lx preset as it comes, 1 m up at (x, y), turned by roll, pitch and yaw (degrees). */
static inline lsim_sensor *fit_urg_tilted(lsim_context *ctx, double x, double y, double roll_deg, double pitch_deg,
                                          double yaw_deg)
{
    lsim_sensor *s;
    REQUIRE_OK(ctx, lsim_sensor_create_preset(ctx, "urg-04lx", &s));
    const double pos[3] = {x, y, 1.0}, rpy[3] = {roll_deg, pitch_deg, yaw_deg};
    REQUIRE_OK(ctx, lsim_sensor_set_pose(s, pos, rpy));
    return s;
}

/* The same, level, turned by yaw_deg. */
static inline lsim_sensor *fit_urg(lsim_context *ctx, double x, double y, double yaw_deg)
{
    return fit_urg_tilted(ctx, x, y, 0.0, 0.0, yaw_deg);
}

/* A noisy scan (seed) of `scene` by `sensor`: one row per beam, misses as range 0. */
static inline lsim_points *noisy_scan(lsim_context *ctx, lsim_scene *scene, lsim_sensor *sensor, uint64_t seed)
{
    lsim_scan_options opt;
    lsim_scan_options_init(&opt);
    opt.noise = 1;
    opt.seed = seed;
    opt.keep_misses = 1;
    lsim_points *p;
    REQUIRE_OK(ctx, lsim_scene_scan(scene, sensor, &opt, &p));
    return p;
}

/* Its ranges alone (malloc'd, *count of them). */
static inline float *scan_ranges(lsim_context *ctx, lsim_scene *scene, lsim_sensor *sensor, uint64_t seed, size_t *count)
{
    lsim_points *p = noisy_scan(ctx, scene, sensor, seed);
    *count = lsim_points_count(p);
    float *r = malloc(*count * sizeof *r);
    if (!r)
        exit(1);
    memcpy(r, lsim_points_column(p, LSIM_FIELD_RANGE), *count * sizeof *r);
    lsim_points_destroy(p);
    return r;
}

/* The noisy scan (seed) of examples/cw/FILE from the sensor at (x, y, yaw_deg) (its height as
 * the file gives it); the scene and sensor are returned, the sensor left at that pose. */
static inline float *truth_scan(lsim_context *ctx, const char *file, const double truth[3], uint64_t seed,
                         lsim_scene **scene, lsim_sensor **s, size_t *n)
{
    *scene = example(ctx, file, s);
    double pose[7];
    REQUIRE_OK(ctx, lsim_sensor_get_pose_at(*s, 0.0, pose));
    const double p[3] = {truth[0], truth[1], pose[2]}, r[3] = {0, 0, truth[2]};
    REQUIRE_OK(ctx, lsim_sensor_set_pose(*s, p, r));
    return scan_ranges(ctx, *scene, *s, seed, n);
}

/* The Jacobian of the simulated ranges (the dual re-trace) against central differences of each
 * beam's residual, over the beams used at p and at both p +- h whose two one-sided differences
 * agree (within 1e-6 m: a beam that changes what it sees between them has no derivative there,
 * e.g. one sub-ray of a three-ray beam crossing an edge): worst over parameters of |J_fd - J| / |J|
 * (2-norms over the beams). Also prints the loss gradient beside the loss's differences. */
static inline double gradient_vs_differences(lsim_context *ctx, lsim_fit *fit, size_t beams, const char *what)
{
    double p[8], g[8], loss;
    const int k_n = (int)lsim_fit_parameter_count(fit);
    REQUIRE_OK(ctx, lsim_fit_get_parameters(fit, p));
    REQUIRE_OK(ctx, lsim_fit_evaluate(fit, p, &loss, g));
    uint8_t *st0 = malloc(beams), *sta = malloc(beams), *stb = malloc(beams);
    float *ra = malloc(beams * sizeof *ra), *rb = malloc(beams * sizeof *rb), *r0 = malloc(beams * sizeof *r0);
    double *jac = malloc(beams * 8 * sizeof *jac);
    if (!st0 || !sta || !stb || !ra || !rb || !r0 || !jac)
        exit(1);
    REQUIRE_OK(ctx, lsim_fit_get_residuals(fit, beams, st0, r0, jac));
    double worst = 0.0;
    for (int k = 0; k < k_n; ++k) {
        double a[8], b[8], la, lb;
        memcpy(a, p, sizeof a);
        memcpy(b, p, sizeof b);
        const double h = 1e-4;
        a[k] += h;
        b[k] -= h;
        REQUIRE_OK(ctx, lsim_fit_evaluate(fit, a, &la, NULL));
        REQUIRE_OK(ctx, lsim_fit_get_residuals(fit, beams, sta, ra, NULL));
        REQUIRE_OK(ctx, lsim_fit_evaluate(fit, b, &lb, NULL));
        REQUIRE_OK(ctx, lsim_fit_get_residuals(fit, beams, stb, rb, NULL));
        double diff2 = 0.0, norm2 = 0.0;
        size_t common = 0, kinked = 0;
        for (size_t i = 0; i < beams; ++i) {
            if (st0[i] != LSIM_FIT_BEAM_USED || sta[i] != LSIM_FIT_BEAM_USED || stb[i] != LSIM_FIT_BEAM_USED)
                continue;
            if (fabs(((double)ra[i] - r0[i]) - ((double)r0[i] - rb[i])) > 1e-6) {
                ++kinked;
                continue;
            }
            const double fd = ((double)ra[i] - (double)rb[i]) / (2 * h), dual = jac[i * (size_t)k_n + (size_t)k];
            diff2 += (fd - dual) * (fd - dual);
            norm2 += dual * dual;
            ++common;
        }
        const double rel = sqrt(diff2 / fmax(norm2, 1e-30));
        worst = fmax(worst, rel);
        char name[96];
        REQUIRE_OK(ctx, lsim_fit_parameter_name(fit, (size_t)k, name, sizeof name));
        printf("  %s %s: Jacobian vs differences %.2e over %zu beams (%zu left out: no derivative in +-h); loss "
               "gradient %.6g, its differences %.6g\n", what, name, rel, common, kinked, g[k], (la - lb) / (2 * h));
        CHECK(kinked * 20 <= common); /* a few beams at most */
        CHECK(common > 20);
        CHECK(norm2 > 0.0); /* every parameter moves some range */
    }
    REQUIRE_OK(ctx, lsim_fit_evaluate(fit, p, &loss, NULL));
    printf("gradient check, %s: worst relative difference %.2e\n", what, worst);
    free(st0), free(sta), free(stb), free(ra), free(rb), free(r0), free(jac);
    return worst;
}

#endif
