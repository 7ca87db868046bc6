/* Outputs committed together (output/output_set.h). */
#include "output/output_set.h"

#include "core/context.h"
#include "core/file_inputs.h"
#include "core/file_id.h"
#include "core/text.h"
#include "output/atomic_file.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

lsim_status lsim_output_path(lsim_context *ctx, char *out, size_t size, const char *dir, const char *name,
                             const char *suffix)
{
    int n = snprintf(out, size, "%s/%s%s", dir, name, suffix);
    if (n < 0 || (size_t)n >= size)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "the output path %s/%s%s is too long (at most %zu bytes)",
                         dir, name, suffix, size - 1);
    return LSIM_OK;
}

void lsim_output_set_init(lsim_output_set *o, lsim_context *ctx, const char *command)
{
    memset(o, 0, sizeof *o);
    o->ctx = ctx;
    o->command = command;
    o->stage_fd = -1;
}

/* Remove the plain files in `dir` (a staging folder this process made), then the folder. */
static void remove_stage(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        char path[4096];
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            int n = snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            if (n > 0 && (size_t)n < sizeof path)
                unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

/* The termination signals are held back in this thread while a set changes or commits, so that
 * a handler calling lsim_context_remove_partial_outputs sees a consistent set. */
static void hold_signals(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set, old);
}

static void release_signals(const sigset_t *old) { pthread_sigmask(SIG_SETMASK, old, NULL); }

static void set_register(lsim_output_set *o)
{
    if (o->ctx)
        o->ctx->partial_outputs = o;
}

lsim_status lsim_context_remove_partial_outputs(lsim_context *ctx)
{
    if (!ctx)
        return LSIM_ERR_INVALID_ARGUMENT;
    lsim_output_set *o = ctx->partial_outputs; /* unlink and rmdir only: async-signal-safe */
    if (!o)
        return LSIM_OK;
    for (size_t i = 0; i < o->count; ++i)
        unlink(o->file[i].tmp);
    if (o->stage)
        rmdir(o->stage);
    if (o->made_dir && o->dir)
        rmdir(o->dir);
    return LSIM_OK;
}

static lsim_status outputs_push(lsim_output_set *o, const char *tmp, const char *final)
{
    sigset_t old;
    hold_signals(&old);
    lsim_status st = LSIM_OK;
    if (o->count == o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 8;
        lsim_output_file *f = realloc(o->file, cap * sizeof *f);
        if (!f)
            st = lsim_fail(o->ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory registering the output %s", final);
        else {
            o->file = f;
            o->cap = cap;
        }
    }
    if (st == LSIM_OK) {
        lsim_output_file *f = &o->file[o->count];
        f->tmp = lsim_strdup(tmp);
        f->final = lsim_strdup(final);
        if (!f->tmp || !f->final) {
            free(f->tmp);
            free(f->final);
            st = lsim_fail(o->ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory registering the output %s", final);
        } else {
            ++o->count;
            set_register(o);
        }
    }
    release_signals(&old);
    return st;
}

/* lsim_output_set_folder with the termination signals held back (the caller holds them), so that
 * a signal cannot land between creating the folders and registering them for the handler. */
static lsim_status outputs_folder_held(lsim_output_set *o, const char *dir, const char *what)
{
    struct stat info;
    char stage[4096];
    lsim_status st = LSIM_ERR_IO;
    if (!dir || !*dir)
        return lsim_fail(o->ctx, LSIM_ERR_INVALID_ARGUMENT, "no %s given", what);
    if (stat(dir, &info) == 0) {
        if (!S_ISDIR(info.st_mode))
            return lsim_fail(o->ctx, LSIM_ERR_IO, "cannot write the %s '%s': it is a file, not a folder; give a "
                             "folder", what, dir);
    } else if (mkdir(dir, 0777) != 0) {
        return lsim_fail(o->ctx, LSIM_ERR_IO, "cannot create the %s '%s': %s; give a folder that can be created",
                         what, dir, strerror(errno));
    } else {
        o->made_dir = 1;
    }
    int n = snprintf(stage, sizeof stage, "%s/.lidarsim-%s.XXXXXX", dir, o->command);
    if (n < 0 || (size_t)n >= sizeof stage) {
        st = lsim_fail(o->ctx, LSIM_ERR_INVALID_ARGUMENT, "cannot write the %s '%s': the path is too long", what,
                       dir);
    } else if (!mkdtemp(stage)) {
        st = lsim_fail(o->ctx, LSIM_ERR_IO, "cannot write the %s '%s': %s; give a folder you can write to", what,
                       dir, strerror(errno));
    } else {
        o->dir = lsim_strdup(dir);
        o->stage = lsim_strdup(stage);
        /* held while the set lives: a staging folder whose lock can be taken is a dead run's */
        o->stage_fd = open(stage, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (o->stage_fd >= 0 && flock(o->stage_fd, LOCK_EX | LOCK_NB) != 0) {
            close(o->stage_fd);
            o->stage_fd = -1;
        }
        if (o->dir && o->stage) {
            set_register(o);
            return LSIM_OK;
        }
        st = lsim_fail(o->ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory");
        rmdir(stage);
        if (o->stage_fd >= 0)
            close(o->stage_fd);
        o->stage_fd = -1;
    }
    free(o->dir);
    free(o->stage);
    o->dir = o->stage = NULL;
    if (o->made_dir)
        rmdir(dir);
    o->made_dir = 0;
    return st;
}

lsim_status lsim_output_set_folder(lsim_output_set *o, const char *dir, const char *what)
{
    sigset_t old;
    hold_signals(&old);
    lsim_status st = outputs_folder_held(o, dir, what);
    release_signals(&old);
    return st;
}

lsim_status lsim_output_set_add(lsim_output_set *o, const char *name, const char *suffix, char *out, size_t size)
{
    char final[4096];
    if (!o->dir)
        return lsim_fail(o->ctx, LSIM_ERR_STATE, "lsim_output_set_add: no output folder opened");
    lsim_status st = lsim_output_path(o->ctx, final, sizeof final, o->dir, name, suffix);
    if (st == LSIM_OK)
        st = lsim_output_path(o->ctx, out, size, o->stage, name, suffix);
    if (st != LSIM_OK)
        return st;
    struct stat info;
    if (stat(final, &info) == 0 && S_ISDIR(info.st_mode))
        return lsim_fail(o->ctx, LSIM_ERR_IO, "cannot write %s: it is a folder; remove or rename it, or give "
                         "another output folder", final);
    st = lsim_file_inputs_check(o->ctx, final); /* not an input of the run */
    if (st != LSIM_OK)
        return st;
    const char *same = lsim_output_set_same(o, final);
    if (same)
        return lsim_fail(o->ctx, LSIM_ERR_INVALID_ARGUMENT, "two outputs would both be written to %s%s%s; give "
                         "the materials distinct names", final, strcmp(same, final) ? ", which is " : "",
                         strcmp(same, final) ? same : "");
    return outputs_push(o, out, final);
}

const char *lsim_output_set_same(const lsim_output_set *o, const char *path)
{
    for (size_t i = 0; path && i < o->count; ++i)
        if (strcmp(o->file[i].final, path) == 0 || lsim_file_same_output(o->file[i].final, path))
            return o->file[i].final;
    return NULL;
}

lsim_status lsim_output_set_add_file(lsim_output_set *o, const char *path, char *out, size_t size)
{
    struct stat info;
    if (!path || !*path)
        return lsim_fail(o->ctx, LSIM_ERR_INVALID_ARGUMENT, "no output file given");
    const int exists = stat(path, &info) == 0; /* through a symbolic link: what it names */
    if (exists && S_ISDIR(info.st_mode))
        return lsim_fail(o->ctx, LSIM_ERR_IO, "'%s' is a folder; give a file name", path);
    if (strcmp(path, "-") == 0 || (exists && !S_ISREG(info.st_mode)))
        return lsim_fail(o->ctx, LSIM_ERR_INVALID_ARGUMENT, "'%s' is %s, which cannot be replaced together with the "
                         "other outputs; give a regular file", path,
                         strcmp(path, "-") == 0 ? "standard output" : "a FIFO or device");
    /* a link is followed (as lsim_atomic does, to a target that need not exist yet): the target is
     * written beside itself and replaced, the link stays */
    char *target = lsim_atomic_resolve_links(path);
    if (!target)
        return lsim_fail(o->ctx, LSIM_ERR_IO, "cannot follow the link %s: %s; give the file itself", path,
                         strerror(errno));
    const char *final = target;
    if (lsim_file_inputs_check(o->ctx, final) != LSIM_OK) { /* not an input of the run */
        free(target);
        return lsim_context_last_status(o->ctx);
    }
    const char *same = lsim_output_set_same(o, final);
    if (same) {
        lsim_status clash = lsim_fail(o->ctx, LSIM_ERR_INVALID_ARGUMENT, "'%s' is also %s, another output of this "
                                      "run; give it a name of its own", path, same);
        free(target);
        return clash;
    }
    /* the placeholder gets the mode the file has (or 0666 less the umask for a new one), so that
     * renaming it into place keeps that mode as lsim_atomic does */
    sigset_t old; /* a signal must not land between creating the file and registering it */
    hold_signals(&old);
    int fd = -1, err = 0;
    for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
        int n = snprintf(out, size, "%s.part.%ld.%d", final, (long)getpid(), attempt);
        if (n < 0 || (size_t)n >= size) {
            release_signals(&old);
            lsim_status too_long = lsim_fail(o->ctx, LSIM_ERR_INVALID_ARGUMENT, "the output path %s is too long; "
                                             "give a path of at most %zu bytes", final, size > 32 ? size - 32 : 0);
            free(target);
            return too_long;
        }
        fd = open(out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        err = errno;
        if (fd < 0 && err != EEXIST)
            break;
    }
    lsim_status st = LSIM_OK;
    if (fd < 0) {
        st = lsim_fail(o->ctx, LSIM_ERR_IO, "cannot create a file beside %s: %s; give a path in a folder you can "
                       "write to", final, strerror(err));
    } else {
        if (exists)
            (void)fchmod(fd, info.st_mode & 07777);
        close(fd);
        st = outputs_push(o, out, final);
        if (st != LSIM_OK)
            unlink(out);
    }
    release_signals(&old);
    free(target);
    return st;
}

static void outputs_clear(lsim_output_set *o)
{
    sigset_t old;
    hold_signals(&old);
    if (o->ctx && o->ctx->partial_outputs == o)
        o->ctx->partial_outputs = NULL;
    release_signals(&old);
    for (size_t i = 0; i < o->count; ++i) {
        free(o->file[i].tmp);
        free(o->file[i].final);
    }
    free(o->file);
    free(o->dir);
    free(o->stage);
    if (o->stage_fd >= 0)
        close(o->stage_fd); /* and with it the lock */
    lsim_context *ctx = o->ctx;
    const char *command = o->command;
    lsim_output_set_init(o, ctx, command);
}

void lsim_output_set_abort(lsim_output_set *o)
{
    for (size_t i = 0; i < o->count; ++i)
        unlink(o->file[i].tmp);
    if (o->stage)
        remove_stage(o->stage);
    if (o->made_dir && o->dir)
        rmdir(o->dir); /* only when empty: anything else put there meanwhile stays */
    outputs_clear(o);
}

/* Whether `name` is ".lidarsim-COMMAND." followed by 6 letters or digits (mkdtemp's). */
static int is_stage_name(const char *name, const char *command)
{
    const size_t c = strlen(command), n = strlen(name);
    if (n != 10 + c + 1 + 6 || strncmp(name, ".lidarsim-", 10) != 0 || strncmp(name + 10, command, c) != 0 ||
        name[10 + c] != '.')
        return 0;
    for (size_t i = n - 6; i < n; ++i)
        if (!isalnum((unsigned char)name[i]))
            return 0;
    return 1;
}

/* Staging folders of this command in the output folder that no live run holds: their plain files
 * and the folder are removed (a folder holding anything else stays). */
static void remove_dead_stages(const lsim_output_set *o)
{
    DIR *d = o->dir ? opendir(o->dir) : NULL;
    if (!d)
        return;
    const char *own = o->stage ? strrchr(o->stage, '/') : NULL;
    struct dirent *e;
    char path[4400];
    while ((e = readdir(d)) != NULL) {
        if (!is_stage_name(e->d_name, o->command) || (own && strcmp(own + 1, e->d_name) == 0))
            continue;
        int n = snprintf(path, sizeof path, "%s/%s", o->dir, e->d_name);
        if (n < 0 || (size_t)n >= sizeof path)
            continue;
        const int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            continue;
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) /* no live owner */
            remove_stage(path);
        close(fd);
    }
    closedir(d);
}

/* Beside a single file FINAL: "BASE.part.PID.N" of a process PID that is gone. */
static void remove_dead_parts(const char *final)
{
    const char *slash = strrchr(final, '/');
    char dir[4096];
    const char *base = slash ? slash + 1 : final;
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash == final ? 1 : slash - final) : 1, slash ? final : ".");
    const size_t b = strlen(base);
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char path[4400];
    while ((e = readdir(d)) != NULL) {
        const char *p = e->d_name;
        if (strncmp(p, base, b) != 0 || strncmp(p + b, ".part.", 6) != 0)
            continue;
        char *end = NULL;
        const long pid = strtol(p + b + 6, &end, 10);
        if (end == p + b + 6 || *end != '.' || !isdigit((unsigned char)end[1]) || pid <= 0 || pid == (long)getpid())
            continue;
        char *end2 = NULL;
        (void)strtol(end + 1, &end2, 10);
        if (*end2 != '\0' || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue; /* not such a name, or its process lives (EPERM: another user's) */
        struct stat st;
        int n = snprintf(path, sizeof path, "%s/%s", dir, p);
        if (n > 0 && (size_t)n < sizeof path && lstat(path, &st) == 0 && S_ISREG(st.st_mode))
            unlink(path);
    }
    closedir(d);
}

static lsim_status outputs_commit(lsim_output_set *o)
{
    struct stat info;
    for (size_t i = 0; i < o->count; ++i) {
        /* A writer that failed without saying so leaves no file: never commit a partial set. */
        if (stat(o->file[i].tmp, &info) != 0 || !S_ISREG(info.st_mode)) {
            lsim_status st = lsim_fail(o->ctx, LSIM_ERR_IO, "%s was not written", o->file[i].final);
            lsim_output_set_abort(o);
            return st;
        }
        /* on the disk before its name is (as lsim_atomic_commit) */
        const int err = lsim_sync_path(o->file[i].tmp, 0);
        if (err) {
            lsim_status st = lsim_fail(o->ctx, LSIM_ERR_IO, "cannot write %s: syncing it to the disk failed (%s); "
                                       "nothing was written", o->file[i].final, strerror(err));
            lsim_output_set_abort(o);
            return st;
        }
    }
    for (size_t i = 0; i < o->count; ++i) {
        if (rename(o->file[i].tmp, o->file[i].final) == 0)
            continue;
        int err = errno;
        for (size_t k = 0; k < i; ++k)
            unlink(o->file[k].final);
        lsim_status st = lsim_fail(o->ctx, LSIM_ERR_IO, "cannot move %s into place: %s", o->file[i].final,
                                   strerror(err));
        lsim_output_set_abort(o);
        return st;
    }
    /* the renames durable: the output folder and each single file's folder */
    int err = o->dir ? lsim_sync_path(o->dir, 1) : 0;
    for (size_t i = 0; i < o->count && !err; ++i)
        if (!o->dir || strncmp(o->file[i].final, o->dir, strlen(o->dir)) != 0 ||
            o->file[i].final[strlen(o->dir)] != '/')
            err = lsim_sync_folder_of(o->file[i].final);
    if (err) {
        for (size_t k = 0; k < o->count; ++k)
            unlink(o->file[k].final);
        lsim_status st = lsim_fail(o->ctx, LSIM_ERR_IO, "cannot make the outputs in %s durable: syncing the folder "
                                   "failed (%s); nothing was written", o->dir ? o->dir : o->file[0].final,
                                   strerror(err));
        lsim_output_set_abort(o);
        return st;
    }
    if (o->stage)
        remove_stage(o->stage);
    remove_dead_stages(o);
    for (size_t i = 0; i < o->count; ++i) {
        const size_t n = strlen(o->file[i].final);
        if (strncmp(o->file[i].tmp, o->file[i].final, n) == 0 && strncmp(o->file[i].tmp + n, ".part.", 6) == 0)
            remove_dead_parts(o->file[i].final); /* a single file (lsim_output_set_add_file) */
    }
    outputs_clear(o);
    return LSIM_OK;
}

/* With the termination signals held back: a signal that arrives meanwhile ends the process
 * after the set is wholly in place or wholly removed. */
lsim_status lsim_output_set_commit(lsim_output_set *o)
{
    sigset_t old;
    hold_signals(&old);
    lsim_status st = outputs_commit(o);
    release_signals(&old);
    return st;
}

lsim_status lsim_report_open(lsim_atomic_group *group, lsim_context *ctx, const char *path, FILE **out_fp)
{
    lsim_atomic_begin(group, ctx);
    if (!path) {
        *out_fp = stdout;
        return LSIM_OK;
    }
    return lsim_atomic_open(group, path, out_fp);
}

lsim_status lsim_report_close(lsim_atomic_group *group, FILE *fp, lsim_status status)
{
    if (fp == stdout) {
        fflush(stdout);
        lsim_atomic_abort(group);
        return status;
    }
    return lsim_atomic_finish(group, status);
}

lsim_status lsim_output_check_file(lsim_context *ctx, const char *path, const char *what)
{
    struct stat info;
    if (stat(path, &info) == 0 && S_ISDIR(info.st_mode))
        return lsim_fail(ctx, LSIM_ERR_IO, "cannot write %s: '%s' is a directory; give a file name", what, path);
    /* probe without opening a FIFO or device (its reader would see an empty stream) */
    lsim_status st = lsim_atomic_check(ctx, path);
    if (st != LSIM_OK) {
        char why[LSIM_ERROR_MAX];
        snprintf(why, sizeof why, "%s", lsim_context_last_error(ctx));
        return lsim_fail(ctx, st, "cannot write %s: %s", what, why);
    }
    return LSIM_OK;
}

void lsim_output_set_name_finals(lsim_output_set *o)
{
    if (!o->ctx)
        return;
    for (size_t i = 0; i < o->count; ++i) {
        const char *msg = lsim_context_last_error(o->ctx);
        const char *at = strstr(msg, o->file[i].tmp);
        if (!at)
            continue;
        char was[LSIM_ERROR_MAX];
        snprintf(was, sizeof was, "%s", msg);
        const size_t before = (size_t)(at - msg), tmp_len = strlen(o->file[i].tmp);
        lsim_fail(o->ctx, lsim_context_last_status(o->ctx), "%.*s%s%s", (int)before, was, o->file[i].final,
                  was + before + tmp_len);
    }
}
