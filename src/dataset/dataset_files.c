/* The SemanticKITTI tree's folders and its text files (dataset_run.h): dataset.json and
 * labels.yaml at the root, calib.txt, poses.txt, times.txt and labels.yaml per sequence. Every
 * file is written whole to a temporary and renamed, so a reader never sees half of one, and every
 * writer that writes one writes the same bytes. */
#define _GNU_SOURCE /* open_memstream */
#include "dataset/dataset_run.h"

#include "core/context.h"
#include "core/file_open.h"
#include "formats/writers.h"
#include "output/atomic_file.h"
#include "scene/scene.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void lsim_dataset_sequence_dir(char *buf, size_t size, const char *out, size_t sequence)
{
    snprintf(buf, size, "%s/sequences/%02zu", out, sequence);
}

static lsim_status make_dir(lsim_context *ctx, const char *path)
{
    const int made = mkdir(path, 0777) == 0;
    if (made)
        (void)lsim_sync_folder_of(path); /* a folder just made survives a power loss with what is renamed into it */
    if (made || errno == EEXIST) {
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
            return LSIM_OK;
        return lsim_fail(ctx, LSIM_ERR_IO, "'%s' exists and is not a folder; remove it or choose another -o", path);
    }
    return lsim_fail(ctx, LSIM_ERR_IO, "cannot create the folder '%s': %s", path, strerror(errno));
}

/* `out` and its missing parents (mkdir -p). */
static lsim_status make_dirs_to(lsim_context *ctx, const char *out)
{
    char path[4096];
    const size_t n = strlen(out);
    if (n == 0 || n > 3800)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "output folder '%.100s...': give a path of 1..3800 characters (the tree's own names "
                         "follow it)", out);
    memcpy(path, out, n + 1);
    for (size_t i = 1; i < n; ++i)
        if (path[i] == '/' && path[i - 1] != '/') {
            path[i] = 0;
            struct stat st;
            if (stat(path, &st) != 0) {
                lsim_status s = make_dir(ctx, path);
                if (s != LSIM_OK)
                    return s;
            }
            path[i] = '/';
        }
    return make_dir(ctx, out);
}

lsim_status lsim_dataset_check_planned(lsim_context *ctx, const char *out, size_t frames, size_t per,
                                       lsim_format points, const lsim_dataset_split *split)
{
    static const char *const root_files[] = {"dataset.json", "labels.yaml"};
    static const char *const sequence_files[] = {"calib.txt", "poses.txt", "times.txt", "labels.yaml"};
    char dir[4000], path[4400], name[LSIM_DATASET_FRAME_FILES][LSIM_DATASET_NAME_BYTES];
    struct stat sb;
    if (stat(out, &sb) != 0 || !S_ISDIR(sb.st_mode) || per == 0)
        return LSIM_OK; /* nothing there yet: no input can be replaced */
    lsim_status st = LSIM_OK;
    for (size_t i = 0; i < 2 && st == LSIM_OK; ++i) {
        snprintf(path, sizeof path, "%s/%s", out, root_files[i]);
        st = lsim_context_check_output(ctx, path);
    }
    for (size_t q = 0; q * per < frames && st == LSIM_OK; ++q) {
        lsim_dataset_sequence_dir(dir, sizeof dir, out, q);
        if (stat(dir, &sb) != 0)
            continue;
        for (size_t i = 0; i < 4 && st == LSIM_OK; ++i) {
            snprintf(path, sizeof path, "%s/%s", dir, sequence_files[i]);
            st = lsim_context_check_output(ctx, path);
        }
        for (size_t k = q * per; k < frames && k < (q + 1) * per && st == LSIM_OK; ++k) {
            if (!lsim_dataset_owns(split, k))
                continue;
            const size_t n = lsim_dataset_frame_files(k % per, points, name);
            for (size_t j = 0; j < n && st == LSIM_OK; ++j) {
                snprintf(path, sizeof path, "%s/%s", dir, name[j]);
                st = lsim_context_check_output(ctx, path);
            }
        }
    }
    return st;
}

lsim_status lsim_dataset_make_dirs(lsim_context *ctx, const char *out, size_t sequence, lsim_format points)
{
    char path[4096];
    lsim_status st = make_dirs_to(ctx, out);
    snprintf(path, sizeof path, "%s/manifest", out);
    if (st == LSIM_OK)
        st = make_dir(ctx, path);
    snprintf(path, sizeof path, "%s/sequences", out);
    if (st == LSIM_OK)
        st = make_dir(ctx, path);
    if (sequence == SIZE_MAX || st != LSIM_OK)
        return st;
    char seq[4000];
    lsim_dataset_sequence_dir(seq, sizeof seq, out, sequence);
    if (st == LSIM_OK)
        st = make_dir(ctx, seq);
    static const char *const sub[] = {"velodyne", "labels", "time", "clean", "points"};
    const size_t subs = sizeof sub / sizeof *sub - (points == LSIM_FORMAT_AUTO); /* points/: with a format */
    for (size_t i = 0; i < subs && st == LSIM_OK; ++i) {
        snprintf(path, sizeof path, "%s/%s", seq, sub[i]);
        st = make_dir(ctx, path);
    }
    return st;
}

static void json_string(FILE *fp, const char *s, size_t n)
{
    fputc('"', fp);
    for (size_t i = 0; i < n; ++i) {
        const unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            fprintf(fp, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", fp);
        else if (c == '\t')
            fputs("\\t", fp);
        else if (c < 0x20 || c == 0x7F)
            fprintf(fp, "\\u%04x", c);
        else
            fputc(c, fp);
    }
    fputc('"', fp);
}

static void write_json(FILE *fp, const lsim_dataset_info *info, uint64_t seed, size_t frames)
{
    const size_t per = info->frames_per_sequence;
    fprintf(fp, "{\n  \"generator\": \"lidarsim %d.%d.%d\",\n", LSIM_VERSION_MAJOR, LSIM_VERSION_MINOR,
            LSIM_VERSION_PATCH);
    fputs("  \"config_path\": ", fp);
    json_string(fp, info->path, strlen(info->path));
    fputs(",\n  \"config\": ", fp);
    json_string(fp, info->text, info->text_len);
    fprintf(fp, ",\n  \"seed\": %llu,\n  \"frames\": %zu,\n  \"frames_per_sequence\": %zu,\n"
                "  \"sequences\": %zu,\n  \"frame_period_s\": %.17g,\n",
            (unsigned long long)seed, frames, per, (frames + per - 1) / per, info->frame_period_s);
    if (info->points_format != LSIM_FORMAT_AUTO) { /* only then: a tree without points keeps its bytes */
        const char *name = lsim_format_name(info->points_format);
        fprintf(fp, "  \"points_format\": \"%s\",\n  \"points\": \"sequences/SS/points/NNNNNN.%s: the noisy points, "
                    "velodyne's rows in order, with every field the format holds\",\n", name, name);
    }
    fputs("  \"layout\": {\"velodyne\": \"float32 x y z reflectance, sensor frame\", "
          "\"labels\": \"uint32 semantic | instance << 16\", \"time\": \"float32 s from the frame start\", "
          "\"clean\": \"the noise- and drop-out-free scan: row i = velodyne row i, then the dropped echoes\"}\n}\n",
          fp);
}

/* Remove the "config_path" line (the same config may be named by another path); the new length. */
static size_t drop_config_path(char *text)
{
    char *line = strstr(text, "\n  \"config_path\": ");
    if (line) {
        char *end = strchr(line + 1, '\n');
        if (end)
            memmove(line, end, strlen(end) + 1);
    }
    return strlen(text);
}

lsim_status lsim_dataset_check_root(lsim_context *ctx, const char *out, const lsim_dataset_info *info, uint64_t seed,
                                    size_t frames)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/dataset.json", out);
    struct stat sb;
    if (lstat(path, &sb) != 0 && errno == ENOENT)
        return LSIM_OK; /* a new folder (or no writer of frame 0 has come yet) */
    char *want = NULL, *have = NULL;
    size_t want_n = 0, have_n = 0;
    lsim_status st = lsim_file_read_all(ctx, path, LSIM_INPUT_DATASET_STATE, &have, &have_n);
    if (st != LSIM_OK)
        return st;
    FILE *mem = open_memstream(&want, &want_n);
    if (mem) {
        write_json(mem, info, seed, frames);
        fclose(mem);
    }
    if (!want || !have) {
        st = lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory reading '%s'", path);
    } else if ((want_n = drop_config_path(want)) != (have_n = drop_config_path(have)) || memcmp(want, have, want_n) != 0) {
        char seed_key[64], frames_key[64];
        snprintf(seed_key, sizeof seed_key, "\"seed\": %llu,", (unsigned long long)seed);
        snprintf(frames_key, sizeof frames_key, "\"frames\": %zu,", frames);
        const char *fmt = lsim_format_name(info->points_format), *was = strstr(have, "\n  \"points_format\": \"");
        char had[16] = "none";
        if (was)
            sscanf(was, "\n  \"points_format\": \"%15[a-z]\"", had);
        if (strcmp(had, info->points_format == LSIM_FORMAT_AUTO ? "none" : fmt) != 0) {
            st = lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                           "'%s' describes a dataset written with points format %s, this run asks for %s (the "
                           "config's points_format or --points-format); resuming would leave frames without point "
                           "files or with two formats. Give the same points format, a new -o folder, or remove "
                           "'%s' to start over",
                           path, had, info->points_format == LSIM_FORMAT_AUTO ? "none" : fmt, out);
            free(want);
            free(have);
            return st;
        }
        const char *what = !strstr(have, seed_key) ? "the seed" : !strstr(have, frames_key) ? "the frame count"
                                                                                            : "the config or lidarsim version";
        st = lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                       "'%s' describes another dataset (%s differs from this run's: seed %llu, %zu frames, config "
                       "'%s'); resuming would mix two datasets. Give a new -o folder, rerun with the same config, "
                       "seed and frames, or remove '%s' to start over",
                       path, what, (unsigned long long)seed, frames, info->path, out);
    }
    free(want);
    free(have);
    return st;
}

lsim_status lsim_dataset_write_root(lsim_context *ctx, const char *out, const lsim_dataset_info *info,
                                    uint64_t seed, size_t frames, const lsim_scene *scene0)
{
    char path[4096];
    lsim_atomic_group g;
    lsim_atomic_begin(&g, ctx);
    FILE *fp = NULL;
    snprintf(path, sizeof path, "%s/dataset.json", out);
    lsim_status st = lsim_atomic_open(&g, path, &fp);
    if (st == LSIM_OK)
        write_json(fp, info, seed, frames);
    snprintf(path, sizeof path, "%s/labels.yaml", out);
    if (st == LSIM_OK && (st = lsim_atomic_open(&g, path, &fp)) == LSIM_OK)
        lsim_kitti_write_label_map(fp, scene0->labels.names.entries, scene0->labels.names.count);
    return lsim_atomic_finish(&g, st);
}

/* Row-major 3 x 4 a^-1 b for rigid a, b. */
static void relative(const double *a, const double *b, double *out)
{
    for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 4; ++c) {
            double v = 0.0;
            for (int k = 0; k < 3; ++k) /* (R_a^T)[r][k] = R_a[k][r] */
                v += a[4 * k + r] * (c < 3 ? b[4 * k + c] : b[4 * k + 3] - a[4 * k + 3]);
            out[4 * r + c] = v;
        }
    }
}

lsim_status lsim_dataset_write_sequence(lsim_context *ctx, const char *out, size_t sequence, size_t count,
                                        const double *pose, const double *time, const lsim_scene *scene)
{
    char dir[4000], path[4096];
    lsim_dataset_sequence_dir(dir, sizeof dir, out, sequence);
    lsim_atomic_group g;
    lsim_atomic_begin(&g, ctx);
    FILE *fp = NULL;
    /* the velodyne frame is the camera frame: P0..P3 a unit pinhole, Tr the identity */
    snprintf(path, sizeof path, "%s/calib.txt", dir);
    lsim_status st = lsim_atomic_open(&g, path, &fp);
    if (st == LSIM_OK) {
        static const char *const unit = "1.000000000000e+00 0.000000000000e+00 0.000000000000e+00 0.000000000000e+00 "
                                        "0.000000000000e+00 1.000000000000e+00 0.000000000000e+00 0.000000000000e+00 "
                                        "0.000000000000e+00 0.000000000000e+00 1.000000000000e+00 0.000000000000e+00";
        for (int k = 0; k < 4; ++k)
            fprintf(fp, "P%d: %s\n", k, unit);
        fprintf(fp, "Tr: %s\n", unit);
    }
    snprintf(path, sizeof path, "%s/poses.txt", dir);
    if (st == LSIM_OK && (st = lsim_atomic_open(&g, path, &fp)) == LSIM_OK)
        for (size_t k = 0; k < count; ++k) {
            double m[12];
            relative(pose, pose + 12 * k, m);
            for (int i = 0; i < 12; ++i)
                fprintf(fp, "%.12e%c", fabs(m[i]) < 5e-16 ? 0.0 : m[i], i == 11 ? '\n' : ' ');
        }
    snprintf(path, sizeof path, "%s/times.txt", dir);
    if (st == LSIM_OK && (st = lsim_atomic_open(&g, path, &fp)) == LSIM_OK)
        for (size_t k = 0; k < count; ++k)
            fprintf(fp, "%.6e\n", time[k]);
    snprintf(path, sizeof path, "%s/labels.yaml", dir);
    if (st == LSIM_OK && (st = lsim_atomic_open(&g, path, &fp)) == LSIM_OK)
        lsim_kitti_write_label_map(fp, scene->labels.names.entries, scene->labels.names.count);
    return lsim_atomic_finish(&g, st);
}
