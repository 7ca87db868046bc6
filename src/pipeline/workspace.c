#include "pipeline/frame.h"

#include "core/context.h"

#include <stdlib.h>
#include <string.h>

static void *grow(void *old, size_t bytes, int *ok)
{
    void *p = realloc(old, bytes ? bytes : 1);
    if (!p) {
        *ok = 0;
        return old;
    }
    return p;
}

#define GROW(field, n) ((field) = grow((field), (n) * sizeof *(field), &ok))

static void rays_free(lsim_rays *r)
{
    free(r->ox); free(r->oy); free(r->oz); free(r->dx); free(r->dy); free(r->dz);
    memset(r, 0, sizeof *r);
}

static void hits_free(lsim_hits *h)
{
    free(h->t); free(h->object); free(h->primitive); free(h->ngx); free(h->ngy); free(h->ngz);
    memset(h, 0, sizeof *h);
}

int lsim_rays_alloc(lsim_rays *r, size_t n)
{
    int ok = 1;
    memset(r, 0, sizeof *r);
    GROW(r->ox, n); GROW(r->oy, n); GROW(r->oz, n); GROW(r->dx, n); GROW(r->dy, n); GROW(r->dz, n);
    if (!ok) {
        rays_free(r);
        return -1;
    }
    r->count = n;
    return 0;
}

void lsim_rays_free(lsim_rays *r) { rays_free(r); }

static int scratch_alloc(lsim_frame_scratch *s)
{
    int ok = lsim_rays_alloc(&s->rays, LSIM_FRAME_CHUNK) == 0;
    memset(&s->hits, 0, sizeof s->hits);
    const size_t n = LSIM_FRAME_CHUNK;
    GROW(s->hits.t, n); GROW(s->hits.object, n); GROW(s->hits.primitive, n);
    GROW(s->hits.ngx, n); GROW(s->hits.ngy, n); GROW(s->hits.ngz, n);
    return ok ? 0 : -1;
}

lsim_status lsim_frame_workspace_reserve(lsim_context *ctx, lsim_frame_workspace *ws, size_t n, size_t objects,
                                         int threads)
{
    int ok = 1;
    if (n > ws->capacity) {
        lsim_returns *r = &ws->returns;
        GROW(r->range, n); GROW(r->intensity, n); GROW(r->cos_incidence, n);
        GROW(r->nx, n); GROW(r->ny, n); GROW(r->nz, n); GROW(r->object, n);
        GROW(ws->measured.range, n); GROW(ws->measured.intensity, n); GROW(ws->measured.detected, n);
        GROW(ws->chunk_points, n / LSIM_FRAME_CHUNK_MIN + 2);
        if (ok)
            ws->capacity = n;
    }
    if (ok && threads > ws->scratch_count) {
        lsim_frame_scratch *grown = realloc(ws->scratch, (size_t)threads * sizeof *grown);
        if (!grown) {
            ok = 0;
        } else {
            ws->scratch = grown;
            for (int t = ws->scratch_count; t < threads && ok; ++t) {
                memset(&ws->scratch[t], 0, sizeof ws->scratch[t]);
                ok = scratch_alloc(&ws->scratch[t]) == 0;
                ws->scratch_count = t + 1; /* freed by lsim_frame_workspace_free even if partial */
            }
        }
    }
    if (ok && objects > ws->object_capacity) {
        GROW(ws->surfaces.reflectance, objects);
        GROW(ws->object_label, objects);
        GROW(ws->object_instance, objects);
        if (ok)
            ws->object_capacity = objects;
    }
    if (!ok)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY,
                         "out of memory for a frame of %zu beams (reduce the sensor's beam count)", n);
    ws->surfaces.count = objects;
    return LSIM_OK;
}

void lsim_frame_workspace_free(lsim_frame_workspace *ws)
{
    void *arrays[] = {
        ws->returns.range, ws->returns.intensity, ws->returns.cos_incidence, ws->returns.nx, ws->returns.ny,
        ws->returns.nz, ws->returns.object, ws->measured.range, ws->measured.intensity, ws->measured.detected,
        ws->chunk_points, ws->surfaces.reflectance, ws->object_label, ws->object_instance,
    };
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; ++i)
        free(arrays[i]);
    for (int t = 0; t < ws->scratch_count; ++t) {
        rays_free(&ws->scratch[t].rays);
        hits_free(&ws->scratch[t].hits);
    }
    free(ws->scratch);
    memset(ws, 0, sizeof *ws);
}
