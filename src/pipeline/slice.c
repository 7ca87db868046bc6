/* One slice of a frame: rays, trace, optics (paths and fog), then the beams' measurements. */
#include "pipeline/frame_setup.h"

#include "core/clock.h"
#include "core/context.h"
#include "core/rng.h"
#include "noise/calibrated.h"
#include "optics/fog.h"
#include "scene/scene.h"

#include <math.h>
#include <string.h>

/* Optics of beam lo + i: its sub-rays' paths (or its blooming echo) and fog, into c. */
static int beam_contributions(const lsim_frame_setup *f, const lsim_frame_workspace *ws, const lsim_frame_scratch *s,
                              size_t lo, size_t i, lsim_contribution *c, float *background)
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
            const float org[3] = {s->rays.ox[r], s->rays.oy[r], s->rays.oz[r]};
            const float dir[3] = {s->rays.dx[r], s->rays.dy[r], s->rays.dz[r]};
            const float ng[3] = {s->hits.ngx[r], s->hits.ngy[r], s->hits.ngz[r]};
            n = lsim_optics_follow(&f->optics, org, dir, s->hits.t[r], s->hits.object[r], ng, f->subrays.weight[k], c,
                                   n, LSIM_MAX_CONTRIBUTIONS, background);
            if (n > LSIM_MAX_CONTRIBUTIONS / 2) { /* room for the next sub-ray's path tree */
                n = lsim_contributions_merge_close(c, n, f->merge_tolerance);
                n = lsim_contributions_keep_strongest(c, n, LSIM_MAX_CONTRIBUTIONS / 2);
            }
            if (k == 0 && s->hits.object[r] != LSIM_NO_HIT)
                first = s->hits.t[r];
        }
        n = lsim_contributions_keep_strongest(c, n, LSIM_MAX_CONTRIBUTIONS);
    }
    if (f->fog.backscatter > 0.0f)
        n += lsim_fog_contributions(&f->fog, first > 0.0f ? first : f->optics.range_max, c + n);
    return n;
}

/* The beams [lo, hi) of one slice: rays and trace for the whole slice, then optics and
 * receiver/noise in batches whose contributions fit the thread's contribution buffer. */
size_t lsim_frame_slice_run(const lsim_frame_setup *f, lsim_scene *scene, lsim_frame_workspace *ws, lsim_frame_scratch *s,
                        size_t lo, size_t hi, double *trace_ms, double *shade_ms, double *noise_ms)
{
    const size_t m = hi - lo;
    double a = lsim_now_ms();
    if (!f->kernel) {
        lsim_rays_generate(f->sensor, &f->subrays, lo, m, f->optics.range_max, &s->rays);
        lsim_engine_intersect(scene->engine, &s->rays, m * (size_t)f->subrays.count, &s->hits);
    }
    double b = lsim_now_ms();
    *trace_ms += b - a;
    size_t points = 0;
    for (size_t i = 0; i < m;) {
        double t0 = lsim_now_ms();
        size_t j = i, used = 0;
        for (; j < m && used + LSIM_BEAM_CONTRIBUTIONS <= LSIM_SLICE_CONTRIBUTIONS; ++j) {
            s->beam_background[j - i] = 0.0f;
            s->beam_start[j - i] = (uint32_t)used;
            int n = beam_contributions(f, ws, s, lo, j, s->contributions + used, &s->beam_background[j - i]);
            s->beam_count[j - i] = (uint16_t)n;
            used += (size_t)n;
        }
        double t1 = lsim_now_ms();
        for (size_t k = i; k < j; ++k)
            points += lsim_frame_measure_beam(f, &ws->echoes, lo + k, s->contributions + s->beam_start[k - i],
                                   s->beam_count[k - i], s->beam_background[k - i]);
        double t2 = lsim_now_ms();
        *shade_ms += t1 - t0;
        *noise_ms += t2 - t1;
        i = j;
    }
    return points;
}
