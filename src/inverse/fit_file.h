/* `lidarsim fit FIT.yaml -o FITTED.yaml` as library code (examples/cw/README.md; the public entry
 * point, lsim_fit_file_run in include/lidarsim.h, is fit_file_run.c):
 *   - fit_file.c: the fit file (which scene, which real scan, which parameters with start values
 *     and bounds, the loss), read and checked with FILE:LINE:COL messages; fit_file_setup.c turns
 *     it into an lsim_fit (lsim_fit_file_setup), every library error reported at the file's key;
 *   - fit_scan.c: the real scan, one row per beam in the sensor's beam order: CSV with a `range`
 *     column (and `intensity`), PCD (ascii or binary) and PLY (binary little-endian or ascii) with
 *     those fields, as `lidarsim scan --keep-misses` writes them, through the point files' column
 *     reader (formats/scan_columns.h);
 *   - fitted_scene.c: the scene file again, with the fitted values written in (libyaml document,
 *     emitted atomically), its relative file names rewritten to resolve from the output's folder.
 *
 * Fit file (paths relative to it):
 *   scene: room.yaml           required; its `sensor:` is the sensor being fitted
 *   scan: real.csv             required; one row per beam in the sensor's beam order
 *   intensity_weight: 1.0      optional: also fit the scan's intensities (m^2)
 *   parameters:                at least one parameter, at most 8 in all
 *     sensor: {dof: se2|se3, initial: {x: .., yaw_deg: ..}, bounds: {x: [lo, hi], ..}}
 *     objects: {NAME: {dof: se2|se3, initial: {..}, bounds: {..}}}
 *     reflectance: {MATERIAL: {initial: 0.5}}
 *     cw_bias: {initial: [c0, c1, c2], bounds: {c0: [lo, hi], ..}}
 *   loss: {type: squared|huber|cauchy, scale: 0.05}
 *   max_iterations: 100 */
#ifndef LSIM_INVERSE_FIT_FILE_H
#define LSIM_INVERSE_FIT_FILE_H

#include "lidarsim.h"
#include "scene/yaml_doc.h"

#include <stddef.h>

#define LSIM_FIT_FILE_MAX_PARAMS LSIM_FIT_FILE_MAX_PARAMETERS /* the fit's own limit (lsim_fit_add_*) */
#define LSIM_FIT_FILE_PATH_MAX 4096

/* A pose as parameters (the sensor's or a named object's). Axis order x y z roll pitch yaw;
 * metres and radians (the file's *_deg keys converted). */
typedef struct lsim_fit_file_pose {
    const char *name;      /* object name; NULL for the sensor */
    lsim_fit_pose dof;     /* SE2 or SE3 */
    int has_initial[6], has_bounds[6];
    double initial[6], lower[6], upper[6];
    yaml_node_t *node;     /* the pose's mapping (or its name, for objects) */
    yaml_node_t *initial_node[6], *bounds_node[6];
} lsim_fit_file_pose;

typedef struct lsim_fit_file_reflectance {
    const char *material;
    int has_initial;
    double initial;
    yaml_node_t *node, *initial_node;
} lsim_fit_file_reflectance;

typedef struct lsim_fit_file {
    lsim_yaml y;           /* the fit file's document: names and nodes point into it */
    char dir[LSIM_FIT_FILE_PATH_MAX];   /* the fit file's folder ("" for the current one) */
    char scene[LSIM_FIT_FILE_PATH_MAX]; /* resolved from the fit file's folder */
    char scan[LSIM_FIT_FILE_PATH_MAX];
    yaml_node_t *scene_node, *scan_node, *parameters_node, *intensity_node, *loss_node;
    double intensity_weight; /* 0: ranges only */
    int has_sensor;
    lsim_fit_file_pose sensor;
    size_t object_count;
    lsim_fit_file_pose objects[LSIM_FIT_FILE_MAX_PARAMS];
    size_t reflectance_count;
    lsim_fit_file_reflectance reflectances[LSIM_FIT_FILE_MAX_PARAMS];
    int has_bias, has_bias_initial, has_bias_bounds[3];
    double bias_initial[3], bias_lower[3], bias_upper[3];
    yaml_node_t *bias_node, *bias_initial_node, *bias_bounds_node[3];
    lsim_fit_loss loss;
    double loss_scale;       /* metres; 0 for squared */
    int max_iterations;      /* 100 unless given */
    int parameter_count;
} lsim_fit_file;

/* Read and check the fit file (structure, keys, numbers, bounds; not yet the scene). LSIM_ERR_PARSE
 * "FIT:LINE:COL: KEY: ..." naming what is valid; LSIM_ERR_IO when it cannot be read. On failure
 * nothing needs freeing; on success lsim_fit_file_free. */
lsim_status lsim_fit_file_read(lsim_context *ctx, const char *path, lsim_fit_file *out);
void lsim_fit_file_free(lsim_fit_file *f);

/* The scene file the fit file names, with its sensor (errors at the `scene:` key). */
lsim_status lsim_fit_file_load_scene(lsim_fit_file *f, lsim_scene **scene, lsim_sensor **sensor);

/* The fit the file describes for that scene and sensor: the real scan read and set (its row count
 * checked against the sensor's beams), every parameter added with its start value and bounds, the
 * loss. Library errors (no such object or material, a start outside its bounds) are reported at
 * the fit file's key. On success *out is the caller's (lsim_fit_destroy). */
lsim_status lsim_fit_file_setup(lsim_fit_file *f, lsim_scene *scene, lsim_sensor *sensor, lsim_fit **out);

/* The real scan: `count` rows, range (0: no return) and intensity (when asked for; 0: none). */
typedef struct lsim_fit_scan {
    size_t count;
    float *range, *intensity;
} lsim_fit_scan;

/* Read a scan (format from its content: "ply" -> PLY, a PCD header -> PCD, else CSV with a
 * header line). Rows beyond `max_rows` are counted but not kept (count says how many there are).
 * A miss may be 0, nan or inf. LSIM_ERR_PARSE "FILE:LINE: ..." for a malformed file, a missing
 * `range` (or, with want_intensity, `intensity`) column, a non-numeric or negative range. */
lsim_status lsim_fit_scan_read(lsim_context *ctx, const char *path, int want_intensity, size_t max_rows,
                               lsim_fit_scan *out);
void lsim_fit_scan_free(lsim_fit_scan *scan);

/* Why L-BFGS stopped (lsim_fit_result.lbfgs_status), in words (static). */
const char *lsim_fit_file_stop_reason(int lbfgs_status);

/* 1 if a parameter (as lsim_fit_parameter_name names it) is an angle (radians in the fit). */
int lsim_fit_file_is_angle(const char *name);

/* What reading the file (fit_file.c) and setting up the fit (fit_file_setup.c) share: the file's
 * pose axis keys in axis order (x y z roll pitch yaw), the CW bias keys (NULL-terminated), degrees
 * in radians, and the check that a start value lies strictly inside its bounds (the fit's logistic
 * map needs room on both sides): LSIM_OK, or a FILE:LINE:COL parse error at `at` naming `key`, the
 * values shown divided by `unit` with `unit_name`, and `from` appended. */
extern const char *const lsim_fit_file_axis_keys[6];
extern const char *const lsim_fit_file_bias_keys[4];
#define LSIM_FIT_FILE_DEG (3.14159265358979323846 / 180.0)
lsim_status lsim_fit_file_check_inside(lsim_yaml *y, yaml_node_t *at, const char *key, double v, double lo,
                                       double hi, double unit, const char *unit_name, const char *from);

/* Write the scene file `scene_path` to `out_path` (atomically: nothing is left on failure) with the
 * fitted values written in: `names` as lsim_fit_parameter_name gives them, `values` in the fit's
 * units (metres, radians, reflectance, bias). sensor.* -> sensor.position / rotation (degrees),
 * object.NAME.* -> that object's position / rotation, material.NAME.reflectance -> its reflectance,
 * bias.c0..c2 -> sensor.receiver.bias. Relative file names inside (meshes, sensor and kernel files,
 * calibrations, trajectories) are rewritten to resolve from out_path's folder. `comment` (may be
 * NULL): a comment line at the top. Comments of the scene file are not kept (libyaml). */
lsim_status lsim_fitted_scene_write(lsim_context *ctx, const char *scene_path, const char *out_path, size_t count,
                                    const char *const *names, const double *values, const char *comment);

#endif
