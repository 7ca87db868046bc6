/* The fitted scene (fit_file.h): the scene file's YAML document (libyaml) with the fitted values
 * written into it, its relative file names rewritten to resolve from the output's folder, emitted
 * to a temporary file and renamed into place (output/atomic_file.h).
 *
 * Node ids, never node pointers, are kept across edits: adding a node may move the document's
 * node array. A mapping is cloned before it is edited (and the clone put in its place), so that an
 * alias of it elsewhere (`*name`) keeps the values it had. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "inverse/fit_file.h"

#include "core/context.h"
#include "core/text.h"
#include "output/atomic_file.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEG (3.14159265358979323846 / 180.0)

typedef struct editor {
    lsim_context *ctx;
    const char *path;   /* the scene file, for messages */
    yaml_document_t *doc;
    int original_top;   /* node ids above this one are the editor's */
    char prefix[PATH_MAX]; /* from the output's folder to the scene's ("" when they are one) */
    int failed;         /* out of memory in libyaml */
} editor;

static yaml_node_t *node(editor *e, int id) { return id > 0 ? yaml_document_get_node(e->doc, id) : NULL; }

static const char *text_of(editor *e, int id)
{
    yaml_node_t *n = node(e, id);
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* The value of `key` in mapping `map` (0: none). */
static int get(editor *e, int map, const char *key)
{
    yaml_node_t *m = node(e, map);
    if (!m || m->type != YAML_MAPPING_NODE)
        return 0;
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; ++p) {
        const char *k = text_of(e, p->key);
        if (k && strcmp(k, key) == 0)
            return p->value;
    }
    return 0;
}

static int add_scalar(editor *e, const char *text, yaml_scalar_style_t style)
{
    int id = e->failed ? 0 : yaml_document_add_scalar(e->doc, NULL, (yaml_char_t *)text, -1, style);
    if (!id)
        e->failed = 1;
    return id;
}

/* `key: value` in mapping `map`: the pair's value replaced, or the pair appended. */
static void set(editor *e, int map, const char *key, int value)
{
    if (!value || e->failed)
        return;
    yaml_node_t *m = node(e, map);
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; ++p) {
        const char *k = text_of(e, p->key);
        if (k && strcmp(k, key) == 0) {
            p->value = value;
            return;
        }
    }
    int k = add_scalar(e, key, YAML_PLAIN_SCALAR_STYLE);
    if (k && !yaml_document_append_mapping_pair(e->doc, map, k, value))
        e->failed = 1;
}

/* The shortest text that reads back as v (-0 as 0). */
static void format_number(double v, char *buf, size_t size)
{
    if (v == 0.0)
        v = 0.0;
    for (int prec = 6; prec <= 17; ++prec) {
        snprintf(buf, size, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

static int add_numbers(editor *e, const double *v, int n)
{
    int seq = e->failed ? 0 : yaml_document_add_sequence(e->doc, NULL, YAML_FLOW_SEQUENCE_STYLE);
    if (!seq)
        e->failed = 1;
    for (int i = 0; i < n && !e->failed; ++i) {
        char buf[40];
        format_number(v[i], buf, sizeof buf);
        int item = add_scalar(e, buf, YAML_PLAIN_SCALAR_STYLE);
        if (item && !yaml_document_append_sequence_item(e->doc, seq, item))
            e->failed = 1;
    }
    return e->failed ? 0 : seq;
}

/* A copy of node `id` when it is a scalar (so that the emitter sees no shared node, which it would
 * write with an anchor), else `id` itself. */
static int copy_scalar(editor *e, int id)
{
    yaml_node_t *n = node(e, id);
    if (e->failed || !n || n->type != YAML_SCALAR_NODE)
        return id;
    int copy = yaml_document_add_scalar(e->doc, n->tag, n->data.scalar.value, (int)n->data.scalar.length,
                                        n->data.scalar.style); /* copies tag and value before it grows the array */
    if (!copy)
        e->failed = 1;
    return copy;
}

/* A fresh copy of mapping `map` (the same pairs, scalar keys and values copied), or a new empty flow
 * mapping when map is 0. */
static int clone_mapping(editor *e, int map)
{
    if (e->failed)
        return 0;
    yaml_node_t *m = node(e, map);
    const yaml_mapping_style_t style = m ? m->data.mapping.style : YAML_FLOW_MAPPING_STYLE;
    const size_t n = m ? (size_t)(m->data.mapping.pairs.top - m->data.mapping.pairs.start) : 0;
    yaml_node_pair_t *pairs = n ? malloc(n * sizeof *pairs) : NULL;
    if (n && !pairs) {
        e->failed = 1;
        return 0;
    }
    if (n)
        memcpy(pairs, m->data.mapping.pairs.start, n * sizeof *pairs);
    int id = yaml_document_add_mapping(e->doc, NULL, style);
    for (size_t i = 0; id && i < n; ++i) {
        const int k = copy_scalar(e, pairs[i].key), v = copy_scalar(e, pairs[i].value);
        if (e->failed || !yaml_document_append_mapping_pair(e->doc, id, k, v))
            id = 0;
    }
    free(pairs);
    if (!id)
        e->failed = 1;
    return id;
}

/* The mapping under `key` in `parent`, as a copy of its own put in its place (created when absent). */
static int own_mapping(editor *e, int parent, const char *key)
{
    int old = get(e, parent, key);
    if (old && node(e, old)->type != YAML_MAPPING_NODE)
        return 0;
    int id = clone_mapping(e, old);
    set(e, parent, key, id);
    return e->failed ? 0 : id;
}

/* The three numbers of `key` in `map` (zeros when absent). */
static lsim_status read_vec3(editor *e, int map, const char *key, const char *where, double out[3])
{
    out[0] = out[1] = out[2] = 0.0;
    yaml_node_t *v = node(e, get(e, map, key));
    if (!v)
        return LSIM_OK;
    if (v->type == YAML_SEQUENCE_NODE && v->data.sequence.items.top - v->data.sequence.items.start == 3) {
        int ok = 1;
        for (int i = 0; i < 3; ++i) {
            const char *s = text_of(e, v->data.sequence.items.start[i]);
            char *end = NULL;
            out[i] = s ? strtod(s, &end) : 0.0;
            ok &= s && end != s && !*end;
        }
        if (ok)
            return LSIM_OK;
    }
    return lsim_fail(e->ctx, LSIM_ERR_PARSE, "%s:%zu: %s.%s: expected 3 numbers", e->path, v->start_mark.line + 1,
                     where, key);
}

static double wrap_deg(double a)
{
    a = fmod(a, 360.0);
    if (a > 180.0)
        a -= 360.0;
    else if (a <= -180.0)
        a += 360.0;
    return a;
}

/* ---------------------------------------------------------------- relative file names */

/* The path from folder `from` to folder `to`, both canonical and absolute ("" when they are one). */
static int relative_dir(const char *from, const char *to, char *out, size_t size)
{
    size_t common = 0, i = 0;
    for (;; ++i) {
        const char a = from[i], b = to[i];
        if ((a == '/' || !a) && (b == '/' || !b))
            common = i;
        if (!a || !b || a != b)
            break;
    }
    out[0] = '\0';
    size_t len = 0;
    for (const char *p = from + common; *p; ++p)
        if (*p == '/' && p[1]) {
            int w = snprintf(out + len, size - len, "%s..", len ? "/" : "");
            if (w < 0 || (size_t)w >= size - len)
                return -1;
            len += (size_t)w;
        }
    const char *rest = to + common;
    while (*rest == '/')
        ++rest;
    if (*rest) {
        int w = snprintf(out + len, size - len, "%s%s", len ? "/" : "", rest);
        if (w < 0 || (size_t)w >= size - len)
            return -1;
    }
    return 0;
}

static int folder_of(const char *path, char *out)
{
    char dir[PATH_MAX];
    lsim_strlcpy(dir, path, sizeof dir);
    char *slash = strrchr(dir, '/');
    if (!slash)
        strcpy(dir, ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
    return realpath(dir, out) ? 0 : -1;
}

/* Rewrite the file name under `key` in mapping `map` (`hash`: FILE#name, only FILE) to resolve from
 * the output's folder. Names written before (ids above original_top) and absolute names stay. */
static lsim_status rewrite(editor *e, int map, const char *key, int hash)
{
    const int v = get(e, map, key);
    const char *s = v && v <= e->original_top ? text_of(e, v) : NULL;
    if (!s || !*s || s[0] == '/')
        return LSIM_OK;
    const char *mark = hash ? strrchr(s, '#') : NULL;
    const size_t len = mark ? (size_t)(mark - s) : strlen(s);
    char buf[PATH_MAX + 512];
    int w = snprintf(buf, sizeof buf, "%s/%.*s%s", e->prefix, (int)len, s, mark ? mark : "");
    if (w < 0 || (size_t)w >= sizeof buf)
        return lsim_fail(e->ctx, LSIM_ERR_INVALID_ARGUMENT, "%s: %s: the file name '%.80s' is too long to rewrite",
                         e->path, key, s);
    set(e, map, key, add_scalar(e, buf, node(e, v)->data.scalar.style));
    return LSIM_OK;
}

static lsim_status rewrite_paths(editor *e, int root)
{
    lsim_status st = LSIM_OK;
    const int sensor = get(e, root, "sensor");
    if (sensor) {
        st = rewrite(e, sensor, "calibration", 0);
        if (st == LSIM_OK)
            st = rewrite(e, sensor, "file", 0);
        if (st == LSIM_OK)
            st = rewrite(e, get(e, get(e, sensor, "beam"), "kernel"), "file", 0);
        if (st == LSIM_OK)
            st = rewrite(e, get(e, sensor, "trajectory"), "file", 0);
    }
    yaml_node_t *materials = node(e, get(e, root, "materials"));
    if (materials && materials->type == YAML_MAPPING_NODE) {
        const int mid = get(e, root, "materials");
        const size_t n = (size_t)(materials->data.mapping.pairs.top - materials->data.mapping.pairs.start);
        for (size_t i = 0; i < n && st == LSIM_OK; ++i)
            st = rewrite(e, node(e, mid)->data.mapping.pairs.start[i].value, "calibration", 1);
    }
    yaml_node_t *objects = node(e, get(e, root, "objects"));
    if (objects && objects->type == YAML_SEQUENCE_NODE) {
        const int oid = get(e, root, "objects");
        const size_t n = (size_t)(objects->data.sequence.items.top - objects->data.sequence.items.start);
        for (size_t i = 0; i < n && st == LSIM_OK; ++i) {
            const int item = node(e, oid)->data.sequence.items.start[i];
            st = rewrite(e, item, "mesh", 0);
            if (st == LSIM_OK)
                st = rewrite(e, get(e, item, "trajectory"), "file", 0);
        }
    }
    return st;
}

/* ---------------------------------------------------------------- fitted values */

static int axis_index(const char *axis)
{
    static const char *const names[6] = {"x", "y", "z", "roll", "pitch", "yaw"};
    for (int a = 0; a < 6; ++a)
        if (strcmp(axis, names[a]) == 0)
            return a;
    return -1;
}

/* Write pose values (set[a]: axis a fitted, value[a] in metres / radians) into the mapping `map`'s
 * position and rotation (degrees), keeping the axes not fitted. */
static lsim_status write_pose(editor *e, int map, const char *where, const int set_axis[6], const double value[6])
{
    double pos[3], rot[3];
    lsim_status st = read_vec3(e, map, "position", where, pos);
    if (st == LSIM_OK)
        st = read_vec3(e, map, "rotation", where, rot);
    if (st != LSIM_OK)
        return st;
    int moved = 0, turned = 0;
    for (int a = 0; a < 3; ++a) {
        if (set_axis[a]) {
            pos[a] = value[a];
            moved = 1;
        }
        if (set_axis[3 + a]) {
            rot[a] = wrap_deg(value[3 + a] / DEG);
            turned = 1;
        }
    }
    if (moved)
        set(e, map, "position", add_numbers(e, pos, 3));
    if (turned)
        set(e, map, "rotation", add_numbers(e, rot, 3));
    return LSIM_OK;
}

/* The item of `objects:` whose `name:` is `name` (0: none); its index in *index. */
static int find_object(editor *e, int root, const char *name, size_t *index)
{
    const int seq = get(e, root, "objects");
    yaml_node_t *s = node(e, seq);
    if (!s || s->type != YAML_SEQUENCE_NODE)
        return 0;
    for (yaml_node_item_t *it = s->data.sequence.items.start; it < s->data.sequence.items.top; ++it) {
        const char *n = text_of(e, get(e, *it, "name"));
        if (n && strcmp(n, name) == 0) {
            *index = (size_t)(it - s->data.sequence.items.start);
            return *it;
        }
    }
    return 0;
}

static lsim_status write_values(editor *e, int root, size_t count, const char *const *names, const double *values)
{
    lsim_status st = LSIM_OK;
    int sensor_set[6] = {0}, bias_set = 0;
    double sensor_value[6] = {0}, bias[3] = {0};
    int done[LSIM_FIT_FILE_MAX_PARAMS * 4] = {0};
    if (count > sizeof done / sizeof done[0])
        return lsim_fail(e->ctx, LSIM_ERR_INVALID_ARGUMENT, "fitted scene: %zu values", count);
    for (size_t k = 0; k < count && st == LSIM_OK; ++k) {
        const char *name = names[k];
        const char *dot = strrchr(name, '.');
        if (strncmp(name, "sensor.", 7) == 0 && axis_index(name + 7) >= 0) {
            sensor_set[axis_index(name + 7)] = 1;
            sensor_value[axis_index(name + 7)] = values[k];
        } else if (strncmp(name, "bias.c", 6) == 0 && name[6] >= '0' && name[6] <= '2' && !name[7]) {
            bias[name[6] - '0'] = values[k];
            bias_set |= 1 << (name[6] - '0');
        } else if (strncmp(name, "material.", 9) == 0 && dot > name + 9 && strcmp(dot, ".reflectance") == 0) {
            char material[256];
            snprintf(material, sizeof material, "%.*s", (int)(dot - name - 9), name + 9);
            const int materials = get(e, root, "materials");
            if (!get(e, materials, material))
                return lsim_fail(e->ctx, LSIM_ERR_NOT_FOUND, "%s: no material '%s' under `materials:`", e->path,
                                 material);
            const int own = own_mapping(e, materials, material);
            if (!own && !e->failed)
                return lsim_fail(e->ctx, LSIM_ERR_PARSE, "%s: materials.%s is not a mapping", e->path, material);
            if (own) {
                char buf[40];
                format_number(values[k], buf, sizeof buf);
                set(e, own, "reflectance", add_scalar(e, buf, YAML_PLAIN_SCALAR_STYLE));
            }
        } else if (strncmp(name, "object.", 7) == 0 && dot > name + 7 && axis_index(dot + 1) >= 0) {
            if (done[k])
                continue;
            char object[256];
            snprintf(object, sizeof object, "%.*s", (int)(dot - name - 7), name + 7);
            size_t index = 0;
            const int item = find_object(e, root, object, &index);
            if (!item)
                return lsim_fail(e->ctx, LSIM_ERR_NOT_FOUND, "%s: no object named '%s' under `objects:`", e->path,
                                 object);
            int set_axis[6] = {0};
            double value[6] = {0};
            const size_t prefix = (size_t)(dot - name) + 1; /* "object.NAME." */
            for (size_t j = k; j < count; ++j)
                if (strncmp(names[j], name, prefix) == 0 && axis_index(names[j] + prefix) >= 0) {
                    set_axis[axis_index(names[j] + prefix)] = 1;
                    value[axis_index(names[j] + prefix)] = values[j];
                    done[j] = 1;
                }
            if (node(e, item)->type != YAML_MAPPING_NODE)
                return lsim_fail(e->ctx, LSIM_ERR_PARSE, "%s: objects[%zu] is not a mapping", e->path, index);
            const int own = clone_mapping(e, item);
            if (own) /* in the list's place */
                node(e, get(e, root, "objects"))->data.sequence.items.start[index] = own;
            char where[300];
            snprintf(where, sizeof where, "objects[%zu]", index);
            if (own)
                st = write_pose(e, own, where, set_axis, value);
        } else {
            return lsim_fail(e->ctx, LSIM_ERR_INVALID_ARGUMENT, "fitted scene: unknown parameter '%s'", name);
        }
    }
    int any_sensor = 0;
    for (int a = 0; a < 6; ++a)
        any_sensor |= sensor_set[a];
    if (st == LSIM_OK && (any_sensor || bias_set)) {
        if (!get(e, root, "sensor"))
            return lsim_fail(e->ctx, LSIM_ERR_NOT_FOUND, "%s: the scene file has no `sensor:`", e->path);
        const int sensor = own_mapping(e, root, "sensor");
        if (!sensor && !e->failed)
            return lsim_fail(e->ctx, LSIM_ERR_PARSE, "%s: `sensor:` is not a mapping", e->path);
        if (sensor && any_sensor)
            st = write_pose(e, sensor, "sensor", sensor_set, sensor_value);
        if (sensor && bias_set && st == LSIM_OK) {
            if (bias_set != 7)
                return lsim_fail(e->ctx, LSIM_ERR_INVALID_ARGUMENT, "fitted scene: the bias needs c0, c1 and c2");
            const int receiver = own_mapping(e, sensor, "receiver");
            if (!receiver && !e->failed)
                return lsim_fail(e->ctx, LSIM_ERR_PARSE, "%s: sensor.receiver is not a mapping", e->path);
            if (receiver)
                set(e, receiver, "bias", add_numbers(e, bias, 3));
        }
    }
    return st;
}

/* ---------------------------------------------------------------- writing */

static lsim_status emit(lsim_context *ctx, const char *out_path, yaml_document_t *doc, const char *comment)
{
    lsim_atomic_group g;
    lsim_atomic_begin(&g, ctx);
    FILE *fp = NULL;
    lsim_status st = lsim_atomic_open(&g, out_path, &fp);
    if (st != LSIM_OK) {
        yaml_document_delete(doc);
        return lsim_atomic_finish(&g, st);
    }
    for (const char *line = comment; line && *line;) {
        const char *end = strchr(line, '\n');
        const int len = end ? (int)(end - line) : (int)strlen(line);
        fprintf(fp, "# %.*s\n", len, line);
        line = end ? end + 1 : line + len;
    }
    yaml_emitter_t em;
    if (!yaml_emitter_initialize(&em)) {
        yaml_document_delete(doc);
        return lsim_atomic_finish(&g, lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "cannot initialise the YAML emitter"));
    }
    yaml_emitter_set_output_file(&em, fp);
    yaml_emitter_set_unicode(&em, 1);
    yaml_emitter_set_width(&em, 110);
    int ok = yaml_emitter_open(&em);
    ok = ok && yaml_emitter_dump(&em, doc); /* frees the document, even when it fails */
    if (!ok)
        yaml_document_delete(doc);
    ok = ok && yaml_emitter_close(&em) && yaml_emitter_flush(&em);
    if (!ok)
        st = lsim_fail(ctx, LSIM_ERR_IO, "%s: cannot write the fitted scene: %s", out_path,
                       em.problem ? em.problem : strerror(errno));
    yaml_emitter_delete(&em);
    return lsim_atomic_finish(&g, st);
}

lsim_status lsim_fitted_scene_write(lsim_context *ctx, const char *scene_path, const char *out_path, size_t count,
                                    const char *const *names, const double *values, const char *comment)
{
    if (!ctx || !scene_path || !out_path || (count && (!names || !values)))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_fitted_scene_write: NULL argument");
    editor e;
    memset(&e, 0, sizeof e);
    e.ctx = ctx;
    e.path = scene_path;
    char scene_dir[PATH_MAX], out_dir[PATH_MAX];
    if (folder_of(scene_path, scene_dir))
        return lsim_fail(ctx, LSIM_ERR_IO, "%s: cannot resolve its folder: %s", scene_path, strerror(errno));
    if (lsim_atomic_is_direct(out_path) ? !realpath(".", out_dir) : folder_of(out_path, out_dir) != 0)
        return lsim_fail(ctx, LSIM_ERR_IO, "%s: cannot resolve its folder: %s", out_path, strerror(errno));
    if (relative_dir(out_dir, scene_dir, e.prefix, sizeof e.prefix))
        return lsim_fail(ctx, LSIM_ERR_IO, "%s: the path from %s to %s is too long", out_path, out_dir, scene_dir);
    lsim_yaml y;
    lsim_status st = lsim_yaml_load(ctx, scene_path, &y);
    if (st != LSIM_OK)
        return st;
    e.doc = &y.doc;
    e.original_top = (int)(y.doc.nodes.top - y.doc.nodes.start);
    const int root = 1;
    if (!node(&e, root) || node(&e, root)->type != YAML_MAPPING_NODE)
        st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s: the scene file is not a mapping", scene_path);
    if (st == LSIM_OK && e.prefix[0])
        st = rewrite_paths(&e, root);
    if (st == LSIM_OK)
        st = write_values(&e, root, count, names, values);
    if (st == LSIM_OK && e.failed)
        st = lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory editing the scene file %s", scene_path);
    if (st != LSIM_OK) {
        lsim_yaml_free(&y);
        return st;
    }
    y.loaded = 0; /* emit frees the document */
    return emit(ctx, out_path, &y.doc, comment);
}
