#include "io/atomic_file.h"

#include "core/context.h"
#include "core/text.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TMP_SUFFIX ".tmp.XXXXXX"

/* The process umask, read without changing it (umask(2) would race with other threads).
 * Linux reports it in /proc/self/status; elsewhere assume the common 022. */
static mode_t current_umask(void)
{
    mode_t mask = 022;
    FILE *fp = fopen("/proc/self/status", "r");
    if (!fp)
        return mask;
    char line[256];
    while (fgets(line, sizeof line, fp)) {
        if (strncmp(line, "Umask:", 6) == 0) {
            char *end = NULL;
            unsigned long v = strtoul(line + 6, &end, 8);
            if (end != line + 6)
                mask = (mode_t)(v & 0777);
            break;
        }
    }
    fclose(fp);
    return mask;
}

static void release(lsim_atomic_file *f)
{
    free(f->path);
    free(f->tmp_path);
    f->path = f->tmp_path = NULL;
    f->fp = NULL;
}

void lsim_atomic_begin(lsim_atomic_group *group, lsim_context *ctx)
{
    memset(group, 0, sizeof *group);
    group->ctx = ctx;
}

static const char *hint_for(int err)
{
    switch (err) {
    case ENOENT: return "the directory does not exist: create it first";
    case ENOTDIR: return "a component of the path is not a directory";
    case EACCES:
    case EPERM: return "permission denied: choose a writable directory";
    case EROFS: return "the file system is read-only: choose another directory";
    case ENOSPC:
    case EDQUOT: return "the disk is full: free some space";
    case ENAMETOOLONG: return "the path is too long";
    case EFBIG: return "the file is too large for this file system or the process's file size limit";
    case EISDIR: return "the output path is a directory: give a file name";
    default: return "check the path and the directory's permissions";
    }
}

lsim_status lsim_atomic_open(lsim_atomic_group *group, const char *path, FILE **out_fp)
{
    lsim_context *ctx = group->ctx;
    *out_fp = NULL;
    if (!path || !*path)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "output path is empty: give a file name");
    if (group->count >= LSIM_ATOMIC_MAX)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "cannot write '%s': more than %d files in one atomic group (internal error)",
                         path, LSIM_ATOMIC_MAX);

    lsim_atomic_file *f = &group->file[group->count];
    size_t n = strlen(path);
    f->path = lsim_strdup(path);
    f->tmp_path = malloc(n + sizeof TMP_SUFFIX);
    if (!f->path || !f->tmp_path) {
        release(f);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory opening '%s'", path);
    }
    memcpy(f->tmp_path, path, n);
    memcpy(f->tmp_path + n, TMP_SUFFIX, sizeof TMP_SUFFIX);

    int fd = mkstemp(f->tmp_path);
    if (fd < 0) {
        int err = errno;
        lsim_status st = lsim_fail(ctx, LSIM_ERR_IO, "cannot write '%s': cannot create a temporary file beside it (%s); %s",
                                   path, strerror(err), hint_for(err));
        release(f);
        return st;
    }
    /* mkstemp creates 0600; give the output the permissions fopen would have. */
    (void)fchmod(fd, (mode_t)(0666 & ~current_umask()));
    f->fp = fdopen(fd, "wb");
    if (!f->fp) {
        int err = errno;
        close(fd);
        unlink(f->tmp_path);
        lsim_status st = lsim_fail(ctx, LSIM_ERR_IO, "cannot write '%s': cannot open the temporary file '%s' (%s)",
                                   path, f->tmp_path, strerror(err));
        release(f);
        return st;
    }
    group->count++;
    *out_fp = f->fp;
    return LSIM_OK;
}

void lsim_atomic_abort(lsim_atomic_group *group)
{
    for (int i = 0; i < group->count; ++i) {
        lsim_atomic_file *f = &group->file[i];
        if (f->fp)
            fclose(f->fp);
        if (f->tmp_path)
            unlink(f->tmp_path);
        release(f);
    }
    group->count = 0;
}

/* Check, flush and close one file. Returns 0, an errno value from fflush/fclose, or -1 when an
 * earlier write failed (stdio keeps only the error flag, not the reason). */
static int close_file(lsim_atomic_file *f)
{
    int err = ferror(f->fp) ? -1 : 0;
    errno = 0;
    if (fflush(f->fp) != 0 && !err)
        err = errno ? errno : -1;
    errno = 0;
    if (fclose(f->fp) != 0 && !err)
        err = errno ? errno : -1;
    f->fp = NULL;
    return err;
}

lsim_status lsim_atomic_commit(lsim_atomic_group *group)
{
    lsim_context *ctx = group->ctx;
    for (int i = 0; i < group->count; ++i) {
        lsim_atomic_file *f = &group->file[i];
        int err = close_file(f);
        if (err) {
            lsim_status st =
                err < 0 ? lsim_fail(ctx, LSIM_ERR_IO, "error writing '%s': a write failed (disk full, file size "
                                    "limit or device error); free some space and retry; no output was written",
                                    f->path)
                        : lsim_fail(ctx, LSIM_ERR_IO, "error writing '%s' (%s); %s; no output was written",
                                    f->path, strerror(err), hint_for(err));
            lsim_atomic_abort(group);
            return st;
        }
    }
    for (int i = 0; i < group->count; ++i) {
        lsim_atomic_file *f = &group->file[i];
        if (rename(f->tmp_path, f->path) != 0) {
            int err = errno;
            lsim_status st = lsim_fail(ctx, LSIM_ERR_IO, "cannot move the finished file into place as '%s' (%s); %s; "
                                       "no output was written", f->path, strerror(err), hint_for(err));
            /* Roll back: the files already renamed are ours; remove them so none of the group remains. */
            for (int j = 0; j < i; ++j) {
                unlink(group->file[j].path);
                release(&group->file[j]);
            }
            for (int j = i; j < group->count; ++j) {
                unlink(group->file[j].tmp_path);
                release(&group->file[j]);
            }
            group->count = 0;
            return st;
        }
    }
    for (int i = 0; i < group->count; ++i)
        release(&group->file[i]);
    group->count = 0;
    return LSIM_OK;
}

lsim_status lsim_atomic_finish(lsim_atomic_group *group, lsim_status status)
{
    if (status != LSIM_OK) {
        lsim_atomic_abort(group);
        return status;
    }
    return lsim_atomic_commit(group);
}
