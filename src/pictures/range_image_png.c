/* lsim_points_write_range_image: the points seen from the sensor, as cells over azimuth
 * (right to left: +azimuth is left, as seen from behind the sensor) and elevation (up),
 * `pixels_per_degree` cells a degree, each point lighting its cell coloured by range (viridis, near
 * = dark, far = bright, linear between the nearest and farthest point); where several points fall
 * on one cell the nearest wins. The cells span the points' own azimuth and elevation extent. Misses
 * are skipped. The cells fill the plot of a figure (pictures/raster_figure.h), each a square of whole
 * pixels, scaled up until the plot is at least 400 x 200 pixels (a pattern sensor's few degrees
 * stay readable), with azimuth and elevation axes in degrees, the range colour bar and a title. */
#include "core/context.h"
#include "pictures/colormap.h"
#include "pictures/raster_figure.h"
#include "points/points.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIDE LSIM_RASTER_MAX_PLOT
#define MIN_PLOT_WIDTH 400 /* pixels: small images are scaled up to these */
#define MIN_PLOT_HEIGHT 200

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
    /* cells 0..w-1: the points' x = (az_hi - az) * ppd rounded, so w - 1 is the span's rounded (a
     * truncated w lost the points of the last half cell) */
    double w = floor((az_hi - az_lo) * pixels_per_degree + 0.5) + 1.0;
    double h = floor((el_hi - el_lo) * pixels_per_degree + 0.5) + 1.0;
    if (w > MAX_SIDE || h > MAX_SIDE)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "range image '%s': %.0f x %.0f pixels exceeds %d; use fewer pixels per degree", path, w, h,
                         MAX_SIDE);
    img.width = (uint32_t)w;
    img.height = (uint32_t)h;
    img.range = calloc((size_t)img.width * img.height, sizeof *img.range);
    if (!img.range)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for the range image '%s'", path);
    size_t in_view = 0;
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
        ++in_view;
    }
    /* cell x is centred on azimuth az_hi - x / ppd: its edges half a cell either side */
    const double half = 0.5 / pixels_per_degree;
    char title[160];
    snprintf(title, sizeof title, "range image, %g px/deg, coloured by range (%zu of %zu points in view)",
             pixels_per_degree, in_view, points->count);
    const double r_lo = img.hi >= img.lo ? img.lo : 0.0, r_hi = img.hi > img.lo ? img.hi : r_lo + 1.0;
    const lsim_raster_figure f = {
        .cols = img.width, .rows = img.height, .row_rgb = fill_row, .user = &img,
        .min_width = MIN_PLOT_WIDTH, .min_height = MIN_PLOT_HEIGHT,
        .x_axis = {az_hi + half, az_hi - (img.width - 0.5) / pixels_per_degree, 0, 0.0},
        .y_axis = {el_hi + half, el_hi - (img.height - 0.5) / pixels_per_degree, 0, 0.0},
        .x_label = "azimuth (deg), left positive", .y_label = "elevation (deg)",
        .bar_lo = r_lo, .bar_hi = r_hi, .bar_log = 0, .bar_t0 = 0.15, .bar_caption = "range (m)", .title = title};
    lsim_status st = lsim_raster_figure_write(ctx, &f, path, NULL);
    free(img.range);
    return st;
}
