/* The canvas (pictures/canvas.h) over a cairo RGB24 image surface: cairo draws, antialiased; text in
 * cairo's toy font API ("sans-serif" through fontconfig). */
#include "pictures/canvas.h"

#include "core/context.h"
#include "pictures/png_rgb.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FONT_FAMILY "sans-serif"
#define LSIM_CANVAS_PI 3.14159265358979323846
#define EM_PER_SCALE 9.6 /* font size per unit of scale: capitals of DejaVu Sans (0.73 em) ~ 7 px */

static void set_rgb(cairo_t *cr, const unsigned char rgb[3], double alpha)
{
    cairo_set_source_rgba(cr, rgb[0] / 255.0, rgb[1] / 255.0, rgb[2] / 255.0, alpha);
}

lsim_status lsim_canvas_create(lsim_context *ctx, int width, int height, const unsigned char background[3],
                               lsim_canvas **out)
{
    if (!out)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "canvas: no output pointer given");
    *out = NULL;
    if (width < 1 || height < 1 || width > LSIM_CANVAS_MAX_SIDE || height > LSIM_CANVAS_MAX_SIDE)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "canvas: size %d x %d is out of range; width and height must be 1..%d pixels", width,
                         height, LSIM_CANVAS_MAX_SIDE);
    lsim_canvas *c = calloc(1, sizeof *c);
    cairo_surface_t *s = c ? cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height) : NULL;
    cairo_t *cr = s ? cairo_create(s) : NULL;
    if (!c || cairo_surface_status(s) != CAIRO_STATUS_SUCCESS || cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
        if (cr)
            cairo_destroy(cr);
        if (s)
            cairo_surface_destroy(s);
        free(c);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for a %d x %d image; use fewer pixels", width,
                         height);
    }
    static const unsigned char white[3] = {255, 255, 255};
    set_rgb(cr, background ? background : white, 1.0);
    cairo_paint(cr);
    cairo_font_options_t *fo = cairo_font_options_create();
    cairo_font_options_set_antialias(fo, CAIRO_ANTIALIAS_GRAY);
    cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
    cairo_set_font_options(cr, fo);
    cairo_font_options_destroy(fo);
    cairo_select_font_face(cr, FONT_FAMILY, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    c->width = width;
    c->height = height;
    c->surface = s;
    c->cr = cr;
    lsim_canvas_clip_reset(c);
    *out = c;
    return LSIM_OK;
}

void lsim_canvas_destroy(lsim_canvas *canvas)
{
    if (!canvas)
        return;
    cairo_destroy(canvas->cr);
    cairo_surface_destroy(canvas->surface);
    free(canvas);
}

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

static void apply_clip(lsim_canvas *c)
{
    cairo_reset_clip(c->cr);
    cairo_rectangle(c->cr, c->clip_x0, c->clip_y0, c->clip_x1 - c->clip_x0, c->clip_y1 - c->clip_y0);
    cairo_clip(c->cr);
}

void lsim_canvas_clip(lsim_canvas *canvas, int x0, int y0, int x1, int y1)
{
    canvas->clip_x0 = clampi(x0, 0, canvas->width);
    canvas->clip_y0 = clampi(y0, 0, canvas->height);
    canvas->clip_x1 = clampi(x1, canvas->clip_x0, canvas->width);
    canvas->clip_y1 = clampi(y1, canvas->clip_y0, canvas->height);
    apply_clip(canvas);
}

void lsim_canvas_clip_reset(lsim_canvas *canvas)
{
    canvas->clip_x0 = canvas->clip_y0 = 0;
    canvas->clip_x1 = canvas->width;
    canvas->clip_y1 = canvas->height;
    apply_clip(canvas);
}

static int inside_clip(const lsim_canvas *c, int x, int y)
{
    return x >= c->clip_x0 && x < c->clip_x1 && y >= c->clip_y0 && y < c->clip_y1;
}

static uint32_t *pixel(const lsim_canvas *c, int x, int y)
{
    unsigned char *data = cairo_image_surface_get_data(c->surface);
    const size_t stride = (size_t)cairo_image_surface_get_stride(c->surface);
    return (uint32_t *)(void *)(data + (size_t)y * stride) + x;
}

void lsim_canvas_set(lsim_canvas *canvas, int x, int y, const unsigned char rgb[3])
{
    lsim_canvas_blend(canvas, x, y, rgb, 1.0);
}

void lsim_canvas_blend(lsim_canvas *canvas, int x, int y, const unsigned char rgb[3], double alpha)
{
    if (!inside_clip(canvas, x, y) || !(alpha > 0.0))
        return;
    if (alpha > 1.0)
        alpha = 1.0;
    cairo_surface_flush(canvas->surface);
    uint32_t *p = pixel(canvas, x, y), v = 0;
    for (int k = 0; k < 3; ++k) {
        const double old = (double)((*p >> (16 - 8 * k)) & 255u);
        v |= (uint32_t)(old + ((double)rgb[k] - old) * alpha + 0.5) << (16 - 8 * k);
    }
    *p = v;
    cairo_surface_mark_dirty_rectangle(canvas->surface, x, y, 1, 1);
}

int lsim_canvas_get(const lsim_canvas *canvas, int x, int y, unsigned char rgb[3])
{
    if (!canvas || x < 0 || y < 0 || x >= canvas->width || y >= canvas->height)
        return 0;
    cairo_surface_flush(canvas->surface);
    const uint32_t v = *pixel(canvas, x, y);
    rgb[0] = (unsigned char)(v >> 16);
    rgb[1] = (unsigned char)(v >> 8);
    rgb[2] = (unsigned char)v;
    return 1;
}

void lsim_canvas_fill_rect(lsim_canvas *canvas, int x0, int y0, int x1, int y1, const unsigned char rgb[3])
{
    if (x1 <= x0 || y1 <= y0)
        return;
    x0 = clampi(x0, -1, canvas->width + 1);
    x1 = clampi(x1, -1, canvas->width + 1);
    y0 = clampi(y0, -1, canvas->height + 1);
    y1 = clampi(y1, -1, canvas->height + 1);
    set_rgb(canvas->cr, rgb, 1.0);
    cairo_rectangle(canvas->cr, x0, y0, x1 - x0, y1 - y0);
    cairo_fill(canvas->cr);
}

void lsim_canvas_rect(lsim_canvas *canvas, int x0, int y0, int x1, int y1, const unsigned char rgb[3])
{
    if (x1 <= x0 || y1 <= y0)
        return;
    lsim_canvas_fill_rect(canvas, x0, y0, x1, y0 + 1, rgb);
    lsim_canvas_fill_rect(canvas, x0, y1 - 1, x1, y1, rgb);
    lsim_canvas_fill_rect(canvas, x0, y0, x0 + 1, y1, rgb);
    lsim_canvas_fill_rect(canvas, x1 - 1, y0, x1, y1, rgb);
}

/* Cohen-Sutherland: clip the segment to [xmin, xmax] x [ymin, ymax]; 0 when nothing is left.
 * A clipped end is put exactly on the boundary it crossed, so even ends at +-1e300 give exact
 * pixel coordinates for axis-parallel lines. */
static int outcode(double x, double y, double xmin, double ymin, double xmax, double ymax)
{
    return (x < xmin) | (x > xmax) << 1 | (y < ymin) << 2 | (y > ymax) << 3;
}

static int clip_segment(double *x0, double *y0, double *x1, double *y1, double xmin, double ymin, double xmax,
                        double ymax)
{
    int c0 = outcode(*x0, *y0, xmin, ymin, xmax, ymax), c1 = outcode(*x1, *y1, xmin, ymin, xmax, ymax);
    for (int iter = 0; iter < 8; ++iter) {
        if (!(c0 | c1))
            return 1;
        if (c0 & c1)
            return 0;
        const int out = c0 ? c0 : c1;
        const double dx = *x1 - *x0, dy = *y1 - *y0;
        double x, y;
        if (out & 1) {
            x = xmin;
            y = *y0 + dy * ((xmin - *x0) / dx);
        } else if (out & 2) {
            x = xmax;
            y = *y0 + dy * ((xmax - *x0) / dx);
        } else if (out & 4) {
            y = ymin;
            x = *x0 + dx * ((ymin - *y0) / dy);
        } else {
            y = ymax;
            x = *x0 + dx * ((ymax - *y0) / dy);
        }
        if (!isfinite(x) || !isfinite(y))
            return 0;
        if (out == c0) {
            *x0 = x;
            *y0 = y;
            c0 = outcode(x, y, xmin, ymin, xmax, ymax);
        } else {
            *x1 = x;
            *y1 = y;
            c1 = outcode(x, y, xmin, ymin, xmax, ymax);
        }
    }
    return !(c0 | c1);
}

/* A line between pixel centres. Lines start half a pixel before their start (so dashes along rows
 * and columns cover whole pixels) and solid lines end half a pixel past their end (covering both
 * end pixels, as a pixel-inclusive line would); the dash phase counts from the unclipped start. */
void lsim_canvas_line(lsim_canvas *canvas, double x0, double y0, double x1, double y1, const lsim_stroke *stroke)
{
    if (!canvas || !stroke || !isfinite(x0) || !isfinite(y0) || !isfinite(x1) || !isfinite(y1))
        return;
    const int thick = stroke->thickness > 0 ? (stroke->thickness < 64 ? stroke->thickness : 64) : 1;
    const double alpha = stroke->alpha > 1.0 ? 1.0 : stroke->alpha;
    if (!(alpha > 0.0) || canvas->clip_x1 <= canvas->clip_x0 || canvas->clip_y1 <= canvas->clip_y0)
        return;
    const double margin = thick + 2.0, sx = x0, sy = y0;
    if (!clip_segment(&x0, &y0, &x1, &y1, canvas->clip_x0 - margin, canvas->clip_y0 - margin,
                      canvas->clip_x1 + margin, canvas->clip_y1 + margin))
        return;
    const int dashed = stroke->dash_on > 0 && stroke->dash_off > 0;
    const double len = hypot(x1 - x0, y1 - y0);
    double ex = 0.0, ey = 0.0;
    if (len > 0.0) {
        ex = 0.5 * (x1 - x0) / len;
        ey = 0.5 * (y1 - y0) / len;
    }
    cairo_t *cr = canvas->cr;
    cairo_save(cr);
    set_rgb(cr, stroke->rgb, alpha);
    cairo_set_line_width(cr, thick);
    cairo_set_line_cap(cr, len > 0.0 ? CAIRO_LINE_CAP_BUTT : CAIRO_LINE_CAP_SQUARE);
    if (dashed) {
        const double d[2] = {stroke->dash_on, stroke->dash_off};
        cairo_set_dash(cr, d, 2, fmod(hypot(x0 - sx, y0 - sy), d[0] + d[1]));
    }
    cairo_move_to(cr, x0 + 0.5 - ex, y0 + 0.5 - ey);
    cairo_line_to(cr, x1 + 0.5 + (dashed ? 0.0 : ex), y1 + 0.5 + (dashed ? 0.0 : ey));
    cairo_stroke(cr);
    cairo_restore(cr);
}

void lsim_canvas_marker(lsim_canvas *canvas, double x, double y, lsim_marker marker, int size,
                        const unsigned char rgb[3])
{
    if (!canvas || !isfinite(x) || !isfinite(y) || marker == LSIM_MARKER_NONE)
        return;
    size = clampi(size, 3, 64);
    if (x < canvas->clip_x0 - size || x > canvas->clip_x1 + size || y < canvas->clip_y0 - size ||
        y > canvas->clip_y1 + size)
        return;
    cairo_t *cr = canvas->cr;
    const double cx = x + 0.5, cy = y + 0.5, r = 0.5 * size;
    const double line_w = size >= 14 ? 3.0 : size >= 10 ? 2.0 : 1.5;
    cairo_save(cr);
    set_rgb(cr, rgb, 1.0);
    cairo_set_line_width(cr, line_w);
    switch (marker) {
    case LSIM_MARKER_SQUARE:
        cairo_rectangle(cr, cx - r, cy - r, size, size);
        cairo_fill(cr);
        break;
    case LSIM_MARKER_CROSS:
    case LSIM_MARKER_PLUS: {
        const double a = marker == LSIM_MARKER_CROSS ? r * 0.8 : r;
        if (marker == LSIM_MARKER_CROSS) {
            cairo_move_to(cr, cx - a, cy - a);
            cairo_line_to(cr, cx + a, cy + a);
            cairo_move_to(cr, cx - a, cy + a);
            cairo_line_to(cr, cx + a, cy - a);
        } else {
            cairo_move_to(cr, cx - a, cy);
            cairo_line_to(cr, cx + a, cy);
            cairo_move_to(cr, cx, cy - a);
            cairo_line_to(cr, cx, cy + a);
        }
        cairo_stroke(cr);
        break;
    }
    case LSIM_MARKER_RING:
        cairo_arc(cr, cx, cy, r - 0.5 * line_w, 0.0, 2.0 * LSIM_CANVAS_PI);
        cairo_stroke(cr);
        break;
    case LSIM_MARKER_CIRCLE:
    default:
        cairo_arc(cr, cx, cy, r, 0.0, 2.0 * LSIM_CANVAS_PI);
        cairo_fill(cr);
        break;
    }
    cairo_restore(cr);
}

/* ------------------------------------------------------------------------------------- text */

/* A copy of s with each byte of a malformed UTF-8 sequence replaced by '?' (cairo refuses
 * malformed text and would stop drawing): in buf when it fits (labels, titles and tick values all
 * do, so drawing them allocates nothing), else in memory the caller frees (t != buf); NULL when out
 * of memory. */
static char *valid_utf8(const char *s, char *buf, size_t cap)
{
    const size_t n = strlen(s);
    char *out = n < cap ? buf : malloc(n + 1);
    if (!out)
        return NULL;
    size_t i = 0, o = 0;
    while (i < n) {
        const unsigned char c = (unsigned char)s[i];
        size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        int ok = len > 0 && i + len <= n && !(len == 2 && c < 0xC2) && !(c == 0xF4 && len == 4 &&
                 (unsigned char)s[i + 1] > 0x8F) && c < 0xF5;
        for (size_t k = 1; ok && k < len; ++k)
            ok = ((unsigned char)s[i + k] >> 6) == 2;
        if (ok && len == 3) { /* overlong or a surrogate */
            const unsigned char d = (unsigned char)s[i + 1];
            ok = !(c == 0xE0 && d < 0xA0) && !(c == 0xED && d > 0x9F);
        }
        if (ok && len == 4 && c == 0xF0 && (unsigned char)s[i + 1] < 0x90)
            ok = 0;
        if (!ok) {
            out[o++] = '?';
            ++i;
            continue;
        }
        memcpy(out + o, s + i, len);
        o += len;
        i += len;
    }
    out[o] = 0;
    return out;
}

#define TEXT_BUF 512 /* text up to this length is checked on the stack */

static double font_size(int scale) { return EM_PER_SCALE * (scale < 1 ? 1 : scale); }

/* Advance of `text` in cr's font at `scale`; -1 when out of memory. */
static double advance(cairo_t *cr, const char *text, int scale)
{
    char buf[TEXT_BUF];
    char *t = valid_utf8(text, buf, sizeof buf);
    if (!t)
        return -1.0;
    cairo_set_font_size(cr, font_size(scale));
    cairo_text_extents_t e;
    cairo_text_extents(cr, t, &e);
    if (t != buf)
        free(t);
    return e.x_advance;
}

int lsim_canvas_text_width(const char *text, int scale)
{
    if (!text || !*text)
        return 0;
    /* A scratch surface to measure on: text width does not depend on the canvas. */
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
    cairo_t *cr = cairo_create(s);
    cairo_font_options_t *fo = cairo_font_options_create();
    cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
    cairo_set_font_options(cr, fo);
    cairo_font_options_destroy(fo);
    cairo_select_font_face(cr, FONT_FAMILY, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    const double w = advance(cr, text, scale);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    return w < 0.0 ? 0 : w > 1e6 ? 1000000 : (int)ceil(w);
}

int lsim_canvas_text_fit(const char *text, int scale, int max_width)
{
    while (scale > 1 && lsim_canvas_text_width(text, scale) > max_width)
        --scale;
    return scale < 1 ? 1 : scale;
}

int lsim_canvas_text_height(int scale) { return LSIM_TEXT_CAP * (scale < 1 ? 1 : scale); }

static void draw_text(lsim_canvas *canvas, double x, double y, const char *text, int scale, lsim_align align,
                      int vertical, const unsigned char rgb[3])
{
    if (!canvas || !text || !*text)
        return;
    char buf[TEXT_BUF];
    char *t = valid_utf8(text, buf, sizeof buf);
    if (!t) {
        canvas->out_of_memory = 1; /* the picture would lack this text: write_png refuses it */
        return;
    }
    cairo_t *cr = canvas->cr;
    cairo_save(cr);
    cairo_set_font_size(cr, font_size(scale));
    cairo_text_extents_t e;
    cairo_text_extents(cr, t, &e);
    const double cap = LSIM_TEXT_CAP * (scale < 1 ? 1 : scale);
    set_rgb(cr, rgb, 1.0);
    if (vertical) {
        cairo_translate(cr, x + cap, y + 0.5 * e.x_advance);
        cairo_rotate(cr, -0.5 * LSIM_CANVAS_PI);
        cairo_move_to(cr, 0.0, 0.0);
    } else {
        const double dx = align == LSIM_ALIGN_CENTER ? 0.5 * e.x_advance : align == LSIM_ALIGN_RIGHT ? e.x_advance : 0;
        cairo_move_to(cr, x - dx, y + cap);
    }
    cairo_show_text(cr, t);
    cairo_restore(cr);
    if (t != buf)
        free(t);
}

void lsim_canvas_text(lsim_canvas *canvas, int x, int y, const char *text, int scale, lsim_align align,
                      const unsigned char rgb[3])
{
    draw_text(canvas, x, y, text, scale, align, 0, rgb);
}

void lsim_canvas_text_vertical(lsim_canvas *canvas, int x, int y_center, const char *text, int scale,
                               const unsigned char rgb[3])
{
    draw_text(canvas, x, y_center, text, scale, LSIM_ALIGN_LEFT, 1, rgb);
}

lsim_status lsim_canvas_write_png(lsim_context *ctx, const lsim_canvas *canvas, const char *path)
{
    if (!canvas || !canvas->surface)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "PNG: no image given");
    if (!path || !*path)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "PNG: empty output path");
    if (canvas->out_of_memory)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "PNG '%s': out of memory while drawing its text; free memory "
                         "and write it again", path);
    return lsim_png_save_surface(ctx, canvas->surface, path);
}
