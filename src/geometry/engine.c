/* The engine seam: a built engine is its operations and their state; the frame calls these
 * wrappers and never an engine's own functions. Ray and hit batches are allocated here. */
#include "geometry/engine.h"

#include "core/clock.h"
#include "core/context.h"
#include "scene/scene.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct lsim_engine {
    const lsim_engine_ops *ops;
    void *state;
};

const lsim_engine_ops *lsim_engine_ops_of(lsim_engine_kind kind)
{
    return kind == LSIM_ENGINE_BRUTE    ? &lsim_engine_brute
           : kind == LSIM_ENGINE_EMBREE ? &lsim_engine_embree
           : kind == LSIM_ENGINE_RASTER ? &lsim_engine_raster
                                        : NULL;
}

lsim_status lsim_engine_build(lsim_scene *scene, const lsim_engine_ops *ops, lsim_engine **out)
{
    lsim_context *ctx = scene->ctx;
    double t0 = lsim_now_ms();
    lsim_engine *e = calloc(1, sizeof *e);
    if (!e)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory creating the %s engine", ops->name);
    e->ops = ops;
    lsim_status st = ops->create(scene, &e->state);
    if (st != LSIM_OK) {
        free(e);
        return st;
    }
    scene->build_ms = lsim_now_ms() - t0;
    *out = e;
    return LSIM_OK;
}

void lsim_engine_destroy(lsim_engine *engine)
{
    if (!engine)
        return;
    engine->ops->destroy(engine->state);
    free(engine);
}

const char *lsim_engine_name(const lsim_engine *engine) { return engine->ops->name; }

lsim_status lsim_engine_set_frame_time(lsim_engine *engine, lsim_context *ctx, double start, double span)
{
    if (!isfinite(start) || !isfinite(span) || span < 0.0)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "frame time start %g s, span %g s: both must be finite and the span >= 0", start, span);
    return engine->ops->set_frame_time(engine->state, ctx, start, span);
}

void lsim_engine_intersect(const lsim_engine *engine, const lsim_rays *rays, size_t count, lsim_hits *hits)
{
    engine->ops->intersect(engine->state, rays, 0, count, hits);
}

void lsim_engine_occluded(const lsim_engine *engine, const lsim_rays *rays, size_t count, uint8_t *blocked)
{
    engine->ops->occluded(engine->state, rays, 0, count, blocked);
}

void lsim_rays_free(lsim_rays *r)
{
    free(r->ox); free(r->oy); free(r->oz); free(r->dx); free(r->dy); free(r->dz);
    free(r->time); free(r->tnear); free(r->tfar); free(r->mask);
    memset(r, 0, sizeof *r);
}

int lsim_rays_alloc(lsim_rays *r, size_t n)
{
    memset(r, 0, sizeof *r);
    size_t m = n ? n : 1;
    r->ox = malloc(m * sizeof *r->ox); r->oy = malloc(m * sizeof *r->oy); r->oz = malloc(m * sizeof *r->oz);
    r->dx = malloc(m * sizeof *r->dx); r->dy = malloc(m * sizeof *r->dy); r->dz = malloc(m * sizeof *r->dz);
    r->time = calloc(m, sizeof *r->time);
    r->tnear = calloc(m, sizeof *r->tnear);
    r->tfar = malloc(m * sizeof *r->tfar);
    r->mask = malloc(m * sizeof *r->mask);
    if (!r->ox || !r->oy || !r->oz || !r->dx || !r->dy || !r->dz || !r->time || !r->tnear || !r->tfar || !r->mask) {
        lsim_rays_free(r);
        return -1;
    }
    for (size_t i = 0; i < m; ++i) {
        r->tfar[i] = 1e30f;
        r->mask[i] = LSIM_RAY_MASK_ALL;
    }
    r->count = n;
    return 0;
}

void lsim_hits_free(lsim_hits *h)
{
    free(h->t); free(h->object); free(h->primitive); free(h->u); free(h->v);
    free(h->ngx); free(h->ngy); free(h->ngz);
    memset(h, 0, sizeof *h);
}

int lsim_hits_alloc(lsim_hits *h, size_t n)
{
    memset(h, 0, sizeof *h);
    size_t m = n ? n : 1;
    h->t = malloc(m * sizeof *h->t);
    h->object = malloc(m * sizeof *h->object);
    h->primitive = malloc(m * sizeof *h->primitive);
    h->u = malloc(m * sizeof *h->u);
    h->v = malloc(m * sizeof *h->v);
    h->ngx = malloc(m * sizeof *h->ngx);
    h->ngy = malloc(m * sizeof *h->ngy);
    h->ngz = malloc(m * sizeof *h->ngz);
    if (!h->t || !h->object || !h->primitive || !h->u || !h->v || !h->ngx || !h->ngy || !h->ngz) {
        lsim_hits_free(h);
        return -1;
    }
    return 0;
}
