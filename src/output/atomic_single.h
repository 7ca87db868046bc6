/* One file of an atomic group, private to src/output: atomic_file.c opens and finishes it,
 * atomic_group.c (lsim_atomic_open, _commit, _abort, _check) keeps the files of a group together. */
#ifndef LSIM_OUTPUT_ATOMIC_SINGLE_H
#define LSIM_OUTPUT_ATOMIC_SINGLE_H

#include "output/atomic_file.h"

/* What `path` is as an output: LSIM_OK and *kind (DIRECT for "-", a device, a FIFO or a socket;
 * otherwise ANONYMOUS, the temporary's kind decided at open), or the refusal of a directory (a
 * path ending in '/', LSIM_ERR_IO) or of a file the run reads (core/file_inputs.h). */
lsim_status lsim_atomic_target(lsim_context *ctx, const char *path, lsim_atomic_kind *kind);

/* Open `f` for `path` of `kind` (lsim_atomic_target's): straight through, or its temporary file
 * beside the file its symlinks lead to. On failure `f` holds nothing (messages in ctx). */
lsim_status lsim_atomic_file_open(lsim_context *ctx, lsim_atomic_file *f, const char *path, lsim_atomic_kind kind);

/* Check and flush one file, fsync it unless it is direct, and close it unless it is anonymous (its
 * descriptor is needed to link it). Returns 0, an errno value from fflush/fsync/fclose, or -1 when
 * an earlier write failed for a reason stdio did not keep. */
int lsim_atomic_file_finish(lsim_atomic_file *f);

/* Give an anonymous file the name "<target>.tmp.XXXXXX" (a fresh one, retrying on a clash), which
 * commit then renames. Returns 0 or an errno value. */
int lsim_atomic_file_link(lsim_atomic_file *f);

/* Free the file's names; its stream is not closed. */
void lsim_atomic_file_release(lsim_atomic_file *f);

/* The advice for an errno value in a message ("the directory does not exist: create it first"). */
const char *lsim_atomic_hint(int err);
/* 1 if `path` is "-" (standard output). */
int lsim_atomic_is_stdout(const char *path);
/* `path`'s directory part: "dir" for "dir/name", "/" for "/name", "." for "name". malloc'd. */
char *lsim_atomic_dir_of(const char *path);

#endif
