/* A drawing canvas over a cairo image surface (CAIRO_FORMAT_RGB24): antialiased lines, rectangles,
 * markers and text in a real font (cairo's toy text API: "sans-serif" through fontconfig, e.g.
 * DejaVu Sans on Debian). Used by the plots (pictures/plot_png.h), the point views (pictures/view_png.h) and
 * the calibration viewer (calib/calib_view.c). Coordinates are pixels, (0, 0) the top-left corner
 * of the top-left pixel; a point given as "pixel-centre coordinates" (x, y) is drawn at
 * (x + 0.5, y + 0.5), so lines of odd thickness along rows and columns cover whole pixels.
 * Text sizes are "scales": scale s gives capitals about 7 s pixels tall on an 8 s pixel line.
 */
#ifndef LSIM_PICTURES_CANVAS_H
#define LSIM_PICTURES_CANVAS_H

#include "lidarsim.h"

#include <cairo.h>
#include <stddef.h>
#include <stdint.h>

#define LSIM_CANVAS_MAX_SIDE 16384

typedef struct lsim_canvas {
    int width, height;
    cairo_surface_t *surface;     /* RGB24 image, row 0 at the top */
    cairo_t *cr;                  /* its drawing context (clip applied); for drawing beyond this API */
    int clip_x0, clip_y0;         /* drawing is limited to [clip_x0, clip_x1) x [clip_y0, clip_y1) */
    int clip_x1, clip_y1;
    int out_of_memory;            /* a text could not be drawn: lsim_canvas_write_png refuses the picture */
} lsim_canvas;

typedef enum lsim_marker {
    LSIM_MARKER_NONE = 0,
    LSIM_MARKER_CIRCLE = 1,       /* filled disc */
    LSIM_MARKER_SQUARE = 2,       /* filled square */
    LSIM_MARKER_CROSS = 3,        /* diagonal cross (x) */
    LSIM_MARKER_PLUS = 4,         /* upright cross (+) */
    LSIM_MARKER_RING = 5          /* circle outline */
} lsim_marker;

/* How a line is drawn. Zero dash lengths give a solid line; alpha 1 is opaque (values are
 * clamped to [0, 1]; a translucent line is blended once per pixel it covers). */
typedef struct lsim_stroke {
    unsigned char rgb[3];
    int thickness;                /* pixels across the line, >= 1 (0 is taken as 1) */
    int dash_on, dash_off;        /* pixels along the major axis: drawn, then skipped */
    double alpha;
} lsim_stroke;

/* Text alignment relative to the anchor point given to lsim_canvas_text. */
typedef enum lsim_align {
    LSIM_ALIGN_LEFT = 0,          /* anchor x is the left edge */
    LSIM_ALIGN_CENTER = 1,
    LSIM_ALIGN_RIGHT = 2
} lsim_align;

/* A width x height canvas (1..LSIM_CANVAS_MAX_SIDE each) filled with `background` (NULL: white),
 * clip rectangle = the whole canvas. LSIM_ERR_INVALID_ARGUMENT, LSIM_ERR_OUT_OF_MEMORY. */
lsim_status lsim_canvas_create(lsim_context *ctx, int width, int height, const unsigned char background[3],
                               lsim_canvas **out);
void lsim_canvas_destroy(lsim_canvas *canvas);

/* Limit drawing to [x0, x1) x [y0, y1) (intersected with the canvas); lsim_canvas_clip_reset undoes it. */
void lsim_canvas_clip(lsim_canvas *canvas, int x0, int y0, int x1, int y1);
void lsim_canvas_clip_reset(lsim_canvas *canvas);

/* Pixel access; outside the clip rectangle set/blend do nothing and get returns 0 (and rgb untouched). */
void lsim_canvas_set(lsim_canvas *canvas, int x, int y, const unsigned char rgb[3]);
void lsim_canvas_blend(lsim_canvas *canvas, int x, int y, const unsigned char rgb[3], double alpha);
int lsim_canvas_get(const lsim_canvas *canvas, int x, int y, unsigned char rgb[3]);

/* Filled rectangle [x0, x1) x [y0, y1); outline: a 1-pixel-thick frame of that rectangle. */
void lsim_canvas_fill_rect(lsim_canvas *canvas, int x0, int y0, int x1, int y1, const unsigned char rgb[3]);
void lsim_canvas_rect(lsim_canvas *canvas, int x0, int y0, int x1, int y1, const unsigned char rgb[3]);

/* Line between pixel-centre coordinates (rounded); ends far outside the canvas are clipped
 * first, so any finite coordinates are fine; non-finite ones draw nothing. */
void lsim_canvas_line(lsim_canvas *canvas, double x0, double y0, double x1, double y1, const lsim_stroke *stroke);

/* Marker of `size` pixels across centred on (x, y) (non-finite: nothing). */
void lsim_canvas_marker(lsim_canvas *canvas, double x, double y, lsim_marker marker, int size,
                        const unsigned char rgb[3]);

/* Text in cairo's "sans-serif" (antialiased) at `scale` (>= 1; capitals about 7 * scale pixels
 * tall); `y` is the top of the capitals. UTF-8 (degree sign, Greek letters, ...); malformed bytes
 * are drawn as '?'. Vertical text reads bottom to top (rotated 90 degrees anticlockwise); its
 * anchor (x, y) is the left edge and the vertical centre of the text. */
void lsim_canvas_text(lsim_canvas *canvas, int x, int y, const char *text, int scale, lsim_align align,
                      const unsigned char rgb[3]);
void lsim_canvas_text_vertical(lsim_canvas *canvas, int x, int y_center, const char *text, int scale,
                               const unsigned char rgb[3]);
int lsim_canvas_text_width(const char *text, int scale);   /* pixels the text advances */
/* The largest scale <= `scale` (and >= 1) at which text fits in max_width pixels (1 if none does). */
int lsim_canvas_text_fit(const char *text, int scale, int max_width);
int lsim_canvas_text_height(int scale);                    /* capital height: 7 * scale */
#define LSIM_TEXT_LINE 10                                  /* line height per unit of scale (descenders in) */
#define LSIM_TEXT_CAP 7                                    /* capital height per unit of scale */

/* Encode the canvas as an RGB8 PNG (cairo's PNG writer), atomically (temporary file + rename; nothing is left on failure). */
lsim_status lsim_canvas_write_png(lsim_context *ctx, const lsim_canvas *canvas, const char *path);

#endif
