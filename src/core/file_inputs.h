/* The files one run reads, so that no output of the run replaces one of them
 * (lsim_context_track_inputs in lidarsim.h). While a context tracks its inputs, the one opener
 * (core/file_open.c) records each file it opens for a kind of input (not a dataset's own state,
 * which a resume reads and rewrites); the writers (output/atomic_file.c, output/output_set.c) and
 * lsim_context_check_output refuse an output that is one of them: the same file by device and
 * inode, whatever the spelling or link. */
#ifndef LSIM_CORE_FILE_INPUTS_H
#define LSIM_CORE_FILE_INPUTS_H

#include "core/file_open.h"

#include <sys/types.h>

struct lsim_file_inputs;

/* Record (dev, ino) read as `kind` from `path`, when ctx tracks its inputs (a no-op otherwise).
 * Out of memory only loses the record. */
void lsim_file_inputs_add(lsim_context *ctx, dev_t dev, ino_t ino, lsim_input_kind kind, const char *path);

/* LSIM_OK when `output` (a path that may not exist yet) is none of the recorded inputs, or ctx
 * does not track them; otherwise LSIM_ERR_INVALID_ARGUMENT naming both. */
lsim_status lsim_file_inputs_check(lsim_context *ctx, const char *output);

void lsim_file_inputs_free(struct lsim_file_inputs *inputs);

#endif
