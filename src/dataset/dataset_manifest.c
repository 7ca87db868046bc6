/* The dataset's manifest (dataset_run.h): OUT/manifest/ holds one append-only text file per
 * writer, "shard-I-of-N.rank-R-of-K.txt", a line per finished frame, appended (and fsync'ed) only
 * after every file of the frame was synced, renamed into place and its folder synced:
 *
 *     K NAME:SIZE:CRC NAME:SIZE:CRC ...
 *
 * K the frame number, then each of the frame's files (lsim_dataset_frame_files: its path in the
 * sequence folder, its size in bytes, its CRC-32 as 8 hex digits). A frame is finished when a
 * whole line for it (a line cut short by a kill has no newline and does not count) matches the
 * files on disk: every file there, a regular file of that size and CRC. A listed frame whose files
 * are missing, resized or changed is written again, as is a frame listed by a line of an older
 * lidarsim (the frame number alone: nothing to check its files against). So a rerun with any split
 * skips exactly the frames whose files are whole. */
#include "dataset/dataset_run.h"

#include "core/context.h"
#include "core/file_open.h"
#include "formats/crc32.h"
#include "output/atomic_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

size_t lsim_dataset_frame_files(size_t index, lsim_format points, char name[LSIM_DATASET_FRAME_FILES][LSIM_DATASET_NAME_BYTES])
{
    static const char *const pattern[6] = {"velodyne/%06zu.bin", "labels/%06zu.label", "time/%06zu.bin",
                                           "clean/%06zu.bin",    "clean/%06zu.label",  "clean/%06zu.time"};
    for (int k = 0; k < 6; ++k)
        snprintf(name[k], sizeof name[k], pattern[k], index);
    if (points == LSIM_FORMAT_AUTO)
        return 6;
    snprintf(name[6], sizeof name[6], "points/%06zu.%s", index, lsim_format_name(points));
    return 7;
}

/* Whether `rest` (the line after the frame number, its newline removed) lists exactly the frame's
 * files with the sizes and CRCs they have on disk. */
static int line_matches(const lsim_dataset_manifest_scan *m, size_t k, char *rest)
{
    char seq[4000], name[LSIM_DATASET_FRAME_FILES][LSIM_DATASET_NAME_BYTES], path[4400];
    lsim_dataset_sequence_dir(seq, sizeof seq, m->out, k / m->per);
    const size_t n = lsim_dataset_frame_files(k % m->per, m->points, name);
    char *save = NULL, *tok = strtok_r(rest, " ", &save);
    for (size_t i = 0; i < n; ++i, tok = strtok_r(NULL, " ", &save)) {
        const size_t len = strlen(name[i]);
        if (!tok || strncmp(tok, name[i], len) != 0 || tok[len] != ':')
            return 0;
        char *end = NULL;
        errno = 0;
        const unsigned long long size = strtoull(tok + len + 1, &end, 10);
        if (errno || end == tok + len + 1 || *end != ':')
            return 0;
        char *crc_end = NULL;
        const unsigned long crc = strtoul(end + 1, &crc_end, 16);
        if (crc_end != end + 9 || *crc_end != '\0')
            return 0;
        snprintf(path, sizeof path, "%s/%s", seq, name[i]);
        uint64_t have_size;
        uint32_t have_crc;
        if (lsim_crc32_file(path, m->buf, m->buf_size, &have_size, &have_crc) != 0 || have_size != size ||
            have_crc != (uint32_t)crc)
            return 0;
    }
    return tok == NULL;
}

/* One writer's list: each whole line of a frame this writer owns and has not found finished yet
 * is checked against the files. */
static void read_list(FILE *fp, const lsim_dataset_manifest_scan *m, unsigned char *state)
{
    char line[LSIM_MANIFEST_LINE_BYTES];
    while (fgets(line, sizeof line, fp)) {
        size_t n = strlen(line);
        if (n == 0 || line[n - 1] != '\n') {
            int c = 0; /* longer than any line of ours, or cut short at the end: skip it */
            while (n == sizeof line - 1 && (c = fgetc(fp)) != EOF && c != '\n')
                ;
            continue;
        }
        line[--n] = '\0';
        char *end = NULL;
        errno = 0;
        const unsigned long long k = strtoull(line, &end, 10);
        if (errno || end == line || line[0] < '0' || line[0] > '9' || k >= m->frames || (*end && *end != ' '))
            continue; /* not a line of ours */
        if (!lsim_dataset_owns(m->split, (size_t)k) || state[k] == LSIM_MANIFEST_DONE)
            continue;
        if (*end == '\0') { /* an older lidarsim's line: the number alone */
            if (state[k] == LSIM_MANIFEST_ABSENT)
                state[k] = LSIM_MANIFEST_UNCHECKED;
            continue;
        }
        state[k] = line_matches(m, (size_t)k, end + 1) ? LSIM_MANIFEST_DONE : LSIM_MANIFEST_DAMAGED;
    }
}

lsim_status lsim_dataset_manifest_read(lsim_context *ctx, const lsim_dataset_manifest_scan *m, unsigned char *state)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/manifest", m->out);
    memset(state, LSIM_MANIFEST_ABSENT, m->frames);
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
        FILE *fp;
        const lsim_status st = lsim_file_open(ctx, path, LSIM_INPUT_DATASET_STATE, &fp, NULL);
        if (st != LSIM_OK) {
            closedir(d);
            return st;
        }
        read_list(fp, m, state);
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
    /* the list's name in the folder survives a power loss too */
    (void)lsim_sync_folder_of(path);
    /* a line cut short by a failed write (a full disk) has no newline: end it, so that the next
     * line does not join it into another frame's */
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

lsim_status lsim_dataset_manifest_line(lsim_context *ctx, const lsim_dataset_manifest_scan *m, size_t frame,
                                      unsigned char *buf, size_t buf_size, char *line, size_t *length)
{
    char seq[4000], name[LSIM_DATASET_FRAME_FILES][LSIM_DATASET_NAME_BYTES], path[4400];
    lsim_dataset_sequence_dir(seq, sizeof seq, m->out, frame / m->per);
    const size_t n = lsim_dataset_frame_files(frame % m->per, m->points, name);
    int len = snprintf(line, LSIM_MANIFEST_LINE_BYTES, "%zu", frame);
    for (size_t i = 0; i < n; ++i) {
        snprintf(path, sizeof path, "%s/%s", seq, name[i]);
        uint64_t size;
        uint32_t crc;
        const int err = lsim_crc32_file(path, buf, buf_size, &size, &crc);
        if (err)
            return lsim_fail(ctx, LSIM_ERR_IO, "cannot read back '%s' for the manifest: %s; frame %zu is not "
                             "recorded and a rerun writes it again", path, strerror(err), frame);
        char tok[LSIM_DATASET_NAME_BYTES + 40];
        const int t = snprintf(tok, sizeof tok, " %s:%" PRIu64 ":%08" PRIx32, name[i], size, crc);
        if (t > 0 && (size_t)len + (size_t)t + 1 < LSIM_MANIFEST_LINE_BYTES) { /* always: 7 x 89 < 1024 */
            memcpy(line + len, tok, (size_t)t);
            len += t;
        }
    }
    line[len++] = '\n';
    *length = (size_t)len;
    return LSIM_OK;
}

lsim_status lsim_dataset_manifest_append(lsim_context *ctx, int fd, size_t frame, const char *line, size_t length)
{
    /* one write(2) of the line with O_APPEND: whole or, killed before it, absent; then synced, so
     * that a frame the manifest lists after a power loss is one whose files were synced before */
    errno = 0;
    const ssize_t w = write(fd, line, length);
    if (w < 0 || (size_t)w != length)
        return lsim_fail(ctx, LSIM_ERR_IO, "cannot append frame %zu to the manifest (OUT/manifest/): %s", frame,
                         w < 0 ? strerror(errno) : "a short write (is the disk full?)");
    if (fsync(fd) != 0 && errno != EINVAL)
        return lsim_fail(ctx, LSIM_ERR_IO, "cannot sync the manifest (OUT/manifest/) after frame %zu: %s", frame,
                         strerror(errno));
    return LSIM_OK;
}
