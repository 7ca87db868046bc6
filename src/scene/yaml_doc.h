/* Typed, validated access to a YAML document (libyaml), with file:line:column in every error. */
#ifndef LSIM_SCENE_YAML_DOC_H
#define LSIM_SCENE_YAML_DOC_H

#include "core/yaml_load.h"
#include "lidarsim.h"

#include <stddef.h>
#include <yaml.h>

/* Bounded work: every YAML file (scene, calibration, calibration config) is loaded by
 * core/yaml_load.h, refused beyond its limits (depth, values, bytes) before a document is built. */

typedef struct lsim_yaml {
    lsim_context *ctx;
    const char *path;
    yaml_document_t doc;
    int loaded;
    int recognised; /* the top level is a mapping holding a key of its kind (lsim_yaml_check_keys) */
} lsim_yaml;

lsim_status lsim_yaml_load(lsim_context *ctx, const char *path, lsim_yaml *y);

void lsim_yaml_free(lsim_yaml *y);
yaml_node_t *lsim_yaml_root(lsim_yaml *y);

/* Report an error at a node: "PATH:LINE:COL: KEY: message". Returns `status`. */
lsim_status lsim_yaml_fail(lsim_yaml *y, const yaml_node_t *node, lsim_status status, const char *key,
                           const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* What a message may quote of a file (issue 23): text of a document recognised as its kind
 * (y->recognised: lsim_yaml_check_keys found one of the kind's keys at its top level) as
 * 'text', at most 40 bytes of printable ASCII (others '?'); `instead` for any other document, so
 * that a path naming the wrong file (/etc/shadow) never brings its content into a message.
 * `buf` holds at least LSIM_YAML_QUOTE_MAX bytes. */
#define LSIM_YAML_QUOTE_MAX 48
const char *lsim_yaml_quote(const lsim_yaml *y, const char *text, const char *instead, char *buf);
/* lsim_yaml_quote with "the value" instead, in a buffer of the caller's statement. */
#define LSIM_YAML_Q(y, text) lsim_yaml_quote((y), (text), "the value", (char[LSIM_YAML_QUOTE_MAX]){0})

/* Require a mapping whose keys are all in `allowed` (NULL-terminated). On the root, a mapping
 * holding one of them marks the document as recognised (lsim_yaml_quote); unknown keys are named
 * only in a recognised document. */
lsim_status lsim_yaml_check_keys(lsim_yaml *y, yaml_node_t *map, const char *key, const char *const *allowed);
/* Require a mapping's keys to be distinct (for user-named keys: materials, labels). */
lsim_status lsim_yaml_check_unique(lsim_yaml *y, yaml_node_t *map, const char *key);
/* Value of `name` in a mapping, or NULL. */
yaml_node_t *lsim_yaml_get(lsim_yaml *y, yaml_node_t *map, const char *name);

/* Typed reads; `key` is the dotted path used in messages. */
lsim_status lsim_yaml_number(lsim_yaml *y, yaml_node_t *node, const char *key, double *out);
lsim_status lsim_yaml_int(lsim_yaml *y, yaml_node_t *node, const char *key, long lo, long hi, long *out);
lsim_status lsim_yaml_string(lsim_yaml *y, yaml_node_t *node, const char *key, const char **out);
/* A sequence of exactly `n` numbers (n > 0), or of any length when n == 0 (count in *got). */
lsim_status lsim_yaml_numbers(lsim_yaml *y, yaml_node_t *node, const char *key, double *out, size_t n,
                              size_t max, size_t *got);

/* Optional member helpers: leave *out untouched when the key is absent. */
lsim_status lsim_yaml_opt_number(lsim_yaml *y, yaml_node_t *map, const char *name, const char *key, double *out);
lsim_status lsim_yaml_opt_int(lsim_yaml *y, yaml_node_t *map, const char *name, const char *key, long lo,
                              long hi, int *out);
lsim_status lsim_yaml_opt_vec(lsim_yaml *y, yaml_node_t *map, const char *name, const char *key, double *out,
                              size_t n);

#endif
