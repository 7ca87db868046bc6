#include "pipeline/frame.h"

#include "core/context.h"

#include <stdlib.h>
#include <string.h>

static void *grow(void *old, size_t bytes, int *ok)
{
    void *p = realloc(old, bytes ? bytes : 1);
    if (!p) {
        *ok = 0;
        return old;
    }
    return p;
}

#define GROW(field, n) ((field) = grow((field), (n) * sizeof *(field), &ok))

lsim_status lsim_frame_workspace_reserve(lsim_context *ctx, lsim_frame_workspace *ws, size_t n, size_t objects)
{
    int ok = 1;
    if (n > ws->capacity) {
        GROW(ws->rays.ox, n); GROW(ws->rays.oy, n); GROW(ws->rays.oz, n);
        GROW(ws->rays.dx, n); GROW(ws->rays.dy, n); GROW(ws->rays.dz, n);
        GROW(ws->hits.t, n); GROW(ws->hits.object, n); GROW(ws->hits.primitive, n);
        GROW(ws->hits.ngx, n); GROW(ws->hits.ngy, n); GROW(ws->hits.ngz, n);
        GROW(ws->returns.range, n); GROW(ws->returns.intensity, n); GROW(ws->returns.reflectivity, n);
        GROW(ws->returns.incidence, n);
        GROW(ws->returns.nx, n); GROW(ws->returns.ny, n); GROW(ws->returns.nz, n);
        GROW(ws->measured.range, n); GROW(ws->measured.intensity, n); GROW(ws->measured.detected, n);
        GROW(ws->chunk_points, n / LSIM_FRAME_CHUNK + 2);
        if (ok)
            ws->capacity = n;
    }
    if (ok && objects > ws->object_capacity) {
        GROW(ws->surfaces.reflectance, objects);
        GROW(ws->object_label, objects);
        GROW(ws->object_instance, objects);
        if (ok)
            ws->object_capacity = objects;
    }
    if (!ok)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY,
                         "out of memory for a frame of %zu beams (reduce the sensor's beam count)", n);
    ws->rays.count = n;
    ws->surfaces.count = objects;
    return LSIM_OK;
}

void lsim_frame_workspace_free(lsim_frame_workspace *ws)
{
    void *arrays[] = {
        ws->rays.ox, ws->rays.oy, ws->rays.oz, ws->rays.dx, ws->rays.dy, ws->rays.dz,
        ws->hits.t, ws->hits.object, ws->hits.primitive, ws->hits.ngx, ws->hits.ngy, ws->hits.ngz,
        ws->returns.range, ws->returns.intensity, ws->returns.reflectivity, ws->returns.incidence,
        ws->returns.nx, ws->returns.ny, ws->returns.nz,
        ws->measured.range, ws->measured.intensity, ws->measured.detected,
        ws->surfaces.reflectance, ws->object_label, ws->object_instance, ws->chunk_points,
    };
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; ++i)
        free(arrays[i]);
    memset(ws, 0, sizeof *ws);
}
