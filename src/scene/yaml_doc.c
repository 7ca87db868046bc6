#include "scene/yaml_doc.h"

#include "core/context.h"
#include "core/file_open.h"
#include "core/text.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The top-level keys of every kind lsim_yaml_load reads: scene, fit file, calibration, calibrate
 * config and dataset config (a syntax error names keys only after one of them). */
static const char *const known_keys[] = {
    "sensor", "materials", "labels", "objects", "max_bounces", "atmosphere", "ambient", "engine", "raster",
    "scene", "scan", "intensity_weight", "parameters", "loss", "max_iterations", "lidarsim_calibration",
    "bin_width_deg", "seed", "frames", "frames_per_sequence", "layout", "jitter", "trajectory", "library",
    "points_format", NULL};

/* The scene's limits (lsim_yaml_load). */
static const lsim_yaml_limits scene_limits = {
    LSIM_YAML_MAX_NODES, 0, "scene file", "`sensor:` and `objects:`",
    "put large geometry into mesh files (`mesh: part.ply`) instead of the scene", known_keys};

lsim_status lsim_yaml_load(lsim_context *ctx, const char *path, lsim_yaml *y)
{
    memset(y, 0, sizeof *y);
    y->ctx = ctx;
    y->path = path;
    /* the one opener (core/file_open.h): a regular file of at most 64 MiB (LSIM_YAML_MAX_BYTES) */
    _Static_assert(LSIM_YAML_MAX_BYTES == 64 << 20, "the scene bound in core/file_open.c");
    FILE *f;
    uint64_t size;
    lsim_status open_st = lsim_file_open(ctx, path, LSIM_INPUT_SCENE, &f, &size);
    if (open_st != LSIM_OK)
        return open_st;
    long file_size = (long)size;
    /* trailing blanks and line breaks do not count: an error there is "at the end" */
    char tail[256];
    while (file_size > 0) {
        long chunk = file_size < (long)sizeof tail ? file_size : (long)sizeof tail;
        if (fseek(f, file_size - chunk, SEEK_SET) != 0 || fread(tail, 1, (size_t)chunk, f) != (size_t)chunk)
            break;
        long k = chunk;
        while (k > 0 && (tail[k - 1] == ' ' || tail[k - 1] == '\t' || tail[k - 1] == '\n' || tail[k - 1] == '\r'))
            --k;
        file_size -= chunk - k;
        if (k > 0)
            break;
    }
    rewind(f);
    lsim_status st = lsim_yaml_read_file(ctx, path, f, file_size, &scene_limits, &y->doc);
    y->loaded = st == LSIM_OK;
    fclose(f);
    return st;
}

void lsim_yaml_free(lsim_yaml *y)
{
    if (y->loaded)
        yaml_document_delete(&y->doc);
    y->loaded = 0;
}

yaml_node_t *lsim_yaml_root(lsim_yaml *y) { return yaml_document_get_root_node(&y->doc); }

lsim_status lsim_yaml_fail(lsim_yaml *y, const yaml_node_t *node, lsim_status status, const char *key,
                           const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    size_t line = node ? node->start_mark.line + 1 : 0, col = node ? node->start_mark.column + 1 : 0;
    /* the key path may hold user-named keys (materials.NAME): printable ASCII only */
    char path[192];
    lsim_strlcpy(path, key ? key : "", sizeof path);
    for (char *c = path; *c; ++c)
        if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
            *c = '?';
    return lsim_fail(y->ctx, status, "%s:%zu:%zu: %s: %s", y->path, line, col, path, msg);
}

const char *lsim_yaml_quote(const lsim_yaml *y, const char *text, const char *instead, char *buf)
{
    if (!y->recognised || !text)
        return instead;
    size_t n = 0, len = strlen(text);
    buf[n++] = '\'';
    for (size_t i = 0; i < len && i < 40; ++i)
        buf[n++] = (unsigned char)text[i] >= 0x20 && (unsigned char)text[i] <= 0x7e ? text[i] : '?';
    if (len > 40) {
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n++] = '\'';
    buf[n] = '\0';
    return buf;
}

static const char *node_text(const yaml_node_t *node)
{
    return node && node->type == YAML_SCALAR_NODE ? (const char *)node->data.scalar.value : NULL;
}

static const char *node_kind(const yaml_node_t *node)
{
    switch (node ? node->type : YAML_NO_NODE) {
    case YAML_SCALAR_NODE: return "a scalar";
    case YAML_SEQUENCE_NODE: return "a list";
    case YAML_MAPPING_NODE: return "a mapping";
    default: return "nothing";
    }
}

/* What a node holds, for "expected X, got Y": its kind and size ("a scalar", "a list of 3"), never
 * its text (a path may name a file that is not what it should be: issue 23). */
static const char *node_describe(const yaml_node_t *node, char *buf, size_t size)
{
    const char *s = node_text(node);
    if (s)
        return *s ? "a scalar" : "an empty value";
    if (node && node->type == YAML_SEQUENCE_NODE) {
        snprintf(buf, size, "a list of %zu", (size_t)(node->data.sequence.items.top - node->data.sequence.items.start));
        return buf;
    }
    if (node && node->type == YAML_MAPPING_NODE) {
        size_t n = (size_t)(node->data.mapping.pairs.top - node->data.mapping.pairs.start);
        snprintf(buf, size, "a mapping of %zu key%s", n, n == 1 ? "" : "s");
        return buf;
    }
    return node_kind(node);
}

/* Edit distance (insert, delete, substitute, swap of neighbours) of two short keys, capped at 9. */
static size_t key_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 40 || m > 40)
        return 9;
    size_t d[41][41];
    for (size_t i = 0; i <= n; ++i)
        d[i][0] = i;
    for (size_t j = 0; j <= m; ++j)
        d[0][j] = j;
    for (size_t i = 1; i <= n; ++i)
        for (size_t j = 1; j <= m; ++j) {
            size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[n][m] < 9 ? d[n][m] : 9;
}

lsim_status lsim_yaml_check_keys(lsim_yaml *y, yaml_node_t *map, const char *key, const char *const *allowed)
{
    char what[80];
    if (!map || map->type != YAML_MAPPING_NODE)
        return lsim_yaml_fail(y, map, LSIM_ERR_PARSE, key, "expected a mapping (key: value), got %s",
                              node_describe(map, what, sizeof what));
    if (map == lsim_yaml_root(y))
        for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; ++p) {
            const char *name = node_text(yaml_document_get_node(&y->doc, p->key));
            for (size_t i = 0; name && allowed[i]; ++i)
                y->recognised |= strcmp(name, allowed[i]) == 0;
        }
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; ++p) {
        yaml_node_t *k = yaml_document_get_node(&y->doc, p->key);
        const char *name = node_text(k);
        int ok = 0;
        for (size_t i = 0; name && allowed[i]; ++i)
            ok |= strcmp(name, allowed[i]) == 0;
        if (!ok) {
            char valid[512] = "";
            const char *close = NULL;
            size_t close_d = 3;
            for (size_t i = 0; allowed[i]; ++i) {
                strncat(valid, allowed[i], sizeof valid - strlen(valid) - 1);
                if (allowed[i + 1])
                    strncat(valid, ", ", sizeof valid - strlen(valid) - 1);
                size_t dist = name ? key_distance(name, allowed[i]) : 9;
                if (dist < close_d && dist < strlen(allowed[i])) {
                    close = allowed[i];
                    close_d = dist;
                }
            }
            char hint[96] = "";
            if (close)
                snprintf(hint, sizeof hint, " (did you mean '%s'?)", close);
            char quoted[LSIM_YAML_QUOTE_MAX];
            if (!y->recognised)
                return lsim_yaml_fail(y, k, LSIM_ERR_PARSE, key, "an unknown key%s (the top level holds none of "
                                      "the valid keys: is this the right file?); valid keys: %s", hint, valid);
            return lsim_yaml_fail(y, k, LSIM_ERR_PARSE, key, "unknown key %s%s; valid keys: %s",
                                  name ? lsim_yaml_quote(y, name, "", quoted) : "(not a scalar)", hint, valid);
        }
        for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; ++q) {
            const char *other = node_text(yaml_document_get_node(&y->doc, q->key));
            if (other && strcmp(other, name) == 0)
                return lsim_yaml_fail(y, k, LSIM_ERR_PARSE, key, "key '%s' appears twice (first on line %zu)", name,
                                      yaml_document_get_node(&y->doc, q->key)->start_mark.line + 1);
        }
    }
    return LSIM_OK;
}

typedef struct named_key {
    const char *name;
    size_t order; /* position in the mapping */
} named_key;

static int named_key_cmp(const void *a, const void *b)
{
    const named_key *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->order > y->order) - (x->order < y->order);
}

/* O(n log n): sort the names, then compare neighbours. Reports the first repeat in file order. */
lsim_status lsim_yaml_check_unique(lsim_yaml *y, yaml_node_t *map, const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE)
        return LSIM_OK;
    size_t n = (size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start);
    if (n < 2)
        return LSIM_OK;
    named_key *keys = malloc(n * sizeof *keys);
    if (!keys)
        return lsim_fail(y->ctx, LSIM_ERR_OUT_OF_MEMORY, "%s: out of memory checking %s", y->path, key);
    size_t m = 0;
    for (size_t i = 0; i < n; ++i) {
        const char *name = node_text(yaml_document_get_node(&y->doc, map->data.mapping.pairs.start[i].key));
        if (name)
            keys[m++] = (named_key){name, i};
    }
    qsort(keys, m, sizeof *keys, named_key_cmp);
    size_t repeat = n, first = n; /* the earliest second occurrence, and that name's first */
    for (size_t i = 1; i < m; ++i)
        if (strcmp(keys[i].name, keys[i - 1].name) == 0 && keys[i].order < repeat) {
            repeat = keys[i].order;
            size_t j = i - 1;
            while (j > 0 && strcmp(keys[j - 1].name, keys[i].name) == 0)
                --j;
            first = keys[j].order;
        }
    free(keys);
    if (repeat == n)
        return LSIM_OK;
    yaml_node_t *k = yaml_document_get_node(&y->doc, map->data.mapping.pairs.start[repeat].key);
    char quoted[LSIM_YAML_QUOTE_MAX];
    return lsim_yaml_fail(y, k, LSIM_ERR_PARSE, key, "%s appears twice (first on line %zu)",
                          lsim_yaml_quote(y, node_text(k), "a key", quoted),
                          yaml_document_get_node(&y->doc, map->data.mapping.pairs.start[first].key)->start_mark.line + 1);
}

yaml_node_t *lsim_yaml_get(lsim_yaml *y, yaml_node_t *map, const char *name)
{
    if (!map || map->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; ++p) {
        const char *k = node_text(yaml_document_get_node(&y->doc, p->key));
        if (k && strcmp(k, name) == 0)
            return yaml_document_get_node(&y->doc, p->value);
    }
    return NULL;
}

lsim_status lsim_yaml_number(lsim_yaml *y, yaml_node_t *node, const char *key, double *out)
{
    const char *s = node_text(node);
    char what[80];
    if (!s || !*s)
        return lsim_yaml_fail(y, node, LSIM_ERR_PARSE, key, "expected a number, got %s",
                              node_describe(node, what, sizeof what));
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    while (*end == ' ')
        ++end;
    char quoted[LSIM_YAML_QUOTE_MAX];
    if (*end || errno == ERANGE || !isfinite(v))
        return lsim_yaml_fail(y, node, LSIM_ERR_PARSE, key, "expected a finite number, got %s",
                              lsim_yaml_quote(y, s, "a scalar that is not one", quoted));
    *out = v;
    return LSIM_OK;
}

lsim_status lsim_yaml_int(lsim_yaml *y, yaml_node_t *node, const char *key, long lo, long hi, long *out)
{
    const char *s = node_text(node);
    char what[80];
    if (!s || !*s)
        return lsim_yaml_fail(y, node, LSIM_ERR_PARSE, key, "expected an integer, got %s",
                              node_describe(node, what, sizeof what));
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    char quoted[LSIM_YAML_QUOTE_MAX];
    if (*end || errno == ERANGE) {
        /* 1e12 or 99999999999999999999: a whole number, just far too large (or small) */
        errno = 0;
        double d = strtod(s, &end);
        if (!*end && end != s && (errno == ERANGE || isfinite(d)) && d == floor(d) && (d < (double)lo || d > (double)hi))
            return lsim_yaml_fail(y, node, LSIM_ERR_PARSE, key, "%s is out of range; valid: %ld to %ld", s, lo,
                                  hi); /* s: a number (strtod read all of it), nothing else */
        return lsim_yaml_fail(y, node, LSIM_ERR_PARSE, key, "expected an integer, got %s",
                              lsim_yaml_quote(y, s, "a scalar that is not one", quoted));
    }
    if (v < lo || v > hi)
        return lsim_yaml_fail(y, node, LSIM_ERR_PARSE, key, "%ld is out of range; valid: %ld to %ld", v, lo, hi);
    *out = v;
    return LSIM_OK;
}

lsim_status lsim_yaml_string(lsim_yaml *y, yaml_node_t *node, const char *key, const char **out)
{
    const char *s = node_text(node);
    char what[80];
    if (!s || !*s)
        return lsim_yaml_fail(y, node, LSIM_ERR_PARSE, key, "expected a non-empty string, got %s",
                              node_describe(node, what, sizeof what));
    *out = s;
    return LSIM_OK;
}

lsim_status lsim_yaml_numbers(lsim_yaml *y, yaml_node_t *node, const char *key, double *out, size_t n,
                              size_t max, size_t *got)
{
    if (!node || node->type != YAML_SEQUENCE_NODE) {
        char what[80];
        if (n)
            return lsim_yaml_fail(y, node, LSIM_ERR_PARSE, key, "expected a list of %zu numbers like [1, 2%s], got %s",
                                  n, n == 3 ? ", 3" : "", node_describe(node, what, sizeof what));
        return lsim_yaml_fail(y, node, LSIM_ERR_PARSE, key, "expected a list of numbers, got %s",
                              node_describe(node, what, sizeof what));
    }
    size_t count = (size_t)(node->data.sequence.items.top - node->data.sequence.items.start);
    if ((n && count != n) || (!n && (count == 0 || count > max)))
        return n ? lsim_yaml_fail(y, node, LSIM_ERR_PARSE, key, "expected exactly %zu numbers, got %zu", n, count)
                 : lsim_yaml_fail(y, node, LSIM_ERR_PARSE, key, "expected 1 to %zu numbers, got %zu", max, count);
    for (size_t i = 0; i < count; ++i) {
        yaml_node_t *item = yaml_document_get_node(&y->doc, node->data.sequence.items.start[i]);
        char sub[256];
        snprintf(sub, sizeof sub, "%s[%zu]", key, i);
        lsim_status st = lsim_yaml_number(y, item, sub, &out[i]);
        if (st != LSIM_OK)
            return st;
    }
    if (got)
        *got = count;
    return LSIM_OK;
}

lsim_status lsim_yaml_opt_number(lsim_yaml *y, yaml_node_t *map, const char *name, const char *key, double *out)
{
    yaml_node_t *v = lsim_yaml_get(y, map, name);
    return v ? lsim_yaml_number(y, v, key, out) : LSIM_OK;
}

lsim_status lsim_yaml_opt_int(lsim_yaml *y, yaml_node_t *map, const char *name, const char *key, long lo,
                              long hi, int *out)
{
    yaml_node_t *v = lsim_yaml_get(y, map, name);
    if (!v)
        return LSIM_OK;
    long value;
    lsim_status st = lsim_yaml_int(y, v, key, lo, hi, &value);
    if (st == LSIM_OK)
        *out = (int)value;
    return st;
}

lsim_status lsim_yaml_opt_vec(lsim_yaml *y, yaml_node_t *map, const char *name, const char *key, double *out,
                              size_t n)
{
    yaml_node_t *v = lsim_yaml_get(y, map, name);
    return v ? lsim_yaml_numbers(y, v, key, out, n, n, NULL) : LSIM_OK;
}
