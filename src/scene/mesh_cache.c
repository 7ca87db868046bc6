/* Each mesh file imported once per scene load, its static copies sharing one array (mesh_cache.h). */
#include "scene/mesh_cache.h"

#include "core/context.h"
#include "core/file_id.h"
#include "core/motion.h"
#include "core/motion_make.h"
#include "core/text.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct scaled_share {
    double scale;
    lsim_mesh_share *share;
} scaled_share;

struct lsim_mesh_cache_entry {
    char *path;
    lsim_file_id id;
    lsim_mesh_arrays mesh; /* untransformed */
    size_t placed;         /* objects placed from it (the first gets a copy of its own) */
    scaled_share *shares;  /* one per scale the copies use */
    size_t share_count;
};

void lsim_mesh_cache_free(lsim_mesh_cache *cache)
{
    for (size_t i = 0; i < cache->count; ++i) {
        lsim_mesh_cache_entry *e = &cache->entries[i];
        free(e->path);
        lsim_mesh_arrays_free(&e->mesh);
        for (size_t k = 0; k < e->share_count; ++k)
            lsim_mesh_share_release(e->shares[k].share);
        free(e->shares);
    }
    free(cache->entries);
    memset(cache, 0, sizeof *cache);
}

/* The entry of `path`, imported on first use; NULL with the error in ctx. */
static lsim_mesh_cache_entry *cache_get(lsim_mesh_cache *cache, lsim_context *ctx, const char *path)
{
    const lsim_file_id id = lsim_file_id_of(path);
    for (size_t i = 0; i < cache->count; ++i)
        if (lsim_file_id_same(&cache->entries[i].id, cache->entries[i].path, &id, path))
            return &cache->entries[i];
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
    return e;
}

/* The entry's arrays at `scale` in the copies' own frame, made on first use; NULL on error. */
static lsim_mesh_share *share_at(lsim_mesh_cache_entry *e, lsim_context *ctx, double scale)
{
    for (size_t k = 0; k < e->share_count; ++k)
        if (e->shares[k].scale == scale)
            return e->shares[k].share;
    scaled_share *grown = realloc(e->shares, (e->share_count + 1) * sizeof *grown);
    lsim_mesh_share *sh = grown ? calloc(1, sizeof *sh) : NULL;
    if (grown)
        e->shares = grown;
    if (!sh) {
        lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory placing mesh '%s' (%zu triangles)", e->path,
                  e->mesh.triangle_count);
        return NULL;
    }
    lsim_object_desc scaled; /* the copies' own frame: the scale only, their poses place them */
    lsim_object_desc_init(&scaled);
    scaled.scale = scale;
    lsim_object placed;
    if (lsim_mesh_place(ctx, e->path, &e->mesh, &scaled, &placed) != LSIM_OK) {
        free(sh);
        return NULL;
    }
    sh->vertices = placed.vertices;
    sh->indices = placed.indices;
    sh->vertex_count = placed.vertex_count;
    sh->triangle_count = placed.triangle_count;
    for (int a = 0; a < 3; ++a)
        sh->lo[a] = sh->hi[a] = sh->vertices[a];
    for (size_t i = 0; i < sh->vertex_count; ++i)
        for (int a = 0; a < 3; ++a) {
            const float v = sh->vertices[3 * i + (size_t)a];
            sh->lo[a] = v < sh->lo[a] ? v : sh->lo[a];
            sh->hi[a] = v > sh->hi[a] ? v : sh->hi[a];
        }
    sh->refs = 1; /* the cache's */
    sh->first = SIZE_MAX;
    e->shares[e->share_count++] = (scaled_share){scale, sh};
    return sh;
}

/* A static copy after the first: an instance of the shared arrays, placed by its pose. */
static lsim_status add_instance(lsim_mesh_cache_entry *e, lsim_scene *scene, const lsim_object_desc *desc)
{
    lsim_mesh_share *sh = share_at(e, scene->ctx, desc->scale);
    if (!sh)
        return lsim_context_last_status(scene->ctx);
    lsim_object o;
    memset(&o, 0, sizeof o);
    o.shape = LSIM_SHAPE_TRIANGLES;
    strcpy(o.kind, "mesh");
    static const double zero[3] = {0.0, 0.0, 0.0};
    lsim_status st = lsim_motion_make_rates(scene->ctx, "object", desc->position, desc->rotation_deg, zero, zero,
                                            &o.motion);
    if (st != LSIM_OK)
        return st;
    ++sh->refs; /* the object's, released by the scene (on failure too) */
    o.share = sh;
    o.vertices = sh->vertices;
    o.indices = sh->indices;
    o.vertex_count = sh->vertex_count;
    o.triangle_count = sh->triangle_count;
    return lsim_scene_take_object(scene, &o, desc);
}

lsim_status lsim_mesh_cache_add(lsim_mesh_cache *cache, lsim_scene *scene, const char *path,
                                const lsim_object_desc *desc)
{
    if (!cache || !scene || !path || !desc)
        return LSIM_ERR_INVALID_ARGUMENT;
    if (lsim_object_desc_validate(scene->ctx, desc) != LSIM_OK)
        return lsim_context_last_status(scene->ctx);
    lsim_mesh_cache_entry *e = cache_get(cache, scene->ctx, path);
    if (!e)
        return lsim_context_last_status(scene->ctx);
    char what[4200];
    snprintf(what, sizeof what, "mesh '%s'", path);
    /* before any array is made for it: a scene of 1,999 copies of a 100k-triangle mesh stops here */
    lsim_status st = lsim_scene_check_room(scene, e->mesh.triangle_count, what);
    if (st != LSIM_OK)
        return st;
    if (e->placed > 0 && lsim_object_desc_motion(desc) == 0)
        st = add_instance(e, scene, desc);
    else {
        lsim_object o;
        st = lsim_mesh_place(scene->ctx, path, &e->mesh, desc, &o);
        if (st == LSIM_OK)
            st = lsim_scene_take_object(scene, &o, desc);
    }
    if (st == LSIM_OK)
        ++e->placed;
    return st;
}
