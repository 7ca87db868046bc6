/* The frames' surfaces: triangles between neighbouring beams, moving objects out, frames averaged
 * where they see one surface, normals and reflectances (twin.h). */
#include "twin/twin.h"
#include "core/context.h"

#include "geometry/engine.h"
#include "pipeline/frame_setup.h"
#include "sensor/sensor.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

static int valid(const lsim_twin_frame *f, size_t k)
{
    return f->state[k] == LSIM_TWIN_CELL_HIT;
}

/* Edge i-j not along i's beam (a depth edge or a surface seen at grazing incidence beyond the
 * shadow angle) and not longer than the beams' spacing allows. */
static int edge_ok(const lsim_twin_frame *f, size_t i, size_t j, double cos_shadow)
{
    const float *a = f->p + 3 * i, *b = f->p + 3 * j, *o = f->o + 3 * i;
    const double e[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    const double u[3] = {a[0] - o[0], a[1] - o[1], a[2] - o[2]};
    const double le = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]), lu = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    if (!(le > 0.0) || !(lu > 0.0))
        return le == 0.0;
    const double c = fabs(e[0] * u[0] + e[1] * u[1] + e[2] * u[2]) / (le * lu);
    return c < cos_shadow;
}

lsim_status lsim_twin_triangulate(lsim_twin_run *run, lsim_twin_frame *f)
{
    return lsim_twin_triangulate_at(run, f, run->opt->shadow_angle_deg);
}

lsim_status lsim_twin_triangulate_at(lsim_twin_run *run, lsim_twin_frame *f, double shadow_angle_deg)
{
    const int R = f->rings, C = f->columns;
    const size_t cap = 2 * (size_t)(R > 1 ? R - 1 : 0) * (size_t)C + 2 * f->cells;
    free(f->tri);
    f->triangles = 0;
    f->splats = 0;
    f->verts = f->cells;
    f->tri = malloc((cap ? cap : 1) * 3 * sizeof *f->tri);
    uint8_t *used = calloc(f->cells ? f->cells : 1, 1);
    if (!f->tri || !used) {
        free(used);
        return lsim_fail(run->ctx, LSIM_ERR_OUT_OF_MEMORY, "twin: out of memory (%zu triangles)", cap);
    }
    const double cs = cos(shadow_angle_deg * PI / 180.0);
    for (int r = 0; r + 1 < R; ++r)
        for (int c = 0; c < C; ++c) {
            const size_t a = (size_t)r * C + c, b = (size_t)r * C + (c + 1) % C, d = (size_t)(r + 1) * C + c,
                         e = (size_t)(r + 1) * C + (c + 1) % C;
            const size_t t[2][3] = {{a, b, d}, {b, e, d}};
            for (int k = 0; k < 2; ++k) {
                const size_t *v = t[k];
                if (!valid(f, v[0]) || !valid(f, v[1]) || !valid(f, v[2]))
                    continue;
                if (!edge_ok(f, v[0], v[1], cs) || !edge_ok(f, v[1], v[0], cs) || !edge_ok(f, v[1], v[2], cs) ||
                    !edge_ok(f, v[2], v[1], cs) || !edge_ok(f, v[2], v[0], cs) || !edge_ok(f, v[0], v[2], cs))
                    continue;
                uint32_t *o = f->tri + 3 * f->triangles++;
                o[0] = (uint32_t)v[0], o[1] = (uint32_t)v[1], o[2] = (uint32_t)v[2];
                used[v[0]] = used[v[1]] = used[v[2]] = 1;
            }
        }
    /* A return in no triangle (foliage, a pole one beam wide, a lone return): a square facing its
     * beam, one beam spacing a side, so that a nearby viewpoint meets it as often as its own beam did. */
    const double half_w = 0.5 * 2.0 * PI / C, half_h = 0.5 * run->ring_step;
    for (size_t k = 0; k < f->cells; ++k) {
        if (!valid(f, k) || used[k])
            continue;
        const float *p = f->p + 3 * k, *o = f->o + 3 * k;
        const double r = f->range[k];
        const double d[3] = {(p[0] - o[0]) / r, (p[1] - o[1]) / r, (p[2] - o[2]) / r};
        double u[3] = {d[1], -d[0], 0.0}; /* d x z: horizontal, across the beam */
        double lu = sqrt(u[0] * u[0] + u[1] * u[1]);
        if (!(lu > 1e-6))
            u[0] = 1.0, u[1] = 0.0, lu = 1.0;
        u[0] /= lu, u[1] /= lu;
        const double v[3] = {u[1] * d[2] - u[2] * d[1], u[2] * d[0] - u[0] * d[2], u[0] * d[1] - u[1] * d[0]};
        const double hw = r * half_w, hh = r * half_h;
        const size_t base = f->verts;
        static const double corner[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
        for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 3; ++j)
                f->p[3 * (base + i) + j] = (float)(p[j] + corner[i][0] * hw * u[j] + corner[i][1] * hh * v[j]);
        f->splat_cell[f->splats++] = (uint32_t)k;
        f->verts += 4;
        uint32_t *o2 = f->tri + 3 * f->triangles;
        o2[0] = (uint32_t)base, o2[1] = (uint32_t)base + 1, o2[2] = (uint32_t)base + 2;
        o2[3] = (uint32_t)base, o2[4] = (uint32_t)base + 2, o2[5] = (uint32_t)base + 3;
        f->triangles += 2;
    }
    free(used);
    return LSIM_OK;
}

/* ------------------------------------------------------------------ consistency rays */

/* A frame's surface as a scene with its engine (Embree, through the geometry stage). */
static lsim_status frame_engine(lsim_twin_run *run, const lsim_twin_frame *f, lsim_scene **scene, lsim_engine **eng)
{
    *scene = NULL;
    *eng = NULL;
    lsim_status st = lsim_scene_create(run->ctx, scene);
    if (st != LSIM_OK)
        return st;
    if (f->triangles) {
        float *v = malloc(3 * f->verts * sizeof *v);
        if (!v)
            return lsim_fail(run->ctx, LSIM_ERR_OUT_OF_MEMORY, "twin: out of memory (%zu beams)", f->cells);
        for (size_t i = 0; i < 3 * f->verts; ++i)
            v[i] = i >= 3 * f->cells || f->state[i / 3] == LSIM_TWIN_CELL_HIT ? f->p[i] : 0.0f;
        lsim_object_desc d;
        lsim_object_desc_init(&d);
        st = lsim_scene_add_triangles(*scene, v, f->verts, f->tri, f->triangles, &d);
        free(v);
        if (st != LSIM_OK)
            return st;
    }
    return lsim_engine_build(*scene, &lsim_engine_embree, eng);
}

/* Where frame b's sensor was when its beam pointed at world point p: its origin then. */
static void origin_facing(const lsim_twin_run *run, const lsim_twin_frame *b, const double p[3], double o[3],
                          double r[9])
{
    lsim_twin_pose_at(run, b->start + 0.5 * run->period, o, r);
    const double q[3] = {p[0] - o[0], p[1] - o[1], p[2] - o[2]};
    const double sx = r[0] * q[0] + r[3] * q[1] + r[6] * q[2], sy = r[1] * q[0] + r[4] * q[1] + r[7] * q[2];
    int bin = (int)((atan2(sy, sx) * 180.0 / PI + 180.0) / 360.0 * LSIM_TWIN_AZ_BINS);
    bin = bin < 0 ? 0 : bin >= LSIM_TWIN_AZ_BINS ? LSIM_TWIN_AZ_BINS - 1 : bin;
    lsim_twin_pose_at(run, b->start + b->az_time[bin], o, r);
}

/* Frame b's beam nearest to the direction of p (from b's origin ob, rotation rb at that time) and
 * its neighbours (3 rings x 3 columns) all returned nothing, while an echo of p's surface at that
 * distance would be 10 times the threshold (strength: p's reflectivity / d^2; without a
 * reflectivity, never): nothing stood at p when b looked. Needs b's columns by azimuth. */
static int missed_there(const lsim_twin_run *run, const lsim_twin_frame *b, const double p[3], const double ob[3],
                        const double rb[9], float refl)
{
    if (!b->by_azimuth || !b->phase || !isfinite(refl) || !(refl > 0.0f) || !run->ring_el)
        return 0;
    const double q[3] = {p[0] - ob[0], p[1] - ob[1], p[2] - ob[2]};
    const double s[3] = {rb[0] * q[0] + rb[3] * q[1] + rb[6] * q[2], rb[1] * q[0] + rb[4] * q[1] + rb[7] * q[2],
                         rb[2] * q[0] + rb[5] * q[1] + rb[8] * q[2]};
    const double h = sqrt(s[0] * s[0] + s[1] * s[1]), d = sqrt(h * h + s[2] * s[2]);
    if (!(d > 0.5) || refl / (d * d) < 10.0 * run->threshold)
        return 0;
    const double el = atan2(s[2] - run->origin_z, h - run->origin_radial) * 180.0 / PI,
                 az = atan2(s[1], s[0]) * 180.0 / PI;
    int ring = 0;
    for (int i = 1; i < run->rings; ++i)
        ring = fabs(run->ring_el[i] - el) < fabs(run->ring_el[ring] - el) ? i : ring;
    if (fabs(run->ring_el[ring] - el) > 2.0 * run->ring_step * 180.0 / PI)
        return 0; /* above or below the field of view */
    const double step = 360.0 / b->columns;
    for (int dr = -1; dr <= 1; ++dr) {
        const int r = ring + dr;
        if (r < 0 || r >= b->rings)
            continue;
        long col = lround(az / step - b->phase[r]);
        for (int dc = -1; dc <= 1; ++dc) {
            long c = (col + dc) % b->columns;
            c += c < 0 ? b->columns : 0;
            if (b->state[(size_t)r * b->columns + (size_t)c] != LSIM_TWIN_CELL_EMPTY)
                return 0;
        }
    }
    return 1;
}

static void set_ray(lsim_rays *r, size_t i, const double o[3], const double to[3], double *dist)
{
    const double d[3] = {to[0] - o[0], to[1] - o[1], to[2] - o[2]};
    const double l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    *dist = l;
    r->ox[i] = (float)o[0], r->oy[i] = (float)o[1], r->oz[i] = (float)o[2];
    r->dx[i] = (float)(d[0] / l), r->dy[i] = (float)(d[1] / l), r->dz[i] = (float)(d[2] / l);
    r->time[i] = 0.0f;
    r->tnear[i] = 0.0f;
    r->tfar[i] = INFINITY;
    r->mask[i] = LSIM_RAY_MASK_ALL;
}

/* Ray k of both batches asks nothing: an empty [tnear, tfar], which every engine answers as a miss. */
static void skip_ray(lsim_rays rays[2], size_t k)
{
    for (int j = 0; j < 2; ++j) {
        rays[j].ox[k] = rays[j].oy[k] = rays[j].oz[k] = rays[j].dy[k] = rays[j].dz[k] = 0.0f;
        rays[j].dx[k] = 1.0f, rays[j].time[k] = 0.0f, rays[j].mask[k] = LSIM_RAY_MASK_ALL;
        rays[j].tnear[k] = 1.0f, rays[j].tfar[k] = 0.0f;
    }
}

/* |cos| of the incidence of hit i of ray i. */
static double hit_cos(const lsim_rays *r, const lsim_hits *h, size_t i)
{
    const double nl = sqrt((double)h->ngx[i] * h->ngx[i] + (double)h->ngy[i] * h->ngy[i] + (double)h->ngz[i] * h->ngz[i]);
    return nl > 0.0 ? fabs(h->ngx[i] * r->dx[i] + h->ngy[i] * r->dy[i] + h->ngz[i] * r->dz[i]) / nl : 1.0;
}

/* Tolerances (metres along the beam): a surface this far beyond a return was seen through it; two
 * measurements of one surface agree within the fusion tolerance. Both grow as the surface turns
 * away from the beam (a range error along the normal is that error / cos along the beam). */
#define SEE_THROUGH_M 0.25
#define SEE_THROUGH_REL 0.02
#define FUSE_M 0.05
#define FUSE_MAX_M 0.5
#define FREE_SHADOW_DEG 0.5

lsim_status lsim_twin_fuse(lsim_twin_run *run)
{
    lsim_context *ctx = run->ctx;
    const size_t F = run->frames;
    if (F < 2)
        return LSIM_OK;
    size_t maxc = 0;
    for (size_t i = 0; i < F; ++i)
        maxc = run->frame[i].cells > maxc ? run->frame[i].cells : maxc;
    lsim_scene **sc = calloc(2 * F, sizeof *sc);
    lsim_engine **eng = calloc(2 * F, sizeof *eng);
    double *sum = malloc(maxc * sizeof *sum), *dist = malloc(2 * maxc * sizeof *dist);
    uint16_t *count = malloc(maxc * sizeof *count);
    uint8_t *moving = malloc(maxc);
    float **fused = calloc(F, sizeof *fused);
    lsim_rays rays[2];
    lsim_hits hits[2];
    memset(rays, 0, sizeof rays);
    memset(hits, 0, sizeof hits);
    lsim_status st = LSIM_OK;
    if (!sc || !eng || !sum || !dist || !count || !moving || !fused || lsim_rays_alloc(&rays[0], maxc) ||
        lsim_rays_alloc(&rays[1], maxc) || lsim_hits_alloc(&hits[0], maxc) || lsim_hits_alloc(&hits[1], maxc)) {
        st = lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "twin: out of memory (%zu beams a frame)", maxc);
        goto done;
    }
    /* per frame, two surfaces: the twin's (eng[i]) and, for the see-through test, every quad but
     * those within half a degree of their beam (eng[F + i]): a beam that reached far ground at
     * grazing incidence counts, though the twin makes no triangle there */
    for (size_t i = 0; i < F && st == LSIM_OK; ++i)
        if ((st = lsim_twin_triangulate_at(run, &run->frame[i], FREE_SHADOW_DEG)) == LSIM_OK &&
            (st = frame_engine(run, &run->frame[i], &sc[F + i], &eng[F + i])) == LSIM_OK &&
            (st = lsim_twin_triangulate(run, &run->frame[i])) == LSIM_OK &&
            (st = frame_engine(run, &run->frame[i], &sc[i], &eng[i])) == LSIM_OK &&
            !(fused[i] = malloc(run->frame[i].cells * sizeof *fused[i])))
            st = lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "twin: out of memory (%zu beams)", run->frame[i].cells);
    if (st != LSIM_OK)
        goto done;
    for (size_t a = 0; a < F; ++a) {
        lsim_twin_frame *fa = &run->frame[a];
        const size_t C = fa->cells;
        for (size_t k = 0; k < C; ++k) {
            sum[k] = fa->range[k];
            count[k] = 1;
            moving[k] = 0;
        }
        for (size_t b = 0; b < F; ++b) {
            if (b == a)
                continue;
            /* ray 0: frame b's beam towards the return (seen through when b's surface lies beyond it);
             * ray 1: a's own beam, to b's surface (one surface when they agree) */
            for (size_t k = 0; k < C; ++k) {
                if (!valid(fa, k) || moving[k]) {
                    skip_ray(rays, k);
                    continue;
                }
                const double p[3] = {fa->p[3 * k], fa->p[3 * k + 1], fa->p[3 * k + 2]};
                const double oa[3] = {fa->o[3 * k], fa->o[3 * k + 1], fa->o[3 * k + 2]};
                double ob[3], rb[9];
                origin_facing(run, &run->frame[b], p, ob, rb);
                /* frame b's beams towards p returned nothing, though p's surface would have
                 * answered strongly there: free space (a moving object) */
                if (missed_there(run, &run->frame[b], p, ob, rb, fa->refl[k])) {
                    moving[k] = 1;
                    skip_ray(rays, k);
                    continue;
                }
                set_ray(&rays[0], k, ob, p, &dist[2 * k]);
                set_ray(&rays[1], k, oa, p, &dist[2 * k + 1]);
            }
            rays[0].count = rays[1].count = C;
            lsim_engine_intersect(eng[F + b], &rays[0], C, &hits[0]);
            lsim_engine_intersect(eng[b], &rays[1], C, &hits[1]);
            for (size_t k = 0; k < C; ++k) {
                if (!valid(fa, k) || moving[k])
                    continue;
                const double hb = hits[0].t[k], cb = hit_cos(&rays[0], &hits[0], k);
                const double tol = SEE_THROUGH_M + SEE_THROUGH_REL * dist[2 * k] + FUSE_M / (cb > 0.05 ? cb : 0.05);
                if (isfinite(hb) && hb > dist[2 * k] + tol) {
                    moving[k] = 1;
                    continue;
                }
                const double h = hits[1].t[k], ca = hit_cos(&rays[1], &hits[1], k);
                const double ft = fmin(FUSE_MAX_M, FUSE_M / (ca > 0.1 ? ca : 0.1));
                if (isfinite(h) && fabs(h - fa->range[k]) < ft) {
                    sum[k] += h;
                    ++count[k];
                }
            }
        }
        for (size_t k = 0; k < C; ++k) {
            fused[a][k] = NAN;
            if (!valid(fa, k))
                continue;
            if (moving[k]) {
                fa->state[k] = LSIM_TWIN_CELL_TRANSIENT;
                ++fa->transient;
            } else if (count[k] > 1) {
                fused[a][k] = (float)(sum[k] / count[k]);
                ++fa->fused;
            }
        }
    }
    /* each averaged return moved along its beam; the triangles again, without the moving ones */
    for (size_t a = 0; a < F && st == LSIM_OK; ++a) {
        lsim_twin_frame *fa = &run->frame[a];
        for (size_t k = 0; k < fa->cells; ++k)
            if (valid(fa, k) && isfinite(fused[a][k])) {
                const double s = fused[a][k] / fa->range[k];
                for (int i = 0; i < 3; ++i)
                    fa->p[3 * k + i] = (float)(fa->o[3 * k + i] + (fa->p[3 * k + i] - fa->o[3 * k + i]) * s);
                fa->range[k] = fused[a][k];
            }
        st = lsim_twin_triangulate(run, fa);
    }
done:
    for (size_t i = 0; i < 2 * F; ++i) {
        if (eng && eng[i])
            lsim_engine_destroy(eng[i]);
        if (sc && sc[i])
            lsim_scene_destroy(sc[i]);
        if (fused && i < F)
            free(fused[i]);
    }
    free(fused);
    free(eng);
    free(sc);
    free(sum);
    free(dist);
    free(count);
    free(moving);
    lsim_rays_free(&rays[0]);
    lsim_rays_free(&rays[1]);
    lsim_hits_free(&hits[0]);
    lsim_hits_free(&hits[1]);
    return st;
}

void lsim_twin_normals(lsim_twin_frame *f)
{
    memset(f->n, 0, 3 * f->cells * sizeof *f->n);
    for (size_t t = 0; t < f->triangles; ++t) {
        const uint32_t *v = f->tri + 3 * t;
        const float *a = f->p + 3 * v[0], *b = f->p + 3 * v[1], *c = f->p + 3 * v[2];
        const double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        const double nrm[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        /* facing the sensor, area-weighted */
        if (v[0] >= f->cells) /* a splat: no normal for its beam's cell */
            continue;
        const float *o = f->o + 3 * v[0];
        const double s = nrm[0] * (o[0] - a[0]) + nrm[1] * (o[1] - a[1]) + nrm[2] * (o[2] - a[2]) < 0.0 ? -1.0 : 1.0;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
                f->n[3 * v[i] + j] += (float)(s * nrm[j]);
    }
    for (size_t k = 0; k < f->cells; ++k) {
        float *n = f->n + 3 * k;
        const double l = sqrt((double)n[0] * n[0] + (double)n[1] * n[1] + (double)n[2] * n[2]);
        if (l > 0.0)
            n[0] = (float)(n[0] / l), n[1] = (float)(n[1] / l), n[2] = (float)(n[2] / l);
    }
}

/* Lambertian reflectance through lidarsim's intensity model (docs/physics.md: intensity =
 * rho cos(theta) xi(R) / R^2, reflectivity = intensity R^2, xi the receiver's overlap):
 * rho = reflectivity / (cos(theta) xi(R)), or intensity R^2 / (cos(theta) xi(R)) without a
 * reflectivity channel; cos(theta) from the surface normal, at least 0.2 (a grazing return's angle
 * is too uncertain to divide by more), xi at least 0.05. */
void lsim_twin_reflectance(const lsim_twin_run *run, lsim_twin_frame *f)
{
    lsim_overlap ov;
    lsim_overlap_make(&ov, &run->sensor->spec.receiver);
    for (size_t k = 0; k < f->cells; ++k) {
        f->rho[k] = NAN;
        if (!valid(f, k))
            continue;
        const float *n = f->n + 3 * k, *p = f->p + 3 * k, *o = f->o + 3 * k;
        const double r = f->range[k];
        double c = (n[0] || n[1] || n[2]) && r > 0.0
                       ? fabs(n[0] * (p[0] - o[0]) + n[1] * (p[1] - o[1]) + n[2] * (p[2] - o[2])) / r
                       : 1.0;
        c = c < 0.2 ? 0.2 : c;
        const double xi = lsim_overlap_at(&ov, (float)r);
        c *= xi > 0.05 ? xi : 0.05; /* the receiver's near-field loss, undone (at most 20 x) */
        double rho = isfinite(f->refl[k]) ? f->refl[k] / c
                     : isfinite(f->intensity[k]) ? f->intensity[k] * r * r / c : NAN;
        if (isfinite(rho))
            f->rho[k] = (float)(rho < 0.0 ? 0.0 : rho);
    }
    for (size_t s = 0; s < f->splats; ++s)
        for (int i = 0; i < 4; ++i)
            f->rho[f->cells + 4 * s + i] = f->rho[f->splat_cell[s]];
}
