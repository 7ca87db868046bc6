#include "pictures/png_rgb.h"

#include "core/context.h"
#include "output/atomic_file.h"

#include <stdlib.h>

static cairo_status_t write_chunk(void *closure, const unsigned char *data, unsigned int length)
{
    FILE *fp = closure;
    return fwrite(data, 1, length, fp) == length ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

lsim_status lsim_png_write_surface(lsim_context *ctx, FILE *fp, const char *path, cairo_surface_t *surface)
{
    cairo_status_t cs = cairo_surface_status(surface);
    if (cs == CAIRO_STATUS_SUCCESS) {
        cairo_surface_flush(surface);
        cs = cairo_surface_write_to_png_stream(surface, write_chunk, fp);
    }
    if (cs == CAIRO_STATUS_NO_MEMORY)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory encoding the PNG '%s'; use a smaller image", path);
    if (cs != CAIRO_STATUS_SUCCESS || ferror(fp))
        return lsim_fail(ctx, LSIM_ERR_IO, "cannot write PNG '%s': %s (cairo); check free disk space and retry; "
                         "no output was written", path, cairo_status_to_string(cs));
    return LSIM_OK;
}

lsim_status lsim_png_save_surface(lsim_context *ctx, cairo_surface_t *surface, const char *path)
{
    if (!path || !*path)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "PNG: the output path is empty: give a file name");
    lsim_atomic_group g;
    lsim_atomic_begin(&g, ctx);
    FILE *fp = NULL;
    lsim_status st = lsim_atomic_open(&g, path, &fp);
    if (st == LSIM_OK)
        st = lsim_png_write_surface(ctx, fp, path, surface);
    return lsim_atomic_finish(&g, st);
}

lsim_status lsim_png_write_rgb8(lsim_context *ctx, FILE *fp, const char *path, uint32_t width, uint32_t height,
                                lsim_png_row_fn row_fn, void *user)
{
    unsigned char *row = malloc((size_t)width * 3);
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)width, (int)height);
    if (!row || cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
        free(row);
        cairo_surface_destroy(s);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for the %u x %u PNG '%s'; use fewer pixels",
                         width, height, path);
    }
    unsigned char *data = cairo_image_surface_get_data(s);
    const int stride = cairo_image_surface_get_stride(s);
    for (uint32_t y = 0; y < height; ++y) {
        row_fn(user, y, row);
        uint32_t *px = (uint32_t *)(void *)(data + (size_t)y * (size_t)stride);
        for (uint32_t x = 0; x < width; ++x)
            px[x] = (uint32_t)row[3 * x] << 16 | (uint32_t)row[3 * x + 1] << 8 | row[3 * x + 2];
    }
    cairo_surface_mark_dirty(s);
    free(row);
    lsim_status st = lsim_png_write_surface(ctx, fp, path, s);
    cairo_surface_destroy(s);
    return st;
}
