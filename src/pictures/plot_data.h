/* The plot's data (pictures/plot_png.c) as its renderer (pictures/plot_draw.c) reads it; private to src/pictures. */
#ifndef LSIM_PICTURES_PLOT_DATA_H
#define LSIM_PICTURES_PLOT_DATA_H

#include "pictures/plot_png.h"

#define TEXT_MAX 128
#define NAME_MAX_LEN 64
#define MAX_HLINES 4

typedef struct plot_series {
    char name[NAME_MAX_LEN];
    lsim_plot_style style;
    lsim_marker marker;
    unsigned char rgb[3];
    size_t n;
    double *x, *y, *lo, *hi; /* one block: x; y = x + n; lo, hi = NULL or after y */
} plot_series;

typedef struct plot_panel {
    char title[TEXT_MAX], xlabel[TEXT_MAX], ylabel[TEXT_MAX];
    int fixed_x, fixed_y;
    double x_lo, x_hi, y_lo, y_hi;
    int series_count;
    plot_series series[LSIM_PLOT_MAX_SERIES];
    int hline_count;
    double hline[MAX_HLINES];
    lsim_legend_pos legend;
} plot_panel;

struct lsim_plot {
    lsim_context *ctx;
    int width, height, rows, cols, current;
    char title[TEXT_MAX];
    plot_panel *panel; /* rows * cols, row-major */
};

#endif
