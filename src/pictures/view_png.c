#include "pictures/view_png.h"

#include "core/context.h"
#include "pictures/canvas.h"
#include "pictures/colormap.h"
#include "pictures/label_colors.h"
#include "pictures/view_axes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEG (180.0 / 3.14159265358979323846)
#define MAX_CLASSES 40

static const unsigned char BLACK[3] = {0, 0, 0}, GREY[3] = {90, 90, 90};

typedef struct view_item {
    double key;   /* drawing order: ascending */
    float u, v;   /* plot coordinates (pixels inside the plot area, fractional) */
    size_t index;
} view_item;

static int cmp_item(const void *a, const void *b)
{
    const double x = ((const view_item *)a)->key, y = ((const view_item *)b)->key;
    return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Project point i into the plot area (w x h pixels); 0 when it is not in the view. */
static int project(const lsim_view_spec *s, size_t i, int w, int h, const lsim_axis_map *ax, const lsim_axis_map *ay,
                   view_item *out)
{
    const double x = s->x[i], y = s->y[i], z = s->z[i];
    if (!isfinite(x) || !isfinite(y) || !isfinite(z) || !isfinite(s->value[i]))
        return 0;
    const double r = sqrt(x * x + y * y + z * z);
    if (s->kind != LSIM_VIEW_BEV && s->extent_m > 0.0 && r > s->extent_m)
        return 0;
    double u, v;
    if (s->kind == LSIM_VIEW_BEV) {
        u = lsim_axis_pos(ax, y, w);
        v = lsim_axis_pos(ay, x, h);
        out->key = z;
    } else if (s->kind == LSIM_VIEW_RANGE) {
        if (!(r > 0.0))
            return 0;
        u = lsim_axis_pos(ax, atan2(y, x) * DEG, w);
        v = lsim_axis_pos(ay, atan2(z, hypot(x, y)) * DEG, h);
        out->key = -r;
    } else {
        if (!(x > 0.05))
            return 0;
        u = 0.5 * w - ax->f * y / x;
        v = 0.5 * h - ay->f * z / x;
        out->key = -x;
    }
    if (!(u >= 0.0 && u < w && v >= 0.0 && v < h))
        return 0;
    out->u = (float)u;
    out->v = (float)v;
    out->index = i;
    return 1;
}

/* The azimuth and elevation the points span (range view), padded a little. */
static void angle_span(const lsim_view_spec *s, double *az_lo, double *az_hi, double *el_lo, double *el_hi)
{
    *az_lo = *el_lo = 1e9;
    *az_hi = *el_hi = -1e9;
    for (size_t i = 0; i < s->count; ++i) {
        const double x = s->x[i], y = s->y[i], z = s->z[i], r = sqrt(x * x + y * y + z * z);
        if (!(r > 0.0) || !isfinite(r) || (s->extent_m > 0.0 && r > s->extent_m))
            continue;
        const double az = atan2(y, x) * DEG, el = atan2(z, hypot(x, y)) * DEG;
        *az_lo = fmin(*az_lo, az);
        *az_hi = fmax(*az_hi, az);
        *el_lo = fmin(*el_lo, el);
        *el_hi = fmax(*el_hi, el);
    }
    if (*az_hi < *az_lo) {
        *az_lo = -180.0;
        *az_hi = 180.0;
        *el_lo = -15.0;
        *el_hi = 15.0;
    }
    const double pa = fmax(0.5, 0.02 * (*az_hi - *az_lo)), pe = fmax(0.5, 0.04 * (*el_hi - *el_lo));
    *az_lo -= pa;
    *az_hi += pa;
    *el_lo -= pe;
    *el_hi += pe;
}

/* The value as the colour scale sees it: log10 on a log scale (non-positive: -HUGE_VAL, the bottom). */
static double scaled(const lsim_view_spec *s, double v)
{
    return !s->log_scale ? v : v > 0.0 ? log10(v) : -HUGE_VAL;
}

/* 2nd and 98th percentile of the drawn points' (scaled) values, the non-positive ones left out on
 * a log scale. */
static void value_range(const lsim_view_spec *s, const view_item *it, size_t n, double *tmp, double *lo, double *hi)
{
    size_t m = 0;
    for (size_t k = 0; k < n; ++k) {
        const double v = scaled(s, s->value[it[k].index]);
        if (isfinite(v))
            tmp[m++] = v;
    }
    *lo = 0.0;
    *hi = 1.0;
    if (m > 0) {
        qsort(tmp, m, sizeof *tmp, cmp_double);
        *lo = tmp[(size_t)(0.02 * (double)(m - 1) + 0.5)];
        *hi = tmp[(size_t)(0.98 * (double)(m - 1) + 0.5)];
    }
    if (!(*hi > *lo)) {
        const double d = s->log_scale ? 0.5 : fmax(0.5, 0.1 * fabs(*lo));
        *lo -= d;
        *hi += d;
    }
}

/* A label read from a file as a number: 0 (unlabeled) unless it is a whole uint32. */
static uint32_t label_id(double v)
{
    return v >= 0.0 && v <= 4294967295.0 ? (uint32_t)v : 0u;
}

/* The classes present (sorted ids) with their swatches; returns how many were found. */
static int draw_legend(lsim_canvas *c, lsim_view_layout *L, const lsim_view_spec *sp, const view_item *it,
                       size_t n, int s)
{
    uint32_t ids[MAX_CLASSES];
    int k = 0, more = 0;
    for (size_t i = 0; i < n; ++i) {
        const uint32_t id = label_id(sp->value[it[i].index]);
        int seen = 0;
        for (int j = 0; j < k && !seen; ++j)
            seen = ids[j] == id;
        if (!seen && k < MAX_CLASSES)
            ids[k++] = id;
        else if (!seen)
            more = 1;
    }
    for (int a = 1; a < k; ++a)
        for (int b = a; b > 0 && ids[b - 1] > ids[b]; --b) {
            uint32_t t = ids[b];
            ids[b] = ids[b - 1];
            ids[b - 1] = t;
        }
    const int line = LSIM_TEXT_LINE * s + 4 * s;
    lsim_canvas_text(c, L->key_x0, L->key_y0 - line, "semantic class", s, LSIM_ALIGN_LEFT, BLACK);
    int y = L->key_y0;
    for (int j = 0; j < k && y + line <= L->key_y1; ++j, y += line) {
        unsigned char rgb[3];
        const char *name;
        char buf[64];
        if (!lsim_label_color(ids[j], rgb, &name))
            name = "(scene's own)";
        snprintf(buf, sizeof buf, "%u %s", ids[j], name);
        lsim_canvas_fill_rect(c, L->key_x0, y, L->key_x0 + 14 * s, y + LSIM_TEXT_CAP * s + 2, rgb);
        lsim_canvas_rect(c, L->key_x0, y, L->key_x0 + 14 * s, y + LSIM_TEXT_CAP * s + 2, GREY);
        lsim_canvas_text(c, L->key_x0 + 18 * s, y + 1, buf, s, LSIM_ALIGN_LEFT, BLACK);
    }
    if (more)
        lsim_canvas_text(c, L->key_x0, y, "(more classes)", s, LSIM_ALIGN_LEFT, GREY);
    return k;
}

static void layout_plot(const lsim_view_spec *sp, int s, lsim_view_layout *L)
{
    const int W = sp->width, H = sp->height;
    L->title_y0 = 4 * s;
    L->title_y1 = L->title_y0 + 2 * LSIM_TEXT_LINE * s + 2 * s;
    const int left = 4 * s + LSIM_TEXT_LINE * s + 6 * s + 45 * s, right = sp->value_is_label ? 190 * s : 120 * s;
    const int top = L->title_y1 + 8 * s, bottom = 5 * s + 2 * LSIM_TEXT_LINE * s + 16 * s;
    int w = W - left - right, h = H - top - bottom;
    if (w < 20)
        w = 20;
    if (h < 20)
        h = 20;
    if (sp->kind == LSIM_VIEW_BEV) /* metres are square */
        w = h = w < h ? w : h;
    L->plot_x0 = left;
    L->plot_y0 = top;
    L->plot_x1 = left + w;
    L->plot_y1 = top + h;
    L->key_x0 = L->plot_x1 + (sp->value_is_label ? 16 * s : 30 * s);
    L->key_x1 = sp->value_is_label ? W - 4 * s : L->key_x0 + 20 * s;
    L->key_y0 = sp->value_is_label ? top + LSIM_TEXT_LINE * s + 6 * s : top; /* the legend's heading above */
    L->key_y1 = L->plot_y1;
}

static lsim_status draw(lsim_context *ctx, const lsim_view_spec *sp, lsim_canvas *c, lsim_view_layout *L)
{
    const int s = sp->width >= 1600 && sp->height >= 1200 ? 2 : 1;
    layout_plot(sp, s, L);
    const int w = L->plot_x1 - L->plot_x0, h = L->plot_y1 - L->plot_y0;
    lsim_axis_map ax = {0}, ay = {0};
    const char *xl, *yl;
    if (sp->kind == LSIM_VIEW_BEV) { /* centred on the sensor: +x up, +y left */
        ax = (lsim_axis_map){sp->centre_y + sp->extent_m, sp->centre_y - sp->extent_m, 0, 0.0};
        ay = (lsim_axis_map){sp->centre_x + sp->extent_m, sp->centre_x - sp->extent_m, 0, 0.0};
        xl = sp->world ? "world y (m), left positive" : "y (m), left positive";
        yl = sp->world ? "world x (m), up" : "x (m), forward";
    } else if (sp->kind == LSIM_VIEW_RANGE) {
        double a0, a1, e0, e1;
        angle_span(sp, &a0, &a1, &e0, &e1);
        ax = (lsim_axis_map){a1, a0, 0, 0.0};
        ay = (lsim_axis_map){e1, e0, 0, 0.0};
        xl = "azimuth (deg), left positive";
        yl = "elevation (deg)";
    } else {
        const double f = 0.5 * w; /* 90 degrees across */
        ax = (lsim_axis_map){1.0, -1.0, 1, f};
        ay = (lsim_axis_map){1.0, -1.0, 1, f};
        xl = "horizontal angle (deg), left positive";
        yl = "vertical angle (deg)";
    }
    view_item *it = malloc((sp->count ? sp->count : 1) * sizeof *it);
    double *tmp = malloc((sp->count ? sp->count : 1) * sizeof *tmp);
    if (!it || !tmp) {
        free(it);
        free(tmp);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory drawing %zu points; render fewer", sp->count);
    }
    size_t n = 0;
    for (size_t i = 0; i < sp->count; ++i)
        n += project(sp, i, w, h, &ax, &ay, &it[n]);
    qsort(it, n, sizeof *it, cmp_item);
    L->drawn = n;
    if (!sp->value_is_label)
        value_range(sp, it, n, tmp, &L->value_lo, &L->value_hi);
    free(tmp);

    const unsigned char bg[3] = {LSIM_VIEW_BACKGROUND_R, LSIM_VIEW_BACKGROUND_G, LSIM_VIEW_BACKGROUND_B};
    lsim_canvas_fill_rect(c, L->plot_x0, L->plot_y0, L->plot_x1, L->plot_y1, bg);
    lsim_canvas_clip(c, L->plot_x0, L->plot_y0, L->plot_x1, L->plot_y1);
    const int base = w >= 900 ? 3 : 2;
    for (size_t k = 0; k < n; ++k) {
        const size_t i = it[k].index;
        unsigned char rgb[3];
        if (sp->value_is_label)
            lsim_label_color(label_id(sp->value[i]), rgb, NULL);
        else
            lsim_colormap_viridis((scaled(sp, sp->value[i]) - L->value_lo) / (L->value_hi - L->value_lo), rgb);
        int size = base;
        if (sp->kind == LSIM_VIEW_PERSPECTIVE) /* nearer points larger */
            size = (int)fmin(6.0, fmax((double)base, 30.0 / sp->x[i]));
        const int px = L->plot_x0 + (int)it[k].u - size / 2, py = L->plot_y0 + (int)it[k].v - size / 2;
        lsim_canvas_fill_rect(c, px, py, px + size, py + size, rgb);
    }
    if (sp->kind == LSIM_VIEW_BEV) { /* the sensor */
        const double cx = L->plot_x0 + w / 2, cy = L->plot_y0 + h / 2; /* whole pixels: a crisp white cross */
        const lsim_stroke white = {{255, 255, 255}, 1, 0, 0, 1.0};
        lsim_canvas_line(c, cx - 6, cy, cx + 6, cy, &white);
        lsim_canvas_line(c, cx, cy - 6, cx, cy + 6, &white);
    }
    lsim_canvas_clip_reset(c);
    lsim_canvas_rect(c, L->plot_x0 - 1, L->plot_y0 - 1, L->plot_x1 + 1, L->plot_y1 + 1, BLACK);
    lsim_view_draw_axis(c, L, &ax, 0, xl, s);
    lsim_view_draw_axis(c, L, &ay, 1, yl, s);
    if (sp->value_is_label)
        L->classes = draw_legend(c, L, sp, it, n, s);
    else
        lsim_view_draw_colour_bar(c, L, sp->value_label ? sp->value_label : "value", sp->log_scale, 0.0, s);
    if (sp->log_scale && !sp->value_is_label) { /* report values, not logarithms */
        L->value_lo = pow(10.0, L->value_lo);
        L->value_hi = pow(10.0, L->value_hi);
    }
    free(it);
    char *title = L->title;
    const size_t size = sizeof L->title;
    if (sp->count_in_title)
        snprintf(title, size, "%.400s%s(%zu of %zu points in view)", sp->title ? sp->title : "",
                 sp->title && *sp->title ? " " : "", n, sp->count);
    else
        snprintf(title, size, "%.500s", sp->title ? sp->title : "");
    if (*title)
        lsim_canvas_text(c, sp->width / 2, L->title_y0 + 2 * s, title,
                         lsim_canvas_text_fit(title, 2 * s, sp->width - 8 * s), LSIM_ALIGN_CENTER, BLACK);
    return LSIM_OK;
}

lsim_status lsim_view_write_png(lsim_context *ctx, const lsim_view_spec *spec, const char *path,
                                lsim_view_layout *layout)
{
    if (!spec || (spec->count && (!spec->x || !spec->y || !spec->z || !spec->value)))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "point view: no points given");
    if (!path || !*path)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "point view: the output path is empty: give a file name");
    if (spec->width < LSIM_VIEW_MIN_SIDE || spec->height < LSIM_VIEW_MIN_SIDE || spec->width > LSIM_VIEW_MAX_SIDE ||
        spec->height > LSIM_VIEW_MAX_SIDE)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "point view '%s': size %d x %d is out of range; use %d to %d "
                         "pixels a side", path, spec->width, spec->height, LSIM_VIEW_MIN_SIDE, LSIM_VIEW_MAX_SIDE);
    if (spec->kind == LSIM_VIEW_BEV ? !(spec->extent_m > 0.0 && isfinite(spec->extent_m))
                                    : !(spec->extent_m >= 0.0 && isfinite(spec->extent_m)))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "point view '%s': extent %g m is invalid; give a finite "
                         "distance > 0 in metres", path, spec->extent_m);
    lsim_view_layout local;
    lsim_view_layout *L = layout ? layout : &local;
    memset(L, 0, sizeof *L);
    lsim_canvas *c;
    lsim_status st = lsim_canvas_create(ctx, spec->width, spec->height, NULL, &c);
    if (st != LSIM_OK)
        return st;
    st = draw(ctx, spec, c, L);
    if (st == LSIM_OK)
        st = lsim_canvas_write_png(ctx, c, path);
    lsim_canvas_destroy(c);
    return st;
}
