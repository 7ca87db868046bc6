/* The point-cloud writers behind lsim_points_write and lsim_scene_scan_write.
 *
 * A cloud is written as a stream: lsim_point_stream_begin (the files, opened atomically through
 * output/atomic_file.h, and the header, which needs the total point count), then
 * lsim_point_stream_append once per slice of points in order, then lsim_point_stream_finish,
 * which commits every file or, on any failure, leaves none. A whole point buffer is one slice, so
 * both paths write the same bytes with the same code. The per-format pieces (headers, KITTI rows
 * and label map) are below; the row packing is formats/field_io.h's. */
#ifndef LSIM_FORMATS_WRITERS_H
#define LSIM_FORMATS_WRITERS_H

#include "output/atomic_file.h"
#include "points/points.h"

#include <stdio.h>

typedef struct lsim_las_writer lsim_las_writer;   /* formats/las.c */
typedef struct lsim_mcap_writer lsim_mcap_writer; /* formats/mcap.c */

/* Coordinates, which LAS and MCAP always hold. */
#define LSIM_XYZ_FIELDS (LSIM_FIELD_BIT(LSIM_FIELD_X) | LSIM_FIELD_BIT(LSIM_FIELD_Y) | LSIM_FIELD_BIT(LSIM_FIELD_Z))
/* What a LAS file can hold (formats/las.c): the point record's fields and the extra bytes. */
#define LSIM_LAS_FIELDS (LSIM_XYZ_FIELDS | LSIM_FIELD_BIT(LSIM_FIELD_REFLECTIVITY) | \
                         LSIM_FIELD_BIT(LSIM_FIELD_ELEVATION) | LSIM_FIELD_BIT(LSIM_FIELD_TIME) | \
                         LSIM_FIELD_BIT(LSIM_FIELD_RETURN_INDEX) | LSIM_FIELD_BIT(LSIM_FIELD_NUM_RETURNS) | \
                         LSIM_FIELD_BIT(LSIM_FIELD_LABEL) | LSIM_FIELD_BIT(LSIM_FIELD_INSTANCE) | \
                         LSIM_FIELD_BIT(LSIM_FIELD_EPW) | LSIM_FIELD_BIT(LSIM_FIELD_RING) | \
                         LSIM_FIELD_BIT(LSIM_FIELD_RANGE))
/* What an MCAP PointCloud2 can hold (formats/mcap.c). */
#define LSIM_MCAP_FIELDS (LSIM_XYZ_FIELDS | LSIM_FIELD_BIT(LSIM_FIELD_INTENSITY) | LSIM_FIELD_BIT(LSIM_FIELD_TIME) | \
                          LSIM_FIELD_BIT(LSIM_FIELD_LABEL) | LSIM_FIELD_BIT(LSIM_FIELD_INSTANCE) | \
                          LSIM_FIELD_BIT(LSIM_FIELD_RING))

/* What a pcap of a sensor's packets is made from (src/recording/pcap_write.h): each point's beam
 * (ring, time), range, intensity, reflectivity and echo. */
#define LSIM_PCAP_FIELDS (LSIM_FIELD_BIT(LSIM_FIELD_RANGE) | LSIM_FIELD_BIT(LSIM_FIELD_INTENSITY) | \
                          LSIM_FIELD_BIT(LSIM_FIELD_REFLECTIVITY) | LSIM_FIELD_BIT(LSIM_FIELD_RING) | \
                          LSIM_FIELD_BIT(LSIM_FIELD_TIME) | LSIM_FIELD_BIT(LSIM_FIELD_RETURN_INDEX))

typedef struct lsim_point_stream {
    lsim_atomic_group group; /* must not move while files are open: keep the stream in place */
    lsim_atomic_group *files; /* where the files are opened: &group, or the caller's (begin_in) */
    lsim_context *ctx;
    const char *path;        /* as given (not copied: it must outlive the stream) */
    lsim_format format;      /* resolved, never AUTO */
    FILE *fp, *label_fp;     /* the cloud; KITTI's .label */
    unsigned char *buf;      /* KITTI row buffer (16 x LSIM_KITTI_ROWS bytes) */
    size_t expected, written; /* points announced in the header, points appended so far */
    uint32_t columns;         /* the fields written (PCD, PLY, CSV); KITTI's layout is fixed */
    lsim_las_writer *las;     /* LAS: quantisation, bounds and counts, patched into the header at the end */
    lsim_mcap_writer *mcap;   /* MCAP: records, sequence numbers and statistics */
} lsim_point_stream;

/* Open the output files of `format` (resolved: not AUTO) for `count` points with the fields of
 * `columns` (LSIM_FIELD_BIT mask; PCD, PLY, CSV, LAS and MCAP: the columns written, in field
 * order; KITTI: its fixed layout, whatever `columns` says) and write the header. The frame's
 * description comes from `frame` (its points are not read): PCD's VIEWPOINT from its viewpoint;
 * PCD and PLY a comment line giving its sensor_pose, the sensor's pose at the frame start, when it
 * is `timed`; KITTI's .labels.yaml from its labels; LAS its viewpoint (the coordinate offset) and
 * scan_time (GPS time); MCAP its scan_time (stamps), frame and sensor_pose (the TF).
 * Always call lsim_point_stream_finish afterwards, whatever this returns. */
lsim_status lsim_point_stream_begin(lsim_point_stream *s, lsim_context *ctx, const char *path, lsim_format format,
                                    uint32_t columns, size_t count, const lsim_points *frame);
/* lsim_point_stream_begin with the files opened in the caller's atomic group (its context gets the
 * messages), so that they appear together with the group's other files or not at all:
 * lsim_point_stream_finish then completes the file (LAS: the header's counts and bounds) but does
 * not commit; the caller passes its status on to lsim_atomic_finish(group, ...). The group must
 * have room for the format's files (one; KITTI three) within LSIM_ATOMIC_MAX. */
lsim_status lsim_point_stream_begin_in(lsim_point_stream *s, lsim_atomic_group *group, const char *path,
                                       lsim_format format, uint32_t columns, size_t count, const lsim_points *frame);
/* Start the next frame of `count` points (described by `frame`) in the same file, after exactly
 * the announced count of the current one: MCAP only (others hold one frame). */
lsim_status lsim_point_stream_next_frame(lsim_point_stream *s, size_t count, const lsim_points *frame);
/* Append the next points->count points (the columns the format writes must be present). */
lsim_status lsim_point_stream_append(lsim_point_stream *s, const lsim_points *points);
/* Commit when `status` is LSIM_OK and exactly the announced count was appended, else discard
 * every file; frees the stream's buffers. Returns the resulting status. A stream begun in the
 * caller's group (begin_in) is completed but neither committed nor discarded: the caller's
 * lsim_atomic_finish does that with the status returned here. */
lsim_status lsim_point_stream_finish(lsim_point_stream *s, lsim_status status);

/* PCD v0.7 header, the fields of `columns`; binary != 0: "DATA binary" (packed rows), else "DATA ascii".
 * sensor_pose (may be NULL): "# sensor_pose_at_frame_start x y z qw qx qy qz" after the first line. */
void lsim_pcd_header(FILE *fp, uint32_t columns, size_t count, const double viewpoint[7], const double *sensor_pose,
                     int binary);
/* PLY 1.0 binary_little_endian header: one vertex element with the fields of `columns` as properties.
 * sensor_pose (may be NULL): "comment sensor_pose_at_frame_start x y z qw qx qy qz". */
void lsim_ply_header(FILE *fp, uint32_t columns, size_t count, const double *sensor_pose);
/* CSV header line: the names of the fields of `columns`. */
void lsim_csv_header(FILE *fp, uint32_t columns);

/* LAS 1.4 (formats/las.c). lsim_las_begin refuses targets that cannot seek ("-", FIFOs, devices): the
 * header's counts and bounds are written at the end. lsim_las_end patches them (status LSIM_OK
 * only) and frees the writer. */
lsim_status lsim_las_begin(lsim_point_stream *s, const lsim_points *frame);
lsim_status lsim_las_append(lsim_point_stream *s, const lsim_points *points);
lsim_status lsim_las_end(lsim_point_stream *s, lsim_status status);

/* MCAP (formats/mcap.c): lsim_mcap_begin writes the magic, Header, Schema and Channel records and the
 * first frame's TF and PointCloud2 message head; lsim_mcap_frame closes the current PointCloud2
 * and starts the next frame; lsim_mcap_end (status LSIM_OK) closes the last frame and writes the
 * Data End, the summary, the Footer and the magic; it frees the writer either way. */
lsim_status lsim_mcap_begin(lsim_point_stream *s, const lsim_points *frame);
lsim_status lsim_mcap_frame(lsim_point_stream *s, const lsim_points *frame);
lsim_status lsim_mcap_append(lsim_point_stream *s, const lsim_points *points);
lsim_status lsim_mcap_end(lsim_point_stream *s, lsim_status status);

/* KITTI rows packed per fwrite. */
#define LSIM_KITTI_ROWS 4096
/* LSIM_OK if `path` can hold a KITTI .bin (a file name ending in .bin, not "-"). */
lsim_status lsim_kitti_check_path(lsim_context *ctx, const char *path);
/* LSIM_OK if every instance id fits the 16 bits of a .label. */
lsim_status lsim_kitti_check_instances(lsim_context *ctx, const lsim_points *points, const char *path);
/* The points' .bin rows (x, y, z, reflectivity clamped to [0, 1]) and .label words. */
void lsim_kitti_write_rows(const lsim_points *points, FILE *bin_fp, FILE *label_fp, unsigned char *buf);
/* The .labels.yaml id -> name map. */
void lsim_kitti_write_label_map(FILE *fp, const lsim_label_entry *labels, size_t count);
/* "<stem><suffix>" for a KITTI "<stem>.bin" path (".label", ".labels.yaml"); malloc'd, NULL if
 * out of memory. */
char *lsim_kitti_sibling(const char *bin_path, const char *suffix);

#endif
