/* One atomic output file (see atomic_file.h; the group that commits files together is
 * atomic_group.c): where a path's write goes (stdout, a device or FIFO straight through; a regular
 * file, or where its symlinks lead, through an O_TMPFILE or a named temporary file beside it), the
 * stream that keeps the reason of a failed write, finishing a file (flush, fsync) and naming an
 * anonymous one for its rename; folders synced, committed outputs removed. */
#define _GNU_SOURCE /* O_TMPFILE, AT_EMPTY_PATH */

#include "output/atomic_file.h"
#include "output/atomic_single.h"

#include "core/context.h"
#include "core/file_inputs.h"
#include "core/text.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TMP_SUFFIX ".tmp.XXXXXX"
#define MAX_SYMLINK_HOPS 40

/* The process umask, read without changing it (umask(2) would race with other threads).
 * Linux reports it in /proc/self/status; elsewhere assume the common 022. Only the named
 * fallback needs it: O_TMPFILE applies the umask itself. */
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

/* The FILE over a descriptor: a glibc cookie stream whose write records errno in the file, so that
 * a failure the writers do not check (fwrite) is reported with its reason at commit; fdopen
 * elsewhere. The stream owns the descriptor (fclose closes it). */
#ifdef __GLIBC__
static ssize_t cookie_write(void *cookie, const char *buf, size_t size)
{
    lsim_atomic_file *f = cookie;
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(f->fd, buf + done, size - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (!f->write_errno)
                f->write_errno = n < 0 ? errno : EIO;
            return done ? (ssize_t)done : -1;
        }
        done += (size_t)n;
    }
    return (ssize_t)done;
}

/* Seeking, for writers that complete a header at the end (LAS): the temporary file is regular. */
static int cookie_seek(void *cookie, off64_t *offset, int whence)
{
    lsim_atomic_file *f = cookie;
    off64_t at = lseek64(f->fd, *offset, whence);
    if (at < 0)
        return -1;
    *offset = at;
    return 0;
}

static int cookie_close(void *cookie)
{
    lsim_atomic_file *f = cookie;
    int rc = close(f->fd);
    f->fd = -1;
    return rc;
}
#endif

static FILE *stream_over(lsim_atomic_file *f, int fd)
{
    f->fd = fd;
    f->write_errno = 0;
#ifdef __GLIBC__
    cookie_io_functions_t io = {NULL, cookie_write, cookie_seek, cookie_close};
    FILE *fp = fopencookie(f, "wb", io);
    if (fp)
        setvbuf(fp, NULL, _IOFBF, 1 << 16);
    return fp;
#else
    return fdopen(fd, "wb");
#endif
}

void lsim_atomic_file_release(lsim_atomic_file *f)
{
    free(f->path);
    free(f->target);
    free(f->tmp_path);
    f->path = f->target = f->tmp_path = NULL;
    f->fp = NULL;
}

const char *lsim_atomic_hint(int err)
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
    case ENOMEM: return "out of memory: close other programs and retry";
    case ELOOP: return "the path has a symlink loop: fix the links or choose another name";
    default: return "check the path and the directory's permissions";
    }
}

int lsim_atomic_is_stdout(const char *path) { return path[0] == '-' && path[1] == '\0'; }

static int is_direct_mode(mode_t m) { return S_ISCHR(m) || S_ISBLK(m) || S_ISFIFO(m) || S_ISSOCK(m); }

int lsim_atomic_is_direct(const char *path)
{
    struct stat st;
    return path && (lsim_atomic_is_stdout(path) || (stat(path, &st) == 0 && is_direct_mode(st.st_mode)));
}

char *lsim_atomic_dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return lsim_strdup(".");
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, path, n);
        d[n] = '\0';
    }
    return d;
}

int lsim_sync_path(const char *path, int folder)
{
    const int fd = open(path, O_RDONLY | O_CLOEXEC | (folder ? O_DIRECTORY : O_NOCTTY));
    if (fd < 0)
        return errno;
    const int err = fsync(fd) != 0 && errno != EINVAL ? errno : 0;
    close(fd);
    return err;
}

int lsim_sync_folder_of(const char *path)
{
    char *dir = lsim_atomic_dir_of(path);
    if (!dir)
        return ENOMEM;
    const int err = lsim_sync_path(dir, 1);
    free(dir);
    return err;
}

/* Follow `path` through symlinks to the file a write should replace (which need not exist).
 * Returns a malloc'd path, or NULL with errno set (ENOMEM, ELOOP, or readlink's error). */
char *lsim_atomic_resolve_links(const char *path)
{
    char *cur = lsim_strdup(path);
    if (!cur) {
        errno = ENOMEM;
        return NULL;
    }
    for (int hop = 0; hop < MAX_SYMLINK_HOPS; ++hop) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
            return cur;
        size_t cap = st.st_size > 0 && st.st_size < PATH_MAX ? (size_t)st.st_size + 1 : PATH_MAX;
        char *link = malloc(cap);
        if (!link) {
            free(cur);
            errno = ENOMEM;
            return NULL;
        }
        ssize_t n = readlink(cur, link, cap);
        if (n < 0 || (size_t)n >= cap) {
            int err = n < 0 ? errno : ENAMETOOLONG;
            free(link);
            free(cur);
            errno = err;
            return NULL;
        }
        link[n] = '\0';
        char *next = link;
        const char *slash = strrchr(cur, '/');
        if (link[0] != '/' && slash) { /* relative to the link's own directory */
            size_t dn = (size_t)(slash - cur) + 1;
            next = malloc(dn + (size_t)n + 1);
            if (next) {
                memcpy(next, cur, dn);
                memcpy(next + dn, link, (size_t)n + 1);
            }
            free(link);
            if (!next) {
                free(cur);
                errno = ENOMEM;
                return NULL;
            }
        }
        free(cur);
        cur = next;
    }
    free(cur);
    errno = ELOOP;
    return NULL;
}

/* What an output path is: 0 and *kind set, or an errno-style reason to refuse it (EISDIR). */
static int classify(const char *path, lsim_atomic_kind *kind)
{
    struct stat st;
    *kind = LSIM_ATOMIC_ANONYMOUS;
    if (lsim_atomic_is_stdout(path)) {
        *kind = LSIM_ATOMIC_DIRECT;
        return 0;
    }
    size_t n = strlen(path);
    if (path[n - 1] == '/')
        return EISDIR;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return EISDIR;
        if (is_direct_mode(st.st_mode))
            *kind = LSIM_ATOMIC_DIRECT;
    }
    return 0;
}

static lsim_status refuse_directory(lsim_context *ctx, const char *path)
{
    size_t n = strlen(path);
    return lsim_fail(ctx, LSIM_ERR_IO, "cannot write '%s': %s; give a file name", path,
                     path[n - 1] == '/' ? "the path ends in '/', which names a directory" : "it is a directory");
}

lsim_status lsim_atomic_target(lsim_context *ctx, const char *path, lsim_atomic_kind *kind)
{
    if (classify(path, kind) == EISDIR)
        return refuse_directory(ctx, path);
    return lsim_atomic_is_stdout(path) ? LSIM_OK : lsim_file_inputs_check(ctx, path); /* not read by the run */
}

/* Open a straight-through output: stdout (a duplicate of descriptor 1, so that closing it checks
 * for errors without closing the process's stdout) or the device / FIFO itself. */
static lsim_status open_direct(lsim_context *ctx, lsim_atomic_file *f)
{
    int fd;
    if (lsim_atomic_is_stdout(f->path)) {
        fflush(stdout); /* keep anything printed before in front */
        fd = dup(STDOUT_FILENO);
    } else {
        fd = open(f->path, O_WRONLY | O_TRUNC | O_NOCTTY | O_CLOEXEC);
    }
    if (fd < 0) {
        int err = errno;
        return lsim_fail(ctx, LSIM_ERR_IO, "cannot write '%s' (%s); %s",
                         lsim_atomic_is_stdout(f->path) ? "standard output" : f->path, strerror(err),
                         lsim_atomic_is_stdout(f->path) ? "is standard output closed?" : lsim_atomic_hint(err));
    }
    f->fp = stream_over(f, fd);
    if (!f->fp) {
        int err = errno;
        close(fd);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "cannot write '%s': %s", f->path, strerror(err));
    }
    return LSIM_OK;
}

/* "<target>.tmp.XXXXXX", malloc'd (NULL when out of memory): the temporary name's template. */
static char *tmp_template(const char *target)
{
    size_t n = strlen(target);
    char *t = malloc(n + sizeof TMP_SUFFIX);
    if (t) {
        memcpy(t, target, n);
        memcpy(t + n, TMP_SUFFIX, sizeof TMP_SUFFIX);
    }
    return t;
}

/* The temporary file: O_TMPFILE in the target's directory, or a named one where not supported. */
static lsim_status open_temporary(lsim_context *ctx, lsim_atomic_file *f)
{
    struct stat old;
    int keep_mode = stat(f->target, &old) == 0 && S_ISREG(old.st_mode);
    char *dir = lsim_atomic_dir_of(f->target);
    if (!dir)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory opening '%s'", f->path);
    int fd = -1, err = 0;
#ifdef O_TMPFILE
    fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    err = errno;
    if (fd < 0 && (err == EOPNOTSUPP || err == EISDIR || err == EINVAL || err == ENOSYS))
        err = 0; /* no O_TMPFILE here (kernel or file system): fall back to a named file */
#endif
    free(dir);
    if (fd >= 0) {
        f->kind = LSIM_ATOMIC_ANONYMOUS;
        if (keep_mode)
            (void)fchmod(fd, old.st_mode & 07777);
    } else if (!err) {
        f->tmp_path = tmp_template(f->target);
        if (!f->tmp_path)
            return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory opening '%s'", f->path);
        fd = mkstemp(f->tmp_path);
        err = errno;
        if (fd >= 0) {
            f->kind = LSIM_ATOMIC_NAMED;
            /* mkstemp creates 0600; give the output the permissions fopen would have. */
            (void)fchmod(fd, keep_mode ? old.st_mode & 07777 : (mode_t)(0666 & ~current_umask()));
        } else {
            free(f->tmp_path);
            f->tmp_path = NULL;
        }
    }
    if (fd < 0)
        return lsim_fail(ctx, LSIM_ERR_IO, "cannot write '%s': cannot create a temporary file beside it (%s); %s",
                         f->path, strerror(err), lsim_atomic_hint(err));
    f->fp = stream_over(f, fd);
    if (!f->fp) {
        err = errno;
        close(fd);
        if (f->tmp_path)
            unlink(f->tmp_path);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "cannot write '%s': cannot open the temporary file (%s)",
                         f->path, strerror(err));
    }
    return LSIM_OK;
}

lsim_status lsim_atomic_file_open(lsim_context *ctx, lsim_atomic_file *f, const char *path, lsim_atomic_kind kind)
{
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->path = lsim_strdup(path);
    if (!f->path)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory opening '%s'", path);
    lsim_status st;
    if (kind == LSIM_ATOMIC_DIRECT) {
        st = open_direct(ctx, f);
    } else {
        f->target = lsim_atomic_resolve_links(path);
        if (!f->target) {
            int err = errno;
            st = err == ENOMEM ? lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory opening '%s'", path)
                               : lsim_fail(ctx, LSIM_ERR_IO, "cannot write '%s': cannot follow its symlink (%s); %s",
                                           path, strerror(err), lsim_atomic_hint(err));
        } else {
            st = open_temporary(ctx, f);
        }
    }
    if (st != LSIM_OK)
        lsim_atomic_file_release(f);
    return st;
}

int lsim_atomic_file_finish(lsim_atomic_file *f)
{
    int err = ferror(f->fp) ? -1 : 0;
    errno = 0;
    if (fflush(f->fp) != 0 && !err)
        err = errno ? errno : -1;
    if (err && f->write_errno)
        err = f->write_errno;
    /* on the disk before its name is: a power loss after the rename cannot leave an empty or
     * partial file under the final name (EINVAL: a file system that cannot sync) */
    if (!err && f->kind != LSIM_ATOMIC_DIRECT && fsync(f->fd) != 0 && errno != EINVAL)
        err = errno;
    if (f->kind == LSIM_ATOMIC_ANONYMOUS && !err)
        return 0;
    errno = 0;
    if (fclose(f->fp) != 0 && !err)
        err = errno ? errno : -1;
    f->fp = NULL;
    return err;
}

int lsim_atomic_file_link(lsim_atomic_file *f)
{
    static const char digits[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    size_t n = strlen(f->target);
    f->tmp_path = tmp_template(f->target);
    if (!f->tmp_path)
        return ENOMEM;
    char fd_path[64];
    int fd = f->fd;
    snprintf(fd_path, sizeof fd_path, "/proc/self/fd/%d", fd);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t seed = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)getpid() << 16) ^
                    (uint64_t)(uintptr_t)f;
    int err = EEXIST;
    for (int attempt = 0; attempt < 64 && err == EEXIST; ++attempt) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        uint64_t r = seed >> 16;
        for (int k = 0; k < 6; ++k, r /= 62)
            f->tmp_path[n + sizeof TMP_SUFFIX - 7 + k] = digits[r % 62];
        if (linkat(AT_FDCWD, fd_path, AT_FDCWD, f->tmp_path, AT_SYMLINK_FOLLOW) == 0)
            return 0;
        err = errno;
#ifdef AT_EMPTY_PATH
        if (err != EEXIST && linkat(fd, "", AT_FDCWD, f->tmp_path, AT_EMPTY_PATH) == 0)
            return 0; /* /proc not mounted, but allowed to link by descriptor */
#endif
    }
    free(f->tmp_path);
    f->tmp_path = NULL;
    return err;
}

void lsim_atomic_remove(const char *path)
{
    struct stat st;
    if (!path || !*path || lsim_atomic_is_stdout(path) || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return;
    char *target = lsim_atomic_resolve_links(path);
    if (target)
        unlink(target);
    free(target);
}
