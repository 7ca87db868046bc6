/* The pulsed receiver: from the returns of one beam (contributions at ranges) to echoes.
 * DESIGN.md §2: received waveform xi(r) = sum_j a_j w(r - r_j) (+ ambient background and its
 * shot noise); pulse shape w Gaussian with FWHM c tau / 2 in range; an echo is a maximal
 * interval where xi exceeds the threshold T; its range is the peak position, its power the peak
 * value, its echo pulse width (EPW) r1 - r0. A contribution may be spread over a range
 * interval (a tilted surface inside the beam footprint): a uniform box of width `spread`
 * convolved with the pulse, so EPW grows with amplitude and with the spread at grazing incidence.
 * Amplitudes, thresholds and background are in lidarsim's intensity units (rho cos / R^2). */
#ifndef LSIM_RECEIVER_PULSED_H
#define LSIM_RECEIVER_PULSED_H

#include "core/rng.h"

#include <stddef.h>
#include <stdint.h>

typedef enum lsim_return_mode {
    LSIM_RETURN_FIRST = 0,  /* the nearest echo */
    LSIM_RETURN_STRONGEST,  /* the highest-power echo */
    LSIM_RETURN_LAST,       /* the farthest echo */
    LSIM_RETURN_DUAL,       /* strongest and last (Velodyne); if they coincide, strongest and 2nd strongest */
    LSIM_RETURN_ALL         /* every echo, nearest first, up to max_returns */
} lsim_return_mode;

typedef struct lsim_receiver {
    double pulse_width_ns; /* FWHM of the emitted pulse in time; range FWHM = c tau / 2 */
    double threshold;      /* detection threshold T (intensity units) */
    lsim_return_mode mode;
    int max_returns;       /* cap on echoes per beam, 1..16 */
    double background;     /* ambient background level B (intensity units), >= 0 */
    double shot_noise;     /* noise std per unit sqrt(signal + background) (0: noise-free) */
    double max_range;      /* metres: ambient false echoes may appear anywhere in [0, max_range]
                            * (0: only near the returns, inside the sampled waveform) */
} lsim_receiver;

/* One return of a beam before the receiver. */
typedef struct lsim_contribution {
    float range;     /* metres (apparent: half the optical path) */
    float amplitude; /* peak the pulse would have for spread 0 */
    float spread;    /* range width of the surface inside the footprint, metres (>= 0) */
    uint32_t object; /* object index (kept by the echo it dominates) */
    float cos_incidence;
    float nx, ny, nz; /* surface normal facing the sensor, world frame */
} lsim_contribution;

typedef struct lsim_echo {
    float range;        /* peak position, metres */
    float power;        /* peak value of the waveform (intensity units) */
    float epw;          /* echo pulse width r1 - r0, metres */
    int dominant;       /* index of the contribution with the largest share of the peak;
                         * -1 for a false echo (ambient noise, not a contribution) */
} lsim_echo;

#define LSIM_MAX_RETURNS 16

/* At most this many contributions per beam enter the waveform: above it, the strongest (by
 * the peak each would have alone, amplitude x spread factor) are kept; ties keep the lower index. */
#define LSIM_RECEIVER_MAX_CONTRIBUTIONS 64

/* Echoes of one beam, selected by rx->mode, ordered nearest first. `rng` (may be NULL) drives
 * the shot noise and false echoes from ambient light; without it the waveform is noise-free.
 * Returns the number of echoes written to out (<= rx->max_returns). Allocation-free. */
int lsim_receiver_echoes(const lsim_receiver *rx, const lsim_contribution *c, int count, lsim_rng_stream *rng,
                         lsim_echo *out);

/* The same without the noise-free fast path for sub-ray clusters (pulsed.c, fast_beam): every
 * cluster of several contributions is sampled on the grid. The reference the fast path is tested
 * against (tests/test_receiver.c); not used in the hot path. */
int lsim_receiver_echoes_sampled(const lsim_receiver *rx, const lsim_contribution *c, int count,
                                 lsim_rng_stream *rng, lsim_echo *out);

/* Ambient light on a noise-free beam: the model a scan uses, continuous in the background (as
 * rx->background -> 0 the echoes tend to `in` and no false echo is left). `in`: the m echoes
 * lsim_receiver_echoes (rng NULL) or lsim_receiver_single gave for rx (nearest first). With the
 * background's noise s_n = shot_noise sqrt(background) (0, or rng NULL: out = in, nothing drawn):
 *  - each echo's peak gets N(0, s_n) and its range N(0, (sqrt2 sigma s_n / peak)^2), sigma the
 *    pulse's in range (the time-of-arrival precision of a Gaussian pulse in white noise); an echo
 *    whose noisy peak is not above the threshold is lost;
 *  - false echoes (dominant -1): the up-crossings of the threshold by that noise over
 *    [0, max_range] outside the echoes (range -+ epw/2), at Rice's rate, as the sampled waveform's
 *    (lsim_receiver_echoes with a stream) outside its windows;
 *  - rx->mode selects among both, nearest first.
 * The signal's own noise is not modelled here (the scan's SNR model draws it, sun or not).
 * Draws from rng: two deviates per echo of `in` (in order), then the false echoes. Returns the
 * count written to out (out may be in). Allocation-free. */
int lsim_receiver_ambient(const lsim_receiver *rx, const lsim_echo *in, int m, lsim_rng_stream *rng, lsim_echo *out);

/* Bit 63 of the beam key of a beam's ambient-light stream (lsim_rng_stream_make(seed, frame,
 * beam | LSIM_AMBIENT_STREAM)): apart from the beam's own stream, so that sunlight leaves the
 * other draws of the beam as they are without it. */
#define LSIM_AMBIENT_STREAM ((uint64_t)1 << 63)

/* The noise-free received waveform xi(r) at range r (metres): every valid contribution's
 * closed form, none left out (for tests, plots and checks; not used in the hot path). */
double lsim_receiver_waveform(const lsim_receiver *rx, const lsim_contribution *c, int count, double r);

/* The closed form for one contribution and no noise (receiver/single.c): what
 * lsim_receiver_echoes gives for count 1 and rng NULL, without sampling a waveform.
 * Returns 1 and the echo, or 0 when the peak does not exceed the threshold. */
int lsim_receiver_single(const lsim_receiver *rx, const lsim_contribution *c, lsim_echo *out);

/* Range FWHM of the pulse (metres) for a pulse width in ns, and the Gaussian's sigma in range
 * (FWHM / 2 sqrt(2 ln 2)). */
double lsim_pulse_range_fwhm(double pulse_width_ns);
double lsim_pulse_range_sigma(double pulse_width_ns);

#endif
