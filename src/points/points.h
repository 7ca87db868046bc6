/* The point buffer: user-facing columns, structure of arrays. Writers read only this. */
#ifndef LSIM_POINTS_POINTS_H
#define LSIM_POINTS_POINTS_H

#include "lidarsim.h"

#include <stddef.h>
#include <stdint.h>

/* id -> name of a semantic class, for label-map files. */
typedef struct lsim_label_entry { uint32_t id; char name[64]; } lsim_label_entry;

struct lsim_points {
    lsim_context *ctx;
    size_t count;
    size_t capacity;
    /* One pointer per lsim_field, in enum order; element type per lsim_field_get_type. */
    void *column[LSIM_FIELD_COUNT]; /* NULL for a field not in `fields` */
    uint32_t fields;                /* LSIM_FIELD_BIT mask of the columns held */
    lsim_scan_stats stats;
    /* The sensor in the points' frame, as PCD's VIEWPOINT: tx ty tz qw qx qy qz (identity in the
     * sensor frame, the sensor pose in the world frame). Bird's-eye images centre on it. */
    double viewpoint[7];
    /* The sensor's pose in the world at the frame start (scan_time): tx ty tz qw qx qy qz. Writers
     * put it in the header (a comment line in PCD and PLY) when `timed`: the frame has motion or
     * a non-zero scan time (without, the files stay as they were). */
    double sensor_pose[7];
    int timed;
    double scan_time;  /* the frame's start on the scene clock (lsim_scan_options.scan_time) */
    lsim_frame frame;  /* the coordinate frame of x, y, z */
    lsim_label_entry *labels; /* the scene's label map (defaults + scene's own), sorted by id */
    size_t label_count;
};

/* Allocate a buffer for `capacity` points (count = 0) with every column. */
lsim_status lsim_points_alloc(lsim_context *ctx, size_t capacity, lsim_points **out);
/* The same with only the columns of `fields` (a LSIM_FIELD_BIT mask; 0 = every field). */
lsim_status lsim_points_alloc_fields(lsim_context *ctx, size_t capacity, uint32_t fields, lsim_points **out);
/* LSIM_OK if `points` holds every column of `fields`; otherwise an error naming the first missing
 * one, for `what` (e.g. "cannot write 'x.pcd'"). */
lsim_status lsim_points_require(const lsim_points *points, uint32_t fields, const char *what);
/* Make room for `capacity` points holding exactly the columns of `fields` (0: every field):
 * columns are kept when already large enough, so a buffer reused frame after frame stops
 * allocating. count is set to 0. */
lsim_status lsim_points_reserve(lsim_points *points, size_t capacity, uint32_t fields);
/* Set the label map (copied, then sorted by id). */
lsim_status lsim_points_set_labels(lsim_points *points, const lsim_label_entry *labels, size_t count);

static inline float *lsim_points_f32(lsim_points *p, lsim_field f) { return (float *)p->column[f]; }
static inline uint16_t *lsim_points_u16(lsim_points *p, lsim_field f) { return (uint16_t *)p->column[f]; }
static inline uint32_t *lsim_points_u32(lsim_points *p, lsim_field f) { return (uint32_t *)p->column[f]; }

/* Store a value read from a file at row i of field f, converted to the field's type: integers
 * clamped into their range (NaN and negatives to 0), floats rounded. Nothing when the points do
 * not hold f. */
static inline void lsim_points_set_value(lsim_points *p, lsim_field f, size_t i, double v)
{
    void *col = p->column[f];
    if (!col)
        return;
    switch (lsim_field_get_type(f)) {
    case LSIM_TYPE_U16:
        ((uint16_t *)col)[i] = !(v > 0.0) ? 0 : v >= 65535.0 ? 65535 : (uint16_t)v;
        break;
    case LSIM_TYPE_U32:
        ((uint32_t *)col)[i] = !(v > 0.0) ? 0 : v >= 4294967295.0 ? 4294967295u : (uint32_t)v;
        break;
    default:
        ((float *)col)[i] = (float)v;
    }
}

/* Size in bytes of one element of a field. */
size_t lsim_field_size(lsim_field field);

#endif
