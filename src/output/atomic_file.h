/* Output files that appear complete or not at all.
 *
 * Where the output goes decides how it is written:
 *   - a regular file (or a new name): into an anonymous O_TMPFILE file in the target's directory,
 *     linked to "<target>.tmp.XXXXXX" and renamed over the target at commit. A process killed
 *     before the commit leaves nothing: the anonymous file disappears with it. SIGINT, SIGTERM and
 *     SIGHUP are blocked only around the short link + rename window. Where O_TMPFILE is not
 *     supported, a named temporary "<target>.tmp.XXXXXX" is written instead and renamed.
 *   - a symlink: the file it points to is replaced as above; the link stays a link.
 *   - "-" (standard output), a character or block device or a FIFO: written straight through
 *     (no temporary file, no rename). The device keeps being a device; what was written cannot be
 *     taken back on failure.
 *   - a directory (or a path ending in '/'): refused with a message.
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
 * Durability: commit fsyncs every file before its rename and, after the renames, each folder that
 * received one (once per folder), so that a group that committed survives a power loss whole (on
 * file systems that honour fsync); a failed sync is a failed commit, rolled back as above.
 * New files get the mode a plain fopen would give (0666 minus the process umask); a replaced
 * regular file keeps its permission bits.
 * No global state. Not thread-safe per group; separate groups may be used from separate threads.
 * A group must stay where it is (not be copied or moved) while it has open files.
 */
#ifndef LSIM_OUTPUT_ATOMIC_FILE_H
#define LSIM_OUTPUT_ATOMIC_FILE_H

#include "lidarsim.h"

#include <stdio.h>

#define LSIM_ATOMIC_MAX 8

typedef enum lsim_atomic_kind {
    LSIM_ATOMIC_ANONYMOUS = 0, /* O_TMPFILE, linked and renamed at commit */
    LSIM_ATOMIC_NAMED = 1,     /* named temporary file, renamed at commit (no O_TMPFILE) */
    LSIM_ATOMIC_DIRECT = 2     /* stdout, device or FIFO: written straight through */
} lsim_atomic_kind;

typedef struct lsim_atomic_file {
    char *path;     /* the path as given (owned copy); named in messages */
    char *target;   /* the file replaced at commit: path, or where its symlinks lead (owned) */
    char *tmp_path; /* LSIM_ATOMIC_NAMED: "<target>.tmp.XXXXXX" (owned); otherwise NULL */
    FILE *fp;       /* open while writing; NULL after close */
    lsim_atomic_kind kind;
    int fd;         /* the descriptor under fp */
    int write_errno; /* why the first failed write failed (0: none yet) */
} lsim_atomic_file;

typedef struct lsim_atomic_group {
    lsim_context *ctx; /* receives error messages; may be NULL */
    int count;
    lsim_atomic_file file[LSIM_ATOMIC_MAX];
} lsim_atomic_group;

/* Start an empty group. Never fails. */
void lsim_atomic_begin(lsim_atomic_group *group, lsim_context *ctx);

/* Create the temporary file for `path` (binary mode) and return it in *out_fp; "-", devices and
 * FIFOs are opened directly (a FIFO waits for its reader).
 * Errors: LSIM_ERR_IO (directory missing or not writable, path is a directory),
 * LSIM_ERR_OUT_OF_MEMORY, LSIM_ERR_INVALID_ARGUMENT (empty path, more than LSIM_ATOMIC_MAX files).
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

/* Whether `path` would be written straight through: "-", a character or block device, a FIFO or
 * a socket (following symlinks). */
int lsim_atomic_is_direct(const char *path);

/* Check, before a long computation, that `path` can be written: the same refusals and messages
 * as lsim_atomic_open. Regular targets are probed with a temporary file that is removed at once
 * (an anonymous one where supported: nothing appears); direct targets are not opened (a FIFO's
 * reader would see an empty stream). Never leaves a file behind. */
lsim_status lsim_atomic_check(lsim_context *ctx, const char *path);

/* Remove an output committed earlier, when a later step of the same command failed: the file
 * `path` names, or for a symlink the file it points to (the link stays). Direct targets ("-",
 * devices, FIFOs) and directories are left alone. */
void lsim_atomic_remove(const char *path);

/* `path` followed through symbolic links to the file a write there replaces (it need not exist; a
 * relative link is taken from its own folder): a malloc'd path, or NULL with errno set (ENOMEM,
 * ELOOP, or readlink's error). */
char *lsim_atomic_resolve_links(const char *path);

/* fsync the file or (folder 1) the folder `path`: 0, or an errno value (EINVAL, a file system that
 * cannot sync, counts as done). */
int lsim_sync_path(const char *path, int folder);
/* fsync the folder holding `path` ("." for a bare name), so a rename or a new entry there lasts. */
int lsim_sync_folder_of(const char *path);

#endif
