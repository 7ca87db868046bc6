/* lsim_raster_figure_write (pictures/raster_figure.h): cells scaled by a whole factor into the plot of a
 * figure with axes, a colour bar and a title. */
#include "pictures/raster_figure.h"

#include "core/context.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const unsigned char BLACK[3] = {0, 0, 0};

/* The smallest whole factor making `cells` at least `min` pixels, within the plot's limit. */
static int cell_size(uint32_t cells, int min)
{
    const uint32_t k = min > 0 ? ((uint32_t)min + cells - 1) / cells : 1, kmax = LSIM_RASTER_MAX_PLOT / cells;
    return (int)(k < 1 ? 1 : k < kmax ? k : kmax);
}

/* Square cells of the larger factor where that fits the plot's limit (a picture keeps its aspect);
 * otherwise each way its own (a planar scanner's one row of 3,600 cells: 1 x 200 pixels each). */
static void cell_sizes(const lsim_raster_figure *f, int *w, int *h)
{
    *w = cell_size(f->cols, f->min_width);
    *h = cell_size(f->rows, f->min_height);
    const int k = *w > *h ? *w : *h;
    if ((uint64_t)f->cols * (uint64_t)k <= LSIM_RASTER_MAX_PLOT &&
        (uint64_t)f->rows * (uint64_t)k <= LSIM_RASTER_MAX_PLOT)
        *w = *h = k;
}

static void layout_figure(const lsim_raster_figure *f, int s, lsim_raster_layout *R)
{
    lsim_view_layout *L = &R->view;
    cell_sizes(f, &R->cell_w, &R->cell_h);
    const int w = (int)f->cols * R->cell_w, h = (int)f->rows * R->cell_h;
    L->title_y0 = 4 * s;
    L->title_y1 = L->title_y0 + 2 * LSIM_TEXT_LINE * s + 2 * s;
    const int left = 4 * s + LSIM_TEXT_LINE * s + 6 * s + 45 * s, right = 120 * s;
    const int top = L->title_y1 + 8 * s, bottom = 5 * s + 2 * LSIM_TEXT_LINE * s + 16 * s;
    L->plot_x0 = left;
    L->plot_y0 = top;
    L->plot_x1 = left + w;
    L->plot_y1 = top + h;
    L->key_x0 = L->plot_x1 + 30 * s;
    L->key_x1 = L->key_x0 + 20 * s;
    L->key_y0 = top;
    L->key_y1 = L->plot_y1;
    R->width = L->plot_x1 + right;
    R->height = L->plot_y1 + bottom;
}

/* The cells into the plot area, each a cell_w x cell_h rectangle of its colour. */
static lsim_status draw_cells(lsim_context *ctx, const lsim_raster_figure *f, const lsim_raster_layout *R,
                              lsim_canvas *c)
{
    unsigned char *rgb = malloc(3 * (size_t)f->cols);
    if (!rgb)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for a row of %u cells; use fewer pixels",
                         f->cols);
    cairo_surface_flush(c->surface);
    unsigned char *data = cairo_image_surface_get_data(c->surface);
    const size_t stride = (size_t)cairo_image_surface_get_stride(c->surface);
    const int kw = R->cell_w, kh = R->cell_h;
    for (uint32_t r = 0; r < f->rows; ++r) {
        f->row_rgb(f->user, r, rgb);
        for (int dy = 0; dy < kh; ++dy) {
            uint32_t *px = (uint32_t *)(void *)(data + (size_t)(R->view.plot_y0 + (int)r * kh + dy) * stride) +
                           R->view.plot_x0;
            for (uint32_t col = 0; col < f->cols; ++col) {
                const unsigned char *p = rgb + 3 * col;
                const uint32_t v = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
                for (int dx = 0; dx < kw; ++dx)
                    *px++ = v;
            }
        }
    }
    cairo_surface_mark_dirty(c->surface);
    free(rgb);
    return LSIM_OK;
}

lsim_status lsim_raster_figure_write(lsim_context *ctx, const lsim_raster_figure *f, const char *path,
                                     lsim_raster_layout *layout)
{
    if (!f || !f->row_rgb || f->cols < 1 || f->rows < 1 || f->cols > LSIM_RASTER_MAX_PLOT ||
        f->rows > LSIM_RASTER_MAX_PLOT)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "image '%s': %u x %u cells; give 1..%d a side",
                         path ? path : "", f ? f->cols : 0u, f ? f->rows : 0u, LSIM_RASTER_MAX_PLOT);
    lsim_raster_layout local;
    lsim_raster_layout *R = layout ? layout : &local;
    memset(R, 0, sizeof *R);
    int kw, kh;
    cell_sizes(f, &kw, &kh);
    const int s = (int)f->cols * kw >= 1600 && (int)f->rows * kh >= 1200 ? 2 : 1; /* larger text on a large plot */
    layout_figure(f, s, R);
    lsim_canvas *c;
    lsim_status st = lsim_canvas_create(ctx, R->width, R->height, NULL, &c);
    if (st != LSIM_OK)
        return st;
    st = draw_cells(ctx, f, R, c);
    if (st == LSIM_OK) {
        lsim_view_layout *L = &R->view;
        lsim_canvas_rect(c, L->plot_x0 - 1, L->plot_y0 - 1, L->plot_x1 + 1, L->plot_y1 + 1, BLACK);
        lsim_view_draw_axis(c, L, &f->x_axis, 0, f->x_label ? f->x_label : "", s);
        lsim_view_draw_axis(c, L, &f->y_axis, 1, f->y_label ? f->y_label : "", s);
        L->value_lo = f->bar_lo;
        L->value_hi = f->bar_hi;
        lsim_view_draw_colour_bar(c, L, f->bar_caption ? f->bar_caption : "", f->bar_log, f->bar_t0, s);
        if (f->bar_log) {
            L->value_lo = pow(10.0, L->value_lo);
            L->value_hi = pow(10.0, L->value_hi);
        }
        if (f->title && *f->title) {
            snprintf(L->title, sizeof L->title, "%s", f->title);
            lsim_canvas_text(c, R->width / 2, L->title_y0 + 2 * s, f->title,
                             lsim_canvas_text_fit(f->title, 2 * s, R->width - 8 * s), LSIM_ALIGN_CENTER, BLACK);
        }
        st = lsim_canvas_write_png(ctx, c, path);
    }
    lsim_canvas_destroy(c);
    return st;
}
