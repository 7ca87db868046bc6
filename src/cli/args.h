/* Small helpers for strict command-line value parsing. */
#ifndef LSIM_CLI_ARGS_H
#define LSIM_CLI_ARGS_H

#include <stddef.h>
#include <stdint.h>

/* Parse a whole string as an integer in [lo, hi]; 0 on success. */
int lsim_arg_long(const char *s, long lo, long hi, long *out);
/* Parse a whole string as an unsigned 64-bit integer; 0 on success. */
int lsim_arg_u64(const char *s, uint64_t *out);
/* Parse a whole string as a finite double in [lo, hi]; 0 on success. */
int lsim_arg_double(const char *s, double lo, double hi, double *out);
/* Parse "WIDTHxHEIGHT", each a whole integer in [lo, hi]; 0 on success, -1 otherwise (when
 * the height is bad, *width may already be set). */
int lsim_arg_size(const char *s, long lo, long hi, long *width, long *height);

#include "lidarsim.h"

/* Parse a comma-separated list of point field names (the CSV header's) into a LSIM_FIELD_BIT mask;
 * 0 on success. Otherwise prints "lidarsim COMMAND: --fields: ..." naming the bad entry and every
 * field, and returns -1. */
int lsim_arg_fields(const char *command, const char *list, uint32_t *out);

/* Print "lidarsim COMMAND: OPT 'VALUE' is invalid; expected VALID" and return LSIM_EXIT_USAGE. */
int lsim_arg_invalid(const char *command, const char *opt, const char *value, const char *valid);

/* Check that `path` can be written before any work: not a folder, and a temporary file can be
 * made beside it (removed again). Prints "lidarsim COMMAND: cannot write WHAT: ..." and returns
 * LSIM_EXIT_FAILURE otherwise, LSIM_EXIT_OK when it can. */
int lsim_cli_check_writable(lsim_context *ctx, const char *command, const char *path, const char *what);

/* The context of the command running now, for the termination-signal handler (cli/main.c): a
 * command registers its context once it is created, and NULL before destroying it.
 * lsim_cli_on_signal (async-signal-safe) then removes the temporary files and folders of the
 * outputs being written in it (lsim_context_remove_partial_outputs: validate, calibrate --view).
 * Besides main.c's thread id, the registered context is the CLI's one piece of global state,
 * which a signal handler needs. */
void lsim_cli_signal_context(lsim_context *ctx);
void lsim_cli_on_signal(void);

#endif
