/* What to calibrate: one entry per benchmark material (thesis Table 4.1 / A.1), read from the
 * thesis's `data.config` or from a YAML file (docs/calibration.md).
 *
 * data.config: one line per material, `name,file,distance_m,width_m,BRDF,roughness,fresnel`:
 *   file        scan file, relative to the config file's folder (or absolute);
 *   distance_m  the hand-measured distance (0 = not measured; only reported beside the fitted one);
 *   BRDF        ON (oren-nayar), CT (cook-torrance), L (lambertian), or the full names;
 *   roughness   the starting roughness of the fit (oren-nayar sigma in radians, cook-torrance (0, 1]);
 *   fresnel     the thesis's "index of refraction" column: >= 1 is an ior, 0 < v < 1 an f0 (normal-
 *               incidence reflectance), 0 (what the thesis's files hold) = not given: ior 1.5 (f0 0.04).
 *   Blank lines, '#' comments and a header line starting with `name,` are skipped.
 * YAML: `sensor:` (optional), `bin_width_deg:` (optional), `materials:` a list of mappings
 *   {name, file, width_m, distance_m (optional), brdf: oren-nayar|cook-torrance|lambertian
 *   (default oren-nayar), roughness, ior, f0 (optional), direction_deg, window_deg (optional)}. */
#ifndef LSIM_CALIB_CALIB_CONFIG_H
#define LSIM_CALIB_CALIB_CONFIG_H

#include "lidarsim.h"
#include "optics/brdf.h"

#include <stddef.h>

#define LSIM_CALIB_DEFAULT_SENSOR "rplidar-a1"
#define LSIM_CALIB_DEFAULT_DIRECTION_DEG 180.0 /* the thesis's boards face the sensor's back */
#define LSIM_CALIB_DEFAULT_WINDOW_DEG 80.0     /* half-width of the search window */

typedef struct lsim_calib_input {
    char name[64];
    char *scan_path;       /* owned; resolved against the config file's folder */
    double distance_m;     /* hand-measured, 0 = not given */
    double width_m;        /* board width, > 0 */
    lsim_brdf brdf;        /* kind and starting parameters of the fit */
    double direction_deg;  /* expected direction of the board centre (sensor frame) */
    double window_deg;     /* half-width of the window searched for the board */
    size_t line;           /* line in the config file (0: not from a file) */
} lsim_calib_input;

typedef struct lsim_calib_config {
    char sensor[64];
    double bin_width_deg;  /* 0 = not given (the caller's default applies) */
    size_t count;
    lsim_calib_input *inputs;
} lsim_calib_config;

/* Read data.config (CSV) or YAML; the form is chosen by the extension (.yaml/.yml) or, failing
 * that, by the first significant line (`key:` without a comma -> YAML). */
lsim_status lsim_calib_config_read(lsim_context *ctx, const char *path, lsim_calib_config *out);
void lsim_calib_config_free(lsim_calib_config *cfg);

/* Refuse outputs that would overwrite an input: each of outputs[0..n) (NULL entries skipped)
 * against the config file `config_path` (may be NULL), each material's scan, and the other
 * outputs. LSIM_ERR_INVALID_ARGUMENT naming both when two would write one regular file
 * (core/file_id.h lsim_file_same_output: "a.csv", "./a.csv" and a link are one, also before the
 * file exists; "-", devices and FIFOs never clash); LSIM_OK otherwise. `what[i]` names output i
 * in the message ("the calibration", "the report"). */
lsim_status lsim_calib_config_check_outputs(lsim_context *ctx, const lsim_calib_config *cfg, const char *config_path,
                                            const char *const *outputs, const char *const *what, size_t n);

/* The same for the files of an output set (a view folder's or an output folder's, output/output_set.h)
 * once they are planned: none may be the config file or a scan, and the report (`report_path`,
 * NULL: none) none of them. LSIM_ERR_INVALID_ARGUMENT naming both; LSIM_OK otherwise. */
struct lsim_output_set;
lsim_status lsim_calib_config_check_set(lsim_context *ctx, const lsim_calib_config *cfg, const char *config_path,
                                        const struct lsim_output_set *outs, const char *report_path);

/* A material name is 1..63 characters of [A-Za-z0-9_.-] (it appears in `FILE#name`). */
int lsim_calib_name_valid(const char *name);
/* "ON"/"oren-nayar", "CT"/"cook-torrance", "L"/"lambertian" (case-insensitive) -> kind; 0 on success. */
int lsim_calib_brdf_parse(const char *text, lsim_brdf_kind *out);
/* The thesis's fresnel column -> brdf->ior / f0 (see above); 0 on success, -1 if invalid. */
int lsim_calib_apply_fresnel(lsim_brdf *brdf, double fresnel);
/* Defaults for a material input (direction 180, window 80, oren-nayar with roughness 0.3). */
void lsim_calib_input_init(lsim_calib_input *in);

#endif
