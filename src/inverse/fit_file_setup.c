/* The fit file turned into an lsim_fit (fit_file.h): the scene loaded, the real scan read, each
 * parameter added with its start value and bounds, every library error reported at the fit
 * file's key (FILE:LINE:COL). */
#include "inverse/fit_file.h"

#include "core/context.h"
#include "core/text.h"
#include "optics/brdf.h"
#include "scene/scene.h"

#include <stdio.h>
#include <string.h>

/* The fit's parameter names of the pose axes, in lsim_fit_file_axis_keys's order. */
static const char *const axis_names[6] = {"x", "y", "z", "roll", "pitch", "yaw"};

/* Report the context's last error (a library message) at a node of the fit file. */
static lsim_status at(lsim_fit_file *f, yaml_node_t *node, const char *key, lsim_status st)
{
    if (st == LSIM_OK)
        return st;
    char msg[LSIM_ERROR_MAX];
    lsim_strlcpy(msg, lsim_context_last_error(f->y.ctx), sizeof msg);
    const char *text = strncmp(msg, "fit: ", 5) == 0 ? msg + 5 : msg;
    return lsim_yaml_fail(&f->y, node, st == LSIM_ERR_OUT_OF_MEMORY ? st : LSIM_ERR_PARSE, key, "%s", text);
}

lsim_status lsim_fit_file_load_scene(lsim_fit_file *f, lsim_scene **scene, lsim_sensor **sensor)
{
    *scene = NULL;
    *sensor = NULL;
    return at(f, f->scene_node, "scene", lsim_scene_load(f->y.ctx, f->scene, scene, sensor));
}

/* The fit file's entry behind parameter `name` (lsim_fit_parameter_name): its start value, bounds and
 * nodes. 0 when the name is none of the file's (cannot happen: the file added them). */
typedef struct entry {
    int has_initial, has_bounds;
    double initial, lower, upper;
    yaml_node_t *initial_node, *bounds_node, *node;
    char key[300];
} entry;

static int pose_entry(const lsim_fit_file_pose *p, const char *axis, const char *prefix, entry *e)
{
    for (int a = 0; a < 6; ++a)
        if (strcmp(axis, axis_names[a]) == 0) {
            e->has_initial = p->has_initial[a];
            e->initial = p->initial[a];
            e->initial_node = p->initial_node[a];
            e->has_bounds = p->has_bounds[a];
            e->lower = p->lower[a];
            e->upper = p->upper[a];
            e->bounds_node = p->bounds_node[a];
            e->node = p->node;
            snprintf(e->key, sizeof e->key, "%s.bounds.%s", prefix, lsim_fit_file_axis_keys[a]);
            return 1;
        }
    return 0;
}

static int find_entry(const lsim_fit_file *f, const char *name, entry *e)
{
    memset(e, 0, sizeof *e);
    if (strncmp(name, "sensor.", 7) == 0)
        return f->has_sensor && pose_entry(&f->sensor, name + 7, "parameters.sensor", e);
    if (strncmp(name, "object.", 7) == 0) {
        const char *dot = strrchr(name, '.');
        const size_t len = (size_t)(dot - (name + 7));
        for (size_t i = 0; i < f->object_count; ++i)
            if (strlen(f->objects[i].name) == len && strncmp(f->objects[i].name, name + 7, len) == 0) {
                char prefix[200];
                snprintf(prefix, sizeof prefix, "parameters.objects.%.120s", f->objects[i].name);
                return pose_entry(&f->objects[i], dot + 1, prefix, e);
            }
        return 0;
    }
    if (strncmp(name, "material.", 9) == 0) {
        const char *dot = strrchr(name, '.');
        const size_t len = (size_t)(dot - (name + 9));
        for (size_t i = 0; i < f->reflectance_count; ++i) {
            const lsim_fit_file_reflectance *r = &f->reflectances[i];
            if (strlen(r->material) == len && strncmp(r->material, name + 9, len) == 0) {
                e->has_initial = r->has_initial;
                e->initial = r->initial;
                e->initial_node = r->initial_node;
                e->node = r->node;
                snprintf(e->key, sizeof e->key, "parameters.reflectance.%.120s", r->material); /* no bounds */
                return 1;
            }
        }
        return 0;
    }
    if (strncmp(name, "bias.c", 6) == 0 && name[6] >= '0' && name[6] <= '2' && !name[7]) {
        const int c = name[6] - '0';
        e->has_initial = f->has_bias_initial;
        e->initial = f->bias_initial[c];
        e->initial_node = f->bias_initial_node;
        e->has_bounds = f->has_bias_bounds[c];
        e->lower = f->bias_lower[c];
        e->upper = f->bias_upper[c];
        e->bounds_node = f->bias_bounds_node[c];
        e->node = f->bias_node;
        snprintf(e->key, sizeof e->key, "parameters.cw_bias.bounds.%s", lsim_fit_file_bias_keys[c]);
        return 1;
    }
    return 0;
}

/* "no material 'NAME'" with the scene's Lambertian materials (the ones a fit can take). */
static lsim_status no_material(lsim_fit_file *f, const lsim_scene *scene, yaml_node_t *node, const char *key,
                               const char *name)
{
    char list[512] = "";
    size_t len = 0;
    for (size_t m = 0; m < scene->material_count && len + 4 < sizeof list; ++m)
        if (scene->materials[m].brdf.kind == LSIM_BRDF_LAMBERTIAN && !scene->materials[m].calibration) {
            const int w = snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "", scene->materials[m].name);
            len = w > 0 && len + (size_t)w < sizeof list ? len + (size_t)w : sizeof list - 1;
        }
    return lsim_yaml_fail(&f->y, node, LSIM_ERR_PARSE, key,
                          "no material '%s' in the scene %s (its Lambertian materials: %s)", name, f->scene,
                          len ? list : "none");
}

static lsim_status read_scan(lsim_fit_file *f, const lsim_sensor *sensor, lsim_fit_scan *scan)
{
    const size_t beams = lsim_sensor_beam_count(sensor);
    lsim_status st = at(f, f->scan_node, "scan", lsim_fit_scan_read(f->y.ctx, f->scan, f->intensity_weight > 0.0,
                                                                     beams, scan));
    if (st != LSIM_OK)
        return st;
    if (scan->count != beams)
        return lsim_yaml_fail(&f->y, f->scan_node, LSIM_ERR_PARSE, "scan",
                              "%s has %zu rows but the sensor (%s in %s) has %zu beams; the scan needs one row per "
                              "beam in the sensor's beam order, misses included: write it with `lidarsim scan SCENE "
                              "-o FILE --keep-misses`", f->scan, scan->count, lsim_sensor_name(sensor), f->scene,
                              beams);
    return LSIM_OK;
}

lsim_status lsim_fit_file_setup(lsim_fit_file *f, lsim_scene *scene, lsim_sensor *sensor, lsim_fit **out)
{
    if (!f || !scene || !sensor || !out)
        return LSIM_ERR_INVALID_ARGUMENT;
    *out = NULL;
    lsim_yaml *y = &f->y;
    lsim_fit_scan scan = {0, NULL, NULL};
    lsim_status st = read_scan(f, sensor, &scan);
    lsim_fit *fit = NULL;
    if (st == LSIM_OK)
        st = at(f, f->has_sensor ? f->sensor.node : f->scene_node, f->has_sensor ? "parameters.sensor" : "scene",
                lsim_fit_create(scene, sensor, f->has_sensor ? f->sensor.dof : LSIM_FIT_FIXED, &fit));
    if (st == LSIM_OK)
        st = at(f, f->scan_node, "scan", lsim_fit_set_scan(fit, scan.range, scan.count));
    if (st == LSIM_OK && f->intensity_weight > 0.0)
        st = at(f, f->intensity_node, "intensity_weight",
                lsim_fit_set_scan_intensity(fit, scan.intensity, scan.count, f->intensity_weight));
    lsim_fit_scan_free(&scan);
    char key[300];
    for (size_t i = 0; st == LSIM_OK && i < f->object_count; ++i) {
        snprintf(key, sizeof key, "parameters.objects.%.120s", f->objects[i].name);
        st = at(f, f->objects[i].node, key, lsim_fit_add_object_pose(fit, f->objects[i].name, f->objects[i].dof));
    }
    for (size_t i = 0; st == LSIM_OK && i < f->reflectance_count; ++i) {
        snprintf(key, sizeof key, "parameters.reflectance.%.120s", f->reflectances[i].material);
        st = lsim_fit_add_reflectance(fit, f->reflectances[i].material);
        st = st == LSIM_ERR_NOT_FOUND ? no_material(f, scene, f->reflectances[i].node, key, f->reflectances[i].material)
                                      : at(f, f->reflectances[i].node, key, st);
    }
    if (st == LSIM_OK && f->has_bias)
        st = at(f, f->bias_node, "parameters.cw_bias", lsim_fit_add_cw_bias(fit));
    /* start values, then bounds (which need the start strictly inside) */
    const size_t n = st == LSIM_OK ? lsim_fit_parameter_count(fit) : 0;
    double p[LSIM_FIT_FILE_MAX_PARAMS];
    entry e[LSIM_FIT_FILE_MAX_PARAMS];
    if (st == LSIM_OK && n > LSIM_FIT_FILE_MAX_PARAMS)
        st = lsim_fail(y->ctx, LSIM_ERR_STATE, "fit: %zu parameters", n); /* refused by the library before */
    if (st == LSIM_OK)
        st = lsim_fit_get_parameters(fit, p);
    for (size_t k = 0; st == LSIM_OK && k < n; ++k) {
        char name[256];
        st = lsim_fit_parameter_name(fit, k, name, sizeof name);
        if (st == LSIM_OK && !find_entry(f, name, &e[k]))
            st = lsim_fail(y->ctx, LSIM_ERR_STATE, "fit: parameter %s is not the fit file's", name);
        if (st == LSIM_OK && e[k].has_initial)
            p[k] = e[k].initial;
        if (st == LSIM_OK && e[k].has_bounds && !e[k].has_initial) {
            const int angle = lsim_fit_file_is_angle(name);
            st = lsim_fit_file_check_inside(y, e[k].bounds_node, e[k].key, p[k], e[k].lower, e[k].upper, angle ? LSIM_FIT_FILE_DEG : 1.0,
                              angle ? "deg" : strncmp(name, "bias.", 5) == 0 ? "" : "m",
                              " (the scene's value; give an `initial:` inside them)");
        }
    }
    if (st == LSIM_OK)
        st = at(f, f->parameters_node, "parameters", lsim_fit_set_parameters(fit, p, n));
    for (size_t k = 0; st == LSIM_OK && k < n; ++k)
        if (e[k].has_bounds)
            st = at(f, e[k].bounds_node, e[k].key, lsim_fit_set_bounds(fit, k, e[k].lower, e[k].upper));
    if (st == LSIM_OK)
        st = at(f, f->loss_node ? f->loss_node : f->parameters_node, "loss",
                lsim_fit_set_loss(fit, f->loss, f->loss_scale));
    if (st != LSIM_OK) {
        lsim_fit_destroy(fit);
        return st;
    }
    *out = fit;
    return LSIM_OK;
}
