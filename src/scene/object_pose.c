/* Named objects and their poses: lsim_scene_set_object_pose / get_object_pose (lidarsim.h).
 *
 * A static object's arrays are in world space. The first time it is re-placed, its arrays are
 * taken into the frame of the pose its description gave (x_own = R_ref^T (x_world - p_ref)) and
 * it gets a constant motion at that pose: the engine then instances it (one rebuild, at the next
 * commit), and every later pose is a new transform of the instance, with no rebuild. */
#include "core/context.h"
#include "core/motion.h"
#include "core/motion_make.h"
#include "scene/scene.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

lsim_status lsim_object_name_check(lsim_scene *scene, const char *name)
{
    const size_t n = strlen(name);
    if (n == 0 || n >= LSIM_NAME_MAX)
        return lsim_fail(scene->ctx, LSIM_ERR_INVALID_ARGUMENT, "object name '%.80s' is %zu characters; use 1 to %d",
                         name, n, LSIM_NAME_MAX - 1);
    for (size_t i = 0; i < n; ++i) {
        const char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
              c == '.'))
            return lsim_fail(scene->ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "object name '%s': character %zu is not a letter, digit, '_', '-' or '.'", name, i + 1);
    }
    if (lsim_name_index_find_counted(&scene->object_index, lsim_scene_object_names(scene), name,
                                     &scene->name_compares) >= 0)
        return lsim_fail(scene->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "object name '%s' is used by another object; names must be unique", name);
    return LSIM_OK;
}

lsim_name_array lsim_scene_object_names(const lsim_scene *scene)
{
    return (lsim_name_array){scene->objects ? scene->objects[0].name : NULL, sizeof *scene->objects,
                             scene->object_count};
}

/* Hashed (name_index.h): 50,000 named objects load in linear time (the linear search made it
 * quadratic: 27 s). */
long lsim_scene_find_object(const lsim_scene *scene, const char *name)
{
    return lsim_name_index_find(&scene->object_index, lsim_scene_object_names(scene), name);
}

static lsim_status find_named(const lsim_scene *scene, const char *name, long *out)
{
    *out = lsim_scene_find_object(scene, name);
    if (*out >= 0)
        return LSIM_OK;
    char names[512] = "";
    size_t len = 0;
    for (size_t i = 0; i < scene->object_count && len + 2 < sizeof names; ++i)
        if (scene->objects[i].name[0]) {
            const int w = snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "", scene->objects[i].name);
            len = w > 0 && len + (size_t)w < sizeof names ? len + (size_t)w : sizeof names - 1;
        }
    return lsim_fail(scene->ctx, LSIM_ERR_NOT_FOUND, "no object named '%s' in the scene (named objects: %s)", name,
                     len ? names : "none; give objects a `name:`");
}

/* The named object, refused (saying `why`) if it moves by a velocity or trajectory. */
static lsim_status find_posable(const lsim_scene *scene, const char *name, const char *why, long *out)
{
    lsim_status st = find_named(scene, name, out);
    if (st != LSIM_OK)
        return st;
    const lsim_object *o = &scene->objects[*out];
    if (o->motion && !o->posed)
        return lsim_fail(scene->ctx, LSIM_ERR_INVALID_ARGUMENT, "object '%s' moves (velocity or trajectory); %s", name,
                         why);
    return LSIM_OK;
}

/* Into the frame of the reference pose: x_own = R^T (x - p). */
static void to_own_frame(lsim_object *o)
{
    const lsim_pose ref = lsim_pose_make(o->ref_position, o->ref_rpy_deg);
    for (size_t i = 0; i < o->vertex_count; ++i) {
        float *v = o->vertices + 3 * i;
        const lsim_vec3 d = lsim_v3(v[0] - ref.t.x, v[1] - ref.t.y, v[2] - ref.t.z);
        const lsim_vec3 own = lsim_mat3_tmul(&ref.r, d);
        v[0] = (float)own.x;
        v[1] = (float)own.y;
        v[2] = (float)own.z;
    }
    const lsim_vec3 c = lsim_mat3_tmul(&ref.r, lsim_v3(o->center[0] - ref.t.x, o->center[1] - ref.t.y,
                                                       o->center[2] - ref.t.z));
    o->center[0] = c.x;
    o->center[1] = c.y;
    o->center[2] = c.z;
}

static lsim_status set_object_pose(lsim_scene *scene, const char *name, const double position[3],
                                   const double rotation_deg[3])
{
    long i;
    lsim_status st = find_posable(scene, name, "only static objects can be re-placed", &i);
    if (st != LSIM_OK)
        return st;
    for (int a = 0; a < 3; ++a)
        if (!isfinite(position[a]) || !isfinite(rotation_deg[a]) || fabs(position[a]) > 1e7)
            return lsim_fail(scene->ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "object '%s': pose [%g, %g, %g] m, [%g, %g, %g] deg must be finite, within +-1e7 m", name,
                             position[0], position[1], position[2], rotation_deg[0], rotation_deg[1], rotation_deg[2]);
    lsim_object *o = &scene->objects[i];
    if (!o->posed) {
        const double zero[3] = {0.0, 0.0, 0.0};
        struct lsim_motion *m = NULL;
        st = lsim_motion_make_rates(scene->ctx, "object", position, rotation_deg, zero, zero, &m);
        if (st != LSIM_OK)
            return st;
        to_own_frame(o);
        o->motion = m;
        o->posed = 1;
        ++scene->engine_changes; /* now an instance: the engine is rebuilt at the next commit */
        return LSIM_OK;
    }
    memcpy(o->motion->position, position, sizeof o->motion->position);
    memcpy(o->motion->rpy_deg, rotation_deg, sizeof o->motion->rpy_deg);
    return LSIM_OK; /* the engine places it anew at the next frame (lsim_engine_set_frame_time) */
}

lsim_status lsim_scene_set_object_pose(lsim_scene *scene, const char *name, const double position[3],
                                       const double rotation_deg[3])
{
    if (!scene || !name || !position || !rotation_deg)
        return LSIM_ERR_INVALID_ARGUMENT;
    lsim_scene_lock(scene); /* the engine and the pose a frame of another thread may be reading */
    lsim_status st = set_object_pose(scene, name, position, rotation_deg);
    lsim_scene_unlock(scene);
    return st;
}

lsim_status lsim_scene_get_object_pose(const lsim_scene *scene, const char *name, double position[3],
                                       double rotation_deg[3])
{
    if (!scene || !name || !position || !rotation_deg)
        return LSIM_ERR_INVALID_ARGUMENT;
    lsim_scene_lock(scene); /* the objects array may move while another thread adds one */
    long i;
    lsim_status st = find_posable(scene, name, "its pose depends on time (README \"Time and motion\")", &i);
    if (st == LSIM_OK) {
        const lsim_object *o = &scene->objects[i];
        memcpy(position, o->posed ? o->motion->position : o->ref_position, 3 * sizeof *position);
        memcpy(rotation_deg, o->posed ? o->motion->rpy_deg : o->ref_rpy_deg, 3 * sizeof *rotation_deg);
    }
    lsim_scene_unlock(scene);
    return st;
}
