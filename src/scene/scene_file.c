/* lsim_scene_load: the scene file's materials, labels and objects. */
#include "scene/scene_file.h"

#include "core/clock.h"
#include "core/context.h"
#include "core/file_id.h"
#include "core/text.h"
#include "calib/calibration.h"
#include "scene/mesh_cache.h"
#include "scene/trajectory_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const root_keys[] = {"sensor", "materials", "labels", "objects", "max_bounces", "atmosphere",
                                        "ambient", "engine", "raster", NULL};
static const char *const raster_keys[] = {"oversample", "group_ms", "normal_correction", "depth_bits", NULL};
static const char *const object_keys[] = {"box", "sphere", "plane", "mesh", "position", "rotation",
                                          "scale", "material", "label", "velocity", "angular_velocity_deg_s",
                                          "trajectory", "name", NULL};
static const char *const box_keys[] = {"size", NULL};
static const char *const sphere_keys[] = {"radius", NULL};
static const char *const plane_keys[] = {"size", NULL};

int lsim_scene_file_resolve(const char *dir, const char *name, char *out, size_t size)
{
    int n = (name[0] == '/' || !dir[0]) ? snprintf(out, size, "%s", name) : snprintf(out, size, "%s/%s", dir, name);
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

static void dir_of(const char *path, char *dir, size_t size)
{
    lsim_strlcpy(dir, path, size);
    char *slash = strrchr(dir, '/');
    if (!slash)
        dir[0] = '\0'; /* the current directory: names stay as written (and read so in messages) */
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
}

/* Keys each BRDF takes besides `brdf` (the first is required). */
static const struct {
    lsim_material_type type;
    const char *name;
    const char *const keys[6];
} material_kinds[] = {
    {LSIM_MATERIAL_LAMBERTIAN, "lambertian", {"reflectance", NULL}},
    {LSIM_MATERIAL_OREN_NAYAR, "oren-nayar", {"reflectance", "roughness", NULL}},
    {LSIM_MATERIAL_COOK_TORRANCE, "cook-torrance", {"reflectance", "roughness", "ior", "f0", "metallic", NULL}},
    {LSIM_MATERIAL_RETROREFLECTOR, "retroreflector", {"peak", "falloff_deg", NULL}},
    {LSIM_MATERIAL_MIRROR, "mirror", {"reflectance", NULL}},
    {LSIM_MATERIAL_GLASS, "glass", {"ior", "transmittance", NULL}},
};

static double *material_field(lsim_material_desc *d, const char *key)
{
    if (strcmp(key, "reflectance") == 0) return &d->reflectance;
    if (strcmp(key, "roughness") == 0) return &d->roughness;
    if (strcmp(key, "ior") == 0) return &d->ior;
    if (strcmp(key, "f0") == 0) return &d->f0;
    if (strcmp(key, "metallic") == 0) return &d->metallic;
    if (strcmp(key, "peak") == 0) return &d->peak;
    if (strcmp(key, "falloff_deg") == 0) return &d->falloff_deg;
    return &d->transmittance;
}

/* The calibration files read during one scene load, each parsed once however many materials
 * refer to it (2,000 `calibration: FILE#m` re-parsed FILE 2,000 times: 4.9 s). Keyed by the
 * file's identity (device and inode), so that two spellings of one path share an entry, and by
 * the resolved path. */
typedef struct calib_cache_entry {
    char *key; /* the resolved path */
    lsim_file_id id;
    lsim_calibration cal;
} calib_cache_entry;

typedef struct calib_cache {
    calib_cache_entry *entries;
    size_t count, capacity;
} calib_cache;

static void calib_cache_free(calib_cache *c)
{
    for (size_t i = 0; i < c->count; ++i) {
        free(c->entries[i].key);
        lsim_calibration_free(&c->entries[i].cal);
    }
    free(c->entries);
    memset(c, 0, sizeof *c);
}

/* The calibration in `path`, read on first use; NULL (error in ctx) when it cannot be read. */
static const lsim_calibration *calib_cache_get(lsim_context *ctx, calib_cache *c, const char *path)
{
    const lsim_file_id id = lsim_file_id_of(path);
    for (size_t i = 0; i < c->count; ++i)
        if (lsim_file_id_same(&c->entries[i].id, c->entries[i].key, &id, path))
            return &c->entries[i].cal;
    if (c->count == c->capacity) {
        size_t n = c->capacity ? 2 * c->capacity : 4;
        calib_cache_entry *e = realloc(c->entries, n * sizeof *e);
        if (!e) {
            lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory reading the calibration %s", path);
            return NULL;
        }
        c->entries = e;
        c->capacity = n;
    }
    calib_cache_entry *e = &c->entries[c->count];
    e->id = id;
    e->key = lsim_strdup(path);
    if (!e->key) {
        lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory reading the calibration %s", path);
        return NULL;
    }
    if (lsim_calibration_read(ctx, path, &e->cal) != LSIM_OK) {
        free(e->key);
        return NULL;
    }
    ++c->count;
    return &e->cal;
}

/* `calibration: FILE#material` (FILE relative to the scene file; without #, the same name). */
static lsim_status read_calibrated(lsim_yaml *y, yaml_node_t *v, const char *name, const char *key, const char *dir,
                                   lsim_scene *scene, calib_cache *cache)
{
    static const char *const keys[] = {"calibration", NULL};
    char sub[192];
    snprintf(sub, sizeof sub, "%s.calibration", key);
    lsim_status st = lsim_yaml_check_keys(y, v, key, keys);
    yaml_node_t *node = lsim_yaml_get(y, v, "calibration");
    const char *text = NULL;
    if (st == LSIM_OK)
        st = lsim_yaml_string(y, node, sub, &text);
    if (st != LSIM_OK)
        return st;
    char file[4096], path[4096];
    const char *hash = strrchr(text, '#');
    size_t len = hash ? (size_t)(hash - text) : strlen(text);
    if (len == 0 || len >= sizeof file || (hash && !hash[1]))
        return lsim_yaml_fail(y, node, LSIM_ERR_PARSE, sub, "%s must be FILE#material (e.g. calib.yaml#wall)",
                              LSIM_YAML_Q(y, text));
    memcpy(file, text, len);
    file[len] = '\0';
    if (lsim_scene_file_resolve(dir, file, path, sizeof path))
        return lsim_yaml_fail(y, node, LSIM_ERR_PARSE, sub, "a path of %zu bytes is too long", strlen(file));
    /* From the file's one parse; a name the file lacks goes through lsim_scene_add_calibrated_material
     * (one more read) for its message listing the names the file has. */
    const lsim_calibration *cal = calib_cache_get(y->ctx, cache, path);
    const lsim_calib_material *found = cal ? lsim_calibration_find(cal, hash ? hash + 1 : name) : NULL;
    lsim_status added = !cal ? (lsim_context_last_status(y->ctx) == LSIM_ERR_OUT_OF_MEMORY ? LSIM_ERR_OUT_OF_MEMORY
                                                                                           : LSIM_ERR_PARSE)
                      : found ? lsim_scene_add_calibration(scene, name, found)
                              : lsim_scene_add_calibrated_material(scene, name, path, hash ? hash + 1 : name);
    if (added != LSIM_OK) {
        char msg[LSIM_ERROR_MAX];
        lsim_strlcpy(msg, lsim_context_last_error(y->ctx), sizeof msg);
        return lsim_yaml_fail(y, node, added == LSIM_ERR_OUT_OF_MEMORY ? added : LSIM_ERR_PARSE, sub, "%s", msg);
    }
    return LSIM_OK;
}

static lsim_status read_material(lsim_yaml *y, yaml_node_t *k, yaml_node_t *v, const char *name, const char *dir,
                                 lsim_scene *scene, calib_cache *cache)
{
    char key[128], sub[192];
    snprintf(key, sizeof key, "materials.%s", name);
    if (v->type != YAML_MAPPING_NODE)
        return lsim_yaml_fail(y, v, LSIM_ERR_PARSE, key, "expected a mapping like {brdf: lambertian, reflectance: 0.5}");
    if (lsim_yaml_get(y, v, "calibration"))
        return read_calibrated(y, v, name, key, dir, scene, cache);
    int kind = 0;
    yaml_node_t *brdf = lsim_yaml_get(y, v, "brdf");
    snprintf(sub, sizeof sub, "%s.brdf", key);
    if (brdf) {
        const char *b;
        lsim_status st = lsim_yaml_string(y, brdf, sub, &b);
        if (st != LSIM_OK)
            return st;
        for (kind = 0; kind < (int)(sizeof material_kinds / sizeof material_kinds[0]); ++kind)
            if (strcmp(b, material_kinds[kind].name) == 0)
                break;
        if (kind == (int)(sizeof material_kinds / sizeof material_kinds[0]))
            return lsim_yaml_fail(y, brdf, LSIM_ERR_PARSE, sub,
                                  "unknown BRDF %s; valid: lambertian, oren-nayar, cook-torrance, retroreflector, "
                                  "mirror, glass", LSIM_YAML_Q(y, b));
    }
    const char *allowed[9] = {"brdf", "calibration"};
    int n_allowed = 2;
    for (int i = 0; material_kinds[kind].keys[i]; ++i)
        allowed[n_allowed++] = material_kinds[kind].keys[i];
    allowed[n_allowed] = NULL;
    lsim_status st = lsim_yaml_check_keys(y, v, key, allowed);
    if (st != LSIM_OK)
        return st;
    const char *required = material_kinds[kind].keys[0];
    if (!lsim_yaml_get(y, v, required))
        return lsim_yaml_fail(y, v, LSIM_ERR_PARSE, key, "a %s material needs `%s:`", material_kinds[kind].name,
                              required);
    lsim_material_desc desc;
    lsim_material_desc_init(&desc, material_kinds[kind].type);
    for (int i = 2; i < n_allowed && st == LSIM_OK; ++i) {
        snprintf(sub, sizeof sub, "%s.%s", key, allowed[i]);
        st = lsim_yaml_opt_number(y, v, allowed[i], sub, material_field(&desc, allowed[i]));
    }
    if (st != LSIM_OK)
        return st;
    if (lsim_scene_add_material(scene, name, &desc) == LSIM_OK)
        return LSIM_OK;
    /* "materials.NAME.KEY: ..." -> at KEY's line; otherwise at the material's name. */
    char msg[LSIM_ERROR_MAX];
    lsim_strlcpy(msg, lsim_context_last_error(y->ctx), sizeof msg);
    size_t klen = strlen(key);
    yaml_node_t *at = k;
    const char *text = msg;
    if (strncmp(msg, key, klen) == 0 && msg[klen] == '.') {
        char field[64];
        size_t f = 0;
        for (const char *c = msg + klen + 1; *c && *c != ':' && f < sizeof field - 1; ++c)
            field[f++] = *c;
        field[f] = '\0';
        yaml_node_t *node = lsim_yaml_get(y, v, field);
        if (node)
            at = node;
        const char *colon = strstr(msg, ": ");
        if (colon) {
            snprintf(sub, sizeof sub, "%s.%s", key, field);
            return lsim_yaml_fail(y, at, LSIM_ERR_PARSE, sub, "%s", colon + 2);
        }
    }
    return lsim_yaml_fail(y, at, LSIM_ERR_PARSE, key, "%s", text);
}

static lsim_status read_materials(lsim_yaml *y, yaml_node_t *map, const char *dir, lsim_scene *scene,
                                  calib_cache *cache)
{
    if (map->type != YAML_MAPPING_NODE)
        return lsim_yaml_fail(y, map, LSIM_ERR_PARSE, "materials",
                              "expected a mapping of name: {brdf: lambertian, reflectance: 0.5}");
    lsim_status unique = lsim_yaml_check_unique(y, map, "materials");
    if (unique != LSIM_OK)
        return unique;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; ++p) {
        yaml_node_t *k = yaml_document_get_node(&y->doc, p->key), *v = yaml_document_get_node(&y->doc, p->value);
        const char *name = NULL;
        lsim_status st = lsim_yaml_string(y, k, "materials", &name);
        if (st == LSIM_OK)
            st = read_material(y, k, v, name, dir, scene, cache);
        if (st != LSIM_OK)
            return st;
    }
    return LSIM_OK;
}

lsim_status lsim_scene_file_read_materials(lsim_yaml *y, yaml_node_t *map, const char *dir, lsim_scene *scene)
{
    calib_cache cache = {NULL, 0, 0}; /* calibration files, parsed once per call */
    lsim_status st = read_materials(y, map, dir, scene, &cache);
    calib_cache_free(&cache);
    return st;
}

/* One class of `labels:` with an automatic id (a free one from 100 up). */
static lsim_status declare_label(lsim_yaml *y, yaml_node_t *k, const char *name, lsim_scene *scene)
{
    char key[128];
    snprintf(key, sizeof key, "labels.%s", name);
    uint32_t id;
    if (!name[0] || strlen(name) >= LSIM_NAME_MAX)
        return lsim_yaml_fail(y, k, LSIM_ERR_PARSE, key, "invalid label name (1 to 63 characters)");
    if (lsim_label_map_resolve(y->ctx, &scene->labels, name, &id) != LSIM_OK) {
        char msg[LSIM_ERROR_MAX];
        lsim_strlcpy(msg, lsim_context_last_error(y->ctx), sizeof msg);
        return lsim_yaml_fail(y, k, LSIM_ERR_PARSE, key, "%s", msg);
    }
    return LSIM_OK;
}

/* `labels:` declares the scene's classes besides SemanticKITTI's: a mapping of name: id (or
 * name: auto), or a list of names (automatic ids). Explicit ids are set first, so an automatic
 * id never takes one the mapping gives. An object's `label:` must be one of these or a
 * SemanticKITTI class (read_shape). */
static lsim_status read_labels(lsim_yaml *y, yaml_node_t *map, lsim_scene *scene)
{
    if (map->type == YAML_SEQUENCE_NODE) {
        for (yaml_node_item_t *it = map->data.sequence.items.start; it < map->data.sequence.items.top; ++it) {
            yaml_node_t *k = yaml_document_get_node(&y->doc, *it);
            const char *name = NULL;
            lsim_status st = lsim_yaml_string(y, k, "labels", &name);
            if (st == LSIM_OK)
                st = declare_label(y, k, name, scene);
            if (st != LSIM_OK)
                return st;
        }
        return LSIM_OK;
    }
    if (map->type != YAML_MAPPING_NODE)
        return lsim_yaml_fail(y, map, LSIM_ERR_PARSE, "labels",
                              "expected a mapping of name: id (e.g. {kerb: 120, bollard: auto}) or a list of names");
    lsim_status unique = lsim_yaml_check_unique(y, map, "labels");
    if (unique != LSIM_OK)
        return unique;
    for (int automatic = 0; automatic < 2; ++automatic)
        for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; ++p) {
            yaml_node_t *k = yaml_document_get_node(&y->doc, p->key), *v = yaml_document_get_node(&y->doc, p->value);
            const char *name = NULL;
            long id;
            lsim_status st = lsim_yaml_string(y, k, "labels", &name);
            char key[128];
            snprintf(key, sizeof key, "labels.%s", name ? name : "?");
            const int is_auto = v && v->type == YAML_SCALAR_NODE && strcmp((const char *)v->data.scalar.value, "auto") == 0;
            if (st != LSIM_OK || is_auto != automatic) {
                if (st != LSIM_OK)
                    return st;
                continue;
            }
            if (is_auto)
                st = declare_label(y, k, name, scene);
            else {
                st = lsim_yaml_int(y, v, key, 0, 65535, &id);
                if (st == LSIM_OK && lsim_scene_set_label_id(scene, name, (uint32_t)id) != LSIM_OK)
                    st = lsim_yaml_fail(y, k, LSIM_ERR_PARSE, key, "invalid label name (1 to 63 characters)");
            }
            if (st != LSIM_OK)
                return st;
        }
    return LSIM_OK;
}

/* Re-attach a library error (which names no line) to the object's line in the file. */
static lsim_status at_node(lsim_yaml *y, yaml_node_t *node, const char *key, lsim_status st)
{
    if (st == LSIM_OK)
        return st;
    char msg[LSIM_ERROR_MAX];
    lsim_strlcpy(msg, lsim_context_last_error(y->ctx), sizeof msg);
    return lsim_yaml_fail(y, node, st, key, "%s", msg);
}

static lsim_status read_shape(lsim_yaml *y, yaml_node_t *obj, const char *key, const char *dir, lsim_scene *scene,
                              lsim_mesh_cache *meshes, lsim_object_desc *desc);

/* One object: its placement, semantics and motion, then its shape. */
static lsim_status read_object(lsim_yaml *y, yaml_node_t *obj, size_t index, const char *dir, lsim_scene *scene,
                               lsim_mesh_cache *meshes)
{
    char key[64];
    snprintf(key, sizeof key, "objects[%zu]", index);
    lsim_status st = lsim_yaml_check_keys(y, obj, key, object_keys);
    if (st != LSIM_OK)
        return st;
    lsim_motion_keys motion;
    st = lsim_scene_file_read_motion(y, obj, key, dir, &motion);
    if (st != LSIM_OK)
        return st;
    lsim_object_desc desc;
    lsim_object_desc_init(&desc);
    memcpy(desc.velocity, motion.velocity, sizeof desc.velocity);
    memcpy(desc.angular_velocity_deg_s, motion.angular_velocity_deg_s, sizeof desc.angular_velocity_deg_s);
    desc.trajectory_count = motion.trajectory.count;
    desc.trajectory_t = motion.trajectory.t;
    desc.trajectory_position = (const double(*)[3])motion.trajectory.position;
    desc.trajectory_rpy_deg = (const double(*)[3])motion.trajectory.rpy_deg;
    st = read_shape(y, obj, key, dir, scene, meshes, &desc);
    lsim_trajectory_free(&motion.trajectory);
    return st;
}

static lsim_status read_shape(lsim_yaml *y, yaml_node_t *obj, const char *key, const char *dir, lsim_scene *scene,
                              lsim_mesh_cache *meshes, lsim_object_desc *descp)
{
    lsim_object_desc desc = *descp;
    char sub[96];
    snprintf(sub, sizeof sub, "%s.position", key);
    lsim_status st = lsim_yaml_opt_vec(y, obj, "position", sub, desc.position, 3);
    snprintf(sub, sizeof sub, "%s.rotation", key);
    if (st == LSIM_OK)
        st = lsim_yaml_opt_vec(y, obj, "rotation", sub, desc.rotation_deg, 3);
    snprintf(sub, sizeof sub, "%s.scale", key);
    if (st == LSIM_OK)
        st = lsim_yaml_opt_number(y, obj, "scale", sub, &desc.scale);
    if (st == LSIM_OK && !(desc.scale > 0.0))
        st = lsim_yaml_fail(y, lsim_yaml_get(y, obj, "scale"), LSIM_ERR_PARSE, sub, "scale %g must be > 0", desc.scale);
    yaml_node_t *mat = lsim_yaml_get(y, obj, "material"), *label = lsim_yaml_get(y, obj, "label");
    snprintf(sub, sizeof sub, "%s.material", key);
    if (st == LSIM_OK && mat) {
        st = lsim_yaml_string(y, mat, sub, &desc.material);
        if (st == LSIM_OK && lsim_scene_find_material(scene, desc.material) < 0)
            st = lsim_yaml_fail(y, mat, LSIM_ERR_PARSE, sub,
                                "material %s is not defined under `materials:` (or use \"default\")",
                                LSIM_YAML_Q(y, desc.material));
    }
    snprintf(sub, sizeof sub, "%s.label", key);
    if (st == LSIM_OK && label)
        st = lsim_yaml_string(y, label, sub, &desc.label);
    yaml_node_t *name = lsim_yaml_get(y, obj, "name");
    snprintf(sub, sizeof sub, "%s.name", key);
    if (st == LSIM_OK && name)
        st = lsim_yaml_string(y, name, sub, &desc.name);
    if (st == LSIM_OK && name)
        st = at_node(y, name, sub, lsim_object_name_check(scene, desc.name));
    snprintf(sub, sizeof sub, "%s.label", key);
    if (st == LSIM_OK && label && strlen(desc.label) >= LSIM_NAME_MAX)
        st = lsim_yaml_fail(y, label, LSIM_ERR_PARSE, sub, "label name is %zu characters long; use 1 to %d",
                            strlen(desc.label), LSIM_NAME_MAX - 1);
    if (st == LSIM_OK && label && !lsim_label_map_knows(&scene->labels, desc.label)) {
        /* a misspelt class must not become a new one: known names or those `labels:` declares */
        const char *near = lsim_label_map_closest(&scene->labels, desc.label);
        char hint[LSIM_NAME_MAX + 32] = "";
        if (near)
            snprintf(hint, sizeof hint, "did you mean '%s'? ", near);
        char quoted[LSIM_YAML_QUOTE_MAX];
        const char *q = lsim_yaml_quote(y, desc.label, "the label", quoted);
        const char *name = q == quoted && !strchr(quoted, '?') && !strstr(quoted, "...") ? desc.label : "NAME";
        st = lsim_yaml_fail(y, label, LSIM_ERR_PARSE, sub,
                            "%s is not a SemanticKITTI class nor declared under `labels:`; %sa new class is "
                            "declared there (`labels: {%s: 300}`, or `labels: [%s]` for an automatic id)",
                            q, hint, name, name);
    }
    if (st != LSIM_OK)
        return st;

    const char *shapes[] = {"box", "sphere", "plane", "mesh"};
    yaml_node_t *shape = NULL;
    const char *shape_name = NULL;
    for (int i = 0; i < 4; ++i) {
        yaml_node_t *s = lsim_yaml_get(y, obj, shapes[i]);
        if (s && shape)
            return lsim_yaml_fail(y, s, LSIM_ERR_PARSE, key, "an object has one shape; found both '%s' and '%s'",
                                  shape_name, shapes[i]);
        if (s) {
            shape = s;
            shape_name = shapes[i];
        }
    }
    if (!shape)
        return lsim_yaml_fail(y, obj, LSIM_ERR_PARSE, key, "needs a shape: box, sphere, plane or mesh");
    snprintf(sub, sizeof sub, "%s.%s", key, shape_name);
    if (strcmp(shape_name, "mesh") == 0) {
        const char *name = NULL;
        st = lsim_yaml_string(y, shape, sub, &name);
        if (st != LSIM_OK)
            return st;
        char path[4096];
        if (lsim_scene_file_resolve(dir, name, path, sizeof path))
            return lsim_yaml_fail(y, shape, LSIM_ERR_PARSE, sub, "a path of %zu bytes is too long", strlen(name));
        return at_node(y, shape, sub, lsim_mesh_cache_add(meshes, scene, path, &desc));
    }
    const char *const *keys = strcmp(shape_name, "box") == 0 ? box_keys
                              : strcmp(shape_name, "sphere") == 0 ? sphere_keys : plane_keys;
    st = lsim_yaml_check_keys(y, shape, sub, keys);
    if (st != LSIM_OK)
        return st;
    char vkey[128];
    if (strcmp(shape_name, "sphere") == 0) {
        double radius;
        snprintf(vkey, sizeof vkey, "%s.radius", sub);
        yaml_node_t *r = lsim_yaml_get(y, shape, "radius");
        if (!r)
            return lsim_yaml_fail(y, shape, LSIM_ERR_PARSE, sub, "needs `radius:` in metres");
        st = lsim_yaml_number(y, r, vkey, &radius);
        return st != LSIM_OK ? st : at_node(y, r, vkey, lsim_scene_add_sphere(scene, radius, &desc));
    }
    size_t n = strcmp(shape_name, "box") == 0 ? 3 : 2;
    double size[3];
    snprintf(vkey, sizeof vkey, "%s.size", sub);
    yaml_node_t *s = lsim_yaml_get(y, shape, "size");
    if (!s)
        return lsim_yaml_fail(y, shape, LSIM_ERR_PARSE, sub, "needs `size:` with %zu numbers in metres", n);
    st = lsim_yaml_numbers(y, s, vkey, size, n, n, NULL);
    if (st != LSIM_OK)
        return st;
    return at_node(y, s, vkey, n == 3 ? lsim_scene_add_box(scene, size, &desc) : lsim_scene_add_plane(scene, size, &desc));
}

static lsim_status read_scene(lsim_yaml *y, const char *dir, lsim_scene *scene, lsim_sensor **out_sensor)
{
    yaml_node_t *root = lsim_yaml_root(y);
    lsim_status st = lsim_yaml_check_keys(y, root, "(top level)", root_keys);
    if (st != LSIM_OK)
        return st;
    yaml_node_t *materials = lsim_yaml_get(y, root, "materials"), *labels = lsim_yaml_get(y, root, "labels");
    yaml_node_t *objects = lsim_yaml_get(y, root, "objects"), *sensor = lsim_yaml_get(y, root, "sensor");
    st = materials ? lsim_scene_file_read_materials(y, materials, dir, scene) : LSIM_OK;
    if (st != LSIM_OK)
        return st;
    if (labels && (st = read_labels(y, labels, scene)) != LSIM_OK)
        return st;
    if ((st = lsim_scene_file_read_environment(y, root, scene)) != LSIM_OK)
        return st;
    yaml_node_t *engine = lsim_yaml_get(y, root, "engine");
    if (engine) { /* raycast (Embree, the default) or raster (OpenGL for primary rays) */
        const char *name = NULL;
        if ((st = lsim_yaml_string(y, engine, "engine", &name)) != LSIM_OK)
            return st;
        if (strcmp(name, "raycast") == 0)
            st = lsim_scene_set_engine(scene, LSIM_ENGINE_EMBREE);
        else if (strcmp(name, "raster") == 0)
            st = lsim_scene_set_engine(scene, LSIM_ENGINE_RASTER);
        else
            return lsim_yaml_fail(y, engine, LSIM_ERR_PARSE, "engine", "%s is not an engine: raycast or raster",
                                  LSIM_YAML_Q(y, name));
        if (st != LSIM_OK)
            return st;
    }
    yaml_node_t *raster = lsim_yaml_get(y, root, "raster");
    if (raster) { /* the raster engine's settings (lsim_raster_options) */
        if ((st = lsim_yaml_check_keys(y, raster, "raster", raster_keys)) != LSIM_OK)
            return st;
        lsim_raster_options o = scene->raster;
        const char *names[] = {"oversample", "group_ms"};
        double *values[] = {&o.oversample, &o.group_ms};
        const double lo[] = {1.0, 0.01}, hi[] = {16.0, 1000.0};
        for (int k = 0; k < 2; ++k) {
            yaml_node_t *v = lsim_yaml_get(y, raster, names[k]);
            char key[64];
            snprintf(key, sizeof key, "raster.%s", names[k]);
            if (v && (st = lsim_yaml_number(y, v, key, values[k])) != LSIM_OK)
                return st;
            if (v && !(*values[k] >= lo[k] && *values[k] <= hi[k]))
                return lsim_yaml_fail(y, v, LSIM_ERR_PARSE, key, "%g is not within %g..%g", *values[k], lo[k], hi[k]);
        }
        if ((st = lsim_yaml_opt_int(y, raster, "normal_correction", "raster.normal_correction", 0, 1,
                                    &o.normal_correction)) != LSIM_OK)
            return st;
        if ((st = lsim_yaml_opt_int(y, raster, "depth_bits", "raster.depth_bits", 16, 32, &o.depth_bits)) != LSIM_OK)
            return st;
        if (o.depth_bits != 16 && o.depth_bits != 32)
            return lsim_yaml_fail(y, lsim_yaml_get(y, raster, "depth_bits"), LSIM_ERR_PARSE, "raster.depth_bits",
                                  "%d is not 16 or 32", o.depth_bits);
        if ((st = lsim_scene_set_raster_options(scene, &o)) != LSIM_OK)
            return st;
    }
    if (!objects)
        return lsim_yaml_fail(y, root, LSIM_ERR_PARSE, "objects", "the scene needs `objects:` (a list of shapes)");
    if (objects->type != YAML_SEQUENCE_NODE)
        return lsim_yaml_fail(y, objects, LSIM_ERR_PARSE, "objects", "expected a list (each item starts with '- ')");
    size_t count = (size_t)(objects->data.sequence.items.top - objects->data.sequence.items.start);
    lsim_mesh_cache meshes = {NULL, 0, 0}; /* mesh files, imported once per load */
    for (size_t i = 0; i < count && st == LSIM_OK; ++i) {
        yaml_node_t *obj = yaml_document_get_node(&y->doc, objects->data.sequence.items.start[i]);
        st = read_object(y, obj, i, dir, scene, &meshes);
    }
    lsim_mesh_cache_free(&meshes);
    if (st != LSIM_OK)
        return st;
    if (out_sensor) {
        if (!sensor)
            return lsim_yaml_fail(y, root, LSIM_ERR_PARSE, "sensor", "the scene needs `sensor:` (e.g. preset: vlp16)");
        return lsim_scene_file_read_sensor(y, sensor, dir, out_sensor);
    }
    return LSIM_OK;
}

lsim_status lsim_scene_load(lsim_context *ctx, const char *path, lsim_scene **out_scene, lsim_sensor **out_sensor)
{
    if (!ctx || !path || !out_scene)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_scene_load: ctx, path and out_scene must not be NULL");
    double t0 = lsim_now_ms();
    lsim_yaml y;
    lsim_status st = lsim_yaml_load(ctx, path, &y);
    if (st != LSIM_OK)
        return st;
    lsim_scene *scene = NULL;
    st = lsim_scene_create(ctx, &scene);
    char dir[4096];
    dir_of(path, dir, sizeof dir);
    lsim_sensor *sensor = NULL;
    if (st == LSIM_OK)
        st = read_scene(&y, dir, scene, out_sensor ? &sensor : NULL);
    lsim_yaml_free(&y);
    if (st != LSIM_OK) {
        lsim_scene_destroy(scene);
        return st;
    }
    scene->load_ms = lsim_now_ms() - t0;
    *out_scene = scene;
    if (out_sensor)
        *out_sensor = sensor;
    return LSIM_OK;
}
