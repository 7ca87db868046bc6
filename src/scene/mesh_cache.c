/* Each mesh file imported once per scene load (mesh_cache.h). */
#include "scene/mesh_cache.h"

#include "core/context.h"
#include "core/file_id.h"
#include "core/text.h"

#include <stdlib.h>
#include <string.h>

struct lsim_mesh_cache_entry {
    char *path;
    lsim_file_id id;
    lsim_mesh_arrays mesh; /* untransformed */
};

void lsim_mesh_cache_free(lsim_mesh_cache *cache)
{
    for (size_t i = 0; i < cache->count; ++i) {
        free(cache->entries[i].path);
        lsim_mesh_arrays_free(&cache->entries[i].mesh);
    }
    free(cache->entries);
    memset(cache, 0, sizeof *cache);
}

/* The entry of `path`, imported on first use; NULL with the error in ctx. */
static const lsim_mesh_arrays *cache_get(lsim_mesh_cache *cache, lsim_context *ctx, const char *path)
{
    const lsim_file_id id = lsim_file_id_of(path);
    for (size_t i = 0; i < cache->count; ++i)
        if (lsim_file_id_same(&cache->entries[i].id, cache->entries[i].path, &id, path))
            return &cache->entries[i].mesh;
    if (cache->count == cache->capacity) {
        size_t n = cache->capacity ? 2 * cache->capacity : 4;
        lsim_mesh_cache_entry *grown = realloc(cache->entries, n * sizeof *grown);
        if (!grown) {
            lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory reading mesh '%s'", path);
            return NULL;
        }
        cache->entries = grown;
        cache->capacity = n;
    }
    lsim_mesh_cache_entry *e = &cache->entries[cache->count];
    memset(e, 0, sizeof *e);
    e->path = lsim_strdup(path);
    if (!e->path) {
        lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory reading mesh '%s'", path);
        return NULL;
    }
    e->id = id;
    if (lsim_mesh_read(ctx, path, &e->mesh) != LSIM_OK) {
        free(e->path);
        return NULL;
    }
    ++cache->count;
    return &e->mesh;
}

lsim_status lsim_mesh_cache_add(lsim_mesh_cache *cache, lsim_scene *scene, const char *path,
                                const lsim_object_desc *desc)
{
    if (!cache || !scene || !path || !desc)
        return LSIM_ERR_INVALID_ARGUMENT;
    if (lsim_object_desc_validate(scene->ctx, desc) != LSIM_OK)
        return lsim_context_last_status(scene->ctx);
    const lsim_mesh_arrays *mesh = cache_get(cache, scene->ctx, path);
    if (!mesh)
        return lsim_context_last_status(scene->ctx);
    lsim_object o;
    lsim_status st = lsim_mesh_place(scene->ctx, path, mesh, desc, &o);
    if (st != LSIM_OK)
        return st;
    return lsim_scene_take_object(scene, &o, desc);
}
