#include "io/png_rgb.h"

#include "core/context.h"
#include "core/text.h"

#include <png.h>
#include <setjmp.h>
#include <stdlib.h>

/* libpng reports errors by calling this and never returning; we keep its message and longjmp. */
typedef struct png_error_state {
    char message[256];
} png_error_state;

static void on_png_error(png_structp png, png_const_charp message)
{
    png_error_state *state = png_get_error_ptr(png);
    lsim_strlcpy(state->message, message ? message : "unknown libpng error", sizeof state->message);
    png_longjmp(png, 1);
}

static void on_png_warning(png_structp png, png_const_charp message)
{
    (void)png;
    (void)message;
}

/* Everything that may longjmp, outside the function that calls setjmp (no clobbered locals there). */
static void encode(png_structp png, png_infop info, FILE *fp, uint32_t width, uint32_t height,
                   lsim_png_row_fn row_fn, void *user, unsigned char *row)
{
    png_init_io(png, fp);
    png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (uint32_t y = 0; y < height; ++y) {
        row_fn(user, y, row);
        png_write_row(png, row);
    }
    png_write_end(png, info);
}

lsim_status lsim_png_write_rgb8(lsim_context *ctx, FILE *fp, const char *path, uint32_t width, uint32_t height,
                                lsim_png_row_fn row_fn, void *user)
{
    png_error_state state = {""};
    unsigned char *row = malloc((size_t)width * 3);
    if (!row)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory writing '%s'", path);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &state, on_png_error, on_png_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        png_destroy_write_struct(png ? &png : NULL, NULL);
        free(row);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory starting the PNG encoder for '%s'", path);
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(row);
        return lsim_fail(ctx, LSIM_ERR_IO, "cannot write PNG '%s': %s (libpng); check free disk space and retry; "
                         "no output was written", path, state.message);
    }
    encode(png, info, fp, width, height, row_fn, user, row);
    png_destroy_write_struct(&png, &info);
    free(row);
    return LSIM_OK;
}
