/* Two-sample Kolmogorov-Smirnov test and the Wilson score interval of a binomial proportion,
 * for comparing simulated against real per-bin samples (lidarsim validate).
 *
 * KS: D = sup_x |F1(x) - F2(x)| over the two empirical CDFs; p-value from the asymptotic
 * Kolmogorov distribution Q_KS(lambda) = 2 sum_{j>=1} (-1)^(j-1) exp(-2 j^2 lambda^2), with
 * lambda = (sqrt(Ne) + 0.12 + 0.11 / sqrt(Ne)) D and Ne = n1 n2 / (n1 + n2) (Stephens' correction,
 * as in Numerical Recipes). The approximation is good for Ne >= 4 or so; smaller samples give a
 * p-value that is only indicative.
 *
 * Ties: equal values are stepped over together in both samples, so D is the exact supremum also
 * for discrete data (e.g. the RPLIDAR's intensities, which are 0 or 47). The p-value, however,
 * assumes continuous distributions: on discrete data it is conservative (too large; the test
 * rejects less often than its nominal level), and for a two-valued variable D reduces to the
 * difference of the two proportions, which the Wilson intervals below test more directly.
 */
#ifndef LSIM_CALIB_KS_TEST_H
#define LSIM_CALIB_KS_TEST_H

#include "lidarsim.h"

#include <stddef.h>

#define LSIM_Z95 1.959963984540054 /* two-sided 95 % standard normal quantile */

typedef struct lsim_ks_result {
    double d;        /* KS statistic in [0, 1]; NaN when the test does not apply */
    double p;        /* asymptotic p-value in [0, 1]; NaN when the test does not apply */
    double n_eff;    /* n1 n2 / (n1 + n2) */
    size_t n1, n2;   /* finite values used from each sample */
} lsim_ks_result;

/* Two-sample KS test of a[0..na) against b[0..nb) (any order; NaN and infinite values are
 * ignored and not counted). When either sample has no finite value the test does not apply:
 * LSIM_OK with d and p NaN. LSIM_ERR_INVALID_ARGUMENT (NULL array with a count > 0, NULL out),
 * LSIM_ERR_OUT_OF_MEMORY (the samples are copied to be sorted). */
lsim_status lsim_ks_two_sample(lsim_context *ctx, const double *a, size_t na, const double *b, size_t nb,
                               lsim_ks_result *out);

/* The same on samples already sorted ascending and free of NaN (not checked); allocates nothing. */
void lsim_ks_two_sample_sorted(const double *a, size_t na, const double *b, size_t nb, lsim_ks_result *out);

/* Kolmogorov survival function Q_KS(lambda) = P(K > lambda): 1 for lambda <= 0, decreasing to 0. */
double lsim_ks_q(double lambda);

/* Asymptotic p-value of statistic d for effective sample size n_eff (Stephens' correction). */
double lsim_ks_pvalue(double d, double n_eff);

/* Wilson score interval of a binomial proportion: `successes` of `n` trials, z the normal
 * quantile (LSIM_Z95 for 95 %). lo = 0 exactly when successes = 0, hi = 1 when successes = n;
 * n = 0 (or successes > n, or z not > 0) gives [0, 1]. */
void lsim_wilson_interval(size_t successes, size_t n, double z, double *lo, double *hi);

#endif
