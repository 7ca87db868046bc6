/* Output formats: names, parsing, and detection from a file extension. */
#ifndef LSIM_FORMATS_FORMAT_H
#define LSIM_FORMATS_FORMAT_H

#include "lidarsim.h"

#include <stddef.h>

/* The valid --format names, for messages: "pcd, pcd-ascii, ply, kitti, csv, las, mcap" (static). */
const char *lsim_format_valid_names(void);


/* lsim_format_parse with an error message in ctx (naming the value and the valid names).
 * Names are matched case-insensitively. LSIM_ERR_INVALID_ARGUMENT on an unknown name. */
lsim_status lsim_format_parse_ctx(lsim_context *ctx, const char *name, lsim_format *out);

/* Format from the path's extension: .pcd (PCD binary), .ply, .bin (KITTI), .csv, .las, .mcap; case-insensitive.
 * LSIM_ERR_INVALID_ARGUMENT naming the extension and the valid ones when it is unknown or missing. */
lsim_status lsim_format_from_path(lsim_context *ctx, const char *path, lsim_format *out);


/* 1 if the first bytes of a file are a pcap or pcapng magic number: lsim_points_read refuses a
 * recording given as a point file, src/recording/pcap_read.c a file that is not a capture. */
int lsim_pcap_magic(const unsigned char *head, size_t size);

/* lsim_format_name and lsim_format_resolve: include/lidarsim.h (public). */

#endif
