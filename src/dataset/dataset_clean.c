/* Leftovers of killed writers (dataset_run.h): a writer killed with SIGKILL (the OOM killer) between
 * the atomic writer's link and rename leaves "NAME.tmp.XXXXXX" beside NAME (output/atomic_file.h; for
 * the whole write where O_TMPFILE is missing). A rerun removes those of the tree's own files --
 * regular files whose name is one of the tree's names followed by ".tmp." and 6 letters or digits,
 * in the tree's own folders -- and nothing else. With other writers running in the same folder
 * (shards, MPI ranks) only the temporary files of the frames this writer owns are removed: the
 * others may be in use. Whether others run is told by a lock on OUT/manifest/ that every writer
 * holds shared for its run; the one that gets it exclusive runs alone. */
#include "dataset/dataset_run.h"

#include "core/context.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define TMP_TAIL 11 /* ".tmp.XXXXXX" */

void lsim_dataset_lock(const char *out, int *fd, int *alone)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/manifest", out);
    *alone = 0;
    *fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (*fd < 0)
        return;
    if (flock(*fd, LOCK_EX | LOCK_NB) == 0) {
        *alone = 1; /* the caller cleans, then turns it shared (flock LOCK_SH) */
        return;
    }
    /* another writer holds it (or, shortly, cleans with it exclusive): wait for a shared lock */
    int rc;
    while ((rc = flock(*fd, LOCK_SH)) != 0 && errno == EINTR)
        ;
    if (rc != 0) { /* no locks here (some network file systems): assume others may run */
        close(*fd);
        *fd = -1;
    }
}

/* The part of `name` before ".tmp.XXXXXX", its length, or 0 when `name` is not such a name. */
static size_t temp_base(const char *name)
{
    const size_t n = strlen(name);
    if (n <= TMP_TAIL || memcmp(name + n - TMP_TAIL, ".tmp.", 5) != 0)
        return 0;
    for (size_t i = n - 6; i < n; ++i)
        if (!isalnum((unsigned char)name[i]))
            return 0;
    return n - TMP_TAIL;
}

/* Whether name[0..len) is one of `names` (NULL-terminated). */
static int one_of(const char *name, size_t len, const char *const *names)
{
    for (; *names; ++names)
        if (strlen(*names) == len && memcmp(name, *names, len) == 0)
            return 1;
    return 0;
}

/* A frame file's base "DDDDDD.EXT" (6 or more digits, EXT one of `exts`): the frame index, or -1. */
static long long frame_of(const char *name, size_t len, const char *const *exts)
{
    size_t d = 0;
    while (d < len && isdigit((unsigned char)name[d]))
        ++d;
    if (d < 6 || d > 12 || d >= len || name[d] != '.' || !one_of(name + d + 1, len - d - 1, exts))
        return -1;
    return strtoll(name, NULL, 10);
}

static void remove_file(const char *dir, const char *name, size_t *removed)
{
    char path[5000];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && unlink(path) == 0)
        ++*removed;
}

/* The temporary names in `dir` whose base is one of `names` (when `alone`), or a frame file with one of
 * `exts` that this writer may remove (sequence `q`). */
static void clean_dir(const char *dir, const char *const *names, const char *const *exts, size_t q, size_t per,
                      const lsim_dataset_split *split, int alone, size_t *removed)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const size_t len = temp_base(e->d_name);
        if (!len)
            continue;
        if (names && alone && one_of(e->d_name, len, names)) {
            remove_file(dir, e->d_name, removed);
            continue;
        }
        const long long index = exts ? frame_of(e->d_name, len, exts) : -1;
        if (index >= 0 && (size_t)index < per && (alone || lsim_dataset_owns(split, q * per + (size_t)index)))
            remove_file(dir, e->d_name, removed);
    }
    closedir(d);
}

/* A sequence folder's name: two or more digits. */
static int sequence_of(const char *name, size_t *q)
{
    const size_t n = strlen(name);
    if (n < 2 || n > 9)
        return 0;
    for (size_t i = 0; i < n; ++i)
        if (!isdigit((unsigned char)name[i]))
            return 0;
    *q = (size_t)strtoul(name, NULL, 10);
    return 1;
}

lsim_status lsim_dataset_clean(lsim_context *ctx, const char *out, size_t per, const lsim_dataset_split *split,
                               int alone, size_t *removed)
{
    static const char *const root_names[] = {"dataset.json", "labels.yaml", NULL};
    static const char *const seq_names[] = {"calib.txt", "poses.txt", "times.txt", "labels.yaml", NULL};
    static const struct { const char *dir; const char *const exts[5]; } sub[] = {
        {"velodyne", {"bin", NULL}},          {"labels", {"label", NULL}},
        {"time", {"bin", NULL}},              {"clean", {"bin", "label", "time", NULL}},
        {"points", {"pcd", "ply", "las", "csv", NULL}},
    };
    *removed = 0;
    clean_dir(out, root_names, NULL, 0, per, split, alone, removed);
    char seqs[4096], dir[4400], path[4700];
    snprintf(seqs, sizeof seqs, "%s/sequences", out);
    DIR *d = opendir(seqs);
    if (!d)
        return errno == ENOENT ? LSIM_OK
                               : lsim_fail(ctx, LSIM_ERR_IO, "cannot read the folder '%s': %s", seqs, strerror(errno));
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t q;
        if (!sequence_of(e->d_name, &q))
            continue;
        snprintf(dir, sizeof dir, "%s/%s", seqs, e->d_name);
        clean_dir(dir, seq_names, NULL, q, per, split, alone, removed);
        for (size_t i = 0; i < sizeof sub / sizeof *sub; ++i) {
            snprintf(path, sizeof path, "%s/%s", dir, sub[i].dir);
            clean_dir(path, NULL, sub[i].exts, q, per, split, alone, removed);
        }
    }
    closedir(d);
    return LSIM_OK;
}
