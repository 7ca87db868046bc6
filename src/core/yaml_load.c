/* The one bounded YAML loader (libyaml) of every YAML file lidarsim reads: scenes, fit files,
 * calibrations and their configs (through scene/yaml_doc.h) and ROS velodyne_pointcloud sensor
 * calibrations. A first pass over the parser's events refuses the text as soon as it passes a
 * limit (nesting, values, entries of one collection), building nothing; only then is the
 * document built. Syntax errors name where the parser noticed and where the open construct began. */
#include "core/yaml_load.h"

#include "core/context.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One open collection of the first pass. */
typedef struct open_node {
    yaml_mark_t mark;      /* where it began */
    int mapping, flow;     /* mapping or sequence; flow ({ [) or block style */
    int want_value;        /* mapping: the next node is a value (the key is in `key`) */
    size_t items;          /* sequence: items so far (the index of the next one) */
    size_t keys;           /* mapping: keys so far */
    char key[48];          /* mapping: the key being read ("" before the first) */
} open_node;

typedef struct event_pass {
    open_node stack[LSIM_YAML_MAX_DEPTH + 1];
    size_t depth;
    size_t nodes;
    const char *const *known; /* the kind's top-level keys (lsim_yaml_limits.known) */
    int recognised;           /* the top-level mapping holds one of them */
} event_pass;

static int is_known(const char *const *known, const char *key)
{
    for (size_t i = 0; known && known[i]; ++i)
        if (strcmp(known[i], key) == 0)
            return 1;
    return 0;
}

/* "objects[2].box": the keys and indices that lead to the node being read at depth `upto` (the
 * collection opened there, when it is on the stack). With `partial`, the innermost collection adds
 * only a key whose value is being read (not the index of the next list item, nor a next key). */
static const char *node_path(const event_pass *e, size_t upto, int partial, char *buf, size_t size)
{
    buf[0] = '\0';
    size_t len = 0;
    for (size_t i = 0; i < upto && i < e->depth && len < size; ++i) {
        const open_node *n = &e->stack[i];
        if (partial && i + 1 == upto && (!n->mapping || !n->want_value))
            break;
        /* a key the file chose is named only in a file recognised as its kind */
        const char *k = !n->key[0] ? "?" : (e->recognised || (i == 0 && is_known(e->known, n->key))) ? n->key
                                                                                                     : "(a key)";
        int w = n->mapping ? snprintf(buf + len, size - len, "%s%s", len ? "." : "", k)
                           : snprintf(buf + len, size - len, "[%zu]", n->items);
        if (w < 0)
            break;
        len += (size_t)w;
    }
    if (len >= size && size > 4)
        memcpy(buf + size - 4, "...", 4);
    return buf[0] ? buf : "(top level)";
}

/* A node (scalar, alias or a whole collection) completed inside the innermost open collection. */
static void node_done(event_pass *e, const char *scalar)
{
    if (!e->depth)
        return;
    open_node *top = &e->stack[e->depth - 1];
    if (!top->mapping) {
        ++top->items;
    } else if (!top->want_value) {
        ++top->keys;
        /* at most 40 bytes of printable ASCII (others '?') */
        size_t n = 0;
        for (const char *c = scalar ? scalar : "?"; *c && n < 40; ++c)
            top->key[n++] = (unsigned char)*c >= 0x20 && (unsigned char)*c <= 0x7e ? *c : '?';
        top->key[n] = '\0';
        if (scalar && strlen(scalar) > 40)
            memcpy(top->key + 40, "...", 4);
        if (e->depth == 1 && scalar && is_known(e->known, scalar))
            e->recognised = 1;
        top->want_value = 1;
    } else {
        top->want_value = 0;
    }
}

/* The message for a syntax error of the first pass: where the parser noticed, and where the
 * construct it was reading began (the innermost open `{`/`[`, or the libyaml context mark). */
static lsim_status syntax_error(lsim_context *ctx, const char *path, const yaml_parser_t *p, const event_pass *e,
                                long file_size)
{
    const char *problem = p->problem ? p->problem : "malformed YAML";
    size_t pl = p->problem_mark.line + 1, pc = p->problem_mark.column + 1;
    const open_node *flow = NULL;
    size_t flow_depth = 0;
    for (size_t i = e->depth; i-- > 0;)
        if (e->stack[i].flow) {
            flow = &e->stack[i];
            flow_depth = i;
            break;
        }
    /* At the end of the file: nothing but blanks, comments and line breaks follow the problem. */
    int at_end = file_size >= 0 && p->problem_mark.index + 1 >= (size_t)file_size;
    char where[256];
    if (flow && p->context && strstr(p->context, "while parsing a flow")) {
        char open = flow->mapping ? '{' : '[', close = flow->mapping ? '}' : ']';
        if (at_end)
            return lsim_fail(ctx, LSIM_ERR_PARSE,
                             "%s:%zu:%zu: %s: the `%c` opened here is never closed (the parser noticed at the end of "
                             "the file, %zu:%zu: %s%s%s); add the missing `%c`", path, flow->mark.line + 1,
                             flow->mark.column + 1, node_path(e, flow_depth, 0, where, sizeof where), open, pl, pc,
                             problem, p->context ? " " : "", p->context ? p->context : "", close);
        return lsim_fail(ctx, LSIM_ERR_PARSE,
                         "%s:%zu:%zu: %s: the `%c` opened here is not closed before %zu:%zu (the parser noticed "
                         "there: %s%s%s); a missing `,` or `%c`?", path, flow->mark.line + 1, flow->mark.column + 1,
                         node_path(e, flow_depth, 0, where, sizeof where), open, pl, pc, problem,
                         p->context ? " " : "", p->context ? p->context : "", close);
    }
    char began[128] = "";
    if (p->context && (p->context_mark.line != p->problem_mark.line || p->context_mark.column != p->problem_mark.column))
        snprintf(began, sizeof began, " that starts at %zu:%zu", p->context_mark.line + 1, p->context_mark.column + 1);
    else if (e->depth)
        snprintf(began, sizeof began, " (inside the %s that starts at %zu:%zu)",
                 e->stack[e->depth - 1].mapping ? "mapping" : "list", e->stack[e->depth - 1].mark.line + 1,
                 e->stack[e->depth - 1].mark.column + 1);
    return lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu:%zu: %s: YAML syntax error: %s%s%s%s%s", path, pl, pc,
                     node_path(e, e->depth, 1, where, sizeof where), problem, p->context ? " " : "",
                     p->context ? p->context : "", began,
                     at_end ? " (at the end of the file)" : "");
}

/* The parser reads the file `f`, or else `size` bytes of `text`. */
static void set_input(yaml_parser_t *parser, FILE *f, const char *text, size_t size)
{
    if (f)
        yaml_parser_set_input_file(parser, f);
    else
        yaml_parser_set_input_string(parser, (const unsigned char *)text, size);
}

/* The first pass: syntax, nesting depth, node count and entries per collection, without building
 * anything. */
static lsim_status scan_events(lsim_context *ctx, const char *path, FILE *f, const char *text, size_t size,
                               long file_size, const lsim_yaml_limits *lim)
{
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "%s: cannot initialise the YAML parser", path);
    set_input(&parser, f, text, size);
    event_pass *e = calloc(1, sizeof *e);
    if (!e) {
        yaml_parser_delete(&parser);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "%s: out of memory reading the YAML", path);
    }
    e->known = lim->known;
    lsim_status st = LSIM_OK;
    char where[256];
    for (int done = 0; !done && st == LSIM_OK;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            st = syntax_error(ctx, path, &parser, e, file_size);
            break;
        }
        switch (ev.type) {
        case YAML_STREAM_END_EVENT: done = 1; break;
        case YAML_SCALAR_EVENT:
        case YAML_ALIAS_EVENT:
            node_done(e, ev.type == YAML_SCALAR_EVENT ? (const char *)ev.data.scalar.value : "*alias");
            ++e->nodes;
            break;
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT:
            if (e->depth == LSIM_YAML_MAX_DEPTH) {
                st = lsim_fail(ctx, LSIM_ERR_PARSE,
                               "%s:%zu:%zu: %s: nesting deeper than %d levels (lists and mappings inside each "
                               "other); a scene or calibration file needs fewer than 10: look for `[` or `{` that "
                               "are never closed", path, ev.start_mark.line + 1, ev.start_mark.column + 1,
                               node_path(e, e->depth, 0, where, 40), LSIM_YAML_MAX_DEPTH);
                break;
            }
            {
                open_node *n = &e->stack[e->depth++];
                memset(n, 0, sizeof *n);
                n->mark = ev.start_mark;
                n->mapping = ev.type == YAML_MAPPING_START_EVENT;
                n->flow = n->mapping ? ev.data.mapping_start.style == YAML_FLOW_MAPPING_STYLE
                                     : ev.data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE;
            }
            ++e->nodes;
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            if (e->depth)
                --e->depth;
            node_done(e, NULL);
            break;
        default: break;
        }
        if (st == LSIM_OK && e->nodes > lim->max_nodes)
            st = lsim_fail(ctx, LSIM_ERR_PARSE,
                           "%s:%zu:%zu: %s: more than %zu YAML values (numbers, strings, lists, mappings); a file "
                           "this large is refused to bound memory and time: %s", path, ev.start_mark.line + 1,
                           ev.start_mark.column + 1, node_path(e, e->depth, 1, where, sizeof where), lim->max_nodes,
                           lim->smaller);
        const open_node *top = e->depth ? &e->stack[e->depth - 1] : NULL;
        if (st == LSIM_OK && top && lim->max_entries && (top->mapping ? top->keys : top->items) > lim->max_entries)
            st = lsim_fail(ctx, LSIM_ERR_PARSE,
                           "%s:%zu:%zu: %s: the %s that starts at %zu:%zu has more than %zu %s; %s", path,
                           ev.start_mark.line + 1, ev.start_mark.column + 1,
                           node_path(e, e->depth - 1, 0, where, sizeof where), top->mapping ? "mapping" : "list",
                           top->mark.line + 1, top->mark.column + 1, lim->max_entries,
                           top->mapping ? "keys" : "items", lim->smaller);
        yaml_event_delete(&ev);
    }
    free(e);
    yaml_parser_delete(&parser);
    return st;
}

/* The second pass: the document, once the first pass has bounded it; one document only. */
static lsim_status load_document(lsim_context *ctx, const char *path, FILE *f, const char *text, size_t size,
                                 const lsim_yaml_limits *lim, yaml_document_t *doc)
{
    lsim_status st = LSIM_OK;
    int loaded = 0;
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "%s: cannot initialise the YAML parser", path);
    set_input(&parser, f, text, size);
    if (!yaml_parser_load(&parser, doc)) {
        char began[128] = "";
        if (parser.context)
            snprintf(began, sizeof began, " (%s at %zu:%zu)", parser.context, parser.context_mark.line + 1,
                     parser.context_mark.column + 1);
        int alias = parser.problem && strstr(parser.problem, "alias");
        st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu:%zu: YAML error: %s%s%s", path, parser.problem_mark.line + 1,
                       parser.problem_mark.column + 1, parser.problem ? parser.problem : "malformed YAML", began,
                       alias ? "; an alias `*name` needs an anchor `&name` on a value before it" : "");
    } else {
        loaded = 1;
        yaml_document_t extra;
        if (!yaml_document_get_root_node(doc)) {
            st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s:1: the %s is empty; it needs %s", path, lim->kind, lim->needs);
        } else if (!yaml_parser_load(&parser, &extra)) {
            st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu:%zu: YAML syntax error: %s%s%s", path,
                           parser.problem_mark.line + 1, parser.problem_mark.column + 1,
                           parser.problem ? parser.problem : "malformed YAML",
                           parser.context ? " " : "", parser.context ? parser.context : "");
        } else {
            yaml_node_t *second = yaml_document_get_root_node(&extra);
            if (second)
                st = lsim_fail(ctx, LSIM_ERR_PARSE,
                               "%s:%zu: a second YAML document starts here (after `---`); a %s holds one",
                               path, extra.start_mark.line + 1, lim->kind);
            yaml_document_delete(&extra);
        }
    }
    yaml_parser_delete(&parser);
    if (st != LSIM_OK && loaded)
        yaml_document_delete(doc);
    return st;
}

/* Limits as given, the node count at most LSIM_YAML_MAX_NODES. */
static lsim_yaml_limits clamp_limits(const lsim_yaml_limits *limits)
{
    lsim_yaml_limits lim = *limits;
    if (!lim.max_nodes || lim.max_nodes > LSIM_YAML_MAX_NODES)
        lim.max_nodes = LSIM_YAML_MAX_NODES;
    return lim;
}

lsim_status lsim_yaml_read_file(lsim_context *ctx, const char *path, FILE *f, long content_end,
                                const lsim_yaml_limits *limits, yaml_document_t *doc)
{
    const lsim_yaml_limits lim = clamp_limits(limits);
    rewind(f);
    lsim_status st = scan_events(ctx, path, f, NULL, 0, content_end, &lim);
    if (st != LSIM_OK)
        return st;
    rewind(f);
    return load_document(ctx, path, f, NULL, 0, &lim, doc);
}

lsim_status lsim_yaml_read_text(lsim_context *ctx, const char *path, const char *text, size_t size,
                                const lsim_yaml_limits *limits, yaml_document_t *doc)
{
    const lsim_yaml_limits lim = clamp_limits(limits);
    if (size > LSIM_YAML_MAX_BYTES)
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s: %zu bytes; a YAML file may have at most %d MiB (to bound memory "
                         "and time)", path, size, LSIM_YAML_MAX_BYTES >> 20);
    size_t end = size; /* trailing blanks and line breaks do not count: an error there is "at the end" */
    while (end > 0 && strchr(" \t\r\n", text[end - 1]) && text[end - 1] != '\0')
        --end;
    lsim_status st = scan_events(ctx, path, NULL, text, size, (long)end, &lim);
    return st == LSIM_OK ? load_document(ctx, path, NULL, text, size, &lim, doc) : st;
}


