/* Context: owner of the last-error text. Internal helpers to report failures. */
#ifndef LSIM_CORE_CONTEXT_H
#define LSIM_CORE_CONTEXT_H

#include "lidarsim.h"

#define LSIM_ERROR_MAX 2048

struct lsim_output_set; /* output/output_set.h */

struct lsim_context {
    lsim_status last_status;
    char last_error[LSIM_ERROR_MAX];
    double import_seconds;      /* mesh import time limit (0: automatic) */
    double import_memory_bytes; /* mesh import memory budget (0: automatic) */
    /* The output set a run is writing (output/output_set.h), for lsim_context_remove_partial_outputs
     * in a termination-signal handler; NULL when none. Changed with the termination signals held. */
    struct lsim_output_set *volatile partial_outputs;
    /* The files this run reads, while lsim_context_track_inputs is on (core/file_inputs.h); NULL
     * when off. */
    struct lsim_file_inputs *inputs;
};

/* Record a failure (printf-style message) and return `status`. ctx may be NULL. */
lsim_status lsim_fail(lsim_context *ctx, lsim_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
