/* Kernel (blooming) mode of a frame: render the sensor's field of view as an angular image of
 * single-bounce reflected intensity and range, then give every beam the nearest echo of its
 * kernel-weighted, range-separated signal (optics/blooming.h, pbr paper §II). A bright
 * retroreflector thus lends its range to beams that only graze it with the kernel's halo.
 *
 * The image is a regular (azimuth, elevation) grid at the kernel's pitch over the beams' extent
 * plus the kernel (the "global" image, W x H pixels). It is never held whole: only the tiles
 * (TILE_W x TILE_H pixels) that some beam's kernel window covers are rendered, one azimuth
 * sector at a time. A sector is a run of tile columns holding the beams whose centre pixel lies
 * in them; its image holds every row and the columns its beams' windows reach, so each beam sees
 * exactly the pixels it would see in the global image, and the blooming (Alg. 1 or 2) and the
 * echo-surface search give the same results as on the global image. Only the rows of the row plan
 * are rendered and stored (kernel_rows.c: every row near a beam's row, one in HALO_ROW_STEP of the
 * halo's rows), each standing for its neighbours; the sector images hold those rows, and the
 * blooming and the echo-surface search weight them by v summed over the rows they stand for.
 * Consecutive sectors share their margins: the shared tile columns are moved, not rendered again,
 * so every covered tile is traced once per frame. Each tile is one batch of rays through the geometry engine (per-thread
 * batches, allocated once), shaded single-bounce with lsim_optics_first_return.
 *
 * Everything is kept in the frame workspace for the next frame (ws->bloom_state): the kernel,
 * keyed by the sensor's kernel settings (and the kernel file's size and modification time), and
 * the buffers, which only grow. */
#include "pipeline/kernel_frame.h"

#include "core/context.h"
#include "scene/scene.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
/* The global image: what the full-image render covered (beams' extent plus the kernel). */
typedef struct bloom_grid {
    int width, height;     /* W, H */
    int rows;              /* rows rendered (stored), kernel_rows.c: the sector images' height */
    double az0, el0, step; /* degrees */
    int tiles_x, tiles_y;
} bloom_grid;

/* What rendering a sector shares. */
typedef struct render_job {
    const lsim_optics *optics; /* single bounce */
    const lsim_engine *engine;
    double bin;
    const bloom_grid *g;
    int stride;   /* pixels per row of the sector image */
    int bx0, nb;  /* the sector's tile columns */
    const lsim_sensor *sensor; /* the frame's sensor: the raster engine draws its views for it */
} render_job;

static void clear_tile(struct lsim_bloom_state *s, const render_job *j, int lc, int ty)
{
    const int y0 = ty * TILE_H, y1 = y0 + TILE_H < j->g->rows ? y0 + TILE_H : j->g->rows;
    const int x0 = lc * TILE_W;
    for (int y = y0; y < y1; ++y) {
        const size_t p = (size_t)y * (size_t)j->stride + (size_t)x0;
        for (int x = 0; x < TILE_W; ++x) {
            s->intensity[p + x] = s->range[p + x] = s->cos_incidence[p + x] = 0.0f;
            s->nx[p + x] = s->ny[p + x] = s->nz[p + x] = 0.0f;
            s->object[p + x] = LSIM_NO_HIT;
            s->slice[p + x] = -1;
        }
        s->blockmax[(size_t)y * (size_t)(j->stride / TILE_W) + (size_t)lc] = 0.0f;
    }
}

/* When each tile column is rendered: the mean firing time of the beams whose centre lies in it
 * (columns without beams take the nearest such column's), and the sensor's pose at that time. A
 * rotating sensor's beams in one tile column fire within TILE_W pixels of azimuth of each other
 * (0.8 ms for a 10 Hz VLP-16 at the 3 mrad kernel's pitch), so a moving sensor or object is rendered
 * where the beams see it to within that time. */
static void column_times(struct lsim_bloom_state *s, const lsim_sensor *sensor, int tiles)
{
    const float *t = sensor->beams.time;
    float last = NAN;
    for (int c = 0; c < tiles; ++c) {
        double sum = 0.0;
        const uint32_t a = s->col_start[c], b = s->col_start[c + 1];
        for (uint32_t i = a; i < b; ++i)
            sum += t[s->order[i]];
        s->tc_time[c] = b > a ? (float)(sum / (double)(b - a)) : last;
        last = s->tc_time[c];
    }
    last = 0.0f;
    for (int c = tiles - 1; c >= 0; --c) /* leading empty columns, and no beams at all: 0 */
        if (isnan(s->tc_time[c]))
            s->tc_time[c] = last;
        else
            last = s->tc_time[c];
    for (int c = 0; c < tiles; ++c) {
        const lsim_pose p = sensor->frame_moves ? lsim_sensor_beam_pose(sensor, s->tc_time[c]) : sensor->pose;
        float *q = s->tc_pose + 12 * (size_t)c; /* origin, then the rotation's rows */
        lsim_pose_floats(&p, (float(*)[3])(q + 3), q);
    }
}

/* Render tile (lc, ty) of the sector image (lc: tile column within the sector) as one batch.
 * The batch runs through the tile in blocks of PACK_W x PACK_H pixels, so that the engine's
 * packets of consecutive rays are compact. */
#define PACK_W 4
#define PACK_H 2
static void render_tile(struct lsim_bloom_state *s, const render_job *j, int lc, int ty, lsim_rays *rays,
                        lsim_hits *hits)
{
    const bloom_grid *g = j->g;
    const int y0 = ty * TILE_H, y1 = y0 + TILE_H < g->rows ? y0 + TILE_H : g->rows;
    const int gx0 = (j->bx0 + lc) * TILE_W, gx1 = gx0 + TILE_W < g->width ? gx0 + TILE_W : g->width;
    /* the tile column's time and the sensor's pose then (a moving sensor or moving objects) */
    const float *pose = s->tc_pose + 12 * (size_t)(j->bx0 + lc), time = s->tc_time[j->bx0 + lc];
    const float *org = pose;
    const float(*m)[3] = (const float(*)[3])(pose + 3);
    const double *ce = s->ce, *se = s->se, *ca = s->ca, *sa = s->sa;
    const int32_t *gy = s->stored_y; /* the global row of each stored row */
    const float tfar = j->optics->range_max;
    uint16_t at[TILE_PX]; /* pixel of ray n: (y - y0) * TILE_W + (x - gx0) */
    size_t n = 0;
    for (int by = y0; by < y1; by += PACK_H)
        for (int bx = gx0; bx < gx1; bx += PACK_W)
            for (int y = by; y < by + PACK_H && y < y1; ++y)
                for (int x = bx; x < bx + PACK_W && x < gx1; ++x) {
                    const float ds[3] = {(float)(ce[gy[y]] * ca[x]), (float)(ce[gy[y]] * sa[x]), (float)se[gy[y]]};
                    at[n] = (uint16_t)((y - y0) * TILE_W + (x - gx0));
                    rays->ox[n] = org[0];
                    rays->oy[n] = org[1];
                    rays->oz[n] = org[2];
                    rays->dx[n] = m[0][0] * ds[0] + m[0][1] * ds[1] + m[0][2] * ds[2];
                    rays->dy[n] = m[1][0] * ds[0] + m[1][1] * ds[1] + m[1][2] * ds[2];
                    rays->dz[n] = m[2][0] * ds[0] + m[2][1] * ds[1] + m[2][2] * ds[2];
                    rays->time[n] = time;
                    rays->tnear[n] = 0.0f;
                    rays->tfar[n] = tfar;
                    rays->mask[n] = LSIM_RAY_MASK_ALL;
                    ++n;
                }
    rays->primary = 1; /* the raster engine answers the image's rays from its rendered views */
    rays->sensor = j->sensor;
    rays->pitch = g->step * 3.14159265358979323846 / 180.0; /* views resolve the image's pixels */
    lsim_engine_intersect(j->engine, rays, n, hits);
    rays->primary = 0;
    /* clear the tile (also its columns past the global image's last one), then shade the hits */
    float *I = s->intensity, *R = s->range, *C = s->cos_incidence, *NX = s->nx, *NY = s->ny, *NZ = s->nz;
    uint32_t *O = s->object;
    int32_t *SL = s->slice;
    const size_t stride = (size_t)j->stride, base = (size_t)y0 * stride + (size_t)lc * TILE_W;
    for (int y = y0; y < y1; ++y) {
        const size_t p = base + (size_t)(y - y0) * stride;
        for (int x = 0; x < TILE_W; ++x) {
            I[p + x] = R[p + x] = C[p + x] = NX[p + x] = NY[p + x] = NZ[p + x] = 0.0f;
            O[p + x] = LSIM_NO_HIT;
            SL[p + x] = -1;
        }
    }
    float bmax[TILE_H] = {0};
    const double bin = j->bin;
    for (size_t i = 0; i < n; ++i) {
        const uint32_t obj = hits->object[i];
        if (obj == LSIM_NO_HIT)
            continue;
        const float d[3] = {rays->dx[i], rays->dy[i], rays->dz[i]};
        const float ng[3] = {hits->ngx[i], hits->ngy[i], hits->ngz[i]};
        lsim_contribution c[1];
        if (!lsim_optics_first_return(j->optics, d, hits->t[i], obj, ng, 1.0f, c))
            continue;
        const int ry = at[i] / TILE_W;
        const size_t p = base + (size_t)ry * stride + (size_t)(at[i] % TILE_W);
        I[p] = c[0].amplitude;
        R[p] = c[0].range;
        C[p] = c[0].cos_incidence;
        NX[p] = c[0].nx;
        NY[p] = c[0].ny;
        NZ[p] = c[0].nz;
        O[p] = obj;
        if (c[0].amplitude > 0.0f) {
            const double q = floor((double)c[0].range / bin);
            SL[p] = q >= 0.0 && q < 2147483647.0 ? (int32_t)q : -2; /* -2: matches no echo's slice */
            if (c[0].amplitude > bmax[ry])
                bmax[ry] = c[0].amplitude;
        }
    }
    const int bpr = j->stride / TILE_W; /* blocks per row */
    for (int y = y0; y < y1; ++y)
        s->blockmax[(size_t)y * (size_t)bpr + (size_t)lc] = bmax[y - y0];
}

/* Move the tile columns [from, from + keep) of the sector image to [0, keep) (every row). */
static void shift_image(struct lsim_bloom_state *s, int stride, int height, int from, int keep)
{
    if (from == 0 || keep <= 0)
        return;
    const size_t off = (size_t)from * TILE_W, len = (size_t)keep * TILE_W;
    const int bpr = stride / TILE_W;
    for (int y = 0; y < height; ++y) {
        const size_t p = (size_t)y * (size_t)stride;
        memmove(s->intensity + p, s->intensity + p + off, len * sizeof *s->intensity);
        memmove(s->range + p, s->range + p + off, len * sizeof *s->range);
        memmove(s->cos_incidence + p, s->cos_incidence + p + off, len * sizeof *s->cos_incidence);
        memmove(s->nx + p, s->nx + p + off, len * sizeof *s->nx);
        memmove(s->ny + p, s->ny + p + off, len * sizeof *s->ny);
        memmove(s->nz + p, s->nz + p + off, len * sizeof *s->nz);
        memmove(s->object + p, s->object + p + off, len * sizeof *s->object);
        memmove(s->slice + p, s->slice + p + off, len * sizeof *s->slice);
        float *bm = s->blockmax + (size_t)y * (size_t)bpr;
        memmove(bm, bm + from, (size_t)keep * sizeof *bm);
    }
}

/* Weight of stored row kk for a beam at global row cv: v summed over the rows it stands for within
 * the window (kernel_rows.c; k->v[n] itself where every row is stored). */
static float stored_weight(const struct lsim_bloom_state *s, const lsim_kernel *k, int32_t kk, int cv)
{
    const int N = k->half_v;
    int a = s->row_run[kk], b = s->row_run[kk + 1] - 1;
    a = a < cv - N ? cv - N : a;
    b = b > cv + N ? cv + N : b;
    float w = 0.0f;
    for (int r = a; r <= b; ++r)
        w += k->v[r - cv + N];
    return w;
}

/* The echo's surface for beam b (sector-local column cu, global row cv; slice s of its echo): the
 * pixel of slice s with the largest weighted share intensity x h x v in the beam's window (v summed
 * over the rows a stored row stands for), the first such pixel in row-major order. Rows whose
 * brightest pixel (over the tiles the window reaches) cannot reach a share already found are
 * skipped: they cannot hold the maximum nor tie with it, so the pixel is the one a scan of the
 * whole window finds. Returns the pixel or -1. */
static long echo_pixel(const struct lsim_bloom_state *s, const lsim_kernel *k, float hmax, int stride, int width,
                       int height, int cu, int cv, int32_t slice)
{
    const int M = k->half_u, N = k->half_v, bpr = stride / TILE_W;
    const int x0 = cu - M < 0 ? 0 : cu - M, x1 = cu + M >= width ? width - 1 : cu + M;
    if (x0 > x1 || cv + N < 0 || cv - N > height - 1)
        return -1;
    const int b0 = x0 / TILE_W, b1 = x1 / TILE_W;
    const int32_t *row_of = s->row_of;
    /* seed: the best share in the stored rows next to the beam's */
    float seed = -1.0f;
    {
        const int ya = cv - 2 < 0 ? 0 : cv - 2, yb = cv + 2 > height - 1 ? height - 1 : cv + 2;
        for (int32_t kk = ya <= yb ? row_of[ya] : 1, k1 = ya <= yb ? row_of[yb] : 0; kk <= k1; ++kk) {
            const float wv = stored_weight(s, k, kk, cv);
            const size_t row = (size_t)kk * (size_t)stride;
            for (int x = x0; x <= x1; ++x) {
                const size_t p = row + (size_t)x;
                if (s->slice[p] != slice || !(s->intensity[p] > 0.0f))
                    continue;
                const float share = s->intensity[p] * k->h[x - cu + M] * wv;
                if (share > seed)
                    seed = share;
            }
        }
    }
    float best = -1.0f;
    long at = -1;
    const int ya = cv - N < 0 ? 0 : cv - N, yb = cv + N > height - 1 ? height - 1 : cv + N;
    for (int32_t kk = row_of[ya], k1 = row_of[yb]; kk <= k1; ++kk) {
        const float *bm = s->blockmax + (size_t)kk * (size_t)bpr;
        float rmax = 0.0f;
        for (int b = b0; b <= b1; ++b)
            rmax = bm[b] > rmax ? bm[b] : rmax;
        const float wv = stored_weight(s, k, kk, cv);
        if (rmax * hmax * wv < seed)
            continue;
        const size_t row = (size_t)kk * (size_t)stride;
        for (int x = x0; x <= x1; ++x) {
            const size_t p = row + (size_t)x;
            if (s->slice[p] != slice || !(s->intensity[p] > 0.0f))
                continue;
            const float share = s->intensity[p] * k->h[x - cu + M] * wv;
            if (share > best) {
                best = share;
                at = (long)p;
            }
        }
    }
    return at;
}

/* The global image and each beam's place in it; beams whose window misses it get no echo. */
/* The beams' azimuths on the image's axis (s->azd, degrees). When time matters (a moving sensor or
 * object) and the beams go round the whole circle, they are unwrapped from the sweep's first beam
 * in the direction of rotation, so that the image's seam (where the first beams meet the last
 * ones, fired a sweep later) lies at its edges and no tile column holds beams from both ends of
 * the sweep. Otherwise as they are, in (-180, 180]. */
static void beam_azimuths(struct lsim_bloom_state *s, const lsim_scene *scene, const lsim_sensor *sensor)
{
    const lsim_beams *b = &sensor->beams;
    const double to_deg = 180.0 / 3.14159265358979323846;
    const int timed = sensor->frame_moves || lsim_scene_has_motion(scene);
    double turn = 0.0, lo = 1e9, hi = -1e9;
    size_t first = 0;
    for (size_t i = 0; i < b->count; ++i) {
        s->azd[i] = b->azimuth[i] * to_deg;
        lo = fmin(lo, s->azd[i]);
        hi = fmax(hi, s->azd[i]);
        if (b->time[i] < b->time[first])
            first = i;
        if (i > 0) /* signed turn from the previous beam, within +-180 */
            turn += remainder(s->azd[i] - s->azd[i - 1], 360.0);
    }
    if (!timed || b->count == 0 || hi - lo < 300.0)
        return;
    const double a0 = s->azd[first];
    for (size_t i = 0; i < b->count; ++i) {
        double d = fmod(turn >= 0.0 ? s->azd[i] - a0 : a0 - s->azd[i], 360.0);
        d += d < 0.0 ? 360.0 : 0.0;
        s->azd[i] = turn >= 0.0 ? a0 + d : a0 - d;
    }
}

static lsim_status plan_grid(lsim_context *ctx, const struct lsim_bloom_state *s, const lsim_sensor *sensor,
                             const lsim_kernel *k, bloom_grid *g)
{
    const lsim_beams *b = &sensor->beams;
    const double to_deg = 180.0 / 3.14159265358979323846;
    double az_lo = 1e9, az_hi = -1e9, el_lo = 1e9, el_hi = -1e9;
    for (size_t i = 0; i < b->count; ++i) {
        az_lo = fmin(az_lo, s->azd[i]);
        az_hi = fmax(az_hi, s->azd[i]);
        el_lo = fmin(el_lo, b->elevation[i] * to_deg);
        el_hi = fmax(el_hi, b->elevation[i] * to_deg);
    }
    g->step = k->step_deg;
    g->az0 = az_lo - k->half_u * g->step;
    g->el0 = fmax(-89.9, el_lo - k->half_v * g->step);
    double w = (az_hi - az_lo) / g->step + 2.0 * k->half_u + 1.0,
           h = (fmin(89.9, el_hi + k->half_v * g->step) - g->el0) / g->step + 1.0;
    if (!(w * h <= LSIM_BLOOM_MAX_PIXELS))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.beam: the kernel mode would render %.0f x %.0f pixels at %.4g deg (limit %u); use a "
                         "coarser kernel (larger core_fwhm_deg or divergence) or a narrower field of view",
                         w, h, g->step, LSIM_BLOOM_MAX_PIXELS);
    g->width = (int)ceil(w);
    g->height = (int)ceil(h);
    g->tiles_x = (g->width + TILE_W - 1) / TILE_W;
    g->rows = g->height; /* until the row plan */
    g->tiles_y = (g->height + TILE_H - 1) / TILE_H;
    return LSIM_OK;
}

lsim_status lsim_frame_bloom(lsim_scene *scene, const lsim_engine *engine, const lsim_sensor *sensor,
                             const lsim_optics *optics, double threshold, int threads, lsim_frame_workspace *ws)
{
    lsim_context *ctx = scene->ctx;
    const lsim_beams *b = &sensor->beams;
    const lsim_beam_spec *spec = &sensor->spec.beam;
    const size_t nbeams = b->count;
    lsim_status st = lsim_frame_bloom_reserve(ctx, ws, nbeams);
    if (st != LSIM_OK)
        return st;
    if (!ws->bloom_state && !(ws->bloom_state = calloc(1, sizeof *ws->bloom_state)))
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for the blooming");
    struct lsim_bloom_state *s = ws->bloom_state;
    if ((st = lsim_bloom_state_kernel(ctx, s, spec)) != LSIM_OK)
        return st;
    const lsim_kernel *k = &s->kernel;
    if (!lsim_bloom_state_beams(s, nbeams))
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for the blooming of %zu beams", nbeams);
    beam_azimuths(s, scene, sensor);
    bloom_grid g;
    if ((st = plan_grid(ctx, s, sensor, k, &g)) != LSIM_OK)
        return st;
    const int M = k->half_u, N = k->half_v, W = g.width, H = g.height, TX = g.tiles_x;
    if ( !lsim_bloom_state_grid(s, (size_t)W, (size_t)H, (size_t)TX, (size_t)TX * (size_t)g.tiles_y) ||
        !lsim_bloom_state_batches(s, threads))
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for the blooming of %zu beams (%d x %d pixels)",
                         nbeams, W, H);
    lsim_bloom_result *out = &ws->bloom;
    const double to_deg = 180.0 / 3.14159265358979323846;

    /* Beams: global pixel coordinates, their roundings, home tile columns (counting sort). */
    uint32_t *cs = s->col_start;
    memset(cs, 0, ((size_t)TX + 1) * sizeof *cs);
    for (int t = 0; t < TX; ++t) {
        s->need_lo[t] = INT32_MAX;
        s->need_hi[t] = -1;
        s->covered[t] = 0;
    }
    for (size_t i = 0; i < nbeams; ++i) {
        out->range[i] = out->power[i] = 0.0f;
        out->object[i] = LSIM_NO_HIT;
        const float u = s->ug[i] = (float)((s->azd[i] - g.az0) / g.step);
        const float v = s->vg[i] = (float)((b->elevation[i] * to_deg - g.el0) / g.step);
        s->bu[i] = -1 - M; /* no window */
        if (!isfinite(u) || !isfinite(v))
            continue;
        const double ru = floor((double)u + 0.5), rv = floor((double)v + 0.5);
        if (ru < -M || ru > W - 1 + M || rv < -N || rv > H - 1 + N)
            continue; /* the blooming gives it no echo */
        const int bu = (int)ru, cu = (int)lrintf(u), cv = (int)lrintf(v);
        s->bu[i] = bu;
        s->cu[i] = cu;
        s->cv[i] = cv;
        const int lo_u = (bu < cu ? bu : cu) - M, hi_u = (bu > cu ? bu : cu) + M;
        const int x0 = lo_u < 0 ? 0 : lo_u, x1 = hi_u > W - 1 ? W - 1 : hi_u;
        const int home = (bu < 0 ? 0 : bu > W - 1 ? W - 1 : bu) / TILE_W;
        ++cs[home + 1];
        if (x0 > x1)
            continue;
        s->need_lo[home] = x0 < s->need_lo[home] ? x0 : s->need_lo[home];
        s->need_hi[home] = x1 > s->need_hi[home] ? x1 : s->need_hi[home];
        memset(s->covered + x0 / TILE_W, 1, (size_t)(x1 / TILE_W - x0 / TILE_W + 1));
    }
    /* the rows rendered: the beams' cores, and the halo's every HALO_ROW_STEP rows (kernel_rows.c) */
    const int HS = g.rows = lsim_bloom_plan_rows(s, k, H, nbeams, !spec->fine_halo);
    const int TY = g.tiles_y = (HS + TILE_H - 1) / TILE_H;
    for (int t = 0; t < TX; ++t)
        cs[t + 1] += cs[t];
    for (size_t i = 0; i < nbeams; ++i)
        if (s->bu[i] >= -M) {
            const int bu = s->bu[i];
            s->order[cs[(bu < 0 ? 0 : bu > W - 1 ? W - 1 : bu) / TILE_W]++] = (uint32_t)i;
        }
    for (int t = TX; t > 0; --t) /* back to the starts */
        cs[t] = cs[t - 1];
    cs[0] = 0;

    /* Sectors: runs of tile columns whose windows' span fits SECTOR_PIXELS (at least one column),
     * split where consecutive windows do not touch. */
    int nsec = 0, stride_t = 1;
    for (int t = 0; t < TX;) {
        if (s->need_hi[t] < 0) {
            ++t;
            continue;
        }
        int lo = s->need_lo[t], hi = s->need_hi[t], tb = t + 1;
        for (; tb < TX; ++tb) {
            if (s->need_hi[tb] < 0)
                continue;
            const int nlo = s->need_lo[tb] < lo ? s->need_lo[tb] : lo, nhi = s->need_hi[tb] > hi ? s->need_hi[tb] : hi;
            const size_t cols = (size_t)(nhi / TILE_W - nlo / TILE_W + 1) * TILE_W;
            if (s->need_lo[tb] > hi + 1 || cols * (size_t)HS > SECTOR_PIXELS)
                break;
            lo = nlo;
            hi = nhi;
        }
        sector *sc = &s->sectors[nsec++];
        sc->ta = t;
        sc->tb = tb;
        sc->bx0 = lo / TILE_W;
        sc->nb = hi / TILE_W - lo / TILE_W + 1;
        stride_t = sc->nb > stride_t ? sc->nb : stride_t;
        t = tb;
    }
    const int stride = stride_t * TILE_W;
    if (!lsim_bloom_state_image(s, (size_t)stride * (size_t)HS, (size_t)stride_t * (size_t)HS))
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY,
                         "out of memory rendering %d x %d pixels for blooming (a sector of the %d x %d image)", stride,
                         HS, W, H);

    for (int x = 0; x < W; ++x) {
        const double az = (g.az0 + x * g.step) / to_deg;
        s->ca[x] = cos(az);
        s->sa[x] = sin(az);
    }
    for (int y = 0; y < H; ++y) {
        const double el = (g.el0 + y * g.step) / to_deg;
        s->ce[y] = cos(el);
        s->se[y] = sin(el);
    }
    /* Single bounce (the model's assumption): no recursion, no footprint spread, no sun. */
    lsim_optics single = *optics;
    single.max_bounces = 0;
    single.baseline = 0;
    single.divergence = 0.0f;
    single.sun_level = 0.0f;
    render_job job = {&single, engine, spec->range_bin, &g, stride, 0, 0, sensor};
    column_times(s, sensor, TX);
    float hmax = 0.0f;
    for (int i = 0; i <= 2 * M; ++i)
        hmax = k->h[i] > hmax ? k->h[i] : hmax;
    const lsim_bloom_params params = {spec->range_bin, sensor->spec.range_max, threshold, threads, 0};
    const lsim_bloom_algorithm alg = spec->algorithm == 1 ? LSIM_BLOOM_BEAM_ITERATION : LSIM_BLOOM_RANGE_STACKING;
    const double bin = spec->range_bin;

    int prev_bx0 = 0, prev_nb = 0;
    for (int q = 0; q < nsec && st == LSIM_OK; ++q) {
        const sector *sc = &s->sectors[q];
        /* keep the tile columns the previous sector rendered, render or clear the others */
        const int from = sc->bx0 - prev_bx0;
        int keep = prev_nb - from < sc->nb ? prev_nb - from : sc->nb;
        if (q == 0 || from < 0 || keep < 0)
            keep = 0;
        shift_image(s, stride, HS, from, keep);
        size_t njobs = 0;
        for (int lc = keep; lc < stride_t; ++lc)
            for (int ty = 0; ty < TY; ++ty)
                s->jobs[njobs++] = (uint32_t)lc * (uint32_t)TY + (uint32_t)ty;
        job.bx0 = sc->bx0;
        job.nb = sc->nb;
#pragma omp parallel num_threads(threads)
        {
            const int t = omp_get_thread_num();
#pragma omp for schedule(dynamic, 1)
            for (size_t i = 0; i < njobs; ++i) {
                const int lc = (int)(s->jobs[i] / (uint32_t)TY), ty = (int)(s->jobs[i] % (uint32_t)TY);
                const int gx = sc->bx0 + lc;
                if (lc < sc->nb && gx < TX && s->covered[gx])
                    render_tile(s, &job, lc, ty, &s->rays[t], &s->hits[t]);
                else
                    clear_tile(s, &job, lc, ty);
            }
        }
        prev_bx0 = sc->bx0;
        prev_nb = sc->nb;

        /* the sector's beams in sector-local columns (rounded already: exact, same pixels) */
        const uint32_t b0 = s->col_start[sc->ta], b1 = s->col_start[sc->tb];
        const int c0 = sc->bx0 * TILE_W;
        for (uint32_t i = b0; i < b1; ++i) {
            const uint32_t beam = s->order[i];
            s->su[i - b0] = (float)(s->bu[beam] - c0);
            s->sv[i - b0] = s->vg[beam];
        }
        const lsim_bloom_image image = {stride, H,        g.az0 + c0 * g.step, g.el0, g.step, s->intensity,
                                        s->range, s->row_of, HS};
        st = lsim_bloom_nearest_ws(ctx, alg, &image, k, &params, b1 - b0, s->su, s->sv, s->srange, s->spower, NULL,
                                   &s->bloom);
        if (st != LSIM_OK)
            break;
        /* The echo's surface: the pixel of the winning range slice with the largest weighted
         * share in the beam's window; its exact range replaces the slice centre. */
#pragma omp parallel for num_threads(threads) schedule(dynamic, 64)
        for (uint32_t i = b0; i < b1; ++i) {
            const uint32_t beam = s->order[i];
            out->range[beam] = s->srange[i - b0];
            out->power[beam] = s->spower[i - b0];
            if (!(out->power[beam] > 0.0f))
                continue;
            const double q = floor(out->range[beam] / bin);
            const long p = echo_pixel(s, k, hmax, stride, W - c0 < stride ? W - c0 : stride, H, s->cu[beam] - c0,
                                      s->cv[beam], (int32_t)q);
            if (p < 0)
                continue;
            out->object[beam] = s->object[p];
            out->range[beam] = s->range[p];
            out->cos_incidence[beam] = s->cos_incidence[p];
            out->nx[beam] = s->nx[p];
            out->ny[beam] = s->ny[p];
            out->nz[beam] = s->nz[p];
        }
    }
    return st;
}
