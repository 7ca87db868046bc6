/* One slice of a frame: rays, trace, optics (paths and fog), then the beams' measurements. */
#include "pipeline/frame_setup.h"

#include "core/clock.h"
#include "core/context.h"
#include "core/rng.h"
#include "noise/calibrated.h"
#include "optics/fog.h"
#include "optics/wavefront.h"
#include "scene/scene.h"

#include <math.h>
#include <string.h>

/* Follow the path trees of the next LSIM_PATH_GROUP sub-rays from slice ray `from` on that need
 * them (mirror, glass, bistatic receiver, sunlight): the engine traces each bounce depth's rays as
 * one batch and each depth's shadow rays as another. */
static void paths_group(const lsim_frame_setup *f, const lsim_engine *engine, lsim_frame_scratch *s, size_t from,
                        size_t rays)
{
    lsim_paths *p = &s->paths;
    lsim_paths_begin(p, 1);
    const int sub = f->subrays.count;
    size_t r = from;
    for (; r < rays && p->members < LSIM_PATH_GROUP; ++r) {
        if (!lsim_optics_needs_paths(&f->optics, s->hits.object[r], 1))
            continue;
        const float org[3] = {s->rays.ox[r], s->rays.oy[r], s->rays.oz[r]};
        const float dir[3] = {s->rays.dx[r], s->rays.dy[r], s->rays.dz[r]};
        const float ng[3] = {s->hits.ngx[r], s->hits.ngy[r], s->hits.ngz[r]};
        float receiver[3], *rx = NULL;
        if (f->optics.baseline && f->sensor->frame_moves) { /* the receiver moves with the sensor */
            const lsim_pose pose = lsim_sensor_beam_pose(f->sensor, s->rays.time[r]);
            lsim_sensor_receiver_at(f->sensor, &pose, receiver);
            rx = receiver;
        }
        s->path_ray[p->members] = (uint32_t)r;
        lsim_paths_add(p, org, dir, s->rays.time[r], s->hits.t[r], s->hits.object[r], ng,
                       f->subrays.weight[r % (size_t)sub], rx);
    }
    s->path_at = 0;
    while (lsim_paths_pending(p)) {
        lsim_paths_shade(&f->optics, p);
        if (p->shadow_count)
            lsim_engine_occluded(engine, &p->shadow_rays, p->shadow_count, p->blocked);
        lsim_paths_resolve(p);
        const size_t n = lsim_paths_advance(&f->optics, p);
        if (n)
            lsim_engine_intersect(engine, &p->rays, n, &p->hits);
        lsim_paths_hit(p);
    }
}

/* Optics of beam lo + i: its sub-rays' contributions (the first return, or the path tree's) or its
 * blooming echo, and fog, into c. */
static int beam_contributions(const lsim_frame_setup *f, const lsim_engine *engine, const lsim_frame_workspace *ws,
                              lsim_frame_scratch *s, size_t lo, size_t i, size_t rays, lsim_contribution *c,
                              float *background)
{
    const int sub = f->subrays.count;
    int n = 0;
    float first = 0.0f;
    if (f->kernel) {
        const lsim_bloom_result *bl = &ws->bloom;
        size_t b = lo + i;
        if (bl->power[b] > 0.0f) {
            c[0] = (lsim_contribution){bl->range[b], bl->power[b], 0.0f, bl->object[b], bl->cos_incidence[b],
                                       bl->nx[b], bl->ny[b], bl->nz[b]};
            n = 1;
            first = bl->range[b];
        }
    } else {
        for (int k = 0; k < sub; ++k) {
            size_t r = i * (size_t)sub + (size_t)k;
            const uint32_t object = s->hits.object[r];
            if (lsim_optics_needs_paths(&f->optics, object, 1)) {
                if (s->path_at >= s->paths.members)
                    paths_group(f, engine, s, r, rays);
                const int m = s->path_at++; /* s->path_ray[m] == r: the group follows the slice's order */
                int got;
                const lsim_contribution *pc = lsim_paths_contributions(&s->paths, m, &got);
                memcpy(c + n, pc, (size_t)got * sizeof *c);
                n += got;
                *background += s->paths.background[m];
            } else {
                const float dir[3] = {s->rays.dx[r], s->rays.dy[r], s->rays.dz[r]};
                const float ng[3] = {s->hits.ngx[r], s->hits.ngy[r], s->hits.ngz[r]};
                n += lsim_optics_first_return(&f->optics, dir, s->hits.t[r], object, ng, f->subrays.weight[k], c + n);
            }
            if (n > LSIM_MAX_CONTRIBUTIONS / 2) { /* room for the next sub-ray's path tree */
                n = lsim_contributions_merge_close(c, n, f->merge_tolerance);
                n = lsim_contributions_keep_strongest(c, n, LSIM_MAX_CONTRIBUTIONS / 2);
            }
            if (k == 0 && object != LSIM_NO_HIT)
                first = s->hits.t[r];
        }
        n = lsim_contributions_keep_strongest(c, n, LSIM_MAX_CONTRIBUTIONS);
    }
    if (f->overlap.kind != LSIM_OVERLAP_NONE) { /* the receiver's near-field loss (receiver/overlap.h) */
        for (int k = 0; k < n; ++k)
            c[k].amplitude *= lsim_overlap_at(&f->overlap, c[k].range);
        if (*background > 0.0f) /* the sunlit surface the beam meets */
            *background *= lsim_overlap_at(&f->overlap, first > 0.0f ? first : f->optics.range_max);
    }
    if (f->fog.count > 0) /* the fog's own overlap is already in its segments */
        n += lsim_fog_contributions(&f->fog, first > 0.0f ? first : f->optics.range_max, c + n);
    return n;
}

/* Slice ray r's first return (one ray a beam), with the receiver's overlap: beam_contributions for
 * a beam whose surface needs no path tree. */
static inline int first_return(const lsim_frame_setup *f, const lsim_frame_scratch *s, size_t r, lsim_contribution *c)
{
    const float n3[3] = {s->facing[0][r], s->facing[1][r], s->facing[2][r]};
    const int n = lsim_optics_first_return_facing(&f->optics, s->hits.t[r], s->hits.object[r], n3, s->facing[3][r],
                                                  f->subrays.weight[0], c);
    if (n && f->overlap.kind != LSIM_OVERLAP_NONE)
        c->amplitude *= lsim_overlap_at(&f->overlap, c->range);
    return n;
}

/* The beams [lo, hi) of one slice: rays and trace for the whole slice, then optics and
 * receiver/noise in batches whose contributions fit the thread's contribution buffer. */
size_t lsim_frame_slice_run(const lsim_frame_setup *f, lsim_frame_workspace *ws, lsim_frame_scratch *s,
                            size_t lo, size_t hi, double *trace_ms, double *shade_ms, double *noise_ms)
{
    const size_t m = hi - lo;
    double a = lsim_now_ms();
    if (!f->kernel) {
        lsim_rays_generate(f->sensor, &f->subrays, lo, m, f->optics.range_max, &s->rays);
        s->rays.primary = f->subrays.count; /* beam rays: the raster engine renders these */
        lsim_engine_intersect(f->engine, &s->rays, m * (size_t)f->subrays.count, &s->hits);
    }
    double b = lsim_now_ms();
    *trace_ms += b - a;
    size_t points = 0;
    s->paths.members = s->path_at = 0; /* no path group yet */
    /* One ray a beam, no kernel image or fog: a beam whose surface only scatters back is its first
     * return alone (beam_contributions' answer for it, without the sub-ray loop). */
    const int simple = !f->kernel && f->subrays.count == 1 && f->fog.count == 0;
    if (simple) /* every ray's facing normal at once, in vectors */
        lsim_facing_normals(s->hits.ngx, s->hits.ngy, s->hits.ngz, s->rays.dx, s->rays.dy, s->rays.dz, m,
                            s->facing[0], s->facing[1], s->facing[2], s->facing[3]);
    const size_t rays = m * (size_t)f->subrays.count;
    for (size_t i = 0; i < m;) {
        double t0 = lsim_now_ms();
        size_t j = i, used = 0;
        for (; j < m && used + LSIM_BEAM_CONTRIBUTIONS <= LSIM_SLICE_CONTRIBUTIONS; ++j) {
            s->beam_background[j - i] = 0.0f;
            s->beam_start[j - i] = (uint32_t)used;
            const uint32_t object = s->hits.object[j];
            int n = simple && !lsim_optics_needs_paths(&f->optics, object, 1)
                        ? first_return(f, s, j, s->contributions + used)
                        : beam_contributions(f, f->engine, ws, s, lo, j, rays, s->contributions + used,
                                             &s->beam_background[j - i]);
            s->beam_count[j - i] = (uint16_t)n;
            used += (size_t)n;
        }
        double t1 = lsim_now_ms();
        /* every beam's first block of random words at once (core/rng_block.h) */
        const lsim_rng_blocks *blocks = f->noise ? &s->rng : NULL;
        if (blocks)
            lsim_rng_first_blocks(f->seed, f->frame, (uint64_t)(lo + i), j - i, blocks, 1);
        for (size_t k = i; k < j; ++k) {
            lsim_contribution *c = s->contributions + s->beam_start[k - i];
            const int n = s->beam_count[k - i];
            const float background = s->beam_background[k - i];
            points += n == 1 && background == 0.0f
                          ? lsim_frame_measure_single(f, &ws->echoes, lo + k, c, blocks, k - i)
                          : lsim_frame_measure_beam(f, &ws->echoes, lo + k, c, n, background, blocks, k - i);
        }
        double t2 = lsim_now_ms();
        *shade_ms += t1 - t0;
        *noise_ms += t2 - t1;
        i = j;
    }
    return points;
}
