/* The benchmarks' raw-Embree reference (see embree_reference.h). */
#include "geometry/embree_reference.h"

#include <embree3/rtcore.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct lsim_raw_embree {
    RTCDevice device;
    RTCScene scene;
};

lsim_raw_embree *lsim_raw_embree_create(const float *vertices, size_t vertex_count, const uint32_t *indices,
                                        size_t triangle_count)
{
    lsim_raw_embree *raw = calloc(1, sizeof *raw);
    if (!raw)
        return NULL;
    raw->device = rtcNewDevice(NULL);
    if (!raw->device) {
        free(raw);
        return NULL;
    }
    raw->scene = rtcNewScene(raw->device);
    rtcSetSceneBuildQuality(raw->scene, RTC_BUILD_QUALITY_MEDIUM);
    RTCGeometry g = rtcNewGeometry(raw->device, RTC_GEOMETRY_TYPE_TRIANGLE);
    float *v = rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3, 12, vertex_count);
    uint32_t *idx = rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3, 12, triangle_count);
    if (!v || !idx) {
        rtcReleaseGeometry(g);
        lsim_raw_embree_destroy(raw);
        return NULL;
    }
    memcpy(v, vertices, 12 * vertex_count);
    memcpy(idx, indices, 12 * triangle_count);
    rtcCommitGeometry(g);
    rtcAttachGeometry(raw->scene, g);
    rtcReleaseGeometry(g);
    rtcCommitScene(raw->scene);
    return raw;
}

void lsim_raw_embree_destroy(lsim_raw_embree *raw)
{
    if (!raw)
        return;
    if (raw->scene)
        rtcReleaseScene(raw->scene);
    if (raw->device)
        rtcReleaseDevice(raw->device);
    free(raw);
}

double lsim_raw_embree_trace(lsim_raw_embree *raw, size_t n, const float *ox, const float *oy, const float *oz,
                             const float *dx, const float *dy, const float *dz, float tfar, int threads,
                             float *t, uint32_t *geom, uint32_t *prim, float *ng, size_t *hits)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    size_t count = 0;
    /* About 8 work items per thread, a multiple of 64 in 256..2048 rays: lsim_frame_chunk's policy. */
    long chunk = (long)((n / ((size_t)threads * 8) + 63) / 64 * 64);
    chunk = chunk < 256 ? 256 : chunk > 2048 ? 2048 : chunk;
#pragma omp parallel num_threads(threads) reduction(+ : count)
    {
        struct RTCIntersectContext ictx;
        rtcInitIntersectContext(&ictx);
#pragma omp for schedule(dynamic, chunk)
        for (long i = 0; i < (long)n; ++i) {
            struct RTCRayHit rh;
            rh.ray.org_x = ox[i];
            rh.ray.org_y = oy[i];
            rh.ray.org_z = oz[i];
            rh.ray.dir_x = dx[i];
            rh.ray.dir_y = dy[i];
            rh.ray.dir_z = dz[i];
            rh.ray.tnear = 0.0f;
            rh.ray.tfar = tfar;
            rh.ray.time = 0.0f;
            rh.ray.mask = 0xFFFFFFFFu;
            rh.ray.id = 0;
            rh.ray.flags = 0;
            rh.hit.geomID = RTC_INVALID_GEOMETRY_ID;
            rh.hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
            rtcIntersect1(raw->scene, &ictx, &rh);
            int hit = rh.hit.geomID != RTC_INVALID_GEOMETRY_ID;
            t[i] = hit ? rh.ray.tfar : INFINITY;
            geom[i] = rh.hit.geomID;
            prim[i] = rh.hit.primID;
            ng[i] = rh.hit.Ng_x;
            ng[n + i] = rh.hit.Ng_y;
            ng[2 * n + i] = rh.hit.Ng_z;
            count += (size_t)hit;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    *hits = count;
    return (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) * 1e-6;
}
