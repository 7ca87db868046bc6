/* Dataset generation (issue 13; the raster paper §4): a config names a sensor, an object library,
 * placement rules, pose jitter, a trajectory and moving actors; every sequence is one random
 * scene driven through by the sensor, every frame one scan of it (noisy and clean).
 *
 * Two halves behind this header:
 *   - the generator (dataset_config.c, dataset_library.c, dataset_layout.c, dataset_pose.c): the config, and
 *     for a (seed, sequence) the scene and the sensor, for a (seed, sequence, index) the frame's
 *     sensor pose and scan time. Everything is drawn from the counter-based generator keyed by
 *     (seed, sequence, object/frame, draw), so any frame can be built alone, in any order, on any
 *     shard or rank, and comes out the same.
 *   - the runner (dataset_run.c, dataset_write.c): frames to scans to the SemanticKITTI tree,
 *     manifest and resume, shards and MPI ranks, progress.
 *
 * Frames are numbered globally 0 .. frames-1; frame k is frame k % frames_per_sequence of
 * sequence k / frames_per_sequence.
 *
 * The config's keys: examples/dataset/README.md (example: examples/dataset/dataset.yaml). */
#ifndef LSIM_DATASET_DATASET_H
#define LSIM_DATASET_DATASET_H

#include "lidarsim.h"

#include <stddef.h>
#include <stdint.h>

/* lsim_dataset, lsim_dataset_load and lsim_dataset_destroy: the public API (include/lidarsim.h). */

typedef struct lsim_dataset_info {
    size_t frames;              /* the config's `frames` (--frames overrides it in the runner) */
    size_t frames_per_sequence; /* frames of one sequence: one random scene, one drive (>= 1) */
    uint64_t seed;              /* the config's `seed` (default 0; --seed overrides it) */
    lsim_format points_format;  /* the config's `points_format` (--points-format overrides it);
                                   LSIM_FORMAT_AUTO: none */
    double frame_period_s;      /* scene-clock time between a sequence's frames (1 / the sensor's rate) */
    const char *path;           /* the config file as given */
    const char *text;           /* the config file's bytes (for dataset.json), text_len of them */
    size_t text_len;
} lsim_dataset_info;

void lsim_dataset_get_info(const lsim_dataset *dataset, lsim_dataset_info *out);

/* The formats a dataset's point files may have (`points_format`, --points-format), for messages. */
#define LSIM_DATASET_POINTS_FORMATS "pcd, ply, las, csv"
/* 1 if `format` is one of them: PCD (binary), PLY, LAS, CSV. */
static inline int lsim_dataset_points_format_ok(lsim_format format)
{
    return format == LSIM_FORMAT_PCD || format == LSIM_FORMAT_PLY || format == LSIM_FORMAT_LAS ||
           format == LSIM_FORMAT_CSV;
}

/* The scene and the sensor of one sequence (deterministic in (seed, sequence)): the layout's
 * ground and buildings, the library's objects placed by the rules (no overlaps), the moving
 * actors with their motions, the sensor on its trajectory. Labels and instance ids: every placed
 * object has its library entry's label and an instance id of its own
 * (the scene numbers objects 1, 2, ... in the order they are added: ground, buildings, then the
 * library's entries in order). The sensor carries the sequence's drive as a keyframed trajectory
 * (lsim_sensor_set_trajectory) with the config's mount as its pose. The caller destroys both.
 * LSIM_ERR_INVALID_ARGUMENT with "PATH:LINE: library[i].count: ..." when an object cannot be
 * placed (no room after a bounded number of tries); sequence must be <= UINT32_MAX. The dataset
 * is only read, but errors are reported into its context: one thread at a time per context. */
lsim_status lsim_dataset_build_sequence(const lsim_dataset *dataset, uint64_t seed, size_t sequence,
                                        lsim_scene **scene, lsim_sensor **sensor);

/* Frame `index` (0 .. frames_per_sequence - 1) of a sequence built by lsim_dataset_build_sequence:
 * sets the sensor's mount pose for this frame (the trajectory's pose plus this frame's jitter,
 * drawn from (seed, sequence, index)) and returns the frame's scan time on the scene clock
 * (index x frame_period_s) and the sensor's world pose at that time as a row-major 3 x 4
 * [R | t] (sensor -> world). The jitter is uniform in +-jitter.position_m per axis and
 * +-jitter.rotation_deg per roll / pitch / yaw, added to the mount (so it is in the body frame). */
lsim_status lsim_dataset_place_frame(const lsim_dataset *dataset, uint64_t seed, size_t sequence, size_t index,
                                     lsim_sensor *sensor, double *scan_time, double pose[12]);

#endif
