/* The mesh files read during one scene load, each imported once however many objects use it
 * (a street of 200 copies of one car model imports the model once, not 200 times: each
 * import starts a contained importer process). Keyed by the file's device and inode, so two
 * spellings of one path share an entry; the resolved path where stat fails.
 *
 * The first object of a file gets a world-space copy of its own (as a lone mesh always did);
 * every later static object of the file at the same scale is an instance of one shared array
 * (lsim_mesh_share, in the objects' own frame, placed by each object's pose), so 1,000 copies of
 * a 100k-triangle mesh hold its triangles twice, not 1,000 times. Moving copies get their own.
 * The scene's limits (LSIM_SCENE_MAX_TRIANGLES, copies included) are checked before anything is
 * made for an object. */
#ifndef LSIM_SCENE_MESH_CACHE_H
#define LSIM_SCENE_MESH_CACHE_H

#include "scene/scene.h"

typedef struct lsim_mesh_cache_entry lsim_mesh_cache_entry;

typedef struct lsim_mesh_cache {
    lsim_mesh_cache_entry *entries;
    size_t count, capacity;
} lsim_mesh_cache;

/* Add the mesh in `path` to the scene as an object placed by `desc`, importing the file on
 * its first use. Errors as lsim_scene_add_mesh. */
lsim_status lsim_mesh_cache_add(lsim_mesh_cache *cache, lsim_scene *scene, const char *path,
                                const lsim_object_desc *desc);
void lsim_mesh_cache_free(lsim_mesh_cache *cache);

#endif
