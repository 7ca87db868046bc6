/* Trajectory CSV reader and the motion keys of scene files (trajectory_file.h). */
#include "scene/trajectory_file.h"
#include "core/file_open.h"

#include "core/context.h"
#include "core/text.h"
#include "scene/scene_file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { COL_T, COL_X, COL_Y, COL_Z, COL_ROLL, COL_PITCH, COL_YAW, COL_COUNT };
static const char *const column_names[COL_COUNT] = {"t", "x", "y", "z", "roll", "pitch", "yaw"};
#define VALID_COLUMNS "t, x, y, z, roll, pitch, yaw (seconds, metres, degrees; all seven, any order)"

typedef struct reader {
    lsim_context *ctx;
    const char *path;
    size_t line_no;
    int where[COL_COUNT];
    size_t capacity;
    lsim_trajectory tr;
} reader;

static lsim_status parse_header(reader *r, char *line)
{
    char *f[COL_COUNT + 1];
    int n = (int)lsim_split_fields(line, ',', f, COL_COUNT + 1);
    for (int c = 0; c < COL_COUNT; ++c)
        r->where[c] = -1;
    if (n > COL_COUNT)
        return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: header has more than %d columns, valid: " VALID_COLUMNS,
                         r->path, r->line_no, COL_COUNT);
    for (int i = 0; i < n; ++i) {
        int c = 0;
        while (c < COL_COUNT && strcmp(f[i], column_names[c]) != 0)
            ++c;
        if (c == COL_COUNT)
            return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: column %d of the header is not a trajectory column, "
                             "valid: " VALID_COLUMNS, r->path, r->line_no, i + 1);
        if (r->where[c] >= 0)
            return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: column %d (%s) appears twice in the header (first as "
                             "column %d)", r->path, r->line_no, i + 1, column_names[c], r->where[c] + 1);
        r->where[c] = i;
    }
    for (int c = 0; c < COL_COUNT; ++c)
        if (r->where[c] < 0)
            return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: header lacks the column '%s'; expected " VALID_COLUMNS,
                             r->path, r->line_no, column_names[c]);
    return LSIM_OK;
}

static int grow(reader *r)
{
    size_t cap = r->capacity ? 2 * r->capacity : 64;
    if (cap > LSIM_MOTION_MAX_KEYS)
        cap = LSIM_MOTION_MAX_KEYS;
    double *t = realloc(r->tr.t, cap * sizeof *t);
    if (!t)
        return 0;
    r->tr.t = t;
    double(*p)[3] = realloc(r->tr.position, cap * sizeof *p);
    if (!p)
        return 0;
    r->tr.position = p;
    double(*a)[3] = realloc(r->tr.rpy_deg, cap * sizeof *a);
    if (!a)
        return 0;
    r->tr.rpy_deg = a;
    r->capacity = cap;
    return 1;
}

static lsim_status parse_row(reader *r, char *line)
{
    char *f[COL_COUNT + 1];
    int n = (int)lsim_split_fields(line, ',', f, COL_COUNT + 1);
    if (n != COL_COUNT)
        return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: %s%d fields, expected %d (" VALID_COLUMNS ")", r->path,
                         r->line_no, n > COL_COUNT ? "more than " : "", n > COL_COUNT ? COL_COUNT : n, COL_COUNT);
    if (r->tr.count >= LSIM_MOTION_MAX_KEYS)
        return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: more than %d keyframes; thin the trajectory out", r->path,
                         r->line_no, LSIM_MOTION_MAX_KEYS);
    double v[COL_COUNT];
    for (int c = 0; c < COL_COUNT; ++c) {
        const char *text = f[r->where[c]];
        char *end;
        errno = 0;
        v[c] = strtod(text, &end);
        if (end == text || *end != '\0' || !isfinite(v[c]))
            return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: column %d (%s) is not a finite number", r->path,
                             r->line_no, r->where[c] + 1, column_names[c]);
    }
    if (!(fabs(v[COL_T]) <= LSIM_MOTION_MAX_TIME))
        return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: column 't': %g s is out of range, must be within +-%g",
                         r->path, r->line_no, v[COL_T], LSIM_MOTION_MAX_TIME);
    if (r->tr.count > 0 && !(v[COL_T] > r->tr.t[r->tr.count - 1]))
        return lsim_fail(r->ctx, LSIM_ERR_PARSE,
                         "%s:%zu: column 't': %.15g is not after the previous row's %.15g; times must be strictly "
                         "ascending (sort the rows and drop duplicates)", r->path, r->line_no, v[COL_T],
                         r->tr.t[r->tr.count - 1]);
    for (int c = COL_X; c <= COL_Z; ++c)
        if (!(fabs(v[c]) <= LSIM_MOTION_MAX_POSITION))
            return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: column '%s': %g m is out of range, must be within +-%g",
                             r->path, r->line_no, column_names[c], v[c], LSIM_MOTION_MAX_POSITION);
    for (int c = COL_ROLL; c <= COL_YAW; ++c)
        if (!(fabs(v[c]) <= 1e6))
            return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: column '%s': %g degrees is out of range, must be "
                             "within +-1e6", r->path, r->line_no, column_names[c], v[c]);
    if (r->tr.count == r->capacity && !grow(r))
        return lsim_fail(r->ctx, LSIM_ERR_OUT_OF_MEMORY, "%s:%zu: out of memory reading the trajectory", r->path,
                         r->line_no);
    size_t i = r->tr.count++;
    r->tr.t[i] = v[COL_T];
    for (int k = 0; k < 3; ++k) {
        r->tr.position[i][k] = v[COL_X + k];
        r->tr.rpy_deg[i][k] = v[COL_ROLL + k];
    }
    return LSIM_OK;
}

lsim_status lsim_trajectory_file_read(lsim_context *ctx, const char *path, lsim_trajectory *out)
{
    if (!path || !out)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_trajectory_file_read: path and out must not be NULL");
    memset(out, 0, sizeof *out);
    FILE *fp = NULL;
    lsim_status open_st = lsim_file_open(ctx, path, LSIM_INPUT_TRAJECTORY, &fp, NULL);
    if (open_st != LSIM_OK)
        return open_st;
    reader r;
    memset(&r, 0, sizeof r);
    r.ctx = ctx;
    r.path = path;
    char *line = NULL;
    size_t cap = 0;
    int have_header = 0;
    lsim_status st = LSIM_OK;
    while (getline(&line, &cap, fp) >= 0) {
        ++r.line_no;
        char *s = line;
        if (r.line_no == 1 && strncmp(s, "\xEF\xBB\xBF", 3) == 0)
            s += 3; /* UTF-8 byte order mark */
        s = lsim_trim(s);
        if (*s == '\0' || *s == '#')
            continue;
        st = have_header ? parse_row(&r, s) : parse_header(&r, s);
        if (st != LSIM_OK)
            break;
        have_header = 1;
    }
    if (st == LSIM_OK && ferror(fp))
        st = lsim_fail(ctx, LSIM_ERR_IO, "%s:%zu: read error: %s", path, r.line_no + 1, strerror(errno));
    free(line);
    fclose(fp);
    if (st == LSIM_OK && !have_header)
        st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: no header line, expected the columns " VALID_COLUMNS, path,
                       r.line_no + 1);
    if (st == LSIM_OK && r.tr.count == 0)
        st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: no keyframe rows after the header, need at least one", path,
                       r.line_no + 1);
    if (st != LSIM_OK) {
        lsim_trajectory_free(&r.tr);
        return st;
    }
    *out = r.tr;
    return LSIM_OK;
}

/* `keyframes: [[t, x, y, z, roll, pitch, yaw], ...]` */
static lsim_status read_keyframes(lsim_yaml *y, yaml_node_t *list, const char *key, lsim_trajectory *out)
{
    if (list->type != YAML_SEQUENCE_NODE)
        return lsim_yaml_fail(y, list, LSIM_ERR_PARSE, key,
                              "expected a list of [t, x, y, z, roll, pitch, yaw] keyframes (seconds, metres, degrees)");
    size_t n = (size_t)(list->data.sequence.items.top - list->data.sequence.items.start);
    if (n < 1 || n > LSIM_MOTION_MAX_KEYS)
        return lsim_yaml_fail(y, list, LSIM_ERR_PARSE, key, "%zu keyframes; give 1 to %d", n, LSIM_MOTION_MAX_KEYS);
    if (!lsim_trajectory_alloc(out, n))
        return lsim_fail(y->ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for the %zu keyframes of %s", n, key);
    char sub[200];
    for (size_t i = 0; i < n; ++i) {
        yaml_node_t *row = yaml_document_get_node(&y->doc, list->data.sequence.items.start[i]);
        double v[7];
        snprintf(sub, sizeof sub, "%s[%zu]", key, i);
        lsim_status st = lsim_yaml_numbers(y, row, sub, v, 7, 7, NULL);
        if (st == LSIM_OK && !(fabs(v[0]) <= LSIM_MOTION_MAX_TIME))
            st = lsim_yaml_fail(y, row, LSIM_ERR_PARSE, sub, "time %g s is out of range, must be within +-%g", v[0],
                                LSIM_MOTION_MAX_TIME);
        if (st == LSIM_OK && i > 0 && !(v[0] > out->t[i - 1]))
            st = lsim_yaml_fail(y, row, LSIM_ERR_PARSE, sub,
                                "time %.15g is not after the previous keyframe's %.15g; keyframe times must be "
                                "strictly ascending (sort them and drop duplicates)", v[0], out->t[i - 1]);
        for (int k = 1; k < 4 && st == LSIM_OK; ++k)
            if (!(fabs(v[k]) <= LSIM_MOTION_MAX_POSITION))
                st = lsim_yaml_fail(y, row, LSIM_ERR_PARSE, sub, "position %g m is out of range, must be within +-%g",
                                    v[k], LSIM_MOTION_MAX_POSITION);
        for (int k = 4; k < 7 && st == LSIM_OK; ++k)
            if (!(fabs(v[k]) <= 1e6))
                st = lsim_yaml_fail(y, row, LSIM_ERR_PARSE, sub, "angle %g degrees is out of range, must be within "
                                    "+-1e6", v[k]);
        if (st != LSIM_OK) {
            lsim_trajectory_free(out);
            return st;
        }
        out->t[i] = v[0];
        for (int k = 0; k < 3; ++k) {
            out->position[i][k] = v[1 + k];
            out->rpy_deg[i][k] = v[4 + k];
        }
    }
    return LSIM_OK;
}

static lsim_status read_trajectory(lsim_yaml *y, yaml_node_t *node, const char *key, const char *dir,
                                   lsim_trajectory *out)
{
    static const char *const keys[] = {"file", "keyframes", NULL};
    char sub[160];
    snprintf(sub, sizeof sub, "%s.trajectory", key);
    if (node->type != YAML_MAPPING_NODE)
        return lsim_yaml_fail(y, node, LSIM_ERR_PARSE, sub,
                              "expected {file: poses.csv} or {keyframes: [[t, x, y, z, roll, pitch, yaw], ...]}");
    lsim_status st = lsim_yaml_check_keys(y, node, sub, keys);
    if (st != LSIM_OK)
        return st;
    yaml_node_t *file = lsim_yaml_get(y, node, "file"), *frames = lsim_yaml_get(y, node, "keyframes");
    if ((file != NULL) == (frames != NULL))
        return lsim_yaml_fail(y, node, LSIM_ERR_PARSE, sub,
                              "give exactly one of `file:` (CSV with t,x,y,z,roll,pitch,yaw) and `keyframes:`");
    if (frames) {
        snprintf(sub, sizeof sub, "%s.trajectory.keyframes", key);
        return read_keyframes(y, frames, sub, out);
    }
    snprintf(sub, sizeof sub, "%s.trajectory.file", key);
    const char *name = NULL;
    st = lsim_yaml_string(y, file, sub, &name);
    if (st != LSIM_OK)
        return st;
    char path[4096];
    if (lsim_scene_file_resolve(dir, name, path, sizeof path))
        return lsim_yaml_fail(y, file, LSIM_ERR_PARSE, sub, "a path of %zu bytes is too long", strlen(name));
    st = lsim_trajectory_file_read(y->ctx, path, out);
    if (st != LSIM_OK) {
        char msg[LSIM_ERROR_MAX];
        lsim_strlcpy(msg, lsim_context_last_error(y->ctx), sizeof msg);
        return lsim_yaml_fail(y, file, st == LSIM_ERR_OUT_OF_MEMORY ? st : LSIM_ERR_PARSE, sub, "%s", msg);
    }
    return LSIM_OK;
}

/* The optional `velocity` and `angular_velocity_deg_s` ([a, b, c] each), checked, errors at
 * their lines. */
static lsim_status read_rates(lsim_yaml *y, yaml_node_t *map, const char *key, lsim_motion_keys *out)
{
    char sub[160];
    const char *names[2] = {"velocity", "angular_velocity_deg_s"};
    double *dst[2] = {out->velocity, out->angular_velocity_deg_s};
    for (int i = 0; i < 2; ++i) {
        snprintf(sub, sizeof sub, "%s.%s", key, names[i]);
        lsim_status st = lsim_yaml_opt_vec(y, map, names[i], sub, dst[i], 3);
        if (st != LSIM_OK)
            return st; /* already at its line */
        if (lsim_motion_check_rates(y->ctx, key, i == 0 ? dst[i] : NULL, i == 1 ? dst[i] : NULL) != LSIM_OK) {
            char msg[LSIM_ERROR_MAX];
            lsim_strlcpy(msg, lsim_context_last_error(y->ctx), sizeof msg);
            const char *colon = strstr(msg, ": ");
            return lsim_yaml_fail(y, lsim_yaml_get(y, map, names[i]), LSIM_ERR_PARSE, sub, "%s",
                                  colon ? colon + 2 : msg);
        }
    }
    return LSIM_OK;
}

lsim_status lsim_scene_file_read_motion(lsim_yaml *y, yaml_node_t *map, const char *key, const char *dir,
                                        lsim_motion_keys *out)
{
    memset(out, 0, sizeof *out);
    lsim_status st = read_rates(y, map, key, out);
    if (st != LSIM_OK)
        return st;
    yaml_node_t *traj = lsim_yaml_get(y, map, "trajectory");
    if (!traj)
        return LSIM_OK;
    yaml_node_t *rate = lsim_yaml_get(y, map, "velocity");
    if (!rate)
        rate = lsim_yaml_get(y, map, "angular_velocity_deg_s");
    if (rate) {
        char sub[160];
        snprintf(sub, sizeof sub, "%s.trajectory", key);
        return lsim_yaml_fail(y, traj, LSIM_ERR_PARSE, sub,
                              "a trajectory gives the whole motion; remove `velocity` and `angular_velocity_deg_s` "
                              "(or the trajectory)");
    }
    return read_trajectory(y, traj, key, dir, &out->trajectory);
}
