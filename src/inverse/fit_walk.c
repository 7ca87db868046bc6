/* Each beam's path for the fit, traced by the scene's engine (see fit.h): the one path a beam's
 * return most plausibly took, as the optics follows it. From the sensor, a mirror reflects, solid
 * glass refracts (or reflects totally inside), thin glass (a plane) passes straight on with no
 * deviation and no extra length, and any other surface returns. Each vertex keeps its world point,
 * geometric normal and the optical length up to it (glass counts ior x length, as the optics
 * does), so fit_eval.c can match the range the scan reported to the return vertex, or to a mirror's
 * or glass's own return along the way, and re-trace that path with dual numbers. */
#include "core/context.h"
#include "core/vec.h"
#include "geometry/engine.h"
#include "inverse/fit.h"
#include "optics/path_math.h"
#include "pipeline/frame_cache.h"
#include "scene/scene.h"
#include "sensor/sensor.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct walk_state {
    lsim_rays rays;
    lsim_hits hits;
    size_t capacity;
    uint32_t *beam;   /* active ray -> beam */
    double *o, *d;    /* [3 beams] */
    double *optical;  /* [beams] */
    double *ior;      /* [beams]: 0 outside glass, else the glass's ior */
    uint32_t *glass;  /* [beams]: the glass object the ray is inside (while ior > 0) */
    double *tp;       /* [rays]: one-way throughput of the mirrors and glass passed */
} walk_state;

void lsim_fit_walk_free(lsim_fit *f)
{
    walk_state *w = f->walk;
    if (!w)
        return;
    lsim_rays_free(&w->rays);
    lsim_hits_free(&w->hits);
    free(w->beam);
    free(w->o);
    free(w->d);
    free(w->optical);
    free(w->ior);
    free(w->glass);
    free(w->tp);
    free(w);
    f->walk = NULL;
}

static walk_state *walk_alloc(lsim_fit *f)
{
    walk_state *w = calloc(1, sizeof *w);
    const size_t n = (f->beams ? f->beams : 1) * (size_t)f->sub; /* rays */
    if (!w)
        return NULL;
    f->walk = w;
    w->capacity = n;
    w->beam = malloc(n * sizeof *w->beam);
    w->o = malloc(3 * n * sizeof *w->o);
    w->d = malloc(3 * n * sizeof *w->d);
    w->optical = malloc(n * sizeof *w->optical);
    w->ior = malloc(n * sizeof *w->ior);
    w->glass = malloc(n * sizeof *w->glass);
    w->tp = malloc(n * sizeof *w->tp);
    if (!w->beam || !w->o || !w->d || !w->optical || !w->ior || !w->glass || !w->tp || lsim_rays_alloc(&w->rays, n) != 0 ||
        lsim_hits_alloc(&w->hits, n) != 0) {
        lsim_fit_walk_free(f);
        return NULL;
    }
    return w;
}

static uint32_t mix(uint32_t h, uint32_t v)
{
    h ^= v + 0x9e3779b9u + (h << 6) + (h >> 2);
    return h;
}

lsim_status lsim_fit_walk(lsim_fit *f, const double sensor_pose[6])
{
    walk_state *w = f->walk ? f->walk : walk_alloc(f);
    if (!w)
        return lsim_fail(f->ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for the fit's path walk");
    lsim_scene *scene = f->scene;
    lsim_status st = lsim_scene_commit(scene);
    if (st != LSIM_OK)
        return st;
    const lsim_engine *engine = lsim_scene_engine(scene); /* the one its scans trace (pipeline/frame_cache.h) */
    const double rpy_deg[3] = {sensor_pose[3] / LSIM_DEG, sensor_pose[4] / LSIM_DEG, sensor_pose[5] / LSIM_DEG};
    const lsim_pose pose = lsim_pose_make(sensor_pose, rpy_deg);
    const double range_max = f->sensor->spec.range_max;
    size_t active = 0;
    const int sub = f->sub;
    for (size_t b = 0; b < f->beams; ++b) {
        const lsim_vec3 o = lsim_v3_add(lsim_mat3_mul(&pose.r, lsim_v3(f->org[3 * b], f->org[3 * b + 1],
                                                                          f->org[3 * b + 2])), pose.t);
        const lsim_vec3 d = lsim_mat3_mul(&pose.r, lsim_v3(f->dir[3 * b], f->dir[3 * b + 1], f->dir[3 * b + 2]));
        float u[3], v[3];
        const float df[3] = {(float)d.x, (float)d.y, (float)d.z};
        if (sub > 1)
            lsim_subray_basis(df, u, v); /* as the scan's ray generation (pipeline/raygen.c) */
        for (int s = 0; s < sub; ++s) {
            const size_t i = b * (size_t)sub + (size_t)s;
            f->path[i].n = 0;
            f->path[i].returned = 0;
            f->path[i].range = 0.0;
            f->path[i].signature = 0;
            f->path[i].bounced = 0;
            f->path[i].throughput2 = 1.0;
            f->path[i].air = 0.0;
            double *po = w->o + 3 * i, *pd = w->d + 3 * i;
            po[0] = o.x, po[1] = o.y, po[2] = o.z;
            pd[0] = d.x, pd[1] = d.y, pd[2] = d.z;
            if (s > 0) {
                const float a = f->subrays.offset[s][0], c = f->subrays.offset[s][1];
                const float e[3] = {df[0] + a * u[0] + c * v[0], df[1] + a * u[1] + c * v[1], df[2] + a * u[2] + c * v[2]};
                const float inv = 1.0f / sqrtf(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
                for (int k = 0; k < 3; ++k)
                    pd[k] = (double)(e[k] * inv);
            }
            w->optical[i] = 0.0;
            w->ior[i] = 0.0;
            w->tp[i] = 1.0;
            w->beam[active++] = (uint32_t)i;
        }
    }
    for (int depth = 0; depth < LSIM_FIT_MAX_VERTICES && active > 0; ++depth) {
        for (size_t a = 0; a < active; ++a) {
            const size_t i = w->beam[a];
            const double *o = w->o + 3 * i, *d = w->d + 3 * i;
            w->rays.ox[a] = (float)o[0], w->rays.oy[a] = (float)o[1], w->rays.oz[a] = (float)o[2];
            w->rays.dx[a] = (float)d[0], w->rays.dy[a] = (float)d[1], w->rays.dz[a] = (float)d[2];
            w->rays.time[a] = 0.0f;
            w->rays.tnear[a] = depth == 0 ? 0.0f : 1e-4f;
            w->rays.tfar[a] = (float)(range_max - w->optical[i]);
            w->rays.mask[a] = LSIM_RAY_MASK_ALL;
        }
        lsim_engine_intersect(engine, &w->rays, active, &w->hits);
        size_t still = 0;
        for (size_t a = 0; a < active; ++a) {
            const size_t i = w->beam[a];
            const uint32_t obj = w->hits.object[a];
            fit_path *path = &f->path[i];
            if (obj == LSIM_NO_HIT || obj >= scene->object_count)
                continue; /* the path leaves the scene: no return at its end */
            double *o = w->o + 3 * i, *d = w->d + 3 * i;
            const double t = w->hits.t[a];
            if (w->ior[i] > 0.0 && obj != w->glass[i])
                w->ior[i] = 0.0; /* inside glass, another object met: outside again, as the optics has it */
            double ng[3] = {w->hits.ngx[a], w->hits.ngy[a], w->hits.ngz[a]};
            const double len = sqrt(ng[0] * ng[0] + ng[1] * ng[1] + ng[2] * ng[2]);
            if (!(len > 0.0) || !(t > 0.0))
                continue;
            for (int k = 0; k < 3; ++k)
                ng[k] /= len;
            const double medium = w->ior[i] > 0.0 ? w->ior[i] : 1.0;
            w->optical[i] += medium * t;
            if (!(w->ior[i] > 0.0))
                path->air += t;
            double p[3] = {o[0] + t * d[0], o[1] + t * d[1], o[2] + t * d[2]};
            path->signature = mix(path->signature, obj + 1);
            const lsim_brdf *brdf = &scene->materials[scene->objects[obj].material].brdf;
            const int thin_glass = brdf->kind == LSIM_BRDF_GLASS && strcmp(scene->objects[obj].kind, "plane") == 0;
            if (thin_glass) { /* straight on: no vertex, no deviation, no length; two interfaces' loss */
                const double cos_in = fabs(ng[0] * d[0] + ng[1] * d[1] + ng[2] * d[2]);
                const double fr = lsim_fresnel_interface((float)cos_in, 1.0f, (float)brdf->ior);
                w->tp[i] *= (1.0 - fr) * (1.0 - fr) * brdf->transmittance;
                memcpy(o, p, sizeof p);
                w->beam[still++] = (uint32_t)i;
                continue;
            }
            if (path->n == LSIM_FIT_MAX_VERTICES)
                continue;
            lsim_path_vertex *v = &f->vertex[i * LSIM_FIT_MAX_VERTICES + path->n];
            f->vertex_object[i * LSIM_FIT_MAX_VERTICES + path->n] = obj;
            memcpy(v->point, p, sizeof p);
            v->pose = -1;
            v->eta = 1.0;
            f->vertex_optical[i * LSIM_FIT_MAX_VERTICES + path->n] = w->optical[i];
            ++path->n;
            double cosd = ng[0] * d[0] + ng[1] * d[1] + ng[2] * d[2];
            double n[3] = {ng[0], ng[1], ng[2]}; /* facing the ray */
            if (cosd > 0.0)
                for (int k = 0; k < 3; ++k)
                    n[k] = -n[k];
            const double cosi = fabs(cosd);
            memcpy(v->normal, n, sizeof n);
            if (brdf->kind == LSIM_BRDF_MIRROR) {
                v->kind = LSIM_VERTEX_MIRROR;
                w->tp[i] *= brdf->reflectance;
            } else if (brdf->kind == LSIM_BRDF_GLASS) {
                const int entering = w->ior[i] == 0.0;
                const double eta = entering ? 1.0 / brdf->ior : brdf->ior;
                const double k2 = 1.0 - eta * eta * (1.0 - cosi * cosi);
                if (k2 > 0.0) { /* refract; the stored normal faces the ray entering, points along it leaving */
                    const float n1 = entering ? 1.0f : (float)brdf->ior, n2 = entering ? (float)brdf->ior : 1.0f;
                    w->tp[i] *= (1.0 - lsim_fresnel_interface((float)cosi, n1, n2)) * (entering ? 1.0 : brdf->transmittance);
                    v->kind = LSIM_VERTEX_REFRACT;
                    v->eta = 1.0 / brdf->ior;
                    if (!entering)
                        for (int k = 0; k < 3; ++k)
                            v->normal[k] = -n[k];
                    const double ct = sqrt(k2);
                    for (int k = 0; k < 3; ++k)
                        d[k] = eta * d[k] + (eta * cosi - ct) * n[k];
                    w->ior[i] = entering ? brdf->ior : 0.0;
                    w->glass[i] = obj;
                } else {
                    v->kind = LSIM_VERTEX_MIRROR; /* total internal reflection */
                }
            } else {
                v->kind = LSIM_VERTEX_RETURN;
                path->returned = 1;
                path->range = w->optical[i];
                path->throughput2 = w->tp[i] * w->tp[i];
                continue; /* the path ends here */
            }
            path->bounced = 1;
            if (v->kind == LSIM_VERTEX_MIRROR)
                for (int k = 0; k < 3; ++k)
                    d[k] += 2.0 * cosi * n[k];
            const double dn = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            for (int k = 0; k < 3; ++k)
                d[k] /= dn;
            memcpy(o, p, sizeof p);
            w->beam[still++] = (uint32_t)i;
        }
        active = still;
    }
    return LSIM_OK; /* paths still bouncing after the last vertex end without a return */
}
