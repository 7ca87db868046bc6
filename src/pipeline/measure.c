/* A beam's contributions -> echoes: merging, the pulsed receiver, noise and gating. */
#include "pipeline/frame_setup.h"

#include "core/clock.h"
#include "core/context.h"
#include "core/rng.h"
#include "noise/calibrated.h"
#include "noise/drop_table.h"
#include "optics/fog.h"
#include "scene/scene.h"

#include <math.h>
#include <string.h>

/* Merge contributions of the same surface closer in range than `tol` (sub-rays of one beam
 * on one wall): amplitudes add, the range is their amplitude-weighted mean and the spread covers
 * both. The receiver sees practically the same waveform, from far fewer contributions. */
int lsim_contributions_merge_close(lsim_contribution *c, int n, float tol)
{
    for (int i = 0; i < n; ++i) {
        for (int j = i + 1; j < n;) {
            if (c[j].object == c[i].object && fabsf(c[j].range - c[i].range) <= tol) {
                float a = c[i].amplitude + c[j].amplitude;
                float lo = fminf(c[i].range - 0.5f * c[i].spread, c[j].range - 0.5f * c[j].spread);
                float hi = fmaxf(c[i].range + 0.5f * c[i].spread, c[j].range + 0.5f * c[j].spread);
                float r = (c[i].amplitude * c[i].range + c[j].amplitude * c[j].range) / a;
                if (c[j].amplitude > c[i].amplitude) { /* the stronger one's surface */
                    c[i].cos_incidence = c[j].cos_incidence;
                    c[i].nx = c[j].nx;
                    c[i].ny = c[j].ny;
                    c[i].nz = c[j].nz;
                }
                c[i].range = r;
                c[i].amplitude = a;
                c[i].spread = hi - lo;
                c[j] = c[--n];
            } else {
                ++j;
            }
        }
    }
    return n;
}

/* Keep the `cap` strongest contributions (in place). */
int lsim_contributions_keep_strongest(lsim_contribution *c, int n, int cap)
{
    while (n > cap) {
        int weakest = 0;
        for (int i = 1; i < n; ++i)
            if (c[i].amplitude < c[weakest].amplitude)
                weakest = i;
        c[weakest] = c[--n];
    }
    return n;
}

/* Echo slot s: its measured range, and the other arrays only where the frame's point fields need
 * them (the surface d's noise-free range, incidence, normal and object). */
static inline void echo_record(lsim_echo_buffer *out, size_t s, float range, float clean, float intensity, float epw,
                               const lsim_contribution *d)
{
    out->range[s] = range;
    if (out->range_clean)
        out->range_clean[s] = clean;
    if (out->intensity)
        out->intensity[s] = intensity;
    if (out->epw)
        out->epw[s] = epw;
    if (out->cos_incidence)
        out->cos_incidence[s] = d->cos_incidence;
    if (out->nx) {
        out->nx[s] = d->nx;
        out->ny[s] = d->ny;
        out->nz[s] = d->nz;
    }
    if (out->object)
        out->object[s] = d->object;
}

/* The common beam: one contribution, no sunlight, a pulsed receiver, no measured statistics or ray
 * drop for its surface. The same calls in the same order as lsim_frame_measure_beam (so the same
 * bits), without the general case's bookkeeping. */
size_t lsim_frame_measure_single(const lsim_frame_setup *f, lsim_echo_buffer *out, size_t beam,
                                 lsim_contribution *c, const lsim_rng_blocks *blocks, size_t at)
{
    if (f->cw || f->drop || (c->object != LSIM_NO_HIT && f->surfaces->calibration[c->object]))
        return lsim_frame_measure_beam(f, out, beam, c, 1, 0.0f, blocks, at);
    lsim_echo echo;
    out->count[beam] = 0;
    if (!lsim_receiver_single(&f->receiver, c, &echo))
        return 0;
    float r = echo.range, intensity = echo.power;
    lsim_rng_stream rng = blocks ? lsim_rng_stream_resume(f->seed, f->frame, (uint64_t)beam, blocks->w[0][at],
                                                          blocks->w[1][at], blocks->w[2][at], blocks->w[3][at])
                                 : lsim_rng_stream_make(f->seed, f->frame, (uint64_t)beam);
    if (!lsim_noise_measure(&f->noise_model, &rng, &r, &intensity))
        return 0;
    if (f->noise && f->range_resolution > 0.0f)
        r = roundf(r / f->range_resolution) * f->range_resolution;
    echo_record(out, beam * (size_t)out->slots, r, c->range, intensity, echo.epw, c);
    out->count[beam] = 1;
    return 1;
}

/* Receiver, noise and gating of one beam; writes its echoes to the frame's echo buffer. */
size_t lsim_frame_measure_beam(const lsim_frame_setup *f, lsim_echo_buffer *out, size_t beam, lsim_contribution *c, int n,
                               float background, const lsim_rng_blocks *blocks, size_t at)
{
    lsim_receiver rx = f->receiver;
    rx.background = background;
    const lsim_noise_model *noise = &f->noise_model;
    lsim_noise_model lifted;
    if (f->ambient_ref > 0.0f && background > 0.0f) {
        /* The threshold rises with the background's shot noise at a constant false-alarm rate,
         * T = T0 sqrt(1 + B / B_ref), and the noise floor with it (docs/physics.md). */
        const float g = sqrtf(1.0f + background / f->ambient_ref);
        rx.threshold *= g;
        lifted = f->noise_model;
        lifted.intensity_threshold *= g;
        lifted.noise_floor *= g;
        noise = &lifted;
    }
    lsim_rng_stream rng = blocks ? lsim_rng_stream_resume(f->seed, f->frame, (uint64_t)beam, blocks->w[0][at],
                                                          blocks->w[1][at], blocks->w[2][at], blocks->w[3][at])
                                 : lsim_rng_stream_make(f->seed, f->frame, (uint64_t)beam);
    lsim_echo echoes[LSIM_MAX_RETURNS];
    int m = f->cw   ? lsim_cw_measure(&f->cw_receiver, c, n, f->noise ? &rng : NULL, echoes)
            : n == 1 ? lsim_receiver_single(&rx, c, echoes)
                     : lsim_receiver_echoes(&rx, c, n, NULL, echoes);
    if (f->noise && !f->cw && background > 0.0f) {
        /* Sunlight: its shot noise on these echoes and its false echoes, from a stream of their
         * own, so that the draws below are those of the sunless beam (continuous in the irradiance). */
        lsim_rng_stream sun = lsim_rng_stream_make(f->seed, f->frame, (uint64_t)beam | LSIM_AMBIENT_STREAM);
        m = lsim_receiver_ambient(&rx, echoes, m, &sun, echoes);
    }
    size_t kept = 0, slot = beam * (size_t)out->slots;
    for (int k = 0; k < m; ++k) {
        float r = echoes[k].range, intensity = echoes[k].power;
        /* The surface of the contribution that dominates the echo's peak; none for a false echo
         * of ambient light. */
        static const lsim_contribution none = {0.0f, 0.0f, 0.0f, LSIM_NO_HIT, 1.0f, 0.0f, 0.0f, 0.0f};
        int dom = echoes[k].dominant;
        const lsim_contribution *d = dom >= 0 && dom < n ? &c[dom] : &none;
        const lsim_calib_material *cal = d->object != LSIM_NO_HIT ? f->surfaces->calibration[d->object] : NULL;
        if (cal) { /* measured with the real sensor: its statistics replace the parametric model */
            float incidence = acosf(fminf(1.0f, d->cos_incidence)) * 57.2957795f;
            if (!lsim_noise_calibrated(cal, incidence, f->noise, noise->range_min, f->range_resolution, &rng,
                                       &r, &intensity))
                continue;
        } else if (dom < 0) { /* a false echo of sunlight: noise already, only gated */
            if (!(r > 0.0f && r >= noise->range_min))
                continue;
        } else if (!lsim_noise_measure(noise, &rng, &r, &intensity)) {
            continue;
        }
        if (f->noise && f->range_resolution > 0.0f) /* the sensor reports whole steps */
            r = roundf(r / f->range_resolution) * f->range_resolution;
        if (f->drop && d->object != LSIM_NO_HIT) { /* the measured ray drop, last (noise/drop_table.h) */
            const float incidence = acosf(fminf(1.0f, d->cos_incidence)) * (float)(180.0 / 3.14159265358979323846);
            if (!lsim_drop_table_keep(f->drop, f->seed, f->frame, (uint64_t)beam, (uint32_t)k, r, incidence,
                                      lsim_drop_table_reflectance(&f->surfaces->brdf[d->object])))
                continue;
        }
        /* the surface's noise-free range in range_clean */
        echo_record(out, slot + kept++, r, dom >= 0 && dom < n ? d->range : echoes[k].range, intensity,
                    echoes[k].epw, d);
    }
    out->count[beam] = (uint8_t)kept;
    return kept;
}
