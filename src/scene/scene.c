/* Scene lifetime, settings and object bookkeeping (materials: scene_materials.c). */
#include "scene/scene.h"

#include "core/context.h"
#include "core/text.h"
#include "calib/calibration.h"
#include "core/motion.h"
#include "core/motion_make.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lsim_object_desc_init(lsim_object_desc *desc)
{
    memset(desc, 0, sizeof *desc);
    desc->scale = 1.0;
}

lsim_status lsim_scene_create(lsim_context *ctx, lsim_scene **out)
{
    if (!ctx || !out)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_scene_create: ctx and out must not be NULL");
    lsim_scene *s = calloc(1, sizeof *s);
    if (!s)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory creating a scene");
    pthread_mutexattr_t attr;
    int locked = pthread_mutexattr_init(&attr) == 0;
    if (locked) {
        locked = pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE) == 0 &&
                 pthread_mutex_init(&s->lock, &attr) == 0;
        pthread_mutexattr_destroy(&attr);
    }
    if (!locked) {
        free(s);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory creating a scene (its lock)");
    }
    s->ctx = ctx;
    s->max_bounces = 5;
    s->sun_direction[2] = 1.0;
    lsim_raster_options_init(&s->raster);
    lsim_status st = lsim_label_map_init_defaults(ctx, &s->labels);
    if (st == LSIM_OK)
        st = lsim_scene_add_lambertian(s, "default", 0.5);
    if (st != LSIM_OK) {
        lsim_scene_destroy(s);
        return st;
    }
    *out = s;
    return LSIM_OK;
}

void lsim_mesh_share_release(lsim_mesh_share *share)
{
    if (!share || --share->refs > 0)
        return;
    free(share->vertices);
    free(share->indices);
    free(share);
}

static void object_free(lsim_object *o)
{
    if (o->share) {
        lsim_mesh_share_release(o->share);
        o->share = NULL;
    } else {
        free(o->vertices);
        free(o->indices);
    }
    lsim_motion_free(o->motion);
    o->vertices = NULL;
    o->indices = NULL;
    o->motion = NULL;
}

void lsim_scene_destroy(lsim_scene *scene)
{
    if (!scene)
        return;
    if (scene->frame_cache_free) /* the engine among it: before the objects it was built over */
        scene->frame_cache_free(scene->frame_cache);
    for (size_t i = 0; i < scene->object_count; ++i)
        object_free(&scene->objects[i]);
    free(scene->objects);
    lsim_name_index_free(&scene->object_index);
    for (size_t i = 0; i < scene->material_count; ++i)
        if (scene->materials[i].calibration) {
            lsim_calib_material_free(scene->materials[i].calibration);
            free(scene->materials[i].calibration);
        }
    free(scene->materials);
    lsim_name_index_free(&scene->material_index);
    lsim_label_map_free(&scene->labels);
    pthread_mutex_destroy(&scene->lock);
    free(scene);
}

void lsim_scene_lock(const lsim_scene *scene)
{
    pthread_mutex_lock((pthread_mutex_t *)&scene->lock);
}

void lsim_scene_unlock(const lsim_scene *scene)
{
    pthread_mutex_unlock((pthread_mutex_t *)&scene->lock);
}

lsim_status lsim_scene_set_max_bounces(lsim_scene *scene, int bounces)
{
    if (!scene)
        return LSIM_ERR_INVALID_ARGUMENT;
    if (bounces < 0 || bounces > 16)
        return lsim_fail(scene->ctx, LSIM_ERR_INVALID_ARGUMENT, "max_bounces: %d is invalid; must be 0..16", bounces);
    lsim_scene_lock(scene);
    scene->max_bounces = bounces;
    lsim_scene_unlock(scene);
    return LSIM_OK;
}

lsim_status lsim_scene_set_atmosphere(lsim_scene *scene, double extinction_per_m, double backscatter_per_m_sr)
{
    if (!scene)
        return LSIM_ERR_INVALID_ARGUMENT;
    if (!(extinction_per_m >= 0.0 && extinction_per_m <= LSIM_EXTINCTION_MAX))
        return lsim_fail(scene->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "atmosphere.extinction_per_m: %g is invalid; must be 0..%g 1/m (fog of 10 m visibility is 0.30)",
                         extinction_per_m, LSIM_EXTINCTION_MAX);
    if (!(backscatter_per_m_sr >= 0.0 && backscatter_per_m_sr <= extinction_per_m))
        return lsim_fail(scene->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "atmosphere.backscatter_per_m_sr: %g is invalid; must be 0..extinction (%g)", backscatter_per_m_sr,
                         extinction_per_m);
    lsim_scene_lock(scene);
    scene->extinction = extinction_per_m;
    scene->backscatter = backscatter_per_m_sr;
    lsim_scene_unlock(scene);
    return LSIM_OK;
}

lsim_status lsim_scene_set_visibility(lsim_scene *scene, double visibility_m)
{
    if (!scene)
        return LSIM_ERR_INVALID_ARGUMENT;
    if (!(visibility_m >= LSIM_VISIBILITY_MIN && isfinite(visibility_m)))
        return lsim_fail(scene->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "atmosphere.visibility_m: %g is invalid; must be > 0 m, at least %g m (extinction ln(20) / "
                         "visibility <= %g 1/m)", visibility_m, LSIM_VISIBILITY_MIN, LSIM_EXTINCTION_MAX);
    return lsim_scene_set_atmosphere(scene, LSIM_LN_20 / visibility_m, LSIM_FOG_BACKSCATTER_MOR / visibility_m);
}

lsim_status lsim_scene_set_ambient(lsim_scene *scene, const double sun_direction[3], double irradiance_w_m2)
{
    if (!scene || !sun_direction)
        return LSIM_ERR_INVALID_ARGUMENT;
    double n = sqrt(sun_direction[0] * sun_direction[0] + sun_direction[1] * sun_direction[1] +
                    sun_direction[2] * sun_direction[2]);
    if (!(n > 1e-9) || !isfinite(n))
        return lsim_fail(scene->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "ambient.sun_direction: [%g, %g, %g] must be a non-zero vector towards the sun",
                         sun_direction[0], sun_direction[1], sun_direction[2]);
    if (!(irradiance_w_m2 >= 0.0 && irradiance_w_m2 <= 2000.0))
        return lsim_fail(scene->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "ambient.irradiance_w_m2: %g is invalid; must be 0..2000 W/m^2 (full sun in a 905 nm "
                         "filter band is ~5-50)", irradiance_w_m2);
    lsim_scene_lock(scene);
    for (int i = 0; i < 3; ++i)
        scene->sun_direction[i] = sun_direction[i] / n;
    scene->sun_irradiance = irradiance_w_m2;
    lsim_scene_unlock(scene);
    return LSIM_OK;
}

lsim_status lsim_scene_set_label_id(lsim_scene *scene, const char *name, uint32_t id)
{
    if (!scene || !name)
        return LSIM_ERR_INVALID_ARGUMENT;
    if (scene->object_count > 0)
        return lsim_fail(scene->ctx, LSIM_ERR_STATE,
                         "label '%s': set label ids before adding objects (the scene already has %zu objects, "
                         "whose ids are fixed when they are added)", name, scene->object_count);
    lsim_scene_lock(scene); /* the label table a frame copies into its points */
    lsim_status st = lsim_label_map_set(scene->ctx, &scene->labels, name, id);
    lsim_scene_unlock(scene);
    return st;
}

/* Coordinates beyond this are rejected: far outside any lidar's reach, and float precision
 * (and Embree's own checks) break down long before float's limits. */
#define LSIM_WORLD_LIMIT_M 1e7

lsim_status lsim_object_desc_validate(lsim_context *ctx, const lsim_object_desc *desc)
{
    for (int i = 0; i < 3; ++i)
        if (!isfinite(desc->position[i]) || !isfinite(desc->rotation_deg[i]))
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "object position and rotation must be finite numbers");
    for (int i = 0; i < 3; ++i)
        if (fabs(desc->position[i]) > LSIM_WORLD_LIMIT_M)
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "object position [%g, %g, %g] must be within +-1e7 m of the origin",
                             desc->position[0], desc->position[1], desc->position[2]);
    if (!(desc->scale > 0.0) || !(desc->scale <= 1e6))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "object scale %g must be a number in (0, 1e6]", desc->scale);
    lsim_status st = lsim_motion_check_rates(ctx, "object", desc->velocity, desc->angular_velocity_deg_s);
    if (st == LSIM_OK && desc->trajectory_count > 0)
        st = lsim_motion_check_keys(ctx, "object", desc->trajectory_count, desc->trajectory_t,
                                    desc->trajectory_position, desc->trajectory_rpy_deg);
    return st;
}

int lsim_object_desc_motion(const lsim_object_desc *desc)
{
    if (desc->trajectory_count > 0)
        return 2;
    for (int i = 0; i < 3; ++i)
        if (desc->velocity[i] != 0.0 || desc->angular_velocity_deg_s[i] != 0.0)
            return 1;
    return 0;
}

/* The motion of a new object (NULL for a static one): constant rates from desc's pose at t = 0,
 * or desc's trajectory (the arrays already sit on its body, lsim_transform_vertices). */
static lsim_status object_motion(lsim_context *ctx, const lsim_object_desc *desc, struct lsim_motion **out)
{
    *out = NULL;
    switch (lsim_object_desc_motion(desc)) {
    case 1:
        return lsim_motion_make_rates(ctx, "object", desc->position, desc->rotation_deg, desc->velocity,
                                      desc->angular_velocity_deg_s, out);
    case 2:
        return lsim_motion_make_keys(ctx, "object", desc->trajectory_count, desc->trajectory_t,
                                     desc->trajectory_position, desc->trajectory_rpy_deg, out);
    default:
        return LSIM_OK;
    }
}

/* A shared mesh's instance: its vertices in the world by its pose; the box's corners first (all
 * within the limit: every vertex is), vertex by vertex only otherwise. */
static lsim_status check_instance_extent(lsim_context *ctx, const lsim_object *o)
{
    const lsim_pose pose = lsim_pose_make(o->motion->position, o->motion->rpy_deg);
    const lsim_mesh_share *sh = o->share;
    int inside = 1;
    for (int c = 0; c < 8 && inside; ++c) {
        const lsim_vec3 p = lsim_v3_add(lsim_mat3_mul(&pose.r, lsim_v3(c & 1 ? sh->hi[0] : sh->lo[0],
                                                                        c & 2 ? sh->hi[1] : sh->lo[1],
                                                                        c & 4 ? sh->hi[2] : sh->lo[2])), pose.t);
        inside = fabs(p.x) <= LSIM_WORLD_LIMIT_M && fabs(p.y) <= LSIM_WORLD_LIMIT_M && fabs(p.z) <= LSIM_WORLD_LIMIT_M;
    }
    for (size_t i = 0; i < o->vertex_count && !inside; ++i) {
        const float *v = o->vertices + 3 * i;
        const lsim_vec3 p = lsim_v3_add(lsim_mat3_mul(&pose.r, lsim_v3(v[0], v[1], v[2])), pose.t);
        const double w[3] = {p.x, p.y, p.z};
        for (int a = 0; a < 3; ++a)
            if (!(fabs(w[a]) <= LSIM_WORLD_LIMIT_M))
                return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                                 "%s: vertex %zu lies at %g m, beyond +-1e7 m of the origin (check its units and scale)",
                                 o->kind, i, w[a]);
    }
    return LSIM_OK;
}

lsim_status lsim_scene_check_room(lsim_scene *scene, size_t triangles, const char *what)
{
    if (scene->object_count >= LSIM_SCENE_MAX_OBJECTS)
        return lsim_fail(scene->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "%s: the scene already has %zu objects, the limit (LSIM_SCENE_MAX_OBJECTS); merge objects "
                         "into meshes or split the scene", what, scene->object_count);
    if (triangles > LSIM_SCENE_MAX_TRIANGLES - scene->triangle_total)
        return lsim_fail(scene->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "%s: its %zu triangles would make the scene's %zu triangles (%zu objects, copies of a mesh "
                         "included) %llu, more than the limit of %llu (LSIM_SCENE_MAX_TRIANGLES); use a simpler mesh "
                         "(decimate it) or fewer copies", what, triangles, scene->triangle_total, scene->object_count,
                         (unsigned long long)scene->triangle_total + (unsigned long long)triangles,
                         LSIM_SCENE_MAX_TRIANGLES);
    return LSIM_OK;
}

static lsim_status check_extent(lsim_context *ctx, const lsim_object *o)
{
    if (o->share)
        return check_instance_extent(ctx, o);
    for (size_t i = 0; i < 3 * o->vertex_count; ++i)
        if (!(fabsf(o->vertices[i]) <= LSIM_WORLD_LIMIT_M))
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "%s: vertex %zu lies at %g m, beyond +-1e7 m of the origin (check its units and scale)",
                             o->kind, i / 3, (double)o->vertices[i]);
    if (o->shape == LSIM_SHAPE_SPHERE && !(o->radius <= LSIM_WORLD_LIMIT_M))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "sphere radius %g m is beyond 1e7 m", o->radius);
    return LSIM_OK;
}

static lsim_status take_object(lsim_scene *scene, lsim_object *object, const lsim_object_desc *desc)
{
    lsim_context *ctx = scene->ctx;
    lsim_status st = lsim_object_desc_validate(ctx, desc);
    if (st == LSIM_OK)
        st = lsim_scene_check_room(scene, object->triangle_count, object->kind);
    if (st == LSIM_OK && object->share && (!object->motion || lsim_object_desc_motion(desc) != 0))
        st = lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "%s: a shared mesh's instance must be static and posed",
                       object->kind);
    if (st == LSIM_OK)
        st = check_extent(ctx, object);
    const char *mat_name = desc->material ? desc->material : "default";
    long mat = lsim_scene_find_material(scene, mat_name);
    if (st == LSIM_OK && mat < 0)
        st = lsim_fail(ctx, LSIM_ERR_NOT_FOUND,
                       "material '%s' is not defined; define it under `materials:` or use \"default\"", mat_name);
    uint32_t label = 0;
    if (st == LSIM_OK)
        st = lsim_label_map_resolve(ctx, &scene->labels, desc->label ? desc->label : "unlabeled", &label);
    if (st == LSIM_OK && desc->name)
        st = lsim_object_name_check(scene, desc->name);
    struct lsim_motion *motion = NULL;
    if (st == LSIM_OK && !object->share)
        st = object_motion(ctx, desc, &motion);
    if (st == LSIM_OK && scene->object_count == scene->object_capacity) {
        size_t cap = scene->object_capacity ? 2 * scene->object_capacity : 16;
        lsim_object *grown = realloc(scene->objects, cap * sizeof *grown);
        if (!grown)
            st = lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory adding an object");
        else {
            scene->objects = grown;
            scene->object_capacity = cap;
        }
    }
    if (st != LSIM_OK) {
        lsim_motion_free(motion);
        object_free(object);
        return st;
    }
    if (!object->share)
        object->motion = motion;
    object->material = (uint32_t)mat;
    object->label = label;
    object->instance = (uint32_t)scene->object_count + 1;
    object->name[0] = '\0';
    if (desc->name)
        snprintf(object->name, sizeof object->name, "%s", desc->name);
    memcpy(object->ref_position, desc->position, sizeof object->ref_position);
    memcpy(object->ref_rpy_deg, desc->rotation_deg, sizeof object->ref_rpy_deg);
    object->posed = object->share != NULL;
    scene->objects[scene->object_count++] = *object;
    if (!lsim_name_index_add_last(&scene->object_index, lsim_scene_object_names(scene))) {
        object_free(&scene->objects[--scene->object_count]);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory adding object %zu ('%s')",
                         scene->object_count + 1, object->name);
    }
    if (object->share && object->share->first == SIZE_MAX)
        object->share->first = scene->object_count - 1;
    scene->triangle_total += object->triangle_count;
    ++scene->engine_changes; /* geometry changed: the engine is rebuilt at the next commit */
    return LSIM_OK;
}

lsim_status lsim_scene_take_object(lsim_scene *scene, lsim_object *object, const lsim_object_desc *desc)
{
    lsim_scene_lock(scene); /* the objects and the engine, which a frame of another thread may be using */
    lsim_status st = take_object(scene, object, desc);
    lsim_scene_unlock(scene);
    return st;
}

int lsim_scene_has_motion(const lsim_scene *scene)
{
    for (size_t i = 0; i < scene->object_count; ++i)
        if (scene->objects[i].motion && !scene->objects[i].posed)
            return 1;
    return 0;
}

int lsim_scene_has_instances(const lsim_scene *scene)
{
    for (size_t i = 0; i < scene->object_count; ++i)
        if (scene->objects[i].motion)
            return 1;
    return 0;
}

void lsim_raster_options_init(lsim_raster_options *options)
{
    if (!options)
        return;
    options->oversample = 2.0;
    options->group_ms = 1.0;
    options->normal_correction = 1;
    options->depth_bits = 32;
}

lsim_status lsim_scene_set_raster_options(lsim_scene *scene, const lsim_raster_options *options)
{
    if (!scene || !options)
        return LSIM_ERR_INVALID_ARGUMENT;
    const lsim_raster_options *o = options;
    if (!(o->oversample >= 1.0 && o->oversample <= 16.0))
        return lsim_fail(scene->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "raster oversample %g is not within 1..16 (pixels per finest beam spacing; 2 is the default)",
                         o->oversample);
    if (!(o->group_ms >= 0.01 && o->group_ms <= 1000.0))
        return lsim_fail(scene->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "raster group_ms %g is not within 0.01..1000 (milliseconds of firing per view; 1 is the default)",
                         o->group_ms);
    if (o->normal_correction != 0 && o->normal_correction != 1)
        return lsim_fail(scene->ctx, LSIM_ERR_INVALID_ARGUMENT, "raster normal_correction %d is not 0 or 1",
                         o->normal_correction);
    if (o->depth_bits != 16 && o->depth_bits != 32)
        return lsim_fail(scene->ctx, LSIM_ERR_INVALID_ARGUMENT, "raster depth_bits %d is not 16 or 32",
                         o->depth_bits);
    lsim_scene_lock(scene);
    scene->raster = *o;
    if (scene->engine_kind == LSIM_ENGINE_RASTER)
        ++scene->engine_changes; /* the next commit builds it with these settings */
    lsim_scene_unlock(scene);
    return LSIM_OK;
}

lsim_status lsim_scene_set_engine(lsim_scene *scene, lsim_engine_kind kind)
{
    if (!scene)
        return LSIM_ERR_INVALID_ARGUMENT;
    if (kind != LSIM_ENGINE_EMBREE && kind != LSIM_ENGINE_BRUTE && kind != LSIM_ENGINE_RASTER)
        return lsim_fail(scene->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "engine %d is not one of LSIM_ENGINE_EMBREE (0), LSIM_ENGINE_BRUTE (1) or LSIM_ENGINE_RASTER (2)", (int)kind);
    lsim_scene_lock(scene);
    if (kind != scene->engine_kind) {
        scene->engine_kind = kind;
        ++scene->engine_changes; /* the next commit builds the new one */
    }
    lsim_scene_unlock(scene);
    return LSIM_OK;
}

size_t lsim_scene_triangle_count(const lsim_scene *scene)
{
    return scene ? scene->triangle_total : 0;
}

size_t lsim_scene_object_count(const lsim_scene *scene) { return scene ? scene->object_count : 0; }
