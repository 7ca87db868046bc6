/* Small 2-D plots rendered to PNG with cairo (drawn on a pictures/canvas.h canvas: antialiased lines
 * and markers, text in a real font), with axes, round ticks, tick labels and legends.
 *
 * Plot: a figure of rows x cols panels (1 x 1 by default), each with its own title, axis labels,
 * ranges and series. Calls that add to or configure a panel act on the current panel, chosen
 * with lsim_plot_select (panel (0, 0) after creation), in the manner of matplotlib's subplot:
 *
 *     lsim_plot *p;
 *     lsim_plot_grid(ctx, 1600, 1200, 2, 2, "wood: sim vs real", &p);
 *     lsim_plot_select(p, 0, 0);
 *     lsim_plot_set_labels(p, "mean intensity", "incidence angle (deg)", "intensity");
 *     unsigned char red[3] = {214, 39, 40};
 *     lsim_plot_add_series(p, "real", angle, mean_real, n, LSIM_PLOT_BOTH, red);
 *     lsim_plot_add_series_err(p, "sim", angle, drop_sim, lo, hi, n, LSIM_PLOT_MARKERS, blue);
 *     ...
 *     st = lsim_plot_write(p, "wood.png");     (atomic: temporary file + rename)
 *     lsim_plot_destroy(p);
 *
 * Ranges are automatic unless set: the finite data (error bars included) widened to round tick
 * steps (1, 2, 5 x 10^k). Points with a NaN or infinite coordinate are skipped (a line is broken
 * there); empty series are allowed (they only appear in the legend); an empty panel says
 * "no data". A zero-width range (one x value, constant y) is widened around its value.
 * Series are copied when added; the caller's arrays need not outlive the call.
 * A plot is not thread-safe; separate plots may be used from separate threads.
 */
#ifndef LSIM_PICTURES_PLOT_PNG_H
#define LSIM_PICTURES_PLOT_PNG_H

#include "pictures/canvas.h"

/* -------------------------------------------------------------------------------------- plot */

#define LSIM_PLOT_MAX_PANELS 64        /* rows * cols */
#define LSIM_PLOT_MAX_SERIES 16        /* per panel */
#define LSIM_PLOT_MIN_SIDE 64          /* smallest width / height of a figure, pixels */

typedef struct lsim_plot lsim_plot;

typedef enum lsim_plot_style {
    LSIM_PLOT_LINE = 1,           /* lines between consecutive finite points */
    LSIM_PLOT_MARKERS = 2,        /* a marker at each finite point */
    LSIM_PLOT_BOTH = 3
} lsim_plot_style;

typedef enum lsim_legend_pos {
    LSIM_LEGEND_AUTO = 0,         /* the inside corner covering the fewest points (default) */
    LSIM_LEGEND_TOP_RIGHT = 1,
    LSIM_LEGEND_TOP_LEFT = 2,
    LSIM_LEGEND_BOTTOM_RIGHT = 3,
    LSIM_LEGEND_BOTTOM_LEFT = 4,
    LSIM_LEGEND_NONE = 5
} lsim_legend_pos;

/* One panel (1 x 1 figure) with its title and axis labels (each may be NULL or ""); width and
 * height in pixels, LSIM_PLOT_MIN_SIDE..LSIM_CANVAS_MAX_SIDE. Text longer than 127 characters is cut. */
lsim_status lsim_plot_create(lsim_context *ctx, int width, int height, const char *title, const char *xlabel,
                             const char *ylabel, lsim_plot **out);

/* rows x cols panels (at most LSIM_PLOT_MAX_PANELS) under an optional figure title (NULL or "":
 * none). Panels start without titles: set them with lsim_plot_select + lsim_plot_set_labels. */
lsim_status lsim_plot_grid(lsim_context *ctx, int width, int height, int rows, int cols, const char *title,
                           lsim_plot **out);

void lsim_plot_destroy(lsim_plot *plot);

/* Make panel (row, col) current. LSIM_ERR_INVALID_ARGUMENT outside the grid. */
lsim_status lsim_plot_select(lsim_plot *plot, int row, int col);

/* Title and axis labels of the current panel (NULL leaves one unchanged, "" clears it). */
lsim_status lsim_plot_set_labels(lsim_plot *plot, const char *title, const char *xlabel, const char *ylabel);

/* Add a series to the current panel: n points (x[i], y[i]); x and y may be NULL when n is 0.
 * `name` appears in the legend (NULL or "": not in the legend). rgb NULL: the next colour of
 * lsim_plot_palette. Error bars: vertical bars from y_lo[i] to y_hi[i] (either array NULL: none;
 * a non-finite end: no bar at that point). LSIM_ERR_INVALID_ARGUMENT (NULL arrays with n > 0, bad
 * style, more than LSIM_PLOT_MAX_SERIES), LSIM_ERR_OUT_OF_MEMORY. */
lsim_status lsim_plot_add_series(lsim_plot *plot, const char *name, const double *x, const double *y, size_t n,
                                 lsim_plot_style style, const unsigned char rgb[3]);
lsim_status lsim_plot_add_series_err(lsim_plot *plot, const char *name, const double *x, const double *y,
                                     const double *y_lo, const double *y_hi, size_t n, lsim_plot_style style,
                                     const unsigned char rgb[3]);

/* Marker shape of the last series added to the current panel (default: circle, then square,
 * cross, plus, ring by series index). LSIM_ERR_STATE when the panel has no series. */
lsim_status lsim_plot_set_marker(lsim_plot *plot, lsim_marker marker);

/* Fixed axis range of the current panel (lo < hi, both finite), with round ticks inside it;
 * lsim_plot_auto_range makes both axes automatic again. */
lsim_status lsim_plot_set_xrange(lsim_plot *plot, double lo, double hi);
lsim_status lsim_plot_set_yrange(lsim_plot *plot, double lo, double hi);
void lsim_plot_auto_range(lsim_plot *plot);

/* Horizontal reference line across the current panel (e.g. y = 0), drawn grey and dashed. At most 4. */
lsim_status lsim_plot_add_hline(lsim_plot *plot, double y);

void lsim_plot_set_legend(lsim_plot *plot, lsim_legend_pos pos);

/* Colour i of a 10-colour qualitative palette (matplotlib's tab10), i taken modulo 10. */
void lsim_plot_palette(int i, unsigned char rgb[3]);

/* Draw the figure onto a canvas of the plot's width and height (LSIM_ERR_INVALID_ARGUMENT otherwise). */
lsim_status lsim_plot_render(const lsim_plot *plot, lsim_canvas *canvas);

/* Pixel coordinates (column, row; fractional) of data point (x, y) in panel (row, col), as
 * lsim_plot_render draws it with the current ranges. Returns 0 for a panel outside the grid or
 * non-finite input. */
int lsim_plot_data_to_pixel(const lsim_plot *plot, int row, int col, double x, double y, double *px, double *py);

/* Render and write the figure as a PNG, atomically. */
lsim_status lsim_plot_write(const lsim_plot *plot, const char *path);

#endif
