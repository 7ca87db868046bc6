/* Small helpers for strict command-line value parsing. */
#ifndef LSIM_CLI_ARGS_H
#define LSIM_CLI_ARGS_H

#include <stdint.h>

/* Parse a whole string as an integer in [lo, hi]; 0 on success. */
int lsim_arg_long(const char *s, long lo, long hi, long *out);
/* Parse a whole string as an unsigned 64-bit integer; 0 on success. */
int lsim_arg_u64(const char *s, uint64_t *out);
/* Parse a whole string as a finite double in [lo, hi]; 0 on success. */
int lsim_arg_double(const char *s, double lo, double hi, double *out);

#endif
