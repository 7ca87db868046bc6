/* The recording's ray drop, measured frame against frame: each frame's beams are scanned (no noise,
 * the receiver's threshold and overlap as the sensor has them) in a scene of the OTHER frames'
 * surfaces, and a beam that hits there while the real beam returned nothing is a drop. Binned by
 * the echo's range, incidence and reflectance, each rate pulled towards the overall rate by 20
 * beams' weight where a bin holds few. First the recording's own sensitivity: the detection
 * threshold that best separates the beams the real sensor answered from those it did not (twin.h). */
#include "twin/twin.h"
#include "core/context.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const double LSIM_TWIN_DROP_RANGE[LSIM_TWIN_DROP_R] = {0, 2, 5, 10, 20, 40, 80};
const double LSIM_TWIN_DROP_INC[LSIM_TWIN_DROP_I] = {0, 30, 50, 65, 75, 85};
const double LSIM_TWIN_DROP_REFL[LSIM_TWIN_DROP_F] = {0, 0.03, 0.08, 0.2, 0.5};
#define PRIOR_BEAMS 20.0

static int bin_of(const double *edges, int n, double v)
{
    int b = 0;
    while (b + 1 < n && v >= edges[b + 1])
        ++b;
    return b;
}

/* A scene of every frame's surface but `skip`'s, one object per triangle level (level_of_instance
 * maps the scan's instance ids back). */
static lsim_status other_scene(lsim_twin_run *run, size_t skip, lsim_scene **out, int *level_of_instance)
{
    lsim_context *ctx = run->ctx;
    const int L = run->opt->reflectance_levels;
    lsim_scene *s = NULL;
    lsim_status st = lsim_scene_create(ctx, &s);
    size_t cells = 0, tris = 0;
    for (size_t i = 0; i < run->frames; ++i)
        cells += run->frame[i].verts, tris += run->frame[i].triangles;
    float *v = malloc((cells ? cells : 1) * 3 * sizeof *v);
    uint32_t *ix = malloc((tris ? tris : 1) * 3 * sizeof *ix);
    uint32_t *remap = malloc((cells ? cells : 1) * sizeof *remap);
    if (st == LSIM_OK && (!v || !ix || !remap))
        st = lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "twin: out of memory (%zu triangles)", tris);
    int instance = 0;
    for (int l = 0; l < L && st == LSIM_OK; ++l) {
        size_t nv = 0, nt = 0, base = 0;
        for (size_t i = 0; i < cells; ++i)
            remap[i] = UINT32_MAX;
        for (size_t fi = 0; fi < run->frames; base += run->frame[fi].verts, ++fi) {
            const lsim_twin_frame *f = &run->frame[fi];
            if (fi == skip)
                continue;
            for (size_t t = 0; t < f->triangles; ++t) {
                if (lsim_twin_triangle_level(run, f, t) != l)
                    continue;
                for (int k = 0; k < 3; ++k) {
                    const size_t c = base + f->tri[3 * t + k];
                    if (remap[c] == UINT32_MAX) {
                        remap[c] = (uint32_t)nv;
                        memcpy(v + 3 * nv, f->p + 3 * f->tri[3 * t + k], 3 * sizeof *v);
                        ++nv;
                    }
                    ix[3 * nt + k] = remap[c];
                }
                ++nt;
            }
        }
        if (!nt)
            continue;
        char name[32];
        snprintf(name, sizeof name, "rho_%03d", l);
        lsim_object_desc d;
        lsim_object_desc_init(&d);
        d.material = name;
        if ((st = lsim_scene_add_lambertian(s, name, lsim_twin_level_rho(l, L))) == LSIM_OK &&
            (st = lsim_scene_add_triangles(s, v, nv, ix, nt, &d)) == LSIM_OK)
            level_of_instance[++instance] = l;
    }
    free(v);
    free(ix);
    free(remap);
    if (st != LSIM_OK) {
        lsim_scene_destroy(s);
        return st;
    }
    *out = s;
    return LSIM_OK;
}

/* One beam the sim hit: its echo's strength on the threshold's scale and its bins; the real beam's. */
typedef struct beam_sample {
    float intensity;
    uint8_t bin[3], real_hit;
} beam_sample;

static int by_intensity(const void *a, const void *b)
{
    const float x = ((const beam_sample *)a)->intensity, y = ((const beam_sample *)b)->intensity;
    return (x > y) - (x < y);
}

/* Scan frame fi's beams in the other frames' surfaces (no noise, the threshold far down) and
 * append a sample per beam the sim hit. */
static lsim_status sample_frame(lsim_twin_run *run, size_t fi, int *level_of_instance, uint8_t *seen, double *phase,
                                beam_sample *out, size_t *count)
{
    const lsim_twin_frame *f = &run->frame[fi];
    lsim_scene *scene = NULL;
    lsim_status st = other_scene(run, fi, &scene, level_of_instance);
    if (st != LSIM_OK)
        return st;
    lsim_scan_options so;
    lsim_scan_options_init(&so);
    so.noise = 0;
    so.scan_time = f->start;
    so.fields = LSIM_FIELD_BIT(LSIM_FIELD_RANGE) | LSIM_FIELD_BIT(LSIM_FIELD_RING) | LSIM_FIELD_BIT(LSIM_FIELD_TIME) |
                LSIM_FIELD_BIT(LSIM_FIELD_AZIMUTH) | LSIM_FIELD_BIT(LSIM_FIELD_INCIDENCE) |
                LSIM_FIELD_BIT(LSIM_FIELD_INSTANCE) | LSIM_FIELD_BIT(LSIM_FIELD_RETURN_INDEX) |
                LSIM_FIELD_BIT(LSIM_FIELD_INTENSITY);
    lsim_points *sim = NULL;
    st = lsim_scene_scan(scene, run->sensor, &so, &sim);
    lsim_scene_destroy(scene);
    if (st != LSIM_OK)
        return st;
    const size_t n = lsim_points_count(sim);
    const float *rg = lsim_points_column(sim, LSIM_FIELD_RANGE), *tm = lsim_points_column(sim, LSIM_FIELD_TIME),
                *inc = lsim_points_column(sim, LSIM_FIELD_INCIDENCE), *in = lsim_points_column(sim, LSIM_FIELD_INTENSITY);
    const uint16_t *ring = lsim_points_column(sim, LSIM_FIELD_RING), *ret = lsim_points_column(sim, LSIM_FIELD_RETURN_INDEX);
    const uint32_t *inst = lsim_points_column(sim, LSIM_FIELD_INSTANCE);
    /* the sim's columns as the real frame's (twin_input.c): by azimuth where the real frame had it */
    const float *key = f->by_azimuth ? lsim_points_column(sim, LSIM_FIELD_AZIMUTH) : tm;
    const double step = f->by_azimuth ? 360.0 / run->columns : run->period / run->columns;
    lsim_twin_ring_phases(key, ring, ret, n, run->rings, step, phase);
    memset(seen, 0, (size_t)run->rings * run->columns);
    const int L = run->opt->reflectance_levels;
    for (size_t i = 0; i < n; ++i) {
        if ((ret && ret[i]) || !(rg[i] > 0.0f) || ring[i] >= run->rings || !isfinite(key[i]))
            continue;
        long col = lround(key[i] / step - phase[ring[i]]);
        col %= run->columns;
        col += col < 0 ? run->columns : 0;
        const size_t k = (size_t)ring[i] * run->columns + (size_t)col;
        if (seen[k])
            continue;
        seen[k] = 1;
        const int lv = inst[i] >= 1 && inst[i] <= (uint32_t)L + 1 ? level_of_instance[inst[i]] : 0;
        beam_sample *b = &out[(*count)++];
        b->intensity = in[i];
        b->bin[0] = (uint8_t)bin_of(LSIM_TWIN_DROP_RANGE, LSIM_TWIN_DROP_R, rg[i]);
        b->bin[1] = (uint8_t)bin_of(LSIM_TWIN_DROP_INC, LSIM_TWIN_DROP_I, inc[i]);
        b->bin[2] = (uint8_t)bin_of(LSIM_TWIN_DROP_REFL, LSIM_TWIN_DROP_F, lsim_twin_level_rho(lv, L));
        b->real_hit = f->state[k] != LSIM_TWIN_CELL_EMPTY;
    }
    lsim_points_destroy(sim);
    return LSIM_OK;
}

lsim_status lsim_twin_measure_drop(lsim_twin_run *run)
{
    lsim_context *ctx = run->ctx;
    memset(run->drop_n, 0, sizeof run->drop_n);
    memset(run->drop_rate, 0, sizeof run->drop_rate);
    run->drop_beams = run->drop_missed = 0;
    run->detection_reflectance = 0.0;
    if (run->frames < 2 || !run->opt->drop_model || run->opt->naive)
        return LSIM_OK;
    double sr, si, det0, rmin, rmax, res;
    lsim_sensor_get_noise(run->sensor, &sr, &si, &det0);
    lsim_sensor_get_range(run->sensor, &rmin, &rmax, &res);
    size_t cap = 0;
    for (size_t i = 0; i < run->frames; ++i)
        cap += run->frame[i].cells;
    int *level_of_instance = calloc((size_t)run->opt->reflectance_levels + 2, sizeof *level_of_instance);
    uint8_t *seen = malloc((size_t)run->rings * run->columns);
    double *phase = malloc((size_t)run->rings * sizeof *phase);
    beam_sample *b = malloc((cap ? cap : 1) * sizeof *b);
    size_t n = 0;
    lsim_status st = level_of_instance && seen && phase && b
                         ? LSIM_OK
                         : lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "twin: out of memory (%zu beams)", cap);
    /* the threshold 10^4 times lower: every surface the beam meets answers */
    if (st == LSIM_OK)
        st = lsim_sensor_set_noise(run->sensor, sr, si, det0 * 1e-4);
    for (size_t fi = 0; fi < run->frames && st == LSIM_OK; ++fi)
        st = sample_frame(run, fi, level_of_instance, seen, phase, b, &n);
    free(level_of_instance);
    free(seen);
    free(phase);
    if (st == LSIM_OK)
        st = lsim_sensor_set_noise(run->sensor, sr, si, det0);
    if (st != LSIM_OK) {
        free(b);
        return st;
    }
    /* The recording's own sensitivity: the threshold that best splits the beams the real sensor
     * answered from those it did not, by their echoes' strength (fewest beams on the wrong side). */
    qsort(b, n, sizeof *b, by_intensity);
    uint64_t misses_below = 0, hits_below = 0, best_err = UINT64_MAX, hits_total = 0;
    for (size_t i = 0; i < n; ++i)
        hits_total += b[i].real_hit;
    size_t cut = 0;
    for (int pass = 0; pass < 2; ++pass) { /* the fewest errors; then the highest threshold within 0.1 % of beams of it */
        hits_below = misses_below = 0;
        for (size_t i = 0; i <= n; ++i) {
            /* threshold just above beam i-1: beams [0, i) undetected */
            const uint64_t err = hits_below + (n - i - (hits_total - hits_below));
            const int edge = i == 0 || i == n || b[i].intensity > b[i - 1].intensity;
            if (pass == 0 && edge && err < best_err)
                best_err = err;
            if (pass == 1 && edge && err <= best_err + n / 1000)
                cut = i;
            if (i < n)
                hits_below += b[i].real_hit, misses_below += !b[i].real_hit;
        }
    }
    const double t0 = det0 / (rmax * rmax);
    double t = cut == 0 ? t0 * 1e-4 : cut >= n ? t0 : 0.5 * (b[cut - 1].intensity + b[cut].intensity);
    t = t > 0.0 ? t : t0 * 1e-4;
    run->detection_reflectance = t * rmax * rmax;
    if (!(run->detection_reflectance > 0.0 && run->detection_reflectance <= 1000.0))
        run->detection_reflectance = det0;
    /* the drop, among the beams above that threshold */
    uint64_t missed[LSIM_TWIN_DROP_R][LSIM_TWIN_DROP_I][LSIM_TWIN_DROP_F];
    memset(missed, 0, sizeof missed);
    for (size_t i = cut; i < n; ++i) {
        ++run->drop_n[b[i].bin[0]][b[i].bin[1]][b[i].bin[2]];
        ++run->drop_beams;
        if (!b[i].real_hit) {
            ++missed[b[i].bin[0]][b[i].bin[1]][b[i].bin[2]];
            ++run->drop_missed;
        }
    }
    run->threshold_beams = n;
    free(b);
    const double overall = run->drop_beams ? (double)run->drop_missed / run->drop_beams : 0.0;
    for (int r = 0; r < LSIM_TWIN_DROP_R; ++r)
        for (int i = 0; i < LSIM_TWIN_DROP_I; ++i)
            for (int k = 0; k < LSIM_TWIN_DROP_F; ++k)
                run->drop_rate[r][i][k] = (missed[r][i][k] + PRIOR_BEAMS * overall) / (run->drop_n[r][i][k] + PRIOR_BEAMS);
    return lsim_sensor_set_noise(run->sensor, sr, si, run->detection_reflectance);
}
