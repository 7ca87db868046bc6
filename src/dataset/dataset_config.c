/* lsim_dataset_load: the dataset config (examples/dataset/README.md), read and checked once:
 * every error is "PATH:LINE:COL: KEY: what to do"; meshes are imported here, once per load. */
#include "dataset/dataset_internal.h"

#include "core/context.h"
#include "core/file_open.h"
#include "core/motion_make.h"
#include "core/text.h"
#include "core/vec.h"
#include "scene/scene.h"
#include "scene/scene_file.h"
#include "sensor/sensor.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const root_keys[] = {"seed", "frames", "frames_per_sequence", "sensor", "materials", "layout",
                                        "jitter", "trajectory", "library", "points_format", NULL};
static const char *const street_keys[] = {"kind", "length", "road_width", "sidewalk_width", "sidewalk_height",
                                          "setback", "building_height", "building_length", "building_gap",
                                          "building_depth", "materials", NULL};
static const char *const scatter_keys[] = {"kind", "extent", "materials", NULL};
static const char *const layout_keys[] = {"kind", "length", "road_width", "sidewalk_width", "sidewalk_height",
                                          "setback", "building_height", "building_length", "building_gap",
                                          "building_depth", "extent", "materials", NULL};
static const char *const layout_material_keys[] = {"road", "sidewalk", "ground", "building", NULL};
static const char *const jitter_keys[] = {"position_m", "rotation_deg", NULL};
static const char *const straight_keys[] = {"kind", "speed", "offset", "clearance", NULL};
static const char *const circle_keys[] = {"kind", "speed", "radius", "center", "clearance", NULL};
static const char *const waypoint_keys[] = {"kind", "speed", "points", "clearance", NULL};


/* ------------------------------------------------------------------ small readers */

lsim_status lsim_ds_opt_range(lsim_yaml *y, yaml_node_t *map, const char *name, const char *key, double min,
                             double max, double out[2])
{
    yaml_node_t *v = lsim_yaml_get(y, map, name);
    if (!v)
        return LSIM_OK;
    double r[2];
    lsim_status st = v->type == YAML_SEQUENCE_NODE ? lsim_yaml_numbers(y, v, key, r, 2, 2, NULL)
                                                   : lsim_yaml_number(y, v, key, &r[0]);
    if (st != LSIM_OK)
        return st;
    if (v->type != YAML_SEQUENCE_NODE)
        r[1] = r[0];
    if (!(r[0] >= min && r[1] <= max))
        return lsim_yaml_fail(y, v, LSIM_ERR_PARSE, key, "[%g, %g] is not within %g..%g", r[0], r[1], min, max);
    if (r[0] > r[1])
        return lsim_yaml_fail(y, v, LSIM_ERR_PARSE, key, "[%g, %g]: the minimum is above the maximum; write [min, max]",
                              r[0], r[1]);
    out[0] = r[0];
    out[1] = r[1];
    return LSIM_OK;
}

lsim_status lsim_ds_opt_num(lsim_yaml *y, yaml_node_t *map, const char *name, const char *key, double min, double max,
                           int open_min, double *out)
{
    yaml_node_t *v = lsim_yaml_get(y, map, name);
    if (!v)
        return LSIM_OK;
    double d;
    lsim_status st = lsim_yaml_number(y, v, key, &d);
    if (st != LSIM_OK)
        return st;
    if (!(d >= min && d <= max) || (open_min && d == min))
        return lsim_yaml_fail(y, v, LSIM_ERR_PARSE, key, "%g is out of range; valid: %s%g to %g", d,
                              open_min ? "above " : "", min, max);
    *out = d;
    return LSIM_OK;
}

lsim_status lsim_ds_opt_material(lsim_yaml *y, yaml_node_t *map, const char *name, const char *key,
                                const lsim_scene *materials, char out[LSIM_DS_NAME_MAX])
{
    yaml_node_t *v = lsim_yaml_get(y, map, name);
    if (!v)
        return LSIM_OK;
    const char *s;
    lsim_status st = lsim_yaml_string(y, v, key, &s);
    if (st != LSIM_OK)
        return st;
    if (strlen(s) >= LSIM_DS_NAME_MAX || lsim_scene_find_material(materials, s) < 0)
        return lsim_yaml_fail(y, v, LSIM_ERR_PARSE, key,
                              "material %s is not defined under `materials:` (or use \"default\")",
                              LSIM_YAML_Q(y, s));
    lsim_strlcpy(out, s, LSIM_DS_NAME_MAX);
    return LSIM_OK;
}

/* ------------------------------------------------------------------ sections */

static lsim_status read_sensor(lsim_yaml *y, lsim_dataset *ds)
{
    yaml_node_t *root = lsim_yaml_root(y), *map = lsim_yaml_get(y, root, "sensor");
    if (!map)
        return lsim_yaml_fail(y, root, LSIM_ERR_PARSE, "sensor",
                              "the dataset needs `sensor:` (as in a scene file, e.g. {preset: vlp16, position: "
                              "[0, 0, 1.8]})");
    if (map->type == YAML_MAPPING_NODE) {
        static const char *const motion[] = {"velocity", "angular_velocity_deg_s", "trajectory"};
        for (int i = 0; i < 3; ++i) {
            yaml_node_t *v = lsim_yaml_get(y, map, motion[i]);
            char key[64];
            snprintf(key, sizeof key, "sensor.%s", motion[i]);
            if (v)
                return lsim_yaml_fail(y, v, LSIM_ERR_PARSE, key,
                                      "the dataset drives the sensor along the top-level `trajectory:`; remove this "
                                      "key (position / rotation are the mount on the vehicle)");
        }
    }
    lsim_sensor *sensor = NULL;
    lsim_status st = lsim_scene_file_read_sensor(y, map, ds->dir, &sensor);
    if (st != LSIM_OK)
        return st;
    ds->sensor_node = map;
    ds->frame_period_s = 1.0 / sensor->spec.rate_hz;
    memcpy(ds->mount_position, sensor->position, sizeof ds->mount_position);
    memcpy(ds->mount_rotation, sensor->rotation_deg, sizeof ds->mount_rotation);
    lsim_sensor_destroy(sensor);
    if (!(ds->frame_period_s > 0.0 && isfinite(ds->frame_period_s)))
        return lsim_yaml_fail(y, map, LSIM_ERR_PARSE, "sensor.rate_hz", "the sensor's rate must be above 0 Hz");
    return LSIM_OK;
}

static lsim_status read_layout(lsim_yaml *y, lsim_dataset *ds, const lsim_scene *materials)
{
    yaml_node_t *root = lsim_yaml_root(y), *map = lsim_yaml_get(y, root, "layout");
    if (!map)
        return lsim_yaml_fail(y, root, LSIM_ERR_PARSE, "layout", "the dataset needs `layout:` ({kind: street} or "
                              "{kind: scatter, extent: [x, y]})");
    lsim_status st = lsim_yaml_check_keys(y, map, "layout", layout_keys); /* every kind's keys */
    if (st != LSIM_OK)
        return st;
    yaml_node_t *kind = lsim_yaml_get(y, map, "kind");
    const char *k = "street";
    if (kind && (st = lsim_yaml_string(y, kind, "layout.kind", &k)) != LSIM_OK)
        return st;
    if (strcmp(k, "street") == 0)
        ds->layout = LSIM_DS_STREET;
    else if (strcmp(k, "scatter") == 0)
        ds->layout = LSIM_DS_SCATTER;
    else
        return lsim_yaml_fail(y, kind, LSIM_ERR_PARSE, "layout.kind", "%s is not a layout; valid: street, scatter",
                              LSIM_YAML_Q(y, k));
    if ((st = lsim_yaml_check_keys(y, map, ds->layout == LSIM_DS_STREET ? "layout (street)" : "layout (scatter)",
                                   ds->layout == LSIM_DS_STREET ? street_keys : scatter_keys)) != LSIM_OK)
        return st;
    /* defaults */
    ds->length = 120.0;
    ds->road_width = 8.0;
    ds->sidewalk_width = 3.0;
    ds->sidewalk_height = 0.15;
    ds->setback = 3.0;
    ds->building_height[0] = 6.0, ds->building_height[1] = 18.0;
    ds->building_length[0] = 10.0, ds->building_length[1] = 25.0;
    ds->building_gap[0] = 2.0, ds->building_gap[1] = 8.0;
    ds->building_depth = 10.0;
    ds->extent[0] = ds->extent[1] = 60.0;
    if (ds->layout == LSIM_DS_STREET) {
        if (st == LSIM_OK) st = lsim_ds_opt_num(y, map, "length", "layout.length", 0.0, 10000.0, 1, &ds->length);
        if (st == LSIM_OK) st = lsim_ds_opt_num(y, map, "road_width", "layout.road_width", 0.0, 1000.0, 1, &ds->road_width);
        if (st == LSIM_OK)
            st = lsim_ds_opt_num(y, map, "sidewalk_width", "layout.sidewalk_width", 0.0, 1000.0, 0, &ds->sidewalk_width);
        if (st == LSIM_OK)
            st = lsim_ds_opt_num(y, map, "sidewalk_height", "layout.sidewalk_height", 0.0, 2.0, 0, &ds->sidewalk_height);
        if (st == LSIM_OK) st = lsim_ds_opt_num(y, map, "setback", "layout.setback", 0.0, 1000.0, 0, &ds->setback);
        if (st == LSIM_OK)
            st = lsim_ds_opt_range(y, map, "building_height", "layout.building_height", 0.0, 1000.0, ds->building_height);
        if (st == LSIM_OK)
            st = lsim_ds_opt_range(y, map, "building_length", "layout.building_length", 0.5, 10000.0, ds->building_length);
        if (st == LSIM_OK)
            st = lsim_ds_opt_range(y, map, "building_gap", "layout.building_gap", 0.0, 10000.0, ds->building_gap);
        if (st == LSIM_OK)
            st = lsim_ds_opt_num(y, map, "building_depth", "layout.building_depth", 0.0, 1000.0, 0, &ds->building_depth);
        const double step = ds->building_length[0] + ds->building_gap[0];
        if (st == LSIM_OK && ds->building_depth > 0.0 && ds->building_height[1] > 0.0 &&
            ds->length / step > LSIM_DS_MAX_BLOCKS) {
            yaml_node_t *at = lsim_yaml_get(y, map, "building_length");
            st = lsim_yaml_fail(y, at ? at : map, LSIM_ERR_PARSE, "layout.building_length",
                                "a row of %.0f m could hold %.0f building blocks (length / (building_length min + "
                                "building_gap min = %g m)); at most %d: lengthen the blocks or gaps, shorten the "
                                "layout, or set building_depth: 0", ds->length, ds->length / step, step,
                                LSIM_DS_MAX_BLOCKS);
        }
    } else {
        yaml_node_t *e = lsim_yaml_get(y, map, "extent");
        if (e && (st = lsim_yaml_numbers(y, e, "layout.extent", ds->extent, 2, 2, NULL)) != LSIM_OK)
            return st;
        if (e && !(ds->extent[0] > 0.0 && ds->extent[1] > 0.0 && ds->extent[0] <= 10000.0 && ds->extent[1] <= 10000.0))
            return lsim_yaml_fail(y, e, LSIM_ERR_PARSE, "layout.extent",
                                  "[%g, %g]: both sizes must be above 0 and at most 10000 m", ds->extent[0], ds->extent[1]);
    }
    if (st != LSIM_OK)
        return st;
    yaml_node_t *mats = lsim_yaml_get(y, map, "materials");
    if (mats) {
        if ((st = lsim_yaml_check_keys(y, mats, "layout.materials", layout_material_keys)) != LSIM_OK)
            return st;
        char *outs[] = {ds->mat_road, ds->mat_sidewalk, ds->mat_ground, ds->mat_building};
        for (int i = 0; i < 4 && st == LSIM_OK; ++i) {
            char key[64];
            snprintf(key, sizeof key, "layout.materials.%s", layout_material_keys[i]);
            st = lsim_ds_opt_material(y, mats, layout_material_keys[i], key, materials, outs[i]);
        }
    }
    return st;
}

static lsim_status read_jitter(lsim_yaml *y, lsim_dataset *ds)
{
    yaml_node_t *map = lsim_yaml_get(y, lsim_yaml_root(y), "jitter");
    if (!map)
        return LSIM_OK;
    lsim_status st = lsim_yaml_check_keys(y, map, "jitter", jitter_keys);
    if (st == LSIM_OK)
        st = lsim_ds_opt_num(y, map, "position_m", "jitter.position_m", 0.0, 10.0, 0, &ds->jitter_position_m);
    if (st == LSIM_OK)
        st = lsim_ds_opt_num(y, map, "rotation_deg", "jitter.rotation_deg", 0.0, 45.0, 0, &ds->jitter_rotation_deg);
    return st;
}

static lsim_status read_trajectory(lsim_yaml *y, lsim_dataset *ds)
{
    yaml_node_t *root = lsim_yaml_root(y), *map = lsim_yaml_get(y, root, "trajectory");
    ds->traj = LSIM_DS_STRAIGHT;
    ds->speed = 0.0;
    if (!map) {
        ds->clearance = 1.2;
        return LSIM_OK;
    }
    lsim_status st = lsim_yaml_check_keys(y, map, "trajectory", circle_keys);
    if (st != LSIM_OK && map->type == YAML_MAPPING_NODE)
        st = lsim_yaml_check_keys(y, map, "trajectory", waypoint_keys);
    if (st != LSIM_OK && map->type == YAML_MAPPING_NODE) {
        static const char *const all[] = {"kind", "speed", "offset", "radius", "center", "points", "clearance", NULL};
        st = lsim_yaml_check_keys(y, map, "trajectory", all);
    }
    if (st != LSIM_OK)
        return st;
    yaml_node_t *kind = lsim_yaml_get(y, map, "kind");
    const char *k = "straight";
    if (kind && (st = lsim_yaml_string(y, kind, "trajectory.kind", &k)) != LSIM_OK)
        return st;
    const char *const *keys;
    if (strcmp(k, "straight") == 0)
        ds->traj = LSIM_DS_STRAIGHT, keys = straight_keys;
    else if (strcmp(k, "circle") == 0)
        ds->traj = LSIM_DS_CIRCLE, keys = circle_keys;
    else if (strcmp(k, "waypoints") == 0)
        ds->traj = LSIM_DS_WAYPOINTS, keys = waypoint_keys;
    else
        return lsim_yaml_fail(y, kind, LSIM_ERR_PARSE, "trajectory.kind",
                              "%s is not a trajectory; valid: straight, circle, waypoints", LSIM_YAML_Q(y, k));
    char what[48];
    snprintf(what, sizeof what, "trajectory (%s)", k);
    if ((st = lsim_yaml_check_keys(y, map, what, keys)) != LSIM_OK)
        return st;
    ds->clearance = ds->traj == LSIM_DS_STRAIGHT ? 1.2 : 1.5;
    st = lsim_ds_opt_num(y, map, "speed", "trajectory.speed", 0.0, 100.0, 0, &ds->speed);
    if (st == LSIM_OK)
        st = lsim_ds_opt_num(y, map, "clearance", "trajectory.clearance", 0.0, 100.0, 0, &ds->clearance);
    if (st == LSIM_OK)
        st = lsim_ds_opt_num(y, map, "offset", "trajectory.offset", -1000.0, 1000.0, 0, &ds->offset);
    if (st == LSIM_OK)
        st = lsim_ds_opt_num(y, map, "radius", "trajectory.radius", 0.0, 10000.0, 1, &ds->radius);
    if (st == LSIM_OK)
        st = lsim_yaml_opt_vec(y, map, "center", "trajectory.center", ds->center, 2);
    if (st != LSIM_OK)
        return st;
    if (ds->traj == LSIM_DS_CIRCLE && !lsim_yaml_get(y, map, "radius"))
        return lsim_yaml_fail(y, map, LSIM_ERR_PARSE, "trajectory.radius", "a circle needs `radius:` in metres");
    if (ds->traj == LSIM_DS_CIRCLE && ds->speed * lsim_ds_drive_s(ds) / ds->radius > 1e4)
        return lsim_yaml_fail(y, lsim_yaml_get(y, map, "speed") ? lsim_yaml_get(y, map, "speed") : map,
                              LSIM_ERR_PARSE, "trajectory.speed",
                              "a sequence would drive %.0f times round the circle (at most about 1590); lower the speed or "
                              "frames_per_sequence, or enlarge the radius",
                              ds->speed * lsim_ds_drive_s(ds) / (2 * 3.14159265358979323846 * ds->radius));
    if (ds->traj == LSIM_DS_WAYPOINTS) {
        yaml_node_t *pts = lsim_yaml_get(y, map, "points");
        if (!pts || pts->type != YAML_SEQUENCE_NODE)
            return lsim_yaml_fail(y, pts ? pts : map, LSIM_ERR_PARSE, "trajectory.points",
                                  "waypoints need `points: [[x, y], [x, y], ...]` (at least 2)");
        size_t n = (size_t)(pts->data.sequence.items.top - pts->data.sequence.items.start);
        if (n < 2 || n > LSIM_DS_MAX_WAYPOINTS)
            return lsim_yaml_fail(y, pts, LSIM_ERR_PARSE, "trajectory.points", "%zu points; give 2 to %d [x, y] pairs",
                                  n, LSIM_DS_MAX_WAYPOINTS);
        ds->waypoints = calloc(n, sizeof *ds->waypoints);
        if (!ds->waypoints)
            return lsim_fail(ds->ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory reading trajectory.points");
        ds->waypoint_count = n;
        for (size_t i = 0; i < n; ++i) {
            yaml_node_t *p = yaml_document_get_node(&y->doc, pts->data.sequence.items.start[i]);
            char key[64];
            snprintf(key, sizeof key, "trajectory.points[%zu]", i);
            if ((st = lsim_yaml_numbers(y, p, key, ds->waypoints[i], 2, 2, NULL)) != LSIM_OK)
                return st;
            if (fabs(ds->waypoints[i][0]) > 1e6 || fabs(ds->waypoints[i][1]) > 1e6)
                return lsim_yaml_fail(y, p, LSIM_ERR_PARSE, key, "coordinates must be within +-1e6 m");
            if (i && ds->waypoints[i][0] == ds->waypoints[i - 1][0] && ds->waypoints[i][1] == ds->waypoints[i - 1][1])
                return lsim_yaml_fail(y, p, LSIM_ERR_PARSE, key, "repeats the previous point; remove it");
        }
        double total = 0.0;
        for (size_t i = 1; i < n; ++i)
            total += hypot(ds->waypoints[i][0] - ds->waypoints[i - 1][0], ds->waypoints[i][1] - ds->waypoints[i - 1][1]);
        double need = ds->speed * lsim_ds_drive_s(ds);
        if (need > total)
            return lsim_yaml_fail(y, pts, LSIM_ERR_PARSE, "trajectory.points",
                                  "the path is %.1f m long but a sequence drives %.1f m (speed x frames_per_sequence / "
                                  "rate); add points, lower the speed or frames_per_sequence", total, need);
    }
    if (ds->traj == LSIM_DS_STRAIGHT) {
        double avail = ds->layout == LSIM_DS_STREET ? ds->length : ds->extent[0];
        double need = ds->speed * lsim_ds_drive_s(ds);
        if (need > avail)
            return lsim_yaml_fail(y, lsim_yaml_get(y, map, "speed") ? lsim_yaml_get(y, map, "speed") : map,
                                  LSIM_ERR_PARSE, "trajectory.speed",
                                  "a sequence drives %.1f m but the layout is %.1f m long along x; lower the speed or "
                                  "frames_per_sequence, or lengthen the layout", need, avail);
        if (ds->layout == LSIM_DS_STREET && !(fabs(ds->offset) < ds->road_width / 2))
            return lsim_yaml_fail(y, lsim_yaml_get(y, map, "offset"), LSIM_ERR_PARSE, "trajectory.offset",
                                  "%g m puts the drive off the road (|offset| < road_width / 2 = %g)", ds->offset,
                                  ds->road_width / 2);
    }
    return LSIM_OK;
}

/* ------------------------------------------------------------------ load */

static lsim_status read_config(lsim_yaml *y, lsim_dataset *ds)
{
    yaml_node_t *root = lsim_yaml_root(y);
    lsim_status st = lsim_yaml_check_keys(y, root, "(top level)", root_keys);
    if (st != LSIM_OK)
        return st;
    long v;
    yaml_node_t *n = lsim_yaml_get(y, root, "seed");
    if (n) {
        if ((st = lsim_yaml_int(y, n, "seed", 0, 0x7fffffffffffffffL, &v)) != LSIM_OK)
            return st;
        ds->seed = (uint64_t)v;
    }
    ds->frames = 1;
    if ((n = lsim_yaml_get(y, root, "frames"))) {
        if ((st = lsim_yaml_int(y, n, "frames", 1, 100000000L, &v)) != LSIM_OK)
            return st;
        ds->frames = (size_t)v;
    }
    ds->frames_per_sequence = ds->frames;
    if ((n = lsim_yaml_get(y, root, "frames_per_sequence"))) {
        if ((st = lsim_yaml_int(y, n, "frames_per_sequence", 1, 1000000L, &v)) != LSIM_OK)
            return st;
        ds->frames_per_sequence = (size_t)v;
    }
    if ((n = lsim_yaml_get(y, root, "points_format"))) {
        const char *name;
        if ((st = lsim_yaml_string(y, n, "points_format", &name)) != LSIM_OK)
            return st;
        if (strcmp(name, "pcd") && strcmp(name, "ply") && strcmp(name, "las") && strcmp(name, "csv"))
            return lsim_yaml_fail(y, n, LSIM_ERR_PARSE, "points_format",
                                  "%s is not a point format; valid: %s (leave the key out for none)",
                                  LSIM_YAML_Q(y, name),
                                  LSIM_DATASET_POINTS_FORMATS);
        lsim_format_parse(name, &ds->points_format);
    }
    if ((st = read_sensor(y, ds)) != LSIM_OK)
        return st;
    if (lsim_ds_drive_s(ds) > LSIM_MOTION_MAX_TIME) { /* the last frames' scan times would be refused */
        yaml_node_t *at = lsim_yaml_get(y, root, "frames_per_sequence");
        return lsim_yaml_fail(y, at ? at : lsim_yaml_get(y, root, "frames"), LSIM_ERR_PARSE,
                              at ? "frames_per_sequence" : "frames",
                              "%zu frames of %g s (1 / the sensor's rate_hz) make a sequence of %g s; at most %g s "
                              "(the scene clock's range): lower frames_per_sequence or raise sensor.rate_hz",
                              ds->frames_per_sequence, ds->frame_period_s, lsim_ds_drive_s(ds),
                              (double)LSIM_MOTION_MAX_TIME);
    }
    /* Materials: read into a scratch scene to check them (and the names the rest refers to);
     * each sequence's scene reads them again from the kept document. */
    lsim_scene *materials = NULL;
    if ((st = lsim_scene_create(ds->ctx, &materials)) != LSIM_OK)
        return st;
    ds->materials_node = lsim_yaml_get(y, root, "materials");
    if (ds->materials_node)
        st = lsim_scene_file_read_materials(y, ds->materials_node, ds->dir, materials);
    if (st == LSIM_OK)
        st = read_layout(y, ds, materials);
    if (st == LSIM_OK)
        st = read_jitter(y, ds);
    if (st == LSIM_OK)
        st = read_trajectory(y, ds);
    if (st == LSIM_OK)
        st = lsim_ds_read_library(y, ds, materials);
    lsim_scene_destroy(materials);
    return st;
}

lsim_status lsim_dataset_load(lsim_context *ctx, const char *path, lsim_dataset **out)
{
    if (!ctx || !path || !out)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_dataset_load: ctx, path and out must not be NULL");
    *out = NULL;
    lsim_dataset *ds = calloc(1, sizeof *ds);
    if (!ds)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory loading the dataset config '%s'", path);
    ds->ctx = ctx;
    ds->path = lsim_strdup(path);
    if (!ds->path) {
        free(ds);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory loading the dataset config '%s'", path);
    }
    lsim_strlcpy(ds->dir, path, sizeof ds->dir);
    char *slash = strrchr(ds->dir, '/');
    if (!slash)
        ds->dir[0] = '\0';
    else if (slash == ds->dir)
        ds->dir[1] = '\0';
    else
        *slash = '\0';
    lsim_status st = lsim_file_read_all(ctx, path, LSIM_INPUT_DATASET_CONFIG, &ds->text, &ds->text_len);
    if (st == LSIM_OK && strspn(ds->text, " \t\r\n") == ds->text_len)
        st = lsim_fail(ctx, LSIM_ERR_PARSE, "dataset config '%s' is empty; it needs `sensor:`, `layout:` and "
                       "usually `library:` (see examples/dataset/README.md)", path);
    if (st == LSIM_OK)
        st = lsim_yaml_load(ctx, ds->path, &ds->yaml);
    if (st == LSIM_OK)
        st = read_config(&ds->yaml, ds);
    if (st != LSIM_OK) {
        lsim_dataset_destroy(ds);
        return st;
    }
    *out = ds;
    return LSIM_OK;
}

void lsim_dataset_destroy(lsim_dataset *ds)
{
    if (!ds)
        return;
    for (size_t i = 0; i < ds->entry_count; ++i) {
        free(ds->entries[i].mesh_path);
        lsim_mesh_arrays_free(&ds->entries[i].mesh);
    }
    free(ds->entries);
    free(ds->waypoints);
    lsim_yaml_free(&ds->yaml);
    free(ds->text);
    free(ds->path);
    free(ds);
}

void lsim_dataset_get_info(const lsim_dataset *ds, lsim_dataset_info *out)
{
    if (!out)
        return;
    memset(out, 0, sizeof *out);
    if (!ds)
        return;
    out->frames = ds->frames;
    out->frames_per_sequence = ds->frames_per_sequence;
    out->seed = ds->seed;
    out->points_format = ds->points_format;
    out->frame_period_s = ds->frame_period_s;
    out->path = ds->path;
    out->text = ds->text;
    out->text_len = ds->text_len;
}
