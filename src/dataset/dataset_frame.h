/* One frame of a dataset run (dataset_run.h), done by a worker: the sequence's scene and sensor
 * (built when its first frame comes, kept for its later frames), the noisy scan, the clean scan
 * (noise and drop-outs off, the same seed, frame index and time), the clean twin, the frame's files
 * written atomically and its manifest line. The runner (dataset_run.c) gives each worker thread
 * its own worker, so that frames run side by side, each on its own scene, engine and workspace
 * (the scene's lock is never contended), and appends the lines to the manifest in frame order. */
#ifndef LSIM_DATASET_DATASET_FRAME_H
#define LSIM_DATASET_DATASET_FRAME_H

#include "dataset/dataset_run.h"
#include "formats/writers.h"
#include "pipeline/frame.h"

#include <pthread.h>

/* The KITTI files' columns: what the scans fill at least, and the clean twin's. */
#define LSIM_DS_KITTI_FIELDS                                                                                    \
    (LSIM_FIELD_BIT(LSIM_FIELD_X) | LSIM_FIELD_BIT(LSIM_FIELD_Y) | LSIM_FIELD_BIT(LSIM_FIELD_Z) |               \
     LSIM_FIELD_BIT(LSIM_FIELD_REFLECTIVITY) | LSIM_FIELD_BIT(LSIM_FIELD_LABEL) |                               \
     LSIM_FIELD_BIT(LSIM_FIELD_INSTANCE) | LSIM_FIELD_BIT(LSIM_FIELD_TIME))

/* What every worker of a run reads and no one changes while they run. */
typedef struct lsim_ds_plan {
    lsim_context *ctx; /* the dataset's: building a sequence and its text files use it, under `lock` */
    pthread_mutex_t *lock;
    const lsim_dataset *dataset;
    const char *out_dir;
    lsim_format points_format; /* the run's (LSIM_FORMAT_AUTO: none) */
    uint64_t seed;
    size_t frames, per;
    uint32_t fields;     /* the scans' point fields */
    int threads;         /* each frame's scan threads */
    const lsim_dataset_manifest_scan *manifest; /* buf and buf_size unused: the worker's own */
} lsim_ds_plan;

typedef struct lsim_ds_worker {
    const lsim_ds_plan *plan;
    lsim_context *ctx; /* the worker's own: its scans' and frame files' errors (its scene and sensor
                          report to it once built) */
    long sequence;     /* built: scene, sensor (-1: none) */
    lsim_scene *scene;
    lsim_sensor *sensor;
    lsim_frame_workspace ws;
    lsim_points *noisy, *clean, *twin;
    uint8_t *count_noisy, *count_clean;
    size_t *first_clean;
    size_t beams;
    unsigned char *buf; /* KITTI rows, and the files read back for the manifest */
} lsim_ds_worker;

#define LSIM_DS_WORKER_BUF_BYTES (16 * LSIM_KITTI_ROWS)

lsim_status lsim_ds_worker_init(lsim_ds_worker *w, const lsim_ds_plan *plan);
void lsim_ds_worker_free(lsim_ds_worker *w);
/* Build sequence q (its scene and sensor), its folders and its text files, unless it is the one
 * built. Takes the plan's lock; an error's message is in w->ctx. */
lsim_status lsim_ds_worker_sequence(lsim_ds_worker *w, size_t q);
/* Frame k whole: scans, files, and its manifest line (line[LSIM_MANIFEST_LINE_BYTES], *length);
 * *points the noisy points written. An error's message is in w->ctx. */
lsim_status lsim_ds_worker_frame(lsim_ds_worker *w, size_t k, char *line, size_t *length, size_t *points);

#endif
