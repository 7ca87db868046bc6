/* The atomic group (see atomic_file.h): up to LSIM_ATOMIC_MAX files that appear together or not
 * at all. Each is opened by atomic_file.c; commit finishes every one, links and renames them with
 * the termination signals held back, syncs their folders and rolls back on any failure. The checks
 * before a long run (lsim_atomic_check, the public lsim_path_check_writable) open and discard one. */
#include "output/atomic_file.h"
#include "output/atomic_single.h"

#include "core/context.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void lsim_atomic_begin(lsim_atomic_group *group, lsim_context *ctx)
{
    memset(group, 0, sizeof *group);
    group->ctx = ctx;
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
    lsim_atomic_kind kind;
    lsim_status st = lsim_atomic_target(ctx, path, &kind);
    if (st == LSIM_OK)
        st = lsim_atomic_file_open(ctx, &group->file[group->count], path, kind);
    if (st != LSIM_OK)
        return st;
    *out_fp = group->file[group->count++].fp;
    return LSIM_OK;
}

void lsim_atomic_abort(lsim_atomic_group *group)
{
    for (int i = 0; i < group->count; ++i) {
        lsim_atomic_file *f = &group->file[i];
        if (f->fp)
            fclose(f->fp); /* an anonymous temporary file disappears here */
        if (f->tmp_path)
            unlink(f->tmp_path);
        lsim_atomic_file_release(f);
    }
    group->count = 0;
}

/* Make the renames into the folders of the group's files durable: fsync each folder once.
 * Returns 0 or the first errno value (EINVAL, a folder that cannot be synced, is not an error);
 * *failed receives the index of the file whose folder failed. */
static int sync_folders(lsim_atomic_group *group, int *failed)
{
    for (int i = 0; i < group->count; ++i) {
        const lsim_atomic_file *f = &group->file[i];
        if (f->kind == LSIM_ATOMIC_DIRECT)
            continue;
        char *dir = lsim_atomic_dir_of(f->target);
        if (!dir) {
            *failed = i;
            return ENOMEM;
        }
        int seen = 0; /* an earlier file of the group in the same folder: synced already */
        for (int j = 0; j < i && !seen; ++j)
            if (group->file[j].kind != LSIM_ATOMIC_DIRECT) {
                char *other = lsim_atomic_dir_of(group->file[j].target);
                seen = other && strcmp(other, dir) == 0;
                free(other);
            }
        const int err = seen ? 0 : lsim_sync_path(dir, 1);
        free(dir);
        if (err) {
            *failed = i;
            return err;
        }
    }
    return 0;
}

lsim_status lsim_atomic_commit(lsim_atomic_group *group)
{
    lsim_context *ctx = group->ctx;
    for (int i = 0; i < group->count; ++i) {
        lsim_atomic_file *f = &group->file[i];
        int err = lsim_atomic_file_finish(f);
        if (err) {
            const char *name = lsim_atomic_is_stdout(f->path) ? "standard output" : f->path;
            const char *outcome = f->kind == LSIM_ATOMIC_DIRECT ? "the output written there is incomplete"
                                                                 : "no output was written";
            lsim_status st =
                err < 0 ? lsim_fail(ctx, LSIM_ERR_IO, "error writing '%s': a write failed (disk full, file size "
                                    "limit or device error); free some space and retry; %s", name, outcome)
                        : lsim_fail(ctx, LSIM_ERR_IO, "error writing '%s' (%s); %s; %s",
                                    name, strerror(err), lsim_atomic_hint(err), outcome);
            lsim_atomic_abort(group);
            return st;
        }
    }
    /* Link and rename every file with the usual termination signals held back, so that Ctrl-C
     * cannot leave a temporary name or half of a group behind; they are delivered afterwards. */
    sigset_t hold, saved;
    sigemptyset(&hold);
    sigaddset(&hold, SIGINT);
    sigaddset(&hold, SIGTERM);
    sigaddset(&hold, SIGHUP);
    int masked = pthread_sigmask(SIG_BLOCK, &hold, &saved) == 0;
    lsim_status st = LSIM_OK;
    int done = 0;
    for (; done < group->count; ++done) {
        lsim_atomic_file *f = &group->file[done];
        if (f->kind == LSIM_ATOMIC_DIRECT)
            continue;
        int err = 0;
        if (f->kind == LSIM_ATOMIC_ANONYMOUS)
            err = lsim_atomic_file_link(f);
        if (!err && rename(f->tmp_path, f->target) != 0) {
            err = errno;
            unlink(f->tmp_path);
        }
        if (err) {
            st = lsim_fail(ctx, err == ENOMEM ? LSIM_ERR_OUT_OF_MEMORY : LSIM_ERR_IO,
                           "cannot move the finished file into place as '%s' (%s); %s; no output was written",
                           f->path, strerror(err), lsim_atomic_hint(err));
            free(f->tmp_path);
            f->tmp_path = NULL;
            break;
        }
        free(f->tmp_path);
        f->tmp_path = NULL;
    }
    int failed = 0, err = st == LSIM_OK ? sync_folders(group, &failed) : 0;
    if (err) { /* renamed, but the names may not survive a power loss: report it and roll back */
        const lsim_atomic_file *f = &group->file[failed];
        st = lsim_fail(ctx, err == ENOMEM ? LSIM_ERR_OUT_OF_MEMORY : LSIM_ERR_IO,
                       "cannot make '%s' durable: syncing its folder failed (%s); %s; no output was written",
                       f->path, strerror(err), lsim_atomic_hint(err));
    }
    if (st != LSIM_OK) /* roll back: the files already renamed are ours; remove them */
        for (int j = 0; j < done; ++j)
            if (group->file[j].kind != LSIM_ATOMIC_DIRECT)
                unlink(group->file[j].target);
    for (int i = 0; i < group->count; ++i) {
        lsim_atomic_file *f = &group->file[i];
        if (f->fp)
            fclose(f->fp); /* anonymous files: linked now, or discarded on failure */
        if (f->tmp_path)
            unlink(f->tmp_path); /* named files not renamed after a failure */
        lsim_atomic_file_release(f);
    }
    group->count = 0;
    if (masked)
        pthread_sigmask(SIG_SETMASK, &saved, NULL);
    return st;
}

lsim_status lsim_atomic_finish(lsim_atomic_group *group, lsim_status status)
{
    if (status != LSIM_OK) {
        lsim_atomic_abort(group);
        return status;
    }
    return lsim_atomic_commit(group);
}

lsim_status lsim_atomic_check(lsim_context *ctx, const char *path)
{
    if (!path || !*path)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "output path is empty: give a file name");
    lsim_atomic_kind kind;
    lsim_status st = lsim_atomic_target(ctx, path, &kind);
    if (st != LSIM_OK || kind == LSIM_ATOMIC_DIRECT)
        return st;
    lsim_atomic_group group;
    lsim_atomic_begin(&group, ctx);
    FILE *fp;
    st = lsim_atomic_open(&group, path, &fp);
    lsim_atomic_abort(&group);
    return st;
}

/* include/lidarsim.h */
lsim_status lsim_path_check_writable(lsim_context *ctx, const char *path)
{
    if (!path || !*path)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "output path is empty: give a file name");
    struct stat info;
    if (stat(path, &info) == 0 && S_ISDIR(info.st_mode))
        return lsim_fail(ctx, LSIM_ERR_IO, "'%s' is a directory; give a file name", path);
    /* probes without opening a FIFO or device (its reader would see an empty stream) */
    return lsim_atomic_check(ctx, path);
}
