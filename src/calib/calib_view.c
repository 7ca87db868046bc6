#include "calib/calib_view.h"

#include "core/context.h"
#include "pictures/colormap.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define DEG (3.14159265358979323846 / 180.0)
#define MAX_INCIDENCE_DEG 89.0 /* beams beyond this would meet the board line absurdly far away */

static const unsigned char black[3] = {0, 0, 0};
static const unsigned char dark_grey[3] = {90, 90, 90};
static const unsigned char mid_grey[3] = {150, 150, 150};
static const unsigned char light_grey[3] = {200, 200, 200};
static const unsigned char board_rgb[3] = {139, 90, 43};

/* Layout of the view on a width x height canvas. */
typedef struct view_layout {
    int scale, pad, text_h;
    int title_y, footer_y;                    /* tops of the title block and of the footer line */
    int bar_x0, bar_x1, bar_y0, bar_y1;       /* colour bar */
    int scene_x0, scene_y0, scene_x1, scene_y1;
    double mx, my, k;                         /* scene centre (m, sensor frame) and pixels per metre */
    double half_width;                        /* half the board width drawn (m) */
} view_layout;

static int usable_angle(double angle_deg)
{
    return isfinite(angle_deg) && fabs(angle_deg) <= MAX_INCIDENCE_DEG;
}

/* Hit point on the fitted board line of the beam at incidence `theta_rad`, side +1 / -1. */
static void hit_point(const lsim_calib_material *m, double theta_rad, int side, double *x, double *y)
{
    const double r = m->fitted_distance_m / cos(theta_rad);
    const double a = m->normal_angle_rad + side * theta_rad;
    *x = r * cos(a);
    *y = r * sin(a);
}

static const char *name_of(const lsim_calib_material *m, char *buf, size_t size)
{
    snprintf(buf, size, "%.*s", (int)sizeof m->name - 1, m->name[0] ? m->name : "(unnamed)");
    return buf;
}

static lsim_status check_material(lsim_context *ctx, const lsim_calib_material *m)
{
    if (!m)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "calibration view: no material given");
    char name[64];
    name_of(m, name, sizeof name);
    if (!(isfinite(m->fitted_distance_m) && m->fitted_distance_m > 0.0))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "calibration view of '%s': fitted_distance_m %g is invalid; it must be > 0 m", name,
                         m->fitted_distance_m);
    if (!isfinite(m->normal_angle_rad))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "calibration view of '%s': normal_angle_rad is not finite",
                         name);
    if (!(isfinite(m->board_width_m) && m->board_width_m >= 0.0))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "calibration view of '%s': board_width_m %g is invalid; it must be >= 0 m (0: unknown)",
                         name, m->board_width_m);
    if (m->bin_count > 0 && !m->bins)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "calibration view of '%s': bin_count is %zu but there are no bins", name, m->bin_count);
    return LSIM_OK;
}

/* Intensity shown for a bin; NaN when the bin has no returned beam. */
static double shown_value(const lsim_calib_bin *b, lsim_calib_view_colour colour)
{
    if (!isfinite(b->mean_intensity) || b->drop_rate >= 1.0)
        return NAN;
    if (colour == LSIM_CALIB_VIEW_MEAN_WITH_DROPS) {
        const double keep = isfinite(b->drop_rate) ? 1.0 - (b->drop_rate < 0.0 ? 0.0 : b->drop_rate) : 1.0;
        return b->mean_intensity * keep;
    }
    return b->mean_intensity;
}

static int value_range(const lsim_calib_material *m, lsim_calib_view_colour colour, double *lo, double *hi)
{
    double a = INFINITY, b = -INFINITY;
    for (size_t i = 0; i < m->bin_count; ++i) {
        if (!usable_angle(m->bins[i].angle_deg))
            continue;
        const double v = shown_value(&m->bins[i], colour);
        if (isfinite(v)) {
            a = v < a ? v : a;
            b = v > b ? v : b;
        }
    }
    *lo = a;
    *hi = b;
    return a <= b;
}

static void compute_layout(const lsim_calib_material *m, int width, int height, view_layout *V)
{
    const int side = width < height ? width : height;
    int s = side / 400;
    V->scale = s = s < 1 ? 1 : s > 4 ? 4 : s;
    V->pad = 5 * s;
    V->text_h = LSIM_TEXT_LINE * s;
    V->title_y = V->pad;
    const int title_h = 2 * V->text_h + 2 * V->pad;
    V->footer_y = height - V->pad - 2 * V->text_h;
    const int label_w = 8 * 6 * s;
    const int bar_w = 14 * s;
    V->bar_x1 = width - V->pad - label_w - V->pad;
    V->bar_x0 = V->bar_x1 - bar_w;
    V->bar_y0 = V->title_y + title_h + V->text_h;
    V->bar_y1 = V->footer_y - 2 * V->pad - V->text_h;
    if (V->bar_y1 < V->bar_y0 + 8)
        V->bar_y1 = V->bar_y0 + 8;
    V->scene_x0 = V->pad;
    V->scene_x1 = V->bar_x0 - 3 * V->pad - V->text_h; /* room for the bar's vertical caption */
    V->scene_y0 = V->title_y + title_h;
    V->scene_y1 = V->footer_y - 2 * V->pad;
    if (V->scene_x1 < V->scene_x0 + 16)
        V->scene_x1 = V->scene_x0 + 16;
    if (V->scene_y1 < V->scene_y0 + 16)
        V->scene_y1 = V->scene_y0 + 16;

    /* Board half width: as given, or (unknown) enough to hold every hit point. */
    double half = m->board_width_m / 2.0;
    double xmin = 0.0, xmax = 0.0, ymin = 0.0, ymax = 0.0; /* the sensor */
    double max_s = 0.0;
    for (size_t i = 0; i < m->bin_count; ++i) {
        if (!usable_angle(m->bins[i].angle_deg))
            continue;
        const double th = fabs(m->bins[i].angle_deg) * DEG;
        max_s = fmax(max_s, m->fitted_distance_m * tan(th));
        for (int sd = -1; sd <= 1; sd += 2) {
            double x, y;
            hit_point(m, th, sd, &x, &y);
            xmin = fmin(xmin, x);
            xmax = fmax(xmax, x);
            ymin = fmin(ymin, y);
            ymax = fmax(ymax, y);
        }
    }
    if (!(half > 0.0))
        half = max_s > 0.0 ? max_s * 1.05 : m->fitted_distance_m * 0.25;
    V->half_width = half;
    const double nx = cos(m->normal_angle_rad), ny = sin(m->normal_angle_rad);
    const double d = m->fitted_distance_m;
    const double off = isfinite(m->board_offset_m) ? m->board_offset_m : 0.0;
    for (int sd = -1; sd <= 1; sd += 2) {
        const double t = off + sd * half; /* along the board, (-ny, nx) */
        const double x = d * nx - t * ny, y = d * ny + t * nx;
        xmin = fmin(xmin, x);
        xmax = fmax(xmax, x);
        ymin = fmin(ymin, y);
        ymax = fmax(ymax, y);
    }
    if (m->configured_distance_m > 0.0 && isfinite(m->configured_distance_m)) {
        const double c = m->configured_distance_m;
        for (int sd = -1; sd <= 1; sd += 2) {
            const double t = off + sd * half;
            xmin = fmin(xmin, c * nx - t * ny);
            xmax = fmax(xmax, c * nx - t * ny);
            ymin = fmin(ymin, c * ny + t * nx);
            ymax = fmax(ymax, c * ny + t * nx);
        }
    }
    const double ext_x = fmax(xmax - xmin, 1e-3), ext_y = fmax(ymax - ymin, 1e-3);
    const double w = V->scene_x1 - V->scene_x0, h = V->scene_y1 - V->scene_y0;
    /* image column follows -y, image row follows -x */
    V->k = 0.9 * fmin(w / ext_y, h / ext_x);
    V->mx = 0.5 * (xmin + xmax);
    V->my = 0.5 * (ymin + ymax);
}

static void to_pixel(const view_layout *V, double x, double y, double *col, double *row)
{
    const double cc = 0.5 * (V->scene_x0 + V->scene_x1), cr = 0.5 * (V->scene_y0 + V->scene_y1);
    *col = cc - (y - V->my) * V->k;
    *row = cr - (x - V->mx) * V->k;
}

int lsim_calib_view_to_pixel(const lsim_calib_material *m, int width, int height, double x, double y, double *col,
                             double *row)
{
    if (check_material(NULL, m) != LSIM_OK || width < 1 || height < 1)
        return 0;
    view_layout V;
    compute_layout(m, width, height, &V);
    double c, r;
    to_pixel(&V, x, y, &c, &r);
    if (col)
        *col = c;
    if (row)
        *row = r;
    return 1;
}

static void fmt_value(char *buf, size_t size, double v)
{
    snprintf(buf, size, "%.4g", v);
}

/* A round length (1, 2, 5 x 10^k metres) near `target`. */
static double round_length(double target)
{
    const double mag = pow(10.0, floor(log10(target)));
    const double n = target / mag;
    return (n < 1.5 ? 1.0 : n < 3.5 ? 2.0 : n < 7.5 ? 5.0 : 10.0) * mag;
}

static void draw_title(lsim_canvas *c, const lsim_calib_material *m, const view_layout *V,
                       lsim_calib_view_colour colour)
{
    char name[64], line[256];
    name_of(m, name, sizeof name);
    const int s = V->scale;
    snprintf(line, sizeof line, "%s: beams on the board, coloured by %s", name,
             colour == LSIM_CALIB_VIEW_MEAN_WITH_DROPS ? "mean intensity (drops as 0)" : "mean intensity");
    lsim_canvas_text(c, c->width / 2, V->title_y, line, lsim_canvas_text_fit(line, s, c->width - 2 * V->pad),
                     LSIM_ALIGN_CENTER, black);
    char board[48];
    if (m->board_width_m > 0.0)
        snprintf(board, sizeof board, "board %.3f m", m->board_width_m);
    else
        snprintf(board, sizeof board, "board width unknown");
    if (m->configured_distance_m > 0.0 && isfinite(m->configured_distance_m))
        snprintf(line, sizeof line, "fitted %.4f m vs configured %.4f m (%+.1f mm), %s", m->fitted_distance_m,
                 m->configured_distance_m, (m->fitted_distance_m - m->configured_distance_m) * 1000.0, board);
    else
        snprintf(line, sizeof line, "fitted distance %.4f m (none configured), %s", m->fitted_distance_m, board);
    lsim_canvas_text(c, c->width / 2, V->title_y + V->text_h + V->pad / 2, line,
                     lsim_canvas_text_fit(line, s, c->width - 2 * V->pad), LSIM_ALIGN_CENTER, dark_grey);
}

static void draw_colour_bar(lsim_canvas *c, const view_layout *V, int have, double lo, double hi,
                            lsim_calib_view_colour colour)
{
    const int s = V->scale;
    const int h = V->bar_y1 - V->bar_y0;
    for (int y = V->bar_y0; y < V->bar_y1; ++y) {
        unsigned char rgb[3];
        lsim_colormap_viridis(have ? (double)(V->bar_y1 - 1 - y) / (h > 1 ? h - 1 : 1) : 0.5, rgb);
        lsim_canvas_fill_rect(c, V->bar_x0, y, V->bar_x1, y + 1, have ? rgb : light_grey);
    }
    lsim_canvas_rect(c, V->bar_x0 - 1, V->bar_y0 - 1, V->bar_x1 + 1, V->bar_y1 + 1, black);
    char buf[32];
    if (have) {
        fmt_value(buf, sizeof buf, hi);
        lsim_canvas_text(c, V->bar_x1 + V->pad, V->bar_y0, buf, s, LSIM_ALIGN_LEFT, black);
        fmt_value(buf, sizeof buf, lo);
        lsim_canvas_text(c, V->bar_x1 + V->pad, V->bar_y1 - LSIM_TEXT_CAP * s, buf, s, LSIM_ALIGN_LEFT, black);
    } else {
        lsim_canvas_text(c, V->bar_x1 + V->pad, (V->bar_y0 + V->bar_y1) / 2, "n/a", s, LSIM_ALIGN_LEFT, black);
    }
    lsim_canvas_text_vertical(c, V->bar_x0 - V->pad - LSIM_TEXT_CAP * s, (V->bar_y0 + V->bar_y1) / 2,
                              colour == LSIM_CALIB_VIEW_MEAN_WITH_DROPS ? "mean intensity (drops as 0)"
                                                                        : "mean intensity",
                              s, black);
}

static void draw_board(lsim_canvas *c, const lsim_calib_material *m, const view_layout *V, double distance,
                       const lsim_stroke *st)
{
    const double nx = cos(m->normal_angle_rad), ny = sin(m->normal_angle_rad);
    const double off = isfinite(m->board_offset_m) ? m->board_offset_m : 0.0;
    const double t0 = off - V->half_width, t1 = off + V->half_width; /* along the board, (-ny, nx) */
    double c0, r0, c1, r1;
    to_pixel(V, distance * nx - t0 * ny, distance * ny + t0 * nx, &c0, &r0);
    to_pixel(V, distance * nx - t1 * ny, distance * ny + t1 * nx, &c1, &r1);
    lsim_canvas_line(c, c0, r0, c1, r1, st);
}

static void draw_scale_bar(lsim_canvas *c, const view_layout *V)
{
    const int s = V->scale;
    const double metres = round_length((V->scene_x1 - V->scene_x0) / V->k / 5.0);
    const int len = (int)floor(metres * V->k + 0.5);
    const int x0 = V->scene_x0 + V->pad, y = V->scene_y1 - V->pad;
    lsim_canvas_fill_rect(c, x0, y - s, x0 + len, y + 1, black);
    lsim_canvas_fill_rect(c, x0, y - 3 * s, x0 + s, y + 1, black);
    lsim_canvas_fill_rect(c, x0 + len - s, y - 3 * s, x0 + len, y + 1, black);
    char buf[32];
    if (metres >= 1.0)
        snprintf(buf, sizeof buf, "%g m", metres);
    else
        snprintf(buf, sizeof buf, "%g mm", metres * 1000.0);
    lsim_canvas_text(c, x0 + len + V->pad, y - LSIM_TEXT_CAP * s + 1, buf, s, LSIM_ALIGN_LEFT, black);
}

lsim_status lsim_calib_view_render(lsim_context *ctx, const lsim_calib_material *m, lsim_calib_view_colour colour,
                                   lsim_canvas *canvas)
{
    lsim_status st = check_material(ctx, m);
    if (st != LSIM_OK)
        return st;
    if (!canvas || canvas->width < LSIM_CALIB_VIEW_MIN_PIXELS || canvas->height < LSIM_CALIB_VIEW_MIN_PIXELS)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "calibration view: the canvas must be at least %d x %d pixels", LSIM_CALIB_VIEW_MIN_PIXELS,
                         LSIM_CALIB_VIEW_MIN_PIXELS);
    if (colour != LSIM_CALIB_VIEW_MEAN && colour != LSIM_CALIB_VIEW_MEAN_WITH_DROPS)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "calibration view: unknown colouring %d", (int)colour);
    view_layout V;
    compute_layout(m, canvas->width, canvas->height, &V);
    const int s = V.scale;
    static const unsigned char white[3] = {255, 255, 255};
    lsim_canvas_clip_reset(canvas);
    lsim_canvas_fill_rect(canvas, 0, 0, canvas->width, canvas->height, white);

    double lo, hi;
    const int have = value_range(m, colour, &lo, &hi);
    draw_title(canvas, m, &V, colour);
    draw_colour_bar(canvas, &V, have, lo, hi, colour);

    lsim_canvas_clip(canvas, V.scene_x0, V.scene_y0, V.scene_x1, V.scene_y1);
    const double nx = cos(m->normal_angle_rad), ny = sin(m->normal_angle_rad);
    double sc, sr, fc, fr;
    to_pixel(&V, 0.0, 0.0, &sc, &sr);

    /* configured board position (dashed outline) and the normal */
    if (m->configured_distance_m > 0.0 && isfinite(m->configured_distance_m)) {
        lsim_stroke ghost = {{light_grey[0], light_grey[1], light_grey[2]}, 4 * s + 2, 6 * s, 4 * s, 1.0};
        draw_board(canvas, m, &V, m->configured_distance_m, &ghost);
    }
    to_pixel(&V, m->fitted_distance_m * nx, m->fitted_distance_m * ny, &fc, &fr);
    lsim_stroke normal = {{mid_grey[0], mid_grey[1], mid_grey[2]}, s, 4 * s, 4 * s, 1.0};
    lsim_canvas_line(canvas, sc, sr, fc, fr, &normal);

    /* beams: the faint ones (no return, drop rate > 50 %) first, so the clear ones end on top */
    size_t drawn = 0;
    for (int pass = 0; pass < 2; ++pass)
        for (size_t i = 0; i < m->bin_count; ++i) {
            const lsim_calib_bin *b = &m->bins[i];
            if (!usable_angle(b->angle_deg))
                continue;
            const double drop = isfinite(b->drop_rate) ? fmin(fmax(b->drop_rate, 0.0), 1.0) : 0.0;
            const double v = shown_value(b, colour);
            const int faint = !isfinite(v) || drop > 0.5;
            if (faint != (pass == 0))
                continue;
            lsim_stroke beam = {{0, 0, 0}, s + 1, 0, 0, 1.0 - 0.8 * drop};
            if (!isfinite(v)) {
                memcpy(beam.rgb, mid_grey, 3);
                beam.alpha = 0.6;
            } else {
                lsim_colormap_viridis(hi > lo ? (v - lo) / (hi - lo) : 0.5, beam.rgb);
            }
            if (faint) {
                beam.dash_on = 5 * s;
                beam.dash_off = 4 * s;
            }
            const double th = fabs(b->angle_deg) * DEG;
            /* Beams at this incidence hit the board on the side(s) its extent covers (both sides
               when it is centred on the foot of the normal); where neither does (an edge bin
               padded by rounding), both are drawn. */
            const double along = m->fitted_distance_m * tan(th);
            const double off = isfinite(m->board_offset_m) ? m->board_offset_m : 0.0;
            const double slack = 0.05 * V.half_width;
            int on_side[2];
            for (int k = 0; k < 2; ++k) {
                const double t = (k ? 1.0 : -1.0) * along;
                on_side[k] = t >= off - V.half_width - slack && t <= off + V.half_width + slack;
            }
            if (!on_side[0] && !on_side[1])
                on_side[0] = on_side[1] = 1;
            for (int sd = -1; sd <= 1; sd += 2) {
                if (sd == 1 && th < 1e-9)
                    break; /* one beam at normal incidence */
                if (!on_side[sd > 0])
                    continue;
                double x, y, hc, hr;
                hit_point(m, th, sd, &x, &y);
                to_pixel(&V, x, y, &hc, &hr);
                lsim_canvas_line(canvas, sc, sr, hc, hr, &beam);
            }
            ++drawn;
        }

    /* the fitted board, then the sensor */
    lsim_stroke board = {{board_rgb[0], board_rgb[1], board_rgb[2]}, 4 * s + 2, 0, 0, 1.0};
    draw_board(canvas, m, &V, m->fitted_distance_m, &board);
    lsim_canvas_marker(canvas, sc, sr, LSIM_MARKER_CIRCLE, 6 * s + 4, black);
    lsim_canvas_text(canvas, (int)sc + 4 * s + 2, (int)sr + 2 * s, "sensor", s, LSIM_ALIGN_LEFT, black);

    /* angle labels at the outermost and innermost beams on the + side */
    size_t imin = (size_t)-1, imax = (size_t)-1;
    for (size_t i = 0; i < m->bin_count; ++i) {
        if (!usable_angle(m->bins[i].angle_deg))
            continue;
        if (imin == (size_t)-1 || fabs(m->bins[i].angle_deg) < fabs(m->bins[imin].angle_deg))
            imin = i;
        if (imax == (size_t)-1 || fabs(m->bins[i].angle_deg) > fabs(m->bins[imax].angle_deg))
            imax = i;
    }
    for (int k = 0; k < 2 && imax != (size_t)-1; ++k) {
        const size_t i = k ? imin : imax;
        if (k && imin == imax)
            break;
        double x, y, hc, hr;
        const double th = fabs(m->bins[i].angle_deg) * DEG;
        hit_point(m, th, 1, &x, &y);
        /* a little beyond the board, along the beam */
        const double r = hypot(x, y), ex = x / r, ey = y / r;
        to_pixel(&V, x + ex * 18.0 * s / V.k, y + ey * 18.0 * s / V.k, &hc, &hr);
        char buf[32];
        snprintf(buf, sizeof buf, "%.3g\xC2\xB0", fabs(m->bins[i].angle_deg));
        /* kept inside the scene */
        const int tw = lsim_canvas_text_width(buf, s), th_px = LSIM_TEXT_LINE * s;
        const double lx = fmin(fmax(hc, V.scene_x0 + tw / 2.0 + 1.0), V.scene_x1 - tw / 2.0 - 1.0);
        const double ly = fmin(fmax(hr - th_px / 2.0, V.scene_y0 + 1.0), V.scene_y1 - th_px - 1.0);
        lsim_canvas_text(canvas, (int)lx, (int)ly, buf, s, LSIM_ALIGN_CENTER, dark_grey);
    }
    if (drawn == 0)
        lsim_canvas_text(canvas, (V.scene_x0 + V.scene_x1) / 2, (V.scene_y0 + V.scene_y1) / 2, "no bins", s,
                         LSIM_ALIGN_CENTER, dark_grey);
    draw_scale_bar(canvas, &V);
    lsim_canvas_clip_reset(canvas);

    /* footer: what the styles mean, and the bins */
    char line[256];
    const char *legend = "faded: drop rate; dashed: drop rate > 50%; grey dashed: no return";
    lsim_canvas_text(canvas, canvas->width / 2, V.footer_y, legend,
                     lsim_canvas_text_fit(legend, s, canvas->width - 2 * V.pad), LSIM_ALIGN_CENTER, dark_grey);
    if (imax != (size_t)-1)
        snprintf(line, sizeof line, "%zu bins of %.3g\xC2\xB0, incidence %.3g\xC2\xB0 to %.3g\xC2\xB0; %zu revolutions",
                 m->bin_count, m->bin_width_deg, fabs(m->bins[imin].angle_deg), fabs(m->bins[imax].angle_deg),
                 m->revolutions);
    else
        snprintf(line, sizeof line, "no bins");
    lsim_canvas_text(canvas, canvas->width / 2, V.footer_y + V.text_h, line,
                     lsim_canvas_text_fit(line, s, canvas->width - 2 * V.pad), LSIM_ALIGN_CENTER, dark_grey);
    return LSIM_OK;
}

lsim_status lsim_calib_view_png_colour(lsim_context *ctx, const lsim_calib_material *m, const char *path,
                                       int pixels, lsim_calib_view_colour colour)
{
    lsim_status st = check_material(ctx, m);
    if (st != LSIM_OK)
        return st;
    if (!path || !*path)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "calibration view: empty output path");
    if (pixels < LSIM_CALIB_VIEW_MIN_PIXELS || pixels > LSIM_CALIB_VIEW_MAX_PIXELS)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "calibration view: size %d pixels is out of range; use %d..%d", pixels,
                         LSIM_CALIB_VIEW_MIN_PIXELS, LSIM_CALIB_VIEW_MAX_PIXELS);
    lsim_canvas *canvas;
    st = lsim_canvas_create(ctx, pixels, pixels, NULL, &canvas);
    if (st != LSIM_OK)
        return st;
    st = lsim_calib_view_render(ctx, m, colour, canvas);
    if (st == LSIM_OK)
        st = lsim_canvas_write_png(ctx, canvas, path);
    lsim_canvas_destroy(canvas);
    return st;
}

lsim_status lsim_calib_view_png(lsim_context *ctx, const lsim_calib_material *m, const char *path, int pixels)
{
    return lsim_calib_view_png_colour(ctx, m, path, pixels, LSIM_CALIB_VIEW_MEAN);
}

lsim_status lsim_calib_view_write(lsim_context *ctx, const char *path, const lsim_calib_material *m)
{
    return lsim_calib_view_png_colour(ctx, m, path, 900, LSIM_CALIB_VIEW_MEAN_WITH_DROPS);
}
