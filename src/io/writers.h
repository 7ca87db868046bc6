/* The point-cloud writers behind lsim_points_write (one file each). Each writes atomically
 * (io/atomic_file.h): on failure no output file is left behind. `points` is already validated. */
#ifndef LSIM_IO_WRITERS_H
#define LSIM_IO_WRITERS_H

#include "points/points.h"

/* PCD v0.7, every field; binary != 0: "DATA binary" (little-endian packed rows), else "DATA ascii". */
lsim_status lsim_write_pcd(const lsim_points *points, const char *path, int binary);
/* PLY 1.0 binary_little_endian, one vertex element with every field as a property. */
lsim_status lsim_write_ply(const lsim_points *points, const char *path);
/* KITTI: path must end in .bin; also writes <stem>.label and <stem>.labels.yaml. */
lsim_status lsim_write_kitti(const lsim_points *points, const char *path);
/* "<stem><suffix>" for a KITTI "<stem>.bin" path (".label", ".labels.yaml"); malloc'd, NULL if
 * out of memory. */
char *lsim_kitti_sibling(const char *bin_path, const char *suffix);
/* CSV: header of field names, one row per point. */
lsim_status lsim_write_csv(const lsim_points *points, const char *path);

#endif
