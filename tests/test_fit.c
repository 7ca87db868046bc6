/* Fitting (issue 11, first part): the cw paper's experiment 1, localising a URG-04LX in a known
 * cuboid room from one noisy scan, and the fit's gradient against finite differences.
 * - The "real" scan is lidarsim's own, with noise (the CW receiver's sample noise), from a true
 *   pose the fit does not know: (0.40, -0.30) m, yaw 12 deg; the fit starts at (0, 0), yaw 0.
 *   It must reach the true pose within 1 cm and 0.2 deg in at most 34 L-BFGS iterations (the
 *   paper's count).
 * - The loss gradient from the dual re-trace agrees with central differences of the loss (scans
 *   at perturbed poses) within 2 % (SE(2): 0.2 %; SE(3) with the sensor tilted onto floor and ceiling: 0.9 %).
 * - Bad use is a clear error: a scan of the wrong length, a scene with a mirror, a bad dof. */
#include "fit_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEG (3.14159265358979323846 / 180.0)

/* The fit room with a 0.3 m square post at (2, 1.2). */
static lsim_scene *room(lsim_context *ctx)
{
    const double post[3] = {0.3, 0.3, 3.0};
    return fit_room(ctx, post, 2.0, 1.2);
}

static float *real_scan(lsim_context *ctx, lsim_scene *scene, size_t *count)
{
    lsim_sensor *truth = fit_urg(ctx, 0.40, -0.30, 12.0);
    float *r = scan_ranges(ctx, scene, truth, 42, count);
    CHECK(*count == lsim_sensor_beam_count(truth));
    lsim_sensor_destroy(truth);
    return r;
}

static void progress(void *user, int iteration, double loss)
{
    (void)user;
    printf("  iteration %2d: loss %.6g m^2\n", iteration, loss);
}

static void experiment_1(lsim_context *ctx)
{
    lsim_scene *scene = room(ctx);
    size_t n;
    float *real = real_scan(ctx, scene, &n);
    lsim_sensor *s = fit_urg(ctx, 0.0, 0.0, 0.0);
    lsim_fit *fit;
    REQUIRE_OK(ctx, lsim_fit_create(scene, s, LSIM_FIT_SE2, &fit));
    REQUIRE_OK(ctx, lsim_fit_set_scan(fit, real, n));
    lsim_fit_result res;
    REQUIRE_OK(ctx, lsim_fit_run(fit, 100, progress, NULL, &res));
    double p[3];
    REQUIRE_OK(ctx, lsim_fit_get_parameters(fit, p));
    const double ex = p[0] - 0.40, ey = p[1] + 0.30, eyaw = (p[2] / DEG) - 12.0;
    printf("experiment 1: %d iterations (%d scans), %.0f ms; pose (%.4f, %.4f) m, yaw %.3f deg; error %.2f mm, %.3f "
           "deg; rms residual %.2f mm over %zu beams, %zu at silhouettes; loss %.4g -> %.4g (L-BFGS %d)\n",
           res.iterations, res.evaluations, res.wall_ms, p[0], p[1], p[2] / DEG, 1e3 * hypot(ex, ey), eyaw,
           1e3 * res.rms_residual_m, res.beams_used, res.silhouette_beams, res.initial_loss, res.final_loss,
           res.lbfgs_status);
    CHECK(hypot(ex, ey) < 0.01);
    CHECK(fabs(eyaw) < 0.2);
    CHECK(res.iterations <= 34);
    CHECK(res.silhouette_beams > 0 && res.beams_used > 500);
    CHECK(res.stop == LSIM_FIT_CONVERGED);
    lsim_fit_destroy(fit);
    lsim_sensor_destroy(s);
    free(real);
    lsim_scene_destroy(scene);
}

static void gradient_check(lsim_context *ctx, lsim_fit_pose dof)
{
    lsim_scene *scene = room(ctx);
    size_t n;
    float *real = real_scan(ctx, scene, &n);
    /* SE(3): tilted, so that its beams also meet the floor and the ceiling, and every partial counts */
    lsim_sensor *s =
        dof == LSIM_FIT_SE2 ? fit_urg(ctx, 0.2, -0.1, 5.0) : fit_urg_tilted(ctx, 0.2, -0.1, 8.0, 25.0, 5.0);
    lsim_fit *fit;
    REQUIRE_OK(ctx, lsim_fit_create(scene, s, dof, &fit));
    REQUIRE_OK(ctx, lsim_fit_set_scan(fit, real, n));
    CHECK(gradient_vs_differences(ctx, fit, n, dof == LSIM_FIT_SE2 ? "SE(2)" : "SE(3)") < 1e-2);
    lsim_fit_destroy(fit);
    lsim_sensor_destroy(s);
    free(real);
    lsim_scene_destroy(scene);
}

/* Checkerboards of black (0.1) and white (0.8) Lambertian stripes, 0.1 m wide, at 1.0, 1.8 and
 * 2.6 m (in front, left and right of the sensor), so the amplitudes take six levels. */
static lsim_scene *checkerboards(lsim_context *ctx, double black, double white)
{
    lsim_scene *scene = test_scene_new(ctx, "black", black);
    REQUIRE_OK(ctx, lsim_scene_add_lambertian(scene, "white", white));
    const struct { double d, yaw; } boards[3] = {{1.0, 0.0}, {1.8, 90.0}, {2.6, -90.0}};
    for (int b = 0; b < 3; ++b)
        for (int k = -6; k < 6; ++k) {
            lsim_object_desc desc;
            lsim_object_desc_init(&desc);
            const double c = cos(boards[b].yaw * DEG), sn = sin(boards[b].yaw * DEG), along = (k + 0.5) * 0.1;
            desc.position[0] = boards[b].d * c - along * sn;
            desc.position[1] = boards[b].d * sn + along * c;
            desc.position[2] = 1.0;
            desc.rotation_deg[2] = boards[b].yaw;
            desc.material = (k & 1) ? "black" : "white";
            const double size[3] = {0.02, 0.1, 0.5};
            REQUIRE_OK(ctx, lsim_scene_add_box(scene, size, &desc));
        }
    return scene;
}

static double bias_at(const double c[3], double l) { return c[0] + c[1] * l + c[2] * l * l; }

/* The cw paper's experiment 4: both reflectances and the range-radiance bias polynomial from one
 * scan's ranges and amplitudes, the pose known. */
static void experiment_4(lsim_context *ctx)
{
    const double truth[3] = {0.01, 0.3, -0.2}, freq[2] = {46.55e6, 53.2e6};
    lsim_scene *real_scene = checkerboards(ctx, 0.1, 0.8);
    lsim_sensor *truth_sensor = fit_urg(ctx, 0.0, 0.0, 0.0);
    REQUIRE_OK(ctx, lsim_sensor_set_cw_receiver(truth_sensor, freq, 30, 15, truth));
    lsim_points *p = noisy_scan(ctx, real_scene, truth_sensor, 9);
    const size_t n = lsim_points_count(p);
    const float *range = lsim_points_column(p, LSIM_FIELD_RANGE), *amp = lsim_points_column(p, LSIM_FIELD_INTENSITY);

    lsim_scene *scene = checkerboards(ctx, 0.5, 0.5); /* the fit starts from grey boards and no bias */
    lsim_sensor *s = fit_urg(ctx, 0.0, 0.0, 0.0);
    const double none[3] = {0, 0, 0};
    REQUIRE_OK(ctx, lsim_sensor_set_cw_receiver(s, freq, 30, 15, none));
    lsim_fit *fit;
    REQUIRE_OK(ctx, lsim_fit_create(scene, s, LSIM_FIT_FIXED, &fit));
    REQUIRE_OK(ctx, lsim_fit_set_scan(fit, range, n));
    REQUIRE_OK(ctx, lsim_fit_set_scan_intensity(fit, amp, n, 1.0));
    REQUIRE_OK(ctx, lsim_fit_add_reflectance(fit, "black"));
    REQUIRE_OK(ctx, lsim_fit_add_reflectance(fit, "white"));
    REQUIRE_OK(ctx, lsim_fit_add_cw_bias(fit));
    CHECK(lsim_fit_parameter_count(fit) == 5);
    lsim_fit_result res;
    REQUIRE_OK(ctx, lsim_fit_run(fit, 200, NULL, NULL, &res));
    double q[5];
    REQUIRE_OK(ctx, lsim_fit_get_parameters(fit, q));
    /* the staircase: the bias's range step between a white and a black stripe at 1 m, head-on */
    const double m_per_rad = 299792458.0 / (8 * 3.14159265358979323846) * (1 / freq[0] + 1 / freq[1]);
    const double step_true = m_per_rad * (bias_at(truth, 0.8) - bias_at(truth, 0.1));
    const double step_fit = m_per_rad * (bias_at(q + 2, q[1]) - bias_at(q + 2, q[0]));
    printf("experiment 4: %d iterations, %.0f ms; reflectances %.4f (0.1) and %.4f (0.8); bias %.4f %.4f %.4f (%.2f "
           "%.2f %.2f); staircase at 1 m %.2f mm (true %.2f mm); rms residual %.2f mm over %zu beams, %zu at "
           "silhouettes\n", res.iterations, res.wall_ms, q[0], q[1], q[2], q[3], q[4], truth[0], truth[1], truth[2],
           1e3 * step_fit, 1e3 * step_true, 1e3 * res.rms_residual_m, res.beams_used, res.silhouette_beams);
    CHECK(fabs(q[0] / 0.1 - 1) < 0.05);
    CHECK(fabs(q[1] / 0.8 - 1) < 0.05);
    CHECK(fabs(step_fit / step_true - 1) < 0.05);
    CHECK(res.iterations <= 34);
    CHECK(res.rms_residual_m < 0.01); /* down to the scan's noise */
    /* the gradient with respect to reflectances and the bias, at a point away from the optimum */
    double at[5] = {0.3, 0.6, 0.05, 0.1, 0.1}, g[5], loss, worst = 0.0;
    REQUIRE_OK(ctx, lsim_fit_evaluate(fit, at, &loss, g));
    for (int k = 0; k < 5; ++k) {
        double a[5], b[5], la, lb;
        memcpy(a, at, sizeof a);
        memcpy(b, at, sizeof b);
        /* a step the float ranges can resolve (1e-6 would move them by less than a float ulp) */
        a[k] += 1e-3;
        b[k] -= 1e-3;
        REQUIRE_OK(ctx, lsim_fit_evaluate(fit, a, &la, NULL));
        REQUIRE_OK(ctx, lsim_fit_evaluate(fit, b, &lb, NULL));
        const double fd = (la - lb) / 2e-3;
        worst = fmax(worst, fabs(g[k] - fd) / fmax(fabs(fd), 1e-3 * loss));
        printf("  parameter %d: dual %.6g, finite differences %.6g\n", k, g[k], fd);
        CHECK(fabs(g[k]) > 1e-4 * loss);
    }
    printf("gradient check, reflectances and bias: worst relative difference %.2e (loss %.4g)\n", worst, loss);
    CHECK(worst < 0.02);
    lsim_fit_destroy(fit);
    lsim_sensor_destroy(s);
    lsim_scene_destroy(scene);
    lsim_points_destroy(p);
    lsim_sensor_destroy(truth_sensor);
    lsim_scene_destroy(real_scene);
}

static void bad_use(lsim_context *ctx)
{
    lsim_scene *scene = room(ctx);
    lsim_sensor *s = fit_urg(ctx, 0, 0, 0);
    lsim_fit *fit;
    CHECK(lsim_fit_create(scene, s, (lsim_fit_pose)4, &fit) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "dof") != NULL);
    REQUIRE_OK(ctx, lsim_fit_create(scene, s, LSIM_FIT_SE2, &fit));
    float short_scan[10] = {1};
    CHECK(lsim_fit_set_scan(fit, short_scan, 10) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "682 beams") != NULL);
    lsim_fit_result res;
    CHECK(lsim_fit_run(fit, 0, NULL, NULL, &res) == LSIM_ERR_INVALID_ARGUMENT);
    lsim_fit_destroy(fit);
    lsim_object_desc desc;
    lsim_object_desc_init(&desc);
    desc.name = "panel";
    desc.position[0] = -1.5;
    const double size[2] = {1, 1};
    REQUIRE_OK(ctx, lsim_scene_add_plane(scene, size, &desc));
    CHECK(lsim_scene_add_plane(scene, size, &desc) == LSIM_ERR_INVALID_ARGUMENT); /* the name is taken */
    CHECK(strstr(lsim_context_last_error(ctx), "'panel' is used by another object") != NULL);
    desc.name = "bad name";
    CHECK(lsim_scene_add_plane(scene, size, &desc) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "character 4") != NULL);
    REQUIRE_OK(ctx, lsim_fit_create(scene, s, LSIM_FIT_SE2, &fit));
    CHECK(lsim_fit_add_object_pose(fit, "door", LSIM_FIT_SE2) == LSIM_ERR_NOT_FOUND);
    CHECK(strstr(lsim_context_last_error(ctx), "no object named 'door'") != NULL &&
          strstr(lsim_context_last_error(ctx), "panel") != NULL);
    CHECK(lsim_fit_add_reflectance(fit, "chalk") == LSIM_ERR_NOT_FOUND);
    CHECK(strstr(lsim_context_last_error(ctx), "(materials: default") != NULL);
    REQUIRE_OK(ctx, lsim_fit_add_object_pose(fit, "panel", LSIM_FIT_SE2));
    CHECK(lsim_fit_add_object_pose(fit, "panel", LSIM_FIT_SE2) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_fit_add_object_pose(fit, "panel", LSIM_FIT_SE3) == LSIM_ERR_INVALID_ARGUMENT); /* 3 + 6 > 8 */
    CHECK(lsim_fit_parameter_count(fit) == 6);
    char name[64];
    REQUIRE_OK(ctx, lsim_fit_parameter_name(fit, 5, name, sizeof name));
    CHECK(strcmp(name, "object.panel.yaw") == 0);
    REQUIRE_OK(ctx, lsim_fit_parameter_name(fit, 2, name, sizeof name));
    CHECK(strcmp(name, "sensor.yaw") == 0);
    CHECK(lsim_fit_set_bounds(fit, 3, -1.0, -2.0) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_fit_set_bounds(fit, 3, 0.0, 1.0) == LSIM_ERR_INVALID_ARGUMENT); /* starts at -1.5, outside */
    CHECK(strstr(lsim_context_last_error(ctx), "object.panel.x starts at -1.5") != NULL);
    REQUIRE_OK(ctx, lsim_fit_set_bounds(fit, 3, -2.0, -1.0));
    double p[6];
    REQUIRE_OK(ctx, lsim_fit_get_parameters(fit, p));
    p[3] = -0.5;
    CHECK(lsim_fit_set_parameters(fit, p, 6) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "object.panel.x = -0.5 is outside its bounds [-2, -1]") != NULL);
    CHECK(lsim_fit_set_parameters(fit, p, 5) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_fit_set_loss(fit, LSIM_FIT_LOSS_HUBER, 0.0) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_fit_set_loss(fit, (lsim_fit_loss)7, 1.0) == LSIM_ERR_INVALID_ARGUMENT);
    REQUIRE_OK(ctx, lsim_fit_set_loss(fit, LSIM_FIT_LOSS_CAUCHY, 0.05));
    lsim_fit_destroy(fit);
    lsim_sensor_destroy(s);
    lsim_scene_destroy(scene);
}

/* A room of one Lambertian material of reflectance `rho`, its name "wall". */
static lsim_scene *wall_room(lsim_context *ctx, double rho)
{
    lsim_scene *scene = test_scene_new(ctx, "wall", rho);
    const lsim_object_desc desc = test_object("wall", NULL, 0.5, 0.0, 1.0);
    const double size[3] = {6.0, 4.0, 3.0};
    REQUIRE_OK(ctx, lsim_scene_add_box(scene, size, &desc));
    return scene;
}

/* Limits the fit keeps: a reflectance whose truth is 1 is fitted at most 1 (L-BFGS works on its
 * log, unbounded above); an evaluation that fails (NaN) changes neither the scene nor the
 * parameters; a scene changed after the fit was made is an error, not a read past its arrays. */
static void limits(lsim_context *ctx)
{
    lsim_scene *truth = wall_room(ctx, 1.0), *model = wall_room(ctx, 0.9);
    lsim_sensor *s = fit_urg(ctx, 0.2, 0.1, 5.0);
    lsim_points *p = noisy_scan(ctx, truth, s, 3);
    const size_t n = lsim_points_count(p);
    lsim_fit *fit;
    REQUIRE_OK(ctx, lsim_fit_create(model, s, LSIM_FIT_FIXED, &fit));
    REQUIRE_OK(ctx, lsim_fit_set_scan(fit, lsim_points_column(p, LSIM_FIELD_RANGE), n));
    REQUIRE_OK(ctx, lsim_fit_set_scan_intensity(fit, lsim_points_column(p, LSIM_FIELD_INTENSITY), n, 1.0));
    REQUIRE_OK(ctx, lsim_fit_add_reflectance(fit, "wall"));
    lsim_fit_result res;
    REQUIRE_OK(ctx, lsim_fit_run(fit, 100, NULL, NULL, &res));
    double rho;
    REQUIRE_OK(ctx, lsim_fit_get_parameters(fit, &rho));
    printf("reflectance 1.0 fitted from 0.9: %.4f (%d iterations)\n", rho, res.iterations);
    CHECK(rho <= 1.0 && rho > 0.95);
    const double bad = NAN;
    double loss;
    CHECK(lsim_fit_evaluate(fit, &bad, &loss, NULL) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "material.wall.reflectance = nan") != NULL);
    double after;
    REQUIRE_OK(ctx, lsim_fit_get_parameters(fit, &after));
    CHECK(after == rho);
    REQUIRE_OK(ctx, lsim_scene_add_lambertian(model, "paint", 0.3));
    CHECK(lsim_fit_evaluate(fit, &rho, &loss, NULL) == LSIM_ERR_STATE);
    CHECK(strstr(lsim_context_last_error(ctx), "make the fit after the scene is complete") != NULL);
    CHECK(lsim_fit_add_reflectance(fit, "paint") == LSIM_ERR_STATE);
    lsim_fit_destroy(fit);
    lsim_points_destroy(p);
    lsim_sensor_destroy(s);
    lsim_scene_destroy(truth);
    lsim_scene_destroy(model);
}

int main(void)
{
    lsim_context *ctx;
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    experiment_1(ctx);
    experiment_4(ctx);
    gradient_check(ctx, LSIM_FIT_SE2);
    gradient_check(ctx, LSIM_FIT_SE3);
    bad_use(ctx);
    limits(ctx);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_fit");
}
