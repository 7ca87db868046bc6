/* range_images.png of lsim_compare's report (beams matched by ring and column): the real frame's
 * ranges, the sim frame's, and sim - real, each as a ring x column image (ring 0, the lowest beam,
 * at the bottom; column 0 at the left), drawn with pictures' canvas. */
#include "compare/compare.h"
#include "core/context.h"
#include "pictures/canvas.h"
#include "pictures/colormap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_WIDTH 2048 /* image columns at most: wider grids draw every k-th column */
#define TITLE_H 28

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Blue (negative) - white (0) - red (positive) for t in [-1, 1]. */
static void diverging(double t, unsigned char rgb[3])
{
    t = t < -1.0 ? -1.0 : t > 1.0 ? 1.0 : t;
    const double a = fabs(t);
    const unsigned char lo = (unsigned char)lround(255.0 * (1.0 - a));
    rgb[0] = t < 0 ? lo : 255;
    rgb[1] = lo;
    rgb[2] = t > 0 ? lo : 255;
}

lsim_status lsim_compare_write_image(const lsim_compare *c, const char *path)
{
    const lsim_compare_beams *b = &c->beams;
    const int stride = (c->columns + MAX_WIDTH - 1) / MAX_WIDTH;
    const int cols = (c->columns + stride - 1) / stride;
    const int cw = cols < 1024 ? 1024 / cols : 1;
    const int rh = c->rings >= 256 ? 1 : 256 / c->rings > 8 ? 8 : 256 / c->rings;
    const int pw = cols * cw, ph = c->rings * rh, width = pw < 900 ? 900 : pw, height = 3 * (ph + TITLE_H);
    /* the range scale: the 98th percentile of every returned range; the difference's: p95 |dr| */
    double *v = malloc((2 * b->n + 1) * sizeof *v);
    if (!v)
        return lsim_fail(c->ctx, LSIM_ERR_OUT_OF_MEMORY, "compare: out of memory (range image)");
    size_t m = 0;
    for (size_t i = 0; i < b->n; ++i) {
        if (!isnan(b->real_r[i]))
            v[m++] = b->real_r[i];
        if (!isnan(b->sim_r[i]))
            v[m++] = b->sim_r[i];
    }
    qsort(v, m, sizeof *v, cmp_double);
    const double rmax = m ? (v[(size_t)(0.98 * (double)(m - 1))] > 0 ? v[(size_t)(0.98 * (double)(m - 1))] : 1.0) : 1.0;
    free(v);
    const double dmax = isfinite(c->all.range.p95_abs) && c->all.range.p95_abs > 0.01 ? c->all.range.p95_abs : 0.01;
    const unsigned char bg[3] = {32, 32, 32}, white[3] = {235, 235, 235}, miss[3] = {0, 0, 0};
    const unsigned char real_only[3] = {255, 160, 0}, sim_only[3] = {0, 200, 255};
    lsim_canvas *cv;
    lsim_status st = lsim_canvas_create(c->ctx, width, height, bg, &cv);
    if (st != LSIM_OK)
        return st;
    char title[3][256];
    snprintf(title[0], sizeof title[0], "real range, 0 .. %.1f m (viridis); black: no return", rmax);
    snprintf(title[1], sizeof title[1], "sim range, 0 .. %.1f m (viridis); black: no return", rmax);
    snprintf(title[2], sizeof title[2],
             "sim - real range, -%.3g m (blue) .. +%.3g m (red); orange: real only, cyan: sim only", dmax, dmax);
    for (int p = 0; p < 3; ++p) {
        const int y0 = p * (ph + TITLE_H);
        lsim_canvas_text(cv, 6, y0 + 8, title[p], lsim_canvas_text_fit(title[p], 2, width - 12), LSIM_ALIGN_LEFT,
                         white);
        lsim_canvas_fill_rect(cv, 0, y0 + TITLE_H, pw, y0 + TITLE_H + ph, miss);
    }
    for (size_t i = 0; i < b->n; ++i) {
        if (b->ring[i] < 0 || b->column[i] < 0 || b->column[i] % stride)
            continue;
        const int x = (b->column[i] / stride) * cw, y = TITLE_H + (c->rings - 1 - b->ring[i]) * rh;
        const double r[2] = {b->real_r[i], b->sim_r[i]};
        unsigned char rgb[3];
        for (int p = 0; p < 2; ++p)
            if (!isnan(r[p])) {
                lsim_colormap_viridis(r[p] / rmax, rgb);
                lsim_canvas_fill_rect(cv, x, y + p * (ph + TITLE_H), x + cw, y + p * (ph + TITLE_H) + rh, rgb);
            }
        const unsigned char *col = NULL;
        if (!isnan(r[0]) && !isnan(r[1])) {
            diverging((r[1] - r[0]) / dmax, rgb);
            col = rgb;
        } else if (!isnan(r[0])) {
            col = real_only;
        } else if (!isnan(r[1])) {
            col = sim_only;
        }
        if (col)
            lsim_canvas_fill_rect(cv, x, y + 2 * (ph + TITLE_H), x + cw, y + 2 * (ph + TITLE_H) + rh, col);
    }
    st = lsim_canvas_write_png(c->ctx, cv, path);
    lsim_canvas_destroy(cv);
    return st;
}
