/* The dataset's manifest (dataset_run.h): OUT/manifest/ holds one append-only text file per
 * writer, "shard-I-of-N.rank-R-of-K.txt", one finished frame number a line, appended only after
 * every file of the frame was renamed into place. A frame is finished when any writer's list
 * holds it on a whole line (a line cut short by a kill has no newline and does not count), so a
 * rerun with any split skips exactly the finished frames. */
#include "dataset/dataset_run.h"

#include "core/context.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void read_list(FILE *fp, size_t frames, unsigned char *done)
{
    char line[64];
    while (fgets(line, sizeof line, fp)) {
        const size_t n = strlen(line);
        if (n < 2 || line[n - 1] != '\n')
            continue; /* cut short, or not ours */
        char *end = NULL;
        errno = 0;
        const unsigned long long k = strtoull(line, &end, 10);
        if (errno == 0 && end == line + n - 1 && line[0] >= '0' && line[0] <= '9' && k < frames)
            done[k] = 1;
    }
}

lsim_status lsim_dataset_manifest_read(lsim_context *ctx, const char *out, size_t frames, unsigned char *done)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/manifest", out);
    memset(done, 0, frames);
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT ? LSIM_OK
                               : lsim_fail(ctx, LSIM_ERR_IO, "cannot read the manifest folder '%s': %s", dir,
                                           strerror(errno));
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".txt") != 0)
            continue;
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *fp = fopen(path, "r");
        if (!fp) {
            closedir(d);
            return lsim_fail(ctx, LSIM_ERR_IO, "cannot read the manifest '%s': %s", path, strerror(errno));
        }
        read_list(fp, frames, done);
        fclose(fp);
    }
    closedir(d);
    return LSIM_OK;
}

lsim_status lsim_dataset_manifest_open(lsim_context *ctx, const char *out, const lsim_dataset_run_options *o, int *fd)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/manifest/shard-%u-of-%u.rank-%u-of-%u.txt", out, o->shard, o->shards, o->rank,
             o->ranks);
    *fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
    if (*fd < 0)
        return lsim_fail(ctx, LSIM_ERR_IO, "cannot open the manifest '%s' for appending: %s", path, strerror(errno));
    /* a line cut short by a failed write (a full disk) has no newline: end it, so that the next
     * number does not join it into another frame's */
    const off_t end = lseek(*fd, 0, SEEK_END);
    char last = '\n';
    if (end > 0 && pread(*fd, &last, 1, end - 1) == 1 && last != '\n' && write(*fd, "\n", 1) != 1) {
        close(*fd);
        *fd = -1;
        return lsim_fail(ctx, LSIM_ERR_IO, "cannot end the cut-short last line of the manifest '%s': %s", path,
                         strerror(errno));
    }
    return LSIM_OK;
}

lsim_status lsim_dataset_manifest_add(lsim_context *ctx, int fd, size_t frame)
{
    char line[32];
    const int n = snprintf(line, sizeof line, "%zu\n", frame);
    /* one write(2) of a short line with O_APPEND: whole or, killed before it, absent */
    errno = 0;
    const ssize_t w = write(fd, line, (size_t)n);
    if (w != n)
        return lsim_fail(ctx, LSIM_ERR_IO, "cannot append frame %zu to the manifest (OUT/manifest/): %s", frame,
                         w < 0 ? strerror(errno) : "a short write (is the disk full?)");
    return LSIM_OK;
}
