#include "cli/args.h"

#include "calib/calib_view.h"
#include "calib/calibration.h"
#include "cli/commands.h"
#include "core/context.h"
#include "core/text.h"
#include "io/atomic_file.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

int lsim_arg_long(const char *s, long lo, long hi, long *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*end || errno || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int lsim_arg_u64(const char *s, uint64_t *out)
{
    if (!s || !*s || *s == '-')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno)
        return -1;
    *out = (uint64_t)v;
    return 0;
}

int lsim_arg_double(const char *s, double lo, double hi, double *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (*end || errno || !isfinite(v) || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int lsim_arg_invalid(const char *command, const char *opt, const char *value, const char *valid)
{
    fprintf(stderr, "lidarsim %s: %s '%s' is invalid; expected %s\n", command, opt, value ? value : "", valid);
    return LSIM_EXIT_USAGE;
}

int lsim_cli_check_writable(lsim_context *ctx, const char *command, const char *path, const char *what)
{
    /* not a directory, and a temporary file can be made there (FIFOs and devices are not opened) */
    if (lsim_path_check_writable(ctx, path) != LSIM_OK) {
        fprintf(stderr, "lidarsim %s: cannot write %s: %s\n", command, what, lsim_context_last_error(ctx));
        return LSIM_EXIT_FAILURE;
    }
    return LSIM_EXIT_OK;
}

lsim_status lsim_cli_output_path(lsim_context *ctx, char *out, size_t size, const char *dir, const char *name,
                                 const char *suffix)
{
    int n = snprintf(out, size, "%s/%s%s", dir, name, suffix);
    if (n < 0 || (size_t)n >= size)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "the output path %s/%s%s is too long (at most %zu bytes)",
                         dir, name, suffix, size - 1);
    return LSIM_OK;
}

lsim_status lsim_cli_write_view(lsim_context *ctx, const char *path, const lsim_calib_material *m)
{
    return lsim_calib_view_png_colour(ctx, m, path, 900, LSIM_CALIB_VIEW_MEAN_WITH_DROPS);
}

/* ------------------------------------------------------------------------------------------- */
/* Outputs committed together                                                                   */

void lsim_cli_outputs_init(lsim_cli_outputs *o, lsim_context *ctx, const char *command)
{
    memset(o, 0, sizeof *o);
    o->ctx = ctx;
    o->command = command;
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

/* The output set being written, for the termination-signal handler (cli/main.c): Ctrl-C or
 * SIGTERM during validate or calibrate --view removes the set's temporary files, its staging
 * folder and the output folder it made, then ends the process as by default. Besides main.c's
 * thread id this is the CLI's one piece of global state, which a signal handler needs; the
 * termination signals are held back while a set changes or commits. */
static lsim_cli_outputs *volatile signal_outputs;

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

void lsim_cli_outputs_on_signal(void)
{
    lsim_cli_outputs *o = signal_outputs; /* unlink and rmdir only: async-signal-safe */
    if (!o)
        return;
    for (size_t i = 0; i < o->count; ++i)
        unlink(o->file[i].tmp);
    if (o->stage)
        rmdir(o->stage);
    if (o->made_dir && o->dir)
        rmdir(o->dir);
}

static lsim_status outputs_push(lsim_cli_outputs *o, const char *tmp, const char *final)
{
    sigset_t old;
    hold_signals(&old);
    lsim_status st = LSIM_OK;
    if (o->count == o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 8;
        lsim_cli_output *f = realloc(o->file, cap * sizeof *f);
        if (!f)
            st = lsim_fail(o->ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory registering the output %s", final);
        else {
            o->file = f;
            o->cap = cap;
        }
    }
    if (st == LSIM_OK) {
        lsim_cli_output *f = &o->file[o->count];
        f->tmp = lsim_strdup(tmp);
        f->final = lsim_strdup(final);
        if (!f->tmp || !f->final) {
            free(f->tmp);
            free(f->final);
            st = lsim_fail(o->ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory registering the output %s", final);
        } else {
            ++o->count;
            signal_outputs = o;
        }
    }
    release_signals(&old);
    return st;
}

/* lsim_cli_outputs_folder with the termination signals held back (the caller holds them), so that
 * a signal cannot land between creating the folders and registering them for the handler. */
static int outputs_folder_held(lsim_cli_outputs *o, const char *dir, const char *what)
{
    struct stat info;
    char stage[4096];
    if (!dir || !*dir) {
        fprintf(stderr, "lidarsim %s: no %s given\n", o->command, what);
        return LSIM_EXIT_FAILURE;
    }
    if (stat(dir, &info) == 0) {
        if (!S_ISDIR(info.st_mode)) {
            fprintf(stderr, "lidarsim %s: cannot write the %s '%s': it is a file, not a folder; give a folder\n",
                    o->command, what, dir);
            return LSIM_EXIT_FAILURE;
        }
    } else if (mkdir(dir, 0777) != 0) {
        fprintf(stderr, "lidarsim %s: cannot create the %s '%s': %s; give a folder that can be created\n",
                o->command, what, dir, strerror(errno));
        return LSIM_EXIT_FAILURE;
    } else {
        o->made_dir = 1;
    }
    int n = snprintf(stage, sizeof stage, "%s/.lidarsim-%s.XXXXXX", dir, o->command);
    if (n < 0 || (size_t)n >= sizeof stage) {
        fprintf(stderr, "lidarsim %s: cannot write the %s '%s': the path is too long\n", o->command, what, dir);
    } else if (!mkdtemp(stage)) {
        fprintf(stderr, "lidarsim %s: cannot write the %s '%s': %s; give a folder you can write to\n", o->command,
                what, dir, strerror(errno));
    } else {
        o->dir = lsim_strdup(dir);
        o->stage = lsim_strdup(stage);
        if (o->dir && o->stage) {
            signal_outputs = o;
            return LSIM_EXIT_OK;
        }
        fprintf(stderr, "lidarsim %s: out of memory\n", o->command);
        rmdir(stage);
    }
    free(o->dir);
    free(o->stage);
    o->dir = o->stage = NULL;
    if (o->made_dir)
        rmdir(dir);
    o->made_dir = 0;
    return LSIM_EXIT_FAILURE;
}

int lsim_cli_outputs_folder(lsim_cli_outputs *o, const char *dir, const char *what)
{
    sigset_t old;
    hold_signals(&old);
    int rc = outputs_folder_held(o, dir, what);
    release_signals(&old);
    return rc;
}

lsim_status lsim_cli_outputs_add(lsim_cli_outputs *o, const char *name, const char *suffix, char *out, size_t size)
{
    char final[4096];
    if (!o->dir)
        return lsim_fail(o->ctx, LSIM_ERR_STATE, "lsim_cli_outputs_add: no output folder opened");
    lsim_status st = lsim_cli_output_path(o->ctx, final, sizeof final, o->dir, name, suffix);
    if (st == LSIM_OK)
        st = lsim_cli_output_path(o->ctx, out, size, o->stage, name, suffix);
    if (st != LSIM_OK)
        return st;
    struct stat info;
    if (stat(final, &info) == 0 && S_ISDIR(info.st_mode))
        return lsim_fail(o->ctx, LSIM_ERR_IO, "cannot write %s: it is a folder; remove or rename it, or give "
                         "another output folder", final);
    for (size_t i = 0; i < o->count; ++i)
        if (strcmp(o->file[i].final, final) == 0)
            return lsim_fail(o->ctx, LSIM_ERR_INVALID_ARGUMENT, "two outputs would both be written to %s; give "
                             "the materials distinct names", final);
    return outputs_push(o, out, final);
}

lsim_status lsim_cli_outputs_add_file(lsim_cli_outputs *o, const char *path, char *out, size_t size)
{
    struct stat info;
    if (!path || !*path)
        return lsim_fail(o->ctx, LSIM_ERR_INVALID_ARGUMENT, "no output file given");
    if (stat(path, &info) == 0 && S_ISDIR(info.st_mode))
        return lsim_fail(o->ctx, LSIM_ERR_IO, "'%s' is a folder; give a file name", path);
    int n = snprintf(out, size, "%s.part.XXXXXX", path);
    if (n < 0 || (size_t)n >= size)
        return lsim_fail(o->ctx, LSIM_ERR_INVALID_ARGUMENT, "the output path %s is too long (at most %zu bytes)",
                         path, size - 20);
    sigset_t old; /* a signal must not land between creating the file and registering it */
    hold_signals(&old);
    lsim_status st = LSIM_OK;
    int fd = mkstemp(out);
    if (fd < 0) {
        st = lsim_fail(o->ctx, LSIM_ERR_IO, "cannot create a file beside %s: %s; give a path in a folder you can "
                       "write to", path, strerror(errno));
    } else {
        close(fd);
        st = outputs_push(o, out, path);
        if (st != LSIM_OK)
            unlink(out);
    }
    release_signals(&old);
    return st;
}

static void outputs_clear(lsim_cli_outputs *o)
{
    sigset_t old;
    hold_signals(&old);
    if (signal_outputs == o)
        signal_outputs = NULL;
    release_signals(&old);
    for (size_t i = 0; i < o->count; ++i) {
        free(o->file[i].tmp);
        free(o->file[i].final);
    }
    free(o->file);
    free(o->dir);
    free(o->stage);
    lsim_context *ctx = o->ctx;
    const char *command = o->command;
    lsim_cli_outputs_init(o, ctx, command);
}

void lsim_cli_outputs_abort(lsim_cli_outputs *o)
{
    for (size_t i = 0; i < o->count; ++i)
        unlink(o->file[i].tmp);
    if (o->stage)
        remove_stage(o->stage);
    if (o->made_dir && o->dir)
        rmdir(o->dir); /* only when empty: anything else put there meanwhile stays */
    outputs_clear(o);
}

static lsim_status outputs_commit(lsim_cli_outputs *o);

/* With the termination signals held back: a signal that arrives meanwhile ends the process
 * after the set is wholly in place or wholly removed. */
lsim_status lsim_cli_outputs_commit(lsim_cli_outputs *o)
{
    sigset_t old;
    hold_signals(&old);
    lsim_status st = outputs_commit(o);
    release_signals(&old);
    return st;
}

static lsim_status outputs_commit(lsim_cli_outputs *o)
{
    struct stat info;
    for (size_t i = 0; i < o->count; ++i) {
        /* A writer that failed without saying so leaves no file: never commit a partial set. */
        if (stat(o->file[i].tmp, &info) != 0 || !S_ISREG(info.st_mode)) {
            lsim_status st = lsim_fail(o->ctx, LSIM_ERR_IO, "%s was not written", o->file[i].final);
            lsim_cli_outputs_abort(o);
            return st;
        }
    }
    for (size_t i = 0; i < o->count; ++i) {
        if (rename(o->file[i].tmp, o->file[i].final) == 0)
            continue;
        int err = errno;
        for (size_t k = 0; k < i; ++k)
            unlink(o->file[k].final);
        lsim_status st = lsim_fail(o->ctx, LSIM_ERR_IO, "cannot move %s into place: %s",
                                   o->file[i].final, strerror(err));
        lsim_cli_outputs_abort(o);
        return st;
    }
    if (o->stage)
        remove_stage(o->stage);
    outputs_clear(o);
    return LSIM_OK;
}

int lsim_arg_fields(const char *command, const char *list, uint32_t *out)
{
    *out = 0;
    const char *p = list;
    while (1) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        int found = -1;
        for (int f = 0; f < LSIM_FIELD_COUNT && found < 0; ++f) {
            const char *name = lsim_field_name((lsim_field)f);
            if (strlen(name) == len && strncmp(name, p, len) == 0)
                found = f;
        }
        if (found < 0) {
            fprintf(stderr, "lidarsim %s: --fields: '%.*s' is not a point field; give names separated by commas from:",
                    command, (int)(len < 64 ? len : 64), p);
            for (int f = 0; f < LSIM_FIELD_COUNT; ++f)
                fprintf(stderr, " %s", lsim_field_name((lsim_field)f));
            fputc('\n', stderr);
            return -1;
        }
        *out |= LSIM_FIELD_BIT(found);
        if (!end)
            return 0;
        p = end + 1;
    }
}
