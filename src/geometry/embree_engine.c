/* Embree 3 ray casting: one geometry per object (object index == geomID), backface culling off
 * (Debian's Embree is built without culling), ray masks set to all ones (Debian's Embree is
 * built with ray masks: a zero mask never hits anything). */
#include "geometry/engine.h"

#include "core/clock.h"
#include "core/context.h"
#include "scene/scene.h"

#include <embree3/rtcore.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct lsim_engine {
    RTCDevice device;
    RTCScene scene;
    atomic_int failed;  /* Embree may report from its worker threads: the first report wins */
    char message[256];
};

static void embree_error(void *user, enum RTCError code, const char *str)
{
    lsim_engine *e = user;
    if (atomic_exchange(&e->failed, 1) == 0)
        snprintf(e->message, sizeof e->message, "Embree error %d: %s", (int)code, str ? str : "");
}

void lsim_engine_destroy(lsim_engine *engine)
{
    if (!engine)
        return;
    if (engine->scene)
        rtcReleaseScene(engine->scene);
    if (engine->device)
        rtcReleaseDevice(engine->device);
    free(engine);
}

static lsim_status attach_triangles(lsim_engine *e, const lsim_object *o, lsim_context *ctx)
{
    RTCGeometry g = rtcNewGeometry(e->device, RTC_GEOMETRY_TYPE_TRIANGLE);
    if (!g)
        return lsim_fail(ctx, LSIM_ERR_ENGINE, "Embree could not create a triangle geometry");
    float *v = rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3, 3 * sizeof(float),
                                       o->vertex_count);
    uint32_t *idx = rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3, 3 * sizeof(uint32_t),
                                            o->triangle_count);
    if (!v || !idx) {
        rtcReleaseGeometry(g);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory giving %zu triangles to Embree", o->triangle_count);
    }
    memcpy(v, o->vertices, 3 * o->vertex_count * sizeof(float));
    memcpy(idx, o->indices, 3 * o->triangle_count * sizeof(uint32_t));
    rtcCommitGeometry(g);
    rtcAttachGeometry(e->scene, g);
    rtcReleaseGeometry(g);
    return LSIM_OK;
}

static lsim_status attach_sphere(lsim_engine *e, const lsim_object *o, lsim_context *ctx)
{
    RTCGeometry g = rtcNewGeometry(e->device, RTC_GEOMETRY_TYPE_SPHERE_POINT);
    if (!g)
        return lsim_fail(ctx, LSIM_ERR_ENGINE, "Embree could not create a sphere geometry");
    float *v = rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT4, 4 * sizeof(float), 1);
    if (!v) {
        rtcReleaseGeometry(g);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory giving a sphere to Embree");
    }
    v[0] = (float)o->center[0];
    v[1] = (float)o->center[1];
    v[2] = (float)o->center[2];
    v[3] = (float)o->radius;
    rtcCommitGeometry(g);
    rtcAttachGeometry(e->scene, g);
    rtcReleaseGeometry(g);
    return LSIM_OK;
}

lsim_status lsim_engine_build(lsim_scene *scene, lsim_engine **out)
{
    lsim_context *ctx = scene->ctx;
    double t0 = lsim_now_ms();
    lsim_engine *e = calloc(1, sizeof *e);
    if (!e)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory creating the ray-casting engine");
    e->device = rtcNewDevice(NULL);
    if (!e->device) {
        free(e);
        return lsim_fail(ctx, LSIM_ERR_ENGINE, "Embree device could not be created (error %d)",
                         (int)rtcGetDeviceError(NULL));
    }
    rtcSetDeviceErrorFunction(e->device, embree_error, e);
    e->scene = rtcNewScene(e->device);
    rtcSetSceneBuildQuality(e->scene, RTC_BUILD_QUALITY_HIGH);
    lsim_status st = LSIM_OK;
    for (size_t i = 0; i < scene->object_count && st == LSIM_OK; ++i) {
        const lsim_object *o = &scene->objects[i];
        st = o->shape == LSIM_SHAPE_SPHERE ? attach_sphere(e, o, ctx) : attach_triangles(e, o, ctx);
    }
    if (st == LSIM_OK) {
        rtcCommitScene(e->scene);
        if (atomic_load(&e->failed) || rtcGetDeviceError(e->device) != RTC_ERROR_NONE)
            st = lsim_fail(ctx, LSIM_ERR_ENGINE, "Embree failed to build the scene: %s",
                           atomic_load(&e->failed) ? e->message : "unknown error");
    }
    if (st != LSIM_OK) {
        lsim_engine_destroy(e);
        return st;
    }
    scene->build_ms = lsim_now_ms() - t0;
    *out = e;
    return LSIM_OK;
}

/* Embree's behaviour on NaN or infinite rays is undefined (it has aborted on them): such a
 * ray is never handed to it, and counts as a miss. Upstream stages validate what makes rays
 * (sensor, kernel, poses), so this is the last line of defence, not the error report. */
static inline int ray_finite(float ox, float oy, float oz, float dx, float dy, float dz, float tnear, float tfar)
{
    /* one test for all: a sum of finite values times 0 is 0, NaN otherwise; tfar may be +inf */
    float s = (ox + oy + oz + dx + dy + dz + tnear) * 0.0f;
    return s == 0.0f && !isnan(tfar) && tnear <= tfar && (dx != 0.0f || dy != 0.0f || dz != 0.0f);
}

/* A ray ready for rtcIntersect1: all mask bits (Debian's Embree is built with ray masks). */
static inline void ray_init(struct RTCRayHit *rh, float ox, float oy, float oz, float dx, float dy, float dz,
                            float tnear, float tfar)
{
    rh->ray.org_x = ox;
    rh->ray.org_y = oy;
    rh->ray.org_z = oz;
    rh->ray.dir_x = dx;
    rh->ray.dir_y = dy;
    rh->ray.dir_z = dz;
    rh->ray.tnear = tnear;
    rh->ray.tfar = tfar;
    rh->ray.time = 0.0f;
    rh->ray.mask = 0xFFFFFFFFu;
    rh->ray.id = 0;
    rh->ray.flags = 0;
    rh->hit.geomID = RTC_INVALID_GEOMETRY_ID;
    rh->hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
}

int lsim_engine_trace1(const lsim_engine *engine, const float org[3], const float dir[3], float tnear, float tfar,
                       float *t, uint32_t *object, float ng[3])
{
    if (!ray_finite(org[0], org[1], org[2], dir[0], dir[1], dir[2], tnear, tfar))
        return 0;
    struct RTCIntersectContext ictx;
    rtcInitIntersectContext(&ictx);
    struct RTCRayHit rh;
    ray_init(&rh, org[0], org[1], org[2], dir[0], dir[1], dir[2], tnear, tfar);
    rtcIntersect1(engine->scene, &ictx, &rh);
    if (rh.hit.geomID == RTC_INVALID_GEOMETRY_ID)
        return 0;
    *t = rh.ray.tfar;
    *object = rh.hit.geomID;
    ng[0] = rh.hit.Ng_x;
    ng[1] = rh.hit.Ng_y;
    ng[2] = rh.hit.Ng_z;
    return 1;
}

int lsim_engine_occluded(const lsim_engine *engine, const float org[3], const float dir[3], float tnear, float tfar)
{
    if (!ray_finite(org[0], org[1], org[2], dir[0], dir[1], dir[2], tnear, tfar))
        return 0;
    struct RTCIntersectContext ictx;
    rtcInitIntersectContext(&ictx);
    struct RTCRay ray;
    ray.org_x = org[0];
    ray.org_y = org[1];
    ray.org_z = org[2];
    ray.dir_x = dir[0];
    ray.dir_y = dir[1];
    ray.dir_z = dir[2];
    ray.tnear = tnear;
    ray.tfar = tfar;
    ray.time = 0.0f;
    ray.mask = 0xFFFFFFFFu;
    ray.id = 0;
    ray.flags = 0;
    rtcOccluded1(engine->scene, &ictx, &ray);
    return ray.tfar < 0.0f; /* Embree sets tfar to -inf when occluded */
}

void lsim_engine_trace(const lsim_engine *engine, const lsim_rays *rays, size_t count, float tnear, float tfar,
                       lsim_hits *hits)
{
    struct RTCIntersectContext ictx;
    rtcInitIntersectContext(&ictx);
    {
        for (size_t i = 0; i < count; ++i) {
            struct RTCRayHit rh;
            ray_init(&rh, rays->ox[i], rays->oy[i], rays->oz[i], rays->dx[i], rays->dy[i], rays->dz[i], tnear, tfar);
            if (ray_finite(rays->ox[i], rays->oy[i], rays->oz[i], rays->dx[i], rays->dy[i], rays->dz[i], tnear, tfar))
                rtcIntersect1(engine->scene, &ictx, &rh);
            if (rh.hit.geomID == RTC_INVALID_GEOMETRY_ID) {
                hits->t[i] = INFINITY;
                hits->object[i] = LSIM_NO_HIT;
                hits->primitive[i] = 0;
                hits->ngx[i] = hits->ngy[i] = hits->ngz[i] = 0.0f;
            } else {
                hits->t[i] = rh.ray.tfar;
                hits->object[i] = rh.hit.geomID;
                hits->primitive[i] = rh.hit.primID;
                hits->ngx[i] = rh.hit.Ng_x;
                hits->ngy[i] = rh.hit.Ng_y;
                hits->ngz[i] = rh.hit.Ng_z;
            }
        }
    }
}
