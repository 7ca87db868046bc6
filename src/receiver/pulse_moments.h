/* The receiver's moment-series solver (receiver/pulse_moments.c), private to src/receiver/. */
#ifndef LSIM_RECEIVER_PULSE_MOMENTS_H
#define LSIM_RECEIVER_PULSE_MOMENTS_H

#include "receiver/pulsed.h"

/* Windows end where a_j g_j < WINDOW_EPS T (the sampled path's, pulsed.c, and the solver's). */
#define WINDOW_EPS 1e-6
#define LN_WINDOW_EPS (-13.815510557964274)

/* Noise-free fast path: the beam's valid contributions are points close together in range (the
 * sub-rays of one beam on one surface). With every centre within FAST_SPAN_SIGMAS = 1 sigma of
 * the others, xi is log-concave ((ln xi)'' = (Var_p(r_j) - sigma^2) / sigma^4 < 0, p_j the shares
 * of xi at r): one maximum and at most one interval above T, so one echo or none, found without
 * sampling a grid (the sampled path sees the same single interval).
 *
 * In u = (r - m) / sigma around the amplitude-weighted mean m, with e_j = (r_j - m) / sigma and
 * A = sum a_j, the Hermite generating function exp(u e - e^2/2) = sum_k He_k(u) e^k / k! gives
 *   xi(u)   =  A exp(-u^2/2) P0(u),  P0 = sum_k s_k He_k(u),  s_k = sum_j (a_j / A) e_j^k / k!,
 *   xi'(u)  = -A exp(-u^2/2) P1(u),  P1 = sum_k s_k He_{k+1}(u),
 *   xi''(u) =  A exp(-u^2/2) P2(u),  P2 = sum_k s_k He_{k+2}(u),
 * so each evaluation is one Hermite recurrence of K terms, not an exp per contribution. K is the
 * first where the series' tail is below FAST_REL_TOL of P0 (and of P1 at the same scale) for every
 * |u| <= U = eps + sqrt(2 ln(A / T)), beyond which xi < T: |He_k(u)| <= 2^(k/2-1) (|u|^k + (k-1)!!)
 * (He_k(u) = E (u + iZ)^k), |e_j| <= eps, and P0 >= exp(-|u| eps - eps^2 / 2). Where no
 * K <= FAST_MAX_TERMS is enough, or anything else is out of the ordinary, the sampled path runs.
 * The peak is the root of (ln xi)' = -P1/P0 (Newton on it, kept inside [min e_j, max e_j] where
 * the maximum lies); each crossing of T is the root of ln xi - ln T on its side, by Newton from
 * the quadratic estimate at the peak (monotone once outside, ln xi being concave), the two sides
 * side by side; each stops at a Newton step below FAST_STEP = 1e-7 sigma (quadratic convergence:
 * about 1e-14 sigma left). The sampled path refines the same three points to b->tol (2e-6 m) and
 * leaves out, at each r, contributions whose window ends before r (each below 1e-6 T there), so
 * the two agree to that tolerance (tests/test_receiver.c compares them on random contributions;
 * on the example scenes with sub-rays, ranges and EPWs differ by at most 2 float ulps, intensities
 * not at all). The dominant contribution is found as dominant_at does (largest a_j g_j at the
 * peak; among equal values the first by window start, then index), with an exp only when the
 * amplitudes and the distances to the peak do not already decide.
 *
 * Used twice: for the whole beam before gather() when every valid contribution is a point and
 * they all lie within FAST_SPAN_SIGMAS (no heap, sort or window: the common sub-ray beam), and per
 * cluster after the windows have split the beam (glass and the wall behind; a beam across an
 * edge). Noisy beams (ambient light) always take the sampled path. */

/* What the solver needs of the pulse: its sigma (metres) and the derived 1/sigma and
 * 1/(2 sigma^2), the threshold T and the sampled path's tolerance (metres). */
typedef struct lsim_pulse_shape {
    double sigma, inv_sigma, inv_2s2, T, tol;
} lsim_pulse_shape;

/* Contributions for the fast solver: amplitude, range, index in the caller's array and window
 * start (NULL: computed as prepare() would, only where two tie for the dominant). */
typedef struct lsim_moment_set {
    int n;
    double a[LSIM_RECEIVER_MAX_CONTRIBUTIONS + 3], r[LSIM_RECEIVER_MAX_CONTRIBUTIONS + 3];
    int index[LSIM_RECEIVER_MAX_CONTRIBUTIONS];
    const double *lo;
    double A, Ar, rmin, rmax;
} lsim_moment_set;

void lsim_moment_set_init(lsim_moment_set *f);
void lsim_moment_set_add(lsim_moment_set *f, double a, double r, int index);
/* The echo of a set of point contributions within FAST_SPAN_SIGMAS sigma: 1 and the echo, 0 when
 * the waveform stays at or below T, -1 when the sampled path must run. */
int lsim_moment_solve(const lsim_pulse_shape *b, lsim_moment_set *f, double *range, double *power, double *epw,
                      int *dominant);

#endif
