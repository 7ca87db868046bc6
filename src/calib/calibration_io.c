/* Calibration files (docs/calibration.md): write (atomic YAML) and read (validated, file:line:column
 * and key in every error). Find, copy, free and the per-angle lookup: calib/calib_material.c. */
#include "calib/calibration.h"
#include "core/file_open.h"

#include "calib/calibrate.h"
#include "core/context.h"
#include "core/text.h"
#include "core/vec.h"
#include "output/atomic_file.h"
#include "scene/yaml_doc.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ------------------------------------------------------------------------------------------- */
/* Writing                                                                                      */

/* Shortest %g form that reads back to exactly v. */
static const char *num(double v, char *buf, size_t size)
{
    for (int prec = 1; prec <= 17; ++prec) {
        snprintf(buf, size, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    if (v == 0.0)
        snprintf(buf, size, "0"); /* no "-0" */
    return buf;
}

static void write_quoted(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
        if (*p == '"' || *p == '\\')
            fprintf(fp, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(fp, "\\x%02x", *p);
        else
            fputc(*p, fp);
    }
    fputc('"', fp);
}

static void write_brdf(FILE *fp, const char *key, const lsim_brdf *b, const double *scale, const double *rms,
                       int shape_fitted)
{
    char t[40];
    fprintf(fp, "    %s:\n      type: %s\n", key, lsim_brdf_kind_name(b->kind));
    switch (b->kind) {
    case LSIM_BRDF_LAMBERTIAN:
    case LSIM_BRDF_MIRROR:
        fprintf(fp, "      reflectance: %s\n", num(b->reflectance, t, sizeof t));
        break;
    case LSIM_BRDF_OREN_NAYAR:
        fprintf(fp, "      reflectance: %s\n", num(b->reflectance, t, sizeof t));
        fprintf(fp, "      roughness: %s\n", num(b->roughness, t, sizeof t));
        break;
    case LSIM_BRDF_COOK_TORRANCE:
        fprintf(fp, "      reflectance: %s\n", num(b->reflectance, t, sizeof t));
        fprintf(fp, "      roughness: %s\n", num(b->roughness, t, sizeof t));
        fprintf(fp, "      ior: %s\n", num(b->ior, t, sizeof t));
        fprintf(fp, "      f0: %s\n", num(b->f0, t, sizeof t));
        fprintf(fp, "      metallic: %s\n", num(b->metallic, t, sizeof t));
        break;
    case LSIM_BRDF_RETROREFLECTOR:
        fprintf(fp, "      peak: %s\n", num(b->peak, t, sizeof t));
        fprintf(fp, "      falloff_deg: %s\n", num(b->falloff_deg, t, sizeof t));
        break;
    case LSIM_BRDF_GLASS:
        fprintf(fp, "      ior: %s\n", num(b->ior, t, sizeof t));
        fprintf(fp, "      transmittance: %s\n", num(b->transmittance, t, sizeof t));
        break;
    }
    if (scale)
        fprintf(fp, "      fit: %s\n", shape_fitted ? "shape-and-scale"
                                                    : "scale-only   # the intensities cannot determine the shape");
    if (scale)
        fprintf(fp, "      scale: %s\n", num(*scale, t, sizeof t));
    if (rms)
        fprintf(fp, "      rms: %s\n", num(*rms, t, sizeof t));
}

static int finite_nonneg(double v) { return isfinite(v) && v >= 0.0; }

static lsim_status check_material(lsim_context *ctx, const lsim_calib_material *m)
{
    if (!lsim_calib_name_valid(m->name))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "calibration: material name '%.80s' is invalid; valid: 1 "
                         "to 63 characters of letters, digits, '_', '-', '.'", m->name);
    if (!m->bin_count || !m->bins)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "calibration: material %s has no bins", m->name);
    if (!(m->fitted_distance_m > 0.0) || !finite_nonneg(m->configured_distance_m) || !isfinite(m->normal_angle_rad) ||
        !(m->board_width_m > 0.0) || !isfinite(m->board_width_m) || !isfinite(m->board_offset_m) ||
        !finite_nonneg(m->configured_width_m) || !finite_nonneg(m->band_m) || !finite_nonneg(m->brdf_scale) ||
        !finite_nonneg(m->brdf_rms) || !(m->bin_width_deg >= 0.05 && m->bin_width_deg <= 45.0) ||
        !finite_nonneg(m->reach_min_m) || !finite_nonneg(m->reach_max_m) || !finite_nonneg(m->range_resolution_m))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "calibration: material %s has a value out of range "
                         "(distances, widths, band, scale and rms must be finite and >= 0, bin width 0.05..45)",
                         m->name);
    for (size_t k = 0; k < m->bin_count; ++k) {
        const lsim_calib_bin *b = &m->bins[k];
        if (!(b->angle_deg >= 0.0 && b->angle_deg <= 90.0) || !b->n || !finite_nonneg(b->mean_intensity) ||
            !finite_nonneg(b->std_intensity) || !finite_nonneg(b->std_range_m) ||
            !(b->drop_rate >= 0.0 && b->drop_rate <= 1.0) || (k && !(b->angle_deg > m->bins[k - 1].angle_deg)) ||
            (m->noise_fitted && (!isfinite(b->noise_mean_m) || !finite_nonneg(b->noise_std_m))) ||
            (b->has_drop_halves && !(b->drop_halves[0] >= 0.0 && b->drop_halves[0] <= 1.0 &&
                                     b->drop_halves[1] >= 0.0 && b->drop_halves[1] <= 1.0)))
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "calibration: material %s bin %zu (%g deg) is out of "
                             "range (angles ascending in [0, 90], n >= 1, statistics finite and >= 0 but "
                             "noise_mean_m finite, drop rates in [0, 1])", m->name, k, b->angle_deg);
    }
    return LSIM_OK;
}

static void write_material(FILE *fp, const lsim_calib_material *m)
{
    char t[40];
    fprintf(fp, "  - name: %s\n", m->name);
    fprintf(fp, "    source: ");
    write_quoted(fp, m->source);
    fprintf(fp, "\n    configured_distance_m: %s\n", num(m->configured_distance_m, t, sizeof t));
    fprintf(fp, "    fitted_distance_m: %s\n", num(m->fitted_distance_m, t, sizeof t));
    fprintf(fp, "    normal_angle_rad: %s", num(m->normal_angle_rad, t, sizeof t));
    fprintf(fp, "   # %.3f deg\n", m->normal_angle_rad / LSIM_DEG);
    fprintf(fp, "    configured_width_m: %s\n", num(m->configured_width_m, t, sizeof t));
    fprintf(fp, "    board_width_m: %s\n", num(m->board_width_m, t, sizeof t));
    fprintf(fp, "    board_offset_m: %s\n", num(m->board_offset_m, t, sizeof t));
    fprintf(fp, "    band_m: %s\n", num(m->band_m, t, sizeof t));
    fprintf(fp, "    outliers: %zu\n", m->outliers);
    fprintf(fp, "    revolutions: %zu\n", m->revolutions);
    fprintf(fp, "    beams_per_revolution: %zu\n", m->beams_per_revolution);
    fprintf(fp, "    bin_width_deg: %s\n", num(m->bin_width_deg, t, sizeof t));
    if (m->reach_min_m > 0.0) {
        fprintf(fp, "    reach_min_m: %s\n", num(m->reach_min_m, t, sizeof t));
        fprintf(fp, "    reach_max_m: %s\n", num(m->reach_max_m, t, sizeof t));
    }
    if (m->noise_fitted)
        fprintf(fp, "    range_resolution_m: %s\n", num(m->range_resolution_m, t, sizeof t));
    write_brdf(fp, "brdf", &m->brdf, &m->brdf_scale, &m->brdf_rms, m->brdf_shape_fitted);
    write_brdf(fp, "brdf_configured", &m->brdf_configured, NULL, NULL, 0);
    fprintf(fp, "    bins:\n");
    for (size_t k = 0; k < m->bin_count; ++k) {
        const lsim_calib_bin *b = &m->bins[k];
        char a[40], mi[40], si[40], sr[40], dr[40], mr[40], nm[40], ns[40];
        fprintf(fp, "      - {angle_deg: %s, n: %zu, mean_intensity: %s, std_intensity: %s, std_range_m: %s, "
                "drop_rate: %s, mean_range_m: %s", num(b->angle_deg, a, sizeof a), b->n,
                num(b->mean_intensity, mi, sizeof mi), num(b->std_intensity, si, sizeof si),
                num(b->std_range_m, sr, sizeof sr), num(b->drop_rate, dr, sizeof dr),
                num(b->mean_range_m, mr, sizeof mr));
        if (m->noise_fitted)
            fprintf(fp, ", noise_mean_m: %s, noise_std_m: %s", num(b->noise_mean_m, nm, sizeof nm),
                    num(b->noise_std_m, ns, sizeof ns));
        if (b->has_drop_halves)
            fprintf(fp, ", drop_halves: [%s, %s]", num(b->drop_halves[0], nm, sizeof nm),
                    num(b->drop_halves[1], ns, sizeof ns));
        fprintf(fp, "}\n");
    }
}

lsim_status lsim_calibration_write(lsim_context *ctx, const char *path, const lsim_calibration *cal)
{
    if (!path || !*path || !cal)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_calibration_write: no path or calibration given");
    if (!cal->count || !cal->materials)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "%s: a calibration needs at least one material", path);
    if (!lsim_calib_name_valid(cal->sensor))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "%s: sensor name '%.80s' is invalid; valid: 1 to 63 "
                         "characters of letters, digits, '_', '-', '.'", path, cal->sensor);
    for (size_t i = 0; i < cal->count; ++i) {
        lsim_status st = check_material(ctx, &cal->materials[i]);
        if (st != LSIM_OK)
            return st;
        for (size_t j = 0; j < i; ++j)
            if (strcmp(cal->materials[i].name, cal->materials[j].name) == 0)
                return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "%s: material %s appears twice", path,
                                 cal->materials[i].name);
    }
    struct stat info;
    if (stat(path, &info) == 0 && S_ISDIR(info.st_mode))
        return lsim_fail(ctx, LSIM_ERR_IO, "%s: is a directory; give the calibration file's name", path);
    lsim_atomic_group g;
    lsim_atomic_begin(&g, ctx);
    FILE *fp;
    lsim_status st = lsim_atomic_open(&g, path, &fp);
    if (st == LSIM_OK) {
        fprintf(fp, "# lidarsim calibration (format: docs/calibration.md). Per material: the board found in the\n"
                    "# scan, statistics per incidence-angle bin, and the BRDF fitted to the bins' mean intensity.\n");
        fprintf(fp, "lidarsim_calibration: %d\n", LSIM_CALIB_VERSION);
        fprintf(fp, "sensor: %s\n", cal->sensor);
        fprintf(fp, "materials:\n");
        for (size_t i = 0; i < cal->count; ++i)
            write_material(fp, &cal->materials[i]);
    }
    return lsim_atomic_finish(&g, st);
}

/* ------------------------------------------------------------------------------------------- */
/* Reading                                                                                      */

static const char *const top_keys[] = {"lidarsim_calibration", "sensor", "materials", NULL};
static const char *const material_keys[] = {
    "name", "source", "configured_distance_m", "fitted_distance_m", "normal_angle_rad", "configured_width_m",
    "board_width_m", "board_offset_m", "band_m", "outliers", "revolutions", "beams_per_revolution",
    "bin_width_deg", "brdf", "brdf_configured", "bins", "reach_min_m", "reach_max_m", "range_resolution_m", NULL};
static const char *const brdf_keys[] = {"type", "reflectance", "roughness", "ior", "f0", "metallic", "peak",
                                        "falloff_deg", "transmittance", "fit", "scale", "rms", NULL};
static const char *const bin_keys[] = {"angle_deg", "n", "mean_intensity", "std_intensity", "std_range_m",
                                       "mean_range_m", "drop_rate", "noise_mean_m", "noise_std_m", "drop_halves", NULL};

/* A required or optional number in [lo, hi] (lo_open: > lo). */
static lsim_status get_number(lsim_yaml *y, yaml_node_t *map, const char *name, const char *prefix, int required,
                              double lo, int lo_open, double hi, const char *valid, double *out)
{
    char key[320];
    snprintf(key, sizeof key, "%s.%s", prefix, name);
    yaml_node_t *v = lsim_yaml_get(y, map, name);
    if (!v) {
        if (required)
            return lsim_yaml_fail(y, map, LSIM_ERR_PARSE, key, "missing (required; %s)", valid);
        return LSIM_OK;
    }
    double d;
    lsim_status st = lsim_yaml_number(y, v, key, &d);
    if (st != LSIM_OK)
        return st;
    if (!(lo_open ? d > lo : d >= lo) || !(d <= hi))
        return lsim_yaml_fail(y, v, LSIM_ERR_PARSE, key, "%g is out of range; valid: %s", d, valid);
    *out = d;
    return LSIM_OK;
}

static lsim_status get_count(lsim_yaml *y, yaml_node_t *map, const char *name, const char *prefix, int required,
                             long lo, size_t *out)
{
    char key[320];
    snprintf(key, sizeof key, "%s.%s", prefix, name);
    yaml_node_t *v = lsim_yaml_get(y, map, name);
    if (!v) {
        if (required)
            return lsim_yaml_fail(y, map, LSIM_ERR_PARSE, key, "missing (required; an integer >= %ld)", lo);
        return LSIM_OK;
    }
    long d;
    lsim_status st = lsim_yaml_int(y, v, key, lo, LONG_MAX, &d);
    if (st == LSIM_OK)
        *out = (size_t)d;
    return st;
}

static lsim_status read_brdf(lsim_yaml *y, yaml_node_t *node, const char *prefix, int fitted, lsim_brdf *b,
                             double *scale, double *rms, int *shape_fitted)
{
    char key[200];
    snprintf(key, sizeof key, "%s", prefix);
    lsim_status st = lsim_yaml_check_keys(y, node, key, brdf_keys);
    if (st != LSIM_OK)
        return st;
    yaml_node_t *t = lsim_yaml_get(y, node, "type");
    snprintf(key, sizeof key, "%s.type", prefix);
    if (!t)
        return lsim_yaml_fail(y, node, LSIM_ERR_PARSE, key, "missing (required; lambertian, oren-nayar or "
                              "cook-torrance)");
    const char *name;
    if ((st = lsim_yaml_string(y, t, key, &name)) != LSIM_OK)
        return st;
    lsim_brdf_kind kind;
    if (lsim_brdf_kind_parse(name, &kind))
        return lsim_yaml_fail(y, t, LSIM_ERR_PARSE, key, "%s is not a BRDF; valid: lambertian, oren-nayar, "
                              "cook-torrance, retroreflector, mirror, glass", LSIM_YAML_Q(y, name));
    lsim_brdf_defaults(b, kind);
    struct { const char *name; double *out; } f[] = {
        {"reflectance", &b->reflectance}, {"roughness", &b->roughness}, {"ior", &b->ior}, {"f0", &b->f0},
        {"metallic", &b->metallic}, {"peak", &b->peak}, {"falloff_deg", &b->falloff_deg},
        {"transmittance", &b->transmittance},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; ++i) {
        yaml_node_t *v = lsim_yaml_get(y, node, f[i].name);
        snprintf(key, sizeof key, "%s.%s", prefix, f[i].name);
        if (v && (st = lsim_yaml_number(y, v, key, f[i].out)) != LSIM_OK)
            return st;
    }
    const char *short_name = strncmp(prefix, "materials.", 10) == 0 ? prefix + 10 : prefix;
    if (lsim_brdf_validate(y->ctx, b, short_name) != LSIM_OK) {
        char msg[LSIM_ERROR_MAX];
        lsim_strlcpy(msg, lsim_context_last_error(y->ctx), sizeof msg);
        return lsim_fail(y->ctx, LSIM_ERR_PARSE, "%s:%zu:%zu: %s", y->path, node->start_mark.line + 1,
                         node->start_mark.column + 1, msg);
    }
    if (fitted) {
        if ((st = get_number(y, node, "scale", prefix, 1, 0.0, 0, HUGE_VAL, "a finite number >= 0", scale)))
            return st;
        *rms = 0.0;
        if ((st = get_number(y, node, "rms", prefix, 0, 0.0, 0, HUGE_VAL, "a finite number >= 0", rms)))
            return st;
        *shape_fitted = 1; /* files without `fit:` */
        yaml_node_t *v = lsim_yaml_get(y, node, "fit");
        const char *fit;
        snprintf(key, sizeof key, "%s.fit", prefix);
        if (v && (st = lsim_yaml_string(y, v, key, &fit)) != LSIM_OK)
            return st;
        if (v && strcmp(fit, "shape-and-scale") != 0 && strcmp(fit, "scale-only") != 0)
            return lsim_yaml_fail(y, v, LSIM_ERR_PARSE, key, "%s is invalid; valid: shape-and-scale, scale-only",
                                  LSIM_YAML_Q(y, fit));
        if (v)
            *shape_fitted = strcmp(fit, "shape-and-scale") == 0;
    } else if (lsim_yaml_get(y, node, "scale") || lsim_yaml_get(y, node, "rms") || lsim_yaml_get(y, node, "fit")) {
        yaml_node_t *v = lsim_yaml_get(y, node, "scale") ? lsim_yaml_get(y, node, "scale")
                         : lsim_yaml_get(y, node, "rms") ? lsim_yaml_get(y, node, "rms") : lsim_yaml_get(y, node, "fit");
        return lsim_yaml_fail(y, v, LSIM_ERR_PARSE, prefix, "fit, scale and rms belong to the fitted `brdf:` only");
    }
    return LSIM_OK;
}

/* Optional `drop_halves: [below, from]`: the drop rates of the bin's two halves, each in [0, 1]. */
static lsim_status read_drop_halves(lsim_yaml *y, yaml_node_t *b, const char *bk, lsim_calib_bin *o)
{
    yaml_node_t *v = lsim_yaml_get(y, b, "drop_halves");
    if (!v)
        return LSIM_OK;
    char key[260];
    snprintf(key, sizeof key, "%s.drop_halves", bk);
    lsim_status st = lsim_yaml_numbers(y, v, key, o->drop_halves, 2, 2, NULL);
    for (int h = 0; h < 2 && st == LSIM_OK; ++h)
        if (!(o->drop_halves[h] >= 0.0 && o->drop_halves[h] <= 1.0))
            st = lsim_yaml_fail(y, v, LSIM_ERR_PARSE, key, "%g is out of range; valid: two fractions in [0, 1], "
                                "the drop rates below and from the bin's centre", o->drop_halves[h]);
    o->has_drop_halves = st == LSIM_OK;
    return st;
}

static lsim_status read_bins(lsim_yaml *y, yaml_node_t *node, const char *prefix, lsim_calib_material *m)
{
    char key[200];
    snprintf(key, sizeof key, "%s.bins", prefix);
    if (!node || node->type != YAML_SEQUENCE_NODE || node->data.sequence.items.top == node->data.sequence.items.start)
        return lsim_yaml_fail(y, node, LSIM_ERR_PARSE, key, "expected a non-empty list of bins ({angle_deg, n, "
                              "mean_intensity, std_intensity, std_range_m, drop_rate})");
    size_t count = (size_t)(node->data.sequence.items.top - node->data.sequence.items.start);
    m->bins = calloc(count, sizeof *m->bins);
    if (!m->bins)
        return lsim_fail(y->ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory reading %s", y->path);
    for (size_t k = 0; k < count; ++k) {
        yaml_node_t *b = yaml_document_get_node(&y->doc, node->data.sequence.items.start[k]);
        char bk[240];
        snprintf(bk, sizeof bk, "%s.bins[%zu]", prefix, k);
        lsim_status st = lsim_yaml_check_keys(y, b, bk, bin_keys);
        lsim_calib_bin *o = &m->bins[k];
        if (st == LSIM_OK)
            st = get_number(y, b, "angle_deg", bk, 1, 0.0, 0, 90.0, "degrees in [0, 90]", &o->angle_deg);
        if (st == LSIM_OK)
            st = get_count(y, b, "n", bk, 1, 1, &o->n);
        if (st == LSIM_OK)
            st = get_number(y, b, "mean_intensity", bk, 1, 0.0, 0, HUGE_VAL, "a finite number >= 0",
                            &o->mean_intensity);
        if (st == LSIM_OK)
            st = get_number(y, b, "std_intensity", bk, 1, 0.0, 0, HUGE_VAL, "a finite number >= 0",
                            &o->std_intensity);
        if (st == LSIM_OK)
            st = get_number(y, b, "std_range_m", bk, 1, 0.0, 0, HUGE_VAL, "metres >= 0", &o->std_range_m);
        if (st == LSIM_OK)
            st = get_number(y, b, "drop_rate", bk, 1, 0.0, 0, 1.0, "a fraction in [0, 1]", &o->drop_rate);
        if (st == LSIM_OK)
            st = get_number(y, b, "mean_range_m", bk, 0, -1.0, 0, 1.0, "metres in [-1, 1]", &o->mean_range_m);
        o->noise_mean_m = o->mean_range_m;
        o->noise_std_m = o->std_range_m;
        if (st == LSIM_OK)
            st = get_number(y, b, "noise_mean_m", bk, 0, -1.0, 0, 1.0, "metres in [-1, 1]", &o->noise_mean_m);
        if (st == LSIM_OK)
            st = get_number(y, b, "noise_std_m", bk, 0, 0.0, 0, HUGE_VAL, "metres >= 0", &o->noise_std_m);
        if (st == LSIM_OK)
            st = read_drop_halves(y, b, bk, o);
        if (st == LSIM_OK) {
            /* Bins sit on the grid of bin_width_deg (centres at (i + 0.5) w, the last one clipped at
               90 deg): validation and the viewer look bins up by that grid. */
            double centre = lsim_calib_bin_center(lsim_calib_bin_index(o->angle_deg, m->bin_width_deg),
                                                  m->bin_width_deg);
            if (fabs(o->angle_deg - centre) > 1e-6)
                st = lsim_yaml_fail(y, lsim_yaml_get(y, b, "angle_deg"), LSIM_ERR_PARSE, bk, "angle_deg %g is not "
                                    "the centre of a %g-degree bin (nearest centre %g); bins are centred at "
                                    "(i + 0.5) x bin_width_deg", o->angle_deg, m->bin_width_deg, centre);
            else
                o->angle_deg = centre;
        }
        if (st == LSIM_OK && k && !(o->angle_deg > m->bins[k - 1].angle_deg))
            st = lsim_yaml_fail(y, lsim_yaml_get(y, b, "angle_deg"), LSIM_ERR_PARSE, bk, "angle_deg %g is not above "
                                "the previous bin's %g; bins must be in ascending angle, each angle once",
                                o->angle_deg, m->bins[k - 1].angle_deg);
        if (st != LSIM_OK)
            return st;
        m->bin_count = k + 1;
    }
    return LSIM_OK;
}

static lsim_status read_material(lsim_yaml *y, yaml_node_t *node, size_t index, lsim_calib_material *m)
{
    char prefix[120];
    snprintf(prefix, sizeof prefix, "materials[%zu]", index);
    lsim_status st = lsim_yaml_check_keys(y, node, prefix, material_keys);
    if (st != LSIM_OK)
        return st;
    yaml_node_t *v = lsim_yaml_get(y, node, "name");
    const char *name;
    char key[200];
    snprintf(key, sizeof key, "%s.name", prefix);
    if (!v)
        return lsim_yaml_fail(y, node, LSIM_ERR_PARSE, key, "missing (required: the material's name)");
    if ((st = lsim_yaml_string(y, v, key, &name)) != LSIM_OK)
        return st;
    if (!lsim_calib_name_valid(name))
        return lsim_yaml_fail(y, v, LSIM_ERR_PARSE, key, "%s is invalid; valid: 1 to 63 characters of "
                              "letters, digits, '_', '-', '.'", LSIM_YAML_Q(y, name));
    lsim_strlcpy(m->name, name, sizeof m->name);
    snprintf(prefix, sizeof prefix, "materials.%s", name);
    if ((v = lsim_yaml_get(y, node, "source"))) {
        const char *s = v->type == YAML_SCALAR_NODE ? (const char *)v->data.scalar.value : NULL;
        snprintf(key, sizeof key, "%s.source", prefix);
        if (!s)
            return lsim_yaml_fail(y, v, LSIM_ERR_PARSE, key, "expected a string (the scan file)");
        lsim_strlcpy(m->source, s, sizeof m->source);
    }
    m->board_width_m = 0.0;
    m->band_m = 0.02;
    m->revolutions = 1;
    if (st == LSIM_OK)
        st = get_number(y, node, "fitted_distance_m", prefix, 1, 0.0, 1, 1000.0, "metres in (0, 1000]",
                        &m->fitted_distance_m);
    if (st == LSIM_OK)
        st = get_number(y, node, "configured_distance_m", prefix, 0, 0.0, 0, 1000.0, "metres in [0, 1000] (0 = not "
                        "measured)", &m->configured_distance_m);
    if (st == LSIM_OK)
        st = get_number(y, node, "normal_angle_rad", prefix, 1, -2.0 * LSIM_PI, 0, 2.0 * LSIM_PI,
                        "radians within +-2 pi", &m->normal_angle_rad);
    if (st == LSIM_OK)
        st = get_number(y, node, "board_width_m", prefix, 1, 0.0, 1, 1000.0, "metres in (0, 1000]",
                        &m->board_width_m);
    m->configured_width_m = m->board_width_m;
    if (st == LSIM_OK)
        st = get_number(y, node, "configured_width_m", prefix, 0, 0.0, 0, 1000.0, "metres in [0, 1000]",
                        &m->configured_width_m);
    if (st == LSIM_OK)
        st = get_number(y, node, "board_offset_m", prefix, 0, -1e6, 0, 1e6, "metres (finite)", &m->board_offset_m);
    if (st == LSIM_OK)
        st = get_number(y, node, "band_m", prefix, 0, 0.0, 1, 1000.0, "metres in (0, 1000]", &m->band_m);
    if (st == LSIM_OK)
        st = get_count(y, node, "outliers", prefix, 0, 0, &m->outliers);
    if (st == LSIM_OK)
        st = get_count(y, node, "revolutions", prefix, 0, 1, &m->revolutions);
    if (st == LSIM_OK)
        st = get_count(y, node, "beams_per_revolution", prefix, 0, 0, &m->beams_per_revolution);
    if (st == LSIM_OK)
        st = get_number(y, node, "bin_width_deg", prefix, 1, 0.05, 0, 45.0, "degrees in [0.05, 45]",
                        &m->bin_width_deg);
    if (st == LSIM_OK)
        st = get_number(y, node, "reach_min_m", prefix, 0, 0.0, 0, 1000.0, "metres in [0, 1000] (0 = not known)",
                        &m->reach_min_m);
    if (st == LSIM_OK)
        st = get_number(y, node, "reach_max_m", prefix, 0, 0.0, 0, 1000.0, "metres in [0, 1000] (0 = not known)",
                        &m->reach_max_m);
    if (st == LSIM_OK && m->reach_max_m > 0.0 && m->reach_max_m < m->reach_min_m)
        st = lsim_yaml_fail(y, lsim_yaml_get(y, node, "reach_max_m"), LSIM_ERR_PARSE, prefix, "reach_max_m %g is "
                            "below reach_min_m %g; valid: the nearest range, then the farthest", m->reach_max_m,
                            m->reach_min_m);
    /* A file with range_resolution_m has the bins' error before quantisation (noise_mean_m,
     * noise_std_m; absent keys: the measured moments); one without is an older file. */
    m->noise_fitted = lsim_yaml_get(y, node, "range_resolution_m") != NULL;
    if (st == LSIM_OK)
        st = get_number(y, node, "range_resolution_m", prefix, 0, 0.0, 0, 1.0, "metres in [0, 1] (0 = not on a grid)",
                        &m->range_resolution_m);
    if (st != LSIM_OK)
        return st;
    snprintf(key, sizeof key, "%s.brdf", prefix);
    if (!(v = lsim_yaml_get(y, node, "brdf")))
        return lsim_yaml_fail(y, node, LSIM_ERR_PARSE, key, "missing (required: {type, parameters, scale})");
    if ((st = read_brdf(y, v, key, 1, &m->brdf, &m->brdf_scale, &m->brdf_rms, &m->brdf_shape_fitted)) != LSIM_OK)
        return st;
    m->brdf_configured = m->brdf;
    snprintf(key, sizeof key, "%s.brdf_configured", prefix);
    if ((v = lsim_yaml_get(y, node, "brdf_configured")) &&
        (st = read_brdf(y, v, key, 0, &m->brdf_configured, NULL, NULL, NULL)) != LSIM_OK)
        return st;
    snprintf(key, sizeof key, "%s.bins", prefix);
    if (!(v = lsim_yaml_get(y, node, "bins")))
        return lsim_yaml_fail(y, node, LSIM_ERR_PARSE, key, "missing (required: the list of bins)");
    return read_bins(y, v, prefix, m);
}

lsim_status lsim_calibration_read(lsim_context *ctx, const char *path, lsim_calibration *cal)
{
    if (!cal)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_calibration_read: no output given");
    memset(cal, 0, sizeof *cal);
    if (!path || !*path)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "no calibration file given");
    struct stat info;
    if (stat(path, &info) == 0 && S_ISDIR(info.st_mode))
        return lsim_fail(ctx, LSIM_ERR_IO, "%s: is a directory, not a calibration file", path);
    FILE *f = NULL;
    lsim_status open_st = lsim_file_open(ctx, path, LSIM_INPUT_CALIBRATION, &f, NULL); /* "PATH: cannot open ..." */
    if (open_st != LSIM_OK)
        return open_st;
    int empty = 1, c;
    int comment = 0;
    while (empty && (c = fgetc(f)) != EOF) {
        if (c == '\n')
            comment = 0;
        else if (c == '#')
            comment = 1;
        else if (!comment && !isspace(c))
            empty = 0;
    }
    fclose(f);
    if (empty)
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s:1: the calibration file is empty; expected `lidarsim_calibration: "
                         "%d`, `sensor:` and `materials:` (docs/calibration.md)", path, LSIM_CALIB_VERSION);
    lsim_yaml y;
    lsim_status st = lsim_yaml_load(ctx, path, &y);
    if (st != LSIM_OK)
        return st;
    yaml_node_t *root = lsim_yaml_root(&y);
    yaml_node_t *v = root && root->type == YAML_MAPPING_NODE ? lsim_yaml_get(&y, root, "lidarsim_calibration") : NULL;
    long version = 0;
    if (!v)
        st = lsim_yaml_fail(&y, root, LSIM_ERR_PARSE, "lidarsim_calibration", "missing: not a lidarsim calibration "
                            "file (the first key must be `lidarsim_calibration: %d`)", LSIM_CALIB_VERSION);
    else if ((st = lsim_yaml_int(&y, v, "lidarsim_calibration", 0, LONG_MAX, &version)) == LSIM_OK &&
             version != LSIM_CALIB_VERSION)
        st = lsim_yaml_fail(&y, v, LSIM_ERR_PARSE, "lidarsim_calibration", "unknown version %ld; this lidarsim reads "
                            "version %d", version, LSIM_CALIB_VERSION);
    if (st == LSIM_OK)
        st = lsim_yaml_check_keys(&y, root, "(top level)", top_keys);
    cal->version = (int)version;
    if (st == LSIM_OK && (v = lsim_yaml_get(&y, root, "sensor"))) {
        const char *s;
        st = lsim_yaml_string(&y, v, "sensor", &s);
        if (st == LSIM_OK && !lsim_calib_name_valid(s))
            st = lsim_yaml_fail(&y, v, LSIM_ERR_PARSE, "sensor", "%s is invalid; valid: 1 to 63 characters of "
                                "letters, digits, '_', '-', '.'", LSIM_YAML_Q(&y, s));
        if (st == LSIM_OK)
            lsim_strlcpy(cal->sensor, s, sizeof cal->sensor);
    } else if (st == LSIM_OK) {
        st = lsim_yaml_fail(&y, root, LSIM_ERR_PARSE, "sensor", "missing (required: the sensor's name, e.g. "
                            "rplidar-a1)");
    }
    yaml_node_t *mats = st == LSIM_OK ? lsim_yaml_get(&y, root, "materials") : NULL;
    if (st == LSIM_OK && (!mats || mats->type != YAML_SEQUENCE_NODE ||
                          mats->data.sequence.items.top == mats->data.sequence.items.start))
        st = lsim_yaml_fail(&y, mats ? mats : root, LSIM_ERR_PARSE, "materials", "expected a non-empty list of "
                            "materials");
    if (st == LSIM_OK) {
        size_t count = (size_t)(mats->data.sequence.items.top - mats->data.sequence.items.start);
        cal->materials = calloc(count, sizeof *cal->materials);
        if (!cal->materials)
            st = lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory reading %s", path);
        for (size_t i = 0; st == LSIM_OK && i < count; ++i) {
            yaml_node_t *m = yaml_document_get_node(&y.doc, mats->data.sequence.items.start[i]);
            st = read_material(&y, m, i, &cal->materials[i]);
            cal->count = i + 1;
            for (size_t j = 0; st == LSIM_OK && j < i; ++j)
                if (strcmp(cal->materials[i].name, cal->materials[j].name) == 0)
                    st = lsim_yaml_fail(&y, lsim_yaml_get(&y, m, "name"), LSIM_ERR_PARSE, "materials",
                                        "material '%s' appears twice", cal->materials[i].name);
        }
    }
    lsim_yaml_free(&y);
    if (st != LSIM_OK)
        lsim_calibration_free(cal);
    return st;
}
