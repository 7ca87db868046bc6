/* Plot rendering (pictures/plot_png.h) with cairo on a pictures/canvas.h canvas: layout, axes with round
 * ticks and labels, series, error bars, legends; the PNG through cairo's writer. */
#include "pictures/plot_png.h"

#include "core/context.h"
#include "pictures/plot_data.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TICKS 24

/* ----------------------------------------------------------------------------------- layout */

typedef struct axis_ticks {
    double lo, hi;           /* the axis range */
    int count;
    double value[MAX_TICKS];
    char label[MAX_TICKS][32];
} axis_ticks;

typedef struct panel_layout {
    int scale;                        /* text scale */
    int cell_x0, cell_y0, cell_x1, cell_y1;
    int ax0, ay0, ax1, ay1;           /* plot area: frame at these pixel columns / rows */
    axis_ticks xt, yt;
    int has_data;
} panel_layout;

/* Finite data range of the panel on one axis (error bars and reference lines count for y). */
static int data_range(const plot_panel *pn, int axis_y, double *lo, double *hi)
{
    double a = INFINITY, b = -INFINITY;
    for (int s = 0; s < pn->series_count; ++s) {
        const plot_series *se = &pn->series[s];
        for (size_t i = 0; i < se->n; ++i) {
            if (!isfinite(se->x[i]) || !isfinite(se->y[i]))
                continue;
            if (pn->fixed_x && axis_y && (se->x[i] < pn->x_lo || se->x[i] > pn->x_hi))
                continue; /* outside the fixed x range: not shown */
            const double v = axis_y ? se->y[i] : se->x[i];
            a = v < a ? v : a;
            b = v > b ? v : b;
            if (axis_y && se->lo) {
                if (isfinite(se->lo[i]) && isfinite(se->hi[i])) {
                    a = se->lo[i] < a ? se->lo[i] : a;
                    b = se->hi[i] > b ? se->hi[i] : b;
                }
            }
        }
    }
    if (axis_y && a <= b)
        for (int h = 0; h < pn->hline_count; ++h) {
            a = pn->hline[h] < a ? pn->hline[h] : a;
            b = pn->hline[h] > b ? pn->hline[h] : b;
        }
    *lo = a;
    *hi = b;
    return a <= b;
}

/* Ticks at round multiples (1, 2, 5 x 10^k) inside [lo, hi], about `target` of them. */
static void make_ticks(double lo, double hi, int target, axis_ticks *t)
{
    t->lo = lo;
    t->hi = hi;
    t->count = 0;
    if (target < 2)
        target = 2;
    const double span = hi - lo;
    double raw = span / target;
    double mag = pow(10.0, floor(log10(raw)));
    double norm = raw / mag;
    double step = (norm < 1.5 ? 1.0 : norm < 3.0 ? 2.0 : norm < 7.0 ? 5.0 : 10.0) * mag;
    if (!(step > 0.0) || !isfinite(step))
        return;
    double k0 = ceil(lo / step - 1e-9), k1 = floor(hi / step + 1e-9);
    if (!(k1 - k0 < MAX_TICKS))
        return;
    /* Labels: fixed-point with just the decimals the step needs; %g beyond 1e6 or below 1e-5. */
    const double maxabs = fmax(fabs(lo), fabs(hi));
    const int decimals = (int)fmax(0.0, -floor(log10(step) + 1e-9));
    const int fixed_point = maxabs < 1e6 && step >= 1e-5;
    int precision = (int)(floor(log10(maxabs > 0 ? maxabs : step)) - floor(log10(step) + 1e-9)) + 1;
    precision = precision < 1 ? 1 : precision > 15 ? 15 : precision;
    for (double k = k0; k <= k1 && t->count < MAX_TICKS; k += 1.0) {
        double v = k * step;
        if (fabs(v) < step * 1e-9)
            v = 0.0;
        if (v < lo - step * 1e-9 || v > hi + step * 1e-9)
            continue;
        t->value[t->count] = v;
        if (fixed_point)
            snprintf(t->label[t->count], sizeof t->label[0], "%.*f", decimals, v);
        else
            snprintf(t->label[t->count], sizeof t->label[0], "%.*g", precision, v);
        t->count++;
    }
    /* Labels that print alike (a range far from 0 relative to its width): keep only the ends. */
    for (int i = 1; i < t->count; ++i)
        if (!strcmp(t->label[i], t->label[i - 1])) {
            t->count = 0;
            return;
        }
}

/* Axis range: fixed, or the data widened by 5 % on each side; degenerate ranges widened. */
static void axis_range(const plot_panel *pn, int axis_y, double *lo, double *hi)
{
    if (axis_y ? pn->fixed_y : pn->fixed_x) {
        *lo = axis_y ? pn->y_lo : pn->x_lo;
        *hi = axis_y ? pn->y_hi : pn->x_hi;
        return;
    }
    double a, b;
    if (!data_range(pn, axis_y, &a, &b)) {
        *lo = 0.0;
        *hi = 1.0;
        return;
    }
    a = fmax(a, -1e300);
    b = fmin(b, 1e300);
    const double mag = fmax(fabs(a), fabs(b));
    if (b - a <= mag * 1e-9) { /* one value (or nearly): a window around it */
        const double half = mag > 0.0 ? mag * 0.1 : 1.0;
        a -= half;
        b += half;
    } else {
        const double pad = (b - a) * 0.05;
        a -= pad;
        b += pad;
    }
    *lo = a;
    *hi = b;
}

static int max_label_width(const axis_ticks *t, int scale)
{
    int w = 0;
    for (int i = 0; i < t->count; ++i) {
        int lw = lsim_canvas_text_width(t->label[i], scale);
        w = lw > w ? lw : w;
    }
    return w;
}

static int title_scale(const lsim_plot *p)
{
    const int side = p->width < p->height ? p->width : p->height;
    return 2 + (side >= 700) + (side >= 1400) + (side >= 2400);
}

static int figure_title_height(const lsim_plot *p)
{
    if (!p->title[0])
        return 0;
    return LSIM_TEXT_LINE * title_scale(p) + 2 * title_scale(p) + 6;
}

static void compute_layout(const lsim_plot *p, int index, panel_layout *L)
{
    const plot_panel *pn = &p->panel[index];
    const int row = index / p->cols, col = index % p->cols;
    const int top = figure_title_height(p);
    L->cell_x0 = (int)((long)p->width * col / p->cols);
    L->cell_x1 = (int)((long)p->width * (col + 1) / p->cols);
    L->cell_y0 = top + (int)((long)(p->height - top) * row / p->rows);
    L->cell_y1 = top + (int)((long)(p->height - top) * (row + 1) / p->rows);
    const int cw = L->cell_x1 - L->cell_x0, ch = L->cell_y1 - L->cell_y0;
    const int side = cw < ch ? cw : ch;
    const int s = 1 + (side >= 350) + (side >= 900) + (side >= 1600);
    L->scale = s;
    const int pad = 4 * s, text_h = LSIM_TEXT_LINE * s, tick = 4 * s;

    const int margin_top = pn->title[0] ? text_h + 3 * pad : 3 * pad;
    const int margin_bottom = tick + pad + text_h + (pn->xlabel[0] ? pad + text_h : 0) + pad;
    L->ay0 = L->cell_y0 + margin_top;
    L->ay1 = L->cell_y1 - margin_bottom;
    if (L->ay1 - L->ay0 < 8)
        L->ay1 = L->ay0 + 8;

    double lo, hi;
    axis_range(pn, 1, &lo, &hi);
    make_ticks(lo, hi, (L->ay1 - L->ay0) / (40 * s), &L->yt);
    const int margin_left = pad + (pn->ylabel[0] ? text_h + pad : 0) + max_label_width(&L->yt, s) + tick + pad;
    axis_range(pn, 0, &lo, &hi);
    /* x ticks: enough room for labels of ~6 characters */
    int right = L->cell_x1 - 4 * pad;
    L->ax0 = L->cell_x0 + margin_left;
    for (int iter = 0; iter < 2; ++iter) {
        if (right - L->ax0 < 8)
            right = L->ax0 + 8;
        int label_w = iter ? max_label_width(&L->xt, s) : 6 * 6 * s;
        make_ticks(lo, hi, (right - L->ax0) / (label_w + 6 * pad), &L->xt);
        if (iter == 0) /* room for half of the last label to the right of the frame */
            right = L->cell_x1 - (max_label_width(&L->xt, s) / 2 + 2 * pad > 4 * pad
                                      ? max_label_width(&L->xt, s) / 2 + 2 * pad
                                      : 4 * pad);
    }
    L->ax1 = right;
    L->has_data = 0;
    for (int i = 0; i < pn->series_count && !L->has_data; ++i)
        for (size_t k = 0; k < pn->series[i].n; ++k)
            if (isfinite(pn->series[i].x[k]) && isfinite(pn->series[i].y[k])) {
                L->has_data = 1;
                break;
            }
}

static double map_x(const panel_layout *L, double x)
{
    return L->ax0 + (x - L->xt.lo) / (L->xt.hi - L->xt.lo) * (L->ax1 - L->ax0);
}

static double map_y(const panel_layout *L, double y)
{
    return L->ay1 - (y - L->yt.lo) / (L->yt.hi - L->yt.lo) * (L->ay1 - L->ay0);
}

int lsim_plot_data_to_pixel(const lsim_plot *plot, int row, int col, double x, double y, double *px, double *py)
{
    if (!plot || row < 0 || col < 0 || row >= plot->rows || col >= plot->cols || !isfinite(x) || !isfinite(y))
        return 0;
    panel_layout L;
    compute_layout(plot, row * plot->cols + col, &L);
    if (px)
        *px = map_x(&L, x);
    if (py)
        *py = map_y(&L, y);
    return 1;
}

/* ----------------------------------------------------------------------------------- render */

static const unsigned char black[3] = {0, 0, 0};
static const unsigned char grid_grey[3] = {225, 225, 225};
static const unsigned char ref_grey[3] = {120, 120, 120};
static const unsigned char white_rgb[3] = {255, 255, 255};

static int line_thickness(int s) { return s >= 2 ? 3 : 2; }
static int marker_size(int s) { return 5 + 2 * s; }

static void draw_series(lsim_canvas *c, const panel_layout *L, const plot_series *se)
{
    const int s = L->scale;
    if (se->lo) { /* error bars first, thin, with caps */
        lsim_stroke bar = {{se->rgb[0], se->rgb[1], se->rgb[2]}, s >= 3 ? 2 : 1, 0, 0, 1.0};
        const double cap = marker_size(s) / 2.0 + 1.0;
        for (size_t i = 0; i < se->n; ++i) {
            if (!isfinite(se->x[i]) || !isfinite(se->lo[i]) || !isfinite(se->hi[i]))
                continue;
            const double x = map_x(L, se->x[i]), y0 = map_y(L, se->lo[i]), y1 = map_y(L, se->hi[i]);
            lsim_canvas_line(c, x, y0, x, y1, &bar);
            lsim_canvas_line(c, x - cap, y0, x + cap, y0, &bar);
            lsim_canvas_line(c, x - cap, y1, x + cap, y1, &bar);
        }
    }
    if (se->style & LSIM_PLOT_LINE) {
        lsim_stroke st = {{se->rgb[0], se->rgb[1], se->rgb[2]}, line_thickness(s), 0, 0, 1.0};
        for (size_t i = 1; i < se->n; ++i) {
            if (!isfinite(se->x[i - 1]) || !isfinite(se->y[i - 1]) || !isfinite(se->x[i]) || !isfinite(se->y[i]))
                continue;
            lsim_canvas_line(c, map_x(L, se->x[i - 1]), map_y(L, se->y[i - 1]), map_x(L, se->x[i]),
                             map_y(L, se->y[i]), &st);
        }
    }
    if (se->style & LSIM_PLOT_MARKERS)
        for (size_t i = 0; i < se->n; ++i)
            if (isfinite(se->x[i]) && isfinite(se->y[i]))
                lsim_canvas_marker(c, map_x(L, se->x[i]), map_y(L, se->y[i]), se->marker, marker_size(s), se->rgb);
}

/* Number of points of the panel inside a pixel rectangle. */
static size_t points_inside(const plot_panel *pn, const panel_layout *L, int x0, int y0, int x1, int y1)
{
    size_t count = 0;
    for (int s = 0; s < pn->series_count; ++s) {
        const plot_series *se = &pn->series[s];
        for (size_t i = 0; i < se->n; ++i) {
            if (!isfinite(se->x[i]) || !isfinite(se->y[i]))
                continue;
            const double px = map_x(L, se->x[i]), py = map_y(L, se->y[i]);
            count += px >= x0 && px < x1 && py >= y0 && py < y1;
            if (se->lo && isfinite(se->lo[i]) && isfinite(se->hi[i])) {
                const double a = map_y(L, se->hi[i]), b = map_y(L, se->lo[i]);
                count += px >= x0 && px < x1 && b >= y0 && a < y1 && !(py >= y0 && py < y1);
            }
        }
    }
    return count;
}

static void draw_legend(lsim_canvas *c, const plot_panel *pn, const panel_layout *L)
{
    if (pn->legend == LSIM_LEGEND_NONE)
        return;
    const int s = L->scale, pad = 4 * s;
    int entries = 0, name_w = 0;
    for (int i = 0; i < pn->series_count; ++i)
        if (pn->series[i].name[0]) {
            ++entries;
            int w = lsim_canvas_text_width(pn->series[i].name, s);
            name_w = w > name_w ? w : name_w;
        }
    if (!entries)
        return;
    const int sample_w = 6 * 6 * s / 2, line_h = LSIM_TEXT_LINE * s + pad;
    const int w = pad + sample_w + pad + name_w + pad, h = pad + entries * line_h;
    const int inset = 2 * pad;
    int corners[4][2] = {
        {L->ax1 - inset - w, L->ay0 + inset},
        {L->ax0 + inset, L->ay0 + inset},
        {L->ax1 - inset - w, L->ay1 - inset - h},
        {L->ax0 + inset, L->ay1 - inset - h},
    };
    int pick = 0;
    if (pn->legend == LSIM_LEGEND_AUTO) {
        size_t best = (size_t)-1;
        for (int k = 0; k < 4; ++k) {
            size_t n = points_inside(pn, L, corners[k][0], corners[k][1], corners[k][0] + w, corners[k][1] + h);
            if (n < best) {
                best = n;
                pick = k;
            }
        }
    } else {
        pick = (int)pn->legend - 1;
    }
    const int x0 = corners[pick][0], y0 = corners[pick][1];
    lsim_canvas_fill_rect(c, x0, y0, x0 + w, y0 + h, white_rgb);
    lsim_canvas_rect(c, x0, y0, x0 + w, y0 + h, ref_grey);
    int y = y0 + pad;
    for (int i = 0; i < pn->series_count; ++i) {
        const plot_series *se = &pn->series[i];
        if (!se->name[0])
            continue;
        const double cy = y + LSIM_TEXT_CAP * s / 2.0;
        if (se->style & LSIM_PLOT_LINE) {
            lsim_stroke st = {{se->rgb[0], se->rgb[1], se->rgb[2]}, line_thickness(s), 0, 0, 1.0};
            lsim_canvas_line(c, x0 + pad, cy, x0 + pad + sample_w, cy, &st);
        }
        if (se->style & LSIM_PLOT_MARKERS)
            lsim_canvas_marker(c, x0 + pad + sample_w / 2.0, cy, se->marker, marker_size(s), se->rgb);
        lsim_canvas_text(c, x0 + pad + sample_w + pad, y, se->name, s, LSIM_ALIGN_LEFT, black);
        y += line_h;
    }
}

static void render_panel(const lsim_plot *p, int index, lsim_canvas *c)
{
    const plot_panel *pn = &p->panel[index];
    panel_layout L;
    compute_layout(p, index, &L);
    const int s = L.scale, pad = 4 * s, tick = 4 * s, text_h = LSIM_TEXT_CAP * s;
    lsim_canvas_clip(c, L.cell_x0, L.cell_y0, L.cell_x1, L.cell_y1);

    /* title, centred over the plot area */
    if (pn->title[0])
        lsim_canvas_text(c, (L.ax0 + L.ax1) / 2, L.cell_y0 + 2 * pad, pn->title,
                         lsim_canvas_text_fit(pn->title, s, L.cell_x1 - L.cell_x0), LSIM_ALIGN_CENTER, black);

    /* grid lines */
    for (int i = 0; i < L.xt.count; ++i) {
        int x = (int)floor(map_x(&L, L.xt.value[i]) + 0.5);
        lsim_canvas_fill_rect(c, x, L.ay0, x + 1, L.ay1, grid_grey);
    }
    for (int i = 0; i < L.yt.count; ++i) {
        int y = (int)floor(map_y(&L, L.yt.value[i]) + 0.5);
        lsim_canvas_fill_rect(c, L.ax0, y, L.ax1, y + 1, grid_grey);
    }

    /* data, clipped to the inside of the frame */
    lsim_canvas_clip(c, L.ax0 + 1, L.ay0 + 1, L.ax1, L.ay1);
    for (int h = 0; h < pn->hline_count; ++h) {
        lsim_stroke st = {{ref_grey[0], ref_grey[1], ref_grey[2]}, s, 6 * s, 4 * s, 1.0};
        const double y = map_y(&L, pn->hline[h]);
        lsim_canvas_line(c, L.ax0, y, L.ax1, y, &st);
    }
    for (int i = 0; i < pn->series_count; ++i)
        draw_series(c, &L, &pn->series[i]);
    if (!L.has_data)
        lsim_canvas_text(c, (L.ax0 + L.ax1) / 2, (L.ay0 + L.ay1 - text_h) / 2, "no data", s, LSIM_ALIGN_CENTER,
                         ref_grey);
    draw_legend(c, pn, &L);

    /* frame, ticks, tick labels, axis labels */
    lsim_canvas_clip(c, L.cell_x0, L.cell_y0, L.cell_x1, L.cell_y1);
    const int fw = s >= 2 ? 2 : 1; /* frame line width */
    lsim_canvas_fill_rect(c, L.ax0 - fw + 1, L.ay0 - fw + 1, L.ax1 + fw, L.ay0 + 1, black);
    lsim_canvas_fill_rect(c, L.ax0 - fw + 1, L.ay1, L.ax1 + fw, L.ay1 + fw, black);
    lsim_canvas_fill_rect(c, L.ax0 - fw + 1, L.ay0, L.ax0 + 1, L.ay1 + fw, black);
    lsim_canvas_fill_rect(c, L.ax1, L.ay0, L.ax1 + fw, L.ay1 + fw, black);
    for (int i = 0; i < L.xt.count; ++i) {
        int x = (int)floor(map_x(&L, L.xt.value[i]) + 0.5);
        lsim_canvas_fill_rect(c, x - fw / 2, L.ay1, x - fw / 2 + fw, L.ay1 + tick, black);
        lsim_canvas_text(c, x, L.ay1 + tick + pad, L.xt.label[i], s, LSIM_ALIGN_CENTER, black);
    }
    for (int i = 0; i < L.yt.count; ++i) {
        int y = (int)floor(map_y(&L, L.yt.value[i]) + 0.5);
        lsim_canvas_fill_rect(c, L.ax0 - tick, y - fw / 2, L.ax0, y - fw / 2 + fw, black);
        lsim_canvas_text(c, L.ax0 - tick - pad, y - text_h / 2, L.yt.label[i], s, LSIM_ALIGN_RIGHT, black);
    }
    if (pn->xlabel[0])
        lsim_canvas_text(c, (L.ax0 + L.ax1) / 2, L.ay1 + tick + pad + LSIM_TEXT_LINE * s + pad, pn->xlabel,
                         lsim_canvas_text_fit(pn->xlabel, s, L.cell_x1 - L.cell_x0), LSIM_ALIGN_CENTER, black);
    if (pn->ylabel[0])
        lsim_canvas_text_vertical(c, L.cell_x0 + pad, (L.ay0 + L.ay1) / 2, pn->ylabel,
                                  lsim_canvas_text_fit(pn->ylabel, s, L.cell_y1 - L.cell_y0), black);
    lsim_canvas_clip_reset(c);
}

lsim_status lsim_plot_render(const lsim_plot *plot, lsim_canvas *canvas)
{
    if (!plot)
        return LSIM_ERR_INVALID_ARGUMENT;
    if (!canvas || canvas->width != plot->width || canvas->height != plot->height)
        return lsim_fail(plot->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "plot: the canvas must be %d x %d pixels, the size of the plot", plot->width,
                         plot->height);
    lsim_canvas_clip_reset(canvas);
    lsim_canvas_fill_rect(canvas, 0, 0, canvas->width, canvas->height, white_rgb);
    if (plot->title[0]) {
        const int ts = title_scale(plot);
        lsim_canvas_text(canvas, plot->width / 2, ts + 4, plot->title,
                         lsim_canvas_text_fit(plot->title, ts, plot->width), LSIM_ALIGN_CENTER, black);
    }
    for (int i = 0; i < plot->rows * plot->cols; ++i)
        render_panel(plot, i, canvas);
    return LSIM_OK;
}

lsim_status lsim_plot_write(const lsim_plot *plot, const char *path)
{
    if (!plot)
        return LSIM_ERR_INVALID_ARGUMENT;
    if (!path || !*path)
        return lsim_fail(plot->ctx, LSIM_ERR_INVALID_ARGUMENT, "plot: empty output path");
    lsim_canvas *canvas;
    lsim_status st = lsim_canvas_create(plot->ctx, plot->width, plot->height, NULL, &canvas);
    if (st != LSIM_OK)
        return st;
    st = lsim_plot_render(plot, canvas);
    if (st == LSIM_OK)
        st = lsim_canvas_write_png(plot->ctx, canvas, path);
    lsim_canvas_destroy(canvas);
    return st;
}
