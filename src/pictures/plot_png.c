/* Plots (pictures/plot_png.h): figures, panels, series, ranges; drawn by pictures/plot_draw.c. */
#include "pictures/plot_png.h"

#include "core/context.h"
#include "core/text.h"
#include "pictures/plot_data.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void copy_text(char *dst, const char *src, size_t size) { lsim_strlcpy(dst, src ? src : "", size); }

lsim_status lsim_plot_grid(lsim_context *ctx, int width, int height, int rows, int cols, const char *title,
                           lsim_plot **out)
{
    if (!out)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "plot: no output pointer given");
    *out = NULL;
    if (width < LSIM_PLOT_MIN_SIDE || height < LSIM_PLOT_MIN_SIDE || width > LSIM_CANVAS_MAX_SIDE ||
        height > LSIM_CANVAS_MAX_SIDE)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "plot: size %d x %d is out of range; width and height must be %d..%d pixels", width, height,
                         LSIM_PLOT_MIN_SIDE, LSIM_CANVAS_MAX_SIDE);
    if (rows < 1 || cols < 1 || rows > LSIM_PLOT_MAX_PANELS || cols > LSIM_PLOT_MAX_PANELS ||
        rows * cols > LSIM_PLOT_MAX_PANELS)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "plot: a grid of %d x %d panels is out of range; rows and cols must be >= 1 with at most "
                         "%d panels", rows, cols, LSIM_PLOT_MAX_PANELS);
    if (width / cols < LSIM_PLOT_MIN_SIDE || height / rows < LSIM_PLOT_MIN_SIDE)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "plot: %d x %d panels in %d x %d pixels leave less than %d pixels per panel; "
                         "make the image larger", rows, cols, width, height, LSIM_PLOT_MIN_SIDE);
    lsim_plot *p = calloc(1, sizeof *p);
    plot_panel *panels = calloc((size_t)rows * (size_t)cols, sizeof *panels);
    if (!p || !panels) {
        free(p);
        free(panels);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory creating a plot");
    }
    p->ctx = ctx;
    p->width = width;
    p->height = height;
    p->rows = rows;
    p->cols = cols;
    p->panel = panels;
    copy_text(p->title, title, sizeof p->title);
    *out = p;
    return LSIM_OK;
}

lsim_status lsim_plot_create(lsim_context *ctx, int width, int height, const char *title, const char *xlabel,
                             const char *ylabel, lsim_plot **out)
{
    lsim_status st = lsim_plot_grid(ctx, width, height, 1, 1, NULL, out);
    if (st != LSIM_OK)
        return st;
    return lsim_plot_set_labels(*out, title, xlabel, ylabel);
}

void lsim_plot_destroy(lsim_plot *plot)
{
    if (!plot)
        return;
    for (int i = 0; i < plot->rows * plot->cols; ++i)
        for (int s = 0; s < plot->panel[i].series_count; ++s)
            free(plot->panel[i].series[s].x);
    free(plot->panel);
    free(plot);
}

lsim_status lsim_plot_select(lsim_plot *plot, int row, int col)
{
    if (!plot)
        return LSIM_ERR_INVALID_ARGUMENT;
    if (row < 0 || col < 0 || row >= plot->rows || col >= plot->cols)
        return lsim_fail(plot->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "plot: panel (%d, %d) is outside the %d x %d grid (rows and columns count from 0)", row,
                         col, plot->rows, plot->cols);
    plot->current = row * plot->cols + col;
    return LSIM_OK;
}

lsim_status lsim_plot_set_labels(lsim_plot *plot, const char *title, const char *xlabel, const char *ylabel)
{
    if (!plot)
        return LSIM_ERR_INVALID_ARGUMENT;
    plot_panel *pn = &plot->panel[plot->current];
    if (title)
        copy_text(pn->title, title, sizeof pn->title);
    if (xlabel)
        copy_text(pn->xlabel, xlabel, sizeof pn->xlabel);
    if (ylabel)
        copy_text(pn->ylabel, ylabel, sizeof pn->ylabel);
    return LSIM_OK;
}

static const unsigned char tab10[10][3] = {
    {31, 119, 180}, {255, 127, 14}, {44, 160, 44},  {214, 39, 40},  {148, 103, 189},
    {140, 86, 75},  {227, 119, 194}, {127, 127, 127}, {188, 189, 34}, {23, 190, 207},
};

void lsim_plot_palette(int i, unsigned char rgb[3])
{
    i %= 10;
    if (i < 0)
        i += 10;
    memcpy(rgb, tab10[i], 3);
}

lsim_status lsim_plot_add_series_err(lsim_plot *plot, const char *name, const double *x, const double *y,
                                     const double *y_lo, const double *y_hi, size_t n, lsim_plot_style style,
                                     const unsigned char rgb[3])
{
    if (!plot)
        return LSIM_ERR_INVALID_ARGUMENT;
    lsim_context *ctx = plot->ctx;
    plot_panel *pn = &plot->panel[plot->current];
    const char *label = name ? name : "";
    if (n > 0 && (!x || !y))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "plot: series '%s' has %zu points but no x or y array",
                         label, n);
    if (style != LSIM_PLOT_LINE && style != LSIM_PLOT_MARKERS && style != LSIM_PLOT_BOTH)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "plot: series '%s' has an unknown style %d; use LSIM_PLOT_LINE, _MARKERS or _BOTH", label,
                         (int)style);
    if (pn->series_count >= LSIM_PLOT_MAX_SERIES)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "plot: series '%s': a panel holds at most %d series",
                         label, LSIM_PLOT_MAX_SERIES);
    const int err = y_lo && y_hi;
    if (n > ((size_t)-1) / (4 * sizeof(double)))
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "plot: series '%s' is too long (%zu points)", label, n);
    plot_series *s = &pn->series[pn->series_count];
    memset(s, 0, sizeof *s);
    if (n > 0) {
        double *block = malloc(n * (err ? 4 : 2) * sizeof *block);
        if (!block)
            return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory adding plot series '%s' (%zu points)",
                             label, n);
        s->x = block;
        s->y = block + n;
        memcpy(s->x, x, n * sizeof *x);
        memcpy(s->y, y, n * sizeof *y);
        if (err) {
            s->lo = block + 2 * n;
            s->hi = block + 3 * n;
            memcpy(s->lo, y_lo, n * sizeof *y_lo);
            memcpy(s->hi, y_hi, n * sizeof *y_hi);
        }
    }
    copy_text(s->name, label, sizeof s->name);
    s->n = n;
    s->style = style;
    static const lsim_marker markers[5] = {LSIM_MARKER_CIRCLE, LSIM_MARKER_SQUARE, LSIM_MARKER_CROSS,
                                           LSIM_MARKER_PLUS, LSIM_MARKER_RING};
    s->marker = markers[pn->series_count % 5];
    if (rgb)
        memcpy(s->rgb, rgb, 3);
    else
        lsim_plot_palette(pn->series_count, s->rgb);
    pn->series_count++;
    return LSIM_OK;
}

lsim_status lsim_plot_add_series(lsim_plot *plot, const char *name, const double *x, const double *y, size_t n,
                                 lsim_plot_style style, const unsigned char rgb[3])
{
    return lsim_plot_add_series_err(plot, name, x, y, NULL, NULL, n, style, rgb);
}

lsim_status lsim_plot_set_marker(lsim_plot *plot, lsim_marker marker)
{
    if (!plot)
        return LSIM_ERR_INVALID_ARGUMENT;
    plot_panel *pn = &plot->panel[plot->current];
    if (pn->series_count == 0)
        return lsim_fail(plot->ctx, LSIM_ERR_STATE, "plot: set the marker after adding the series");
    if ((int)marker < LSIM_MARKER_NONE || (int)marker > LSIM_MARKER_RING)
        return lsim_fail(plot->ctx, LSIM_ERR_INVALID_ARGUMENT, "plot: unknown marker %d", (int)marker);
    pn->series[pn->series_count - 1].marker = marker;
    return LSIM_OK;
}

static lsim_status set_range(lsim_plot *plot, double lo, double hi, int axis_y)
{
    if (!plot)
        return LSIM_ERR_INVALID_ARGUMENT;
    if (!isfinite(lo) || !isfinite(hi) || !(lo < hi) || !isfinite(hi - lo))
        return lsim_fail(plot->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "plot: %c range [%g, %g] is invalid; it needs finite lo < hi", axis_y ? 'y' : 'x', lo, hi);
    plot_panel *pn = &plot->panel[plot->current];
    if (axis_y) {
        pn->fixed_y = 1;
        pn->y_lo = lo;
        pn->y_hi = hi;
    } else {
        pn->fixed_x = 1;
        pn->x_lo = lo;
        pn->x_hi = hi;
    }
    return LSIM_OK;
}

lsim_status lsim_plot_set_xrange(lsim_plot *plot, double lo, double hi) { return set_range(plot, lo, hi, 0); }
lsim_status lsim_plot_set_yrange(lsim_plot *plot, double lo, double hi) { return set_range(plot, lo, hi, 1); }

void lsim_plot_auto_range(lsim_plot *plot)
{
    if (!plot)
        return;
    plot->panel[plot->current].fixed_x = plot->panel[plot->current].fixed_y = 0;
}

lsim_status lsim_plot_add_hline(lsim_plot *plot, double y)
{
    if (!plot)
        return LSIM_ERR_INVALID_ARGUMENT;
    plot_panel *pn = &plot->panel[plot->current];
    if (!isfinite(y))
        return lsim_fail(plot->ctx, LSIM_ERR_INVALID_ARGUMENT, "plot: a reference line needs a finite y");
    if (pn->hline_count >= MAX_HLINES)
        return lsim_fail(plot->ctx, LSIM_ERR_INVALID_ARGUMENT, "plot: at most %d reference lines per panel",
                         MAX_HLINES);
    pn->hline[pn->hline_count++] = y;
    return LSIM_OK;
}

void lsim_plot_set_legend(lsim_plot *plot, lsim_legend_pos pos)
{
    if (plot && (int)pos >= LSIM_LEGEND_AUTO && (int)pos <= LSIM_LEGEND_NONE)
        plot->panel[plot->current].legend = pos;
}
