/* A progress report on one stream (stderr): a redrawn bar with rate and ETA on a terminal, plain
 * lines, or nothing. Shared by the dataset runner and the lidarsim command's long runs. */
#ifndef LSIM_CORE_PROGRESS_H
#define LSIM_CORE_PROGRESS_H

#include <stddef.h>
#include <stdio.h>

#include "lidarsim.h"

/* lsim_progress_mode: include/lidarsim.h (the run functions of the public API take one) */

typedef struct lsim_progress {
    lsim_progress_mode mode;
    FILE *to;
    const char *label, *unit; /* "dataset", "frames" */
    int bar;                  /* `to` is a terminal and a bar is drawn */
    int drawn;                /* something was printed */
    int open;                 /* a bar's line is open (no newline after it yet) */
    double delay;             /* seconds before the first report (short runs show nothing) */
    double start, last;       /* seconds, monotonic */
    double total, done;       /* in units; done may be fractional */
    double shown;             /* `done` at the last report */
} lsim_progress;

/* Start a report of `total` units on `to` (NULL or mode OFF: nothing). `delay`: seconds that must
 * pass before the first report, so that a run shorter than that prints nothing. */
void lsim_progress_start(lsim_progress *p, lsim_progress_mode mode, FILE *to, const char *label, const char *unit,
                         double total, double delay);
/* `done` units are done: redraw the bar (at most 10 times a second) or print a line (every 2 s). */
void lsim_progress_update(lsim_progress *p, double done);
/* The run is over: a successful one draws its final state (when anything was shown) and ends the
 * bar's line; a failed one only ends the line, so that the error message starts on its own. */
void lsim_progress_finish(lsim_progress *p, int ok);

/* Before other output to the same terminal: blank the bar's line and return to its start, so that
 * a message or table row does not run on after the bar (the next update draws it again). */
void lsim_progress_clear(lsim_progress *p);

/* Seconds on the monotonic clock. */
double lsim_progress_now(void);

#endif
