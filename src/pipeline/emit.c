/* Point emission: the echoes of every beam, compacted into the point buffer in beam order
 * (echoes of a beam nearest first). Per slice: gather the echo slots to emit, then fill one
 * column at a time (few memory streams per loop, which the prefetchers handle well). */
#include "pipeline/frame.h"

#include "core/vec.h"
#include "points/points.h"

#include <math.h>

/* SemanticKITTI's "outlier": echoes of no surface (fog, noise). */
#define LSIM_LABEL_OUTLIER 1u

/* One emitted point: the beam and its echo slot. A miss (with keep_misses) points at the echo
 * buffer's miss slot (all zeros, no object), and its coordinates are set to NaN afterwards. */
typedef struct emit_item {
    uint32_t beam;
    uint32_t slot;
} emit_item;

/* A run of items whose beams and slots both go up by one (every hit of a single-return scan
 * between two misses): the column loops below read and write contiguous memory, which the
 * compiler turns into vector loops. A batch is cut into runs once and every column walks them. */
typedef struct emit_run {
    uint32_t k;    /* first item of the run in the batch */
    uint32_t beam; /* its beam */
    uint32_t slot; /* its echo slot */
    uint32_t len;
} emit_run;

static size_t batch_runs(const emit_item *it, size_t m, emit_run *runs)
{
    size_t n = 0;
    for (size_t k = 0; k < m;) {
        size_t e = k + 1;
        while (e < m && it[e].beam == it[e - 1].beam + 1 && it[e].slot == it[e - 1].slot + 1)
            ++e;
        runs[n++] = (emit_run){(uint32_t)k, it[k].beam, it[k].slot, (uint32_t)(e - k)};
        k = e;
    }
    return n;
}

/* The column loops in 8-lane vectors where the CPU has AVX2 (no FMA: the same sums as SSE2). */
#define LSIM_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))

/* dst[k] = origin + (row . beam direction) * range, identity row and origin 0 in the sensor
 * frame, a row of R and t in the world frame. */
LSIM_VECTOR_CLONES static void place(float *restrict dst, float origin, const float row[3], const lsim_beams *b,
                  const float *restrict range, const emit_run *run, size_t runs)
{
    const float r0 = row[0], r1 = row[1], r2 = row[2];
    for (size_t q = 0; q < runs; ++q) {
        float *restrict d = dst + run[q].k;
        const float *restrict rg = range + run[q].slot;
        const float *restrict dx = b->dx + run[q].beam, *restrict dy = b->dy + run[q].beam,
                              *restrict dz = b->dz + run[q].beam;
        const size_t len = run[q].len;
        if (b->ox) { /* beams with origins of their own: origin + row . (beam origin + direction range) */
            const float *restrict ox = b->ox + run[q].beam, *restrict oy = b->oy + run[q].beam,
                                  *restrict oz = b->oz + run[q].beam;
            for (size_t j = 0; j < len; ++j) {
                const float r = rg[j];
                d[j] = origin + r0 * (ox[j] + dx[j] * r) + r1 * (oy[j] + dy[j] * r) + r2 * (oz[j] + dz[j] * r);
            }
            continue;
        }
        for (size_t j = 0; j < len; ++j)
            d[j] = origin + (r0 * dx[j] + r1 * dy[j] + r2 * dz[j]) * rg[j];
    }
}

/* The incidence angle in degrees from its cosine, branch-free so that it runs in vectors:
 * acos(x) = sqrt(1 - x) P(x) on [0, 1] (Abramowitz & Stegun 4.4.46, |error| <= 2e-8 rad), and
 * pi - acos(-x) below 0. In float arithmetic within 1.7e-5 degrees of acos on [0, 1] and 3e-5 below. */
LSIM_VECTOR_CLONES static void incidence_deg(float *restrict dst, const float *restrict cosine, const emit_run *run,
                                            size_t runs)
{
    const float to_deg = (float)(180.0 / LSIM_PI), pi = (float)LSIM_PI;
    for (size_t q = 0; q < runs; ++q) {
        float *restrict d = dst + run[q].k;
        const float *restrict c = cosine + run[q].slot;
        for (size_t j = 0; j < run[q].len; ++j) {
            const float x = c[j] < 1.0f ? c[j] : 1.0f, a = fabsf(x); /* fminf(1, NaN) is 1 as well */
            float p = -0.0012624911f;
            p = p * a + 0.0066700901f;
            p = p * a - 0.0170881256f;
            p = p * a + 0.0308918810f;
            p = p * a - 0.0501743046f;
            p = p * a + 0.0889789874f;
            p = p * a - 0.2145988016f;
            p = p * a + 1.5707963050f;
            const float acos_a = sqrtf(1.0f - a) * p;
            d[j] = (x < 0.0f ? pi - acos_a : acos_a) * to_deg;
        }
    }
}

LSIM_VECTOR_CLONES static void gather_slot(float *restrict dst, const float *restrict src, const emit_run *run, size_t runs, float scale)
{
    for (size_t q = 0; q < runs; ++q) {
        float *restrict d = dst + run[q].k;
        const float *restrict s = src + run[q].slot;
        for (size_t j = 0; j < run[q].len; ++j)
            d[j] = s[j] * scale;
    }
}

LSIM_VECTOR_CLONES static void gather_beam(float *restrict dst, const float *restrict src, const emit_run *run, size_t runs, float scale)
{
    for (size_t q = 0; q < runs; ++q) {
        float *restrict d = dst + run[q].k;
        const float *restrict s = src + run[q].beam;
        for (size_t j = 0; j < run[q].len; ++j)
            d[j] = s[j] * scale;
    }
}

/* dst[k] = row . normal(slot) */
LSIM_VECTOR_CLONES static void rotate_row(float *restrict dst, const float row[3], const lsim_echo_buffer *e, const emit_run *run,
                       size_t runs)
{
    const float r0 = row[0], r1 = row[1], r2 = row[2];
    for (size_t q = 0; q < runs; ++q) {
        float *restrict d = dst + run[q].k;
        const float *restrict nx = e->nx + run[q].slot, *restrict ny = e->ny + run[q].slot,
                              *restrict nz = e->nz + run[q].slot;
        for (size_t j = 0; j < run[q].len; ++j)
            d[j] = r0 * nx[j] + r1 * ny[j] + r2 * nz[j];
    }
}

typedef struct emit_frame {
    const lsim_sensor *sensor;
    /* the sensor's beams; without their origins in kernel mode, whose image is rendered, and its
     * ranges measured, from the sensor's origin (pipeline/kernel_frame.c) */
    lsim_beams beams;
    const lsim_frame_workspace *ws;
    int world;
    int moves; /* the sensor moves during the frame: positions and normals per beam time */
    uint32_t fields; /* columns to fill (LSIM_FIELD_BIT mask) */
    float rot[3][3], origin[3], rt[3][3];
    double power_scale;
    size_t miss_slot; /* the echo buffer's all-zero slot */
} emit_frame;

/* Column `field` at point o if the frame fills it, else NULL. */
static float *f32_at(const emit_frame *f, lsim_points *p, lsim_field field, size_t o)
{
    return f->fields & LSIM_FIELD_BIT(field) ? lsim_points_f32(p, field) + o : NULL;
}

static uint32_t *u32_at(const emit_frame *f, lsim_points *p, lsim_field field, size_t o)
{
    return f->fields & LSIM_FIELD_BIT(field) ? lsim_points_u32(p, field) + o : NULL;
}

/* A moving sensor: each point from the sensor pose at its beam's time. World frame: true world
 * positions t(time) + R(time) d r; sensor frame: d r as before (the sensor frame at the firing
 * time), normals by R(time)^T. The pose is computed once per beam time (echoes and columns share one). */
static void emit_moving(const emit_frame *f, lsim_points *p, const emit_item *it, size_t m, size_t o)
{
    const lsim_beams *b = &f->beams;
    const lsim_echo_buffer *e = &f->ws->echoes;
    static const lsim_field pos[3] = {LSIM_FIELD_X, LSIM_FIELD_Y, LSIM_FIELD_Z};
    static const lsim_field clean[3] = {LSIM_FIELD_X_CLEAN, LSIM_FIELD_Y_CLEAN, LSIM_FIELD_Z_CLEAN};
    static const lsim_field normal[3] = {LSIM_FIELD_NX, LSIM_FIELD_NY, LSIM_FIELD_NZ};
    float *dp[3], *dc[3], *dn[3];
    for (int a = 0; a < 3; ++a) {
        dp[a] = f32_at(f, p, pos[a], o);
        dc[a] = f32_at(f, p, clean[a], o);
        dn[a] = f->world ? NULL : f32_at(f, p, normal[a], o); /* world normals: as before */
    }
    float posed_at = NAN; /* the beam time of `pose` (a beam's echoes and a column share one) */
    lsim_pose pose = f->sensor->pose;
    for (size_t k = 0; k < m; ++k) {
        const uint32_t i = it[k].beam, s = it[k].slot;
        if (!(b->time[i] == posed_at)) {
            posed_at = b->time[i];
            pose = lsim_sensor_beam_pose(f->sensor, posed_at);
        }
        const lsim_vec3 d = lsim_v3(b->dx[i], b->dy[i], b->dz[i]);
        const lsim_vec3 w = lsim_mat3_mul(&pose.r, d);
        /* the beam's own origin (sensor frame) and where it is in the world at the firing time */
        const lsim_vec3 bo = b->ox ? lsim_v3(b->ox[i], b->oy[i], b->oz[i]) : lsim_v3(0, 0, 0);
        const lsim_vec3 wo = b->ox ? lsim_v3_add(pose.t, lsim_mat3_mul(&pose.r, bo)) : pose.t;
        for (int a = 0; a < 3; ++a) {
            const double da = a == 0 ? d.x : a == 1 ? d.y : d.z, wa = a == 0 ? w.x : a == 1 ? w.y : w.z;
            const double ta = a == 0 ? wo.x : a == 1 ? wo.y : wo.z, oa = a == 0 ? bo.x : a == 1 ? bo.y : bo.z;
            if (dp[a])
                dp[a][k] = f->world ? (float)(ta + wa * e->range[s])
                                    : (float)(b->ox ? oa + da * e->range[s] : da * e->range[s]);
            if (dc[a])
                dc[a][k] = f->world ? (float)(ta + wa * e->range_clean[s])
                                    : (float)(b->ox ? oa + da * e->range_clean[s] : da * e->range_clean[s]);
            if (dn[a])
                dn[a][k] = (float)(pose.r.m[0][a] * e->nx[s] + pose.r.m[1][a] * e->ny[s] + pose.r.m[2][a] * e->nz[s]);
        }
    }
}

/* Fill every column but ring / return index / count for the items of one batch, at point o
 * (the columns of f->fields only). */
static void emit_batch(const emit_frame *f, lsim_points *p, const emit_item *it, size_t m, size_t o, int misses,
                       const emit_run *run, size_t runs)
{
    const lsim_beams *b = &f->beams;
    const lsim_echo_buffer *e = &f->ws->echoes;
    const float to_deg = (float)(180.0 / LSIM_PI);
    static const lsim_field pos[3] = {LSIM_FIELD_X, LSIM_FIELD_Y, LSIM_FIELD_Z};
    static const lsim_field clean[3] = {LSIM_FIELD_X_CLEAN, LSIM_FIELD_Y_CLEAN, LSIM_FIELD_Z_CLEAN};
    static const lsim_field normal[3] = {LSIM_FIELD_NX, LSIM_FIELD_NY, LSIM_FIELD_NZ};
    float *dst;
    if (f->moves)
        emit_moving(f, p, it, m, o);
    for (int a = 0; a < 3 && f->moves && f->world; ++a) /* positions done; world normals as stored */
        if ((dst = f32_at(f, p, normal[a], o)))
            gather_slot(dst, a == 0 ? e->nx : a == 1 ? e->ny : e->nz, run, runs, 1.0f);
    for (int a = 0; a < 3 && !f->moves; ++a) {
        if ((dst = f32_at(f, p, pos[a], o)))
            place(dst, f->origin[a], f->rot[a], b, e->range, run, runs);
        if ((dst = f32_at(f, p, clean[a], o)))
            place(dst, f->origin[a], f->rot[a], b, e->range_clean, run, runs);
        if (!(dst = f32_at(f, p, normal[a], o)))
            continue;
        if (f->world)
            gather_slot(dst, a == 0 ? e->nx : a == 1 ? e->ny : e->nz, run, runs, 1.0f);
        else
            rotate_row(dst, f->rt[a], e, run, runs);
    }
    if ((dst = f32_at(f, p, LSIM_FIELD_RANGE, o)))
        gather_slot(dst, e->range, run, runs, 1.0f);
    if ((dst = f32_at(f, p, LSIM_FIELD_INTENSITY, o)))
        gather_slot(dst, e->intensity, run, runs, 1.0f);
    if ((dst = f32_at(f, p, LSIM_FIELD_POWER, o)))
        gather_slot(dst, e->intensity, run, runs, (float)f->power_scale);
    if ((dst = f32_at(f, p, LSIM_FIELD_EPW, o)))
        gather_slot(dst, e->epw, run, runs, 1.0f);
    if ((dst = f32_at(f, p, LSIM_FIELD_AZIMUTH, o)))
        gather_beam(dst, b->azimuth, run, runs, to_deg);
    if ((dst = f32_at(f, p, LSIM_FIELD_ELEVATION, o)))
        gather_beam(dst, b->elevation, run, runs, to_deg);
    if ((dst = f32_at(f, p, LSIM_FIELD_TIME, o)))
        gather_beam(dst, b->time, run, runs, 1.0f);
    float *incidence = f32_at(f, p, LSIM_FIELD_INCIDENCE, o), *refl = f32_at(f, p, LSIM_FIELD_REFLECTIVITY, o);
    uint32_t *label = u32_at(f, p, LSIM_FIELD_LABEL, o), *instance = u32_at(f, p, LSIM_FIELD_INSTANCE, o);
    for (size_t q = 0; q < runs && refl; ++q) {
        float *restrict d = refl + run[q].k;
        const float *restrict rg = e->range + run[q].slot, *restrict in = e->intensity + run[q].slot;
        for (size_t j = 0; j < run[q].len; ++j)
            d[j] = in[j] * rg[j] * rg[j];
    }
    if (incidence)
        incidence_deg(incidence, e->cos_incidence, run, runs);
    if (label || instance) {
        const uint32_t *labels = f->ws->surfaces.label, *instances = f->ws->surfaces.instance;
        for (size_t q = 0; q < runs; ++q) {
            const uint32_t *restrict obj = e->object + run[q].slot;
            for (size_t j = 0; j < run[q].len; ++j) {
                const size_t k = run[q].k + j;
                if (label)
                    label[k] = obj[j] == LSIM_NO_HIT ? LSIM_LABEL_OUTLIER : labels[obj[j]];
                if (instance)
                    instance[k] = obj[j] == LSIM_NO_HIT ? 0 : instances[obj[j]];
            }
        }
    }
    if (!misses)
        return;
    const uint32_t miss = (uint32_t)f->miss_slot;
    for (size_t k = 0; k < m; ++k) { /* a miss: range 0, NaN coordinates, no surface */
        if (it[k].slot != miss)
            continue;
        for (int a = 0; a < 3; ++a) {
            if ((dst = f32_at(f, p, pos[a], o)))
                dst[k] = NAN;
            if ((dst = f32_at(f, p, clean[a], o)))
                dst[k] = NAN;
        }
        if (label)
            label[k] = 0;
    }
}

#define EMIT_BATCH 2048

static void emit_slice(const emit_frame *f, const lsim_scan_options *options, lsim_points *p, size_t lo, size_t hi,
                       size_t o)
{
    const lsim_beams *b = &f->beams;
    const lsim_echo_buffer *e = &f->ws->echoes;
    const size_t slots = (size_t)e->slots;
    emit_item it[EMIT_BATCH + LSIM_MAX_RETURNS + 1];
    emit_run run[EMIT_BATCH + LSIM_MAX_RETURNS + 1];
    /* The batch's ring / return index / count, in the columns the frame fills, else in a sink
     * on the stack (no branch per point). */
    uint16_t sink[3][EMIT_BATCH + LSIM_MAX_RETURNS + 1];
    static const lsim_field u16_fields[3] = {LSIM_FIELD_RETURN_INDEX, LSIM_FIELD_NUM_RETURNS, LSIM_FIELD_RING};
    uint16_t *col[3];
    size_t m = 0, start = o;
    for (int c = 0; c < 3; ++c)
        col[c] = f->fields & LSIM_FIELD_BIT(u16_fields[c]) ? lsim_points_u16(p, u16_fields[c]) + start : sink[c];
    int misses = 0;
    for (size_t i = lo; i < hi; ++i) {
        int count = e->count[i];
        if (count == 0 && options->keep_misses) {
            it[m] = (emit_item){(uint32_t)i, (uint32_t)f->miss_slot};
            misses = 1;
            col[0][m] = col[1][m] = 0;
            col[2][m] = b->ring[i];
            ++m;
        }
        for (int k = 0; k < count; ++k) {
            it[m] = (emit_item){(uint32_t)i, (uint32_t)(i * slots + (size_t)k)};
            col[0][m] = (uint16_t)k;
            col[1][m] = (uint16_t)count;
            col[2][m] = b->ring[i];
            ++m;
        }
        if (m >= EMIT_BATCH) {
            emit_batch(f, p, it, m, start, misses, run, batch_runs(it, m, run));
            start += m;
            m = 0;
            misses = 0;
            for (int c = 0; c < 3; ++c)
                if (col[c] != sink[c])
                    col[c] = lsim_points_u16(p, u16_fields[c]) + start;
        }
    }
    if (m > 0)
        emit_batch(f, p, it, m, start, misses, run, batch_runs(it, m, run));
}

/* A slice of a single-return frame without misses kept, from a sensor that does not move during
 * it (the common case): runs straight from the beams' echo counts, no per-point items. */
static void emit_slice_runs(const emit_frame *f, lsim_points *p, size_t lo, size_t hi, size_t o)
{
    const lsim_beams *b = &f->beams;
    const lsim_echo_buffer *e = &f->ws->echoes;
    emit_run run[EMIT_BATCH + 1];
    uint16_t *ring = f->fields & LSIM_FIELD_BIT(LSIM_FIELD_RING) ? lsim_points_u16(p, LSIM_FIELD_RING) : NULL;
    uint16_t *index = f->fields & LSIM_FIELD_BIT(LSIM_FIELD_RETURN_INDEX) ? lsim_points_u16(p, LSIM_FIELD_RETURN_INDEX)
                                                                         : NULL;
    uint16_t *count = f->fields & LSIM_FIELD_BIT(LSIM_FIELD_NUM_RETURNS) ? lsim_points_u16(p, LSIM_FIELD_NUM_RETURNS)
                                                                        : NULL;
    for (size_t i = lo; i < hi;) {
        size_t runs = 0, m = 0;
        while (i < hi && m < EMIT_BATCH) { /* the next batch: runs of beams with an echo */
            while (i < hi && !e->count[i])
                ++i;
            size_t j = i;
            while (j < hi && e->count[j] && m + (j - i) < EMIT_BATCH)
                ++j;
            if (j > i)
                run[runs++] = (emit_run){(uint32_t)m, (uint32_t)i, (uint32_t)i, (uint32_t)(j - i)};
            m += j - i;
            i = j;
        }
        for (size_t q = 0; q < runs; ++q) {
            const size_t at = o + run[q].k;
            for (size_t k = 0; k < run[q].len && ring; ++k)
                ring[at + k] = b->ring[run[q].beam + k];
            for (size_t k = 0; k < run[q].len && index; ++k)
                index[at + k] = 0;
            for (size_t k = 0; k < run[q].len && count; ++k)
                count[at + k] = 1;
        }
        if (m)
            emit_batch(f, p, NULL, m, o, 0, run, runs);
        o += m;
    }
}

size_t lsim_points_emit_offsets(const lsim_sensor *sensor, const lsim_frame_workspace *ws,
                                const lsim_scan_options *options)
{
    const size_t n = sensor->beams.count;
    const size_t chunk = ws->chunk, chunks = (n + chunk - 1) / chunk;
    size_t *offset = ws->chunk_points; /* [c + 1] = echoes of slice c -> [c] = first point of slice c */
    offset[0] = 0;
    for (size_t c = 0; c < chunks; ++c) {
        size_t lo = c * chunk, hi = lo + chunk < n ? lo + chunk : n, misses = 0;
        if (options->keep_misses)
            for (size_t i = lo; i < hi; ++i)
                misses += ws->echoes.count[i] == 0;
        offset[c + 1] = offset[c] + offset[c + 1] + misses;
    }
    return offset[chunks];
}

void lsim_points_emit_range(const lsim_sensor *sensor, const lsim_frame_workspace *ws,
                            const lsim_scan_options *options, uint32_t fields, lsim_points *points, int threads,
                            size_t first_chunk, size_t end_chunk)
{
    const size_t n = sensor->beams.count;
    const size_t chunk = ws->chunk;
    const size_t *offset = ws->chunk_points;
    const size_t base = offset[first_chunk];
    points->count = offset[end_chunk] - base;
    /* Positions: world = t + R d r, sensor = I d r. Normals (world) to the sensor frame: R^T. */
    emit_frame f;
    f.sensor = sensor;
    f.beams = sensor->beams;
    if (sensor->spec.beam.mode == LSIM_BEAM_KERNEL)
        f.beams.ox = f.beams.oy = f.beams.oz = NULL;
    f.ws = ws;
    f.world = options->frame == LSIM_FRAME_WORLD;
    f.moves = sensor->frame_moves;
    f.fields = fields;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            f.rot[i][j] = f.world ? (float)sensor->pose.r.m[i][j] : (float)(i == j);
            f.rt[i][j] = (float)sensor->pose.r.m[j][i];
        }
    f.origin[0] = f.world ? (float)sensor->pose.t.x : 0.0f;
    f.origin[1] = f.world ? (float)sensor->pose.t.y : 0.0f;
    f.origin[2] = f.world ? (float)sensor->pose.t.z : 0.0f;
    const lsim_receiver_spec *r = &sensor->spec.receiver;
    f.power_scale = r->peak_power_w * r->aperture_m2 * r->efficiency / LSIM_PI;
    f.miss_slot = n * (size_t)ws->echoes.slots;
    lsim_echo_buffer *e = (lsim_echo_buffer *)&ws->echoes; /* the miss slot: no echo, no surface */
    float *zero[] = {e->range, e->range_clean, e->intensity, e->epw, e->nx, e->ny, e->nz}; /* those held */
    for (size_t k = 0; k < sizeof zero / sizeof zero[0]; ++k)
        if (zero[k])
            zero[k][f.miss_slot] = 0.0f;
    if (e->cos_incidence)
        e->cos_incidence[f.miss_slot] = 1.0f;
    if (e->object)
        e->object[f.miss_slot] = LSIM_NO_HIT;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 4)
    for (size_t c = first_chunk; c < end_chunk; ++c) {
        size_t lo = c * chunk, hi = lo + chunk < n ? lo + chunk : n;
        if (ws->echoes.slots == 1 && !options->keep_misses && !f.moves)
            emit_slice_runs(&f, points, lo, hi, offset[c] - base);
        else
            emit_slice(&f, options, points, lo, hi, offset[c] - base);
    }
}

void lsim_points_emit(const lsim_sensor *sensor, const lsim_frame_workspace *ws,
                      const lsim_scan_options *options, uint32_t fields, lsim_points *points, int threads)
{
    const size_t n = sensor->beams.count, chunk = ws->chunk;
    lsim_points_emit_offsets(sensor, ws, options);
    lsim_points_emit_range(sensor, ws, options, fields, points, threads, 0, (n + chunk - 1) / chunk);
}
