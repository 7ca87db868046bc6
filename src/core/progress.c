/* Progress reports (core/progress.h). */
#include "core/progress.h"

#include <time.h>
#include <unistd.h>

double lsim_progress_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void lsim_progress_start(lsim_progress *p, lsim_progress_mode mode, FILE *to, const char *label, const char *unit,
                         double total, double delay)
{
    p->mode = to ? mode : LSIM_PROGRESS_OFF;
    p->to = to;
    p->label = label;
    p->unit = unit;
    p->drawn = p->open = 0;
    p->delay = delay;
    p->start = p->last = lsim_progress_now();
    p->total = total;
    p->done = 0.0;
    p->shown = -1.0;
    const int tty = p->mode != LSIM_PROGRESS_OFF && isatty(fileno(to));
    p->bar = tty && (p->mode == LSIM_PROGRESS_AUTO || p->mode == LSIM_PROGRESS_BAR);
    if (p->mode == LSIM_PROGRESS_BAR && !tty)
        p->mode = LSIM_PROGRESS_OFF;
}

static void show(lsim_progress *p, int final)
{
    if (p->mode == LSIM_PROGRESS_OFF || p->total <= 0.0)
        return;
    const double t = lsim_progress_now(), el = t - p->start, rate = el > 0 ? p->done / el : 0.0;
    if (!final && el < p->delay)
        return;
    if (final && !p->drawn && p->delay > 0.0) /* a run shorter than the delay: nothing at all */
        return;
    if (!p->bar && (p->shown == p->done || (!final && t - p->last < 2.0 && p->done < p->total)))
        return;
    if (!final && p->bar && p->open && t - p->last < 0.1)
        return;
    p->shown = p->done;
    p->last = t;
    const double left = p->total - p->done, eta = rate > 0 && left > 0 ? left / rate : 0.0;
    /* whole units print as integers, fractions (a frame part-written) with one decimal */
    const int whole = p->done == (double)(long long)p->done;
    if (p->bar) {
        char bar[31];
        const double frac = p->done < p->total ? p->done / p->total : 1.0;
        const int fill = (int)(frac * 30.0);
        for (int i = 0; i < 30; ++i)
            bar[i] = i < fill ? '#' : '.';
        bar[30] = 0;
        fprintf(p->to, "\r%s [%s] %.*f/%.0f %s  %.2f %s/s  ETA %.0f s   %s", p->label, bar, whole ? 0 : 1, p->done,
                p->total, p->unit, rate, p->unit, eta, final ? "\n" : "");
    } else {
        fprintf(p->to, "%s: %.*f/%.0f %s, %.2f %s/s, ETA %.0f s\n", p->label, whole ? 0 : 1, p->done, p->total,
                p->unit, rate, p->unit, eta);
    }
    p->drawn = 1;
    p->open = p->bar && !final;
    fflush(p->to);
}

void lsim_progress_update(lsim_progress *p, double done)
{
    p->done = done;
    show(p, 0);
}

void lsim_progress_finish(lsim_progress *p, int ok)
{
    if (ok) {
        show(p, 1);
    } else if (p->open) {
        fputc('\n', p->to);
    }
    p->open = 0;
}

void lsim_progress_clear(lsim_progress *p)
{
    if (!p->open)
        return;
    fprintf(p->to, "\r%*s\r", 110, "");
    fflush(p->to);
    p->open = 0;
}
