/* PNG encoding (libpng) of an RGB8 image supplied row by row. */
#ifndef LSIM_IO_PNG_RGB_H
#define LSIM_IO_PNG_RGB_H

#include "lidarsim.h"

#include <stdint.h>
#include <stdio.h>

/* Fill `rgb` (3 * width bytes) with row `y` (0 = top) of the image. */
typedef void (*lsim_png_row_fn)(void *user, uint32_t y, unsigned char *rgb);

/* Encode a width x height RGB8 PNG to fp (normally from lsim_atomic_open); `path` is for messages.
 * LSIM_ERR_IO with libpng's message, or LSIM_ERR_OUT_OF_MEMORY. */
lsim_status lsim_png_write_rgb8(lsim_context *ctx, FILE *fp, const char *path, uint32_t width, uint32_t height,
                                lsim_png_row_fn row_fn, void *user);

#endif
