/* Point emission: compact the detected beams into the point buffer (beam order kept). */
#include "pipeline/frame.h"

#include "core/vec.h"
#include "points/points.h"

#include <math.h>
#include <stdlib.h>

#define EMIT_CHUNKS 256

typedef struct emit_columns {
    float *x, *y, *z, *range, *intensity, *reflectivity, *azimuth, *elevation, *time, *incidence;
    float *nx, *ny, *nz, *xc, *yc, *zc;
    uint16_t *ring;
    uint32_t *label, *instance;
} emit_columns;

static emit_columns columns_of(lsim_points *p)
{
    emit_columns c = {
        lsim_points_f32(p, LSIM_FIELD_X), lsim_points_f32(p, LSIM_FIELD_Y), lsim_points_f32(p, LSIM_FIELD_Z),
        lsim_points_f32(p, LSIM_FIELD_RANGE), lsim_points_f32(p, LSIM_FIELD_INTENSITY),
        lsim_points_f32(p, LSIM_FIELD_REFLECTIVITY), lsim_points_f32(p, LSIM_FIELD_AZIMUTH),
        lsim_points_f32(p, LSIM_FIELD_ELEVATION), lsim_points_f32(p, LSIM_FIELD_TIME),
        lsim_points_f32(p, LSIM_FIELD_INCIDENCE), lsim_points_f32(p, LSIM_FIELD_NX),
        lsim_points_f32(p, LSIM_FIELD_NY), lsim_points_f32(p, LSIM_FIELD_NZ),
        lsim_points_f32(p, LSIM_FIELD_X_CLEAN), lsim_points_f32(p, LSIM_FIELD_Y_CLEAN),
        lsim_points_f32(p, LSIM_FIELD_Z_CLEAN), lsim_points_u16(p, LSIM_FIELD_RING),
        lsim_points_u32(p, LSIM_FIELD_LABEL), lsim_points_u32(p, LSIM_FIELD_INSTANCE),
    };
    return c;
}

void lsim_points_emit(const lsim_sensor *sensor, const lsim_frame_workspace *ws,
                      const lsim_scan_options *options, lsim_points *points, int threads)
{
    const lsim_beams *b = &sensor->beams;
    const size_t n = b->count;
    const uint8_t *detected = ws->measured.detected;
    const int keep = options->keep_misses;
    const int world = options->frame == LSIM_FRAME_WORLD;
    size_t offset[EMIT_CHUNKS + 1];
    const size_t chunk = (n + EMIT_CHUNKS - 1) / EMIT_CHUNKS;

#pragma omp parallel for num_threads(threads) schedule(static)
    for (int c = 0; c < EMIT_CHUNKS; ++c) {
        size_t lo = (size_t)c * chunk, hi = lo + chunk < n ? lo + chunk : n, k = 0;
        for (size_t i = lo; i < hi; ++i)
            k += keep || detected[i];
        offset[c + 1] = lo < n ? k : 0;
    }
    offset[0] = 0;
    for (int c = 0; c < EMIT_CHUNKS; ++c)
        offset[c + 1] += offset[c];
    points->count = offset[EMIT_CHUNKS];

    emit_columns col = columns_of(points);
    const lsim_mat3 r = sensor->pose.r;
    float m[3][3];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            m[i][j] = (float)r.m[i][j];
    const float to_deg = (float)(180.0 / LSIM_PI);

#pragma omp parallel for num_threads(threads) schedule(static)
    for (int c = 0; c < EMIT_CHUNKS; ++c) {
        size_t lo = (size_t)c * chunk, hi = lo + chunk < n ? lo + chunk : n, o = offset[c];
        for (size_t i = lo; i < hi; ++i) {
            if (!keep && !detected[i])
                continue;
            col.ring[o] = b->ring[i];
            col.azimuth[o] = b->azimuth[i] * to_deg;
            col.elevation[o] = b->elevation[i] * to_deg;
            col.time[o] = b->time[i];
            if (!detected[i]) {
                col.x[o] = col.y[o] = col.z[o] = NAN;
                col.xc[o] = col.yc[o] = col.zc[o] = NAN;
                col.range[o] = col.intensity[o] = col.reflectivity[o] = col.incidence[o] = 0.0f;
                col.nx[o] = col.ny[o] = col.nz[o] = 0.0f;
                col.label[o] = col.instance[o] = 0;
                ++o;
                continue;
            }
            const float rm = ws->measured.range[i], rc = ws->returns.range[i];
            const float wnx = ws->returns.nx[i], wny = ws->returns.ny[i], wnz = ws->returns.nz[i];
            float dx, dy, dz, ox = 0.0f, oy = 0.0f, oz = 0.0f;
            if (world) {
                dx = ws->rays.dx[i];
                dy = ws->rays.dy[i];
                dz = ws->rays.dz[i];
                ox = ws->rays.ox[i];
                oy = ws->rays.oy[i];
                oz = ws->rays.oz[i];
                col.nx[o] = wnx;
                col.ny[o] = wny;
                col.nz[o] = wnz;
            } else {
                dx = b->dx[i];
                dy = b->dy[i];
                dz = b->dz[i];
                col.nx[o] = m[0][0] * wnx + m[1][0] * wny + m[2][0] * wnz;
                col.ny[o] = m[0][1] * wnx + m[1][1] * wny + m[2][1] * wnz;
                col.nz[o] = m[0][2] * wnx + m[1][2] * wny + m[2][2] * wnz;
            }
            col.x[o] = ox + dx * rm;
            col.y[o] = oy + dy * rm;
            col.z[o] = oz + dz * rm;
            col.xc[o] = ox + dx * rc;
            col.yc[o] = oy + dy * rc;
            col.zc[o] = oz + dz * rc;
            col.range[o] = rm;
            col.intensity[o] = ws->measured.intensity[i];
            col.reflectivity[o] = ws->measured.intensity[i] * rm * rm;
            col.incidence[o] = ws->returns.incidence[i] * to_deg;
            uint32_t obj = ws->hits.object[i];
            col.label[o] = ws->object_label[obj];
            col.instance[o] = ws->object_instance[obj];
            ++o;
        }
    }
}
