/* The fit's optimiser: L-BFGS (liblbfgs, More-Thuente line search with the Wolfe conditions) over
 * unbounded variables u: a reflectance as its log (it stays positive whatever the step), a bounded
 * parameter through the logistic p = lower + (upper - lower) / (1 + exp(-u)), any other in units
 * of its typical step (1 cm, 0.01 rad, 1 for a bias coefficient). liblbfgs's first trial step
 * has length 1 in u: 1 cm rather than 1 m, so that the first step does not carry a mirror or the
 * sensor past the surfaces it sees (where the loss changes by jumps); later steps follow the
 * curvature L-BFGS has learnt. */
#include "core/clock.h"
#include "core/context.h"
#include "inverse/fit.h"

#include <lbfgs.h>
#include <math.h>
#include <string.h>

static double typical(const fit_param *p)
{
    return p->kind == FIT_BIAS ? 1.0 : 0.01; /* bias coefficients, metres or radians */
}

static double to_param(const fit_param *p, double u, double *dp_du)
{
    if (p->kind == FIT_REFLECTANCE) {
        const double v = exp(u);
        *dp_du = v;
        return v;
    }
    if (p->bounded) {
        const double s = 1.0 / (1.0 + exp(-u));
        *dp_du = (p->upper - p->lower) * s * (1.0 - s);
        return p->lower + (p->upper - p->lower) * s;
    }
    *dp_du = typical(p);
    return u * typical(p);
}

static double to_variable(const fit_param *p, double v)
{
    if (p->kind == FIT_REFLECTANCE)
        return log(v > 1e-4 ? v : 1e-4);
    if (p->bounded) {
        double s = (v - p->lower) / (p->upper - p->lower);
        s = s < 1e-9 ? 1e-9 : s > 1.0 - 1e-9 ? 1.0 - 1e-9 : s;
        return log(s / (1.0 - s));
    }
    return v / typical(p);
}

typedef struct run_state {
    lsim_fit *fit;
    lsim_status status;
    int iterations;
} run_state;

static lbfgsfloatval_t evaluate_cb(void *user, const lbfgsfloatval_t *x, lbfgsfloatval_t *g, const int n,
                                   const lbfgsfloatval_t step)
{
    (void)step;
    run_state *rs = user;
    double p[LSIM_FIT_MAX_PARAMS] = {0}, dp[LSIM_FIT_MAX_PARAMS] = {0}, grad[LSIM_FIT_MAX_PARAMS] = {0}, loss = 0.0;
    for (int k = 0; k < n; ++k)
        p[k] = to_param(&rs->fit->param[k], x[k], &dp[k]);
    lsim_status st = lsim_fit_evaluate(rs->fit, p, &loss, grad);
    if (st != LSIM_OK) {
        rs->status = st;
        for (int k = 0; k < n; ++k)
            g[k] = 0.0;
        return HUGE_VAL;
    }
    for (int k = 0; k < n; ++k)
        g[k] = grad[k] * dp[k];
    return loss;
}

static int progress_cb(void *user, const lbfgsfloatval_t *x, const lbfgsfloatval_t *g, const lbfgsfloatval_t fx,
                       const lbfgsfloatval_t xnorm, const lbfgsfloatval_t gnorm, const lbfgsfloatval_t step, int n,
                       int k, int ls)
{
    (void)x, (void)g, (void)xnorm, (void)gnorm, (void)step, (void)n, (void)ls;
    run_state *rs = user;
    rs->iterations = k;
    if (rs->fit->progress)
        rs->fit->progress(rs->fit->user, k, fx);
    return rs->status != LSIM_OK;
}

lsim_status lsim_fit_run(lsim_fit *fit, int max_iterations, void (*progress)(void *user, int iteration, double loss),
                         void *user, lsim_fit_result *result)
{
    if (!fit || !result)
        return LSIM_ERR_INVALID_ARGUMENT;
    if (max_iterations < 1 || max_iterations > 10000)
        return lsim_fail(fit->ctx, LSIM_ERR_INVALID_ARGUMENT, "fit: max_iterations %d; must be 1..10000", max_iterations);
    if (fit->count == 0)
        return lsim_fail(fit->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "fit: nothing to fit (pose kept, no object pose, reflectance or bias)");
    memset(result, 0, sizeof *result);
    const double t0 = lsim_now_ms();
    fit->progress = progress;
    fit->user = user;
    fit->evaluations = 0;
    lsim_status st = lsim_fit_evaluate(fit, fit->params, &result->initial_loss, NULL);
    if (st != LSIM_OK)
        return st;
    if (fit->used == 0)
        return lsim_fail(fit->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "fit: no beam has a return in both the simulation and the real scan away from silhouettes "
                         "(%zu at silhouettes, %zu unmatched); check the scan's beam order and the starting values",
                         fit->silhouettes, fit->unmatched);
    lbfgs_parameter_t param;
    lbfgs_parameter_init(&param);
    param.max_iterations = max_iterations;
    param.epsilon = 1e-7; /* |g| / max(1, |x|) */
    param.past = 3;       /* or the loss changed by less than delta over 3 iterations */
    param.delta = 1e-9;
    lbfgsfloatval_t x[LSIM_FIT_MAX_PARAMS], fx = 0.0;
    for (int k = 0; k < fit->count; ++k)
        x[k] = to_variable(&fit->param[k], fit->params[k]);
    run_state rs = {fit, LSIM_OK, 0};
    const int code = lbfgs(fit->count, x, &fx, evaluate_cb, progress_cb, &rs, &param);
    if (rs.status != LSIM_OK)
        return rs.status;
    double p[LSIM_FIT_MAX_PARAMS] = {0}, dp, loss;
    for (int k = 0; k < fit->count; ++k)
        p[k] = to_param(&fit->param[k], x[k], &dp);
    st = lsim_fit_evaluate(fit, p, &loss, NULL); /* leave the scene at the fit, with its statistics */
    if (st != LSIM_OK)
        return st;
    result->iterations = rs.iterations;
    result->evaluations = fit->evaluations;
    result->final_loss = loss;
    result->beams_used = fit->used;
    result->silhouette_beams = fit->silhouettes;
    result->bounced_beams = fit->bounced;
    result->unmatched_beams = fit->unmatched;
    result->rms_residual_m = fit->used ? sqrt(fit->range_sq / (double)fit->used) : 0.0;
    result->wall_ms = lsim_now_ms() - t0;
    result->lbfgs_status = code;
    /* a line search that cannot improve further at the noise floor is a stop, not a failure */
    if (code < 0 && code != LBFGSERR_ROUNDING_ERROR && code != LBFGSERR_MINIMUMSTEP && code != LBFGSERR_MAXIMUMSTEP &&
        code != LBFGSERR_MAXIMUMLINESEARCH && code != LBFGSERR_MAXIMUMITERATION)
        return lsim_fail(fit->ctx, LSIM_ERR_STATE, "fit: L-BFGS stopped with error %d (liblbfgs)", code);
    return LSIM_OK;
}
