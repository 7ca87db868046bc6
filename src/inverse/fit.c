/* lsim_fit_*: the sensor's pose from a real scan by L-BFGS over gradients of the simulation
 * (issue 11, first part; README "Fitting").
 *
 * An evaluation scans the scene from the pose the parameters give (noise off, one row per beam,
 * world frame) and re-traces every usable beam's return with dual numbers
 * (optics/path_dual.h): the ray from the dual sensor pose meets the tangent plane of the surface
 * it hit. Loss = sum (r_sim - r_real)^2 over beams where both the simulation and the real scan
 * have a return and the beam is not at a silhouette; its gradient = sum 2 (r_sim - r_real) dr/dp.
 * A beam is at a silhouette when a neighbour of its ring (the previous or next beam of that ring)
 * misses, hits another object, or lies more than 10 % nearer or farther: a small change of the
 * parameters could make it hit something else, where no derivative exists. */
#include "core/context.h"
#include "core/clock.h"
#include "core/dual.h"
#include "core/vec.h"
#include "lidarsim.h"
#include "optics/path_dual.h"
#include "scene/scene.h"
#include "sensor/sensor.h"

#include <lbfgs.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SILHOUETTE_JUMP 0.10
#define MAX_PARAMS LSIM_DUAL_N
#define C_LIGHT 299792458.0

struct lsim_fit {
    lsim_context *ctx;
    lsim_scene *scene;
    lsim_sensor *sensor;
    int dof;                /* 0: pose kept; 3: x, y, yaw; 6: x, y, z, roll, pitch, yaw */
    double base_pos[3], base_rpy[3]; /* the pose the kept coordinates come from (rpy in radians) */
    int count;              /* parameters: dof, then reflectances, then the bias (3) */
    double params[MAX_PARAMS];
    int n_refl;             /* reflectance parameters: material index of each */
    uint32_t refl_material[MAX_PARAMS];
    int *refl_of_material;  /* [material_count]: its parameter index, -1 */
    int bias_at;            /* parameter index of c0 (-1: the bias is kept) */
    float *real_amp;        /* [beams] or NULL: amplitudes to fit */
    double amp_weight;
    size_t beams, stride;   /* stride: from a beam to the next beam of its ring */
    float *real;            /* [beams] */
    double *dir, *org;      /* [3 beams]: beam direction and origin, sensor frame */
    lsim_points *points;
    lsim_scan_options opt;
    size_t used, silhouettes;
    double range_sq;        /* sum of squared range residuals (the loss without the amplitude terms) */
    int evaluations;
    void (*progress)(void *, int, double);
    void *user;
};

static lsim_status fail(lsim_fit *f, lsim_status st, const char *msg) { return lsim_fail(f->ctx, st, "%s", msg); }

void lsim_fit_destroy(lsim_fit *fit)
{
    if (!fit)
        return;
    free(fit->real);
    free(fit->real_amp);
    free(fit->refl_of_material);
    free(fit->dir);
    free(fit->org);
    lsim_points_destroy(fit->points);
    free(fit);
}

lsim_status lsim_fit_create(lsim_scene *scene, lsim_sensor *sensor, lsim_fit_pose dof, lsim_fit **out)
{
    if (!out || !scene || !sensor)
        return LSIM_ERR_INVALID_ARGUMENT;
    *out = NULL;
    lsim_context *ctx = scene->ctx;
    if (dof != LSIM_FIT_FIXED && dof != LSIM_FIT_SE2 && dof != LSIM_FIT_SE3)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "fit: pose dof %d; valid: 0 (pose kept), 3 (SE(2): x, y, yaw), 6 (SE(3))", (int)dof);
    for (size_t i = 0; i < scene->object_count; ++i) {
        const lsim_brdf_kind k = scene->materials[scene->objects[i].material].brdf.kind;
        if (k == LSIM_BRDF_MIRROR || k == LSIM_BRDF_GLASS)
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "fit: object %zu (%s) is a mirror or glass; gradients through bounces are not wired to "
                             "the fit yet (issue 11), so scenes with them are refused", i, scene->objects[i].kind);
        if (scene->objects[i].motion)
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "fit: object %zu moves; the fit needs a static scene", i);
    }
    if (lsim_sensor_moves(sensor))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "fit: the sensor moves; the fit needs a static sensor");
    if (sensor->spec.receiver.max_returns != 1 || sensor->spec.beam.mode != LSIM_BEAM_SINGLE)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "fit: the sensor must report one return per beam from a single ray (receiver.max_returns 1, "
                         "beam.mode single)");
    lsim_fit *f = calloc(1, sizeof *f);
    if (!f)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory creating a fit");
    f->ctx = ctx;
    f->scene = scene;
    f->sensor = sensor;
    f->dof = (int)dof;
    f->count = f->dof;
    f->bias_at = -1;
    f->beams = lsim_sensor_beam_count(sensor);
    for (int a = 0; a < 3; ++a) {
        f->base_pos[a] = sensor->position[a];
        f->base_rpy[a] = sensor->rotation_deg[a] * LSIM_DEG;
    }
    if (f->dof == 3) {
        f->params[0] = f->base_pos[0];
        f->params[1] = f->base_pos[1];
        f->params[2] = f->base_rpy[2];
    } else if (f->dof == 6) {
        memcpy(f->params, f->base_pos, sizeof f->base_pos);
        memcpy(f->params + 3, f->base_rpy, sizeof f->base_rpy);
    }
    f->refl_of_material = malloc((scene->material_count ? scene->material_count : 1) * sizeof *f->refl_of_material);
    for (size_t m = 0; f->refl_of_material && m < scene->material_count; ++m)
        f->refl_of_material[m] = -1;
    const size_t n = f->beams ? f->beams : 1;
    f->real = calloc(n, sizeof *f->real);
    f->dir = malloc(3 * n * sizeof *f->dir);
    f->org = malloc(3 * n * sizeof *f->org);
    double *az = malloc(n * sizeof *az), *el = malloc(n * sizeof *el);
    uint16_t *ring = malloc(n * sizeof *ring);
    lsim_status st = f->real && f->dir && f->org && az && el && ring && f->refl_of_material ? LSIM_OK
                                                                     : fail(f, LSIM_ERR_OUT_OF_MEMORY, "out of memory for a fit");
    if (st == LSIM_OK)
        st = lsim_sensor_get_beams(sensor, az, el, NULL, ring);
    if (st == LSIM_OK)
        st = lsim_sensor_get_beam_origins(sensor, f->org);
    if (st == LSIM_OK)
        st = lsim_points_create(ctx, &f->points);
    for (size_t i = 0; st == LSIM_OK && i < f->beams; ++i) {
        const double ce = cos(el[i] * LSIM_DEG);
        f->dir[3 * i + 0] = ce * cos(az[i] * LSIM_DEG);
        f->dir[3 * i + 1] = ce * sin(az[i] * LSIM_DEG);
        f->dir[3 * i + 2] = sin(el[i] * LSIM_DEG);
    }
    f->stride = 1; /* the next beam of ring 0: a rotating sensor's next column */
    for (size_t i = 1; st == LSIM_OK && i < f->beams; ++i)
        if (ring[i] == ring[0]) {
            f->stride = i;
            break;
        }
    free(az);
    free(el);
    free(ring);
    lsim_scan_options_init(&f->opt);
    f->opt.noise = 0;
    f->opt.keep_misses = 1;
    f->opt.frame = LSIM_FRAME_WORLD;
    f->opt.fields = LSIM_FIELD_BIT(LSIM_FIELD_X) | LSIM_FIELD_BIT(LSIM_FIELD_Y) | LSIM_FIELD_BIT(LSIM_FIELD_Z) |
                    LSIM_FIELD_BIT(LSIM_FIELD_NX) | LSIM_FIELD_BIT(LSIM_FIELD_NY) | LSIM_FIELD_BIT(LSIM_FIELD_NZ) |
                    LSIM_FIELD_BIT(LSIM_FIELD_RANGE) | LSIM_FIELD_BIT(LSIM_FIELD_INSTANCE) |
                    LSIM_FIELD_BIT(LSIM_FIELD_INTENSITY);
    if (st != LSIM_OK) {
        lsim_fit_destroy(f);
        return st;
    }
    *out = f;
    return LSIM_OK;
}

lsim_status lsim_fit_set_scan(lsim_fit *fit, const float *range, size_t count)
{
    if (!fit || !range)
        return LSIM_ERR_INVALID_ARGUMENT;
    if (count != fit->beams)
        return lsim_fail(fit->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "fit: the real scan has %zu ranges but the sensor has %zu beams; give one range per beam in "
                         "its beam order (0 for no return)", count, fit->beams);
    for (size_t i = 0; i < count; ++i)
        fit->real[i] = isfinite(range[i]) && range[i] > 0.0f ? range[i] : 0.0f;
    return LSIM_OK;
}

lsim_status lsim_fit_set_scan_intensity(lsim_fit *fit, const float *intensity, size_t count, double weight_m2)
{
    if (!fit || !intensity)
        return LSIM_ERR_INVALID_ARGUMENT;
    if (count != fit->beams)
        return lsim_fail(fit->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "fit: the real scan has %zu intensities but the sensor has %zu beams", count, fit->beams);
    if (!(weight_m2 > 0.0 && weight_m2 <= 1e6))
        return lsim_fail(fit->ctx, LSIM_ERR_INVALID_ARGUMENT, "fit: intensity weight %g m^2; must be in (0, 1e6]",
                         weight_m2);
    if (!fit->real_amp && !(fit->real_amp = malloc((count ? count : 1) * sizeof *fit->real_amp)))
        return lsim_fail(fit->ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for the real intensities");
    for (size_t i = 0; i < count; ++i)
        fit->real_amp[i] = isfinite(intensity[i]) && intensity[i] > 0.0f ? intensity[i] : 0.0f;
    fit->amp_weight = weight_m2;
    return LSIM_OK;
}

lsim_status lsim_fit_add_reflectance(lsim_fit *fit, const char *material)
{
    if (!fit || !material)
        return LSIM_ERR_INVALID_ARGUMENT;
    const lsim_scene *scene = fit->scene;
    size_t m = 0;
    while (m < scene->material_count && strcmp(scene->materials[m].name, material) != 0)
        ++m;
    if (m == scene->material_count)
        return lsim_fail(fit->ctx, LSIM_ERR_NOT_FOUND, "fit: no material '%s' in the scene", material);
    if (scene->materials[m].brdf.kind != LSIM_BRDF_LAMBERTIAN || scene->materials[m].calibration)
        return lsim_fail(fit->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "fit: material '%s' is not plain Lambertian; only Lambertian reflectances can be fitted yet",
                         material);
    if (fit->refl_of_material[m] >= 0)
        return lsim_fail(fit->ctx, LSIM_ERR_INVALID_ARGUMENT, "fit: material '%s' is already a parameter", material);
    if (fit->count + 1 > MAX_PARAMS || fit->bias_at >= 0)
        return lsim_fail(fit->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "fit: add reflectances before the bias, and at most %d parameters in all", MAX_PARAMS);
    fit->refl_material[fit->n_refl++] = (uint32_t)m;
    fit->refl_of_material[m] = fit->count;
    fit->params[fit->count++] = scene->materials[m].brdf.reflectance;
    return LSIM_OK;
}

lsim_status lsim_fit_add_cw_bias(lsim_fit *fit)
{
    if (!fit)
        return LSIM_ERR_INVALID_ARGUMENT;
    const lsim_receiver_spec *r = &fit->sensor->spec.receiver;
    if (!r->cw)
        return lsim_fail(fit->ctx, LSIM_ERR_INVALID_ARGUMENT, "fit: the bias is the continuous-wave receiver's; this "
                         "sensor's receiver is pulsed");
    if (fit->bias_at >= 0 || fit->count + 3 > MAX_PARAMS)
        return lsim_fail(fit->ctx, LSIM_ERR_INVALID_ARGUMENT, "fit: the bias once, and at most %d parameters in all",
                         MAX_PARAMS);
    fit->bias_at = fit->count;
    for (int k = 0; k < 3; ++k)
        fit->params[fit->count++] = r->cw_bias[k];
    return LSIM_OK;
}

size_t lsim_fit_parameter_count(const lsim_fit *fit) { return fit ? (size_t)fit->count : 0; }

lsim_status lsim_fit_get_parameters(const lsim_fit *fit, double *params)
{
    if (!fit || !params)
        return LSIM_ERR_INVALID_ARGUMENT;
    memcpy(params, fit->params, (size_t)fit->count * sizeof *params);
    return LSIM_OK;
}

/* The pose of parameters p: position and rpy (radians), as values and as duals. */
static void pose_of(const lsim_fit *f, const double *p, double pos[3], double rpy[3], lsim_dual_pose *dual)
{
    lsim_dual q[6];
    if (f->dof == 0) {
        for (int a = 0; a < 3; ++a) {
            q[a] = lsim_dual_const(f->base_pos[a]);
            q[3 + a] = lsim_dual_const(f->base_rpy[a]);
        }
    } else if (f->dof == 3) {
        q[0] = lsim_dual_var(p[0], 0);
        q[1] = lsim_dual_var(p[1], 1);
        q[2] = lsim_dual_const(f->base_pos[2]);
        q[3] = lsim_dual_const(f->base_rpy[0]);
        q[4] = lsim_dual_const(f->base_rpy[1]);
        q[5] = lsim_dual_var(p[2], 2);
    } else {
        for (int k = 0; k < 6; ++k)
            q[k] = lsim_dual_var(p[k], k);
    }
    for (int a = 0; a < 3; ++a) {
        pos[a] = q[a].v;
        rpy[a] = q[3 + a].v;
    }
    const lsim_dual3 t = {q[0], q[1], q[2]};
    *dual = lsim_dual_pose_make(t, q[3], q[4], q[5]);
}

/* 1 if beam i's ring neighbour j (may be out of range) leaves i at a silhouette. */
static int breaks(const lsim_fit *f, const float *r, const uint32_t *inst, size_t i, long long j)
{
    if (j < 0 || (size_t)j >= f->beams)
        return 0; /* the frame's edge: no neighbour to compare with */
    return !(r[j] > 0.0f) || inst[j] != inst[i] || fabsf(r[j] - r[i]) > (float)SILHOUETTE_JUMP * r[i];
}

lsim_status lsim_fit_evaluate(lsim_fit *f, const double *params, double *loss, double *gradient)
{
    if (!f || !params || !loss)
        return LSIM_ERR_INVALID_ARGUMENT;
    double pos[3], rpy[3];
    lsim_dual_pose pose;
    pose_of(f, params, pos, rpy, &pose);
    for (int a = 0; a < 3; ++a)
        rpy[a] /= LSIM_DEG;
    lsim_status st = lsim_sensor_set_pose(f->sensor, pos, rpy);
    lsim_dual rho[MAX_PARAMS], c[3];
    for (int j = 0; j < f->n_refl; ++j) { /* the reflectances, kept physical */
        const int k = f->dof + j;
        const double v = params[k] < 1e-4 ? 1e-4 : params[k] > 1.0 ? 1.0 : params[k];
        rho[j] = params[k] == v ? lsim_dual_var(v, k) : lsim_dual_const(v);
        f->scene->materials[f->refl_material[j]].brdf.reflectance = v;
    }
    const lsim_receiver_spec *rx = &f->sensor->spec.receiver;
    double bias[3];
    for (int k = 0; k < 3; ++k) {
        bias[k] = f->bias_at >= 0 ? params[f->bias_at + k] : rx->cw_bias[k];
        c[k] = f->bias_at >= 0 ? lsim_dual_var(bias[k], f->bias_at + k) : lsim_dual_const(bias[k]);
    }
    if (st == LSIM_OK && f->bias_at >= 0)
        st = lsim_sensor_set_cw_receiver(f->sensor, rx->cw_freq_hz, rx->cw_samples, rx->cw_periods, bias);
    /* a CW range: the geometry plus the bias's phase as range, c b(L) / (4 pi f), both frequencies averaged */
    const double shift = rx->cw ? C_LIGHT / (8.0 * 3.14159265358979323846) * (1.0 / rx->cw_freq_hz[0] +
                                                                              1.0 / rx->cw_freq_hz[1]) : 0.0;
    if (st == LSIM_OK)
        st = lsim_scene_scan_into(f->scene, f->sensor, &f->opt, f->points);
    if (st != LSIM_OK)
        return st;
    if (lsim_points_count(f->points) != f->beams)
        return fail(f, LSIM_ERR_STATE, "fit: the scan did not give one row per beam");
    ++f->evaluations;
    memcpy(f->params, params, (size_t)f->count * sizeof *params);
    const float *x = lsim_points_column(f->points, LSIM_FIELD_X), *y = lsim_points_column(f->points, LSIM_FIELD_Y),
                *z = lsim_points_column(f->points, LSIM_FIELD_Z), *r = lsim_points_column(f->points, LSIM_FIELD_RANGE);
    const float *nx = lsim_points_column(f->points, LSIM_FIELD_NX), *ny = lsim_points_column(f->points, LSIM_FIELD_NY),
                *nz = lsim_points_column(f->points, LSIM_FIELD_NZ);
    const uint32_t *inst = lsim_points_column(f->points, LSIM_FIELD_INSTANCE);
    const float *amp = lsim_points_column(f->points, LSIM_FIELD_INTENSITY);
    double sum = 0.0, range_sq = 0.0, g[MAX_PARAMS] = {0};
    size_t used = 0, silhouettes = 0;
    for (size_t i = 0; i < f->beams; ++i) {
        if (!(r[i] > 0.0f) || !(f->real[i] > 0.0f))
            continue;
        const long long s = (long long)f->stride;
        if (breaks(f, r, inst, i, (long long)i - s) || breaks(f, r, inst, i, (long long)i + s)) {
            ++silhouettes;
            continue;
        }
        const lsim_dual3 ob = lsim_dual3_const(f->org + 3 * i), db = lsim_dual3_const(f->dir + 3 * i);
        const lsim_dual3 o = lsim_dual_pose_apply(&pose, ob), d = lsim_dual_pose_rotate(&pose, db);
        const lsim_path_vertex v = {LSIM_VERTEX_RETURN, {x[i], y[i], z[i]}, {nx[i], ny[i], nz[i]}, -1, 1.0};
        const lsim_path_dual p = lsim_path_dual_trace(o, d, &v, 1, NULL);
        if (!p.ok) {
            ++silhouettes; /* grazing: no derivative */
            continue;
        }
        /* the amplitude: rho cos / t^2 for a Lambertian surface whose reflectance is a parameter,
         * else the scan's own value (no derivative) */
        const lsim_object *obj = inst[i] >= 1 && inst[i] <= f->scene->object_count ? &f->scene->objects[inst[i] - 1]
                                                                                   : NULL;
        const int rk = obj && obj->instance == inst[i] ? f->refl_of_material[obj->material] : -1;
        lsim_dual amp_d = lsim_dual_const(amp[i]);
        if (rk >= 0) { /* the scan's amplitude, varying as rho cos / t^2 (what lidarsim's receiver saw) */
            const lsim_dual model = lsim_dual_div(lsim_dual_mul(rho[rk - f->dof], p.cos_incidence),
                                                  lsim_dual_mul(p.range, p.range));
            amp_d = lsim_dual_scale(model, model.v > 0.0 ? amp[i] / model.v : 0.0);
        }
        lsim_dual range = p.range;
        if (rx->cw) { /* + shift (c0 + c1 L + c2 L^2) */
            const lsim_dual b = lsim_dual_add(c[0], lsim_dual_add(lsim_dual_mul(c[1], amp_d),
                                                                  lsim_dual_mul(c[2], lsim_dual_mul(amp_d, amp_d))));
            range = lsim_dual_add(range, lsim_dual_scale(b, shift));
        }
        const double e = (double)r[i] - (double)f->real[i];
        sum += e * e;
        range_sq += e * e;
        for (int k = 0; k < f->count; ++k)
            g[k] += 2.0 * e * range.d[k];
        if (f->real_amp && f->real_amp[i] > 0.0f && amp[i] > 0.0f) { /* weight x relative amplitude error^2 */
            const double ea = ((double)amp[i] - f->real_amp[i]) / f->real_amp[i];
            sum += f->amp_weight * ea * ea;
            for (int k = 0; k < f->count; ++k)
                g[k] += 2.0 * f->amp_weight * ea * amp_d.d[k] / f->real_amp[i];
        }
        ++used;
    }
    f->used = used;
    f->silhouettes = silhouettes;
    f->range_sq = range_sq;
    *loss = sum;
    if (gradient)
        memcpy(gradient, g, (size_t)f->count * sizeof *g);
    return LSIM_OK;
}

/* L-BFGS works on log reflectance, so that a reflectance stays positive whatever the step. */
static int is_reflectance(const lsim_fit *f, int k) { return k >= f->dof && k < f->dof + f->n_refl; }

static void to_params(const lsim_fit *f, const lbfgsfloatval_t *x, double *p)
{
    for (int k = 0; k < f->count; ++k)
        p[k] = is_reflectance(f, k) ? exp(x[k]) : x[k];
}

typedef struct run_state {
    lsim_fit *fit;
    lsim_status status;
    int iterations;
} run_state;

static lbfgsfloatval_t evaluate_cb(void *user, const lbfgsfloatval_t *x, lbfgsfloatval_t *g, const int n,
                                   const lbfgsfloatval_t step)
{
    (void)step;
    run_state *rs = user;
    double p[MAX_PARAMS] = {0}, grad[MAX_PARAMS] = {0}, loss = 0.0;
    to_params(rs->fit, x, p);
    lsim_status st = lsim_fit_evaluate(rs->fit, p, &loss, grad);
    if (st != LSIM_OK) {
        rs->status = st;
        for (int k = 0; k < n; ++k)
            g[k] = 0.0;
        return HUGE_VAL;
    }
    for (int k = 0; k < n; ++k) /* reflectances are optimised as logs: d/du = rho d/drho */
        g[k] = is_reflectance(rs->fit, k) ? grad[k] * p[k] : grad[k];
    return loss;
}

static int progress_cb(void *user, const lbfgsfloatval_t *x, const lbfgsfloatval_t *g, const lbfgsfloatval_t fx,
                       const lbfgsfloatval_t xnorm, const lbfgsfloatval_t gnorm, const lbfgsfloatval_t step, int n,
                       int k, int ls)
{
    (void)x, (void)g, (void)xnorm, (void)gnorm, (void)step, (void)n, (void)ls;
    run_state *rs = user;
    rs->iterations = k;
    if (rs->fit->progress)
        rs->fit->progress(rs->fit->user, k, fx);
    return rs->status != LSIM_OK;
}

lsim_status lsim_fit_run(lsim_fit *fit, int max_iterations, void (*progress)(void *user, int iteration, double loss),
                         void *user, lsim_fit_result *result)
{
    if (!fit || !result)
        return LSIM_ERR_INVALID_ARGUMENT;
    if (max_iterations < 1 || max_iterations > 10000)
        return lsim_fail(fit->ctx, LSIM_ERR_INVALID_ARGUMENT, "fit: max_iterations %d; must be 1..10000", max_iterations);
    memset(result, 0, sizeof *result);
    const double t0 = lsim_now_ms();
    fit->progress = progress;
    fit->user = user;
    fit->evaluations = 0;
    lsim_status st = lsim_fit_evaluate(fit, fit->params, &result->initial_loss, NULL);
    if (st != LSIM_OK)
        return st;
    if (fit->used == 0)
        return fail(fit, LSIM_ERR_INVALID_ARGUMENT,
                    "fit: no beam has a return in both the simulation and the real scan away from silhouettes; check "
                    "the scan's beam order and the starting pose");
    lbfgs_parameter_t param;
    lbfgs_parameter_init(&param);
    param.max_iterations = max_iterations;
    param.epsilon = 1e-7;  /* |g| / max(1, |x|) */
    param.past = 3;        /* or the loss changed by less than delta over 3 iterations */
    param.delta = 1e-9;
    lbfgsfloatval_t x[MAX_PARAMS], fx = 0.0;
    for (int k = 0; k < fit->count; ++k)
        x[k] = is_reflectance(fit, k) ? log(fit->params[k] > 1e-4 ? fit->params[k] : 1e-4) : fit->params[k];
    run_state rs = {fit, LSIM_OK, 0};
    if (fit->count == 0)
        return fail(fit, LSIM_ERR_INVALID_ARGUMENT, "fit: nothing to fit (pose kept, no reflectance, no bias)");
    const int code = lbfgs(fit->count, x, &fx, evaluate_cb, progress_cb, &rs, &param);
    if (rs.status != LSIM_OK)
        return rs.status;
    double p[MAX_PARAMS] = {0}, loss;
    to_params(fit, x, p);
    st = lsim_fit_evaluate(fit, p, &loss, NULL); /* leave the sensor at the fit, with its statistics */
    if (st != LSIM_OK)
        return st;
    result->iterations = rs.iterations;
    result->evaluations = fit->evaluations;
    result->final_loss = loss;
    result->beams_used = fit->used;
    result->silhouette_beams = fit->silhouettes;
    result->rms_residual_m = fit->used ? sqrt(fit->range_sq / (double)fit->used) : 0.0;
    result->wall_ms = lsim_now_ms() - t0;
    result->lbfgs_status = code;
    /* a line search that cannot improve further at the noise floor is a stop, not a failure */
    if (code < 0 && code != LBFGSERR_ROUNDING_ERROR && code != LBFGSERR_MINIMUMSTEP && code != LBFGSERR_MAXIMUMSTEP &&
        code != LBFGSERR_MAXIMUMLINESEARCH && code != LBFGSERR_MAXIMUMITERATION)
        return lsim_fail(fit->ctx, LSIM_ERR_STATE, "fit: L-BFGS stopped with error %d (liblbfgs)", code);
    return LSIM_OK;
}
