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

static int scratch_alloc(lsim_frame_scratch *s)
{
    int ok = lsim_rays_alloc(&s->rays, LSIM_FRAME_CHUNK) == 0;
    ok = lsim_hits_alloc(&s->hits, LSIM_FRAME_CHUNK) == 0 && ok;
    const size_t n = LSIM_FRAME_CHUNK;
    GROW(s->contributions, LSIM_SLICE_CONTRIBUTIONS);
    GROW(s->beam_start, n); GROW(s->beam_count, n); GROW(s->beam_background, n);
    for (int k = 0; k < 4; ++k) {
        GROW(s->rng.w[k], n);
        GROW(s->facing[k], n);
    }
    ok = lsim_paths_alloc(&s->paths) == 0 && ok;
    return ok ? 0 : -1;
}

#define BIT(f) LSIM_FIELD_BIT(LSIM_FIELD_##f)

/* An echo array: grown to `cap` slots when needed (and new or too small), freed when not. */
#define ECHO_ARRAY(field, needed)                                                                  \
    do {                                                                                           \
        if (!(needed)) {                                                                           \
            free(field);                                                                           \
            (field) = NULL;                                                                        \
        } else if (grow_all || !(field)) {                                                         \
            GROW(field, cap);                                                                      \
        }                                                                                          \
    } while (0)

lsim_status lsim_frame_workspace_reserve(lsim_context *ctx, lsim_frame_workspace *ws, size_t n, int slots,
                                         size_t objects, int threads, uint32_t fields)
{
    int ok = 1;
    size_t s = n * (size_t)slots + 1; /* + the miss slot (pipeline/emit.c) */
    const int grow_all = s > ws->slot_capacity;
    const size_t cap = grow_all ? s : ws->slot_capacity;
    lsim_echo_buffer *e = &ws->echoes;
    ECHO_ARRAY(e->range, 1);
    ECHO_ARRAY(e->range_clean, fields & (BIT(X_CLEAN) | BIT(Y_CLEAN) | BIT(Z_CLEAN)));
    ECHO_ARRAY(e->intensity, fields & (BIT(INTENSITY) | BIT(POWER) | BIT(REFLECTIVITY)));
    ECHO_ARRAY(e->epw, fields & BIT(EPW));
    ECHO_ARRAY(e->cos_incidence, fields & BIT(INCIDENCE));
    const int normal = (fields & (BIT(NX) | BIT(NY) | BIT(NZ))) != 0;
    ECHO_ARRAY(e->nx, normal);
    ECHO_ARRAY(e->ny, normal);
    ECHO_ARRAY(e->nz, normal);
    ECHO_ARRAY(e->object, fields & (BIT(LABEL) | BIT(INSTANCE)));
    if (ok)
        ws->slot_capacity = cap;
    if (ok && n > ws->capacity) {
        GROW(ws->echoes.count, n);
        GROW(ws->chunk_points, n + 2);
        if (ok)
            ws->capacity = n;
    }
    ws->echoes.slots = slots;
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
        lsim_surfaces *sf = &ws->surfaces;
        GROW(sf->brdf, objects); GROW(sf->thin, objects); GROW(sf->albedo, objects); GROW(sf->lambert, objects);
        GROW(sf->label, objects); GROW(sf->instance, objects); GROW(sf->calibration, objects);
        if (ok)
            ws->object_capacity = objects;
    }
    if (!ok)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY,
                         "out of memory for a frame of %zu beams x %d returns (reduce the beam count or "
                         "max_returns)", n, slots);
    ws->surfaces.count = objects;
    return LSIM_OK;
}

lsim_status lsim_frame_bloom_reserve(lsim_context *ctx, lsim_frame_workspace *ws, size_t n)
{
    int ok = 1;
    if (n > ws->bloom_capacity) {
        lsim_bloom_result *b = &ws->bloom;
        GROW(b->range, n); GROW(b->power, n); GROW(b->object, n);
        GROW(b->cos_incidence, n); GROW(b->nx, n); GROW(b->ny, n); GROW(b->nz, n);
        if (ok)
            ws->bloom_capacity = n;
    }
    return ok ? LSIM_OK : lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for the blooming of %zu beams", n);
}

void lsim_frame_workspace_free(lsim_frame_workspace *ws)
{
    lsim_echo_buffer *e = &ws->echoes;
    lsim_bloom_result *b = &ws->bloom;
    void *arrays[] = {
        e->range, e->range_clean, e->intensity, e->epw, e->cos_incidence, e->nx, e->ny, e->nz, e->object, e->count,
        ws->chunk_points, ws->surfaces.brdf, ws->surfaces.thin, ws->surfaces.albedo, ws->surfaces.lambert,
        ws->surfaces.label, (void *)ws->surfaces.calibration,
        ws->surfaces.instance, b->range, b->power, b->object, b->cos_incidence, b->nx, b->ny, b->nz,
    };
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; ++i)
        free(arrays[i]);
    lsim_frame_bloom_free(ws);
    for (int t = 0; t < ws->scratch_count; ++t) {
        lsim_rays_free(&ws->scratch[t].rays);
        lsim_hits_free(&ws->scratch[t].hits);
        free(ws->scratch[t].contributions);
        free(ws->scratch[t].beam_start);
        free(ws->scratch[t].beam_count);
        free(ws->scratch[t].beam_background);
        for (int k = 0; k < 4; ++k) {
            free(ws->scratch[t].rng.w[k]);
            free(ws->scratch[t].facing[k]);
        }
        lsim_paths_free(&ws->scratch[t].paths);
    }
    free(ws->scratch);
    memset(ws, 0, sizeof *ws);
}
