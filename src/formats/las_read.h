/* LAS 1.0 to 1.4 (point formats 0 to 10) back into a point buffer, for lsim_points_read
 * (formats/las_read.c gives what is read from where). */
#ifndef LSIM_FORMATS_LAS_READ_H
#define LSIM_FORMATS_LAS_READ_H

#include "lidarsim.h"

#include <stdint.h>

/* The points of the LAS file `path`, with the fields of `fields` (a LSIM_FIELD_BIT mask, x y z
 * included) that the file holds. LSIM_ERR_IO (cannot open or read), LSIM_ERR_PARSE (the header,
 * a VLR or a count disagrees with the file: named), LSIM_ERR_OUT_OF_MEMORY. */
lsim_status lsim_las_read(lsim_context *ctx, const char *path, uint32_t fields, lsim_points **out);

#endif
