/* The one way lidarsim opens a file to read it: every input (a scene, a point or scan file, a
 * pattern, trajectory, kernel or calibration file, a config, a mesh, a dataset's own files) comes
 * through here.
 *
 * - Only a regular file is read. The open does not block (O_NONBLOCK), so a FIFO or a device
 *   (/dev/zero, a terminal) is refused at once instead of hanging until a writer comes or being
 *   read until memory runs out; a folder is refused too.
 * - Each kind of input has a size bound (the table in file_open.c; README "Robustness" and
 *   docs/formats.md list them). A file above it is refused before anything is read:
 *   "PATH: N bytes, more than the limit of M for a KIND; ...". The stream returned reads no more
 *   than the bound either, so a file that grows while it is read (or a regular file whose size
 *   stat does not give) fails with EFBIG ("File too large") at the bound instead of growing memory.
 * Every failure is LSIM_ERR_IO naming the path and what to give instead (LSIM_ERR_NOT_FOUND for a
 * missing mesh; LSIM_ERR_PARSE for a file over its bound, as the YAML reader always said). */
#ifndef LSIM_CORE_FILE_OPEN_H
#define LSIM_CORE_FILE_OPEN_H

#include "lidarsim.h"

#include <stdint.h>
#include <stdio.h>

typedef enum lsim_input_kind {
    LSIM_INPUT_SCENE,          /* scene YAML (and a fit file's scene) */
    LSIM_INPUT_FIT,            /* a fit file */
    LSIM_INPUT_CALIB_CONFIG,   /* a calibrate/validate config (data.config or YAML) */
    LSIM_INPUT_DATASET_CONFIG, /* a dataset config */
    LSIM_INPUT_POINTS,         /* a point file read back: CSV, PCD, PLY, LAS, KITTI .bin */
    LSIM_INPUT_LABELS,         /* the KITTI .label beside a .bin */
    LSIM_INPUT_SCAN,           /* a real scan: a fit's scan, a calibration scan, pattern from-scan */
    LSIM_INPUT_PATTERN,        /* a beam pattern table (CSV) */
    LSIM_INPUT_TRAJECTORY,     /* a trajectory (CSV) */
    LSIM_INPUT_KERNEL,         /* a beam kernel file */
    LSIM_INPUT_CALIBRATION,    /* a material calibration (`lidarsim calibrate -o`) */
    LSIM_INPUT_UNIT,           /* a real unit's sensor calibration (VeloView XML, ROS YAML, Ouster JSON) */
    LSIM_INPUT_MESH,           /* a mesh file (checked before the importer reads it) */
    LSIM_INPUT_DATASET_STATE,  /* a dataset's own dataset.json and manifest (resume) */
    LSIM_INPUT_DATASET_FRAME,  /* a dataset's own frame file, read back for its size and CRC */
    LSIM_INPUT_RECORDING,      /* a real sensor's recording (pcap of Ouster or Velodyne packets) */
    LSIM_INPUT_OTHER,          /* anything else */
    LSIM_INPUT_KIND_COUNT
} lsim_input_kind;

/* The most bytes read of a `kind` of input, and its name in messages ("scene file"). */
uint64_t lsim_input_max_bytes(lsim_input_kind kind);
const char *lsim_input_name(lsim_input_kind kind);

/* Open `path` to read it as a `kind` ("rb"): a regular file of at most the kind's bound. LSIM_OK
 * with *out (and *size, its size in bytes, when size is not NULL), or the error (*out NULL). */
lsim_status lsim_file_open(lsim_context *ctx, const char *path, lsim_input_kind kind, FILE **out, uint64_t *size);

/* The whole file, as lsim_file_open checks it, in a buffer of *size bytes plus a terminating NUL
 * (free it); never more than the kind's bound, even if the file grows. */
lsim_status lsim_file_read_all(lsim_context *ctx, const char *path, lsim_input_kind kind, char **data,
                               size_t *size);

/* The file descriptor instead of a stream (for mmap: the size is what stat gave, at most the bound). */
lsim_status lsim_file_open_fd(lsim_context *ctx, const char *path, lsim_input_kind kind, int *fd, uint64_t *size);

/* The descriptor for callers without a context: 0, or an errno value (the open's; EISDIR for a
 * folder, EINVAL for a FIFO, socket or device, EFBIG above the kind's bound). */
int lsim_file_open_errno(const char *path, lsim_input_kind kind, int *fd, uint64_t *size);

#endif
