/* Cheap checks of PLY, STL and OFF files before assimp imports them (see mesh_check.h). */
#include "scene/mesh_check.h"

#include "core/context.h"
#include "core/file_open.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PLY_MAX_ELEMENTS 32
#define PLY_MAX_PROPERTIES 64
#define PLY_HEADER_MAX 65536

typedef enum { PLY_ASCII, PLY_LE, PLY_BE } ply_format;

typedef struct {
    int list;        /* 1 for `property list COUNT ITEM NAME` */
    int size;        /* scalar size, or the item size of a list */
    int count_size;  /* size of a list's count */
    int item_signed; /* items are signed integers */
    int item_int;    /* items are integers */
    int is_index;    /* face vertex_indices / vertex_index */
} ply_property;

typedef struct {
    char name[32];
    int line; /* its header line: messages name it there, never by the file's own words */
    uint64_t count;
    int nprops;
    ply_property prop[PLY_MAX_PROPERTIES];
} ply_element;

/* Size and kind of a PLY scalar type name; 0 if unknown. */
static int ply_type(const char *t, int *is_signed, int *is_int)
{
    static const struct { const char *name; int size, sgn, integer; } types[] = {
        {"char", 1, 1, 1},   {"int8", 1, 1, 1},    {"uchar", 1, 0, 1},  {"uint8", 1, 0, 1},
        {"short", 2, 1, 1},  {"int16", 2, 1, 1},   {"ushort", 2, 0, 1}, {"uint16", 2, 0, 1},
        {"int", 4, 1, 1},    {"int32", 4, 1, 1},   {"uint", 4, 0, 1},   {"uint32", 4, 0, 1},
        {"float", 4, 1, 0},  {"float32", 4, 1, 0}, {"double", 8, 1, 0}, {"float64", 8, 1, 0},
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; ++i)
        if (strcmp(t, types[i].name) == 0) {
            *is_signed = types[i].sgn;
            *is_int = types[i].integer;
            return types[i].size;
        }
    return 0;
}

/* Unsigned or signed little/big-endian integer of `size` bytes at p. */
static int64_t read_int(const uint8_t *p, int size, int is_signed, ply_format fmt)
{
    uint64_t v = 0;
    for (int i = 0; i < size; ++i) {
        int b = fmt == PLY_BE ? i : size - 1 - i;
        v = (v << 8) | p[b];
    }
    if (is_signed && size < 8 && (v >> (8 * size - 1)) & 1)
        return (int64_t)v - ((int64_t)1 << (8 * size));
    return (int64_t)v;
}

/* Next header line: [*pos, end) up to '\n' copied (without \r\n) into line. 0 at the end. */
static int header_line(const uint8_t *data, size_t limit, size_t *pos, char *line, size_t cap)
{
    if (*pos >= limit)
        return 0;
    size_t n = 0;
    while (*pos < limit && data[*pos] != '\n') {
        if (n + 1 < cap)
            line[n++] = (char)data[*pos];
        ++*pos;
    }
    if (*pos < limit)
        ++*pos; /* the newline */
    while (n > 0 && (line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
        --n;
    line[n] = '\0';
    return 1;
}

static lsim_status ply_parse_header(lsim_context *ctx, const char *name, const uint8_t *data, size_t size,
                                    ply_format *fmt, ply_element *el, int *nel, size_t *body)
{
    size_t limit = size < PLY_HEADER_MAX ? size : PLY_HEADER_MAX, pos = 0;
    char line[512];
    int lineno = 0, have_format = 0;
    *nel = 0;
    while (header_line(data, limit, &pos, line, sizeof line)) {
        ++lineno;
        char *save = NULL, *word = strtok_r(line, " \t", &save);
        if (lineno == 1) {
            if (!word || strcmp(word, "ply") != 0)
                return lsim_fail(ctx, LSIM_ERR_PARSE, "mesh '%s':1: not a PLY file (the first line must be 'ply')", name);
            continue;
        }
        if (!word || strcmp(word, "comment") == 0 || strcmp(word, "obj_info") == 0)
            continue;
        if (strcmp(word, "end_header") == 0) {
            if (!have_format)
                return lsim_fail(ctx, LSIM_ERR_PARSE, "mesh '%s':%d: PLY header has no 'format' line", name, lineno);
            *body = pos;
            return LSIM_OK;
        }
        if (strcmp(word, "format") == 0) {
            const char *f = strtok_r(NULL, " \t", &save);
            if (f && strcmp(f, "ascii") == 0)
                *fmt = PLY_ASCII;
            else if (f && strcmp(f, "binary_little_endian") == 0)
                *fmt = PLY_LE;
            else if (f && strcmp(f, "binary_big_endian") == 0)
                *fmt = PLY_BE;
            else
                return lsim_fail(ctx, LSIM_ERR_PARSE,
                                 "mesh '%s':%d: the PLY format line names no known format; expected `format ascii "
                                 "1.0` (or binary_little_endian, binary_big_endian)", name, lineno);
            have_format = 1;
        } else if (strcmp(word, "element") == 0) {
            const char *en = strtok_r(NULL, " \t", &save), *cn = strtok_r(NULL, " \t", &save);
            char *end = NULL;
            errno = 0;
            unsigned long long count = cn ? strtoull(cn, &end, 10) : 0;
            if (!en || !cn || *end || errno || cn[0] == '-')
                return lsim_fail(ctx, LSIM_ERR_PARSE, "mesh '%s':%d: PLY element line needs a name and a count", name,
                                 lineno);
            if (*nel == PLY_MAX_ELEMENTS)
                return lsim_fail(ctx, LSIM_ERR_PARSE, "mesh '%s':%d: more than %d PLY elements", name, lineno,
                                 PLY_MAX_ELEMENTS);
            if (count > LSIM_MESH_MAX_ELEMENTS)
                return lsim_fail(ctx, LSIM_ERR_PARSE,
                                 "mesh '%s':%d: the PLY element of this line claims %llu records; at most %llu are "
                                 "supported", name, lineno, count, LSIM_MESH_MAX_ELEMENTS);
            ply_element *e = &el[(*nel)++];
            memset(e, 0, sizeof *e);
            snprintf(e->name, sizeof e->name, "%s", en);
            e->line = lineno;
            e->count = count;
        } else if (strcmp(word, "property") == 0) {
            if (*nel == 0)
                return lsim_fail(ctx, LSIM_ERR_PARSE, "mesh '%s':%d: PLY property before any element", name, lineno);
            ply_element *e = &el[*nel - 1];
            if (e->nprops == PLY_MAX_PROPERTIES)
                return lsim_fail(ctx, LSIM_ERR_PARSE, "mesh '%s':%d: more than %d properties in the PLY element of "
                                 "line %d", name, lineno, PLY_MAX_PROPERTIES, e->line);
            ply_property *p = &e->prop[e->nprops];
            memset(p, 0, sizeof *p);
            const char *t = strtok_r(NULL, " \t", &save);
            int sgn = 0, integer = 0;
            if (t && strcmp(t, "list") == 0) {
                const char *ct = strtok_r(NULL, " \t", &save), *it = strtok_r(NULL, " \t", &save);
                const char *pn = strtok_r(NULL, " \t", &save);
                int csgn = 0, cint = 0;
                p->list = 1;
                p->count_size = ct ? ply_type(ct, &csgn, &cint) : 0;
                p->size = it ? ply_type(it, &sgn, &integer) : 0;
                if (!p->count_size || !cint || !p->size || !pn)
                    return lsim_fail(ctx, LSIM_ERR_PARSE,
                                     "mesh '%s':%d: PLY list property needs an integer count type, an item type and "
                                     "a name", name, lineno);
                p->is_index = strcmp(e->name, "face") == 0 &&
                              (strcmp(pn, "vertex_indices") == 0 || strcmp(pn, "vertex_index") == 0);
            } else {
                p->size = t ? ply_type(t, &sgn, &integer) : 0;
                if (!p->size)
                    return lsim_fail(ctx, LSIM_ERR_PARSE,
                                     "mesh '%s':%d: the PLY property line names no known type; expected `property "
                                     "TYPE NAME`, TYPE one of char uchar short ushort int uint float double (or int8 "
                                     "... float64)", name, lineno);
            }
            p->item_signed = sgn;
            p->item_int = integer;
            if (p->is_index && !integer)
                return lsim_fail(ctx, LSIM_ERR_PARSE, "mesh '%s':%d: PLY face indices must be integers", name,
                                 lineno);
            ++e->nprops;
        } else {
            return lsim_fail(ctx, LSIM_ERR_PARSE, "mesh '%s':%d: not a PLY header line; expected `format`, "
                             "`element`, `property`, `comment`, `obj_info` or `end_header`", name, lineno);
        }
    }
    return lsim_fail(ctx, LSIM_ERR_PARSE, "mesh '%s': PLY header has no 'end_header' line in its first %zu bytes", name,
                     limit);
}

static uint64_t vertex_count(const ply_element *el, int nel)
{
    for (int i = 0; i < nel; ++i)
        if (strcmp(el[i].name, "vertex") == 0)
            return el[i].count;
    return 0;
}

/* Walk a binary PLY body record by record: every list fits, every face index names a vertex. */
static lsim_status ply_walk_binary(lsim_context *ctx, const char *name, const uint8_t *data, size_t size,
                                   ply_format fmt, const ply_element *el, int nel, size_t pos)
{
    uint64_t nverts = vertex_count(el, nel);
    for (int i = 0; i < nel; ++i) {
        const ply_element *e = &el[i];
        uint64_t fixed = 0;
        int has_list = 0;
        for (int k = 0; k < e->nprops; ++k) {
            fixed += (uint64_t)e->prop[k].size;
            has_list |= e->prop[k].list;
        }
        if (!has_list) { /* fixed-size records: one bounds check */
            if (fixed && e->count > (size - pos) / fixed)
                return lsim_fail(ctx, LSIM_ERR_PARSE,
                                 "mesh '%s': the PLY element of header line %d claims %llu records of %llu bytes, but "
                                 "only %zu bytes follow at offset %zu (truncated file or wrong header)", name, e->line,
                                 (unsigned long long)e->count, (unsigned long long)fixed, size - pos, pos);
            pos += (size_t)(e->count * fixed);
            continue;
        }
        for (uint64_t r = 0; r < e->count; ++r) {
            for (int k = 0; k < e->nprops; ++k) {
                const ply_property *p = &e->prop[k];
                if (!p->list) {
                    if ((size_t)p->size > size - pos)
                        goto truncated;
                    pos += (size_t)p->size;
                    continue;
                }
                if ((size_t)p->count_size > size - pos)
                    goto truncated;
                int64_t n = read_int(data + pos, p->count_size, 0, fmt);
                pos += (size_t)p->count_size;
                if (n < 0 || (uint64_t)n > (size - pos) / (uint64_t)p->size)
                    goto truncated;
                if (p->is_index)
                    for (int64_t j = 0; j < n; ++j) {
                        int64_t v = read_int(data + pos + (size_t)j * (size_t)p->size, p->size, p->item_signed, fmt);
                        if (v < 0 || (uint64_t)v >= nverts)
                            return lsim_fail(ctx, LSIM_ERR_PARSE,
                                             "mesh '%s': PLY face %llu names vertex %lld, but the file has %llu "
                                             "vertices (offset %zu)", name, (unsigned long long)r, (long long)v,
                                             (unsigned long long)nverts, pos + (size_t)j * (size_t)p->size);
                    }
                pos += (size_t)n * (size_t)p->size;
            }
            continue;
        truncated:
            return lsim_fail(ctx, LSIM_ERR_PARSE,
                             "mesh '%s': record %llu of %llu of the PLY element of header line %d runs past the end "
                             "of the file (offset %zu of %zu; truncated file or a corrupt list length)", name,
                             (unsigned long long)r, (unsigned long long)e->count, e->line, pos, size);
        }
    }
    return LSIM_OK;
}

static lsim_status check_ply(lsim_context *ctx, const char *name, const uint8_t *data, size_t size)
{
    ply_element el[PLY_MAX_ELEMENTS];
    int nel = 0;
    ply_format fmt = PLY_ASCII;
    size_t body = 0;
    lsim_status st = ply_parse_header(ctx, name, data, size, &fmt, el, &nel, &body);
    if (st != LSIM_OK)
        return st;
    if (fmt != PLY_ASCII)
        return ply_walk_binary(ctx, name, data, size, fmt, el, nel, body);
    /* ascii: every property of every record takes at least a digit and a separator */
    uint64_t need = 0;
    for (int i = 0; i < nel; ++i)
        need += el[i].count * 2u * (uint64_t)el[i].nprops;
    if (need > size - body)
        return lsim_fail(ctx, LSIM_ERR_PARSE,
                         "mesh '%s': the PLY header claims %llu values, but only %zu bytes follow it (truncated "
                         "file or wrong header)", name, (unsigned long long)(need / 2), size - body);
    return LSIM_OK;
}

static lsim_status check_stl(lsim_context *ctx, const char *name, const uint8_t *data, size_t size)
{
    int solid = size >= 5 && strncasecmp((const char *)data, "solid", 5) == 0;
    uint64_t n = size >= 84 ? (uint64_t)read_int(data + 80, 4, 0, PLY_LE) : 0;
    if (solid && (size < 84 || 84 + 50 * n != size))
        return LSIM_OK; /* ascii STL: assimp's tokenizer reads it */
    if (size < 84)
        return lsim_fail(ctx, LSIM_ERR_PARSE,
                         "mesh '%s': a binary STL needs an 84-byte header, but the file has %zu bytes", name, size);
    if (n == 0 || 84 + 50 * n > size)
        return lsim_fail(ctx, LSIM_ERR_PARSE,
                         "mesh '%s': the binary STL header claims %llu triangles (%llu bytes), but the file has %zu "
                         "bytes (truncated file or wrong header)", name, (unsigned long long)n,
                         (unsigned long long)(84 + 50 * n), size);
    return LSIM_OK;
}

static lsim_status check_off(lsim_context *ctx, const char *name, const uint8_t *data, size_t size)
{
    size_t pos = 0;
    while (pos < size && pos < 16 && isalpha(data[pos])) /* OFF, COFF, NOFF, STOFF, ... */
        ++pos;
    unsigned long long count[2] = {0, 0};
    for (int k = 0; k < 2; ++k) {
        for (;;) { /* whitespace and # comments */
            while (pos < size && isspace(data[pos]))
                ++pos;
            if (pos < size && data[pos] == '#')
                while (pos < size && data[pos] != '\n')
                    ++pos;
            else
                break;
        }
        if (pos >= size || !isdigit(data[pos]))
            return lsim_fail(ctx, LSIM_ERR_PARSE, "mesh '%s': the OFF header needs vertex and face counts", name);
        while (pos < size && isdigit(data[pos]) && count[k] <= LSIM_MESH_MAX_ELEMENTS)
            count[k] = count[k] * 10 + (unsigned)(data[pos++] - '0');
        if (count[k] > LSIM_MESH_MAX_ELEMENTS)
            return lsim_fail(ctx, LSIM_ERR_PARSE, "mesh '%s': the OFF header claims more than %llu %s", name,
                             LSIM_MESH_MAX_ELEMENTS, k ? "faces" : "vertices");
    }
    /* a vertex line is at least "x y z\n", a face line "n\n" */
    if (count[0] * 6 + count[1] * 2 > size - pos)
        return lsim_fail(ctx, LSIM_ERR_PARSE,
                         "mesh '%s': the OFF header claims %llu vertices and %llu faces, but only %zu bytes follow "
                         "(truncated file or wrong header)", name, count[0], count[1], size - pos);
    if (count[0] < 3 || count[1] == 0)
        return lsim_fail(ctx, LSIM_ERR_PARSE, "mesh '%s': the OFF file has %llu vertices and %llu faces: no triangle",
                         name, count[0], count[1]);
    return LSIM_OK;
}

static int has_extension(const char *name, const char *ext)
{
    size_t n = strlen(name), e = strlen(ext);
    return n > e && strcasecmp(name + n - e, ext) == 0;
}

lsim_status lsim_mesh_check_bytes(lsim_context *ctx, const char *name, const uint8_t *data, size_t size)
{
    if (size >= 4 && memcmp(data, "ply", 3) == 0 && (data[3] == '\n' || data[3] == '\r'))
        return check_ply(ctx, name, data, size);
    if (has_extension(name, ".ply"))
        return lsim_fail(ctx, LSIM_ERR_PARSE, "mesh '%s': not a PLY file (it must start with the line 'ply')", name);
    if (has_extension(name, ".stl"))
        return check_stl(ctx, name, data, size);
    if (has_extension(name, ".off"))
        return check_off(ctx, name, data, size);
    return LSIM_OK;
}

lsim_status lsim_mesh_check(lsim_context *ctx, const char *path)
{
    /* the one opener (core/file_open.h): a regular file of at most the mesh bound; a FIFO or a
     * device named as a mesh is refused at once, not waited on */
    int fd;
    uint64_t bytes = 0;
    lsim_status open_st = lsim_file_open_fd(ctx, path, LSIM_INPUT_MESH, &fd, &bytes);
    if (open_st != LSIM_OK)
        return open_st;
    if (bytes == 0) {
        close(fd);
        return lsim_fail(ctx, LSIM_ERR_PARSE, "mesh '%s' is empty", path);
    }
    const size_t size = (size_t)bytes;
    void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return lsim_fail(ctx, LSIM_ERR_IO, "mesh '%s' cannot be read: %s", path, strerror(errno));
    lsim_status st = lsim_mesh_check_bytes(ctx, path, map, size);
    munmap(map, size);
    return st;
}
