/* The kernel mode's state in the frame workspace (pipeline/kernel_frame.h): the kernel, cached by
 * the sensor's kernel settings and the kernel file's size and modification time, and the buffers,
 * which only grow, so a frame after the first allocates nothing. */
#include "pipeline/kernel_frame.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void kernel_key_make(const lsim_beam_spec *b, kernel_key *k, int *cacheable)
{
    memset(k, 0, sizeof *k);
    *cacheable = 1;
    if (b->kernel_file[0]) {
        memcpy(k->file, b->kernel_file, sizeof k->file);
        struct stat st;
        if (stat(b->kernel_file, &st) != 0) {
            *cacheable = 0; /* read it, so that its error is reported */
            return;
        }
        k->file_size = (long long)st.st_size;
        k->file_mtime_s = (long long)st.st_mtim.tv_sec;
        k->file_mtime_ns = (long long)st.st_mtim.tv_nsec;
    } else {
        k->divergence_mrad = b->divergence_mrad;
        k->core_fwhm_deg = b->core_fwhm_deg;
        k->halo_level = b->halo_level;
        k->halo_extent_deg = b->halo_extent_deg;
    }
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

lsim_status lsim_bloom_state_kernel(lsim_context *ctx, struct lsim_bloom_state *s, const lsim_beam_spec *b)
{
    kernel_key key;
    int cacheable;
    kernel_key_make(b, &key, &cacheable);
    if (s->kernel_ready && cacheable && memcmp(&key, &s->key, sizeof key) == 0)
        return LSIM_OK;
    lsim_kernel_free(&s->kernel);
    s->kernel_ready = 0;
    lsim_status st = make_kernel(ctx, b, &s->kernel);
    if (st != LSIM_OK)
        return st;
    s->key = key;
    s->kernel_ready = cacheable;
    return LSIM_OK;
}

void lsim_frame_bloom_free(lsim_frame_workspace *ws)
{
    struct lsim_bloom_state *s = ws->bloom_state;
    if (!s)
        return;
    lsim_kernel_free(&s->kernel);
    lsim_bloom_workspace_free(&s->bloom);
    void *arrays[] = {s->azd, s->ug,        s->vg,      s->bu,       s->cu,       s->cv,      s->order,  s->su,
                      s->sv,        s->srange,  s->spower,   s->ca,       s->sa,      s->ce,     s->se, s->row_of, s->row_run, s->stored_y, s->row_mark,
                      s->col_start, s->need_lo, s->need_hi,  s->covered, s->tc_time, s->tc_pose,  s->sectors, s->jobs,   s->intensity,
                      s->range,     s->cos_incidence, s->nx, s->ny,       s->nz,      s->object, s->slice,
                      s->blockmax};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; ++i)
        free(arrays[i]);
    for (int t = 0; t < s->batches; ++t) {
        lsim_rays_free(&s->rays[t]);
        lsim_hits_free(&s->hits[t]);
    }
    free(s->rays);
    free(s->hits);
    free(s);
    ws->bloom_state = NULL;
}

static void *grow(void *old, size_t bytes, int *ok)
{
    void *p = realloc(old, bytes ? bytes : 1);
    if (!p) {
        *ok = 0;
        return old;
    }
    return p;
}

#define GROW(field, n) ((field) = grow((field), (size_t)(n) * sizeof *(field), &ok))

int lsim_bloom_state_beams(struct lsim_bloom_state *s, size_t n)
{
    int ok = 1;
    if (n <= s->beam_cap)
        return 1;
    GROW(s->azd, n); GROW(s->ug, n); GROW(s->vg, n); GROW(s->bu, n); GROW(s->cu, n); GROW(s->cv, n); GROW(s->order, n);
    GROW(s->su, n); GROW(s->sv, n); GROW(s->srange, n); GROW(s->spower, n);
    if (ok)
        s->beam_cap = n;
    return ok;
}

int lsim_bloom_state_grid(struct lsim_bloom_state *s, size_t cols, size_t rows, size_t tcols, size_t tiles)
{
    int ok = 1;
    if (cols > s->col_cap) {
        GROW(s->ca, cols); GROW(s->sa, cols);
        if (ok)
            s->col_cap = cols;
    }
    if (ok && rows > s->row_cap) {
        GROW(s->ce, rows); GROW(s->se, rows); GROW(s->row_of, rows); GROW(s->row_run, rows + 1);
        GROW(s->stored_y, rows); GROW(s->row_mark, rows);
        if (ok)
            s->row_cap = rows;
    }
    if (ok && tcols > s->tcol_cap) {
        GROW(s->col_start, tcols + 1); GROW(s->need_lo, tcols); GROW(s->need_hi, tcols); GROW(s->sectors, tcols);
        GROW(s->covered, tcols); GROW(s->tc_time, tcols); GROW(s->tc_pose, 12 * tcols);
        if (ok)
            s->tcol_cap = tcols;
    }
    if (ok && tiles > s->tile_cap) {
        GROW(s->jobs, tiles);
        if (ok)
            s->tile_cap = tiles;
    }
    return ok;
}

int lsim_bloom_state_image(struct lsim_bloom_state *s, size_t px, size_t blocks)
{
    int ok = 1;
    if (px > s->px_cap) {
        GROW(s->intensity, px); GROW(s->range, px); GROW(s->cos_incidence, px); GROW(s->nx, px); GROW(s->ny, px);
        GROW(s->nz, px); GROW(s->object, px); GROW(s->slice, px);
        if (ok)
            s->px_cap = px;
    }
    if (ok && blocks > s->bm_cap) {
        GROW(s->blockmax, blocks);
        if (ok)
            s->bm_cap = blocks;
    }
    return ok;
}

int lsim_bloom_state_batches(struct lsim_bloom_state *s, int threads)
{
    if (threads <= s->batches)
        return 1;
    lsim_rays *r = realloc(s->rays, (size_t)threads * sizeof *r);
    if (!r)
        return 0;
    s->rays = r;
    lsim_hits *h = realloc(s->hits, (size_t)threads * sizeof *h);
    if (!h)
        return 0;
    s->hits = h;
    for (int t = s->batches; t < threads; ++t) {
        memset(&s->rays[t], 0, sizeof s->rays[t]);
        memset(&s->hits[t], 0, sizeof s->hits[t]);
        int ok = lsim_rays_alloc(&s->rays[t], TILE_PX) == 0;
        ok = lsim_hits_alloc(&s->hits[t], TILE_PX) == 0 && ok;
        s->batches = t + 1; /* freed by lsim_frame_bloom_free even if partial */
        if (!ok)
            return 0;
    }
    return 1;
}
