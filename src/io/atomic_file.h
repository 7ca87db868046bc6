/* Atomic output files: write to "<path>.tmp.XXXXXX" beside the target, then rename into place.
 *
 * A group holds up to LSIM_ATOMIC_MAX files that appear together or not at all (KITTI writes
 * .bin + .label + .labels.yaml). Usage, for any writer:
 *
 *     lsim_atomic_group g;
 *     lsim_atomic_begin(&g, ctx);
 *     FILE *fp;
 *     lsim_status st = lsim_atomic_open(&g, path, &fp);
 *     if (st == LSIM_OK)
 *         st = write_my_format(fp, ...);      (plain fwrite/fprintf; errors are caught at commit)
 *     return lsim_atomic_finish(&g, st);      (commit if st is OK, otherwise discard everything)
 *
 * Write errors on the FILE* need not be checked by the writer: commit checks ferror, fflush and
 * fclose of every file before renaming any of them. On failure no temporary file and no final
 * file of the group is left behind (a final file that existed before and was already replaced
 * when a later rename of the same group failed is removed too, not restored).
 * Temporary files get the mode a plain fopen would give (0666 minus the process umask).
 * Not thread-safe per group; separate groups may be used from separate threads.
 */
#ifndef LSIM_IO_ATOMIC_FILE_H
#define LSIM_IO_ATOMIC_FILE_H

#include "lidarsim.h"

#include <stdio.h>

#define LSIM_ATOMIC_MAX 4

typedef struct lsim_atomic_file {
    char *path;     /* final path (owned copy) */
    char *tmp_path; /* "<path>.tmp.XXXXXX" (owned) */
    FILE *fp;       /* open while writing; NULL after close */
} lsim_atomic_file;

typedef struct lsim_atomic_group {
    lsim_context *ctx; /* receives error messages; may be NULL */
    int count;
    lsim_atomic_file file[LSIM_ATOMIC_MAX];
} lsim_atomic_group;

/* Start an empty group. Never fails. */
void lsim_atomic_begin(lsim_atomic_group *group, lsim_context *ctx);

/* Create the temporary file for `path` (binary mode) and return it in *out_fp.
 * Errors: LSIM_ERR_IO (directory missing or not writable), LSIM_ERR_OUT_OF_MEMORY,
 * LSIM_ERR_INVALID_ARGUMENT (empty path, more than LSIM_ATOMIC_MAX files).
 * On failure the files already opened in the group stay open: call lsim_atomic_abort or
 * lsim_atomic_finish. */
lsim_status lsim_atomic_open(lsim_atomic_group *group, const char *path, FILE **out_fp);

/* Flush and close every file, then rename each onto its final path, in opening order.
 * On any failure everything is rolled back (see above) and LSIM_ERR_IO is returned.
 * The group is empty afterwards either way. */
lsim_status lsim_atomic_commit(lsim_atomic_group *group);

/* Close and delete every temporary file; the group is empty afterwards. Idempotent. */
void lsim_atomic_abort(lsim_atomic_group *group);

/* Commit when status is LSIM_OK, otherwise abort; returns the resulting status. */
lsim_status lsim_atomic_finish(lsim_atomic_group *group, lsim_status status);

#endif
