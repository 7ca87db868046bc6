/* The scene: objects (triangle meshes and spheres) in world space, materials and labels. */
#ifndef LSIM_SCENE_SCENE_H
#define LSIM_SCENE_SCENE_H

#include "lidarsim.h"
#include "core/vec.h"
#include "optics/brdf.h"
#include "points/points.h"
#include "scene/mesh_import.h"
#include "scene/name_index.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define LSIM_NAME_MAX 64

struct lsim_calib_material;

typedef struct lsim_material {
    char name[LSIM_NAME_MAX];
    lsim_brdf brdf;
    struct lsim_calib_material *calibration; /* owned; NULL: parametric noise */
} lsim_material;

typedef enum lsim_shape { LSIM_SHAPE_TRIANGLES = 0, LSIM_SHAPE_SPHERE } lsim_shape;

/* What one scene may hold, checked before an object's arrays are made (lsim_scene_check_room): a
 * scene of 1,999 YAML aliases of one 100k-triangle mesh object asked for 200 M triangles (22 GB).
 * Triangles count every object's, each instance of a shared mesh included (the raster engine and
 * the viewer draw them all); 100 M is the benchmark's largest mesh. */
#define LSIM_SCENE_MAX_TRIANGLES 100000000ull
#define LSIM_SCENE_MAX_OBJECTS 1000000ull

/* Triangles that several objects share (mesh_cache.c: the instances of one mesh file at one scale),
 * in the objects' own frame: each object places them by its constant pose (`motion`, `posed`), so
 * 1,000 copies of a mesh hold its arrays once and the Embree engine builds its BVH once. */
typedef struct lsim_mesh_share {
    float *vertices;   /* 3 * vertex_count + 1 (padded for Embree, as lsim_mesh_place's) */
    uint32_t *indices; /* 3 * triangle_count */
    size_t vertex_count, triangle_count;
    float lo[3], hi[3]; /* the vertices' bounding box */
    size_t refs;       /* holders: the mesh cache and each object */
    size_t first;      /* the first object that uses it (SIZE_MAX: none yet) */
} lsim_mesh_share;

/* Drop one holder; the last frees the arrays. */
void lsim_mesh_share_release(lsim_mesh_share *share);

typedef struct lsim_object {
    lsim_shape shape;
    char kind[16];            /* "box", "sphere", "plane", "mesh", "triangles" (for messages) */
    uint32_t material;        /* index into scene->materials */
    uint32_t label;           /* semantic id */
    uint32_t instance;        /* 1-based, unique per object */
    /* triangles, world space (own frame when `motion` places them) */
    lsim_mesh_share *share;   /* NULL: the arrays are the object's own; else share's (posed) */
    float *vertices;          /* 3 * vertex_count */
    uint32_t *indices;        /* 3 * triangle_count */
    size_t vertex_count, triangle_count;
    /* sphere, world space */
    double center[3], radius;
    /* NULL: static, the arrays above are in world space. Else the arrays are in the object's own
     * frame and lsim_motion_pose_at(motion, t) places them in the world at time t (owned). */
    struct lsim_motion *motion;
    char name[LSIM_NAME_MAX]; /* "" when unnamed */
    /* the pose its description placed it at (lsim_scene_set_object_pose's reference) */
    double ref_position[3], ref_rpy_deg[3];
    int posed;                /* 1: static but re-placeable; `motion` holds its constant pose */
} lsim_object;

/* A growing array of label names and ids. */
typedef struct lsim_label_list {
    lsim_label_entry *entries;
    size_t count, capacity;
    lsim_name_index index; /* name -> entry */
} lsim_label_list;

/* The scene's label map: `names` holds every class with its id; `displaced` the default
 * (SemanticKITTI) classes whose id the scene's `labels:` gave to another name. */
typedef struct lsim_label_map {
    lsim_label_list names;
    lsim_label_list displaced;
    uint64_t id_used[1024];  /* bit per id 0..65535: taken by an entry of `names` */
    uint32_t fresh_from;     /* every id in [100, fresh_from) is taken (automatic ids start here) */
} lsim_label_map;

/* Fog from visibility (Hahner et al., ICCV 2021, and their code): the visibility is the
 * meteorological optical range V, where a black target keeps 5 % contrast (Koschmieder), so the
 * extinction is alpha = ln(20) / V; the backscattering coefficient is beta = 0.046 / V. */
#define LSIM_LN_20 2.995732273553991
#define LSIM_FOG_BACKSCATTER_MOR 0.046
#define LSIM_EXTINCTION_MAX 10.0  /* 1/m: a visibility of 0.3 m */
#define LSIM_VISIBILITY_MIN 0.3   /* m */

struct lsim_scene {
    lsim_context *ctx;
    /* Held (recursive) by every call that reads or changes the scene's frame state: the scans
     * (the engine, frame time, frame_cache), commit, the object poses, the fit's evaluation and
     * the builders and setters, so that threads sharing a scene take turns (lsim_scene_lock). */
    pthread_mutex_t lock;
    lsim_material *materials;
    size_t material_count, material_capacity;
    lsim_name_index material_index; /* name -> material (lsim_scene_find_material) */
    lsim_object *objects;
    size_t object_count, object_capacity;
    size_t triangle_total;        /* every object's triangles (at most LSIM_SCENE_MAX_TRIANGLES) */
    lsim_name_index object_index; /* name -> object (lsim_scene_find_object); unnamed ones not */
    size_t name_compares;         /* names compared by lsim_object_name_check (tests: linear, not quadratic) */
    lsim_label_map labels;     /* defaults (SemanticKITTI) + scene overrides + new names */
    /* The engine: the scene knows none (src/geometry/ sits above it and reads the objects). It
     * keeps which engine to build and its settings, and counts the changes a built engine does not
     * follow: an object added, a static object made an instance (lsim_scene_set_object_pose), another
     * engine kind, the raster settings of a raster engine. The pipeline builds the engine at
     * lsim_scene_commit or the first frame, keeps it in frame_cache with the count it was built at,
     * and rebuilds it when the count has moved (pipeline/frame_cache.h). */
    lsim_engine_kind engine_kind; /* which engine lsim_scene_commit builds */
    lsim_raster_options raster;   /* the raster engine's settings (read when it is built) */
    unsigned long long engine_changes;
    /* What the pipeline keeps for the next frame (multi-frame use): the engine and the frame
     * workspace, opaque here; the pipeline sets both, lsim_scene_destroy calls
     * frame_cache_free(frame_cache) before it frees the objects the engine was built over. */
    void *frame_cache;
    void (*frame_cache_free)(void *cache);
    double load_ms, build_ms;   /* time spent loading the scene file / building the BVH */
    int max_bounces;            /* mirror / glass recursion depth */
    double extinction;          /* atmosphere alpha, 1/m */
    double backscatter;         /* atmosphere (fog) backscatter coefficient, 1/(m sr) */
    double sun_direction[3];    /* unit, world, towards the sun */
    double sun_irradiance;      /* in-band irradiance, W/m^2 (0: no ambient light) */
};

/* Take and release the scene's lock (recursive: a call holding it may call another that takes it). */
void lsim_scene_lock(const lsim_scene *scene);
void lsim_scene_unlock(const lsim_scene *scene);

/* A calibrated material from an in-memory calibration (copied). */
lsim_status lsim_scene_add_calibration(lsim_scene *scene, const char *name, const struct lsim_calib_material *measured);
/* 1 if some object of the scene moves (a velocity or trajectory), else 0. */
int lsim_scene_has_motion(const lsim_scene *scene);
/* 1 if some object is placed by a motion the engine applies each frame: a moving object, or a
 * static one re-placed by lsim_scene_set_object_pose (which does not count as motion above). */
int lsim_scene_has_instances(const lsim_scene *scene);
/* A new object's name: 1..63 characters of [A-Za-z0-9_.-], not used by another object (a hashed
 * lookup; the names it compared are added to scene->name_compares). */
lsim_status lsim_object_name_check(lsim_scene *scene, const char *name);
/* Index of an object by name (hashed: O(1)), or -1; "" finds nothing. */
long lsim_scene_find_object(const lsim_scene *scene, const char *name);
/* The objects' names as a name_index array (for scene->object_index). */
lsim_name_array lsim_scene_object_names(const lsim_scene *scene);
/* Index of a material by name, or -1. */
long lsim_scene_find_material(const lsim_scene *scene, const char *name);
/* Check a placement: finite, within +-1e7 m, scale in (0, 1e6]. Call before transforming. */
lsim_status lsim_object_desc_validate(lsim_context *ctx, const lsim_object_desc *desc);
/* LSIM_OK if one more object of `triangles` triangles fits the scene's limits (LSIM_SCENE_MAX_*),
 * else LSIM_ERR_INVALID_ARGUMENT naming `what`, the counts, the limit and what to do. */
lsim_status lsim_scene_check_room(lsim_scene *scene, size_t triangles, const char *what);
/* Add an object whose arrays the scene takes ownership of (freed on failure too). An object with
 * a `share` keeps its `motion` (its pose) and is posed; it holds one reference of the share. */
lsim_status lsim_scene_take_object(lsim_scene *scene, lsim_object *object, const lsim_object_desc *desc);

/* Label map: SemanticKITTI defaults, user ids, automatic ids for new names. A default class
 * whose id was given to another name cannot be used (resolve fails, naming both). */
lsim_status lsim_label_map_init_defaults(lsim_context *ctx, lsim_label_map *map);
void lsim_label_map_free(lsim_label_map *map);
/* Id of `name`, adding it with a fresh id (>= 100, unused) if it is new. */
lsim_status lsim_label_map_resolve(lsim_context *ctx, lsim_label_map *map, const char *name, uint32_t *id);
lsim_status lsim_label_map_set(lsim_context *ctx, lsim_label_map *map, const char *name, uint32_t id);
/* 1 if `name` is a class of the map (a default, one set or resolved, or a retired default). */
int lsim_label_map_knows(const lsim_label_map *map, const char *name);
/* The class name nearest to `name` by edit distance (at most 2, or a third of its length), or NULL. */
const char *lsim_label_map_closest(const lsim_label_map *map, const char *name);

/* How desc moves: 0 static, 1 constant rates (the object's arrays are then in its own frame,
 * scaled only, placed by the motion), 2 a trajectory (the arrays are placed on the trajectory's
 * body by desc's scale, rotation and position). */
int lsim_object_desc_motion(const lsim_object_desc *desc);

/* Transform n points (xyz interleaved, in place) by scale, rotation and translation of desc:
 * into the world for a static object or one on a trajectory (the body frame), scale only for an
 * object with constant rates (lsim_object_desc_motion). */
void lsim_transform_vertices(float *vertices, size_t n, const lsim_object_desc *desc);

/* Read a mesh file: checked (mesh_check.h), imported by assimp in a contained child
 * (mesh_import.h), every coordinate finite and within +-1e7. Untransformed. */
lsim_status lsim_mesh_read(lsim_context *ctx, const char *path, lsim_mesh_arrays *out);
/* A copy of `mesh` as an object placed by desc's transform (path is for messages). */
lsim_status lsim_mesh_place(lsim_context *ctx, const char *path, const lsim_mesh_arrays *mesh,
                            const lsim_object_desc *desc, lsim_object *out);
/* Read and place in one step. */
lsim_status lsim_mesh_load(lsim_context *ctx, const char *path, const lsim_object_desc *desc,
                           lsim_object *out);

#endif
