/* JSON calibration files (json-c): Velodyne per-laser tables ({"lasers": [...],
 * "distance_resolution": ...}, the velodyne_pointcloud fields) and Ouster sensor metadata (the
 * flat layout of firmware 2.x, or the nested beam_intrinsics / lidar_intrinsics /
 * config_params of newer SDKs). Messages name the file, the JSON path and the value; a syntax
 * error names the line and column. */
#include "sensor/unit_calibration.h"

#include "core/context.h"
#include "core/text.h"

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Line and column of byte `at` of the text. */
static void json_where(const char *text, size_t size, size_t at, size_t *line, size_t *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < at && i < size; ++i, ++*col)
        if (text[i] == '\n') {
            ++*line;
            *col = 0;
        }
}

/* Refuse a text of more than LSIM_UNIT_JSON_MAX_VALUES values before json-c builds them (json-c
 * spends ~100 bytes a value: 8 M zeros in 16 MiB would take ~1 GB). Every value but the first
 * follows a `[`, `{` or `,` outside strings, so their count bounds the values. */
static lsim_status json_bound(lsim_context *ctx, const char *path, const char *text, size_t size)
{
    size_t values = 1;
    int in_string = 0;
    for (size_t i = 0; i < size; ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                in_string = 0;
        } else if (c == '"') {
            in_string = 1;
        } else if ((c == ',' || c == '[' || c == '{') && ++values > LSIM_UNIT_JSON_MAX_VALUES) {
            size_t line, col;
            json_where(text, size, i, &line, &col);
            return lsim_fail(ctx, LSIM_ERR_PARSE,
                             "%s:%zu:%zu: more than %d JSON values; a sensor calibration has a few thousand (refused "
                             "to bound memory and time)", path, line, col, LSIM_UNIT_JSON_MAX_VALUES);
        }
    }
    return LSIM_OK;
}

static lsim_status json_parse(lsim_context *ctx, const char *path, const char *text, size_t size,
                              json_object **out)
{
    lsim_status bounded = json_bound(ctx, path, text, size);
    if (bounded != LSIM_OK)
        return bounded;
    json_tokener *tok = json_tokener_new_ex(64);
    if (!tok)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory reading %s", path);
    json_object *root = json_tokener_parse_ex(tok, text, (int)size);
    enum json_tokener_error err = json_tokener_get_error(tok);
    size_t at = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    size_t rest = at;
    while (rest < size && strchr(" \t\r\n", text[rest]))
        ++rest;
    if (root && err == json_tokener_success && rest < size) {
        err = json_tokener_error_parse_unexpected;
        at = rest;
    }
    if (!root || err != json_tokener_success) {
        json_object_put(root);
        size_t line, col;
        json_where(text, size, at, &line, &col);
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu:%zu: not valid JSON (%s)", path, line, col,
                         err == json_tokener_continue ? "the file ends inside a value" : json_tokener_error_desc(err));
    }
    *out = root;
    return LSIM_OK;
}

/* 1 if v is a JSON number (an integer or not). */
static int is_number(json_object *v)
{
    return json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int);
}

/* A finite number at key `key` of `obj` (`where` names obj in messages); `optional` keys may be
 * missing (then *value is left alone). */
static lsim_status json_number(lsim_context *ctx, const char *path, json_object *obj, const char *where,
                               const char *key, int optional, double *value)
{
    json_object *v = NULL;
    if (!json_object_object_get_ex(obj, key, &v) || json_object_is_type(v, json_type_null)) {
        if (optional)
            return LSIM_OK;
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s: %s has no '%s'", path, where, key);
    }
    if (!is_number(v))
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s: %s.%s is %s, not a number", path, where, key,
                         json_type_to_name(json_object_get_type(v)));
    double d = json_object_get_double(v);
    if (!isfinite(d))
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s: %s.%s is %g, not a finite number", path, where, key, d);
    *value = d;
    return LSIM_OK;
}

static lsim_status velodyne_read(lsim_context *ctx, const char *path, json_object *root,
                                 lsim_velodyne_table *table)
{
    lsim_status st;
    memset(table, 0, sizeof *table);
    json_object *lasers = NULL;
    if (!json_object_object_get_ex(root, "lasers", &lasers) || !json_object_is_type(lasers, json_type_array)) {
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s: a Velodyne table needs \"lasers\": [ {laser_id, vert_correction, "
                         "rot_correction, ...}, ... ]", path);
    }
    size_t n = json_object_array_length(lasers);
    if (n < 1 || n > LSIM_VELODYNE_MAX_LASERS) {
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s: lasers has %zu entries, must be 1..%d", path, n,
                         LSIM_VELODYNE_MAX_LASERS);
    }
    st = json_number(ctx, path, root, "the file", "distance_resolution", 1, &table->distance_resolution_m);
    for (size_t i = 0; i < n && st == LSIM_OK; ++i) {
        json_object *l = json_object_array_get_idx(lasers, i);
        char where[32];
        snprintf(where, sizeof where, "lasers[%zu]", i);
        if (!json_object_is_type(l, json_type_object)) {
            st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s: %s is not an object {laser_id, vert_correction, ...}", path, where);
            break;
        }
        lsim_velodyne_laser *out = &table->laser[i];
        double id = -1.0, zero = 0.0;
        out->rot_rad = out->vert_offset_m = out->horiz_offset_m = zero;
        if ((st = json_number(ctx, path, l, where, "laser_id", 0, &id)) == LSIM_OK &&
            (st = json_number(ctx, path, l, where, "vert_correction", 0, &out->vert_rad)) == LSIM_OK &&
            (st = json_number(ctx, path, l, where, "rot_correction", 1, &out->rot_rad)) == LSIM_OK &&
            (st = json_number(ctx, path, l, where, "vert_offset_correction", 1, &out->vert_offset_m)) == LSIM_OK)
            st = json_number(ctx, path, l, where, "horiz_offset_correction", 1, &out->horiz_offset_m);
        if (st == LSIM_OK && !(id == floor(id) && fabs(id) < 1e6))
            st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s: %s.laser_id %g is not a whole number", path, where, id);
        if (st == LSIM_OK)
            out->id = (int)id;
    }
    table->count = (int)n;
    return st; /* lsim_velodyne_spec checks the table as a whole */
}

/* `key` at the top of the metadata or inside one of the newer layout's groups. */
static json_object *ouster_get(json_object *root, const char *key)
{
    static const char *const groups[] = {"beam_intrinsics", "lidar_intrinsics", "config_params", "lidar_data_format",
                                         "sensor_info", NULL};
    json_object *v = NULL, *g = NULL;
    if (json_object_object_get_ex(root, key, &v))
        return v;
    for (int i = 0; groups[i]; ++i)
        if (json_object_object_get_ex(root, groups[i], &g) && json_object_is_type(g, json_type_object) &&
            json_object_object_get_ex(g, key, &v))
            return v;
    return NULL;
}

static lsim_status ouster_numbers(lsim_context *ctx, const char *path, json_object *root, const char *key,
                                  double *out, int want, int *got)
{
    json_object *a = ouster_get(root, key);
    if (!a || !json_object_is_type(a, json_type_array))
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s: Ouster metadata needs '%s' (an array of numbers)", path, key);
    int n = (int)json_object_array_length(a);
    if (n < 1 || n > want)
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s: %s has %d values, must be 1..%d", path, key, n, want);
    for (int i = 0; i < n; ++i) {
        json_object *v = json_object_array_get_idx(a, (size_t)i);
        double d = json_object_get_double(v);
        if (!is_number(v) || !isfinite(d))
            return lsim_fail(ctx, LSIM_ERR_PARSE, "%s: %s[%d] is not a finite number", path, key, i);
        out[i] = d;
    }
    *got = n;
    return LSIM_OK;
}

/* `key` of the packet layout: in data_format (firmware 2.x) or where ouster_get finds it. */
static json_object *format_get(json_object *root, const char *key)
{
    json_object *f = NULL, *v = NULL;
    if (json_object_object_get_ex(root, "data_format", &f) && json_object_is_type(f, json_type_object) &&
        json_object_object_get_ex(f, key, &v))
        return v;
    return ouster_get(root, key);
}

/* A whole number in lo..hi at `key` (left alone when missing). */
static lsim_status format_int(lsim_context *ctx, const char *path, json_object *v, const char *key, int lo, int hi,
                              int *out)
{
    if (!v)
        return LSIM_OK;
    const double d = json_object_get_double(v);
    if (!json_object_is_type(v, json_type_int) || !(d >= lo && d <= hi))
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s: %s must be a whole number in %d..%d", path, key, lo, hi);
    *out = (int)d;
    return LSIM_OK;
}

static lsim_status ouster_data_format(lsim_context *ctx, const char *path, json_object *root, lsim_ouster_table *t)
{
    t->column_window[0] = t->column_window[1] = -1;
    json_object *profile = format_get(root, "udp_profile_lidar"), *window = format_get(root, "column_window");
    if (profile && !json_object_is_type(profile, json_type_string))
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s: udp_profile_lidar is %s, not a string like \"RNG19_RFL8_SIG16_NIR16\"",
                         path, json_type_to_name(json_object_get_type(profile)));
    if (profile)
        lsim_strlcpy(t->udp_profile_lidar, json_object_get_string(profile), sizeof t->udp_profile_lidar);
    lsim_status st = format_int(ctx, path, format_get(root, "pixels_per_column"), "pixels_per_column", 1,
                                LSIM_OUSTER_MAX_BEAMS, &t->pixels_per_column);
    if (st == LSIM_OK)
        st = format_int(ctx, path, format_get(root, "columns_per_packet"), "columns_per_packet", 1, 64,
                        &t->columns_per_packet);
    if (st == LSIM_OK)
        st = format_int(ctx, path, format_get(root, "columns_per_frame"), "columns_per_frame", 1, 99999,
                        &t->columns_per_frame);
    if (st == LSIM_OK)
        st = format_int(ctx, path, format_get(root, "udp_port_lidar"), "udp_port_lidar", 0, 65535, &t->udp_port_lidar);
    if (st == LSIM_OK && window) {
        if (!json_object_is_type(window, json_type_array) || json_object_array_length(window) != 2)
            return lsim_fail(ctx, LSIM_ERR_PARSE, "%s: column_window must be [first, last]", path);
        for (int i = 0; i < 2 && st == LSIM_OK; ++i)
            st = format_int(ctx, path, json_object_array_get_idx(window, (size_t)i), "column_window", 0, 99998,
                            &t->column_window[i]);
    }
    return st;
}

static lsim_status ouster_read(lsim_context *ctx, const char *path, json_object *root, lsim_ouster_table *t)
{
    lsim_status st;
    memset(t, 0, sizeof *t);
    int n_alt = 0, n_az = 0, n_tf = 0;
    st = ouster_numbers(ctx, path, root, "beam_altitude_angles", t->altitude_deg, LSIM_OUSTER_MAX_BEAMS, &n_alt);
    if (st == LSIM_OK)
        st = ouster_numbers(ctx, path, root, "beam_azimuth_angles", t->azimuth_deg, LSIM_OUSTER_MAX_BEAMS, &n_az);
    if (st == LSIM_OK && n_alt != n_az)
        st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s: %d beam_altitude_angles but %d beam_azimuth_angles", path, n_alt, n_az);
    for (int i = 0; st == LSIM_OK && i < n_alt; ++i)
        if (fabs(t->altitude_deg[i]) > 90.0 || fabs(t->azimuth_deg[i]) > 180.0)
            st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s: beam %d: altitude %g, azimuth %g deg; must be within 90 and 180 deg",
                           path, i, t->altitude_deg[i], t->azimuth_deg[i]);
    t->count = n_alt;
    json_object *v = ouster_get(root, "lidar_origin_to_beam_origin_mm");
    if (st == LSIM_OK && v && !is_number(v))
        st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s: lidar_origin_to_beam_origin_mm is %s, not a number", path,
                       json_type_to_name(json_object_get_type(v)));
    if (st == LSIM_OK) {
        t->origin_mm = v ? json_object_get_double(v) : 0.0;
        if (!(fabs(t->origin_mm) <= 1000.0))
            st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s: lidar_origin_to_beam_origin_mm %g is out of range (|n| <= 1000)",
                           path, t->origin_mm);
    }
    double beam_tf[16];
    int n_beam_tf = 0;
    if (st == LSIM_OK && ouster_get(root, "beam_to_lidar_transform")) {
        st = ouster_numbers(ctx, path, root, "beam_to_lidar_transform", beam_tf, 16, &n_beam_tf);
        if (st == LSIM_OK && n_beam_tf != 16)
            st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s: beam_to_lidar_transform has %d values, must be 16 (4x4, row-major)",
                           path, n_beam_tf);
        if (st == LSIM_OK && !(fabs(beam_tf[11]) <= 1000.0))
            st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s: beam_to_lidar_transform lifts the beams by %g mm; at most 1000",
                           path, beam_tf[11]);
        if (st == LSIM_OK)
            t->beam_z_mm = beam_tf[11];
    }
    if (st == LSIM_OK) {
        static const double identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
        memcpy(t->lidar_to_sensor, identity, sizeof identity);
        if (ouster_get(root, "lidar_to_sensor_transform"))
            st = ouster_numbers(ctx, path, root, "lidar_to_sensor_transform", t->lidar_to_sensor, 16, &n_tf);
        if (st == LSIM_OK && n_tf && n_tf != 16)
            st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s: lidar_to_sensor_transform has %d values, must be 16 (4x4, row-major)",
                           path, n_tf);
    }
    json_object *mode = ouster_get(root, "lidar_mode"), *prod = ouster_get(root, "prod_line");
    if (st == LSIM_OK && mode && !json_object_is_type(mode, json_type_string))
        st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s: lidar_mode is %s, not a string like \"1024x10\"", path,
                       json_type_to_name(json_object_get_type(mode)));
    if (st == LSIM_OK) { /* COLUMNSxHZ, both whole numbers below 100000 */
        const char *m = mode ? json_object_get_string(mode) : "1024x10";
        char *x = NULL, *end = NULL;
        long columns = strtol(m, &x, 10), rate = x && *x == 'x' ? strtol(x + 1, &end, 10) : -1;
        if (x == m || !x || *x != 'x' || !end || end == x + 1 || *end != '\0' || columns < 1 || columns > 99999 ||
            rate < 1 || rate > 99999)
            st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s: lidar_mode '%s' is not COLUMNSxHZ (e.g. 1024x10)", path, m);
        t->columns = (int)columns;
        t->rate_hz = (double)rate;
    }
    if (prod && json_object_is_type(prod, json_type_string))
        lsim_strlcpy(t->product, json_object_get_string(prod), sizeof t->product);
    if (st == LSIM_OK)
        st = ouster_data_format(ctx, path, root, t);
    return st;
}

lsim_status lsim_unit_read_json(lsim_context *ctx, const char *path, const char *text, size_t size,
                                lsim_velodyne_table *velodyne, lsim_ouster_table *ouster, lsim_unit_kind *kind)
{
    json_object *root = NULL;
    lsim_status st = json_parse(ctx, path, text, size, &root);
    if (st != LSIM_OK)
        return st;
    const int object = json_object_is_type(root, json_type_object);
    const int is_velodyne = object && json_object_object_get_ex(root, "lasers", NULL);
    const int is_ouster = object && ouster_get(root, "beam_altitude_angles");
    if (is_velodyne && is_ouster)
        st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s: has both \"lasers\" (a Velodyne table) and \"beam_altitude_angles\" "
                       "(Ouster metadata); a calibration is one of them", path);
    else if (is_velodyne)
        st = velodyne_read(ctx, path, root, velodyne);
    else if (is_ouster)
        st = ouster_read(ctx, path, root, ouster);
    else
        st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s: not a sensor calibration lidarsim reads: a JSON calibration is a "
                       "Velodyne table (a top-level \"lasers\": [...]) or Ouster metadata (\"beam_altitude_angles\", "
                       "at the top or in \"beam_intrinsics\")", path);
    *kind = is_velodyne ? LSIM_UNIT_VELODYNE : LSIM_UNIT_OUSTER;
    json_object_put(root);
    return st;
}
