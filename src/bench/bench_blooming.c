/* Blooming benchmark: a synthetic street rendered into a 4096 x 308 px angular image
 * (133 x 10 deg, like an automotive scanner such as the Valeo Scala Gen. 2 of the pbr paper),
 * 16,384 beams (128 x 128 evenly over the image), a parametric 69-px kernel (half 34, the paper's
 * "68 px wide"), 1,200 range bins of 0.2 m (0 .. 240 m). Scene (sensor 1.8 m above a flat road):
 * road (Lambertian 0.15, grazing), building facades on both sides, a far wall, a dark van with a
 * retroreflective plate and tail lights, a truck with contour marking, two traffic signs and
 * roadside delineator posts (retroreflectors: 1000x the intensity of a white wall). Intensity is
 * the single-bounce rho cos(theta) / r^2; the detection threshold lets the road be seen to ~40 m. */
#include "bench/bench_blooming.h"

#include "core/clock.h"
#include "optics/blooming.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BB_U 4096
#define BB_V 308
#define BB_FOV_U 133.0
#define BB_EL_MIN (-7.0)
#define BB_HALF 34
#define BB_BIN 0.2
#define BB_MAX_RANGE 240.0
#define BB_BEAMS_U 128
#define BB_BEAMS_V 128
#define BB_HEIGHT 1.8
#define BB_RETRO 300.0
#define BB_THRESHOLD 5e-6

typedef struct bb_rect {
    int axis;        /* 0: plane x = c (normal along x), 1: plane y = c */
    double c;        /* plane coordinate */
    double a0, a1;   /* extent along the other horizontal axis */
    double z0, z1;   /* extent in height above the road */
    double rho;      /* pi f_r: Lambertian reflectance, or the retroreflector's gain */
    int retro;
} bb_rect;

static const bb_rect bb_scene[] = {
    /* facades and far wall */
    {1, 12.0, 10.0, 120.0, 0.0, 15.0, 0.4, 0},
    {1, -9.0, 25.0, 90.0, 0.0, 10.0, 0.3, 0},
    {0, 180.0, -40.0, 40.0, 0.0, 20.0, 0.5, 0},
    /* van ahead in the lane: rear face, plate, tail lights */
    {0, 25.0, -1.0, 1.0, 0.3, 1.6, 0.1, 0},
    {0, 24.98, -0.26, 0.26, 0.5, 0.62, BB_RETRO, 1},
    {0, 24.98, 0.7, 0.95, 0.9, 1.1, BB_RETRO, 1},
    {0, 24.98, -0.95, -0.7, 0.9, 1.1, BB_RETRO, 1},
    /* truck in the left lane with contour marking */
    {0, 60.0, 2.5, 5.0, 0.5, 3.8, 0.3, 0},
    {0, 59.98, 2.5, 5.0, 0.5, 0.55, BB_RETRO, 1},
    /* traffic signs */
    {0, 40.0, -7.0, -6.2, 2.0, 2.8, BB_RETRO, 1},
    {0, 70.0, 8.0, 9.0, 2.2, 3.0, BB_RETRO, 1},
    /* delineator posts on the right with reflectors */
    {0, 15.0, -5.55, -5.45, 0.0, 1.0, 0.3, 0},
    {0, 14.98, -5.55, -5.45, 0.7, 0.85, BB_RETRO, 1},
    {0, 35.0, -5.55, -5.45, 0.0, 1.0, 0.3, 0},
    {0, 34.98, -5.55, -5.45, 0.7, 0.85, BB_RETRO, 1},
    {0, 55.0, -5.55, -5.45, 0.0, 1.0, 0.3, 0},
    {0, 54.98, -5.55, -5.45, 0.7, 0.85, BB_RETRO, 1},
    {0, 75.0, -5.55, -5.45, 0.0, 1.0, 0.3, 0},
    {0, 74.98, -5.55, -5.45, 0.7, 0.85, BB_RETRO, 1},
};

/* Cast one pixel's ray; intensity 0 for sky. */
static void bb_shade(double az_deg, double el_deg, float *intensity, float *range, unsigned char *retro)
{
    const double d2r = acos(-1.0) / 180.0;
    const double ce = cos(el_deg * d2r);
    const double d[3] = {ce * cos(az_deg * d2r), ce * sin(az_deg * d2r), sin(el_deg * d2r)};
    double best = INFINITY, rho = 0.0, cosi = 0.0;
    int is_retro = 0;
    if (d[2] < 0.0) { /* road */
        best = BB_HEIGHT / -d[2];
        rho = 0.15;
        cosi = -d[2];
    }
    for (size_t i = 0; i < sizeof bb_scene / sizeof bb_scene[0]; ++i) {
        const bb_rect *q = &bb_scene[i];
        const double dn = d[q->axis];
        if (fabs(dn) < 1e-12)
            continue;
        const double t = q->c / dn;
        if (!(t > 0.0) || t >= best)
            continue;
        const double a = t * d[1 - q->axis], z = BB_HEIGHT + t * d[2];
        if (a < q->a0 || a > q->a1 || z < q->z0 || z > q->z1)
            continue;
        best = t;
        rho = q->rho;
        cosi = fabs(dn);
        is_retro = q->retro;
    }
    if (isinf(best)) {
        *intensity = 0.0f;
        *range = 0.0f;
        *retro = 0;
        return;
    }
    *range = (float)best;
    *intensity = (float)(rho * (is_retro ? 1.0 : cosi) / (best * best)); /* retroreflector: peak gain */
    *retro = (unsigned char)is_retro;
}

int lsim_bench_blooming_run(int threads, int repeat, lsim_bench_blooming_result *out, char *error, size_t error_size)
{
    memset(out, 0, sizeof *out);
    const size_t UV = (size_t)BB_U * BB_V, nb = (size_t)BB_BEAMS_U * BB_BEAMS_V;
    const double step = BB_FOV_U / BB_U;
    float *intensity = malloc(UV * sizeof *intensity), *range = malloc(UV * sizeof *range);
    unsigned char *retro = malloc(UV);
    float *bu = malloc(nb * sizeof *bu), *bv = malloc(nb * sizeof *bv);
    float *r1 = malloc(nb * sizeof *r1), *p1 = malloc(nb * sizeof *p1);
    float *r2 = malloc(nb * sizeof *r2), *p2 = malloc(nb * sizeof *p2);
    float *r3 = malloc(nb * sizeof *r3), *p3 = malloc(nb * sizeof *p3);
    unsigned char *retro_slice = calloc((size_t)(BB_MAX_RANGE / BB_BIN) + 2, 1);
    lsim_kernel kernel;
    memset(&kernel, 0, sizeof kernel);
    lsim_context *ctx = NULL;
    int rc = -1;
    if (!intensity || !range || !retro || !bu || !bv || !r1 || !p1 || !r2 || !p2 || !r3 || !p3 || !retro_slice ||
        lsim_context_create(&ctx) != LSIM_OK) {
        snprintf(error, error_size, "out of memory");
        goto done;
    }
    const double az0 = -BB_FOV_U / 2 + step / 2, el0 = BB_EL_MIN + step / 2;
    for (int v = 0; v < BB_V; ++v)
        for (int u = 0; u < BB_U; ++u) {
            const size_t p = (size_t)v * BB_U + (size_t)u;
            bb_shade(az0 + u * step, el0 + v * step, &intensity[p], &range[p], &retro[p]);
            if (retro[p] && range[p] < BB_MAX_RANGE)
                retro_slice[(size_t)floor(range[p] / BB_BIN)] = 1;
        }
    for (int j = 0; j < BB_BEAMS_V; ++j)
        for (int i = 0; i < BB_BEAMS_U; ++i) {
            bu[(size_t)j * BB_BEAMS_U + (size_t)i] = (float)((i + 0.5) * BB_U / BB_BEAMS_U - 0.5);
            bv[(size_t)j * BB_BEAMS_U + (size_t)i] = (float)((j + 0.5) * BB_V / BB_BEAMS_V - 0.5);
        }
    /* kernel: Gaussian core 0.25 deg FWHM, halo 1e-4 of the peak out to 34 px (1.1 deg) */
    if (lsim_kernel_parametric(ctx, 0.25, 1e-4, BB_HALF * step, step, &kernel) != LSIM_OK ||
        kernel.half_u != BB_HALF) {
        snprintf(error, error_size, "kernel: %s", lsim_context_last_error(ctx));
        goto done;
    }
    const lsim_bloom_image image = {BB_U, BB_V, az0, el0, step, intensity, range, NULL, 0};
    lsim_bloom_params params = {BB_BIN, BB_MAX_RANGE, BB_THRESHOLD, threads, 0};
    out->beams = nb;
    out->width = BB_U;
    out->height = BB_V;
    out->kernel_half = BB_HALF;
    out->range_bins = (int)floor(BB_MAX_RANGE / BB_BIN);
    out->threads = threads > 0 ? threads : omp_get_num_procs();
    out->alg1_ms = out->alg2_ms = out->alg2_all_ms = INFINITY;
    for (int k = 0; k < repeat; ++k) {
        lsim_bloom_stats s1, s2, s3;
        params.keep_dim_slices = 0;
        double t0 = lsim_now_ms();
        lsim_status a = lsim_bloom_nearest_stats(ctx, LSIM_BLOOM_BEAM_ITERATION, &image, &kernel, &params, nb, bu, bv,
                                                 r1, p1, &s1);
        double t1 = lsim_now_ms();
        lsim_status b = a == LSIM_OK ? lsim_bloom_nearest_stats(ctx, LSIM_BLOOM_RANGE_STACKING, &image, &kernel,
                                                                &params, nb, bu, bv, r2, p2, &s2)
                                     : a;
        double t2 = lsim_now_ms();
        params.keep_dim_slices = 1;
        lsim_status c = b == LSIM_OK ? lsim_bloom_nearest_stats(ctx, LSIM_BLOOM_RANGE_STACKING, &image, &kernel,
                                                                &params, nb, bu, bv, r3, p3, &s3)
                                     : b;
        double t3 = lsim_now_ms();
        if (c != LSIM_OK) {
            snprintf(error, error_size, "blooming failed: %s", lsim_context_last_error(ctx));
            goto done;
        }
        if (t1 - t0 < out->alg1_ms)
            out->alg1_ms = t1 - t0;
        if (t2 - t1 < out->alg2_ms)
            out->alg2_ms = t2 - t1;
        if (t3 - t2 < out->alg2_all_ms)
            out->alg2_all_ms = t3 - t2;
        out->slices_occupied = s2.slices_occupied;
        out->alg2_slices_processed = s2.slices_processed;
        out->echoes = s1.echoes;
    }
    /* Alg. 2 (skipping and not) against Alg. 1: same slice, power within 1e-5 relative */
    for (int pass = 0; pass < 2; ++pass) {
        const float *rr = pass ? r3 : r2, *pp = pass ? p3 : p2;
        for (size_t i = 0; i < nb; ++i) {
            double rel = p1[i] == pp[i] ? 0.0 : fabs((double)p1[i] - (double)pp[i]) / fabs((double)p1[i]);
            if (!(rel <= 1e-5) || r1[i] != rr[i])
                ++out->mismatches;
            if (rel > out->max_power_rel_diff)
                out->max_power_rel_diff = rel;
        }
    }
    for (size_t i = 0; i < nb; ++i) {
        if (!(p1[i] > 0.0f))
            continue;
        const int u = (int)floor(bu[i] + 0.5), v = (int)floor(bv[i] + 0.5);
        const size_t p = (size_t)v * BB_U + (size_t)u;
        const size_t s = (size_t)floor(r1[i] / BB_BIN);
        if (!retro[p] && retro_slice[s] && !(range[p] > 0.0f && (size_t)floor(range[p] / BB_BIN) == s))
            ++out->bloomed;
    }
    rc = 0;
done:
    lsim_kernel_free(&kernel);
    lsim_context_destroy(ctx);
    free(intensity);
    free(range);
    free(retro);
    free(bu);
    free(bv);
    free(r1);
    free(p1);
    free(r2);
    free(p2);
    free(r3);
    free(p3);
    free(retro_slice);
    return rc;
}
