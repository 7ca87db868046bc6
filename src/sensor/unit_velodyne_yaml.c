/* The ROS velodyne_pointcloud calibration YAML: `lasers: [{laser_id, vert_correction,
 * rot_correction, vert_offset_correction, horiz_offset_correction, ...}]`, `num_lasers`,
 * `distance_resolution`; radians and metres. Loaded by the bounded YAML loader every YAML file
 * goes through (core/yaml_load.h: depth, values), with no list or mapping longer than
 * LSIM_VELODYNE_MAX_LASERS: a list of 8 M zeros is refused at its 129th item, before anything is
 * built. Messages name the file and line. */
#include "sensor/unit_calibration.h"

#include "core/context.h"
#include "core/vec.h"
#include "core/yaml_load.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

static yaml_node_t *yaml_key(yaml_document_t *doc, yaml_node_t *map, const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; ++p) {
        yaml_node_t *k = yaml_document_get_node(doc, p->key);
        if (k && k->type == YAML_SCALAR_NODE && strcmp((const char *)k->data.scalar.value, key) == 0)
            return yaml_document_get_node(doc, p->value);
    }
    return NULL;
}

static lsim_status yaml_number(lsim_context *ctx, const char *path, yaml_document_t *doc, yaml_node_t *map,
                               const char *key, int optional, double *out)
{
    yaml_node_t *v = yaml_key(doc, map, key);
    if (!v) {
        if (optional)
            return LSIM_OK;
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: this laser has no '%s'", path, map->start_mark.line + 1, key);
    }
    char *end = NULL;
    const char *s = v->type == YAML_SCALAR_NODE ? (const char *)v->data.scalar.value : "";
    double d = strtod(s, &end);
    /* the value is not quoted: a path may name a file that is not what it should be (issue 23) */
    if (v->type != YAML_SCALAR_NODE || end == s || *end != '\0' || !isfinite(d))
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: %s: expected a finite number (radians or metres), got %s",
                         path, v->start_mark.line + 1, key,
                         v->type == YAML_SEQUENCE_NODE  ? "a list"
                         : v->type == YAML_MAPPING_NODE ? "a mapping"
                         : !*s                          ? "an empty value"
                                                        : "a scalar that is not one");
    *out = d;
    return LSIM_OK;
}

static const char *const ros_keys[] = {"lasers", "num_lasers", "distance_resolution", NULL};

/* What a ROS calibration may hold: a list of at most 128 lasers, each a mapping of a dozen keys. */
static const lsim_yaml_limits ros_limits = {
    LSIM_VELODYNE_YAML_MAX_VALUES, LSIM_VELODYNE_MAX_LASERS, "sensor calibration",
    "`lasers:` (a list of {laser_id, vert_correction, ...})",
    "a velodyne_pointcloud calibration lists at most 128 lasers of a dozen keys each", ros_keys};

lsim_status lsim_velodyne_read_yaml(lsim_context *ctx, const char *path, const char *text, size_t size,
                                    lsim_velodyne_table *table, int *recognised)
{
    yaml_document_t doc;
    memset(table, 0, sizeof *table);
    *recognised = 1; /* a YAML error is the file's own */
    lsim_status st = lsim_yaml_read_text(ctx, path, text, size, &ros_limits, &doc);
    if (st != LSIM_OK)
        return st;
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    yaml_node_t *lasers = yaml_key(&doc, root, "lasers");
    *recognised = lasers != NULL;
    if (!lasers || lasers->type != YAML_SEQUENCE_NODE) {
        st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: a velodyne_pointcloud calibration needs `lasers:` (a list of "
                       "{laser_id, vert_correction, rot_correction, ...})", path, root ? root->start_mark.line + 1 : 1);
        yaml_document_delete(&doc);
        return st;
    }
    st = yaml_number(ctx, path, &doc, root, "distance_resolution", 1, &table->distance_resolution_m);
    size_t n = (size_t)(lasers->data.sequence.items.top - lasers->data.sequence.items.start);
    if (st == LSIM_OK && (n < 1 || n > LSIM_VELODYNE_MAX_LASERS))
        st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: lasers has %zu entries, must be 1..%d", path,
                       lasers->start_mark.line + 1, n, LSIM_VELODYNE_MAX_LASERS);
    double count = (double)n;
    if (st == LSIM_OK)
        st = yaml_number(ctx, path, &doc, root, "num_lasers", 1, &count);
    if (st == LSIM_OK && count != (double)n)
        st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s: num_lasers is %g but lasers lists %zu", path, count, n);
    for (size_t i = 0; i < n && st == LSIM_OK; ++i) {
        yaml_node_t *l = yaml_document_get_node(&doc, lasers->data.sequence.items.start[i]);
        lsim_velodyne_laser *out = &table->laser[i];
        double id = -1.0;
        if (!l || l->type != YAML_MAPPING_NODE) {
            st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: lasers[%zu] is not a mapping", path,
                           l ? l->start_mark.line + 1 : 0, i);
            break;
        }
        if ((st = yaml_number(ctx, path, &doc, l, "laser_id", 0, &id)) == LSIM_OK &&
            (st = yaml_number(ctx, path, &doc, l, "vert_correction", 0, &out->vert_rad)) == LSIM_OK &&
            (st = yaml_number(ctx, path, &doc, l, "rot_correction", 1, &out->rot_rad)) == LSIM_OK &&
            (st = yaml_number(ctx, path, &doc, l, "vert_offset_correction", 1, &out->vert_offset_m)) == LSIM_OK)
            st = yaml_number(ctx, path, &doc, l, "horiz_offset_correction", 1, &out->horiz_offset_m);
        if (st == LSIM_OK && !(id == floor(id) && fabs(id) < 1e6))
            st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: laser_id %g is not a whole number", path,
                           l->start_mark.line + 1, id);
        if (st == LSIM_OK)
            out->id = (int)id;
    }
    table->count = (int)n;
    yaml_document_delete(&doc);
    return st;
}
