/* The dataset runner: frames of a dataset config (dataset.h) scanned noisy and clean and written
 * as a SemanticKITTI tree, frame by frame, each frame atomically, recorded in a manifest so that
 * a run killed at any point resumes with the missing frames only.
 *
 * OUT/
 *   dataset.json                    config (path and text), seed, frame counts, lidarsim version
 *   labels.yaml                     id -> class name (SemanticKITTI ids; others from 100 on)
 *   manifest/                       one append-only list of finished frames per writer
 *   sequences/SS/                   SS = the sequence, two digits (three from 100 on)
 *     calib.txt poses.txt times.txt labels.yaml
 *     velodyne/NNNNNN.bin           noisy points: x y z reflectance, float32 LE, sensor frame
 *     labels/NNNNNN.label           uint32 LE per noisy point: semantic id | instance id << 16
 *     time/NNNNNN.bin               float32 LE per noisy point: firing time from the frame start, s
 *     clean/NNNNNN.bin .label .time the clean scan (no noise, no drop-outs), same layout; its
 *                                   first N rows are the noisy points' clean twins, row i of
 *                                   velodyne <-> row i of clean (NaN rows where the clean scan has
 *                                   no such echo), then the echoes the noisy scan dropped
 *     points/NNNNNN.EXT             with a points format (pcd, ply, las, csv): the noisy points,
 *                                   velodyne's rows in order, with every field the format holds
 *
 * Frame k is written by the writer that owns it (lsim_dataset_owns: blocks of consecutive frames
 * of a sequence dealt out to shards, then to MPI ranks within a shard). Every frame is a function of (config, seed, k) alone, so
 * the tree is the same bytes whatever the split, the thread count or the resumes. */
#ifndef LSIM_DATASET_DATASET_RUN_H
#define LSIM_DATASET_DATASET_RUN_H

#include "dataset/dataset.h"

/* lsim_dataset_run_options, lsim_dataset_run_stats and lsim_dataset_run (the public API:
 * include/lidarsim.h); the progress (lsim_progress_mode) goes to stderr. */

/* Who writes frame k. Frames are dealt out in blocks of consecutive frames of one sequence, so
 * that a writer builds each sequence's scene (and its engine) once for several frames: a sequence
 * of `per` frames is cut into ceil(4 writers / sequences) blocks (at least 1) of equal length,
 * blocks are numbered through the dataset, and block b goes to shard b % shards and, within the
 * shard, to rank (b / shards) % ranks. With many sequences a block is a whole sequence; with few,
 * each is cut so that every writer still gets work. */
typedef struct lsim_dataset_split {
    size_t per, block, blocks_per_sequence;
    unsigned shard, shards, rank, ranks;
} lsim_dataset_split;

static inline lsim_dataset_split lsim_dataset_split_make(size_t frames, size_t per, unsigned shard, unsigned shards,
                                                         unsigned rank, unsigned ranks)
{
    lsim_dataset_split s = {per, per, 1, shard, shards, rank, ranks};
    const size_t sequences = (frames + per - 1) / per, writers = (size_t)shards * ranks;
    size_t cut = (4 * writers + sequences - 1) / sequences;
    cut = cut < 1 ? 1 : cut > per ? per : cut;
    s.block = (per + cut - 1) / cut;
    s.blocks_per_sequence = (per + s.block - 1) / s.block;
    return s;
}

/* 1 if the split's writer owns frame k. */
static inline int lsim_dataset_owns(const lsim_dataset_split *s, size_t k)
{
    const size_t b = (k / s->per) * s->blocks_per_sequence + (k % s->per) / s->block;
    return b % s->shards == s->shard && (b / s->shards) % s->ranks == s->rank;
}

/* The tree's files (dataset_files.c). make_dirs: OUT (with missing parents), its manifest and
 * sequences folders and, unless sequence is SIZE_MAX, the sequence's folders (points/ when `points`
 * is a format, not LSIM_FORMAT_AUTO). info->points_format is the run's (resolved) points format:
 * dataset.json records it when there is one. */
lsim_status lsim_dataset_make_dirs(lsim_context *ctx, const char *out, size_t sequence, lsim_format points);
/* LSIM_OK if OUT has no dataset.json yet or one that this run would write byte for byte; otherwise
 * an error naming it and what differs (points format, seed, frames, config): a resume must not mix
 * datasets. */
lsim_status lsim_dataset_check_root(lsim_context *ctx, const char *out, const lsim_dataset_info *info, uint64_t seed,
                                    size_t frames);
lsim_status lsim_dataset_write_root(lsim_context *ctx, const char *out, const lsim_dataset_info *info,
                                    uint64_t seed, size_t frames, const lsim_scene *scene0);
/* calib.txt, poses.txt (relative to the sequence's first frame), times.txt, labels.yaml of a
 * sequence with `count` frames: pose[12 k ...] and time[k] of each. */
lsim_status lsim_dataset_write_sequence(lsim_context *ctx, const char *out, size_t sequence, size_t count,
                                        const double *pose, const double *time, const lsim_scene *scene);
/* Before any work: LSIM_OK when no file this writer would write (the root and sequence text
 * files, the frames it owns) is a file the run reads (lsim_context_check_output); otherwise the
 * error naming both. Only folders that exist are looked into (a fresh OUT costs one stat). */
lsim_status lsim_dataset_check_planned(lsim_context *ctx, const char *out, size_t frames, size_t per,
                                       lsim_format points, const lsim_dataset_split *split);
/* "OUT/sequences/SS" */
void lsim_dataset_sequence_dir(char *buf, size_t size, const char *out, size_t sequence);

/* A frame's files, their paths in the sequence folder in writing order: velodyne/NNNNNN.bin,
 * labels/NNNNNN.label, time/NNNNNN.bin, clean/NNNNNN.bin, .label, .time and, with a points format,
 * points/NNNNNN.EXT. Returns their count (6 or 7). */
#define LSIM_DATASET_FRAME_FILES 7
#define LSIM_DATASET_NAME_BYTES 48
size_t lsim_dataset_frame_files(size_t index, lsim_format points, char name[LSIM_DATASET_FRAME_FILES][LSIM_DATASET_NAME_BYTES]);

/* The manifest (dataset_manifest.c): what a writer checks its lines against. */
typedef struct lsim_dataset_manifest_scan {
    const char *out;
    size_t frames, per;
    lsim_format points;              /* the run's points format (LSIM_FORMAT_AUTO: none) */
    const lsim_dataset_split *split; /* only the frames this writer owns are checked */
    unsigned char *buf;              /* for reading the files back */
    size_t buf_size;
} lsim_dataset_manifest_scan;
/* What the manifest says of a frame this writer owns. */
enum {
    LSIM_MANIFEST_ABSENT = 0,    /* not listed: to write */
    LSIM_MANIFEST_DONE = 1,      /* listed, and its files match the line: skipped */
    LSIM_MANIFEST_DAMAGED = 2,   /* listed, but a file is missing, resized or changed: written again */
    LSIM_MANIFEST_UNCHECKED = 3  /* listed by an older lidarsim without sizes and CRCs: written again */
};
/* state[k] (m->frames entries) for every frame; frames other writers own stay ABSENT. */
lsim_status lsim_dataset_manifest_read(lsim_context *ctx, const lsim_dataset_manifest_scan *m, unsigned char *state);
/* This writer's list: opened for appending (created if missing). */
lsim_status lsim_dataset_manifest_open(lsim_context *ctx, const char *out, const lsim_dataset_run_options *o,
                                       int *fd);
/* A frame's manifest line: its files read back (through buf) for their sizes and CRCs, the line
 * (with its newline) into line[LSIM_MANIFEST_LINE_BYTES], its length in *length. Any thread, each
 * with its own buf. */
#define LSIM_MANIFEST_LINE_BYTES 1024 /* a line of ours: 7 files of at most ~45 characters each, and the frame */
lsim_status lsim_dataset_manifest_line(lsim_context *ctx, const lsim_dataset_manifest_scan *m, size_t frame,
                                      unsigned char *buf, size_t buf_size, char *line, size_t *length);
/* Append a frame's line to this writer's list (one write) and fsync the list. */
lsim_status lsim_dataset_manifest_append(lsim_context *ctx, int fd, size_t frame, const char *line, size_t length);

/* Leftovers of killed writers (dataset_clean.c). lsim_dataset_lock takes a lock on OUT/manifest/
 * for the run (*fd, -1 where locks are not supported): exclusive first, and when that was granted
 * (no other writer runs in OUT) *alone is 1; then shared, so that writers run side by side.
 * lsim_dataset_clean removes the atomic writer's temporary names ("NAME.tmp.XXXXXX", output/atomic_file.h)
 * of the tree's own files: every one when `alone`, otherwise those of the frames the split owns
 * (another writer's temporary files may be in use). Regular files of exactly that pattern only;
 * anything else in OUT stays. *removed counts them. */
void lsim_dataset_lock(const char *out, int *fd, int *alone);
lsim_status lsim_dataset_clean(lsim_context *ctx, const char *out, size_t per, const lsim_dataset_split *split,
                               int alone, size_t *removed);

#endif
