/* `sensor: {calibration: FILE}`: a real unit's calibration file as a sensor. The format is told
 * from the structure, never from words anywhere in the text: a file whose first character is `{`
 * is JSON, parsed, then told by its keys (a top-level "lasers": Velodyne table;
 * beam_altitude_angles: Ouster metadata); `<` is XML (VeloView); anything else is YAML, a ROS
 * velodyne_pointcloud calibration when its top level has `lasers:`. Every reader bounds its work
 * (unit_calibration.h), so no file of up to 16 MiB takes more than a bounded memory. */
#include "sensor/unit_calibration.h"
#include "core/file_open.h"

#include "core/context.h"
#include "core/text.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Through the one opener (core/file_open.h): a regular file of at most 16 MiB (LSIM_INPUT_UNIT;
 * calibration files are a few kilobytes, anything past that is not one), read whole. */
static lsim_status read_whole(lsim_context *ctx, const char *path, char **text, size_t *size)
{
    char *buf = NULL;
    size_t n = 0;
    lsim_status st = lsim_file_read_all(ctx, path, LSIM_INPUT_UNIT, &buf, &n);
    if (st != LSIM_OK)
        return st;
    if (memchr(buf, '\0', n)) {
        free(buf);
        return lsim_fail(ctx, LSIM_ERR_PARSE, "sensor calibration '%s' holds NUL bytes: not a text file (JSON, YAML or XML)",
                         path);
    }
    *text = buf;
    *size = n;
    return LSIM_OK;
}

lsim_status lsim_unit_tables_read(lsim_context *ctx, const char *path, lsim_velodyne_table *velodyne,
                                  lsim_ouster_table *ouster, lsim_unit_kind *kind)
{
    char *text = NULL;
    size_t size = 0;
    lsim_status st = read_whole(ctx, path, &text, &size);
    if (st != LSIM_OK)
        return st;
    const char *p = text + strspn(text, " \t\r\n");
    if (strncmp(p, "\xEF\xBB\xBF", 3) == 0) /* UTF-8 byte order mark */
        p += 3 + strspn(p + 3, " \t\r\n");
    int recognised = 1;
    *kind = LSIM_UNIT_VELODYNE;
    if (*p == '{')
        st = lsim_unit_read_json(ctx, path, text, size, velodyne, ouster, kind);
    else if (*p == '<')
        st = lsim_velodyne_read_xml(ctx, path, text, size, velodyne);
    else
        st = lsim_velodyne_read_yaml(ctx, path, text, size, velodyne, &recognised);
    if (!recognised)
        st = lsim_fail(ctx, LSIM_ERR_PARSE,
                       "%s: not a sensor calibration lidarsim reads: expected an Ouster metadata JSON, a Velodyne table "
                       "as JSON ({\"lasers\": [...]}), ROS velodyne_pointcloud YAML (lasers: [...]) or VeloView XML",
                       path);
    free(text);
    return st;
}

lsim_status lsim_sensor_calibration_read(lsim_context *ctx, const char *path, lsim_sensor_spec *spec)
{
    if (!path || !spec)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_sensor_calibration_read: path and spec must not be NULL");
    lsim_velodyne_table *velodyne = malloc(sizeof *velodyne);
    lsim_ouster_table *ouster = malloc(sizeof *ouster);
    lsim_unit_kind kind = LSIM_UNIT_VELODYNE;
    lsim_status st = !velodyne || !ouster ? lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory reading '%s'", path)
                                          : lsim_unit_tables_read(ctx, path, velodyne, ouster, &kind);
    if (st == LSIM_OK)
        st = kind == LSIM_UNIT_VELODYNE ? lsim_velodyne_spec(ctx, path, velodyne, spec)
                                        : lsim_ouster_spec(ctx, path, ouster, spec);
    free(velodyne);
    free(ouster);
    if (st == LSIM_OK && lsim_sensor_spec_validate(ctx, spec) != LSIM_OK) { /* e.g. a lidar_mode no unit has */
        char msg[LSIM_ERROR_MAX];
        lsim_strlcpy(msg, lsim_context_last_error(ctx), sizeof msg);
        st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s: %s", path, msg);
    }
    return st;
}
