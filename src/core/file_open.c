/* The one opener for reading (core/file_open.h): regular files only, opened without blocking,
 * each kind of input bounded in size, the stream itself reading no more than the bound. */
#define _GNU_SOURCE /* fopencookie */
#include "core/file_open.h"

#include "core/context.h"
#include "core/file_inputs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MIB (UINT64_C(1) << 20)
#define GIB (UINT64_C(1) << 30)

static const struct {
    const char *name;  /* in messages: "the scene file" */
    uint64_t max;      /* bytes */
    const char *hint;  /* what to do with a file over the bound */
} kinds[LSIM_INPUT_KIND_COUNT] = {
    [LSIM_INPUT_SCENE] = {"scene file", 64 * MIB, "put large geometry into mesh files (`mesh: part.ply`)"},
    [LSIM_INPUT_FIT] = {"fit file", 64 * MIB, "a fit file names its scene and scan; it does not hold them"},
    [LSIM_INPUT_CALIB_CONFIG] = {"calibration config", 64 * MIB, "a config names its scans; it does not hold them"},
    [LSIM_INPUT_DATASET_CONFIG] = {"dataset config", 64 * MIB, "put large geometry into mesh files"},
    [LSIM_INPUT_POINTS] = {"point file", 4 * GIB, "split the points into several files"},
    [LSIM_INPUT_LABELS] = {"KITTI .label file", 1 * GIB, "split the scan into several files"},
    [LSIM_INPUT_SCAN] = {"scan file", 4 * GIB, "give a part of the scan (a few revolutions are enough)"},
    [LSIM_INPUT_PATTERN] = {"beam pattern file", 4 * GIB, "split the table into several pattern files"},
    [LSIM_INPUT_TRAJECTORY] = {"trajectory file", 64 * MIB, "give fewer poses (they are interpolated)"},
    [LSIM_INPUT_KERNEL] = {"kernel file", 64 * MIB, "give a coarser kernel grid"},
    [LSIM_INPUT_CALIBRATION] = {"calibration file", 64 * MIB, "give the file `lidarsim calibrate -o` wrote"},
    [LSIM_INPUT_UNIT] = {"sensor calibration file", 16 * MIB, "a unit's calibration is a few kilobytes"},
    [LSIM_INPUT_MESH] = {"mesh", 4 * GIB, "simplify the mesh or split it into several objects"},
    [LSIM_INPUT_DATASET_STATE] = {"dataset state file", 64 * MIB, "it is not one lidarsim wrote; give a new -o"},
    [LSIM_INPUT_DATASET_FRAME] = {"dataset frame file", 4 * GIB, "it is not one lidarsim wrote; give a new -o"},
    [LSIM_INPUT_RECORDING] = {"recording", 16 * GIB, "cut the recording (editcap -r, tcpdump -c)"},
    [LSIM_INPUT_OTHER] = {"input file", 64 * MIB, "give the file lidarsim expects there"},
};

uint64_t lsim_input_max_bytes(lsim_input_kind kind)
{
    return (unsigned)kind < LSIM_INPUT_KIND_COUNT ? kinds[kind].max : 0;
}

const char *lsim_input_name(lsim_input_kind kind)
{
    return (unsigned)kind < LSIM_INPUT_KIND_COUNT ? kinds[kind].name : "input file";
}

/* ---- the bounded stream: reads through the descriptor, failing with EFBIG past `max` bytes */

typedef struct bounded {
    int fd;
    uint64_t pos, max;
} bounded;

static ssize_t bounded_read(void *cookie, char *buf, size_t size)
{
    bounded *b = cookie;
    /* one byte more than the bound may hold tells a file that is longer from one that ends there */
    const uint64_t room = b->pos <= b->max ? b->max - b->pos + 1 : 0;
    if (size > room)
        size = (size_t)room;
    if (size == 0) {
        errno = EFBIG;
        return -1;
    }
    ssize_t got;
    do
        got = read(b->fd, buf, size);
    while (got < 0 && errno == EINTR);
    if (got < 0)
        return -1;
    if (b->pos + (uint64_t)got > b->max) {
        errno = EFBIG;
        return -1;
    }
    b->pos += (uint64_t)got;
    return got;
}

static int bounded_seek(void *cookie, off64_t *offset, int whence)
{
    bounded *b = cookie;
    const off64_t at = lseek64(b->fd, *offset, whence);
    if (at < 0)
        return -1;
    *offset = at;
    b->pos = (uint64_t)at;
    return 0;
}

static int bounded_close(void *cookie)
{
    bounded *b = cookie;
    const int r = close(b->fd);
    free(b);
    return r;
}

/* ---- opening */

/* The descriptor of a regular file of at most `max` bytes, or why not (errno-style text or ours;
 * *err EFBIG, with *size, when that is why). */
static const char *open_regular(const char *path, uint64_t max, int *fd_out, struct stat *sb, int *err)
{
    *fd_out = -1;
    *err = 0;
    const int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        *err = errno;
        return strerror(errno);
    }
    if (fstat(fd, sb) != 0) {
        *err = errno;
        close(fd);
        return strerror(*err);
    }
    if (!S_ISREG(sb->st_mode)) {
        close(fd);
        return S_ISDIR(sb->st_mode) ? "it is a directory, not a file"
                                    : "it is not a regular file (a FIFO, socket or device); give a file";
    }
    if ((uint64_t)sb->st_size > max) {
        close(fd);
        *err = EFBIG;
        return "it is larger than the limit for this kind of input";
    }
    const int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        *err = errno;
        close(fd);
        return strerror(*err);
    }
    *fd_out = fd;
    return NULL;
}

static FILE *bounded_stream(int fd, uint64_t max)
{
    bounded *b = malloc(sizeof *b);
    if (!b)
        return NULL;
    b->fd = fd;
    b->pos = 0;
    b->max = max;
    static const cookie_io_functions_t io = {bounded_read, NULL, bounded_seek, bounded_close};
    FILE *fp = fopencookie(b, "rb", io);
    if (!fp) {
        free(b);
        return NULL;
    }
    setvbuf(fp, NULL, _IOFBF, 1 << 16);
    return fp;
}

static lsim_status fail_open(lsim_context *ctx, const char *path, lsim_input_kind kind, const char *why, int err,
                             uint64_t size)
{
    if (err == EFBIG) {
        const uint64_t max = kinds[kind].max;
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s: %llu bytes, more than the limit of %llu %s for a %s (to bound "
                         "memory and time); %s", path, (unsigned long long)size,
                         (unsigned long long)(max % GIB == 0 ? max / GIB : max / MIB), max % GIB == 0 ? "GiB" : "MiB",
                         kinds[kind].name, kinds[kind].hint);
    }
    const lsim_status st = err == ENOMEM                             ? LSIM_ERR_OUT_OF_MEMORY
                           : err == ENOENT && kind == LSIM_INPUT_MESH ? LSIM_ERR_NOT_FOUND
                                                                     : LSIM_ERR_IO;
    return lsim_fail(ctx, st, "%s: cannot open the %s: %s", path, kinds[kind].name, why);
}

lsim_status lsim_file_open_fd(lsim_context *ctx, const char *path, lsim_input_kind kind, int *fd, uint64_t *size)
{
    *fd = -1;
    if ((unsigned)kind >= LSIM_INPUT_KIND_COUNT || !path || !*path)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "no %s given", lsim_input_name(kind));
    int err;
    struct stat sb;
    sb.st_size = 0;
    const char *why = open_regular(path, kinds[kind].max, fd, &sb, &err);
    if (why)
        return fail_open(ctx, path, kind, why, err, (uint64_t)sb.st_size);
    lsim_file_inputs_add(ctx, sb.st_dev, sb.st_ino, kind, path);
    if (size)
        *size = (uint64_t)sb.st_size;
    return LSIM_OK;
}

lsim_status lsim_file_open(lsim_context *ctx, const char *path, lsim_input_kind kind, FILE **out, uint64_t *size)
{
    *out = NULL;
    int fd;
    lsim_status st = lsim_file_open_fd(ctx, path, kind, &fd, size);
    if (st != LSIM_OK)
        return st;
    if (!(*out = bounded_stream(fd, kinds[kind].max))) {
        close(fd);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "%s: out of memory opening the %s", path, kinds[kind].name);
    }
    return LSIM_OK;
}

lsim_status lsim_file_read_all(lsim_context *ctx, const char *path, lsim_input_kind kind, char **data,
                               size_t *size)
{
    *data = NULL;
    *size = 0;
    int fd;
    uint64_t n;
    lsim_status st = lsim_file_open_fd(ctx, path, kind, &fd, &n);
    if (st != LSIM_OK)
        return st;
    const uint64_t max = kinds[kind].max;
    /* the size stat gave; then, if the file goes on (it grew, or stat gave no size), more to the bound */
    size_t cap = (size_t)n, len = 0;
    char *buf = malloc(cap + 1);
    while (buf && st == LSIM_OK) {
        char probe;
        const ssize_t got = len < cap ? read(fd, buf + len, cap - len) : read(fd, &probe, 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            st = lsim_fail(ctx, LSIM_ERR_IO, "%s: read error in the %s: %s", path, kinds[kind].name, strerror(errno));
            break;
        }
        if (got == 0)
            break;
        if (len < cap) {
            len += (size_t)got;
            continue;
        }
        if ((uint64_t)len >= max) {
            st = fail_open(ctx, path, kind, NULL, EFBIG, (uint64_t)len + 1);
            break;
        }
        const size_t more = (uint64_t)cap * 2 + 4096 > max ? (size_t)max : cap * 2 + 4096;
        char *bigger = realloc(buf, more + 1);
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        buf[len++] = probe;
        cap = more;
    }
    close(fd);
    if (!buf && st == LSIM_OK)
        st = lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "%s: out of memory reading the %s (%llu bytes)", path,
                       kinds[kind].name, (unsigned long long)n);
    if (st != LSIM_OK) {
        free(buf);
        return st;
    }
    buf[len] = '\0';
    *data = buf;
    *size = len;
    return LSIM_OK;
}

int lsim_file_open_errno(const char *path, lsim_input_kind kind, int *fd, uint64_t *size)
{
    *fd = -1;
    if ((unsigned)kind >= LSIM_INPUT_KIND_COUNT || !path || !*path)
        return EINVAL;
    int err;
    struct stat sb;
    if (open_regular(path, kinds[kind].max, fd, &sb, &err))
        return err ? err : S_ISDIR(sb.st_mode) ? EISDIR : EINVAL;
    if (size)
        *size = (uint64_t)sb.st_size;
    return 0;
}
