/* A pixel image of cells (`lidarsim scan --bev` and `--range-image`: one cell per point cell) as a
 * figure: the cells, each drawn as a rectangle of cell_w x cell_h pixels in its exact colour (no
 * smoothing), fill the plot area, framed, with axes and round ticks (pictures/view_axes.h) below and
 * left of it, a colour bar with its caption right of it and a title above. Small images are
 * scaled up by the smallest whole factor that makes the plot at least min_width wide and
 * min_height tall, the same both ways (square cells) where LSIM_RASTER_MAX_PLOT allows, otherwise
 * each way its own, so that a pattern sensor's few degrees, or a planar scanner's single row, are
 * readable. Written atomically (pictures/canvas.h). */
#ifndef LSIM_PICTURES_RASTER_FIGURE_H
#define LSIM_PICTURES_RASTER_FIGURE_H

#include "pictures/view_axes.h"

#include <stdint.h>

#define LSIM_RASTER_MAX_PLOT 8192 /* pixels a side of the plot, after scaling */

typedef struct lsim_raster_figure {
    uint32_t cols, rows;                 /* cells, each 1..LSIM_RASTER_MAX_PLOT */
    /* the colours of row `row` (0: top) of cells: 3 * cols bytes */
    void (*row_rgb)(void *user, uint32_t row, unsigned char *rgb);
    void *user;
    int min_width, min_height;           /* pixels the plot should at least have */
    lsim_axis_map x_axis, y_axis;        /* values at the plot's left / right and top / bottom edges */
    const char *x_label, *y_label;
    double bar_lo, bar_hi;               /* the colour bar's values (log10 of them when bar_log) */
    int bar_log;
    double bar_t0;                       /* the bar's viridis runs from t0 (bar_lo) to 1 (bar_hi) */
    const char *bar_caption;
    const char *title;
} lsim_raster_figure;

typedef struct lsim_raster_layout {
    lsim_view_layout view;               /* plot, colour bar and title boxes (value_lo, value_hi: the bar's) */
    int cell_w, cell_h;                  /* pixels a cell is wide and tall */
    int width, height;                   /* of the figure */
} lsim_raster_layout;

/* Draw the figure and write it as a PNG at `path` ("-": standard output), atomically. `layout`
 * may be NULL. LSIM_ERR_INVALID_ARGUMENT (no cells, or more than LSIM_RASTER_MAX_PLOT a side),
 * LSIM_ERR_OUT_OF_MEMORY, LSIM_ERR_IO. */
lsim_status lsim_raster_figure_write(lsim_context *ctx, const lsim_raster_figure *f, const char *path,
                                     lsim_raster_layout *layout);

#endif
