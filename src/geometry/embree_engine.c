/* Embree 3 ray casting behind the engine seam. Static objects are geometries of the top scene
 * (geometry ID == object index), in world space. A moving object is its own scene in its own
 * frame, instanced into the top scene (instance ID == object index) with a motion transform of
 * LSIM_EMBREE_MOTION_STEPS keys over the frame's sweep (rotation by slerp, translation linear),
 * so each ray meets it where it is at the ray's time. Backface culling off (Debian's Embree is
 * built without culling); ray masks all ones unless a batch says otherwise (Debian's Embree is
 * built with ray masks: a zero mask never hits anything). Rays are traced in packets of 8
 * (1.15-1.25x single rays on the benchmark's beams; Embree's coherent-ray mode was slower, and
 * packets of one channel over 8 consecutive columns, 10x closer together than a column's
 * channels, no faster). BVHs are built at Embree's default MEDIUM quality: on the 1M-triangle
 * benchmark mesh it builds in a quarter of HIGH's time (binned SAH without spatial splits) and
 * traces as fast; a ray that meets a shared edge may then report the other triangle of the edge
 * (one beam in 28,753 there: same range, that triangle's normal). */
#include "geometry/engine.h"

#include "core/context.h"
#include "core/motion.h"
#include "scene/scene.h"

#include <embree3/rtcore.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LSIM_EMBREE_MOTION_STEPS 9

typedef struct embree_state {
    RTCDevice device;
    RTCScene scene;
    atomic_int failed; /* Embree may report from its worker threads: the first report wins */
    char message[256];
    const lsim_scene *owner;
    size_t object_count;
    RTCGeometry *instance; /* per object: its instance geometry if it moves, else NULL */
    RTCScene *own_scene;   /* per object: the scene of a moving object (its own frame) */
    int moving;            /* any object moves */
    float inv_span;        /* 1 / sweep span (0 for a static frame): ray time -> Embree time */
} embree_state;

static void embree_error(void *user, enum RTCError code, const char *str)
{
    embree_state *e = user;
    if (atomic_exchange(&e->failed, 1) == 0)
        snprintf(e->message, sizeof e->message, "Embree error %d: %s", (int)code, str ? str : "");
}

static void embree_destroy(void *state)
{
    embree_state *e = state;
    if (!e)
        return;
    for (size_t i = 0; e->own_scene && i < e->object_count; ++i)
        if (e->own_scene[i])
            rtcReleaseScene(e->own_scene[i]);
    free(e->own_scene);
    free(e->instance); /* the top scene holds the instances */
    if (e->scene)
        rtcReleaseScene(e->scene);
    if (e->device)
        rtcReleaseDevice(e->device);
    free(e);
}

/* The object's arrays are shared with Embree, not copied (18 MB for 1M triangles; the copies of
 * one mesh share one array and one BVH, attach_object): the scene keeps them, unchanged, for as
 * long as the engine is traced (lsim_scene_destroy destroys the engine first; a geometry change
 * counts in scene->engine_changes, and the pipeline destroys that engine unused before it builds
 * the next: pipeline/frame_cache.h). Embree reads a vertex buffer's last element with a 16-byte
 * load, so only a mesh's vertices, which lsim_mesh_place pads by a float, are shared; other
 * objects' few vertices are copied. */
static RTCGeometry make_triangles(embree_state *e, const lsim_object *o, lsim_context *ctx, lsim_status *st)
{
    RTCGeometry g = rtcNewGeometry(e->device, RTC_GEOMETRY_TYPE_TRIANGLE);
    if (!g) {
        *st = lsim_fail(ctx, LSIM_ERR_ENGINE, "Embree could not create a triangle geometry");
        return NULL;
    }
    float *v = NULL;
    if (strcmp(o->kind, "mesh") == 0) {
        rtcSetSharedGeometryBuffer(g, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3, o->vertices, 0, 3 * sizeof(float),
                                   o->vertex_count);
        v = o->vertices;
    } else {
        v = rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3, 3 * sizeof(float), o->vertex_count);
        if (v)
            memcpy(v, o->vertices, 3 * o->vertex_count * sizeof(float));
    }
    rtcSetSharedGeometryBuffer(g, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3, o->indices, 0, 3 * sizeof(uint32_t),
                               o->triangle_count);
    if (!v) {
        rtcReleaseGeometry(g);
        *st = lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory giving %zu triangles to Embree",
                        o->triangle_count);
        return NULL;
    }
    return g;
}

static RTCGeometry make_sphere(embree_state *e, const lsim_object *o, lsim_context *ctx, lsim_status *st)
{
    RTCGeometry g = rtcNewGeometry(e->device, RTC_GEOMETRY_TYPE_SPHERE_POINT);
    float *v = g ? rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT4, 4 * sizeof(float), 1)
                 : NULL;
    if (!v) {
        if (g)
            rtcReleaseGeometry(g);
        *st = lsim_fail(ctx, LSIM_ERR_ENGINE, "Embree could not create a sphere geometry (out of memory?)");
        return NULL;
    }
    v[0] = (float)o->center[0];
    v[1] = (float)o->center[1];
    v[2] = (float)o->center[2];
    v[3] = (float)o->radius;
    return g;
}

/* Object i into the top scene: itself if static, else an instance of its own scene. */
static lsim_status attach_object(embree_state *e, size_t i, lsim_context *ctx)
{
    const lsim_object *o = &e->owner->objects[i];
    const unsigned gmask = o->shape == LSIM_SHAPE_SPHERE ? LSIM_GEOMETRY_MASK_SPHERES : LSIM_GEOMETRY_MASK_TRIANGLES;
    /* A copy of a shared mesh (lsim_mesh_share) after its first: the first copy's scene (one BVH
     * however many copies), instanced at this object's pose. */
    const size_t first = o->share ? o->share->first : SIZE_MAX;
    if (o->motion && first < i && e->own_scene[first]) {
        rtcRetainScene(e->own_scene[first]);
        e->own_scene[i] = e->own_scene[first];
    } else {
        lsim_status st = LSIM_OK;
        RTCGeometry g = o->shape == LSIM_SHAPE_SPHERE ? make_sphere(e, o, ctx, &st) : make_triangles(e, o, ctx, &st);
        if (!g)
            return st;
        rtcSetGeometryMask(g, gmask);
        rtcCommitGeometry(g);
        if (!o->motion) {
            rtcAttachGeometryByID(e->scene, g, (unsigned)i);
            rtcReleaseGeometry(g);
            return LSIM_OK;
        }
        RTCScene own = rtcNewScene(e->device);
        rtcSetSceneBuildQuality(own, RTC_BUILD_QUALITY_MEDIUM);
        rtcAttachGeometryByID(own, g, 0);
        rtcReleaseGeometry(g);
        rtcCommitScene(own);
        e->own_scene[i] = own;
    }
    RTCScene own = e->own_scene[i];
    RTCGeometry inst = rtcNewGeometry(e->device, RTC_GEOMETRY_TYPE_INSTANCE);
    if (!inst)
        return lsim_fail(ctx, LSIM_ERR_ENGINE, "Embree could not create an instance for moving object %zu", i);
    rtcSetGeometryInstancedScene(inst, own);
    rtcSetGeometryMask(inst, gmask);
    rtcSetGeometryTimeStepCount(inst, LSIM_EMBREE_MOTION_STEPS);
    e->instance[i] = inst;
    e->moving = 1;
    rtcAttachGeometryByID(e->scene, inst, (unsigned)i);
    rtcReleaseGeometry(inst); /* the top scene keeps it alive */
    return LSIM_OK;
}

static lsim_status check_embree(embree_state *e, lsim_context *ctx, const char *what)
{
    if (atomic_load(&e->failed) || rtcGetDeviceError(e->device) != RTC_ERROR_NONE)
        return lsim_fail(ctx, LSIM_ERR_ENGINE, "Embree failed to %s: %s", what,
                         atomic_load(&e->failed) ? e->message : "unknown error");
    return LSIM_OK;
}

static lsim_status embree_set_frame_time(void *state, lsim_context *ctx, double start, double span)
{
    embree_state *e = state;
    e->inv_span = span > 0.0 ? (float)(1.0 / span) : 0.0f;
    if (!e->moving)
        return LSIM_OK;
    double prev[4] = {1.0, 0.0, 0.0, 0.0};
    for (size_t i = 0; i < e->object_count; ++i) {
        if (!e->instance[i])
            continue;
        for (int k = 0; k < LSIM_EMBREE_MOTION_STEPS; ++k) {
            double q[4];
            lsim_pose pose = lsim_motion_pose(e->owner->objects[i].motion,
                                              start + span * k / (LSIM_EMBREE_MOTION_STEPS - 1));
            lsim_mat3_to_quat(&pose.r, q);
            /* the shorter way round from the previous key, so slerp turns the way the body does */
            if (k > 0 && q[0] * prev[0] + q[1] * prev[1] + q[2] * prev[2] + q[3] * prev[3] < 0.0)
                for (int a = 0; a < 4; ++a)
                    q[a] = -q[a];
            memcpy(prev, q, sizeof prev);
            struct RTCQuaternionDecomposition qd;
            rtcInitQuaternionDecomposition(&qd);
            qd.quaternion_r = (float)q[0];
            qd.quaternion_i = (float)q[1];
            qd.quaternion_j = (float)q[2];
            qd.quaternion_k = (float)q[3];
            qd.translation_x = (float)pose.t.x;
            qd.translation_y = (float)pose.t.y;
            qd.translation_z = (float)pose.t.z;
            rtcSetGeometryTransformQuaternion(e->instance[i], (unsigned)k, &qd);
        }
        rtcCommitGeometry(e->instance[i]);
    }
    rtcCommitScene(e->scene);
    return check_embree(e, ctx, "place the moving objects");
}

static lsim_status embree_create(lsim_scene *scene, void **out)
{
    lsim_context *ctx = scene->ctx;
    embree_state *e = calloc(1, sizeof *e);
    if (!e)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory creating the ray-casting engine");
    e->owner = scene;
    e->object_count = scene->object_count;
    e->instance = calloc(scene->object_count ? scene->object_count : 1, sizeof *e->instance);
    e->own_scene = calloc(scene->object_count ? scene->object_count : 1, sizeof *e->own_scene);
    if (!e->instance || !e->own_scene) {
        embree_destroy(e);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory creating the ray-casting engine");
    }
    e->device = rtcNewDevice(NULL);
    if (!e->device) {
        embree_destroy(e);
        return lsim_fail(ctx, LSIM_ERR_ENGINE, "Embree device could not be created (error %d)",
                         (int)rtcGetDeviceError(NULL));
    }
    rtcSetDeviceErrorFunction(e->device, embree_error, e);
    e->scene = rtcNewScene(e->device);
    rtcSetSceneBuildQuality(e->scene, RTC_BUILD_QUALITY_MEDIUM);
    lsim_status st = LSIM_OK;
    for (size_t i = 0; i < scene->object_count && st == LSIM_OK; ++i)
        st = attach_object(e, i, ctx);
    if (st == LSIM_OK && e->moving) /* placed at time 0 until the first frame says when it is */
        st = embree_set_frame_time(e, ctx, 0.0, 0.0);
    else if (st == LSIM_OK) {
        rtcCommitScene(e->scene);
        st = check_embree(e, ctx, "build the scene");
    }
    if (st != LSIM_OK) {
        embree_destroy(e);
        return st;
    }
    *out = e;
    return LSIM_OK;
}

/* A moving object's normal comes back in its own frame: turn it into the world at the ray's
 * time (rigid motion: the rotation part of the interpolated transform). */
static void normal_to_world(const embree_state *e, unsigned object, float time, float *nx, float *ny, float *nz)
{
    float m[12];
    rtcGetGeometryTransform(e->instance[object], time, RTC_FORMAT_FLOAT3X4_ROW_MAJOR, m);
    float x = *nx, y = *ny, z = *nz;
    *nx = m[0] * x + m[1] * y + m[2] * z;
    *ny = m[4] * x + m[5] * y + m[6] * z;
    *nz = m[8] * x + m[9] * y + m[10] * z;
}

#define PACKET 8

/* Rays [p, p + n) (n <= PACKET) into one packet; lanes past n and invalid rays are inactive
 * (filled with a harmless ray: Debian's Embree asserts on the inactive lanes too). */
static inline void packet_fill(const lsim_rays *rays, size_t p, size_t n, float inv_span, struct RTCRayHit8 *rh,
                               int valid[PACKET])
{
    for (size_t k = 0; k < PACKET; ++k) {
        const size_t i = p + (k < n ? k : 0);
        const float ox = rays->ox[i], oy = rays->oy[i], oz = rays->oz[i];
        const float dx = rays->dx[i], dy = rays->dy[i], dz = rays->dz[i];
        const float tnear = rays->tnear[i], tfar = rays->tfar[i];
        const int ok = k < n && lsim_ray_valid(ox, oy, oz, dx, dy, dz, tnear, tfar);
        valid[k] = ok ? -1 : 0;
        rh->ray.org_x[k] = ok ? ox : 0.0f;
        rh->ray.org_y[k] = ok ? oy : 0.0f;
        rh->ray.org_z[k] = ok ? oz : 0.0f;
        rh->ray.dir_x[k] = ok ? dx : 1.0f;
        rh->ray.dir_y[k] = ok ? dy : 0.0f;
        rh->ray.dir_z[k] = ok ? dz : 0.0f;
        rh->ray.tnear[k] = ok ? tnear : 0.0f;
        rh->ray.tfar[k] = ok ? tfar : 0.0f;
        rh->ray.time[k] = 0.0f;
        rh->ray.mask[k] = rays->mask[i];
        rh->ray.id[k] = (unsigned)k;
        rh->ray.flags[k] = 0;
        rh->hit.geomID[k] = RTC_INVALID_GEOMETRY_ID;
        rh->hit.instID[0][k] = RTC_INVALID_GEOMETRY_ID;
    }
    if (inv_span > 0.0f) /* a frame with moving objects: Embree's time is the fraction of the sweep */
        for (size_t k = 0; k < PACKET; ++k) {
            const float time = rays->time[p + (k < n ? k : 0)] * inv_span;
            rh->ray.time[k] = valid[k] && time > 0.0f ? (time > 1.0f ? 1.0f : time) : 0.0f; /* NaN: 0 */
        }
}

static void embree_intersect(const void *state, const lsim_rays *rays, size_t begin, size_t count, lsim_hits *hits)
{
    const embree_state *e = state;
    struct RTCIntersectContext ictx;
    rtcInitIntersectContext(&ictx);
    const float inv_span = e->moving ? e->inv_span : 0.0f;
    for (size_t p = begin; p < begin + count; p += PACKET) {
        const size_t n = begin + count - p < PACKET ? begin + count - p : PACKET;
        RTC_ALIGN(32) struct RTCRayHit8 rh;
        RTC_ALIGN(32) int valid[PACKET];
        packet_fill(rays, p, n, inv_span, &rh, valid);
        rtcIntersect8(valid, e->scene, &ictx, &rh);
        for (size_t k = 0; k < n; ++k) {
            const size_t i = p + k;
            const unsigned geom = rh.hit.geomID[k], inst = rh.hit.instID[0][k];
            const int hit = valid[k] && geom != RTC_INVALID_GEOMETRY_ID;
            hits->t[i] = hit ? rh.ray.tfar[k] : INFINITY;
            hits->object[i] = !hit ? LSIM_NO_HIT : inst != RTC_INVALID_GEOMETRY_ID ? inst : geom;
            hits->primitive[i] = hit ? rh.hit.primID[k] : 0;
            hits->ngx[i] = hit ? rh.hit.Ng_x[k] : 0.0f;
            hits->ngy[i] = hit ? rh.hit.Ng_y[k] : 0.0f;
            hits->ngz[i] = hit ? rh.hit.Ng_z[k] : 0.0f;
            if (hits->u) {
                hits->u[i] = hit ? rh.hit.u[k] : 0.0f;
                hits->v[i] = hit ? rh.hit.v[k] : 0.0f;
            }
            if (hit && inst != RTC_INVALID_GEOMETRY_ID)
                normal_to_world(e, inst, rh.ray.time[k], &hits->ngx[i], &hits->ngy[i], &hits->ngz[i]);
        }
    }
}

static void embree_occluded(const void *state, const lsim_rays *rays, size_t begin, size_t count, uint8_t *blocked)
{
    const embree_state *e = state;
    struct RTCIntersectContext ictx;
    rtcInitIntersectContext(&ictx);
    const float inv_span = e->moving ? e->inv_span : 0.0f;
    for (size_t i = begin; i < begin + count; ++i) {
        if (!lsim_ray_valid(rays->ox[i], rays->oy[i], rays->oz[i], rays->dx[i], rays->dy[i], rays->dz[i],
                            rays->tnear[i], rays->tfar[i])) {
            blocked[i] = 0;
            continue;
        }
        struct RTCRay ray;
        ray.org_x = rays->ox[i];
        ray.org_y = rays->oy[i];
        ray.org_z = rays->oz[i];
        ray.dir_x = rays->dx[i];
        ray.dir_y = rays->dy[i];
        ray.dir_z = rays->dz[i];
        ray.tnear = rays->tnear[i];
        ray.tfar = rays->tfar[i];
        float time = rays->time[i] * inv_span;
        ray.time = !(time > 0.0f) ? 0.0f : time > 1.0f ? 1.0f : time;
        ray.mask = rays->mask[i];
        ray.id = 0;
        ray.flags = 0;
        rtcOccluded1(e->scene, &ictx, &ray);
        blocked[i] = ray.tfar < 0.0f; /* Embree sets tfar to -inf when occluded */
    }
}

const lsim_engine_ops lsim_engine_embree = {
    "embree", embree_create, embree_set_frame_time, embree_intersect, embree_occluded, embree_destroy,
};
