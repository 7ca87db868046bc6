/* The `sensor:` section of a scene file: a preset or an inline spec, overrides, pose. */
#include "scene/scene_file.h"
#include "scene/trajectory_file.h"

#include "core/context.h"
#include "core/text.h"
#include "sensor/sensor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const sensor_keys[] = {
    "preset", "type", "position", "rotation", "range", "noise", "detection_reflectance", "rate_hz",
    "channels", "elevations", "elevation_min", "elevation_max", "columns", "fov_deg", "steps",
    "width", "height", "hfov_deg", "vfov_deg", "file", "points", "prism_hz", "beam", "receiver", "baseline", "range_resolution",
    "velocity", "angular_velocity_deg_s", "trajectory", "calibration", "spin", "firing_rate_hz", NULL};
static const char *const noise_keys[] = {"range_sigma", "intensity_sigma", "model", "snr_at_threshold",
                                         "range_sigma_weak", "drop", NULL};
static const char *const drop_keys[] = {"range_m", "incidence_deg", "reflectance", "rate", NULL};

static const struct { const char *name; lsim_sensor_kind kind; } kinds[] = {
    {"rotating", LSIM_SENSOR_ROTATING}, {"planar", LSIM_SENSOR_PLANAR}, {"camera", LSIM_SENSOR_CAMERA},
    {"pattern", LSIM_SENSOR_PATTERN}, {"rosette", LSIM_SENSOR_ROSETTE},
};

/* Which kinds a type-specific key applies to (bit mask of 1 << kind). */
static const struct { const char *key; unsigned kinds; } key_kinds[] = {
    {"channels", 1u << LSIM_SENSOR_ROTATING}, {"elevations", 1u << LSIM_SENSOR_ROTATING},
    {"elevation_min", 1u << LSIM_SENSOR_ROTATING}, {"elevation_max", 1u << LSIM_SENSOR_ROTATING},
    {"columns", 1u << LSIM_SENSOR_ROTATING}, {"spin", 1u << LSIM_SENSOR_ROTATING},
    {"firing_rate_hz", 1u << LSIM_SENSOR_ROTATING},
    {"fov_deg", (1u << LSIM_SENSOR_PLANAR) | (1u << LSIM_SENSOR_ROSETTE)},
    {"steps", 1u << LSIM_SENSOR_PLANAR}, {"width", 1u << LSIM_SENSOR_CAMERA},
    {"height", 1u << LSIM_SENSOR_CAMERA}, {"hfov_deg", 1u << LSIM_SENSOR_CAMERA},
    {"vfov_deg", 1u << LSIM_SENSOR_CAMERA}, {"file", 1u << LSIM_SENSOR_PATTERN},
    {"points", 1u << LSIM_SENSOR_ROSETTE}, {"prism_hz", 1u << LSIM_SENSOR_ROSETTE},
};

static const char *kind_name(lsim_sensor_kind k)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; ++i)
        if (kinds[i].kind == k)
            return kinds[i].name;
    return "?";
}

static lsim_status parse_kind(lsim_yaml *y, yaml_node_t *node, lsim_sensor_kind *out)
{
    const char *s;
    lsim_status st = lsim_yaml_string(y, node, "sensor.type", &s);
    if (st != LSIM_OK)
        return st;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; ++i)
        if (strcmp(s, kinds[i].name) == 0) {
            *out = kinds[i].kind;
            return LSIM_OK;
        }
    return lsim_yaml_fail(y, node, LSIM_ERR_PARSE, "sensor.type",
                          "unknown sensor type %s; valid: rotating, planar, camera, pattern, rosette",
                          LSIM_YAML_Q(y, s));
}

static lsim_status check_kind_keys(lsim_yaml *y, yaml_node_t *map, lsim_sensor_kind kind)
{
    for (size_t i = 0; i < sizeof key_kinds / sizeof key_kinds[0]; ++i) {
        yaml_node_t *v = lsim_yaml_get(y, map, key_kinds[i].key);
        if (v && !(key_kinds[i].kinds & (1u << kind))) {
            char applies[96] = "";
            for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k)
                if (key_kinds[i].kinds & (1u << kinds[k].kind)) {
                    if (applies[0])
                        strncat(applies, " and ", sizeof applies - strlen(applies) - 1);
                    strncat(applies, kinds[k].name, sizeof applies - strlen(applies) - 1);
                }
            char key[64];
            snprintf(key, sizeof key, "sensor.%s", key_kinds[i].key);
            return lsim_yaml_fail(y, v, LSIM_ERR_PARSE, key,
                                  "key '%s' does not apply to a %s sensor (only to %s sensors); remove it",
                                  key_kinds[i].key, kind_name(kind), applies);
        }
    }
    return LSIM_OK;
}

/* Report the context's last error (from the sensor library, which names the key as the scene file
 * spells it: "sensor.noise.range_sigma: ...", "sensor.elevations[3]: ...") at that key's line in
 * the file, or at the `sensor:` mapping when the key is not written there (a preset's value). */
static lsim_status at_sensor_key(lsim_yaml *y, yaml_node_t *map, lsim_status st)
{
    char msg[LSIM_ERROR_MAX];
    lsim_strlcpy(msg, lsim_context_last_error(y->ctx), sizeof msg);
    const char *colon = strstr(msg, ": ");
    /* a product of keys ("sensor.width x sensor.height: ...") is reported at its first key */
    const char *times = strstr(msg, " x sensor.");
    const char *space = strchr(msg, ' ');
    if (strncmp(msg, "sensor.", 7) != 0 || !colon || (space < colon && space != times))
        return lsim_yaml_fail(y, map, st, "sensor", "%s", msg);
    char key[128];
    size_t n = (size_t)(colon - msg) < sizeof key - 1 ? (size_t)(colon - msg) : sizeof key - 1;
    memcpy(key, msg, n);
    key[n] = '\0';
    /* Walk "noise.range_sigma" or "elevations[3]" down from the sensor mapping. */
    yaml_node_t *node = map;
    char path[128];
    lsim_strlcpy(path, key + 7, sizeof path);
    if (strchr(path, ' '))
        *strchr(path, ' ') = '\0';
    char *save = NULL;
    for (char *part = strtok_r(path, ".", &save); part && node; part = strtok_r(NULL, ".", &save)) {
        char *bracket = strchr(part, '[');
        long index = bracket ? strtol(bracket + 1, NULL, 10) : -1;
        if (bracket)
            *bracket = '\0';
        yaml_node_t *next = lsim_yaml_get(y, node, part);
        if (next && index >= 0 && next->type == YAML_SEQUENCE_NODE &&
            index < next->data.sequence.items.top - next->data.sequence.items.start)
            next = yaml_document_get_node(&y->doc, next->data.sequence.items.start[index]);
        node = next;
    }
    return lsim_yaml_fail(y, node ? node : map, st, key, "%s", colon + 2);
}

static lsim_status parse_elevations(lsim_yaml *y, yaml_node_t *map, lsim_sensor_spec *spec)
{
    yaml_node_t *list = lsim_yaml_get(y, map, "elevations");
    yaml_node_t *lo = lsim_yaml_get(y, map, "elevation_min"), *hi = lsim_yaml_get(y, map, "elevation_max");
    yaml_node_t *ch = lsim_yaml_get(y, map, "channels");
    int channels = spec->channels;
    if ((list || lo || hi || ch) && (spec->channel_azimuth_deg || spec->channel_time_s || spec->channel_origin_m))
        return lsim_yaml_fail(y, list ? list : lo ? lo : hi ? hi : ch, LSIM_ERR_PARSE,
                              list ? "sensor.elevations" : lo ? "sensor.elevation_min" : hi ? "sensor.elevation_max"
                                                                                            : "sensor.channels",
                              "this sensor's %d beams come from a unit's table, each with its own azimuth offset, "
                              "origin and firing time; describe a different head with `type: rotating` (or give "
                              "its calibration file)", spec->channels);
    lsim_status st = lsim_yaml_opt_int(y, map, "channels", "sensor.channels", 1, LSIM_SENSOR_MAX_CHANNELS, &channels);
    if (st != LSIM_OK)
        return st;
    if (list && (lo || hi))
        return lsim_yaml_fail(y, list, LSIM_ERR_PARSE, "sensor.elevations",
                              "give either `elevations` or `elevation_min`/`elevation_max`, not both");
    double *values = NULL;
    if (list) {
        size_t got = 0;
        values = malloc(LSIM_SENSOR_MAX_CHANNELS * sizeof *values);
        if (!values)
            return lsim_fail(y->ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory reading sensor.elevations");
        st = lsim_yaml_numbers(y, list, "sensor.elevations", values, 0, LSIM_SENSOR_MAX_CHANNELS, &got);
        if (st == LSIM_OK && ch && (size_t)channels != got)
            st = lsim_yaml_fail(y, ch, LSIM_ERR_PARSE, "sensor.channels",
                                "%d channels but `elevations` lists %zu values", channels, got);
        channels = (int)got;
    } else if (lo || hi) {
        if (!(lo && hi))
            return lsim_yaml_fail(y, lo ? lo : hi, LSIM_ERR_PARSE, "sensor",
                                  "`elevation_min` and `elevation_max` go together");
        double a, b;
        st = lsim_yaml_number(y, lo, "sensor.elevation_min", &a);
        if (st == LSIM_OK)
            st = lsim_yaml_number(y, hi, "sensor.elevation_max", &b);
        if (st == LSIM_OK && !(a < b || (a == b && channels == 1)))
            st = lsim_yaml_fail(y, lo, LSIM_ERR_PARSE, "sensor.elevation_min",
                                "elevation_min %g must be below elevation_max %g", a, b);
        if (st == LSIM_OK && channels < 1)
            st = lsim_yaml_fail(y, lo, LSIM_ERR_PARSE, "sensor.channels",
                                "give `channels` with elevation_min/elevation_max");
        if (st == LSIM_OK) {
            values = malloc((size_t)channels * sizeof *values);
            if (!values)
                return lsim_fail(y->ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for %d elevations", channels);
            for (int i = 0; i < channels; ++i)
                values[i] = channels == 1 ? a : a + (b - a) * i / (channels - 1);
        }
    } else if (ch && channels != spec->channels) {
        return lsim_yaml_fail(y, ch, LSIM_ERR_PARSE, "sensor.channels",
                              "changing `channels` needs `elevations` or `elevation_min`/`elevation_max` too");
    }
    if (st != LSIM_OK || !values) {
        free(values);
        return st;
    }
    free(spec->elevations_deg);
    spec->elevations_deg = values;
    spec->channels = channels;
    return LSIM_OK;
}

static size_t sequence_length(const yaml_node_t *node)
{
    return node && node->type == YAML_SEQUENCE_NODE
               ? (size_t)(node->data.sequence.items.top - node->data.sequence.items.start)
               : 0;
}

/* One axis of sensor.noise.drop: a list of 1..LSIM_DROP_MAX_EDGES lower bin edges (their values are
 * checked with the spec: spec_validate.c). */
static lsim_status read_drop_edges(lsim_yaml *y, yaml_node_t *drop, const char *name, double *edges, int *n)
{
    char key[64];
    snprintf(key, sizeof key, "sensor.noise.drop.%s", name);
    yaml_node_t *node = lsim_yaml_get(y, drop, name);
    if (!node)
        return lsim_yaml_fail(y, drop, LSIM_ERR_PARSE, key,
                              "missing; a drop table needs range_m, incidence_deg and reflectance (lower bin edges, "
                              "ascending, the first 0) and rate");
    const size_t count = sequence_length(node);
    if (node->type == YAML_SEQUENCE_NODE && (count < 1 || count > LSIM_DROP_MAX_EDGES))
        return lsim_yaml_fail(y, node, LSIM_ERR_PARSE, key,
                              "%zu edges; give 1 to %d lower bin edges, ascending, the first 0", count,
                              LSIM_DROP_MAX_EDGES);
    size_t got = 0;
    lsim_status st = lsim_yaml_numbers(y, node, key, edges, 0, LSIM_DROP_MAX_EDGES, &got);
    *n = (int)got;
    return st;
}

/* sensor.noise.drop: the measured ray-drop table (sensor.h, lsim_drop_table). */
static lsim_status read_drop(lsim_yaml *y, yaml_node_t *drop, lsim_sensor_spec *spec)
{
    lsim_status st = lsim_yaml_check_keys(y, drop, "sensor.noise.drop", drop_keys);
    lsim_drop_table t;
    memset(&t, 0, sizeof t);
    if (st == LSIM_OK)
        st = read_drop_edges(y, drop, "range_m", t.range_m, &t.n_range);
    if (st == LSIM_OK)
        st = read_drop_edges(y, drop, "incidence_deg", t.incidence_deg, &t.n_incidence);
    if (st == LSIM_OK)
        st = read_drop_edges(y, drop, "reflectance", t.reflectance, &t.n_reflectance);
    if (st != LSIM_OK)
        return st;
    yaml_node_t *rate = lsim_yaml_get(y, drop, "rate");
    const size_t n = (size_t)t.n_range * (size_t)t.n_incidence * (size_t)t.n_reflectance;
    if (!rate)
        return lsim_yaml_fail(y, drop, LSIM_ERR_PARSE, "sensor.noise.drop.rate",
                              "missing; give %d x %d x %d = %zu drop rates in [0, 1]", t.n_range, t.n_incidence,
                              t.n_reflectance, n);
    if (rate->type != YAML_SEQUENCE_NODE) /* "expected a list of numbers, got ..." */
        return lsim_yaml_numbers(y, rate, "sensor.noise.drop.rate", NULL, 0, n, NULL);
    if (sequence_length(rate) != n)
        return lsim_yaml_fail(y, rate, LSIM_ERR_PARSE, "sensor.noise.drop.rate",
                              "%zu rates, but %d range x %d incidence x %d reflectance bins need %zu (range-major: "
                              "rate[(i_range * n_incidence + i_incidence) * n_reflectance + i_reflectance])",
                              sequence_length(rate), t.n_range, t.n_incidence, t.n_reflectance, n);
    t.rate = malloc(n * sizeof *t.rate);
    if (!t.rate)
        return lsim_fail(y->ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory reading sensor.noise.drop.rate");
    st = lsim_yaml_numbers(y, rate, "sensor.noise.drop.rate", t.rate, n, n, NULL);
    if (st != LSIM_OK) {
        free(t.rate);
        return st;
    }
    free(spec->drop.rate);
    spec->drop = t; /* its values are checked with the spec's (spec_validate.c) */
    return LSIM_OK;
}

/* The file a sensor key names (relative to the scene file), read into spec by `read`; its error is
 * reported at that key's line with the reader's status, or with `as` when that is not LSIM_OK. */
static lsim_status read_sensor_file(lsim_yaml *y, yaml_node_t *node, const char *key, const char *dir,
                                    lsim_status (*read)(lsim_context *, const char *, lsim_sensor_spec *),
                                    lsim_status as, lsim_sensor_spec *spec)
{
    const char *name;
    lsim_status st = lsim_yaml_string(y, node, key, &name);
    if (st != LSIM_OK)
        return st;
    char path[4096];
    if (lsim_scene_file_resolve(dir, name, path, sizeof path))
        return lsim_yaml_fail(y, node, LSIM_ERR_PARSE, key, "a path of %zu bytes is too long", strlen(name));
    st = read(y->ctx, path, spec);
    if (st == LSIM_OK)
        return LSIM_OK;
    char msg[LSIM_ERROR_MAX];
    lsim_strlcpy(msg, lsim_context_last_error(y->ctx), sizeof msg);
    return lsim_yaml_fail(y, node, as != LSIM_OK ? as : st, key, "%s", msg);
}

/* A rotating head's columns, spin and firing rate. A sensor whose firing rate is fixed (Velodyne:
 * `firing_rate_hz`) has its columns follow from rate_hz; `columns` then is an error. */
static lsim_status parse_rotation_timing(lsim_yaml *y, yaml_node_t *map, lsim_sensor_spec *spec)
{
    yaml_node_t *columns = lsim_yaml_get(y, map, "columns"), *spin = lsim_yaml_get(y, map, "spin");
    lsim_status st = lsim_yaml_opt_number(y, map, "firing_rate_hz", "sensor.firing_rate_hz", &spec->firing_rate_hz);
    if (st == LSIM_OK && columns && spec->firing_rate_hz > 0.0)
        return lsim_yaml_fail(y, columns, LSIM_ERR_PARSE, "sensor.columns",
                              "this sensor fires %g columns per second whatever its spin rate, so its columns per "
                              "revolution follow from rate_hz (floor(%g / rate_hz)); set rate_hz instead of columns",
                              spec->firing_rate_hz, spec->firing_rate_hz);
    if (st == LSIM_OK)
        st = lsim_yaml_opt_int(y, map, "columns", "sensor.columns", 1, LSIM_SENSOR_MAX_STEPS, &spec->columns);
    if (st == LSIM_OK && spin) {
        const char *s;
        st = lsim_yaml_string(y, spin, "sensor.spin", &s);
        if (st == LSIM_OK && strcmp(s, "cw") != 0 && strcmp(s, "ccw") != 0)
            return lsim_yaml_fail(y, spin, LSIM_ERR_PARSE, "sensor.spin",
                                  "%s is not a direction; valid: cw (clockwise seen from above, as Velodyne and "
                                  "Ouster heads turn) or ccw", LSIM_YAML_Q(y, s));
        if (st == LSIM_OK)
            spec->spin = strcmp(s, "cw") == 0 ? -1 : 1;
    }
    return st;
}

static lsim_status parse_overrides(lsim_yaml *y, yaml_node_t *map, const char *dir, lsim_sensor_spec *spec)
{
    lsim_status st = check_kind_keys(y, map, spec->kind);
    if (st == LSIM_OK && spec->kind == LSIM_SENSOR_ROTATING)
        st = parse_elevations(y, map, spec);
    if (st == LSIM_OK)
        st = parse_rotation_timing(y, map, spec);
    if (st == LSIM_OK)
        st = lsim_yaml_opt_int(y, map, "steps", "sensor.steps", 1, LSIM_SENSOR_MAX_STEPS, &spec->steps);
    if (st == LSIM_OK)
        st = lsim_yaml_opt_int(y, map, "width", "sensor.width", 1, LSIM_SENSOR_MAX_PIXELS_SIDE, &spec->width);
    if (st == LSIM_OK)
        st = lsim_yaml_opt_int(y, map, "height", "sensor.height", 1, LSIM_SENSOR_MAX_PIXELS_SIDE, &spec->height);
    if (st == LSIM_OK)
        st = lsim_yaml_opt_int(y, map, "points", "sensor.points", 1, LSIM_SENSOR_MAX_BEAMS, &spec->rosette_points);
    if (st == LSIM_OK) /* rosette only (check_kind_keys); validation rejects non-finite, zero, equal rates */
        st = lsim_yaml_opt_vec(y, map, "prism_hz", "sensor.prism_hz", spec->rosette_hz, 2);
    double *fov = spec->kind == LSIM_SENSOR_ROSETTE ? &spec->rosette_fov_deg : &spec->fov_deg;
    if (st == LSIM_OK)
        st = lsim_yaml_opt_number(y, map, "fov_deg", "sensor.fov_deg", fov);
    if (st == LSIM_OK)
        st = lsim_yaml_opt_number(y, map, "hfov_deg", "sensor.hfov_deg", &spec->hfov_deg);
    if (st == LSIM_OK)
        st = lsim_yaml_opt_number(y, map, "vfov_deg", "sensor.vfov_deg", &spec->vfov_deg);
    if (st == LSIM_OK)
        st = lsim_yaml_opt_number(y, map, "rate_hz", "sensor.rate_hz", &spec->rate_hz);
    if (st == LSIM_OK && spec->kind == LSIM_SENSOR_ROTATING && spec->firing_rate_hz > 0.0)
        spec->columns = lsim_sensor_spec_columns_at_rate(spec); /* the hardware's firing rate at this spin */
    if (st == LSIM_OK)
        st = lsim_yaml_opt_number(y, map, "detection_reflectance", "sensor.detection_reflectance",
                                  &spec->detection_reflectance);
    double range[2] = {spec->range_min, spec->range_max};
    if (st == LSIM_OK)
        st = lsim_yaml_opt_vec(y, map, "range", "sensor.range", range, 2);
    spec->range_min = range[0];
    spec->range_max = range[1];
    yaml_node_t *noise = lsim_yaml_get(y, map, "noise");
    if (st == LSIM_OK && noise) {
        st = lsim_yaml_check_keys(y, noise, "sensor.noise", noise_keys);
        const double strong = spec->range_sigma;
        if (st == LSIM_OK)
            st = lsim_yaml_opt_number(y, noise, "range_sigma", "sensor.noise.range_sigma", &spec->range_sigma);
        /* a new strong sigma scales a preset's weak one (the same SNR law) unless the file gives both */
        if (strong > 0.0)
            spec->range_sigma_weak *= spec->range_sigma / strong;
        if (st == LSIM_OK)
            st = lsim_yaml_opt_number(y, noise, "intensity_sigma", "sensor.noise.intensity_sigma",
                                      &spec->intensity_sigma);
        if (st == LSIM_OK)
            st = lsim_yaml_opt_number(y, noise, "snr_at_threshold", "sensor.noise.snr_at_threshold",
                                      &spec->snr_at_threshold);
        if (st == LSIM_OK)
            st = lsim_yaml_opt_number(y, noise, "range_sigma_weak", "sensor.noise.range_sigma_weak",
                                      &spec->range_sigma_weak);
        yaml_node_t *model = lsim_yaml_get(y, noise, "model");
        const char *name = NULL;
        if (st == LSIM_OK && model && (st = lsim_yaml_string(y, model, "sensor.noise.model", &name)) == LSIM_OK) {
            if (strcmp(name, "snr") != 0 && strcmp(name, "constant") != 0)
                return lsim_yaml_fail(y, model, LSIM_ERR_PARSE, "sensor.noise.model",
                                      "%s is not a noise model; valid: snr (noise and drop-outs grow as the echo "
                                      "weakens; the presets' default), constant (range_sigma for every echo)",
                                      LSIM_YAML_Q(y, name));
            spec->noise_snr = strcmp(name, "snr") == 0;
        }
        yaml_node_t *drop = lsim_yaml_get(y, noise, "drop");
        if (st == LSIM_OK && drop)
            st = read_drop(y, drop, spec);
    }
    yaml_node_t *beam = lsim_yaml_get(y, map, "beam"), *receiver = lsim_yaml_get(y, map, "receiver");
    if (st == LSIM_OK && beam)
        st = lsim_scene_file_read_beam(y, beam, dir, &spec->beam);
    if (st == LSIM_OK && receiver)
        st = lsim_scene_file_read_receiver(y, receiver, &spec->receiver);
    if (st == LSIM_OK)
        st = lsim_yaml_opt_vec(y, map, "baseline", "sensor.baseline", spec->baseline, 3);
    if (st == LSIM_OK)
        st = lsim_yaml_opt_number(y, map, "range_resolution", "sensor.range_resolution", &spec->range_resolution);
    yaml_node_t *file = lsim_yaml_get(y, map, "file");
    if (st == LSIM_OK && spec->kind == LSIM_SENSOR_PATTERN) {
        if (!file)
            return lsim_yaml_fail(y, map, LSIM_ERR_PARSE, "sensor.file",
                                  "a pattern sensor needs `file:` (CSV with azimuth_deg, elevation_deg[, time_s, ring])");
        st = read_sensor_file(y, file, "sensor.file", dir, lsim_pattern_file_read, LSIM_OK, spec);
    }
    return st;
}

lsim_status lsim_scene_file_read_sensor(lsim_yaml *y, yaml_node_t *map, const char *dir, lsim_sensor **out)
{
    lsim_status st = lsim_yaml_check_keys(y, map, "sensor", sensor_keys);
    if (st != LSIM_OK)
        return st;
    yaml_node_t *preset = lsim_yaml_get(y, map, "preset"), *type = lsim_yaml_get(y, map, "type");
    yaml_node_t *unit = lsim_yaml_get(y, map, "calibration");
    lsim_sensor_spec spec;
    lsim_sensor_spec_defaults(&spec);
    if ((preset != NULL) + (type != NULL) + (unit != NULL) > 1)
        return lsim_yaml_fail(y, unit ? unit : type, LSIM_ERR_PARSE, unit ? "sensor.calibration" : "sensor.type",
                              "give one of `preset`, `type` or `calibration` (a real unit's file); plain keys "
                              "override its values");
    if (unit) {
        st = read_sensor_file(y, unit, "sensor.calibration", dir, lsim_sensor_calibration_read, LSIM_ERR_PARSE, &spec);
    } else if (preset) {
        const char *name;
        st = lsim_yaml_string(y, preset, "sensor.preset", &name);
        if (st == LSIM_OK && lsim_sensor_spec_from_preset(y->ctx, name, &spec) != LSIM_OK)
            st = at_sensor_key(y, map, LSIM_ERR_PARSE);
    } else if (type) {
        st = parse_kind(y, type, &spec.kind);
        lsim_strlcpy(spec.name, "custom", sizeof spec.name);
    } else {
        st = lsim_yaml_fail(y, map, LSIM_ERR_PARSE, "sensor",
                            "needs `preset:` (see `lidarsim presets`), `type:` (rotating, planar, camera, pattern, "
                            "rosette) or `calibration:` (a real unit's Ouster or Velodyne calibration file)");
    }
    if (st == LSIM_OK)
        st = parse_overrides(y, map, dir, &spec);
    double position[3] = {0, 0, 0}, rotation[3] = {0, 0, 0};
    if (st == LSIM_OK)
        st = lsim_yaml_opt_vec(y, map, "position", "sensor.position", position, 3);
    if (st == LSIM_OK)
        st = lsim_yaml_opt_vec(y, map, "rotation", "sensor.rotation", rotation, 3);
    if (st == LSIM_OK && lsim_sensor_spec_validate(y->ctx, &spec) != LSIM_OK)
        st = at_sensor_key(y, map, LSIM_ERR_PARSE);
    if (st == LSIM_OK && lsim_sensor_check_pose(y->ctx, position, rotation) != LSIM_OK)
        st = at_sensor_key(y, map, LSIM_ERR_PARSE);
    lsim_motion_keys motion;
    memset(&motion, 0, sizeof motion);
    if (st == LSIM_OK)
        st = lsim_scene_file_read_motion(y, map, "sensor", dir, &motion);
    if (st != LSIM_OK) {
        lsim_sensor_spec_free(&spec);
        return st;
    }
    lsim_sensor *sensor = NULL;
    st = lsim_sensor_create_from_spec(y->ctx, &spec, &sensor);
    if (st != LSIM_OK) {
        lsim_trajectory_free(&motion.trajectory);
        return st;
    }
    if (lsim_sensor_set_pose(sensor, position, rotation) != LSIM_OK) {
        lsim_sensor_destroy(sensor);
        lsim_trajectory_free(&motion.trajectory);
        return at_sensor_key(y, map, LSIM_ERR_PARSE); /* "sensor.position: ..." at that key's line */
    }
    /* Motion after the pose: rates start from it; a trajectory carries the sensor mounted at it. */
    const lsim_trajectory *tr = &motion.trajectory;
    st = tr->count ? lsim_sensor_set_trajectory(sensor, tr->count, tr->t, (const double(*)[3])tr->position,
                                                (const double(*)[3])tr->rpy_deg)
                   : lsim_sensor_set_motion(sensor, motion.velocity, motion.angular_velocity_deg_s);
    lsim_trajectory_free(&motion.trajectory);
    if (st != LSIM_OK) {
        lsim_sensor_destroy(sensor);
        return at_sensor_key(y, map, st == LSIM_ERR_OUT_OF_MEMORY ? st : LSIM_ERR_PARSE);
    }
    *out = sensor;
    return LSIM_OK;
}
