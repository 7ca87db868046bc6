/* Axes with round ticks and colour bars of the point pictures (pictures/view_axes.h). */
#include "pictures/view_axes.h"

#include "pictures/colormap.h"

#include <math.h>
#include <stdio.h>

#define DEG (180.0 / 3.14159265358979323846)
#define MAX_TICKS 32

static const unsigned char BLACK[3] = {0, 0, 0};

/* Round ticks (1, 2, 5 x 10^k) inside [lo, hi]; returns their count. */
static int nice_ticks(double lo, double hi, int target, double *t)
{
    if (hi < lo) {
        double s = lo;
        lo = hi;
        hi = s;
    }
    const double span = hi - lo;
    if (!(span > 0.0) || !isfinite(span))
        return 0;
    const double raw = span / (target > 1 ? target : 1), mag = pow(10.0, floor(log10(raw)));
    const double step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag : raw / mag < 7.5 ? 5 * mag : 10 * mag;
    int n = 0;
    for (double v = ceil(lo / step - 1e-9) * step; v <= hi + 1e-9 * step && n < MAX_TICKS; v += step)
        t[n++] = fabs(v) < 1e-9 * step ? 0.0 : v;
    return n;
}

/* Pixel offset along an axis of `len` pixels of value v. */
double lsim_axis_pos(const lsim_axis_map *a, double v, int len)
{
    if (a->perspective)
        return 0.5 * len + a->f * tan(v / DEG) * (a->hi > a->lo ? 1.0 : -1.0);
    return (v - a->lo) / (a->hi - a->lo) * len;
}

/* Colour-bar ticks of a log scale over [lo, hi] (log10 units): 1, 2, 5 x 10^k, or decades only
 * when those are too many. Returns the count; t holds log10 of the tick values. */
static int log_ticks(double lo, double hi, double *t)
{
    static const double mant[3] = {1.0, 2.0, 5.0};
    for (int pass = 0; pass < 2; ++pass) {
        int n = 0;
        for (double k = floor(lo); k <= ceil(hi) && n < MAX_TICKS; k += 1.0)
            for (int j = 0; j < (pass ? 1 : 3) && n < MAX_TICKS; ++j) {
                const double v = k + log10(mant[j]);
                if (v >= lo - 1e-9 && v <= hi + 1e-9)
                    t[n++] = v;
            }
        if (n <= 8 || pass)
            return n;
    }
    return 0;
}

static void format_tick(double v, double step, char *buf, size_t size)
{
    const int decimals = step >= 1.0 ? 0 : step >= 0.1 ? 1 : step >= 0.01 ? 2 : 3;
    if (fabs(v) >= 1e5 || (fabs(v) < 1e-3 && v != 0.0))
        snprintf(buf, size, "%.2g", v);
    else
        snprintf(buf, size, "%.*f", decimals, v);
}

/* Ticks and their labels along one side of the plot: bottom (vertical = 0) or left. */
void lsim_view_draw_axis(lsim_canvas *c, const lsim_view_layout *L, const lsim_axis_map *a, int vertical,
                         const char *label, int s)
{
    double t[MAX_TICKS];
    const double lo = a->perspective ? -atan(0.5 * (vertical ? L->plot_y1 - L->plot_y0 : L->plot_x1 - L->plot_x0) /
                                             a->f) * DEG : a->lo;
    const int n = nice_ticks(lo, a->perspective ? -lo : a->hi, vertical ? 6 : 8, t);
    const int len = vertical ? L->plot_y1 - L->plot_y0 : L->plot_x1 - L->plot_x0, tick = 5 * s;
    const lsim_stroke st = {{0, 0, 0}, 1, 0, 0, 1.0};
    for (int i = 0; i < n; ++i) {
        char buf[32];
        format_tick(t[i], n > 1 ? fabs(t[1] - t[0]) : 1.0, buf, sizeof buf);
        double p = lsim_axis_pos(a, t[i], len);
        if (!(p >= -0.5 && p <= len + 0.5))
            continue;
        if (vertical) {
            const double y = L->plot_y0 + p;
            lsim_canvas_line(c, L->plot_x0 - tick, y, L->plot_x0 - 1, y, &st);
            lsim_canvas_text(c, L->plot_x0 - tick - 3 * s, (int)y - LSIM_TEXT_CAP * s / 2, buf, s, LSIM_ALIGN_RIGHT,
                             BLACK);
        } else {
            const double x = L->plot_x0 + p;
            lsim_canvas_line(c, x, L->plot_y1, x, L->plot_y1 + tick - 1, &st);
            lsim_canvas_text(c, (int)x, L->plot_y1 + tick + 3 * s, buf, s, LSIM_ALIGN_CENTER, BLACK);
        }
    }
    if (vertical)
        lsim_canvas_text_vertical(c, 4 * s, (L->plot_y0 + L->plot_y1) / 2, label, s, BLACK);
    else
        lsim_canvas_text(c, (L->plot_x0 + L->plot_x1) / 2, L->plot_y1 + tick + 6 * s + LSIM_TEXT_LINE * s, label, s,
                         LSIM_ALIGN_CENTER, BLACK);
}

void lsim_view_draw_colour_bar(lsim_canvas *c, const lsim_view_layout *L, const char *caption, int log_scale, double t0,
                               int s)
{
    const int h = L->key_y1 - L->key_y0;
    for (int y = L->key_y0; y < L->key_y1; ++y) {
        unsigned char rgb[3];
        lsim_colormap_viridis(t0 + (1.0 - t0) * (h > 1 ? (double)(L->key_y1 - 1 - y) / (h - 1) : 0.5), rgb);
        lsim_canvas_fill_rect(c, L->key_x0, y, L->key_x1, y + 1, rgb);
    }
    lsim_canvas_rect(c, L->key_x0 - 1, L->key_y0 - 1, L->key_x1 + 1, L->key_y1 + 1, BLACK);
    double t[MAX_TICKS];
    const int n = log_scale ? log_ticks(L->value_lo, L->value_hi, t) : nice_ticks(L->value_lo, L->value_hi, 6, t);
    const lsim_stroke st = {{0, 0, 0}, 1, 0, 0, 1.0};
    int tick_w = 0; /* the widest tick label */
    for (int i = 0; i < n; ++i) {
        const double y = L->key_y1 - 1 - (t[i] - L->value_lo) / (L->value_hi - L->value_lo) * (h - 1);
        char buf[32];
        if (log_scale)
            snprintf(buf, sizeof buf, "%.3g", pow(10.0, t[i]));
        else
            format_tick(t[i], n > 1 ? t[1] - t[0] : 1.0, buf, sizeof buf);
        lsim_canvas_line(c, L->key_x1 + 1, y, L->key_x1 + 4 * s, y, &st);
        lsim_canvas_text(c, L->key_x1 + 6 * s, (int)y - LSIM_TEXT_CAP * s / 2, buf, s, LSIM_ALIGN_LEFT, BLACK);
        const int w = lsim_canvas_text_width(buf, s);
        tick_w = w > tick_w ? w : tick_w;
    }
    /* the caption along the bar, right of its tick labels (a long one across the top would run
     * over the plot), kept inside the figure */
    int cx = L->key_x1 + 6 * s + tick_w + 6 * s;
    if (cx > c->width - LSIM_TEXT_LINE * s - 2 * s)
        cx = c->width - LSIM_TEXT_LINE * s - 2 * s;
    lsim_canvas_text_vertical(c, cx, (L->key_y0 + L->key_y1) / 2, caption, s, BLACK);
}
