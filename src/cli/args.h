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

/* DIR/NAME followed by SUFFIX into out; LSIM_ERR_INVALID_ARGUMENT, with a message naming the path,
 * when it does not fit. */
lsim_status lsim_cli_output_path(lsim_context *ctx, char *out, size_t size, const char *dir, const char *name,
                                 const char *suffix);

/* The outputs of one command, which appear together or not at all: files in one output folder
 * (created when missing, and removed again when the command fails) and single files anywhere.
 * Each is written under a temporary name first -- in a hidden staging folder made inside the
 * output folder (".lidarsim-COMMAND.XXXXXX"), or beside the single file ("PATH.part.XXXXXX") --
 * and lsim_cli_outputs_commit renames them all into place once everything is written. A staging
 * folder rather than an lsim_atomic_group: the number of files is not bounded (validate writes
 * 2 + 2 per material) and the writers (plots, views, calibration) take a path, not a FILE *.
 *
 *     lsim_cli_outputs o;
 *     lsim_cli_outputs_init(&o, ctx, "validate");
 *     rc = lsim_cli_outputs_folder(&o, dir, "output folder");      (before any expensive work)
 *     st = lsim_cli_outputs_add(&o, "validation", ".csv", path, sizeof path);   (every name, up front)
 *     ... write each file to the path add gave ...
 *     st = ok ? lsim_cli_outputs_commit(&o) : (lsim_cli_outputs_abort(&o), st);
 */
typedef struct lsim_cli_output {
    char *tmp, *final; /* owned */
} lsim_cli_output;

typedef struct lsim_cli_outputs {
    lsim_context *ctx;
    const char *command;
    char *dir, *stage;    /* the output folder and its staging folder (owned; NULL: none) */
    int made_dir;         /* the output folder was created by this command */
    lsim_cli_output *file;
    size_t count, cap;
} lsim_cli_outputs;

void lsim_cli_outputs_init(lsim_cli_outputs *o, lsim_context *ctx, const char *command);
/* Open the output folder: create it when missing and make the staging folder in it, which proves
 * that it can be written. Prints "lidarsim COMMAND: cannot write the WHAT 'DIR': ..." and returns
 * LSIM_EXIT_FAILURE (nothing left behind) when it cannot; LSIM_EXIT_OK otherwise. One per set. */
int lsim_cli_outputs_folder(lsim_cli_outputs *o, const char *dir, const char *what);
/* Register DIR/NAME+SUFFIX; `out` receives the path to write it to now (in the staging folder).
 * LSIM_ERR_INVALID_ARGUMENT when a path does not fit, LSIM_ERR_IO when DIR/NAME+SUFFIX is a
 * folder; the message names the path and what to do. */
lsim_status lsim_cli_outputs_add(lsim_cli_outputs *o, const char *name, const char *suffix, char *out, size_t size);
/* Register a single file `path` outside the folder: a temporary file is created beside it now
 * (which proves that its folder can be written); `out` receives its path. LSIM_ERR_IO naming
 * `path` when it is a folder or cannot be created. */
lsim_status lsim_cli_outputs_add_file(lsim_cli_outputs *o, const char *path, char *out, size_t size);
/* Rename every registered file into place, in registration order, then remove the staging
 * folder. When a rename fails, the files already renamed are removed again (a file that existed
 * before under such a name is then gone, not restored, as with lsim_atomic_group) and everything
 * is cleaned up as by lsim_cli_outputs_abort; LSIM_ERR_IO naming the file. The set is empty
 * afterwards either way. */
lsim_status lsim_cli_outputs_commit(lsim_cli_outputs *o);
/* Remove every temporary file, the staging folder, and the output folder when this command made
 * it (if nothing else was put in it meanwhile). The set is empty afterwards. Idempotent. */
void lsim_cli_outputs_abort(lsim_cli_outputs *o);
/* For a termination-signal handler: remove the temporary files and folders of the set being
 * written (async-signal-safe; nothing when no set is open). */
void lsim_cli_outputs_on_signal(void);

struct lsim_calib_material;
/* A material's calibration view as the PNG `path` (NAME_view.png in `validate` and `calibrate
 * --view`; 900 px, drop-outs counted as intensity 0). */
lsim_status lsim_cli_write_view(lsim_context *ctx, const char *path, const struct lsim_calib_material *m);

#endif
