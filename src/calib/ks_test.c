#include "calib/ks_test.h"

#include "core/context.h"

#include <math.h>
#include <stdlib.h>

double lsim_ks_q(double lambda)
{
    if (!(lambda > 0.0))
        return isnan(lambda) ? NAN : 1.0;
    if (lambda < 1.18) {
        /* Small lambda: the alternating series converges slowly; use the dual (Jacobi theta)
         * form P(K <= lambda) = sqrt(2 pi) / lambda sum_{j>=1} exp(-(2j-1)^2 pi^2 / (8 lambda^2)). */
        const double y = exp(-1.2337005501361698 / (lambda * lambda)); /* pi^2 / 8 */
        if (y == 0.0)
            return 1.0;
        double sum = 0.0;
        for (int j = 1; j <= 20; ++j) {
            const double k = 2.0 * j - 1.0;
            const double term = pow(y, k * k);
            sum += term;
            if (term <= 1e-17 * sum)
                break;
        }
        const double cdf = 2.5066282746310002 / lambda * sum; /* sqrt(2 pi) */
        const double q = 1.0 - cdf;
        return q < 0.0 ? 0.0 : q > 1.0 ? 1.0 : q;
    }
    /* Q = 2 sum (-1)^(j-1) exp(-2 j^2 lambda^2): terms fall off fast for lambda >= 1.18. */
    const double a2 = -2.0 * lambda * lambda;
    double sum = 0.0, sign = 1.0;
    for (int j = 1; j <= 100; ++j, sign = -sign) {
        const double term = sign * 2.0 * exp(a2 * j * j);
        sum += term;
        if (fabs(term) <= 1e-17 * fabs(sum))
            break;
    }
    return sum < 0.0 ? 0.0 : sum > 1.0 ? 1.0 : sum;
}

double lsim_ks_pvalue(double d, double n_eff)
{
    if (!(n_eff > 0.0) || isnan(d))
        return NAN;
    const double en = sqrt(n_eff);
    return lsim_ks_q((en + 0.12 + 0.11 / en) * d);
}

void lsim_ks_two_sample_sorted(const double *a, size_t na, const double *b, size_t nb, lsim_ks_result *out)
{
    out->n1 = na;
    out->n2 = nb;
    if (na == 0 || nb == 0) {
        out->d = out->p = NAN;
        out->n_eff = 0.0;
        return;
    }
    const double en1 = (double)na, en2 = (double)nb;
    size_t i = 0, j = 0;
    double d = 0.0;
    /* Step to the next distinct value of the merged samples, past every copy of it in both. */
    while (i < na && j < nb) {
        const double v = a[i] <= b[j] ? a[i] : b[j];
        while (i < na && a[i] == v)
            ++i;
        while (j < nb && b[j] == v)
            ++j;
        const double dt = fabs((double)i / en1 - (double)j / en2);
        if (dt > d)
            d = dt;
    }
    /* Once one sample is exhausted the other's ECDF only climbs to 1, towards the first: no larger gap. */
    out->d = d;
    out->n_eff = en1 * en2 / (en1 + en2);
    out->p = lsim_ks_pvalue(d, out->n_eff);
}

static int compare_double(const void *pa, const void *pb)
{
    const double x = *(const double *)pa, y = *(const double *)pb;
    return (x > y) - (x < y);
}

/* Copy the finite values of src into dst; their count. */
static size_t copy_finite(const double *src, size_t n, double *dst)
{
    size_t m = 0;
    for (size_t i = 0; i < n; ++i)
        if (isfinite(src[i]))
            dst[m++] = src[i];
    return m;
}

lsim_status lsim_ks_two_sample(lsim_context *ctx, const double *a, size_t na, const double *b, size_t nb,
                               lsim_ks_result *out)
{
    if (!out)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "KS test: no result pointer given");
    if ((na > 0 && !a) || (nb > 0 && !b))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "KS test: a sample has %zu values but no array",
                         a ? nb : na);
    if (na > ((size_t)-1) / sizeof(double) - nb)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "KS test: samples too large (%zu + %zu values)", na, nb);
    double *buf = malloc((na + nb > 0 ? na + nb : 1) * sizeof *buf);
    if (!buf)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for a KS test of %zu + %zu values", na, nb);
    const size_t m1 = copy_finite(a, na, buf);
    const size_t m2 = copy_finite(b, nb, buf + m1);
    qsort(buf, m1, sizeof *buf, compare_double);
    qsort(buf + m1, m2, sizeof *buf, compare_double);
    lsim_ks_two_sample_sorted(buf, m1, buf + m1, m2, out);
    free(buf);
    return LSIM_OK;
}

void lsim_wilson_interval(size_t successes, size_t n, double z, double *lo, double *hi)
{
    double l = 0.0, h = 1.0;
    if (n > 0 && successes <= n && z > 0.0 && isfinite(z)) {
        const double nn = (double)n, p = (double)successes / nn, z2 = z * z;
        const double denom = 1.0 + z2 / nn;
        const double centre = (p + z2 / (2.0 * nn)) / denom;
        const double half = z / denom * sqrt(p * (1.0 - p) / nn + z2 / (4.0 * nn * nn));
        l = successes == 0 ? 0.0 : centre - half;
        h = successes == n ? 1.0 : centre + half;
        l = l < 0.0 ? 0.0 : l;
        h = h > 1.0 ? 1.0 : h;
    }
    if (lo)
        *lo = l;
    if (hi)
        *hi = h;
}
