/* The fit file of `lidarsim fit` (fit_file.h): read and checked (fit_file_setup.c sets it up as an
 * lsim_fit). */
#include "inverse/fit_file.h"

#include "core/context.h"
#include "core/text.h"

#include <lbfgs.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static const char *const top_keys[] = {"scene", "scan", "intensity_weight", "parameters", "loss", "max_iterations",
                                       NULL};
static const char *const parameter_keys[] = {"sensor", "objects", "reflectance", "cw_bias", NULL};
static const char *const pose_keys[] = {"dof", "initial", "bounds", NULL};
static const char *const reflectance_keys[] = {"initial", NULL};
static const char *const bias_keys[] = {"initial", "bounds", NULL};
static const char *const loss_keys[] = {"type", "scale", NULL};
const char *const lsim_fit_file_axis_keys[6] = {"x", "y", "z", "roll_deg", "pitch_deg", "yaw_deg"};
const char *const lsim_fit_file_bias_keys[4] = {"c0", "c1", "c2", NULL};
static const char *const se2_keys[] = {"x", "y", "yaw_deg", NULL};
static const char *const se3_keys[] = {"x", "y", "z", "roll_deg", "pitch_deg", "yaw_deg", NULL};

const char *lsim_fit_file_stop_reason(int status)
{
    switch (status) {
    case LBFGS_SUCCESS: return "converged (gradient below tolerance)";
    case LBFGS_STOP: return "converged (loss no longer falling)";
    case LBFGS_ALREADY_MINIMIZED: return "converged (already at a minimum)";
    case LBFGSERR_MAXIMUMITERATION: return "reached its iteration limit";
    case LBFGSERR_ROUNDING_ERROR: return "found no further decrease (rounding)";
    case LBFGSERR_MINIMUMSTEP: return "line search step became too small";
    case LBFGSERR_MAXIMUMSTEP: return "line search step became too large";
    case LBFGSERR_MAXIMUMLINESEARCH: return "line search took too many evaluations";
    default: return "stopped";
    }
}

int lsim_fit_file_is_angle(const char *name)
{
    const char *dot = name ? strrchr(name, '.') : NULL;
    if (!dot || (strncmp(name, "sensor.", 7) != 0 && strncmp(name, "object.", 7) != 0))
        return 0;
    return strcmp(dot + 1, "roll") == 0 || strcmp(dot + 1, "pitch") == 0 || strcmp(dot + 1, "yaw") == 0;
}

static const char *scalar(const yaml_node_t *node)
{
    return node && node->type == YAML_SCALAR_NODE ? (const char *)node->data.scalar.value : NULL;
}

/* `key: {}` written as `key:` (an empty value, or ~ / null). */
static int is_empty(const yaml_node_t *node)
{
    const char *s = scalar(node);
    return s && (!*s || strcmp(s, "~") == 0 || strcmp(s, "null") == 0);
}

static int in_dof(int axis, lsim_fit_pose dof) { return dof == LSIM_FIT_SE3 || axis == 0 || axis == 1 || axis == 5; }

/* The axis a key of `initial:` or `bounds:` (the mapping `map`) names; an error naming the valid
 * keys of `dof` otherwise. */
static lsim_status axis_of(lsim_yaml *y, yaml_node_t *map, yaml_node_t *k, const char *key, lsim_fit_pose dof,
                           int *out)
{
    const char *name = scalar(k);
    const char *valid = dof == LSIM_FIT_SE3 ? "x, y, z, roll_deg, pitch_deg, yaw_deg" : "x, y, yaw_deg";
    for (int a = 0; name && a < 6; ++a)
        if (strcmp(name, lsim_fit_file_axis_keys[a]) == 0) {
            if (!in_dof(a, dof))
                return lsim_yaml_fail(y, k, LSIM_ERR_PARSE, key,
                                      "%s is not a parameter of an se2 pose (x, y, yaw; z, roll and pitch stay the "
                                      "scene's); valid keys: %s, or dof: se3", LSIM_YAML_Q(y, name), valid);
            *out = a;
            return LSIM_OK;
        }
    if (name && (strcmp(name, "roll") == 0 || strcmp(name, "pitch") == 0 || strcmp(name, "yaw") == 0))
        return lsim_yaml_fail(y, k, LSIM_ERR_PARSE, key, "unknown key '%s' (angles are in degrees: '%s_deg'); valid "
                              "keys: %s", name, name, valid);
    /* the first key of `map` that is not valid is this one: its message, with "did you mean" */
    lsim_status st = lsim_yaml_check_keys(y, map, key, dof == LSIM_FIT_SE3 ? se3_keys : se2_keys);
    return st != LSIM_OK ? st
                         : lsim_yaml_fail(y, k, LSIM_ERR_PARSE, key, "unknown key %s; valid keys: %s",
                                          name ? LSIM_YAML_Q(y, name) : "?", valid);
}

/* [lower, upper] at `node` (lower < upper, both finite). */
static lsim_status read_bounds(lsim_yaml *y, yaml_node_t *node, const char *key, double *lower, double *upper)
{
    double b[2];
    lsim_status st = lsim_yaml_numbers(y, node, key, b, 2, 2, NULL);
    if (st != LSIM_OK)
        return st;
    if (!(b[0] < b[1]))
        return lsim_yaml_fail(y, node, LSIM_ERR_PARSE, key, "lower bound %g must be below the upper bound %g", b[0],
                              b[1]);
    *lower = b[0];
    *upper = b[1];
    return LSIM_OK;
}

lsim_status lsim_fit_file_check_inside(lsim_yaml *y, yaml_node_t *at, const char *key, double v, double lo,
                                       double hi, double unit, const char *unit_name, const char *from)
{
    if (v > lo && v < hi)
        return LSIM_OK;
    return lsim_yaml_fail(y, at, LSIM_ERR_PARSE, key,
                          "the start value %.9g%s%s is outside its bounds [%.9g, %.9g]%s; it must lie strictly inside",
                          v / unit, unit_name[0] ? " " : "", unit_name, lo / unit, hi / unit, from);
}

static lsim_status read_pose(lsim_yaml *y, yaml_node_t *node, const char *key, lsim_fit_file_pose *p)
{
    char sub[256];
    lsim_status st = lsim_yaml_check_keys(y, node, key, pose_keys);
    if (st != LSIM_OK)
        return st;
    yaml_node_t *dof = lsim_yaml_get(y, node, "dof");
    snprintf(sub, sizeof sub, "%s.dof", key);
    if (!dof)
        return lsim_yaml_fail(y, node, LSIM_ERR_PARSE, key,
                              "needs `dof: se2` (x, y, yaw) or `dof: se3` (x, y, z, roll, pitch, yaw)");
    const char *d = NULL;
    st = lsim_yaml_string(y, dof, sub, &d);
    if (st != LSIM_OK)
        return st;
    if (strcmp(d, "se2") != 0 && strcmp(d, "se3") != 0)
        return lsim_yaml_fail(y, dof, LSIM_ERR_PARSE, sub,
                              "%s is not valid; valid: se2 (x, y, yaw), se3 (x, y, z, roll, pitch, yaw)",
                              LSIM_YAML_Q(y, d));
    p->dof = strcmp(d, "se2") == 0 ? LSIM_FIT_SE2 : LSIM_FIT_SE3;
    yaml_node_t *initial = lsim_yaml_get(y, node, "initial"), *bounds = lsim_yaml_get(y, node, "bounds");
    const char *const *valid = p->dof == LSIM_FIT_SE3 ? se3_keys : se2_keys;
    for (int pass = 0; pass < 2; ++pass) {
        yaml_node_t *map = pass ? bounds : initial;
        if (!map || is_empty(map))
            continue;
        snprintf(sub, sizeof sub, "%s.%s", key, pass ? "bounds" : "initial");
        if (map->type != YAML_MAPPING_NODE)
            return lsim_yaml_check_keys(y, map, sub, valid); /* "expected a mapping" */
        if ((st = lsim_yaml_check_unique(y, map, sub)) != LSIM_OK)
            return st;
        for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < map->data.mapping.pairs.top; ++q) {
            yaml_node_t *k = yaml_document_get_node(&y->doc, q->key), *v = yaml_document_get_node(&y->doc, q->value);
            int a = 0;
            if ((st = axis_of(y, map, k, sub, p->dof, &a)) != LSIM_OK)
                return st;
            char vkey[300];
            snprintf(vkey, sizeof vkey, "%s.%s", sub, lsim_fit_file_axis_keys[a]);
            const double unit = a >= 3 ? LSIM_FIT_FILE_DEG : 1.0;
            if (pass == 0) {
                st = lsim_yaml_number(y, v, vkey, &p->initial[a]);
                p->initial[a] *= unit;
                p->has_initial[a] = 1;
                p->initial_node[a] = v;
            } else {
                st = read_bounds(y, v, vkey, &p->lower[a], &p->upper[a]);
                p->lower[a] *= unit;
                p->upper[a] *= unit;
                p->has_bounds[a] = 1;
                p->bounds_node[a] = v;
            }
            if (st != LSIM_OK)
                return st;
        }
    }
    for (int a = 0; a < 6; ++a)
        if (p->has_initial[a] && p->has_bounds[a]) {
            snprintf(sub, sizeof sub, "%s.initial.%s", key, lsim_fit_file_axis_keys[a]);
            char from[64];
            snprintf(from, sizeof from, " (bounds on line %zu)", p->bounds_node[a]->start_mark.line + 1);
            st = lsim_fit_file_check_inside(y, p->initial_node[a], sub, p->initial[a], p->lower[a], p->upper[a], a >= 3 ? LSIM_FIT_FILE_DEG : 1.0,
                              a >= 3 ? "deg" : "m", from);
            if (st != LSIM_OK)
                return st;
        }
    p->node = node;
    return LSIM_OK;
}

static lsim_status read_objects(lsim_yaml *y, yaml_node_t *map, lsim_fit_file *f)
{
    if (map->type != YAML_MAPPING_NODE)
        return lsim_yaml_fail(y, map, LSIM_ERR_PARSE, "parameters.objects",
                              "expected a mapping of object name: {dof: se2, initial: {...}, bounds: {...}} (the "
                              "objects' `name:` in the scene)");
    lsim_status st = lsim_yaml_check_unique(y, map, "parameters.objects");
    for (yaml_node_pair_t *q = map->data.mapping.pairs.start; st == LSIM_OK && q < map->data.mapping.pairs.top; ++q) {
        yaml_node_t *k = yaml_document_get_node(&y->doc, q->key), *v = yaml_document_get_node(&y->doc, q->value);
        const char *name = NULL;
        if ((st = lsim_yaml_string(y, k, "parameters.objects", &name)) != LSIM_OK)
            break;
        if (f->object_count == LSIM_FIT_FILE_MAX_PARAMS)
            return lsim_yaml_fail(y, k, LSIM_ERR_PARSE, "parameters.objects",
                                  "more than %d parameters in all (each pose has 3 or 6)", LSIM_FIT_FILE_MAX_PARAMS);
        char key[200];
        snprintf(key, sizeof key, "parameters.objects.%.120s", name);
        lsim_fit_file_pose *p = &f->objects[f->object_count];
        memset(p, 0, sizeof *p);
        if ((st = read_pose(y, v, key, p)) != LSIM_OK)
            break;
        p->name = name;
        p->node = k;
        ++f->object_count;
    }
    return st;
}

static lsim_status read_reflectances(lsim_yaml *y, yaml_node_t *map, lsim_fit_file *f)
{
    if (map->type != YAML_MAPPING_NODE)
        return lsim_yaml_fail(y, map, LSIM_ERR_PARSE, "parameters.reflectance",
                              "expected a mapping of material name: {initial: 0.5} (or `{}`: start at the scene's "
                              "value)");
    lsim_status st = lsim_yaml_check_unique(y, map, "parameters.reflectance");
    for (yaml_node_pair_t *q = map->data.mapping.pairs.start; st == LSIM_OK && q < map->data.mapping.pairs.top; ++q) {
        yaml_node_t *k = yaml_document_get_node(&y->doc, q->key), *v = yaml_document_get_node(&y->doc, q->value);
        const char *name = NULL;
        if ((st = lsim_yaml_string(y, k, "parameters.reflectance", &name)) != LSIM_OK)
            break;
        if (f->reflectance_count == LSIM_FIT_FILE_MAX_PARAMS)
            return lsim_yaml_fail(y, k, LSIM_ERR_PARSE, "parameters.reflectance", "more than %d parameters in all",
                                  LSIM_FIT_FILE_MAX_PARAMS);
        char key[200], sub[220];
        snprintf(key, sizeof key, "parameters.reflectance.%.120s", name);
        lsim_fit_file_reflectance *r = &f->reflectances[f->reflectance_count];
        memset(r, 0, sizeof *r);
        r->material = name;
        r->node = k;
        if (!is_empty(v)) {
            if ((st = lsim_yaml_check_keys(y, v, key, reflectance_keys)) != LSIM_OK)
                break;
            yaml_node_t *init = lsim_yaml_get(y, v, "initial");
            snprintf(sub, sizeof sub, "%s.initial", key);
            if (init && (st = lsim_yaml_number(y, init, sub, &r->initial)) != LSIM_OK)
                break;
            if (init && !(r->initial >= 1e-4 && r->initial <= 1.0))
                return lsim_yaml_fail(y, init, LSIM_ERR_PARSE, sub,
                                      "reflectance %g is outside [0.0001, 1] (Lambertian albedo)", r->initial);
            r->has_initial = init != NULL;
            r->initial_node = init;
        }
        ++f->reflectance_count;
    }
    return st;
}

static lsim_status read_bias(lsim_yaml *y, yaml_node_t *node, lsim_fit_file *f)
{
    f->has_bias = 1;
    f->bias_node = node;
    if (is_empty(node))
        return LSIM_OK;
    lsim_status st = lsim_yaml_check_keys(y, node, "parameters.cw_bias", bias_keys);
    if (st != LSIM_OK)
        return st;
    yaml_node_t *init = lsim_yaml_get(y, node, "initial"), *bounds = lsim_yaml_get(y, node, "bounds");
    if (init) {
        st = lsim_yaml_numbers(y, init, "parameters.cw_bias.initial", f->bias_initial, 3, 3, NULL);
        if (st != LSIM_OK)
            return st;
        f->has_bias_initial = 1;
        f->bias_initial_node = init;
    }
    if (bounds && !is_empty(bounds)) {
        if ((st = lsim_yaml_check_keys(y, bounds, "parameters.cw_bias.bounds", lsim_fit_file_bias_keys)) != LSIM_OK)
            return st;
        for (int c = 0; c < 3; ++c) {
            yaml_node_t *b = lsim_yaml_get(y, bounds, lsim_fit_file_bias_keys[c]);
            char key[64];
            snprintf(key, sizeof key, "parameters.cw_bias.bounds.%s", lsim_fit_file_bias_keys[c]);
            if (b && (st = read_bounds(y, b, key, &f->bias_lower[c], &f->bias_upper[c])) != LSIM_OK)
                return st;
            f->has_bias_bounds[c] = b != NULL;
            f->bias_bounds_node[c] = b;
            if (b && init) {
                char from[64];
                snprintf(from, sizeof from, " (bounds on line %zu)", b->start_mark.line + 1);
                snprintf(key, sizeof key, "parameters.cw_bias.initial[%d]", c);
                st = lsim_fit_file_check_inside(y, init, key, f->bias_initial[c], f->bias_lower[c], f->bias_upper[c], 1.0, "", from);
                if (st != LSIM_OK)
                    return st;
            }
        }
    }
    return LSIM_OK;
}

static lsim_status read_parameters(lsim_yaml *y, yaml_node_t *node, lsim_fit_file *f)
{
    lsim_status st = lsim_yaml_check_keys(y, node, "parameters", parameter_keys);
    if (st != LSIM_OK)
        return st;
    yaml_node_t *sensor = lsim_yaml_get(y, node, "sensor"), *objects = lsim_yaml_get(y, node, "objects");
    yaml_node_t *refl = lsim_yaml_get(y, node, "reflectance"), *bias = lsim_yaml_get(y, node, "cw_bias");
    if (sensor) {
        memset(&f->sensor, 0, sizeof f->sensor);
        if ((st = read_pose(y, sensor, "parameters.sensor", &f->sensor)) != LSIM_OK)
            return st;
        f->has_sensor = 1;
    }
    if (objects && !is_empty(objects) && (st = read_objects(y, objects, f)) != LSIM_OK)
        return st;
    if (refl && !is_empty(refl) && (st = read_reflectances(y, refl, f)) != LSIM_OK)
        return st;
    if (bias && (st = read_bias(y, bias, f)) != LSIM_OK)
        return st;
    int n = f->has_sensor ? (int)f->sensor.dof : 0;
    char parts[256] = "";
    if (f->has_sensor)
        snprintf(parts, sizeof parts, "sensor %d", (int)f->sensor.dof);
    for (size_t i = 0; i < f->object_count; ++i) {
        n += (int)f->objects[i].dof;
        size_t len = strlen(parts);
        snprintf(parts + len, sizeof parts - len, "%sobject %.40s %d", len ? ", " : "", f->objects[i].name,
                 (int)f->objects[i].dof);
    }
    n += (int)f->reflectance_count + (f->has_bias ? 3 : 0);
    if (f->reflectance_count) {
        size_t len = strlen(parts);
        snprintf(parts + len, sizeof parts - len, "%sreflectances %zu", len ? ", " : "", f->reflectance_count);
    }
    if (f->has_bias) {
        size_t len = strlen(parts);
        snprintf(parts + len, sizeof parts - len, "%scw_bias 3", len ? ", " : "");
    }
    if (n == 0)
        return lsim_yaml_fail(y, node, LSIM_ERR_PARSE, "parameters",
                              "nothing to fit; give at least one of sensor, objects, reflectance, cw_bias");
    if (n > LSIM_FIT_FILE_MAX_PARAMS)
        return lsim_yaml_fail(y, node, LSIM_ERR_PARSE, "parameters",
                              "%d parameters (%s); the fit takes at most %d in all (se2 pose 3, se3 pose 6, "
                              "reflectance 1, cw_bias 3)", n, parts, LSIM_FIT_FILE_MAX_PARAMS);
    f->parameter_count = n;
    return LSIM_OK;
}

static lsim_status read_loss(lsim_yaml *y, yaml_node_t *node, lsim_fit_file *f)
{
    lsim_status st = lsim_yaml_check_keys(y, node, "loss", loss_keys);
    if (st != LSIM_OK)
        return st;
    yaml_node_t *type = lsim_yaml_get(y, node, "type"), *scale = lsim_yaml_get(y, node, "scale");
    if (!type)
        return lsim_yaml_fail(y, node, LSIM_ERR_PARSE, "loss",
                              "needs `type:` squared, huber or cauchy (huber and cauchy with `scale:` in metres)");
    const char *t = NULL;
    if ((st = lsim_yaml_string(y, type, "loss.type", &t)) != LSIM_OK)
        return st;
    if (strcmp(t, "squared") == 0)
        f->loss = LSIM_FIT_LOSS_SQUARED;
    else if (strcmp(t, "huber") == 0)
        f->loss = LSIM_FIT_LOSS_HUBER;
    else if (strcmp(t, "cauchy") == 0)
        f->loss = LSIM_FIT_LOSS_CAUCHY;
    else
        return lsim_yaml_fail(y, type, LSIM_ERR_PARSE, "loss.type", "%s is not valid; valid: squared, huber, cauchy",
                              LSIM_YAML_Q(y, t));
    if (f->loss == LSIM_FIT_LOSS_SQUARED) {
        if (scale)
            return lsim_yaml_fail(y, scale, LSIM_ERR_PARSE, "loss.scale",
                                  "the squared loss takes no scale (huber and cauchy do)");
        return LSIM_OK;
    }
    if (!scale)
        return lsim_yaml_fail(y, node, LSIM_ERR_PARSE, "loss",
                              "a %s loss needs `scale:` in metres (residuals beyond it weigh less), e.g. 0.05", t);
    if ((st = lsim_yaml_number(y, scale, "loss.scale", &f->loss_scale)) != LSIM_OK)
        return st;
    if (!(f->loss_scale > 0.0 && f->loss_scale <= 1e3))
        return lsim_yaml_fail(y, scale, LSIM_ERR_PARSE, "loss.scale", "%g m is invalid; must be in (0, 1000]",
                              f->loss_scale);
    return LSIM_OK;
}

/* A file the fit file names, resolved from its folder. */
static lsim_status read_path(lsim_yaml *y, yaml_node_t *root, const char *name, const char *what, const char *dir,
                             char *out, yaml_node_t **node)
{
    *node = lsim_yaml_get(y, root, name);
    if (!*node)
        return lsim_yaml_fail(y, root, LSIM_ERR_PARSE, name, "the fit file needs `%s:` (%s)", name, what);
    const char *s = NULL;
    lsim_status st = lsim_yaml_string(y, *node, name, &s);
    if (st != LSIM_OK)
        return st;
    int n = (s[0] == '/' || !dir[0]) ? snprintf(out, LSIM_FIT_FILE_PATH_MAX, "%s", s)
                                     : snprintf(out, LSIM_FIT_FILE_PATH_MAX, "%s/%s", dir, s);
    if (n < 0 || n >= LSIM_FIT_FILE_PATH_MAX)
        return lsim_yaml_fail(y, *node, LSIM_ERR_PARSE, name, "a path of %zu bytes is too long", strlen(s));
    return LSIM_OK;
}

lsim_status lsim_fit_file_read(lsim_context *ctx, const char *path, lsim_fit_file *f)
{
    if (!ctx || !path || !f)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_fit_file_read: ctx, path and f must not be NULL");
    memset(f, 0, sizeof *f);
    lsim_status st = lsim_yaml_load(ctx, path, &f->y);
    if (st != LSIM_OK) {
        /* lsim_yaml_load speaks of scene files */
        char msg[LSIM_ERROR_MAX];
        lsim_strlcpy(msg, lsim_context_last_error(ctx), sizeof msg);
        if (strstr(msg, "the scene file is empty"))
            return lsim_fail(ctx, st, "%s:1: the fit file is empty; it needs `scene:`, `scan:` and `parameters:`",
                             path);
        for (char *s = strstr(msg, "scene file"); s; s = strstr(s, "scene file")) {
            memcpy(s, "fit", 3); /* "scene file" -> "fit file" */
            memmove(s + 3, s + 5, strlen(s + 5) + 1);
        }
        return lsim_fail(ctx, st, "%s", msg);
    }
    lsim_yaml *y = &f->y;
    lsim_strlcpy(f->dir, path, sizeof f->dir);
    char *slash = strrchr(f->dir, '/');
    if (!slash)
        f->dir[0] = '\0';
    else if (slash == f->dir)
        f->dir[1] = '\0';
    else
        *slash = '\0';
    f->max_iterations = 100;
    yaml_node_t *root = lsim_yaml_root(y);
    st = lsim_yaml_check_keys(y, root, "(top level)", top_keys);
    if (st == LSIM_OK)
        st = read_path(y, root, "scene", "the scene file whose `sensor:` is fitted", f->dir, f->scene, &f->scene_node);
    if (st == LSIM_OK)
        st = read_path(y, root, "scan", "the real scan, one row per beam: `lidarsim scan SCENE -o real.csv "
                       "--keep-misses` writes one", f->dir, f->scan, &f->scan_node);
    yaml_node_t *weight = lsim_yaml_get(y, root, "intensity_weight");
    if (st == LSIM_OK && weight) {
        st = lsim_yaml_number(y, weight, "intensity_weight", &f->intensity_weight);
        if (st == LSIM_OK && !(f->intensity_weight > 0.0 && f->intensity_weight <= 1e6))
            st = lsim_yaml_fail(y, weight, LSIM_ERR_PARSE, "intensity_weight",
                                "%g m^2 is invalid; must be in (0, 1e6] (1: 1 %% of amplitude weighs as 1 cm of range; "
                                "leave the key out to fit ranges only)", f->intensity_weight);
        f->intensity_node = weight;
    }
    yaml_node_t *params = lsim_yaml_get(y, root, "parameters");
    if (st == LSIM_OK && !params)
        st = lsim_yaml_fail(y, root, LSIM_ERR_PARSE, "parameters",
                            "the fit file needs `parameters:` (sensor, objects, reflectance, cw_bias)");
    if (st == LSIM_OK)
        st = read_parameters(y, params, f);
    f->parameters_node = params;
    yaml_node_t *loss = lsim_yaml_get(y, root, "loss");
    if (st == LSIM_OK && loss) {
        st = read_loss(y, loss, f);
        f->loss_node = loss;
    }
    if (st == LSIM_OK)
        st = lsim_yaml_opt_int(y, root, "max_iterations", "max_iterations", 1, 10000, &f->max_iterations);
    if (st != LSIM_OK)
        lsim_yaml_free(y);
    return st;
}

void lsim_fit_file_free(lsim_fit_file *f)
{
    if (f)
        lsim_yaml_free(&f->y);
}
