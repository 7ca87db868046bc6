/* The scene's engine and frame workspace, kept between frames (see frame_cache.h), and
 * lsim_scene_commit, which builds the engine. */
#include "pipeline/frame_cache.h"

#include "core/context.h"
#include "pipeline/frame.h"
#include "scene/scene.h"

#include <stdlib.h>

typedef struct frame_cache {
    lsim_engine *engine;         /* NULL: none built yet, or the last build failed */
    unsigned long long built_at; /* scene->engine_changes when the engine was built */
    lsim_frame_workspace workspace;
} frame_cache;

static void frame_cache_free(void *cache)
{
    frame_cache *c = cache;
    if (!c)
        return;
    lsim_engine_destroy(c->engine);
    lsim_frame_workspace_free(&c->workspace);
    free(c);
}

/* The scene's cache, created on first use (an empty workspace, no engine). */
static frame_cache *scene_cache(lsim_scene *scene)
{
    if (!scene->frame_cache) {
        frame_cache *c = calloc(1, sizeof *c);
        if (!c) {
            lsim_fail(scene->ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for the scene's frame cache");
            return NULL;
        }
        scene->frame_cache = c;
        scene->frame_cache_free = frame_cache_free;
    }
    return scene->frame_cache;
}

lsim_status lsim_scene_engine_ready(lsim_scene *scene, lsim_engine **engine, int *built)
{
    *built = 0;
    frame_cache *c = scene_cache(scene);
    if (!c)
        return LSIM_ERR_OUT_OF_MEMORY;
    if (!c->engine || c->built_at != scene->engine_changes) {
        lsim_engine_destroy(c->engine); /* before the next is built: one engine's memory at a time */
        c->engine = NULL;
        lsim_status st = lsim_engine_build(scene, lsim_engine_ops_of(scene->engine_kind), &c->engine);
        if (st != LSIM_OK)
            return st;
        c->built_at = scene->engine_changes;
        *built = 1;
    }
    *engine = c->engine;
    return LSIM_OK;
}

lsim_engine *lsim_scene_engine(const lsim_scene *scene)
{
    const frame_cache *c = scene->frame_cache;
    return c && c->built_at == scene->engine_changes ? c->engine : NULL;
}

lsim_status lsim_scene_workspace(lsim_scene *scene, lsim_frame_workspace **out)
{
    frame_cache *c = scene_cache(scene);
    if (!c)
        return LSIM_ERR_OUT_OF_MEMORY;
    *out = &c->workspace;
    return LSIM_OK;
}

lsim_status lsim_scene_commit(lsim_scene *scene)
{
    if (!scene)
        return LSIM_ERR_INVALID_ARGUMENT;
    lsim_scene_lock(scene);
    lsim_engine *engine;
    int built;
    lsim_status st = lsim_scene_engine_ready(scene, &engine, &built);
    lsim_scene_unlock(scene);
    return st;
}
