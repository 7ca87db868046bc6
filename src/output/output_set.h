/* The outputs of one run, which appear together or not at all: files in one output folder
 * (created when missing, and removed again when the run fails) and single files anywhere.
 * Each is written under a temporary name first -- in a hidden staging folder made inside the
 * output folder (".lidarsim-COMMAND.XXXXXX"), or beside the single file ("PATH.part.XXXXXX") --
 * and lsim_output_set_commit renames them all into place once everything is written. A staging
 * folder rather than an lsim_atomic_group: the number of files is not bounded (validate writes
 * 2 + 2 per material) and the writers (plots, views, calibration) take a path, not a FILE *.
 *
 *     lsim_output_set o;
 *     lsim_output_set_init(&o, ctx, "validate");
 *     st = lsim_output_set_folder(&o, dir, "output folder");      (before any expensive work)
 *     st = lsim_output_set_add(&o, "validation", ".csv", path, sizeof path);   (every name, up front)
 *     ... write each file to the path add gave ...
 *     st = ok ? lsim_output_set_commit(&o) : (lsim_output_set_abort(&o), st);
 *
 * Leftovers of killed runs (SIGKILL, the OOM killer): each staging folder is held with an exclusive
 * flock(2) while its set lives, so that a staging folder ".lidarsim-COMMAND.XXXXXX" in the output
 * folder whose lock can be taken has no live owner; a successful commit removes those (their plain
 * files, then the folder) and the "PATH.part.PID.N" files beside its single files whose process PID
 * is gone. Nothing else is touched: other names, folders with sub-folders, live runs' files.
 *
 * While a set holds temporary files it is registered in its context (partial_outputs), so that a
 * termination-signal handler can remove them with the public lsim_context_remove_partial_outputs
 * (async-signal-safe); the termination signals are held back while a set changes or commits. A
 * context registers one set at a time; a set must stay where it is while registered. */
#ifndef LSIM_OUTPUT_OUTPUT_SET_H
#define LSIM_OUTPUT_OUTPUT_SET_H

#include "lidarsim.h"
#include "output/atomic_file.h"

#include <stddef.h>
#include <stdio.h>

typedef struct lsim_output_file {
    char *tmp, *final; /* owned */
} lsim_output_file;

typedef struct lsim_output_set {
    lsim_context *ctx;
    const char *command;  /* names the staging folder (".lidarsim-COMMAND.XXXXXX") */
    char *dir, *stage;    /* the output folder and its staging folder (owned; NULL: none) */
    int stage_fd;         /* the staging folder, held with an exclusive flock while the set lives (-1: none) */
    int made_dir;         /* the output folder was created by this run */
    lsim_output_file *file;
    size_t count, cap;
} lsim_output_set;

void lsim_output_set_init(lsim_output_set *o, lsim_context *ctx, const char *command);
/* Open the output folder: create it when missing and make the staging folder in it, which proves
 * that it can be written. LSIM_ERR_IO, "cannot write the WHAT 'DIR': ..." or "cannot create the
 * WHAT 'DIR': ..." (nothing left behind) when it cannot. One per set. */
lsim_status lsim_output_set_folder(lsim_output_set *o, const char *dir, const char *what);
/* Register DIR/NAME+SUFFIX; `out` receives the path to write it to now (in the staging folder).
 * LSIM_ERR_INVALID_ARGUMENT when a path does not fit or it is another output's, LSIM_ERR_IO when
 * DIR/NAME+SUFFIX is a folder; the message names the path and what to do. */
lsim_status lsim_output_set_add(lsim_output_set *o, const char *name, const char *suffix, char *out, size_t size);
/* Register a single file `path` outside the folder: a temporary file is created beside it now
 * (which proves that its folder can be written); `out` receives its path. LSIM_ERR_IO naming
 * `path` when it is a folder or cannot be created, LSIM_ERR_INVALID_ARGUMENT when it is another
 * registered output (a file of the folder). */
lsim_status lsim_output_set_add_file(lsim_output_set *o, const char *path, char *out, size_t size);
/* The registered output (its final path) that writing `path` would also write (core/file_id.h
 * lsim_file_same_output: "d/a.png", "d/./a.png" and a link to it are one, also before the file
 * exists), or NULL when none is. lsim_output_set_add and _add_file refuse such a second output. */
const char *lsim_output_set_same(const lsim_output_set *o, const char *path);
/* fsync every registered file, rename each into place, in registration order, fsync the folders,
 * then remove the staging folder and the leftovers of killed runs of the same command (see above). When a rename fails, the files already renamed are removed again (a file that existed
 * before under such a name is then gone, not restored, as with lsim_atomic_group) and everything
 * is cleaned up as by lsim_output_set_abort; LSIM_ERR_IO naming the file. The set is empty
 * afterwards either way. */
lsim_status lsim_output_set_commit(lsim_output_set *o);
/* Remove every temporary file, the staging folder, and the output folder when this run made it
 * (if nothing else was put in it meanwhile). The set is empty afterwards. Idempotent. */
void lsim_output_set_abort(lsim_output_set *o);
/* After a writer failed on a registered file: the context's message names its final path instead
 * of the temporary one (which the abort removes). Call before lsim_output_set_abort. */
void lsim_output_set_name_finals(lsim_output_set *o);
/* DIR/NAME followed by SUFFIX into out; LSIM_ERR_INVALID_ARGUMENT, with a message naming the path,
 * when it does not fit. */
lsim_status lsim_output_path(lsim_context *ctx, char *out, size_t size, const char *dir, const char *name,
                             const char *suffix);

/* A run's report (options' report_path): standard output when `path` is NULL, else the file
 * `path` written atomically through `group`. lsim_report_close flushes standard output, or
 * commits the file when `status` is LSIM_OK (discards it otherwise); returns the resulting status. */
lsim_status lsim_report_open(lsim_atomic_group *group, lsim_context *ctx, const char *path, FILE **out_fp);
lsim_status lsim_report_close(lsim_atomic_group *group, FILE *fp, lsim_status status);
/* Check before any work that the file `path` can be written (not a folder; a temporary file can be
 * made beside it): LSIM_ERR_IO "cannot write WHAT: '%s' is a directory; give a file name" or
 * "cannot write WHAT: ..." with lsim_atomic_check's reason. */
lsim_status lsim_output_check_file(lsim_context *ctx, const char *path, const char *what);

#endif
