/* What a dataset frame does to be safe against power loss (issue 23), seen through the library's
 * own fsync, rename and write calls (wrapped at link time: tests/CMakeLists.txt):
 *   a  order: every file of the frame is fsync'ed (still a temporary file in its folder), then
 *      renamed into place, then its folder is fsync'ed, and only then is the manifest line written,
 *      and the manifest fsync'ed;
 *   b  a folder's fsync that fails (EIO, injected) fails the run naming the file, rolls the frame's
 *      files back and leaves the frame out of the manifest; the rerun writes it;
 *   c  a file's fsync that fails: the same, and nothing of the frame is renamed into place;
 *   d  lsim_atomic_commit alone: one fsync per file before its rename, one per folder after. */
#define _GNU_SOURCE
#include "harness.h"
#include "files.h"

#include "lidarsim.h"
#include "output/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int __real_fsync(int fd);
int __real_rename(const char *from, const char *to);
ssize_t __real_write(int fd, const void *buf, size_t n);

#define MAX_EVENTS 512
typedef struct event {
    char kind;       /* 'f' fsync of a file, 'd' fsync of a folder, 'r' rename, 'w' manifest write */
    char path[600];  /* the file's or folder's path (/proc/self/fd), the rename's target */
} event;
static event events[MAX_EVENTS];
static int nevents, recording;
static char fail_dir[600];  /* fsync of this folder fails with EIO (once) */
static char fail_file[600]; /* fsync of a file whose folder is this fails with EIO (once) */

static void fd_path(int fd, char *out, size_t size)
{
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, out, size - 1);
    out[n > 0 ? n : 0] = '\0';
}

static void record(char kind, const char *path)
{
    if (!recording || nevents >= MAX_EVENTS)
        return;
    events[nevents].kind = kind;
    snprintf(events[nevents].path, sizeof events[nevents].path, "%.590s", path);
    ++nevents;
}

static int starts_with(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

int __wrap_fsync(int fd)
{
    struct stat st;
    char path[600];
    fd_path(fd, path, sizeof path);
    const int dir = fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
    record(dir ? 'd' : 'f', path);
    if (dir && fail_dir[0] && strcmp(path, fail_dir) == 0) {
        fail_dir[0] = '\0';
        errno = EIO;
        return -1;
    }
    if (!dir && fail_file[0] && starts_with(path, fail_file) && path[strlen(fail_file)] == '/') {
        fail_file[0] = '\0';
        errno = EIO;
        return -1;
    }
    return __real_fsync(fd);
}

int __wrap_rename(const char *from, const char *to)
{
    int rc = __real_rename(from, to);
    if (rc == 0) {
        char real[PATH_MAX];
        if (realpath(to, real))
            record('r', real);
    }
    return rc;
}

ssize_t __wrap_write(int fd, const void *buf, size_t n)
{
    if (recording) {
        char path[600];
        fd_path(fd, path, sizeof path);
        if (strstr(path, "/manifest/"))
            record('w', path);
    }
    return __real_write(fd, buf, n);
}

static lsim_context *ctx;
static char root[200];

static const char *const frame_files[6] = {"velodyne/000000.bin", "labels/000000.label", "time/000000.bin",
                                           "clean/000000.bin",    "clean/000000.label",  "clean/000000.time"};

static int find(char kind, const char *path, int from)
{
    for (int i = from; i < nevents; ++i)
        if (events[i].kind == kind && (!path || strcmp(events[i].path, path) == 0))
            return i;
    return -1;
}

static int find_file_fsync_in(const char *dir, int before)
{
    for (int i = 0; i < before; ++i)
        if (events[i].kind == 'f' && starts_with(events[i].path, dir) && events[i].path[strlen(dir)] == '/')
            return i;
    return -1;
}

static lsim_status run(const lsim_dataset *ds, const char *out, lsim_dataset_run_stats *s)
{
    lsim_dataset_run_options o;
    lsim_dataset_run_options_init(&o);
    o.threads = 1;
    o.frames = 1;
    nevents = 0;
    recording = 1;
    lsim_status st = lsim_dataset_run(ds, out, &o, s);
    recording = 0;
    return st;
}

static long manifest_bytes(const char *out)
{
    char path[400];
    struct stat st;
    snprintf(path, sizeof path, "%s/manifest/shard-0-of-1.rank-0-of-1.txt", out);
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static int frame_files_present(const char *out)
{
    int n = 0;
    char path[500];
    for (int k = 0; k < 6; ++k) {
        snprintf(path, sizeof path, "%s/sequences/00/%s", out, frame_files[k]);
        n += access(path, F_OK) == 0;
    }
    return n;
}

static void part_a(const lsim_dataset *ds)
{
    char out[300], seq[400];
    snprintf(out, sizeof out, "%s/a", root);
    lsim_dataset_run_stats s;
    REQUIRE_OK(ctx, run(ds, out, &s));
    CHECK(s.written == 1);
    snprintf(seq, sizeof seq, "%s/sequences/00", out);
    const int w = find('w', NULL, 0);
    CHECK(w > 0);
    CHECK(find('f', events[w > 0 ? w : 0].path, w) > w); /* the manifest synced after its line */
    for (int k = 0; k < 6 && w > 0; ++k) {
        char file[600], dir[600];
        snprintf(file, sizeof file, "%s/%s", seq, frame_files[k]);
        snprintf(dir, sizeof dir, "%s", file);
        *strrchr(dir, '/') = '\0';
        const int r = find('r', file, 0);
        const int fs = find_file_fsync_in(dir, r < 0 ? 0 : r);
        const int ds_ = r < 0 ? -1 : find('d', dir, r);
        if (!(fs >= 0 && fs < r && r < ds_ && ds_ < w))
            fprintf(stderr, "%s: file fsync %d, rename %d, folder fsync %d, manifest line %d\n", frame_files[k], fs,
                    r, ds_, w);
        CHECK(fs >= 0 && fs < r && r < ds_ && ds_ < w);
    }
}

static void part_b(const lsim_dataset *ds)
{
    char out[300];
    snprintf(out, sizeof out, "%s/b", root);
    lsim_dataset_run_stats s;
    snprintf(fail_dir, sizeof fail_dir, "%s/sequences/00/labels", out);
    lsim_status st = run(ds, out, &s);
    CHECK(st == LSIM_ERR_IO);
    const char *msg = lsim_context_last_error(ctx);
    CHECK(strstr(msg, "labels/000000.label") && strstr(msg, "durable") && strstr(msg, strerror(EIO)));
    CHECK(s.written == 0);
    CHECK(manifest_bytes(out) == 0);
    CHECK(frame_files_present(out) == 0); /* rolled back: all six renamed files removed */
    CHECK(fail_dir[0] == '\0');           /* the fault was hit */
    REQUIRE_OK(ctx, run(ds, out, &s));
    CHECK(s.written == 1 && s.done_before == 0 && manifest_bytes(out) > 0 && frame_files_present(out) == 6);
}

static void part_c(const lsim_dataset *ds)
{
    char out[300];
    snprintf(out, sizeof out, "%s/c", root);
    snprintf(fail_file, sizeof fail_file, "%s/sequences/00/clean", out);
    lsim_dataset_run_stats s;
    /* the first run makes the folders before the frame: the fault hits the frame's clean/ files */
    lsim_status st = run(ds, out, &s);
    CHECK(st == LSIM_ERR_IO);
    CHECK(strstr(lsim_context_last_error(ctx), "clean/000000.") && strstr(lsim_context_last_error(ctx),
                                                                          strerror(EIO)));
    CHECK(fail_file[0] == '\0');
    CHECK(find('r', NULL, 0) < 0 || manifest_bytes(out) == 0);
    CHECK(frame_files_present(out) == 0 && manifest_bytes(out) == 0);
    REQUIRE_OK(ctx, run(ds, out, &s));
    CHECK(s.written == 1 && frame_files_present(out) == 6);
}

static void part_d(void)
{
    char dir[300], a[600], b[600], c[600], sub[400];
    snprintf(dir, sizeof dir, "%s/d", root);
    snprintf(sub, sizeof sub, "%s/sub", dir);
    CHECK(mkdir(dir, 0777) == 0 && mkdir(sub, 0777) == 0);
    snprintf(a, sizeof a, "%s/a.txt", dir);
    snprintf(b, sizeof b, "%s/b.txt", dir);
    snprintf(c, sizeof c, "%s/c.txt", sub);
    lsim_atomic_group g;
    lsim_atomic_begin(&g, ctx);
    FILE *fp;
    REQUIRE_OK(ctx, lsim_atomic_open(&g, a, &fp));
    fputs("a", fp);
    REQUIRE_OK(ctx, lsim_atomic_open(&g, b, &fp));
    fputs("b", fp);
    REQUIRE_OK(ctx, lsim_atomic_open(&g, c, &fp));
    fputs("c", fp);
    nevents = 0;
    recording = 1;
    REQUIRE_OK(ctx, lsim_atomic_commit(&g));
    recording = 0;
    int files = 0, dirs = 0, renames = 0, last_file = -1, first_rename = nevents, last_rename = -1, first_dir = nevents;
    for (int i = 0; i < nevents; ++i) {
        if (events[i].kind == 'f') {
            ++files;
            last_file = i;
        } else if (events[i].kind == 'r') {
            ++renames;
            first_rename = i < first_rename ? i : first_rename;
            last_rename = i;
        } else if (events[i].kind == 'd') {
            ++dirs;
            first_dir = i < first_dir ? i : first_dir;
        }
    }
    CHECK(files == 3 && renames == 3 && dirs == 2); /* dir and dir/sub, each once */
    CHECK(last_file < first_rename && last_rename < first_dir);
    remove_tree(dir);
}

int main(void)
{
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    scratch_make("durable");
    char real[PATH_MAX]; /* the paths /proc/self/fd and realpath give */
    if (!realpath(scratch_dir, real))
        return 1;
    snprintf(root, sizeof root, "%.199s", real);
    const char *config = scratch_write_text("ds.yaml", "seed: 3\nframes: 1\nframes_per_sequence: 1\n"
                                                       "sensor: {preset: urg-04lx, position: [0, 0, 0.5]}\n"
                                                       "layout: {kind: scatter, extent: [6, 6]}\n"
                                                       "trajectory: {kind: straight, speed: 1}\n"
                                                       "library:\n  - box: [0.5, 0.5, 1]\n    label: car\n"
                                                       "    count: [4, 4]\n    on: ground\n");
    lsim_dataset *ds = NULL;
    REQUIRE_OK(ctx, lsim_dataset_load(ctx, config, &ds));
    part_a(ds);
    part_b(ds);
    part_c(ds);
    part_d();
    lsim_dataset_destroy(ds);
    remove_tree(scratch_dir);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_dataset_durable");
}
