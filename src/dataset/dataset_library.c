/* The dataset config's `library:` (examples/dataset/README.md): each entry's shape (meshes
 * imported here, once per load), fix-up rotation, label, material, count, size, place, speed
 * and yaw rule, its bounds, and whether the entries can fit their places at all. */
#include "dataset/dataset_internal.h"

#include "core/context.h"
#include "core/text.h"
#include "core/vec.h"
#include "scene/scene.h"
#include "scene/scene_file.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const entry_keys[] = {"mesh", "box", "sphere", "rotation", "label", "material", "count",
                                         "length", "on", "speed", "yaw", NULL};

static void entry_bounds(lsim_ds_entry *e)
{
    lsim_mat3 r = lsim_mat3_from_rpy_deg(e->rotation);
    for (int a = 0; a < 3; ++a)
        e->bmin[a] = INFINITY, e->bmax[a] = -INFINITY;
    size_t n = e->shape == LSIM_DS_MESH ? e->mesh.vertex_count : e->shape == LSIM_DS_BOX ? 8 : 0;
    for (size_t i = 0; i < n; ++i) {
        lsim_vec3 p;
        if (e->shape == LSIM_DS_MESH)
            p = lsim_v3(e->mesh.vertices[3 * i], e->mesh.vertices[3 * i + 1], e->mesh.vertices[3 * i + 2]);
        else
            p = lsim_v3((i & 1 ? 0.5 : -0.5) * e->box[0], (i & 2 ? 0.5 : -0.5) * e->box[1],
                        (i & 4 ? 0.5 : -0.5) * e->box[2]);
        lsim_vec3 q = lsim_mat3_mul(&r, p);
        const double c[3] = {q.x, q.y, q.z};
        for (int a = 0; a < 3; ++a) {
            e->bmin[a] = fmin(e->bmin[a], c[a]);
            e->bmax[a] = fmax(e->bmax[a], c[a]);
        }
    }
    if (e->shape == LSIM_DS_SPHERE)
        for (int a = 0; a < 3; ++a)
            e->bmin[a] = -e->radius, e->bmax[a] = e->radius;
    e->extent = fmax(e->bmax[0] - e->bmin[0], e->bmax[1] - e->bmin[1]);
}

static lsim_status read_shape(lsim_yaml *y, yaml_node_t *map, const char *key, lsim_dataset *ds, lsim_ds_entry *e)
{
    static const char *const shapes[] = {"mesh", "box", "sphere"};
    yaml_node_t *shape = NULL;
    int which = -1;
    for (int i = 0; i < 3; ++i) {
        yaml_node_t *s = lsim_yaml_get(y, map, shapes[i]);
        if (s && shape)
            return lsim_yaml_fail(y, s, LSIM_ERR_PARSE, key, "an entry has one shape; found both '%s' and '%s'",
                                  shapes[which], shapes[i]);
        if (s)
            shape = s, which = i;
    }
    if (!shape)
        return lsim_yaml_fail(y, map, LSIM_ERR_PARSE, key,
                              "needs a shape: mesh: FILE, box: [x, y, z] (metres) or sphere: RADIUS");
    char sub[96];
    snprintf(sub, sizeof sub, "%s.%s", key, shapes[which]);
    lsim_status st;
    e->shape = (lsim_ds_shape)which;
    if (e->shape == LSIM_DS_BOX) {
        if ((st = lsim_yaml_numbers(y, shape, sub, e->box, 3, 3, NULL)) != LSIM_OK)
            return st;
        if (!(e->box[0] > 0 && e->box[1] > 0 && e->box[2] > 0 && e->box[0] <= 1e4 && e->box[1] <= 1e4 &&
              e->box[2] <= 1e4))
            return lsim_yaml_fail(y, shape, LSIM_ERR_PARSE, sub, "[%g, %g, %g]: sizes must be above 0 and at most 1e4 m",
                                  e->box[0], e->box[1], e->box[2]);
        return LSIM_OK;
    }
    if (e->shape == LSIM_DS_SPHERE) {
        if ((st = lsim_yaml_number(y, shape, sub, &e->radius)) != LSIM_OK)
            return st;
        if (!(e->radius > 0 && e->radius <= 1e4))
            return lsim_yaml_fail(y, shape, LSIM_ERR_PARSE, sub, "radius %g must be above 0 and at most 1e4 m", e->radius);
        return LSIM_OK;
    }
    const char *name;
    if ((st = lsim_yaml_string(y, shape, sub, &name)) != LSIM_OK)
        return st;
    char path[4096];
    if (lsim_scene_file_resolve(ds->dir, name, path, sizeof path))
        return lsim_yaml_fail(y, shape, LSIM_ERR_PARSE, sub, "a path of %zu bytes is too long", strlen(name));
    e->mesh_path = lsim_strdup(path);
    if (!e->mesh_path)
        return lsim_fail(ds->ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory reading %s", sub);
    /* The same file in an earlier entry: share nothing, but import it once more only if needed. */
    for (size_t i = 0; &ds->entries[i] != e; ++i) {
        const lsim_ds_entry *o = &ds->entries[i];
        if (o->shape == LSIM_DS_MESH && strcmp(o->mesh_path, path) == 0) {
            lsim_mesh_arrays *m = &e->mesh;
            m->vertices = malloc(3 * o->mesh.vertex_count * sizeof(float));
            m->indices = malloc(3 * o->mesh.triangle_count * sizeof(uint32_t));
            if (!m->vertices || !m->indices)
                return lsim_fail(ds->ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory copying mesh '%s'", path);
            memcpy(m->vertices, o->mesh.vertices, 3 * o->mesh.vertex_count * sizeof(float));
            memcpy(m->indices, o->mesh.indices, 3 * o->mesh.triangle_count * sizeof(uint32_t));
            m->vertex_count = o->mesh.vertex_count;
            m->triangle_count = o->mesh.triangle_count;
            return LSIM_OK;
        }
    }
    st = lsim_mesh_read(ds->ctx, path, &e->mesh);
    if (st != LSIM_OK) {
        char msg[LSIM_ERROR_MAX];
        lsim_strlcpy(msg, lsim_context_last_error(ds->ctx), sizeof msg);
        return lsim_yaml_fail(y, shape, st, sub, "%s", msg);
    }
    if (e->mesh.vertex_count == 0 || e->mesh.triangle_count == 0)
        return lsim_yaml_fail(y, shape, LSIM_ERR_PARSE, sub, "mesh '%s' has no triangles; give another file", path);
    return LSIM_OK;
}

static lsim_status read_entry(lsim_yaml *y, yaml_node_t *map, size_t index, lsim_dataset *ds,
                              const lsim_scene *materials)
{
    lsim_ds_entry *e = &ds->entries[index];
    memset(e, 0, sizeof *e);
    ++ds->entry_count; /* freed with the dataset from here on */
    e->line = (int)map->start_mark.line + 1;
    char key[48], sub[96];
    snprintf(key, sizeof key, "library[%zu]", index);
    lsim_status st = lsim_yaml_check_keys(y, map, key, entry_keys);
    if (st == LSIM_OK)
        st = read_shape(y, map, key, ds, e);
    snprintf(sub, sizeof sub, "%s.rotation", key);
    if (st == LSIM_OK)
        st = lsim_yaml_opt_vec(y, map, "rotation", sub, e->rotation, 3);
    if (st == LSIM_OK && (fabs(e->rotation[0]) > 1e4 || fabs(e->rotation[1]) > 1e4 || fabs(e->rotation[2]) > 1e4))
        st = lsim_yaml_fail(y, lsim_yaml_get(y, map, "rotation"), LSIM_ERR_PARSE, sub, "angles must be within +-1e4 deg");
    yaml_node_t *label = lsim_yaml_get(y, map, "label");
    snprintf(sub, sizeof sub, "%s.label", key);
    const char *text = "unlabeled";
    if (st == LSIM_OK && label && (st = lsim_yaml_string(y, label, sub, &text)) == LSIM_OK &&
        (!text[0] || strlen(text) >= LSIM_DS_NAME_MAX))
        st = lsim_yaml_fail(y, label, LSIM_ERR_PARSE, sub, "label name is %zu characters long; use 1 to %d",
                            strlen(text), LSIM_DS_NAME_MAX - 1);
    if (st == LSIM_OK)
        lsim_strlcpy(e->label, text, sizeof e->label);
    snprintf(sub, sizeof sub, "%s.material", key);
    if (st == LSIM_OK)
        st = lsim_ds_opt_material(y, map, "material", sub, materials, e->material);
    /* count */
    double count[2] = {1, 1};
    snprintf(sub, sizeof sub, "%s.count", key);
    yaml_node_t *cn = lsim_yaml_get(y, map, "count");
    if (st == LSIM_OK)
        st = lsim_ds_opt_range(y, map, "count", sub, 0, LSIM_DS_MAX_COUNT, count);
    if (st == LSIM_OK && (count[0] != floor(count[0]) || count[1] != floor(count[1])))
        st = lsim_yaml_fail(y, cn, LSIM_ERR_PARSE, sub, "counts are whole numbers: N or [min, max]");
    e->count_lo = (long)count[0];
    e->count_hi = (long)count[1];
    snprintf(sub, sizeof sub, "%s.length", key);
    if (st == LSIM_OK)
        st = lsim_ds_opt_range(y, map, "length", sub, 1e-3, 1e4, e->length);
    snprintf(sub, sizeof sub, "%s.speed", key);
    if (st == LSIM_OK)
        st = lsim_ds_opt_range(y, map, "speed", sub, 0, 100, e->speed);
    /* on */
    e->on = ds->layout == LSIM_DS_STREET ? LSIM_DS_ON_ROAD : LSIM_DS_ON_GROUND;
    yaml_node_t *on = lsim_yaml_get(y, map, "on");
    snprintf(sub, sizeof sub, "%s.on", key);
    if (st == LSIM_OK && on) {
        const char *s;
        if ((st = lsim_yaml_string(y, on, sub, &s)) != LSIM_OK)
            return st;
        int found = 0;
        for (int i = 0; i <= (int)LSIM_DS_ON_ANYWHERE; ++i)
            if (strcmp(s, lsim_ds_on_name((lsim_ds_on)i)) == 0)
                e->on = (lsim_ds_on)i, found = 1;
        if (!found)
            return lsim_yaml_fail(y, on, LSIM_ERR_PARSE, sub, "%s is not a place; valid: road, sidewalk, ground, "
                                  "anywhere", LSIM_YAML_Q(y, s));
        if (ds->layout == LSIM_DS_SCATTER && (e->on == LSIM_DS_ON_ROAD || e->on == LSIM_DS_ON_SIDEWALK))
            return lsim_yaml_fail(y, on, LSIM_ERR_PARSE, sub, "a scatter layout has no %s; use ground or anywhere", s);
    }
    /* yaw */
    e->yaw_aligned = ds->layout == LSIM_DS_STREET && e->on == LSIM_DS_ON_ROAD;
    yaml_node_t *yaw = lsim_yaml_get(y, map, "yaw");
    snprintf(sub, sizeof sub, "%s.yaw", key);
    if (st == LSIM_OK && yaw) {
        const char *s;
        if ((st = lsim_yaml_string(y, yaw, sub, &s)) != LSIM_OK)
            return st;
        if (strcmp(s, "aligned") == 0)
            e->yaw_aligned = 1;
        else if (strcmp(s, "random") == 0)
            e->yaw_aligned = 0;
        else
            return lsim_yaml_fail(y, yaw, LSIM_ERR_PARSE, sub, "%s is not a yaw rule; valid: aligned (+-x), random",
                                  LSIM_YAML_Q(y, s));
    }
    if (st != LSIM_OK)
        return st;
    entry_bounds(e);
    if (!(e->extent > 0.0))
        return lsim_yaml_fail(y, map, LSIM_ERR_PARSE, key, "the shape has no horizontal extent; check its rotation");
    return LSIM_OK;
}

/* Smallest footprint of one object of the entry (m^2) and its narrowest side (m). */
static void entry_min_footprint(const lsim_ds_entry *e, double *area, double *side)
{
    double s = e->length[1] > 0 ? e->length[0] / e->extent : 1.0;
    double w = (e->bmax[0] - e->bmin[0]) * s, d = (e->bmax[1] - e->bmin[1]) * s;
    *area = w * d;
    *side = e->yaw_aligned ? d : fmin(w, d);
}

static lsim_status check_room(lsim_yaml *y, lsim_dataset *ds, yaml_node_t *lib)
{
    double need[4] = {0, 0, 0, 0}, objects = 0.0, triangles = 0.0;
    for (size_t i = 0; i < ds->entry_count; ++i) {
        const lsim_ds_entry *e = &ds->entries[i];
        yaml_node_t *node = yaml_document_get_node(&y->doc, lib->data.sequence.items.start[i]);
        yaml_node_t *cn = lsim_yaml_get(y, node, "count");
        char key[64];
        snprintf(key, sizeof key, "library[%zu].count", i);
        objects += (double)e->count_hi;
        if (objects > LSIM_DS_MAX_OBJECTS)
            return lsim_yaml_fail(y, cn ? cn : node, LSIM_ERR_PARSE, key,
                                  "the library's entries up to here place up to %.0f objects per sequence (the sum "
                                  "of their count maxima); at most %d: lower the counts", objects, LSIM_DS_MAX_OBJECTS);
        if (e->shape == LSIM_DS_MESH) {
            triangles += (double)e->count_hi * (double)e->mesh.triangle_count;
            if (triangles > LSIM_DS_MAX_TRIANGLES)
                return lsim_yaml_fail(y, cn ? cn : node, LSIM_ERR_PARSE, key,
                                      "the mesh entries up to here place up to %.0f triangles per sequence (this "
                                      "mesh has %zu, times its count maximum %ld); at most %d: lower the count or "
                                      "use a smaller mesh", triangles, e->mesh.triangle_count, e->count_hi,
                                      LSIM_DS_MAX_TRIANGLES);
        }
        double area, side;
        entry_min_footprint(e, &area, &side);
        double width = lsim_ds_region_width(ds, e->on);
        if (e->count_lo > 0 && side > width)
            return lsim_yaml_fail(y, cn ? cn : node, LSIM_ERR_PARSE, key,
                                  "one %s is at least %.2f m wide but the widest free strip of the %s is %.2f m; "
                                  "shrink `length`, widen the layout or place it elsewhere (`on:`)",
                                  LSIM_YAML_Q(y, e->label), side, lsim_ds_on_name(e->on), width);
        need[e->on] += (double)e->count_lo * area;
        double have = lsim_ds_region_area(ds, e->on);
        double total = e->on != LSIM_DS_ON_ANYWHERE ? need[e->on] : need[0] + need[1] + need[2] + need[3];
        if (e->count_lo > 0 && total > have)
            return lsim_yaml_fail(y, cn ? cn : node, LSIM_ERR_PARSE, key,
                                  "at least %ld %s (%.1f m^2 each) cannot fit: the objects on the %s need at least "
                                  "%.0f m^2 of footprint but it has %.0f m^2 free of the sensor's lane; lower the "
                                  "count or enlarge the layout", e->count_lo, LSIM_YAML_Q(y, e->label), area,
                                  lsim_ds_on_name(e->on),
                                  total, have);
    }
    return LSIM_OK;
}

lsim_status lsim_ds_read_library(lsim_yaml *y, lsim_dataset *ds, const lsim_scene *materials)
{
    yaml_node_t *root = lsim_yaml_root(y), *lib = lsim_yaml_get(y, root, "library");
    if (!lib)
        return LSIM_OK;
    if (lib->type != YAML_SEQUENCE_NODE)
        return lsim_yaml_fail(y, lib, LSIM_ERR_PARSE, "library", "expected a list (each entry starts with '- ')");
    size_t n = (size_t)(lib->data.sequence.items.top - lib->data.sequence.items.start);
    if (n > LSIM_DS_MAX_ENTRIES)
        return lsim_yaml_fail(y, lib, LSIM_ERR_PARSE, "library", "%zu entries; at most %d", n, LSIM_DS_MAX_ENTRIES);
    ds->entries = calloc(n ? n : 1, sizeof *ds->entries);
    if (!ds->entries)
        return lsim_fail(ds->ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory reading the library");
    lsim_status st = LSIM_OK;
    for (size_t i = 0; i < n && st == LSIM_OK; ++i)
        st = read_entry(y, yaml_document_get_node(&y->doc, lib->data.sequence.items.start[i]), i, ds, materials);
    return st == LSIM_OK ? check_room(y, ds, lib) : st;
}
