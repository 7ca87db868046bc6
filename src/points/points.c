#include "points/points.h"

#include "core/context.h"

#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    lsim_field_type type;
} field_table[LSIM_FIELD_COUNT] = {
    [LSIM_FIELD_X] = {"x", LSIM_TYPE_F32},
    [LSIM_FIELD_Y] = {"y", LSIM_TYPE_F32},
    [LSIM_FIELD_Z] = {"z", LSIM_TYPE_F32},
    [LSIM_FIELD_RANGE] = {"range", LSIM_TYPE_F32},
    [LSIM_FIELD_INTENSITY] = {"intensity", LSIM_TYPE_F32},
    [LSIM_FIELD_REFLECTIVITY] = {"reflectivity", LSIM_TYPE_F32},
    [LSIM_FIELD_RING] = {"ring", LSIM_TYPE_U16},
    [LSIM_FIELD_AZIMUTH] = {"azimuth", LSIM_TYPE_F32},
    [LSIM_FIELD_ELEVATION] = {"elevation", LSIM_TYPE_F32},
    [LSIM_FIELD_TIME] = {"time", LSIM_TYPE_F32},
    [LSIM_FIELD_LABEL] = {"label", LSIM_TYPE_U32},
    [LSIM_FIELD_INSTANCE] = {"instance", LSIM_TYPE_U32},
    [LSIM_FIELD_INCIDENCE] = {"incidence", LSIM_TYPE_F32},
    [LSIM_FIELD_NX] = {"nx", LSIM_TYPE_F32},
    [LSIM_FIELD_NY] = {"ny", LSIM_TYPE_F32},
    [LSIM_FIELD_NZ] = {"nz", LSIM_TYPE_F32},
    [LSIM_FIELD_X_CLEAN] = {"x_clean", LSIM_TYPE_F32},
    [LSIM_FIELD_Y_CLEAN] = {"y_clean", LSIM_TYPE_F32},
    [LSIM_FIELD_Z_CLEAN] = {"z_clean", LSIM_TYPE_F32},
    [LSIM_FIELD_RETURN_INDEX] = {"return_index", LSIM_TYPE_U16},
    [LSIM_FIELD_NUM_RETURNS] = {"num_returns", LSIM_TYPE_U16},
    [LSIM_FIELD_EPW] = {"epw", LSIM_TYPE_F32},
    [LSIM_FIELD_POWER] = {"power", LSIM_TYPE_F32},
};

const char *lsim_field_name(lsim_field field)
{
    return (unsigned)field < LSIM_FIELD_COUNT ? field_table[field].name : NULL;
}

lsim_field_type lsim_field_get_type(lsim_field field)
{
    return (unsigned)field < LSIM_FIELD_COUNT ? field_table[field].type : LSIM_TYPE_F32;
}

size_t lsim_field_size(lsim_field field)
{
    switch (lsim_field_get_type(field)) {
    case LSIM_TYPE_U16: return 2;
    case LSIM_TYPE_U32: return 4;
    case LSIM_TYPE_F32: return 4;
    }
    return 4;
}

lsim_status lsim_points_alloc(lsim_context *ctx, size_t capacity, lsim_points **out)
{
    return lsim_points_alloc_fields(ctx, capacity, LSIM_FIELDS_ALL, out);
}

lsim_status lsim_points_alloc_fields(lsim_context *ctx, size_t capacity, uint32_t fields, lsim_points **out)
{
    fields = fields ? fields & LSIM_FIELDS_ALL : LSIM_FIELDS_ALL;
    lsim_points *p = calloc(1, sizeof *p);
    if (!p)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory allocating a point buffer");
    p->ctx = ctx;
    p->capacity = capacity;
    p->viewpoint[3] = 1.0; /* identity */
    p->sensor_pose[3] = 1.0;
    size_t n = capacity ? capacity : 1;
    p->fields = fields;
    for (int f = 0; f < LSIM_FIELD_COUNT; ++f) {
        if (!(fields & LSIM_FIELD_BIT(f)))
            continue;
        p->column[f] = malloc(n * lsim_field_size((lsim_field)f));
        if (!p->column[f]) {
            lsim_points_destroy(p);
            return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY,
                             "out of memory allocating %zu points (reduce the beam count)", capacity);
        }
    }
    *out = p;
    return LSIM_OK;
}

lsim_status lsim_points_create(lsim_context *ctx, lsim_points **out)
{
    if (!out)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_points_create: out must not be NULL");
    lsim_points *p = calloc(1, sizeof *p);
    if (!p)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory allocating a point buffer");
    p->ctx = ctx;
    p->viewpoint[3] = 1.0; /* identity */
    p->sensor_pose[3] = 1.0;
    *out = p;
    return LSIM_OK;
}

lsim_status lsim_points_reserve(lsim_points *p, size_t capacity, uint32_t fields)
{
    fields = fields ? fields & LSIM_FIELDS_ALL : LSIM_FIELDS_ALL;
    const int grow = capacity > p->capacity;
    const size_t n = grow ? capacity : p->capacity ? p->capacity : 1;
    p->count = 0;
    for (int f = 0; f < LSIM_FIELD_COUNT; ++f) {
        if (!(fields & LSIM_FIELD_BIT(f))) {
            free(p->column[f]);
            p->column[f] = NULL;
        } else if (!p->column[f] || grow) {
            free(p->column[f]); /* the old contents are replaced by the next frame anyway */
            p->column[f] = malloc(n * lsim_field_size((lsim_field)f));
        }
    }
    for (int f = 0; f < LSIM_FIELD_COUNT; ++f) {
        if ((fields & LSIM_FIELD_BIT(f)) && !p->column[f]) {
            for (int g = 0; g < LSIM_FIELD_COUNT; ++g) { /* leave a consistent, empty buffer */
                free(p->column[g]);
                p->column[g] = NULL;
            }
            p->capacity = 0;
            p->fields = 0;
            return lsim_fail(p->ctx, LSIM_ERR_OUT_OF_MEMORY,
                             "out of memory allocating %zu points (reduce the beam count)", capacity);
        }
    }
    p->capacity = n;
    p->fields = fields;
    return LSIM_OK;
}

static int by_id(const void *a, const void *b)
{
    uint32_t x = ((const lsim_label_entry *)a)->id, y = ((const lsim_label_entry *)b)->id;
    return (x > y) - (x < y);
}

lsim_status lsim_points_set_labels(lsim_points *points, const lsim_label_entry *labels, size_t count)
{
    if (count == points->label_count && count > 0) { /* the same map again (frame after frame) */
        size_t same = 0; /* each entry found (by id) in the sorted copy, and equal */
        for (size_t i = 0; i < count && same == i; ++i) {
            const lsim_label_entry *e = bsearch(&labels[i], points->labels, count, sizeof *labels, by_id);
            same += e && strncmp(e->name, labels[i].name, sizeof e->name) == 0; /* bytes past the NUL vary */
        }
        if (same == count)
            return LSIM_OK;
    }
    free(points->labels);
    points->labels = NULL;
    points->label_count = 0;
    if (count == 0)
        return LSIM_OK;
    points->labels = malloc(count * sizeof *labels);
    if (!points->labels)
        return lsim_fail(points->ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory copying the label map");
    memcpy(points->labels, labels, count * sizeof *labels);
    qsort(points->labels, count, sizeof *labels, by_id);
    points->label_count = count;
    return LSIM_OK;
}

void lsim_points_destroy(lsim_points *points)
{
    if (!points)
        return;
    for (int f = 0; f < LSIM_FIELD_COUNT; ++f)
        free(points->column[f]);
    free(points->labels);
    free(points);
}

size_t lsim_points_count(const lsim_points *points) { return points ? points->count : 0; }

const void *lsim_points_column(const lsim_points *points, lsim_field field)
{
    if (!points || (unsigned)field >= LSIM_FIELD_COUNT)
        return NULL;
    return points->column[field];
}

uint32_t lsim_points_fields(const lsim_points *points) { return points ? points->fields : 0; }

lsim_status lsim_points_sensor_pose(const lsim_points *points, double out[7])
{
    if (!points || !out)
        return LSIM_ERR_INVALID_ARGUMENT;
    for (int i = 0; i < 7; ++i)
        out[i] = points->sensor_pose[i];
    return LSIM_OK;
}

lsim_status lsim_points_require(const lsim_points *points, uint32_t fields, const char *what)
{
    for (int f = 0; f < LSIM_FIELD_COUNT; ++f)
        if ((fields & LSIM_FIELD_BIT(f)) && !points->column[f])
            return lsim_fail(points->ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "%s: the points have no '%s' column (scan with it in lsim_scan_options.fields)", what,
                             lsim_field_name((lsim_field)f));
    return LSIM_OK;
}

lsim_status lsim_points_get_stats(const lsim_points *points, lsim_scan_stats *out)
{
    if (!points || !out)
        return LSIM_ERR_INVALID_ARGUMENT;
    *out = points->stats;
    return LSIM_OK;
}
