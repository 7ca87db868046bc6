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
/* "OUT/sequences/SS" */
void lsim_dataset_sequence_dir(char *buf, size_t size, const char *out, size_t sequence);

/* The manifest (dataset_manifest.c): done[k] = 1 for every frame any writer recorded. */
lsim_status lsim_dataset_manifest_read(lsim_context *ctx, const char *out, size_t frames, unsigned char *done);
/* This writer's list: opened for appending (created if missing). */
lsim_status lsim_dataset_manifest_open(lsim_context *ctx, const char *out, const lsim_dataset_run_options *o,
                                       int *fd);
lsim_status lsim_dataset_manifest_add(lsim_context *ctx, int fd, size_t frame);

#endif
