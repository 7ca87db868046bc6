/* What lsim_points_read (formats/points_read.c) adds to the columns it read:
 *
 * - the sensor's viewpoint: a PCD's VIEWPOINT line (tx ty tz qw qx qy qz; lidarsim writes the
 *   sensor pose there for a world-frame scan and the identity for a sensor-frame one), kept in
 *   the points' viewpoint, where lsim_points_render finds it. Other formats do not record it (LAS
 *   only its rounded position as the coordinate offset): identity.
 * - a dataset frame's labels: a frame of a SemanticKITTI tree (`lidarsim dataset`, or the real
 *   one) `.../velodyne/NNNNNN.bin` (or `.../points/NNNNNN.EXT`) keeps its labels in
 *   `.../labels/NNNNNN.label`; when the file gave no label column and label or instance is asked
 *   for, that file is read (uint32 a point: label | instance << 16), and it must hold as many
 *   points as the frame. */
#ifndef LSIM_FORMATS_POINTS_EXTRAS_H
#define LSIM_FORMATS_POINTS_EXTRAS_H

#include "lidarsim.h"

#include <stdint.h>

/* Both of the above for the points just read from `path` with `fields` asked for. LSIM_ERR_PARSE
 * ("PATH:LINE: ..." for a malformed VIEWPOINT; a label file of another point count, naming both
 * files), LSIM_ERR_IO (the label file cannot be opened: lsim_file_open's message),
 * LSIM_ERR_OUT_OF_MEMORY. */
lsim_status lsim_points_read_extras(lsim_context *ctx, const char *path, uint32_t fields, lsim_points *points);

#endif
