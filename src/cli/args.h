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

#include "lidarsim.h"

/* Print "lidarsim COMMAND: OPT 'VALUE' is invalid; expected VALID" and return LSIM_EXIT_USAGE. */
int lsim_arg_invalid(const char *command, const char *opt, const char *value, const char *valid);

/* Check that `path` can be written before any work: not a folder, and a temporary file can be
 * made beside it (removed again). Prints "lidarsim COMMAND: cannot write WHAT: ..." and returns
 * LSIM_EXIT_FAILURE otherwise, LSIM_EXIT_OK when it can. */
int lsim_cli_check_writable(lsim_context *ctx, const char *command, const char *path, const char *what);

/* DIR/NAME followed by SUFFIX into out; LSIM_ERR_INVALID_ARGUMENT, with a message naming the path,
 * when it does not fit. */
lsim_status lsim_cli_output_path(lsim_context *ctx, char *out, size_t size, const char *dir, const char *name,
                                 const char *suffix);

/* Create the folder `dir` unless it exists. Prints "lidarsim COMMAND: cannot create the WHAT 'DIR':
 * ..." and returns LSIM_EXIT_FAILURE when it cannot, LSIM_EXIT_OK otherwise. */
int lsim_cli_make_folder(const char *command, const char *dir, const char *what);

struct lsim_calib_material;
/* A material's calibration view as DIR/NAME_view.png, the picture `validate` and `calibrate --view`
 * write (900 px, drop-outs counted as intensity 0). */
lsim_status lsim_cli_write_view(lsim_context *ctx, const char *dir, const struct lsim_calib_material *m);

#endif
