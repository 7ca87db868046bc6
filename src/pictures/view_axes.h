/* Axes and colour bars of the point pictures: the view of `lidarsim render` (pictures/view_png.h) and
 * the bird's-eye and range images of `lidarsim scan --bev / --range-image` (pictures/raster_figure.h).
 * Ticks are round (1, 2, 5 x 10^k), labelled in black beside the plot area of a lsim_view_layout;
 * a colour bar is viridis, with its ticks and its caption along it. */
#ifndef LSIM_PICTURES_VIEW_AXES_H
#define LSIM_PICTURES_VIEW_AXES_H

#include "pictures/canvas.h"
#include "pictures/view_png.h"

/* How an axis maps values to pixels: linearly from `lo` at the left/top edge to `hi` at the
 * right/bottom edge, or (perspective) angles in degrees at f * tan(angle) from the centre. */
typedef struct lsim_axis_map {
    double lo, hi;  /* value at the left/top edge and at the right/bottom edge */
    int perspective; /* ticks at angles, placed at f * tan(angle) */
    double f;
} lsim_axis_map;

/* Pixel offset along an axis of `len` pixels of value v. */
double lsim_axis_pos(const lsim_axis_map *a, double v, int len);

/* Ticks, tick labels and the axis label along the bottom (vertical = 0) or the left side of the
 * plot L; s: the text scale. */
void lsim_view_draw_axis(lsim_canvas *c, const lsim_view_layout *L, const lsim_axis_map *a, int vertical,
                         const char *label, int s);

/* The colour bar in L's key box: viridis from t0 (bottom) to 1 (top) over L->value_lo..value_hi
 * (log10 of the values when log_scale, ticked at 1, 2, 5 x 10^k), framed, ticked, with the
 * caption along its right side. */
void lsim_view_draw_colour_bar(lsim_canvas *c, const lsim_view_layout *L, const char *caption, int log_scale, double t0,
                               int s);

#endif
