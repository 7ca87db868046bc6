/* The pulsed receiver's beam state, prepared contributions, their closed-form waveform and the
 * streaming echo selection, shared by pulsed.c (the beam: contributions, clusters, the closed forms, the output),
 * pulse_grid.c (a cluster sampled on a grid) and pulse_ambient.c (false echoes from the
 * background outside the sampled windows). Private to src/receiver/; pulsed.c's opening comment
 * gives the model and the equations. */
#ifndef LSIM_RECEIVER_PULSE_WAVE_H
#define LSIM_RECEIVER_PULSE_WAVE_H

#include "receiver/pulsed.h"

#include <math.h>

#define GRID_PER_SIGMA 8
#define RING 64 /* noise nodes kept (power of two) */

/* A contribution prepared for the waveform. */
typedef struct wcontrib {
    double r;      /* centre */
    double a;      /* point amplitude */
    double half_w; /* half the spread; 0 for a point pulse */
    double coef;   /* box: a sigma sqrt(pi/2) / w */
    double peak;   /* its own peak a g(0) */
    double lo, hi; /* window */
    int box;
    int index; /* in the caller's array */
} wcontrib;

/* One candidate echo. */
typedef struct cand {
    double range, power, epw;
    int dominant;
    int id;
} cand;

/* Streaming selection: the nearest LSIM_MAX_RETURNS, the farthest, the two strongest. */
typedef struct selection {
    cand near[LSIM_MAX_RETURNS];
    int n_near;
    cand last;
    cand top[2];
    int n_top;
    int next_id;
} selection;

typedef struct beam {
    double sigma, inv_sigma, inv_2s2, inv_sqrt2_sigma;
    double T, tol;
    int noisy;
    double k, B;
    lsim_rng_stream *rng;
    const wcontrib *w;
    int c0, c1; /* current cluster */
    /* noise nodes: node k lives in ring[k & (RING - 1)] */
    double ring[RING];
    long long k_next; /* next node to draw */
    double snap[RING];
} beam;

/* The unit-amplitude shape of a box of half-width hw, at offset d, times coef (box only). */
static inline double box_value(double coef, double d, double hw, double inv_sqrt2_sigma)
{
    double x1 = (d + hw) * inv_sqrt2_sigma;
    double x2 = (d - hw) * inv_sqrt2_sigma;
    double diff;
    if (x2 >= 0.0)
        diff = erfc(x2) - erfc(x1);
    else if (x1 <= 0.0)
        diff = erfc(-x1) - erfc(-x2);
    else
        diff = erf(x1) - erf(x2);
    return coef * diff;
}

static inline double contrib_value(const beam *b, const wcontrib *c, double r)
{
    double d = r - c->r;
    if (!c->box)
        return c->a * exp(-d * d * b->inv_2s2);
    return box_value(c->coef, d, c->half_w, b->inv_sqrt2_sigma);
}

static inline int cand_before(const cand *x, const cand *y) /* nearer */
{
    return x->range < y->range || (x->range == y->range && x->id < y->id);
}

static inline int cand_stronger(const cand *x, const cand *y)
{
    return x->power > y->power || (x->power == y->power && cand_before(x, y));
}

static inline void consider(selection *s, double range, double power, double epw, int dominant)
{
    cand c = {range, power, epw, dominant, s->next_id++};
    /* nearest LSIM_MAX_RETURNS, sorted */
    if (s->n_near < LSIM_MAX_RETURNS || cand_before(&c, &s->near[s->n_near - 1])) {
        int i = s->n_near < LSIM_MAX_RETURNS ? s->n_near++ : LSIM_MAX_RETURNS - 1;
        while (i > 0 && cand_before(&c, &s->near[i - 1])) {
            s->near[i] = s->near[i - 1];
            --i;
        }
        s->near[i] = c;
    }
    if (c.id == 0 || cand_before(&s->last, &c))
        s->last = c;
    if (s->n_top == 0 || cand_stronger(&c, &s->top[0])) {
        s->top[1] = s->top[0];
        s->top[0] = c;
        s->n_top = s->n_top ? 2 : 1;
    } else if (s->n_top == 1 || cand_stronger(&c, &s->top[1])) {
        s->top[1] = c;
        s->n_top = 2;
    }
}

/* Is rx usable (pulse width, threshold, mode)? (pulsed.c) */
int lsim_pulse_receiver_valid(const lsim_receiver *rx);
/* A beam's constants from rx, noise-free, no contributions (pulsed.c). */
void lsim_pulse_beam_init(beam *b, const lsim_receiver *rx);
/* The echoes `mode` selects from s, nearest first (max_returns 1..LSIM_MAX_RETURNS); 0 when s is
 * empty (pulsed.c). */
int lsim_pulse_select(const selection *s, lsim_return_mode mode, int max_returns, lsim_echo *out);

/* Sampled detection over one cluster [lo, hi] of b (b->c0..b->c1) into s (pulse_grid.c). */
void lsim_pulse_scan_cluster(beam *b, double lo, double hi, selection *s);

/* False echoes from the background outside the sampled windows wlo[i]..whi[i] (sorted, disjoint)
 * within [0, rmax], by Rice's up-crossing rate, into s (pulse_ambient.c). */
void lsim_pulse_ambient_echoes(beam *b, const double *wlo, const double *whi, int nw, double rmax, selection *s);

#endif
