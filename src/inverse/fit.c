/* lsim_fit_*: parameters of the simulation from a real scan by L-BFGS over gradients of the
 * simulation (issue 11; README "Fitting"). This file holds the fit's parameters: the sensor's
 * pose, named objects' poses, Lambertian reflectances, the CW bias; their names, start values,
 * bounds and the loss. fit_walk.c traces each beam's path, fit_eval.c differentiates it,
 * fit_run.c drives L-BFGS. */
#include "inverse/fit.h"

#include "core/context.h"
#include "core/vec.h"
#include "scene/scene.h"
#include "sensor/sensor.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const axis_name[6] = {"x", "y", "z", "roll", "pitch", "yaw"};

void lsim_fit_destroy(lsim_fit *fit)
{
    if (!fit)
        return;
    free(fit->real);
    free(fit->real_amp);
    free(fit->refl_of_material);
    free(fit->dir);
    free(fit->org);
    free(fit->ring);
    free(fit->path);
    free(fit->vertex);
    free(fit->vertex_object);
    free(fit->vertex_optical);
    free(fit->beam_status);
    free(fit->residual);
    free(fit->beam_loss);
    free(fit->prev_status);
    free(fit->prev_loss);
    free(fit->jacobian);
    free(fit->model);
    free(fit->model_vertex);
    lsim_fit_walk_free(fit);
    lsim_points_destroy(fit->points);
    free(fit);
}

static lsim_status check_scene(lsim_context *ctx, const lsim_scene *scene, const lsim_sensor *sensor)
{
    for (size_t i = 0; i < scene->object_count; ++i)
        if (scene->objects[i].motion && !scene->objects[i].posed)
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "fit: object %zu (%s) moves; the fit needs a static scene (named objects may be posed by "
                             "the fit instead)", i, scene->objects[i].kind);
    if (lsim_sensor_moves(sensor))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "fit: the sensor moves; the fit needs a static sensor");
    const lsim_beam_spec *b = &sensor->spec.beam;
    const int mixes = sensor->spec.receiver.cw && b->mode == LSIM_BEAM_RAYS; /* sub-rays: fit_mix.c */
    if (sensor->spec.receiver.max_returns != 1 || (b->mode != LSIM_BEAM_SINGLE && !mixes))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "fit: the sensor must report one return per beam (receiver.max_returns 1) from a single ray "
                         "(beam.mode single) or from sub-rays mixed by the continuous-wave receiver (beam.mode rays, "
                         "receiver.type cw); this one has beam.mode %s with a %s receiver",
                         b->mode == LSIM_BEAM_RAYS ? "rays" : b->mode == LSIM_BEAM_KERNEL ? "kernel" : "single",
                         sensor->spec.receiver.cw ? "continuous-wave" : "pulsed");
    return LSIM_OK;
}

/* Pose parameters of `dof` for the sensor (which -1) or a posed object's slot. */
static void add_pose_params(lsim_fit *f, fit_param_kind kind, int which, int dof, const double pose[6])
{
    static const int se2[3] = {0, 1, 5};
    for (int k = 0; k < dof; ++k) {
        fit_param *p = &f->param[f->count];
        memset(p, 0, sizeof *p);
        p->kind = kind;
        p->which = which;
        p->axis = dof == 3 ? se2[k] : k;
        f->params[f->count++] = pose[p->axis];
    }
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
    lsim_status st = check_scene(ctx, scene, sensor);
    if (st != LSIM_OK)
        return st;
    lsim_fit *f = calloc(1, sizeof *f);
    if (!f)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory creating a fit");
    f->ctx = ctx;
    f->scene = scene;
    f->sensor = sensor;
    f->beams = lsim_sensor_beam_count(sensor);
    for (int a = 0; a < 3; ++a) {
        f->sensor_pose[a] = sensor->position[a];
        f->sensor_pose[3 + a] = sensor->rotation_deg[a] * LSIM_DEG;
    }
    add_pose_params(f, FIT_SENSOR, -1, (int)dof, f->sensor_pose);
    f->refl_of_material = malloc((scene->material_count ? scene->material_count : 1) * sizeof *f->refl_of_material);
    for (size_t m = 0; f->refl_of_material && m < scene->material_count; ++m)
        f->refl_of_material[m] = -1;
    const size_t n = f->beams ? f->beams : 1;
    f->beam = sensor->spec.beam;
    lsim_subrays_make(&f->subrays, f->beam.divergence_mrad * 1e-3, f->beam.mode == LSIM_BEAM_RAYS ? f->beam.rings : 0,
                      f->beam.layout);
    f->sub = f->subrays.count;
    f->bias_gain = (double)f->sub;
    const size_t rays = n * (size_t)f->sub;
    f->real = calloc(n, sizeof *f->real);
    f->dir = malloc(3 * n * sizeof *f->dir);
    f->org = malloc(3 * n * sizeof *f->org);
    f->path = calloc(rays, sizeof *f->path);
    f->vertex = calloc(rays * LSIM_FIT_MAX_VERTICES, sizeof *f->vertex);
    f->vertex_object = calloc(rays * LSIM_FIT_MAX_VERTICES, sizeof *f->vertex_object);
    f->vertex_optical = calloc(rays * LSIM_FIT_MAX_VERTICES, sizeof *f->vertex_optical);
    f->beam_status = calloc(n, sizeof *f->beam_status);
    f->residual = calloc(n, sizeof *f->residual);
    f->beam_loss = calloc(n, sizeof *f->beam_loss);
    f->prev_status = calloc(n, sizeof *f->prev_status);
    f->prev_loss = calloc(n, sizeof *f->prev_loss);
    f->jacobian = calloc(n * LSIM_FIT_MAX_PARAMS, sizeof *f->jacobian);
    f->model = calloc(rays, sizeof *f->model);
    f->model_vertex = calloc(rays * LSIM_FIT_MAX_VERTICES, sizeof *f->model_vertex);
    double *az = malloc(n * sizeof *az), *el = malloc(n * sizeof *el);
    uint16_t *ring = f->ring = malloc(n * sizeof *ring);
    f->material_count = scene->material_count;
    f->object_count_at_create = scene->object_count;
    st = f->real && f->dir && f->org && f->path && f->vertex && f->vertex_object && f->vertex_optical && f->beam_status && f->residual && f->beam_loss && f->prev_status && f->prev_loss &&
                 f->jacobian && f->model && f->model_vertex && az && el && ring &&
                 f->refl_of_material
             ? LSIM_OK
             : lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for a fit of %zu beams", f->beams);
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
    lsim_scan_options_init(&f->opt);
    f->opt.noise = 0;
    f->opt.keep_misses = 1;
    f->opt.frame = LSIM_FRAME_WORLD;
    f->opt.fields = LSIM_FIELD_BIT(LSIM_FIELD_RANGE) | LSIM_FIELD_BIT(LSIM_FIELD_INTENSITY);
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

static lsim_status room_for(lsim_fit *fit, int more, const char *what)
{
    if (fit->count + more > LSIM_FIT_MAX_PARAMS)
        return lsim_fail(fit->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "fit: %s would make %d parameters; at most %d in all (pose dof included)", what,
                         fit->count + more, LSIM_FIT_MAX_PARAMS);
    return LSIM_OK;
}

lsim_status lsim_fit_check(const lsim_fit *f, const double *params)
{
    const lsim_beam_spec *b = &f->sensor->spec.beam;
    if (b->mode != f->beam.mode || b->layout != f->beam.layout || b->rings != f->beam.rings ||
        b->divergence_mrad != f->beam.divergence_mrad)
        return lsim_fail(f->ctx, LSIM_ERR_STATE, "fit: the sensor's beam (mode, layout, rings or divergence) changed "
                         "after the fit was made; make the fit after the sensor is complete");
    if (f->scene->material_count != f->material_count || f->scene->object_count != f->object_count_at_create)
        return lsim_fail(f->ctx, LSIM_ERR_STATE, "fit: the scene has %zu materials and %zu objects, but had %zu and "
                         "%zu when the fit was made; make the fit after the scene is complete",
                         f->scene->material_count, f->scene->object_count, f->material_count,
                         f->object_count_at_create);
    for (int k = 0; k < f->count; ++k) {
        const fit_param *p = &f->param[k];
        const int position = (p->kind == FIT_SENSOR || p->kind == FIT_OBJECT) && p->axis < 3;
        if (!(fabs(params[k]) <= (position ? 1e7 : 1e6))) { /* NaN fails too */
            char name[128];
            lsim_fit_parameter_name(f, (size_t)k, name, sizeof name);
            return lsim_fail(f->ctx, LSIM_ERR_INVALID_ARGUMENT, "fit: %s = %g; must be finite, within +-%s", name,
                             params[k], position ? "1e7 m" : "1e6");
        }
    }
    return LSIM_OK;
}

lsim_status lsim_fit_add_reflectance(lsim_fit *fit, const char *material)
{
    if (!fit || !material)
        return LSIM_ERR_INVALID_ARGUMENT;
    lsim_status cs = lsim_fit_check(fit, fit->params);
    if (cs != LSIM_OK)
        return cs;
    const lsim_scene *scene = fit->scene;
    const long m = lsim_scene_find_material(scene, material);
    if (m < 0) {
        char names[512] = "";
        size_t len = 0;
        for (size_t k = 0; k < scene->material_count && len + 2 < sizeof names; ++k) {
            const int w = snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "", scene->materials[k].name);
            len = w > 0 && len + (size_t)w < sizeof names ? len + (size_t)w : sizeof names - 1;
        }
        return lsim_fail(fit->ctx, LSIM_ERR_NOT_FOUND, "fit: no material '%s' in the scene (materials: %s)", material,
                         names);
    }
    if (scene->materials[m].brdf.kind != LSIM_BRDF_LAMBERTIAN || scene->materials[m].calibration)
        return lsim_fail(fit->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "fit: material '%s' is not plain Lambertian; only Lambertian reflectances can be fitted",
                         material);
    if (fit->refl_of_material[m] >= 0)
        return lsim_fail(fit->ctx, LSIM_ERR_INVALID_ARGUMENT, "fit: material '%s' is already a parameter", material);
    lsim_status st = room_for(fit, 1, "a reflectance");
    if (st != LSIM_OK)
        return st;
    fit_param *p = &fit->param[fit->count];
    memset(p, 0, sizeof *p);
    p->kind = FIT_REFLECTANCE;
    p->which = (int)m;
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
    if (fit->has_bias)
        return lsim_fail(fit->ctx, LSIM_ERR_INVALID_ARGUMENT, "fit: the bias is already a parameter");
    lsim_status st = room_for(fit, 3, "the bias (3 coefficients)");
    if (st != LSIM_OK)
        return st;
    fit->has_bias = 1;
    for (int k = 0; k < 3; ++k) {
        fit_param *p = &fit->param[fit->count];
        memset(p, 0, sizeof *p);
        p->kind = FIT_BIAS;
        p->which = k;
        fit->params[fit->count++] = r->cw_bias[k];
    }
    return LSIM_OK;
}

lsim_status lsim_fit_add_object_pose(lsim_fit *fit, const char *object, lsim_fit_pose dof)
{
    if (!fit || !object)
        return LSIM_ERR_INVALID_ARGUMENT;
    if (dof != LSIM_FIT_SE2 && dof != LSIM_FIT_SE3)
        return lsim_fail(fit->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "fit: object '%s' pose dof %d; valid: 3 (SE(2): x, y, yaw), 6 (SE(3))", object, (int)dof);
    double pos[3], rpy[3];
    lsim_status st = lsim_scene_get_object_pose(fit->scene, object, pos, rpy);
    if (st != LSIM_OK)
        return st;
    const long i = lsim_scene_find_object(fit->scene, object);
    for (int s = 0; s < fit->object_count; ++s)
        if (fit->objects[s].object == (uint32_t)i)
            return lsim_fail(fit->ctx, LSIM_ERR_INVALID_ARGUMENT, "fit: object '%s' is already a parameter", object);
    if (fit->object_count == LSIM_FIT_MAX_OBJECTS)
        return lsim_fail(fit->ctx, LSIM_ERR_INVALID_ARGUMENT, "fit: at most %d object poses", LSIM_FIT_MAX_OBJECTS);
    st = room_for(fit, (int)dof, "an object's pose");
    if (st == LSIM_OK) /* an instance from now on: later poses re-place it without a rebuild */
        st = lsim_scene_set_object_pose(fit->scene, object, pos, rpy);
    if (st != LSIM_OK)
        return st;
    fit_object *o = &fit->objects[fit->object_count];
    o->object = (uint32_t)i;
    for (int a = 0; a < 3; ++a) {
        o->pose[a] = pos[a];
        o->pose[3 + a] = rpy[a] * LSIM_DEG;
    }
    add_pose_params(fit, FIT_OBJECT, fit->object_count++, (int)dof, o->pose);
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

lsim_status lsim_fit_parameter_name(const lsim_fit *fit, size_t k, char *name, size_t size)
{
    if (!fit || !name || size == 0)
        return LSIM_ERR_INVALID_ARGUMENT;
    if (k >= (size_t)fit->count)
        return lsim_fail(fit->ctx, LSIM_ERR_INVALID_ARGUMENT, "fit: parameter %zu of %d", k, fit->count);
    const fit_param *p = &fit->param[k];
    int w = 0;
    switch (p->kind) {
    case FIT_SENSOR:
        w = snprintf(name, size, "sensor.%s", axis_name[p->axis]);
        break;
    case FIT_OBJECT:
        w = snprintf(name, size, "object.%s.%s", fit->scene->objects[fit->objects[p->which].object].name,
                     axis_name[p->axis]);
        break;
    case FIT_REFLECTANCE:
        w = snprintf(name, size, "material.%s.reflectance", fit->scene->materials[p->which].name);
        break;
    case FIT_BIAS:
        w = snprintf(name, size, "bias.c%d", p->which);
        break;
    }
    if (w < 0 || (size_t)w >= size)
        return lsim_fail(fit->ctx, LSIM_ERR_INVALID_ARGUMENT, "fit: parameter %zu's name needs %d bytes", k, w + 1);
    return LSIM_OK;
}

static int in_bounds(const fit_param *p, double v)
{
    if (p->kind == FIT_REFLECTANCE && !(v >= 1e-4 && v <= 1.0))
        return 0;
    return !p->bounded || (v >= p->lower && v <= p->upper);
}

lsim_status lsim_fit_set_parameters(lsim_fit *fit, const double *params, size_t count)
{
    if (!fit || !params)
        return LSIM_ERR_INVALID_ARGUMENT;
    if (count != (size_t)fit->count)
        return lsim_fail(fit->ctx, LSIM_ERR_INVALID_ARGUMENT, "fit: %zu values for %d parameters", count, fit->count);
    for (int k = 0; k < fit->count; ++k)
        if (!isfinite(params[k]) || !in_bounds(&fit->param[k], params[k])) {
            char name[128];
            lsim_fit_parameter_name(fit, (size_t)k, name, sizeof name);
            return lsim_fail(fit->ctx, LSIM_ERR_INVALID_ARGUMENT, "fit: %s = %g is outside its bounds [%g, %g]", name,
                             params[k], fit->param[k].kind == FIT_REFLECTANCE ? 1e-4 : fit->param[k].lower,
                             fit->param[k].kind == FIT_REFLECTANCE ? 1.0 : fit->param[k].upper);
        }
    memcpy(fit->params, params, count * sizeof *params);
    return LSIM_OK;
}

lsim_status lsim_fit_set_bounds(lsim_fit *fit, size_t k, double lower, double upper)
{
    if (!fit)
        return LSIM_ERR_INVALID_ARGUMENT;
    if (k >= (size_t)fit->count)
        return lsim_fail(fit->ctx, LSIM_ERR_INVALID_ARGUMENT, "fit: bounds for parameter %zu of %d", k, fit->count);
    char name[128];
    lsim_fit_parameter_name(fit, k, name, sizeof name);
    if (fit->param[k].kind == FIT_REFLECTANCE)
        return lsim_fail(fit->ctx, LSIM_ERR_INVALID_ARGUMENT, "fit: %s is kept within [1e-4, 1]; it takes no bounds",
                         name);
    if (!isfinite(lower) || !isfinite(upper) || !(lower < upper))
        return lsim_fail(fit->ctx, LSIM_ERR_INVALID_ARGUMENT, "fit: bounds [%g, %g] of %s must be finite, lower < upper",
                         lower, upper, name);
    if (!(fit->params[k] > lower && fit->params[k] < upper))
        return lsim_fail(fit->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "fit: %s starts at %g, not strictly inside its bounds [%g, %g]", name, fit->params[k], lower,
                         upper);
    fit->param[k].lower = lower;
    fit->param[k].upper = upper;
    fit->param[k].bounded = 1;
    return LSIM_OK;
}

lsim_status lsim_fit_set_loss(lsim_fit *fit, lsim_fit_loss loss, double scale_m)
{
    if (!fit)
        return LSIM_ERR_INVALID_ARGUMENT;
    if (loss != LSIM_FIT_LOSS_SQUARED && loss != LSIM_FIT_LOSS_HUBER && loss != LSIM_FIT_LOSS_CAUCHY)
        return lsim_fail(fit->ctx, LSIM_ERR_INVALID_ARGUMENT, "fit: loss %d; valid: 0 squared, 1 huber, 2 cauchy",
                         (int)loss);
    if (loss != LSIM_FIT_LOSS_SQUARED && !(scale_m > 0.0 && scale_m <= 1e3))
        return lsim_fail(fit->ctx, LSIM_ERR_INVALID_ARGUMENT, "fit: loss scale %g m; must be in (0, 1000]", scale_m);
    fit->loss = (int)loss;
    fit->loss_scale = scale_m;
    return LSIM_OK;
}

void lsim_fit_poses(const lsim_fit *f, const double *params, lsim_dual q[][6])
{
    for (int a = 0; a < 6; ++a)
        q[0][a] = lsim_dual_const(f->sensor_pose[a]);
    for (int s = 0; s < f->object_count; ++s)
        for (int a = 0; a < 6; ++a)
            q[1 + s][a] = lsim_dual_const(f->objects[s].pose[a]);
    for (int k = 0; k < f->count; ++k) {
        const fit_param *p = &f->param[k];
        if (p->kind == FIT_SENSOR)
            q[0][p->axis] = lsim_dual_var(params[k], k);
        else if (p->kind == FIT_OBJECT)
            q[1 + p->which][p->axis] = lsim_dual_var(params[k], k);
    }
}

lsim_status lsim_fit_get_residuals(const lsim_fit *fit, size_t beams, uint8_t *status, float *residual,
                                   double *jacobian)
{
    if (!fit)
        return LSIM_ERR_INVALID_ARGUMENT;
    if (beams != fit->beams)
        return lsim_fail(fit->ctx, LSIM_ERR_INVALID_ARGUMENT, "fit: residuals for %zu beams; the sensor has %zu", beams,
                         fit->beams);
    if (status)
        memcpy(status, fit->beam_status, beams * sizeof *status);
    if (residual)
        memcpy(residual, fit->residual, beams * sizeof *residual);
    for (size_t i = 0; jacobian && i < beams; ++i)
        memcpy(jacobian + i * (size_t)fit->count, fit->jacobian + i * LSIM_FIT_MAX_PARAMS,
               (size_t)fit->count * sizeof *jacobian);
    return LSIM_OK;
}
