/* The continuous-wave (AMCW, phase-shift) receiver (cw paper §III-B, DESIGN.md §2).
 *
 * Every return j of a beam (sub-rays, bounces through mirrors and glass) at apparent range R_j
 * with amplitude a_j adds a_j sin(2 pi f_k t - phi_jk) at each modulation frequency f_k, with
 * phi_jk = 4 pi f_k R_j / c + b(L_j) and the range-radiance bias b(L) = c0 + c1 L + c2 L^2
 * (radians; L in intensity units). L_j is the return's radiance: its amplitude over its sub-ray's
 * share of the beam (a_j bias_gain, bias_gain the sub-ray count: exact for equal shares, the
 * mean share for the Gaussian rings), the amplitude the whole beam would return from there, so
 * the staircase does not change with how the beam is sampled (the cw paper's L is a radiance). The receiver samples each sum N times (`samples`) spread
 * over about `periods` periods, every sample at a different phase of the wave (equivalent-time
 * sampling: the sampling interval is k/N periods with k the integer nearest `periods` that is
 * coprime with N), reorders the samples into one period, and estimates the phase by the
 * discrete Fourier series phi = atan2(sum s_n cos(2 pi n / N), sum s_n sin(2 pi n / N)); the
 * transmitted wave's phase is estimated the same way and subtracted. Each frequency alone is
 * ambiguous every c / (2 f_k); the two phase shifts' difference is ambiguous only every
 * c / (2 |f1 - f2|) (22.5 m for the URG-04LX's 46.55 and 53.2 MHz), which picks the whole
 * number of wavelengths. Mixed pixels come out between their surfaces (the phasor sum), as on
 * the real sensor.
 *
 * Noise: N(0, sample_noise) on every sample, so the phase noise grows as the amplitude falls.
 * The estimate is a sum over the samples, so without noise the sampling order (and `periods`)
 * does not change the result; with noise it decides which draw lands on which phase.
 * Amplitude: the fundamental's magnitude, mean of the two frequencies. */
#ifndef LSIM_RECEIVER_CW_H
#define LSIM_RECEIVER_CW_H

#include "core/rng.h"
#include "receiver/pulsed.h"

#define LSIM_CW_MAX_SAMPLES 256

typedef struct lsim_cw_receiver {
    double freq_hz[2];    /* modulation frequencies, distinct */
    int samples;          /* N per frequency, 4..LSIM_CW_MAX_SAMPLES */
    int periods;          /* about how many periods the samples span */
    double bias[3];       /* c0 (rad), c1 (rad per intensity unit), c2 */
    double threshold;     /* amplitude below which no echo is reported (intensity units) */
    double sample_noise;  /* std of the noise on each sample (intensity units); 0: noise-free */
    double bias_gain;     /* L_j = a_j bias_gain for the bias (the sub-ray count); 0 or 1: a_j */
    /* set by lsim_cw_prepare: */
    int step;             /* samples are step / N periods apart (lsim_cw_step) */
    double tx_phase;      /* the transmitted wave's estimated phase */
} lsim_cw_receiver;

/* Fill the derived fields once the settings are made (before lsim_cw_measure). */
void lsim_cw_prepare(lsim_cw_receiver *rx);

/* The unambiguous range c / (2 |f1 - f2|), metres. */
double lsim_cw_unambiguous_range(const lsim_cw_receiver *rx);

/* The sampling step in periods (k / N) and the reorder slot of sample n: (n k) mod N. */
int lsim_cw_step(const lsim_cw_receiver *rx);

/* Measure one beam: range and amplitude of the summed returns, and the index of the strongest
 * contribution (its surface labels the point). Returns 1 and fills *out (epw 0), or 0 when the
 * amplitude is below the threshold (or there are no contributions). `rng` (may be NULL) draws the
 * sample noise. Allocation-free. */
int lsim_cw_measure(const lsim_cw_receiver *rx, const lsim_contribution *c, int count, lsim_rng_stream *rng,
                    lsim_echo *out);

#endif
