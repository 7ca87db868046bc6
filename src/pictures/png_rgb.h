/* PNG encoding through cairo (cairo_surface_write_to_png_stream) into lidarsim's atomic writer.
 * Every PNG lidarsim writes goes through here: pixel images (bird's-eye, range image) supplied
 * row by row, and cairo surfaces drawn by the canvas (pictures/canvas.h). */
#ifndef LSIM_PICTURES_PNG_RGB_H
#define LSIM_PICTURES_PNG_RGB_H

#include "lidarsim.h"

#include <cairo.h>
#include <stdint.h>
#include <stdio.h>

/* Fill `rgb` (3 * width bytes) with row `y` (0 = top) of the image. */
typedef void (*lsim_png_row_fn)(void *user, uint32_t y, unsigned char *rgb);

/* Encode a cairo image surface (CAIRO_FORMAT_RGB24: an 8-bit RGB PNG) to fp (normally from
 * lsim_atomic_open); `path` is for messages. LSIM_ERR_IO naming the path and cairo's message. */
lsim_status lsim_png_write_surface(lsim_context *ctx, FILE *fp, const char *path, cairo_surface_t *surface);

/* The surface as a PNG at `path`, atomically (temporary file + rename; nothing left on failure). */
lsim_status lsim_png_save_surface(lsim_context *ctx, cairo_surface_t *surface, const char *path);

/* Encode a width x height RGB8 PNG to fp, rows from row_fn (through an RGB24 cairo surface).
 * LSIM_ERR_IO, or LSIM_ERR_OUT_OF_MEMORY when the surface cannot be made. */
lsim_status lsim_png_write_rgb8(lsim_context *ctx, FILE *fp, const char *path, uint32_t width, uint32_t height,
                                lsim_png_row_fn row_fn, void *user);

#endif
