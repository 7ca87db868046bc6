/* Checks of a point file output before a long run, and the removal of a point file written earlier
 * (include/lidarsim.h: lsim_points_check_output, lsim_points_file_remove; whether any file can be
 * written, lsim_path_check_writable, is output/atomic_group.c's). */
#include "core/context.h"
#include "formats/format.h"
#include "formats/writers.h"
#include "output/atomic_file.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int is_stdout(const char *path) { return strcmp(path, "-") == 0; }

lsim_status lsim_points_check_output(lsim_context *ctx, const char *path, lsim_format requested, lsim_format *out)
{
    if (!path)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_points_check_output: path must not be NULL");
    if (is_stdout(path) && requested == LSIM_FORMAT_KITTI)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "KITTI output cannot go to standard output (-o -): it is three files (.bin, .label and "
                         ".labels.yaml); give a .bin path, or --format pcd, pcd-ascii, ply or csv");
    if (is_stdout(path) && requested == LSIM_FORMAT_LAS)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "LAS output cannot go to standard output (-o -): its header's point counts and bounds are "
                         "written at the end, which needs a file that can seek; give a .las path, or --format pcd, "
                         "pcd-ascii, ply, csv or mcap");
    lsim_format format;
    lsim_status st = lsim_format_resolve(ctx, path, requested, &format);
    if (st != LSIM_OK)
        return st;
    if (format == LSIM_FORMAT_PCAP && (is_stdout(path) || lsim_atomic_is_direct(path)))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "a pcap cannot go to '%s' (standard output, a device or a FIFO): an Ouster pcap comes with "
                         "its metadata JSON beside it; give a file name (X.pcap)", path);
    if (format == LSIM_FORMAT_LAS && lsim_atomic_is_direct(path))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "LAS output '%s' is a device or FIFO, which cannot seek: a LAS header's point counts and "
                         "bounds are written at the end; give a regular file, or write MCAP, PCD, PLY or CSV", path);
    size_t n = strlen(path);
    if (format == LSIM_FORMAT_KITTI && (n < 5 || strcasecmp(path + n - 4, ".bin") != 0))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "KITTI output '%s' must end in .bin (the .label and .labels.yaml files are written beside "
                         "it)", path);
    if (out)
        *out = format;
    return LSIM_OK;
}

lsim_status lsim_points_file_remove(lsim_context *ctx, const char *path, lsim_format format)
{
    if (!path || !*path)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_points_file_remove: path must be a file name");
    lsim_atomic_remove(path);
    if (format == LSIM_FORMAT_AUTO && lsim_format_resolve(NULL, path, format, &format) != LSIM_OK)
        return LSIM_OK; /* no point-file extension: the file alone */
    size_t n = strlen(path);
    if (format != LSIM_FORMAT_KITTI || n < 5 || strcasecmp(path + n - 4, ".bin") != 0)
        return LSIM_OK;
    static const char *const suffixes[] = {".label", ".labels.yaml"};
    for (int i = 0; i < 2; ++i) {
        char *other = lsim_kitti_sibling(path, suffixes[i]);
        if (!other)
            return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory removing '%s'", path);
        lsim_atomic_remove(other);
        free(other);
    }
    return LSIM_OK;
}
