/* Fitting through the urg-04lx preset's three-ray beam as it comes (cw paper §III-C and §IV: the
 * beam as three rays, fitted through their continuous-wave mix; fit_mix.c).
 * - Scene: experiment 1's room (6 x 4 m, off-centre) with a 10 cm post whose front face stands
 *   0.4 m in front of the +x wall, so some beams straddle its edges: mixed pixels.
 * - The gradient of every used beam's range (the dual mix of its sub-rays' phasors) agrees with
 *   central differences of the simulated ranges (SE(2)), over all used beams and over the mixed
 *   ones alone (beams whose three-ray range is more than 2 cm off the single ray's).
 * - The fit recovers the true pose (0.40, -0.30) m, 12 deg from (0, 0), 0 deg with a noisy scan made
 *   by the same preset, within 1 cm and 0.2 deg, with mixed beams among those it used.
 * - A pulsed receiver with sub-rays is still refused, with a message naming both settings. */
#include "fit_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The fit room with a 0.1 m square post whose front face is at x = 3.1, 0.4 m in front of the wall. */
static lsim_scene *room_with_post(lsim_context *ctx)
{
    const double post[3] = {0.1, 0.1, 3.0};
    return fit_room(ctx, post, 3.15, 0.3);
}

/* Beams whose preset (three-ray) range is more than 2 cm from a single ray's: mixed pixels. */
static uint8_t *mixed_beams(lsim_context *ctx, lsim_scene *scene, double x, double y, double yaw, size_t *count)
{
    lsim_sensor *three = fit_urg(ctx, x, y, yaw), *one = fit_urg(ctx, x, y, yaw);
    REQUIRE_OK(ctx, lsim_sensor_set_beam(one, 13.0, LSIM_BEAM_SINGLE, 1));
    lsim_scan_options opt;
    lsim_scan_options_init(&opt);
    opt.noise = 0;
    opt.keep_misses = 1;
    lsim_points *a, *b;
    REQUIRE_OK(ctx, lsim_scene_scan(scene, three, &opt, &a));
    REQUIRE_OK(ctx, lsim_scene_scan(scene, one, &opt, &b));
    const size_t n = lsim_points_count(a);
    uint8_t *m = calloc(n, 1);
    if (!m)
        exit(1);
    const float *ra = lsim_points_column(a, LSIM_FIELD_RANGE), *rb = lsim_points_column(b, LSIM_FIELD_RANGE);
    *count = 0;
    for (size_t i = 0; i < n; ++i)
        if (ra[i] > 0.0f && rb[i] > 0.0f && fabsf(ra[i] - rb[i]) > 0.02f) {
            m[i] = 1;
            ++*count;
        }
    lsim_points_destroy(a);
    lsim_points_destroy(b);
    lsim_sensor_destroy(three);
    lsim_sensor_destroy(one);
    return m;
}

/* The Jacobian rows of the mixed beams against central differences of their simulated ranges. */
static double mixed_rows_vs_differences(lsim_context *ctx, lsim_fit *fit, size_t beams, const uint8_t *mixed,
                                        size_t *used_mixed)
{
    double p[8], loss;
    const int k_n = (int)lsim_fit_parameter_count(fit);
    REQUIRE_OK(ctx, lsim_fit_get_parameters(fit, p));
    REQUIRE_OK(ctx, lsim_fit_evaluate(fit, p, &loss, NULL));
    uint8_t *st0 = malloc(beams), *sta = malloc(beams), *stb = malloc(beams);
    float *ra = malloc(beams * sizeof *ra), *rb = malloc(beams * sizeof *rb);
    double *jac = malloc(beams * 8 * sizeof *jac);
    if (!st0 || !sta || !stb || !ra || !rb || !jac)
        exit(1);
    REQUIRE_OK(ctx, lsim_fit_get_residuals(fit, beams, st0, NULL, jac));
    *used_mixed = 0;
    for (size_t i = 0; i < beams; ++i)
        *used_mixed += mixed[i] && st0[i] == LSIM_FIT_BEAM_USED;
    double worst = 0.0;
    for (int k = 0; k < k_n; ++k) {
        double a[8], b[8], la, lb;
        memcpy(a, p, sizeof a);
        memcpy(b, p, sizeof b);
        a[k] += 1e-4;
        b[k] -= 1e-4;
        REQUIRE_OK(ctx, lsim_fit_evaluate(fit, a, &la, NULL));
        REQUIRE_OK(ctx, lsim_fit_get_residuals(fit, beams, sta, ra, NULL));
        REQUIRE_OK(ctx, lsim_fit_evaluate(fit, b, &lb, NULL));
        REQUIRE_OK(ctx, lsim_fit_get_residuals(fit, beams, stb, rb, NULL));
        double diff2 = 0.0, norm2 = 0.0;
        size_t common = 0;
        for (size_t i = 0; i < beams; ++i) {
            if (!mixed[i] || st0[i] != LSIM_FIT_BEAM_USED || sta[i] != LSIM_FIT_BEAM_USED ||
                stb[i] != LSIM_FIT_BEAM_USED)
                continue;
            const double fd = ((double)ra[i] - (double)rb[i]) / 2e-4, dual = jac[i * (size_t)k_n + (size_t)k];
            diff2 += (fd - dual) * (fd - dual);
            norm2 += dual * dual;
            ++common;
        }
        const double rel = sqrt(diff2 / fmax(norm2, 1e-30));
        worst = fmax(worst, rel);
        printf("  mixed beams, parameter %d: Jacobian vs differences %.2e over %zu beams\n", k, rel, common);
        CHECK(common >= 2);
    }
    REQUIRE_OK(ctx, lsim_fit_evaluate(fit, p, &loss, NULL));
    free(st0), free(sta), free(stb), free(ra), free(rb), free(jac);
    return worst;
}

static void gradient_check(lsim_context *ctx)
{
    lsim_scene *scene = room_with_post(ctx);
    lsim_sensor *truth = fit_urg(ctx, 0.40, -0.30, 12.0);
    size_t n;
    float *real = scan_ranges(ctx, scene, truth, 42, &n);
    lsim_sensor *s = fit_urg(ctx, 0.2, -0.1, 5.0);
    size_t mixed_count;
    uint8_t *mixed = mixed_beams(ctx, scene, 0.2, -0.1, 5.0, &mixed_count);
    lsim_fit *fit;
    REQUIRE_OK(ctx, lsim_fit_create(scene, s, LSIM_FIT_SE2, &fit));
    REQUIRE_OK(ctx, lsim_fit_set_scan(fit, real, n));
    const double all = gradient_vs_differences(ctx, fit, n, "SE(2), three rays");
    size_t used_mixed;
    const double worst = mixed_rows_vs_differences(ctx, fit, n, mixed, &used_mixed);
    printf("gradient check, three rays: all used beams %.2e; the %zu mixed beams used (of %zu mixed) %.2e\n", all,
           used_mixed, mixed_count, worst);
    CHECK(all < 1e-2);
    CHECK(used_mixed >= 2);
    CHECK(worst < 2e-2);
    lsim_fit_destroy(fit);
    free(mixed);
    lsim_sensor_destroy(s);
    lsim_sensor_destroy(truth);
    free(real);
    lsim_scene_destroy(scene);
}

static void localise(lsim_context *ctx)
{
    lsim_scene *scene = room_with_post(ctx);
    lsim_sensor *truth = fit_urg(ctx, 0.40, -0.30, 12.0);
    size_t n;
    float *real = scan_ranges(ctx, scene, truth, 42, &n);
    lsim_sensor *s = fit_urg(ctx, 0.0, 0.0, 0.0);
    lsim_fit *fit;
    REQUIRE_OK(ctx, lsim_fit_create(scene, s, LSIM_FIT_SE2, &fit));
    REQUIRE_OK(ctx, lsim_fit_set_scan(fit, real, n));
    lsim_fit_result res;
    REQUIRE_OK(ctx, lsim_fit_run(fit, 100, NULL, NULL, &res));
    double p[3];
    REQUIRE_OK(ctx, lsim_fit_get_parameters(fit, p));
    const double ex = p[0] - 0.40, ey = p[1] - (-0.30), eyaw = p[2] / (3.14159265358979323846 / 180.0) - 12.0;
    size_t mixed_count;
    uint8_t *mixed = mixed_beams(ctx, scene, p[0], p[1], p[2] / (3.14159265358979323846 / 180.0), &mixed_count);
    uint8_t *status = malloc(n);
    if (!status)
        exit(1);
    REQUIRE_OK(ctx, lsim_fit_get_residuals(fit, n, status, NULL, NULL));
    size_t used_mixed = 0;
    for (size_t i = 0; i < n; ++i)
        used_mixed += mixed[i] && status[i] == LSIM_FIT_BEAM_USED;
    printf("three-ray fit from (0, 0, 0 deg): error before %.1f mm / 12 deg, after %.3f mm / %.4f deg, %d iterations, "
           "%d scans, %zu beams used (%zu of the %zu mixed pixels), rms %.2f mm, stop %d\n",
           1e3 * hypot(0.40, 0.30), 1e3 * hypot(ex, ey), eyaw, res.iterations, res.evaluations, res.beams_used,
           used_mixed, mixed_count, 1e3 * res.rms_residual_m, (int)res.stop);
    CHECK(hypot(ex, ey) < 0.01);
    CHECK(fabs(eyaw) < 0.2);
    CHECK(res.stop == LSIM_FIT_CONVERGED);
    CHECK(mixed_count >= 2 && used_mixed >= 2);
    free(status);
    free(mixed);
    lsim_fit_destroy(fit);
    lsim_sensor_destroy(s);
    lsim_sensor_destroy(truth);
    free(real);
    lsim_scene_destroy(scene);
}

static void pulsed_refused(lsim_context *ctx)
{
    lsim_scene *scene = room_with_post(ctx);
    lsim_sensor *s = fit_urg(ctx, 0.0, 0.0, 0.0);
    REQUIRE_OK(ctx, lsim_sensor_set_cw_receiver(s, NULL, 0, 0, NULL));
    lsim_fit *fit = NULL;
    CHECK(lsim_fit_create(scene, s, LSIM_FIT_SE2, &fit) == LSIM_ERR_INVALID_ARGUMENT && fit == NULL);
    CHECK(strstr(lsim_context_last_error(ctx), "beam.mode rays with a pulsed receiver") != NULL);
    lsim_sensor_destroy(s);
    lsim_scene_destroy(scene);
}

int main(void)
{
    lsim_context *ctx;
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    gradient_check(ctx);
    localise(ctx);
    pulsed_refused(ctx);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_fit_subrays");
}
