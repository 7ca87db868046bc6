/* lsim_points_write_range_image: the points seen from the sensor, as a PNG over azimuth
 * (right to left: +azimuth is left, as seen from behind the sensor) and elevation (up), each
 * point one pixel coloured by range (viridis, near = dark, far = bright, linear between the
 * nearest and farthest point); where several points fall on one pixel the nearest wins. The
 * image spans the points' own azimuth and elevation extent. Misses are skipped. */
#include "core/context.h"
#include "io/atomic_file.h"
#include "io/colormap.h"
#include "io/png_rgb.h"
#include "points/points.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIDE 16384

typedef struct range_image {
    uint32_t width, height;
    float *range; /* width * height, 0 = empty */
    float lo, hi;
} range_image;

static void fill_row(void *user, uint32_t y, unsigned char *rgb)
{
    const range_image *img = user;
    const float *row = img->range + (size_t)y * img->width;
    for (uint32_t x = 0; x < img->width; ++x, rgb += 3) {
        if (!(row[x] > 0.0f)) {
            rgb[0] = rgb[1] = rgb[2] = 0;
            continue;
        }
        double t = img->hi > img->lo ? (row[x] - img->lo) / (img->hi - img->lo) : 1.0;
        lsim_colormap_viridis(0.15 + 0.85 * t, rgb);
    }
}

lsim_status lsim_points_write_range_image(const lsim_points *points, const char *path, double pixels_per_degree)
{
    if (!points)
        return LSIM_ERR_INVALID_ARGUMENT;
    lsim_context *ctx = points->ctx;
    if (!path || !*path)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "range image: the output path is empty: give a file name");
    if (!(pixels_per_degree >= 0.5 && pixels_per_degree <= 200.0))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "range image '%s': %g pixels per degree is out of range; use 0.5 to 200", path,
                         pixels_per_degree);
    char what[600];
    snprintf(what, sizeof what, "range image '%.500s'", path);
    lsim_status need = points->count ? lsim_points_require(points, LSIM_RANGE_IMAGE_FIELDS, what) : LSIM_OK;
    if (need != LSIM_OK)
        return need;
    const float *az = points->column[LSIM_FIELD_AZIMUTH], *el = points->column[LSIM_FIELD_ELEVATION];
    const float *r = points->column[LSIM_FIELD_RANGE];
    double az_lo = 1e9, az_hi = -1e9, el_lo = 1e9, el_hi = -1e9;
    range_image img = {0, 0, NULL, 1e30f, 0.0f};
    for (size_t i = 0; i < points->count; ++i) {
        if (!(r[i] > 0.0f) || !isfinite(az[i]) || !isfinite(el[i]))
            continue;
        az_lo = fmin(az_lo, az[i]);
        az_hi = fmax(az_hi, az[i]);
        el_lo = fmin(el_lo, el[i]);
        el_hi = fmax(el_hi, el[i]);
        img.lo = fminf(img.lo, r[i]);
        img.hi = fmaxf(img.hi, r[i]);
    }
    if (az_hi < az_lo) { /* no point: a small black image */
        az_lo = el_lo = 0.0;
        az_hi = el_hi = 1.0;
    }
    double w = (az_hi - az_lo) * pixels_per_degree + 1.0, h = (el_hi - el_lo) * pixels_per_degree + 1.0;
    if (w > MAX_SIDE || h > MAX_SIDE)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "range image '%s': %.0f x %.0f pixels exceeds %d; use fewer pixels per degree", path, w, h,
                         MAX_SIDE);
    img.width = (uint32_t)w;
    img.height = (uint32_t)h;
    img.range = calloc((size_t)img.width * img.height, sizeof *img.range);
    if (!img.range)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for the range image '%s'", path);
    for (size_t i = 0; i < points->count; ++i) {
        if (!(r[i] > 0.0f) || !isfinite(az[i]) || !isfinite(el[i]))
            continue;
        uint32_t x = (uint32_t)((az_hi - az[i]) * pixels_per_degree + 0.5); /* +azimuth (left) on the left */
        uint32_t y = (uint32_t)((el_hi - el[i]) * pixels_per_degree + 0.5);
        if (x >= img.width || y >= img.height)
            continue;
        float *p = &img.range[(size_t)y * img.width + x];
        if (*p == 0.0f || r[i] < *p)
            *p = r[i];
    }
    lsim_atomic_group group;
    lsim_atomic_begin(&group, ctx);
    FILE *fp;
    lsim_status st = lsim_atomic_open(&group, path, &fp);
    if (st == LSIM_OK)
        st = lsim_png_write_rgb8(ctx, fp, path, img.width, img.height, fill_row, &img);
    st = lsim_atomic_finish(&group, st);
    free(img.range);
    return st;
}
