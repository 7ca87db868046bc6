/* lsim_points_write_birdseye: a top-down figure of the points, coloured by intensity.
 *
 * The image covers x, y within +-half of the sensor (the points' viewpoint: the origin in the
 * sensor frame, the sensor's position in the world frame), axes of the points' frame: x forward is up,
 * y left is left. `pixels` x `pixels` cells on a black background; each point lights its cell,
 * coloured with viridis on a log scale of intensity between the 2nd and 98th percentile of the
 * positive, finite intensities (where several points land on one cell the brightest wins). Points
 * with non-finite x or y and points outside the extent are skipped. A small white cross marks the
 * sensor at the centre. The cells fill the plot of a figure (pictures/raster_figure.h), each a square of
 * whole pixels (scaled up until the plot is at least 400 pixels wide), with axes in metres, the
 * intensity colour bar and a title that counts the points in view.
 */
#include "core/context.h"
#include "pictures/colormap.h"
#include "pictures/raster_figure.h"
#include "points/points.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_PIXELS 16
#define MAX_PIXELS LSIM_RASTER_MAX_PLOT
#define MIN_PLOT 400 /* pixels: small images are scaled up to this */
#define LEVELS 255 /* colour levels; pixel value 0 means "no point" */

typedef struct birdseye_image {
    uint32_t pixels;
    unsigned char *level;            /* pixels * pixels, 0 = empty, 1..LEVELS = colour index + 1 */
    unsigned char lut[LEVELS][3];    /* colour of level 1..LEVELS */
    uint32_t cross_arm;              /* half length of the origin cross, pixels */
} birdseye_image;

static int compare_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* log(2nd and 98th percentile) of the positive finite intensities; both 0 when there are none. */
static lsim_status intensity_range(const lsim_points *points, const char *path, double *log_lo, double *log_hi)
{
    const float *in = points->column[LSIM_FIELD_INTENSITY];
    *log_lo = *log_hi = 0.0;
    size_t m = 0;
    for (size_t i = 0; i < points->count; ++i)
        m += (in[i] > 0.0f && isfinite(in[i]));
    if (m == 0)
        return LSIM_OK;
    float *v = malloc(m * sizeof *v);
    if (!v)
        return lsim_fail(points->ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory writing '%s'", path);
    m = 0;
    for (size_t i = 0; i < points->count; ++i)
        if (in[i] > 0.0f && isfinite(in[i]))
            v[m++] = in[i];
    qsort(v, m, sizeof *v, compare_float);
    *log_lo = log((double)v[(size_t)(0.02 * (double)(m - 1) + 0.5)]);
    *log_hi = log((double)v[(size_t)(0.98 * (double)(m - 1) + 0.5)]);
    free(v);
    return LSIM_OK;
}

/* Colour level (1..LEVELS) of an intensity. */
static unsigned char intensity_level(float intensity, double log_lo, double log_hi)
{
    double t;
    if (!(intensity > 0.0f))
        t = 0.0; /* zero, negative or NaN: bottom of the scale */
    else if (log_hi <= log_lo)
        t = 1.0; /* a single intensity value: show it bright */
    else
        t = (log((double)intensity) - log_lo) / (log_hi - log_lo);
    if (!(t > 0.0))
        t = 0.0;
    if (t > 1.0)
        t = 1.0;
    return (unsigned char)(1 + (int)(t * (LEVELS - 1) + 0.5));
}

/* Returns the points in view. */
static size_t rasterise(const lsim_points *points, birdseye_image *img, double half, double log_lo, double log_hi)
{
    size_t in_view = 0;
    const float *x = points->column[LSIM_FIELD_X], *y = points->column[LSIM_FIELD_Y];
    const float *in = points->column[LSIM_FIELD_INTENSITY];
    const double scale = img->pixels / (2.0 * half); /* pixels per metre */
    const double cx = points->viewpoint[0], cy = points->viewpoint[1];
    for (size_t i = 0; i < points->count; ++i) {
        if (!isfinite(x[i]) || !isfinite(y[i]))
            continue;
        double row = floor((half - ((double)x[i] - cx)) * scale); /* x forward = up */
        double col = floor((half - ((double)y[i] - cy)) * scale); /* y left = left */
        if (!(row >= 0.0 && row < img->pixels && col >= 0.0 && col < img->pixels))
            continue;
        unsigned char *p = &img->level[(size_t)row * img->pixels + (size_t)col];
        unsigned char level = intensity_level(in[i], log_lo, log_hi);
        if (level > *p)
            *p = level;
        ++in_view;
    }
    return in_view;
}

static void fill_row(void *user, uint32_t y, unsigned char *rgb)
{
    const birdseye_image *img = user;
    const uint32_t c = img->pixels / 2, arm = img->cross_arm;
    const unsigned char *level = img->level + (size_t)y * img->pixels;
    for (uint32_t x = 0; x < img->pixels; ++x, rgb += 3) {
        int on_cross = (y == c && x + arm >= c && x <= c + arm) || (x == c && y + arm >= c && y <= c + arm);
        if (on_cross)
            rgb[0] = rgb[1] = rgb[2] = 255;
        else if (level[x] == 0)
            rgb[0] = rgb[1] = rgb[2] = 0;
        else
            memcpy(rgb, img->lut[level[x] - 1], 3);
    }
}

lsim_status lsim_points_write_birdseye(const lsim_points *points, const char *path, int pixels,
                                       double half_extent_m)
{
    if (!points)
        return LSIM_ERR_INVALID_ARGUMENT; /* no context to report into */
    lsim_context *ctx = points->ctx;
    if (!path || !*path)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "bird's-eye image: the output path is empty: give a file name");
    if (pixels < MIN_PIXELS || pixels > MAX_PIXELS)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "bird's-eye image '%s': size %d pixels is out of range; use %d to %d", path, pixels,
                         MIN_PIXELS, MAX_PIXELS);
    if (!(half_extent_m > 0.0) || !isfinite(half_extent_m))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "bird's-eye image '%s': half extent %g m is invalid; give a finite distance > 0 "
                         "(metres from the sensor to the image edge)", path, half_extent_m);
    if (points->count > points->capacity)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "bird's-eye image '%s': corrupt point buffer", path);
    char what[600];
    snprintf(what, sizeof what, "bird's-eye image '%.500s'", path);
    lsim_status need = points->count ? lsim_points_require(points, LSIM_BIRDSEYE_FIELDS, what) : LSIM_OK;
    if (need != LSIM_OK)
        return need;

    birdseye_image *img = calloc(1, sizeof *img);
    if (img)
        img->level = calloc((size_t)pixels * (size_t)pixels, 1);
    if (!img || !img->level) {
        free(img);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY,
                         "out of memory for a %dx%d bird's-eye image '%s'; use fewer pixels", pixels, pixels, path);
    }
    img->pixels = (uint32_t)pixels;
    img->cross_arm = (uint32_t)(pixels / 100 > 3 ? pixels / 100 : 3);
    for (int k = 0; k < LEVELS; ++k)
        lsim_colormap_viridis((double)k / (LEVELS - 1), img->lut[k]);

    double log_lo, log_hi;
    lsim_status st = intensity_range(points, path, &log_lo, &log_hi);
    if (st == LSIM_OK) {
        const size_t in_view = rasterise(points, img, half_extent_m, log_lo, log_hi);
        const double cx = points->viewpoint[0], cy = points->viewpoint[1], h = half_extent_m;
        const int world = cx != 0.0 || cy != 0.0 || points->viewpoint[3] != 1.0;
        char title[160];
        snprintf(title, sizeof title, "bird's-eye view, \u00b1%g m, coloured by intensity (%zu of %zu points in "
                 "view)", h, in_view, points->count);
        /* the colour bar: the levels' log scale in log10 units (one value: the top, as its points) */
        double lo = log_lo / log(10.0), hi = log_hi / log(10.0);
        if (!(hi > lo)) {
            lo = hi - 1.0;
        }
        const lsim_raster_figure f = {
            .cols = img->pixels, .rows = img->pixels, .row_rgb = fill_row, .user = img,
            .min_width = MIN_PLOT, .min_height = MIN_PLOT,
            .x_axis = {cy + h, cy - h, 0, 0.0}, .y_axis = {cx + h, cx - h, 0, 0.0},
            .x_label = world ? "world y (m), left positive" : "y (m), left positive",
            .y_label = world ? "world x (m), up" : "x (m), forward",
            .bar_lo = lo, .bar_hi = hi, .bar_log = 1, .bar_t0 = 0.0,
            .bar_caption = "intensity (relative, log scale)", .title = title};
        st = lsim_raster_figure_write(ctx, &f, path, NULL);
    }
    free(img->level);
    free(img);
    return st;
}
