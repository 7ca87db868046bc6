/* The fit's optimiser. Each round simulates once (lsim_fit_evaluate: scan, walk, which beams are
 * used and the path each took), then L-BFGS (liblbfgs, More-Thuente line search with the Wolfe
 * conditions) minimises the loss of those beams' path models (lsim_fit_model_loss: every used
 * beam's path re-traced through the tangent planes it met, smooth in the parameters), and the next
 * round simulates again where it ended: the simulation re-decides which beams count and where they
 * go, as ICP re-associates points, while the line search never meets the jumps of a beam changing
 * what it sees. Where the simulated loss rose at the model's minimum, the step is halved (up to 4
 * times) before the fit gives up. A round runs at most ROUND_ITERATIONS; rounds stop when one
 * converges having moved the parameters by less than 0.01 of their unit (0.1 mm, 1e-4 rad), when
 * the loss (over the beams used before the round) stops falling, or at the iteration budget.
 * L-BFGS works on unbounded variables u: a reflectance as its log, held within [1e-4, 1], a
 * bounded parameter through the logistic p = lower + (upper - lower) / (1 + exp(-u)), any other in
 * units of its typical step (1 cm, 0.01 rad, 1 for a bias coefficient). liblbfgs's first trial
 * step has length 1 in u: 1 cm rather than 1 m, so that the first step does not carry a mirror or
 * the sensor past the surfaces it sees; later steps follow the curvature L-BFGS has learnt. */
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

#define REFL_MIN 1e-4

/* Reflectances: p = exp(u) within [1e-4, 1] (the derivative 0 where it is held at a limit). */
#define REFL_MIN 1e-4

static double to_param(const fit_param *p, double u, double *dp_du)
{
    if (p->kind == FIT_REFLECTANCE) {
        const double v = exp(u);
        *dp_du = v > REFL_MIN && v < 1.0 ? v : 0.0;
        return v < REFL_MIN ? REFL_MIN : v > 1.0 ? 1.0 : v;
    }
    if (p->bounded) { /* a logistic onto [lower, upper] */
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
        return log(v > REFL_MIN ? v : REFL_MIN);
    if (p->bounded) {
        double s = (v - p->lower) / (p->upper - p->lower);
        s = s < 1e-9 ? 1e-9 : s > 1.0 - 1e-9 ? 1.0 - 1e-9 : s;
        return log(s / (1.0 - s));
    }
    return v / typical(p);
}

/* L-BFGS iterations on one round's model at most: far from the solution a model is only good
 * near where it was taken, and a fresh simulation helps more than polishing it. After a round
 * whose simulated loss agreed with the model's prediction (within 1 %), the next may run 4 times
 * longer (a model that predicts well is worth following: L-BFGS keeps its curvature longer). */
#define ROUND_ITERATIONS 6

typedef struct run_state {
    lsim_fit *fit;
    int iterations; /* over all rounds */
} run_state;

static lbfgsfloatval_t model_cb(void *user, const lbfgsfloatval_t *x, lbfgsfloatval_t *g, const int n,
                                const lbfgsfloatval_t step)
{
    (void)step;
    run_state *rs = user;
    double p[LSIM_FIT_MAX_PARAMS] = {0}, dp[LSIM_FIT_MAX_PARAMS] = {0}, grad[LSIM_FIT_MAX_PARAMS] = {0}, loss = 0.0;
    for (int k = 0; k < n; ++k)
        p[k] = to_param(&rs->fit->param[k], x[k], &dp[k]);
    lsim_fit_model_loss(rs->fit, p, &loss, grad);
    for (int k = 0; k < n; ++k)
        g[k] = grad[k] * dp[k];
    return loss;
}

static int progress_cb(void *user, const lbfgsfloatval_t *x, const lbfgsfloatval_t *g, const lbfgsfloatval_t fx,
                       const lbfgsfloatval_t xnorm, const lbfgsfloatval_t gnorm, const lbfgsfloatval_t step, int n,
                       int k, int ls)
{
    (void)x, (void)g, (void)xnorm, (void)gnorm, (void)step, (void)n, (void)k, (void)ls;
    run_state *rs = user;
    ++rs->iterations;
    if (rs->fit->progress)
        rs->fit->progress(rs->fit->user, rs->iterations, fx);
    return 0;
}

/* liblbfgs's stops that are not failures: converged, or no further progress at the noise floor */
static int lbfgs_stop_ok(int code)
{
    return code >= 0 || code == LBFGSERR_ROUNDING_ERROR || code == LBFGSERR_MINIMUMSTEP ||
           code == LBFGSERR_MAXIMUMSTEP || code == LBFGSERR_MAXIMUMLINESEARCH || code == LBFGSERR_MAXIMUMITERATION;
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
    double p[LSIM_FIT_MAX_PARAMS], loss = 0.0, dp;
    memcpy(p, fit->params, (size_t)fit->count * sizeof *p);
    lsim_status st = lsim_fit_evaluate(fit, p, &loss, NULL);
    if (st != LSIM_OK)
        return st;
    result->initial_loss = loss;
    if (fit->used == 0)
        return lsim_fail(fit->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "fit: no beam has a return in both the simulation and the real scan away from silhouettes "
                         "(%zu at silhouettes, %zu unmatched); check the scan's beam order and the starting values",
                         fit->silhouettes, fit->unmatched);
    run_state rs = {fit, 0};
    uint8_t *prev_status = fit->prev_status;
    double *prev_loss = fit->prev_loss;
    /* without pose parameters no beam can change what it sees: the model is the simulation (to the
     * CW receiver's rounding), and one round may run to the end */
    int posed = 0;
    for (int k = 0; k < fit->count; ++k)
        posed |= fit->param[k].kind == FIT_SENSOR || fit->param[k].kind == FIT_OBJECT;
    int code = 0, cap = posed ? ROUND_ITERATIONS : max_iterations;
    lsim_fit_stop stop = LSIM_FIT_ITERATIONS;
    for (int round = 0; round < max_iterations && rs.iterations < max_iterations; ++round) {
        lbfgs_parameter_t param;
        lbfgs_parameter_init(&param);
        param.max_iterations = max_iterations - rs.iterations < cap ? max_iterations - rs.iterations : cap;
        param.epsilon = 1e-6; /* |g| / max(1, |x|) */
        param.past = 3;       /* or the loss changed by less than delta over 3 iterations */
        param.delta = 1e-10;
        lbfgsfloatval_t x[LSIM_FIT_MAX_PARAMS], x0[LSIM_FIT_MAX_PARAMS], fx = 0.0;
        for (int k = 0; k < fit->count; ++k)
            x0[k] = x[k] = to_variable(&fit->param[k], p[k]);
        const int before = rs.iterations;
        code = lbfgs(fit->count, x, &fx, model_cb, progress_cb, &rs, &param);
        if (!lbfgs_stop_ok(code))
            return lsim_fail(fit->ctx, LSIM_ERR_STATE, "fit: L-BFGS stopped with error %d (liblbfgs)", code);
        double moved = 0.0, q[LSIM_FIT_MAX_PARAMS], next = 0.0;
        for (int k = 0; k < fit->count; ++k) {
            moved = fmax(moved, fabs(x[k] - x0[k]));
            q[k] = to_param(&fit->param[k], x[k], &dp);
        }
        /* simulate where the model led; if the loss rose there, halve the step (up to 4 times). The
         * losses compared are over the beams used before the step, a beam the step pushed out of use
         * (to a silhouette, unmatched) charged as before: dropping beams is no progress. */
        memcpy(prev_status, fit->beam_status, fit->beams * sizeof *prev_status);
        memcpy(prev_loss, fit->beam_loss, fit->beams * sizeof *prev_loss);
        double was = 0.0, now = 0.0;
        int better = 0;
        for (int half = 0; half <= 4 && !better; ++half) {
            if (half > 0)
                for (int k = 0; k < fit->count; ++k) {
                    x[k] = 0.5 * (x[k] + x0[k]);
                    q[k] = to_param(&fit->param[k], x[k], &dp);
                }
            st = lsim_fit_evaluate(fit, q, &next, NULL);
            if (st != LSIM_OK)
                return st;
            was = now = 0.0;
            size_t common = 0;
            for (size_t i = 0; i < fit->beams; ++i) {
                if (prev_status[i] != LSIM_FIT_BEAM_USED)
                    continue;
                was += prev_loss[i];
                const int kept = fit->beam_status[i] == LSIM_FIT_BEAM_USED;
                now += kept ? fit->beam_loss[i] : prev_loss[i]; /* a beam dropped keeps its charge */
                common += (size_t)kept;
            }
            better = fit->used > 0 && common > 0 && now <= was * (1.0 + 1e-9) + 1e-12;
        }
        if (!better) {
            st = lsim_fit_evaluate(fit, p, &loss, NULL); /* the model misled: keep the last simulated point */
            if (st != LSIM_OK)
                return st;
            stop = LSIM_FIT_NO_DESCENT;
            break;
        }
        /* where the simulation agrees with the model's prediction, the model may run longer */
        cap = fabs(next - fx) <= 0.01 * fmax(next, fx) ? (cap > max_iterations / 4 ? max_iterations : 4 * cap)
                                                       : posed ? ROUND_ITERATIONS : cap;
        memcpy(p, q, (size_t)fit->count * sizeof *p);
        const double fell = was - now;
        loss = next;
        if ((code != LBFGSERR_MAXIMUMITERATION && moved < 1e-2) || rs.iterations == before || fell <= 1e-9 * was) {
            stop = LSIM_FIT_CONVERGED; /* the model converged without moving: so has the fit */
            break;
        }
    }
    if (fit->used == 0)
        return lsim_fail(fit->ctx, LSIM_ERR_STATE,
                         "fit: it ended with no beam used (%zu at silhouettes, %zu unmatched): nothing constrains the "
                         "parameters there; start nearer, bound them, or fit fewer", fit->silhouettes, fit->unmatched);
    result->stop = stop;
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
    return LSIM_OK;
}
