/* Kernel (blooming) mode of a frame: render the sensor's field of view as an angular image of
 * single-bounce reflected intensity and range, then give every beam the nearest echo of its
 * kernel-weighted, range-separated signal (optics/blooming.h, pbr paper §II). A bright
 * retroreflector thus lends its range to beams that only graze it with the kernel's halo. */
#include "pipeline/frame.h"

#include "core/context.h"
#include "optics/blooming.h"
#include "scene/scene.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LSIM_BLOOM_MAX_PIXELS 60000000u

typedef struct bloom_render {
    int width, height;
    double az0, el0, step; /* degrees */
    float *intensity, *range, *cos_incidence, *nx, *ny, *nz;
    uint32_t *object;
} bloom_render;


/* Transitional: one ray through the engine seam (a batch of one), until the pipeline issues
 * secondary and shadow rays as batches per bounce depth. */
static int trace_one(const lsim_engine *engine, const float org[3], const float dir[3], float tnear, float tfar,
                     float *t, uint32_t *object, float ng[3])
{
    float ox = org[0], oy = org[1], oz = org[2], dx = dir[0], dy = dir[1], dz = dir[2], time = 0.0f;
    uint32_t mask = LSIM_RAY_MASK_ALL, prim;
    lsim_rays r = {1, &ox, &oy, &oz, &dx, &dy, &dz, &time, &tnear, &tfar, &mask};
    lsim_hits h = {t, object, &prim, NULL, NULL, &ng[0], &ng[1], &ng[2]};
    lsim_engine_intersect(engine, &r, 1, &h);
    return *object != LSIM_NO_HIT;
}

static void render_free(bloom_render *r)
{
    free(r->intensity);
    free(r->range);
    free(r->cos_incidence);
    free(r->nx);
    free(r->ny);
    free(r->nz);
    free(r->object);
}

static lsim_status make_kernel(lsim_context *ctx, const lsim_beam_spec *b, lsim_kernel *k)
{
    if (b->kernel_file[0])
        return lsim_kernel_read(ctx, b->kernel_file, k);
    /* The divergence is the full angle at 1/e^2 (4 sigma): FWHM = divergence sqrt(2 ln 2) / 2. */
    double fwhm = b->core_fwhm_deg > 0.0 ? b->core_fwhm_deg
                                          : b->divergence_mrad * 1e-3 * 180.0 / 3.14159265358979 * 0.5887050112577373;
    double step = fwhm / 4.0;
    return lsim_kernel_parametric(ctx, fwhm, b->halo_level, b->halo_extent_deg, step, k);
}

/* Render single-bounce intensity and range over the beams' angular extent plus the kernel. */
static lsim_status render(lsim_context *ctx, const lsim_sensor *sensor, const lsim_optics *o, const lsim_kernel *k,
                          int threads, bloom_render *r)
{
    const lsim_beams *b = &sensor->beams;
    const double to_deg = 180.0 / 3.14159265358979323846;
    double az_lo = 1e9, az_hi = -1e9, el_lo = 1e9, el_hi = -1e9;
    for (size_t i = 0; i < b->count; ++i) {
        az_lo = fmin(az_lo, b->azimuth[i] * to_deg);
        az_hi = fmax(az_hi, b->azimuth[i] * to_deg);
        el_lo = fmin(el_lo, b->elevation[i] * to_deg);
        el_hi = fmax(el_hi, b->elevation[i] * to_deg);
    }
    r->step = k->step_deg;
    r->az0 = az_lo - k->half_u * r->step;
    r->el0 = fmax(-89.9, el_lo - k->half_v * r->step);
    double w = (az_hi - az_lo) / r->step + 2.0 * k->half_u + 1.0, h = (fmin(89.9, el_hi + k->half_v * r->step) - r->el0) / r->step + 1.0;
    if (!(w * h <= LSIM_BLOOM_MAX_PIXELS))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.beam: the kernel mode would render %.0f x %.0f pixels at %.4g deg (limit %u); use a "
                         "coarser kernel (larger core_fwhm_deg or divergence) or a narrower field of view",
                         w, h, r->step, LSIM_BLOOM_MAX_PIXELS);
    r->width = (int)ceil(w);
    r->height = (int)ceil(h);
    size_t px = (size_t)r->width * (size_t)r->height;
    r->intensity = malloc(px * sizeof *r->intensity);
    r->range = malloc(px * sizeof *r->range);
    r->cos_incidence = malloc(px * sizeof *r->cos_incidence);
    r->nx = malloc(px * sizeof *r->nx);
    r->ny = malloc(px * sizeof *r->ny);
    r->nz = malloc(px * sizeof *r->nz);
    r->object = malloc(px * sizeof *r->object);
    if (!r->intensity || !r->range || !r->cos_incidence || !r->nx || !r->ny || !r->nz || !r->object)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory rendering %d x %d pixels for blooming", r->width,
                         r->height);
    float m[3][3];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            m[i][j] = (float)sensor->pose.r.m[i][j];
    const float org[3] = {(float)sensor->pose.t.x, (float)sensor->pose.t.y, (float)sensor->pose.t.z};
    /* Single bounce (the model's assumption): no recursion, no footprint spread, no sun. */
    lsim_optics single = *o;
    single.max_bounces = 0;
    single.baseline = 0;
    single.divergence = 0.0f;
    single.sun_level = 0.0f;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
    for (int v = 0; v < r->height; ++v) {
        double el = (r->el0 + v * r->step) / to_deg;
        for (int u = 0; u < r->width; ++u) {
            size_t p = (size_t)v * (size_t)r->width + (size_t)u;
            double az = (r->az0 + u * r->step) / to_deg;
            float ds[3] = {(float)(cos(el) * cos(az)), (float)(cos(el) * sin(az)), (float)sin(el)};
            float d[3] = {m[0][0] * ds[0] + m[0][1] * ds[1] + m[0][2] * ds[2],
                          m[1][0] * ds[0] + m[1][1] * ds[1] + m[1][2] * ds[2],
                          m[2][0] * ds[0] + m[2][1] * ds[1] + m[2][2] * ds[2]};
            float t, ng[3];
            uint32_t obj;
            r->intensity[p] = r->range[p] = 0.0f;
            r->object[p] = LSIM_NO_HIT;
            if (!trace_one(o->engine, org, d, 0.0f, o->range_max, &t, &obj, ng))
                continue;
            lsim_contribution c[4];
            int n = lsim_optics_follow(&single, org, d, t, obj, ng, 1.0f, c, 0, 4, NULL);
            if (n == 0)
                continue;
            r->intensity[p] = c[0].amplitude;
            r->range[p] = c[0].range;
            r->cos_incidence[p] = c[0].cos_incidence;
            r->nx[p] = c[0].nx;
            r->ny[p] = c[0].ny;
            r->nz[p] = c[0].nz;
            r->object[p] = obj;
        }
    }
    return LSIM_OK;
}

lsim_status lsim_frame_bloom(lsim_scene *scene, const lsim_sensor *sensor, const lsim_optics *optics,
                             double threshold, int threads, lsim_frame_workspace *ws)
{
    lsim_context *ctx = scene->ctx;
    const lsim_beams *b = &sensor->beams;
    const lsim_beam_spec *spec = &sensor->spec.beam;
    lsim_kernel kernel;
    memset(&kernel, 0, sizeof kernel);
    bloom_render r;
    memset(&r, 0, sizeof r);
    float *u = NULL, *v = NULL;
    lsim_status st = lsim_frame_bloom_reserve(ctx, ws, b->count);
    if (st == LSIM_OK)
        st = make_kernel(ctx, spec, &kernel);
    if (st == LSIM_OK)
        st = render(ctx, sensor, optics, &kernel, threads, &r);
    if (st == LSIM_OK) {
        u = malloc(b->count * sizeof *u);
        v = malloc(b->count * sizeof *v);
        if (!u || !v)
            st = lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for %zu beams", b->count);
    }
    if (st == LSIM_OK) {
        const double to_deg = 180.0 / 3.14159265358979323846;
        for (size_t i = 0; i < b->count; ++i) {
            u[i] = (float)((b->azimuth[i] * to_deg - r.az0) / r.step);
            v[i] = (float)((b->elevation[i] * to_deg - r.el0) / r.step);
        }
        lsim_bloom_image image = {r.width, r.height, r.az0, r.el0, r.step, r.intensity, r.range};
        lsim_bloom_params params = {spec->range_bin, sensor->spec.range_max, threshold, threads, 0};
        st = lsim_bloom_nearest(ctx, spec->algorithm == 1 ? LSIM_BLOOM_BEAM_ITERATION : LSIM_BLOOM_RANGE_STACKING,
                                &image, &kernel, &params, b->count, u, v, ws->bloom.range, ws->bloom.power);
    }
    if (st == LSIM_OK) {
        /* The echo's surface: the pixel of the winning range slice with the largest weighted
         * share in the beam's window; its exact range replaces the slice centre. */
        lsim_bloom_result *out = &ws->bloom;
        const double bin = spec->range_bin;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 256)
        for (size_t i = 0; i < b->count; ++i) {
            out->object[i] = LSIM_NO_HIT;
            if (!(out->power[i] > 0.0f))
                continue;
            long s = (long)floor(out->range[i] / bin);
            int cu = (int)lrintf(u[i]), cv = (int)lrintf(v[i]);
            float best = -1.0f;
            for (int dv = -kernel.half_v; dv <= kernel.half_v; ++dv) {
                int y = cv + dv;
                if (y < 0 || y >= r.height)
                    continue;
                for (int du = -kernel.half_u; du <= kernel.half_u; ++du) {
                    int x = cu + du;
                    if (x < 0 || x >= r.width)
                        continue;
                    size_t p = (size_t)y * (size_t)r.width + (size_t)x;
                    if (!(r.intensity[p] > 0.0f) || (long)floor(r.range[p] / bin) != s)
                        continue;
                    float share = r.intensity[p] * kernel.h[du + kernel.half_u] * kernel.v[dv + kernel.half_v];
                    if (share > best) {
                        best = share;
                        out->object[i] = r.object[p];
                        out->range[i] = r.range[p];
                        out->cos_incidence[i] = r.cos_incidence[p];
                        out->nx[i] = r.nx[p];
                        out->ny[i] = r.ny[p];
                        out->nz[i] = r.nz[p];
                    }
                }
            }
        }
    }
    free(u);
    free(v);
    render_free(&r);
    lsim_kernel_free(&kernel);
    return st;
}
