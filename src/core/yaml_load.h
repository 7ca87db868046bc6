/* The one bounded YAML loader: every YAML file lidarsim reads is refused beyond these limits
 * before a document is built (yaml_load.c). */
#ifndef LSIM_CORE_YAML_LOAD_H
#define LSIM_CORE_YAML_LOAD_H

#include "lidarsim.h"

#include <stddef.h>
#include <stdio.h>
#include <yaml.h>

/* Bounded work: nesting of lists/mappings, values (scalars, aliases, lists and mappings: ~100
 * bytes of memory each once loaded) and bytes. Aliases (*name) are not expanded: they point to a
 * shared node, and every reader walks a fixed-depth schema. */
#define LSIM_YAML_MAX_DEPTH 64
#define LSIM_YAML_MAX_NODES 2000000
#define LSIM_YAML_MAX_BYTES (64 << 20)

/* What one kind of YAML file may hold besides the depth (always LSIM_YAML_MAX_DEPTH), and what
 * the messages call it. */
typedef struct lsim_yaml_limits {
    size_t max_nodes;    /* values in the file; 0 or more than LSIM_YAML_MAX_NODES: that */
    size_t max_entries;  /* items of one list or keys of one mapping; 0: no limit but max_nodes */
    const char *kind;    /* "scene file", "calibration file" */
    const char *needs;   /* said of an empty file: "`sensor:` and `objects:`" */
    const char *smaller; /* what to do past max_nodes or max_entries */
    /* The top-level keys of the kind (NULL-terminated; NULL: none). A syntax error names the key
     * path (objects[2].box) only once the top-level mapping has shown one of them; before, a key
     * is "(a key)": a file that is not what it should be is never quoted (issue 23). */
    const char *const *known;
} lsim_yaml_limits;

/* One document from the open file `f` (read from its start; `content_end`: its size less
 * trailing blanks, or -1 when unknown, to say "at the end of the file"), or from `size` bytes
 * of `text`. `path` names it in messages (PATH:LINE:COL). On an error nothing is left to free. */
lsim_status lsim_yaml_read_file(lsim_context *ctx, const char *path, FILE *f, long content_end,
                                const lsim_yaml_limits *limits, yaml_document_t *doc);
lsim_status lsim_yaml_read_text(lsim_context *ctx, const char *path, const char *text, size_t size,
                                const lsim_yaml_limits *limits, yaml_document_t *doc);

#endif
