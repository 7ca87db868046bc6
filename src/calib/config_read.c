/* Calibration inputs: the thesis's data.config (CSV) and the YAML form (calib_config.h). */
#include "calib/calib_config.h"

#include "core/context.h"
#include "core/file_open.h"
#include "core/text.h"
#include "core/vec.h"
#include "scene/yaml_doc.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

void lsim_calib_input_init(lsim_calib_input *in)
{
    memset(in, 0, sizeof *in);
    lsim_brdf_defaults(&in->brdf, LSIM_BRDF_OREN_NAYAR);
    in->direction_deg = LSIM_CALIB_DEFAULT_DIRECTION_DEG;
    in->window_deg = LSIM_CALIB_DEFAULT_WINDOW_DEG;
}

void lsim_calib_config_free(lsim_calib_config *cfg)
{
    if (!cfg)
        return;
    for (size_t i = 0; i < cfg->count; ++i)
        free(cfg->inputs[i].scan_path);
    free(cfg->inputs);
    memset(cfg, 0, sizeof *cfg);
}

int lsim_calib_name_valid(const char *name)
{
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n > 63)
        return 0;
    for (size_t i = 0; i < n; ++i)
        if (!(isalnum((unsigned char)name[i]) || name[i] == '_' || name[i] == '-' || name[i] == '.'))
            return 0;
    return 1;
}

int lsim_calibration_name_valid(const char *name) { return lsim_calib_name_valid(name); }

int lsim_calib_brdf_parse(const char *text, lsim_brdf_kind *out)
{
    if (!text)
        return -1;
    if (strcasecmp(text, "ON") == 0 || strcasecmp(text, "oren-nayar") == 0)
        *out = LSIM_BRDF_OREN_NAYAR;
    else if (strcasecmp(text, "CT") == 0 || strcasecmp(text, "cook-torrance") == 0)
        *out = LSIM_BRDF_COOK_TORRANCE;
    else if (strcasecmp(text, "L") == 0 || strcasecmp(text, "lambertian") == 0)
        *out = LSIM_BRDF_LAMBERTIAN;
    else
        return -1;
    return 0;
}

int lsim_calibration_brdf_parse(const char *text, lsim_material_type *out)
{
    lsim_brdf_kind kind;
    if (!out || lsim_calib_brdf_parse(text, &kind))
        return 0;
    *out = kind == LSIM_BRDF_COOK_TORRANCE ? LSIM_MATERIAL_COOK_TORRANCE
         : kind == LSIM_BRDF_LAMBERTIAN    ? LSIM_MATERIAL_LAMBERTIAN
                                           : LSIM_MATERIAL_OREN_NAYAR;
    return 1;
}

int lsim_calib_apply_fresnel(lsim_brdf *brdf, double fresnel)
{
    if (!isfinite(fresnel) || fresnel < 0.0 || fresnel > 10.0)
        return -1;
    if (fresnel == 0.0)
        return 0; /* not given: keep the defaults (ior 1.5, f0 from it) */
    if (fresnel >= 1.0) {
        brdf->ior = fresnel;
        brdf->f0 = -1.0;
    } else {
        brdf->f0 = fresnel;
    }
    return 0;
}

/* `dir/rel` unless rel is absolute (or the config sits in the current folder). */
static char *resolve_path(const char *config_path, const char *rel)
{
    const char *slash = strrchr(config_path, '/');
    if (rel[0] == '/' || !slash)
        return lsim_strdup(rel);
    size_t dn = (size_t)(slash - config_path) + 1, rn = strlen(rel);
    char *p = malloc(dn + rn + 1);
    if (!p)
        return NULL;
    memcpy(p, config_path, dn);
    memcpy(p + dn, rel, rn + 1);
    return p;
}

static lsim_status push_input(lsim_context *ctx, lsim_calib_config *cfg, size_t *cap, const lsim_calib_input *in)
{
    if (cfg->count == *cap) {
        size_t n = *cap ? *cap * 2 : 8;
        lsim_calib_input *p = realloc(cfg->inputs, n * sizeof *p);
        if (!p)
            return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory reading the calibration config");
        cfg->inputs = p;
        *cap = n;
    }
    cfg->inputs[cfg->count++] = *in;
    return LSIM_OK;
}

/* Range checks shared by both forms; `where` is "FILE:LINE" and key names follow the YAML form. */
static lsim_status check_input(lsim_context *ctx, const char *where, const lsim_calib_input *in)
{
    if (!(in->width_m > 0.0 && in->width_m <= 100.0))
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s: %s: width_m %g is invalid; valid: the board width in metres, "
                         "> 0 and <= 100", where, in->name, in->width_m);
    if (!(in->distance_m >= 0.0 && in->distance_m <= 1000.0))
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s: %s: distance_m %g is invalid; valid: metres >= 0 (0 = not "
                         "measured)", where, in->name, in->distance_m);
    if (!(in->window_deg > 0.0 && in->window_deg <= 180.0))
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s: %s: window_deg %g is invalid; valid: (0, 180] degrees", where,
                         in->name, in->window_deg);
    if (!(fabs(in->direction_deg) <= 720.0))
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s: %s: direction_deg %g is invalid; valid: degrees within +-720",
                         where, in->name, in->direction_deg);
    const lsim_brdf *b = &in->brdf;
    if (b->kind == LSIM_BRDF_OREN_NAYAR && !(b->roughness >= 0.0 && b->roughness <= LSIM_PI / 2.0))
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s: %s: roughness %g is invalid for oren-nayar; valid: [0, pi/2] "
                         "(facet slope deviation, radians)", where, in->name, b->roughness);
    if (b->kind == LSIM_BRDF_COOK_TORRANCE && !(b->roughness > 0.0 && b->roughness <= 1.0))
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s: %s: roughness %g is invalid for cook-torrance; valid: (0, 1]",
                         where, in->name, b->roughness);
    if (!(b->ior >= 1.0 && b->ior <= 10.0))
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s: %s: ior %g is invalid; valid: [1, 10]", where, in->name, b->ior);
    if (!(b->f0 < 0.0 || (b->f0 >= 0.0 && b->f0 <= 1.0)))
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s: %s: f0 %g is invalid; valid: [0, 1]", where, in->name, b->f0);
    return LSIM_OK;
}

static lsim_status check_unique(lsim_context *ctx, const char *path, const lsim_calib_config *cfg)
{
    for (size_t i = 0; i < cfg->count; ++i)
        for (size_t j = 0; j < i; ++j)
            if (strcmp(cfg->inputs[i].name, cfg->inputs[j].name) == 0)
                return lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: material '%s' appears twice (first on line %zu); "
                                 "names must be unique", path, cfg->inputs[i].line, cfg->inputs[i].name,
                                 cfg->inputs[j].line);
    return LSIM_OK;
}

/* ------------------------------------------------------------------------------------------- */
/* data.config                                                                                  */


static int parse_number(const char *s, double *out)
{
    if (!*s)
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (*end || errno == ERANGE || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

static const char *const csv_fields[7] = {"name", "file", "distance_m", "width_m", "BRDF", "roughness", "fresnel"};

static lsim_status read_csv(lsim_context *ctx, const char *path, FILE *f, lsim_calib_config *cfg)
{
    lsim_strlcpy(cfg->sensor, LSIM_CALIB_DEFAULT_SENSOR, sizeof cfg->sensor);
    char *line = NULL;
    size_t line_cap = 0, cap = 0, number = 0;
    lsim_status st = LSIM_OK;
    while (st == LSIM_OK && getline(&line, &line_cap, f) >= 0) {
        ++number;
        char *s = lsim_trim(line);
        if (!*s || *s == '#' || strncasecmp(s, "name,", 5) == 0)
            continue;
        char *field[8];
        size_t nf = lsim_split_fields(s, ',', field, 8);
        if (nf != 7) {
            st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: expected 7 comma-separated fields `name,file,distance_m,"
                           "width_m,BRDF,roughness,fresnel` (e.g. `wall,./data/wall_data.txt,0.457,1.25,ON,0.5,0.0`), "
                           "got %zu", path, number, nf);
            break;
        }
        lsim_calib_input in;
        lsim_calib_input_init(&in);
        in.line = number;
        if (!lsim_calib_name_valid(field[0])) {
            st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: field 1 (name) is invalid; valid: 1 to 63 characters of "
                           "letters, digits, '_', '-', '.'", path, number);
            break;
        }
        lsim_strlcpy(in.name, field[0], sizeof in.name);
        if (!*field[1]) {
            st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: field 2 (file) is empty; give the scan file (relative to "
                           "the config file)", path, number);
            break;
        }
        lsim_brdf_kind kind;
        if (lsim_calib_brdf_parse(field[4], &kind)) {
            st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: field 5 (BRDF) is invalid; valid: ON (oren-nayar), "
                           "CT (cook-torrance), L (lambertian)", path, number);
            break;
        }
        lsim_brdf_defaults(&in.brdf, kind);
        double v[7];
        for (int k = 2; k < 7 && st == LSIM_OK; ++k) {
            if (k == 4)
                continue;
            if (parse_number(field[k], &v[k]))
                st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: field %d (%s) is not a number", path, number, k + 1,
                               csv_fields[k]);
        }
        if (st != LSIM_OK)
            break;
        in.distance_m = v[2];
        in.width_m = v[3];
        in.brdf.roughness = v[5];
        if (lsim_calib_apply_fresnel(&in.brdf, v[6])) {
            st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: field 7 (fresnel) %g is invalid; valid: 0 (not given: ior "
                           "1.5), an f0 in (0, 1) or an ior in [1, 10]", path, number, v[6]);
            break;
        }
        char where[600];
        snprintf(where, sizeof where, "%s:%zu", path, number);
        st = check_input(ctx, where, &in);
        if (st != LSIM_OK)
            break;
        in.scan_path = resolve_path(path, field[1]);
        if (!in.scan_path) {
            st = lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory reading %s", path);
            break;
        }
        st = push_input(ctx, cfg, &cap, &in);
        if (st != LSIM_OK)
            free(in.scan_path);
    }
    free(line);
    if (st == LSIM_OK && ferror(f))
        st = lsim_fail(ctx, LSIM_ERR_IO, "%s: read error", path);
    if (st == LSIM_OK && !cfg->count)
        st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s: no materials; expected lines `name,file,distance_m,width_m,BRDF,"
                       "roughness,fresnel`", path);
    return st;
}

/* ------------------------------------------------------------------------------------------- */
/* YAML                                                                                         */

static const char *const top_keys[] = {"sensor", "bin_width_deg", "materials", NULL};
static const char *const material_keys[] = {"name", "file", "width_m", "distance_m", "brdf", "roughness", "ior",
                                            "f0", "direction_deg", "window_deg", NULL};

static lsim_status read_yaml_material(lsim_yaml *y, yaml_node_t *m, size_t index, lsim_calib_input *in)
{
    char key[96];
    snprintf(key, sizeof key, "materials[%zu]", index);
    lsim_status st = lsim_yaml_check_keys(y, m, key, material_keys);
    if (st != LSIM_OK)
        return st;
    lsim_calib_input_init(in);
    in->line = m->start_mark.line + 1;
    const char *name = NULL, *file = NULL, *brdf = "oren-nayar";
    yaml_node_t *v = lsim_yaml_get(y, m, "name");
    if (!v)
        return lsim_yaml_fail(y, m, LSIM_ERR_PARSE, key, "missing `name:` (the material's name)");
    snprintf(key, sizeof key, "materials[%zu].name", index);
    if ((st = lsim_yaml_string(y, v, key, &name)) != LSIM_OK)
        return st;
    if (!lsim_calib_name_valid(name))
        return lsim_yaml_fail(y, v, LSIM_ERR_PARSE, key, "%s is invalid; valid: 1 to 63 characters of letters, "
                              "digits, '_', '-', '.'", LSIM_YAML_Q(y, name));
    lsim_strlcpy(in->name, name, sizeof in->name);
    snprintf(key, sizeof key, "materials.%s", name);
    if (!(v = lsim_yaml_get(y, m, "file")))
        return lsim_yaml_fail(y, m, LSIM_ERR_PARSE, key, "missing `file:` (the scan file, relative to this file)");
    char sub[160];
    snprintf(sub, sizeof sub, "%s.file", key);
    if ((st = lsim_yaml_string(y, v, sub, &file)) != LSIM_OK)
        return st;
    if (!(v = lsim_yaml_get(y, m, "width_m")))
        return lsim_yaml_fail(y, m, LSIM_ERR_PARSE, key, "missing `width_m:` (the board width in metres)");
    snprintf(sub, sizeof sub, "%s.width_m", key);
    if ((st = lsim_yaml_number(y, v, sub, &in->width_m)) != LSIM_OK)
        return st;
    if (!(in->width_m > 0.0 && in->width_m <= 100.0))
        return lsim_yaml_fail(y, v, LSIM_ERR_PARSE, sub, "%g is invalid; valid: > 0 and <= 100 metres", in->width_m);
    if ((v = lsim_yaml_get(y, m, "brdf"))) {
        snprintf(sub, sizeof sub, "%s.brdf", key);
        lsim_brdf_kind kind;
        if ((st = lsim_yaml_string(y, v, sub, &brdf)) != LSIM_OK)
            return st;
        if (lsim_calib_brdf_parse(brdf, &kind))
            return lsim_yaml_fail(y, v, LSIM_ERR_PARSE, sub, "%s is invalid; valid: oren-nayar, cook-torrance, "
                                  "lambertian", LSIM_YAML_Q(y, brdf));
        lsim_brdf_defaults(&in->brdf, kind);
    }
    struct { const char *name; double *out; double lo, hi; const char *valid; } nums[] = {
        {"distance_m", &in->distance_m, 0.0, 1000.0, ">= 0 metres (0 = not measured)"},
        {"roughness", &in->brdf.roughness, in->brdf.kind == LSIM_BRDF_COOK_TORRANCE ? 1e-300 : 0.0,
         in->brdf.kind == LSIM_BRDF_COOK_TORRANCE ? 1.0 : LSIM_PI / 2.0,
         in->brdf.kind == LSIM_BRDF_COOK_TORRANCE ? "(0, 1] for cook-torrance" : "[0, pi/2] radians for oren-nayar"},
        {"ior", &in->brdf.ior, 1.0, 10.0, "[1, 10]"},
        {"f0", &in->brdf.f0, 0.0, 1.0, "[0, 1]"},
        {"direction_deg", &in->direction_deg, -720.0, 720.0, "degrees within +-720"},
        {"window_deg", &in->window_deg, 1e-300, 180.0, "(0, 180] degrees"},
    };
    for (size_t k = 0; k < sizeof nums / sizeof nums[0]; ++k) {
        if (!(v = lsim_yaml_get(y, m, nums[k].name)))
            continue;
        snprintf(sub, sizeof sub, "%s.%s", key, nums[k].name);
        if ((st = lsim_yaml_number(y, v, sub, nums[k].out)) != LSIM_OK)
            return st;
        if (!(*nums[k].out >= nums[k].lo && *nums[k].out <= nums[k].hi))
            return lsim_yaml_fail(y, v, LSIM_ERR_PARSE, sub, "%g is invalid; valid: %s", *nums[k].out, nums[k].valid);
    }
    in->scan_path = resolve_path(y->path, file);
    if (!in->scan_path)
        return lsim_fail(y->ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory reading %s", y->path);
    return LSIM_OK;
}

static lsim_status read_yaml(lsim_context *ctx, const char *path, lsim_calib_config *cfg)
{
    lsim_yaml y;
    lsim_status st = lsim_yaml_load(ctx, path, &y);
    if (st != LSIM_OK)
        return st;
    yaml_node_t *root = lsim_yaml_root(&y);
    st = lsim_yaml_check_keys(&y, root, "(top level)", top_keys);
    lsim_strlcpy(cfg->sensor, LSIM_CALIB_DEFAULT_SENSOR, sizeof cfg->sensor);
    yaml_node_t *v;
    if (st == LSIM_OK && (v = lsim_yaml_get(&y, root, "sensor"))) {
        const char *s;
        st = lsim_yaml_string(&y, v, "sensor", &s);
        if (st == LSIM_OK && !lsim_calib_name_valid(s))
            st = lsim_yaml_fail(&y, v, LSIM_ERR_PARSE, "sensor", "%s is invalid; valid: 1 to 63 characters "
                                "of letters, digits, '_', '-', '.' (e.g. rplidar-a1)", LSIM_YAML_Q(&y, s));
        if (st == LSIM_OK)
            lsim_strlcpy(cfg->sensor, s, sizeof cfg->sensor);
    }
    if (st == LSIM_OK && (v = lsim_yaml_get(&y, root, "bin_width_deg"))) {
        st = lsim_yaml_number(&y, v, "bin_width_deg", &cfg->bin_width_deg);
        if (st == LSIM_OK && !(cfg->bin_width_deg >= 0.05 && cfg->bin_width_deg <= 45.0))
            st = lsim_yaml_fail(&y, v, LSIM_ERR_PARSE, "bin_width_deg", "%g is invalid; valid: 0.05 to 45 degrees",
                                cfg->bin_width_deg);
    }
    yaml_node_t *mats = st == LSIM_OK ? lsim_yaml_get(&y, root, "materials") : NULL;
    if (st == LSIM_OK && !mats)
        st = lsim_yaml_fail(&y, root, LSIM_ERR_PARSE, "materials", "missing `materials:` (a list of {name, file, "
                            "width_m, ...})");
    if (st == LSIM_OK && (mats->type != YAML_SEQUENCE_NODE || mats->data.sequence.items.top ==
                                                                   mats->data.sequence.items.start))
        st = lsim_yaml_fail(&y, mats, LSIM_ERR_PARSE, "materials", "expected a non-empty list of materials "
                            "(`- name: wall` ...)");
    size_t cap = 0;
    for (size_t i = 0; st == LSIM_OK && mats->data.sequence.items.start + i < mats->data.sequence.items.top; ++i) {
        yaml_node_t *m = yaml_document_get_node(&y.doc, mats->data.sequence.items.start[i]);
        lsim_calib_input in;
        st = read_yaml_material(&y, m, i, &in);
        if (st == LSIM_OK) {
            st = push_input(ctx, cfg, &cap, &in);
            if (st != LSIM_OK)
                free(in.scan_path);
        }
    }
    lsim_yaml_free(&y);
    return st;
}

/* ------------------------------------------------------------------------------------------- */

lsim_status lsim_calib_config_read(lsim_context *ctx, const char *path, lsim_calib_config *out)
{
    memset(out, 0, sizeof *out);
    if (!path || !*path)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "no calibration config given");
    FILE *f;
    lsim_status open_st = lsim_file_open(ctx, path, LSIM_INPUT_CALIB_CONFIG, &f, NULL);
    if (open_st != LSIM_OK)
        return open_st;
    int yaml = lsim_ends_with(path, ".yaml") || lsim_ends_with(path, ".yml");
    int empty = 1;
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, f) >= 0) {
        char *s = lsim_trim(line);
        if (!*s || *s == '#')
            continue;
        empty = 0;
        if (!yaml && !strchr(s, ',') && (strchr(s, ':') || strcmp(s, "---") == 0))
            yaml = 1;
        break;
    }
    free(line);
    lsim_status st;
    if (empty) {
        st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s:1: the calibration config is empty; expected data.config lines "
                       "`name,file,distance_m,width_m,BRDF,roughness,fresnel` or YAML with `materials:`", path);
    } else if (yaml) {
        st = read_yaml(ctx, path, out);
    } else {
        rewind(f);
        st = read_csv(ctx, path, f, out);
    }
    fclose(f);
    if (st == LSIM_OK)
        st = check_unique(ctx, path, out);
    if (st != LSIM_OK)
        lsim_calib_config_free(out);
    return st;
}
