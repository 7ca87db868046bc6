/* Pictures of a point cloud (`lidarsim render`), drawn with cairo on a pictures/canvas.h canvas: a
 * bird's-eye view (x up, y left, metres), a range image (azimuth, +azimuth left, and elevation,
 * degrees) or a perspective view from the sensor (a 90-degree pinhole looking along +x), points
 * coloured by a scalar (viridis between the 2nd and 98th percentile, linear or log10, with a
 * colour bar and its units) or by semantic label (SemanticKITTI's colours, pictures/label_colors.h,
 * with a legend of the classes present), under a title, with axes, ticks and labels.
 *
 * The title ends with how many points are in the view of how many there are.
 *
 * Layout: a white figure; the plot area (dark grey, LSIM_VIEW_BACKGROUND) is framed in black,
 * the colour bar or legend to its right. Each point is a square of whole pixels in its exact
 * colour (no antialiasing), far points drawn first (bird's-eye: lowest z first). */
#ifndef LSIM_PICTURES_VIEW_PNG_H
#define LSIM_PICTURES_VIEW_PNG_H

#include "lidarsim.h"

#include <stddef.h>

#define LSIM_VIEW_BACKGROUND_R 32
#define LSIM_VIEW_BACKGROUND_G 32
#define LSIM_VIEW_BACKGROUND_B 32
#define LSIM_VIEW_MIN_SIDE 200
#define LSIM_VIEW_MAX_SIDE 8192

typedef enum lsim_view_kind { LSIM_VIEW_BEV = 0, LSIM_VIEW_RANGE = 1, LSIM_VIEW_PERSPECTIVE = 2 } lsim_view_kind;

typedef struct lsim_view_spec {
    size_t count;
    const double *x, *y, *z;      /* metres (frames below); non-finite points are skipped */
    const double *value;          /* the colouring field per point */
    int value_is_label;           /* 1: value is a semantic id (legend); 0: a scalar (colour bar) */
    const char *value_label;      /* colour bar caption with units, e.g. "range (m)" */
    int log_scale;                /* scalar colours on a log10 scale (non-positive values: the bottom) */
    lsim_view_kind kind;
    int width, height;            /* pixels, LSIM_VIEW_MIN_SIDE..LSIM_VIEW_MAX_SIDE */
    double extent_m;              /* bird's-eye: half width (> 0); others: farthest range drawn (0: all) */
    const char *title;            /* followed by " (N of M points in view)" when count_in_title */
    int count_in_title;
    /* Bird's-eye: the plot is centred on (centre_x, centre_y) of the points' frame (the sensor's
     * position, PCD's VIEWPOINT), and `world` names the axes world x and y rather than the
     * sensor's forward and left. The other views take x, y, z in the sensor frame. */
    double centre_x, centre_y;
    int world;
} lsim_view_spec;

/* Where things landed, for callers and tests: [x0, x1) x [y0, y1) in pixels. */
typedef struct lsim_view_layout {
    int plot_x0, plot_y0, plot_x1, plot_y1;
    int key_x0, key_y0, key_x1, key_y1;   /* colour bar (scalar) or legend (labels) */
    int title_y0, title_y1;               /* the band the title is drawn in */
    double value_lo, value_hi;            /* colour bar range (scalar; values, also on a log scale) */
    size_t drawn;                         /* points inside the view */
    int classes;                          /* distinct labels drawn (labels) */
    char title[512];                      /* the title as drawn */
} lsim_view_layout;

/* Draw the view and write it as a PNG at `path`, atomically (nothing written on failure).
 * `layout` may be NULL. LSIM_ERR_INVALID_ARGUMENT (naming the bad value), LSIM_ERR_OUT_OF_MEMORY,
 * LSIM_ERR_IO. */
lsim_status lsim_view_write_png(lsim_context *ctx, const lsim_view_spec *spec, const char *path,
                                lsim_view_layout *layout);

#endif
