/* Point emission: compact the detected beams into the point buffer (beam order kept).
 * Per chunk of the frame loop: gather the indices of the emitted beams, then fill one column
 * at a time (few memory streams per loop, which the prefetchers handle well). */
#include "pipeline/frame.h"

#include "core/vec.h"
#include "points/points.h"

#include <math.h>

/* Gather helpers: dst[k] = src[idx[k]] (optionally scaled). */
static void gather_f32(float *restrict dst, const float *restrict src, const uint32_t *idx, size_t m, float scale)
{
    for (size_t k = 0; k < m; ++k)
        dst[k] = src[idx[k]] * scale;
}

/* dst[k] = origin + (row . beam direction) * range, for the emitted beams idx[0, m). With the
 * identity row and origin 0 this is the sensor frame; with a row of R and t, the world frame. */
static void place(float *restrict dst, float origin, const float row[3], const lsim_beams *b,
                  const float *restrict range, const uint32_t *idx, size_t m)
{
    for (size_t k = 0; k < m; ++k) {
        uint32_t i = idx[k];
        dst[k] = origin + (row[0] * b->dx[i] + row[1] * b->dy[i] + row[2] * b->dz[i]) * range[i];
    }
}

/* dst[k] = acos(cos_incidence) in degrees. */
static void incidence_deg(float *restrict dst, const float *restrict cos_incidence, const uint32_t *idx, size_t m)
{
    const float to_deg = (float)(180.0 / LSIM_PI);
    for (size_t k = 0; k < m; ++k)
        dst[k] = acosf(cos_incidence[idx[k]]) * to_deg;
}

/* dst[k] = row . (nx, ny, nz)[idx[k]] */
static void rotate_row(float *restrict dst, const float row[3], const lsim_returns *r, const uint32_t *idx, size_t m)
{
    for (size_t k = 0; k < m; ++k) {
        uint32_t i = idx[k];
        dst[k] = row[0] * r->nx[i] + row[1] * r->ny[i] + row[2] * r->nz[i];
    }
}

static void emit_chunk(const lsim_sensor *sensor, const lsim_frame_workspace *ws, const lsim_scan_options *options,
                       lsim_points *p, size_t lo, size_t hi, size_t o, const float rot[3][3],
                       const float origin[3], const float rt[3][3])
{
    const lsim_beams *b = &sensor->beams;
    const uint8_t *detected = ws->measured.detected;
    uint32_t idx[LSIM_FRAME_CHUNK];
    size_t m = 0;
    for (size_t i = lo; i < hi; ++i) {
        idx[m] = (uint32_t)i;
        m += options->keep_misses || detected[i];
    }
    if (m == 0)
        return;
    const float to_deg = (float)(180.0 / LSIM_PI);
    const int world = options->frame == LSIM_FRAME_WORLD;
    const lsim_returns *r = &ws->returns;
    static const lsim_field pos[3] = {LSIM_FIELD_X, LSIM_FIELD_Y, LSIM_FIELD_Z};
    static const lsim_field clean[3] = {LSIM_FIELD_X_CLEAN, LSIM_FIELD_Y_CLEAN, LSIM_FIELD_Z_CLEAN};
    static const lsim_field normal[3] = {LSIM_FIELD_NX, LSIM_FIELD_NY, LSIM_FIELD_NZ};
    for (int a = 0; a < 3; ++a) {
        place(lsim_points_f32(p, pos[a]) + o, origin[a], rot[a], b, ws->measured.range, idx, m);
        place(lsim_points_f32(p, clean[a]) + o, origin[a], rot[a], b, r->range, idx, m);
        if (world)
            gather_f32(lsim_points_f32(p, normal[a]) + o, a == 0 ? r->nx : a == 1 ? r->ny : r->nz, idx, m, 1.0f);
        else
            rotate_row(lsim_points_f32(p, normal[a]) + o, rt[a], r, idx, m);
    }
    gather_f32(lsim_points_f32(p, LSIM_FIELD_RANGE) + o, ws->measured.range, idx, m, 1.0f);
    gather_f32(lsim_points_f32(p, LSIM_FIELD_INTENSITY) + o, ws->measured.intensity, idx, m, 1.0f);
    gather_f32(lsim_points_f32(p, LSIM_FIELD_AZIMUTH) + o, b->azimuth, idx, m, to_deg);
    gather_f32(lsim_points_f32(p, LSIM_FIELD_ELEVATION) + o, b->elevation, idx, m, to_deg);
    gather_f32(lsim_points_f32(p, LSIM_FIELD_TIME) + o, b->time, idx, m, 1.0f);
    incidence_deg(lsim_points_f32(p, LSIM_FIELD_INCIDENCE) + o, r->cos_incidence, idx, m);
    float *refl = lsim_points_f32(p, LSIM_FIELD_REFLECTIVITY) + o;
    uint16_t *ring = lsim_points_u16(p, LSIM_FIELD_RING) + o;
    uint32_t *label = lsim_points_u32(p, LSIM_FIELD_LABEL) + o, *instance = lsim_points_u32(p, LSIM_FIELD_INSTANCE) + o;
    for (size_t k = 0; k < m; ++k) {
        uint32_t i = idx[k];
        float r = ws->measured.range[i];
        refl[k] = ws->measured.intensity[i] * r * r;
        ring[k] = b->ring[i];
    }
    for (size_t k = 0; k < m; ++k) {
        uint32_t obj = r->object[idx[k]];
        int hit = detected[idx[k]];
        label[k] = hit ? ws->object_label[obj] : 0;
        instance[k] = hit ? ws->object_instance[obj] : 0;
    }
    if (!options->keep_misses)
        return;
    for (size_t k = 0; k < m; ++k) { /* misses: range 0, NaN coordinates, no surface */
        if (detected[idx[k]])
            continue;
        for (int a = 0; a < 3; ++a) {
            lsim_points_f32(p, pos[a])[o + k] = NAN;
            lsim_points_f32(p, clean[a])[o + k] = NAN;
            lsim_points_f32(p, normal[a])[o + k] = 0.0f;
        }
        lsim_points_f32(p, LSIM_FIELD_RANGE)[o + k] = 0.0f;
        lsim_points_f32(p, LSIM_FIELD_INTENSITY)[o + k] = 0.0f;
        lsim_points_f32(p, LSIM_FIELD_INCIDENCE)[o + k] = 0.0f;
        refl[k] = 0.0f;
    }
}

void lsim_points_emit(const lsim_sensor *sensor, const lsim_frame_workspace *ws,
                      const lsim_scan_options *options, lsim_points *points, int threads)
{
    const size_t n = sensor->beams.count;
    const size_t chunk = ws->chunk, chunks = (n + chunk - 1) / chunk;
    size_t *offset = ws->chunk_points; /* [c + 1] = count of chunk c -> [c] = first point of chunk c */
    offset[0] = 0;
    for (size_t c = 0; c < chunks; ++c) {
        size_t lo = c * chunk, hi = lo + chunk < n ? lo + chunk : n;
        offset[c + 1] = offset[c] + (options->keep_misses ? hi - lo : offset[c + 1]);
    }
    points->count = offset[chunks];
    /* Positions: world = t + R d r, sensor = I d r. Normals (world) to the sensor frame: R^T. */
    const int world = options->frame == LSIM_FRAME_WORLD;
    float rot[3][3], rt[3][3];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            rot[i][j] = world ? (float)sensor->pose.r.m[i][j] : (float)(i == j);
            rt[i][j] = (float)sensor->pose.r.m[j][i];
        }
    const float origin[3] = {world ? (float)sensor->pose.t.x : 0.0f, world ? (float)sensor->pose.t.y : 0.0f,
                             world ? (float)sensor->pose.t.z : 0.0f};
#pragma omp parallel for num_threads(threads) schedule(dynamic, 4)
    for (size_t c = 0; c < chunks; ++c) {
        size_t lo = c * chunk, hi = lo + chunk < n ? lo + chunk : n;
        emit_chunk(sensor, ws, options, points, lo, hi, offset[c], rot, origin, rt);
    }
}
