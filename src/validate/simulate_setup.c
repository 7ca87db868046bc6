/* Re-simulating a calibration setup through the public multi-frame API: one scene (the board) and
 * one point buffer, one frame per revolution of the real scan with that revolution's beam angles
 * (see validate/simulate_setup.h). */
#include "validate/simulate_setup.h"

#include "core/context.h"
#include "core/vec.h"
#include "scene/scene.h" /* lsim_scene_add_calibration: a calibration in memory, not in a file */

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The settings the simulation takes from the sensor's preset. */
typedef struct preset_settings {
    double range_min, range_max, range_resolution;
    double range_sigma, intensity_sigma, detection_reflectance;
} preset_settings;

static lsim_status read_preset(lsim_context *ctx, const char *name, preset_settings *out)
{
    lsim_sensor *preset = NULL;
    lsim_status st = lsim_sensor_create_preset(ctx, name, &preset);
    if (st == LSIM_OK)
        st = lsim_sensor_get_range(preset, &out->range_min, &out->range_max, &out->range_resolution);
    if (st == LSIM_OK)
        st = lsim_sensor_get_noise(preset, &out->range_sigma, &out->intensity_sigma, &out->detection_reflectance);
    lsim_sensor_destroy(preset);
    return st;
}

/* The real scan's intensity when every return reads the same value (a binary sensor), else NaN. */
static double binary_value(const lsim_scan_data *scan)
{
    double v = NAN;
    for (size_t i = 0; i < scan->count; ++i) {
        if (!lsim_scan_returned(scan, i))
            continue;
        if (isnan(v))
            v = scan->intensity[i];
        else if (scan->intensity[i] != v)
            return NAN;
    }
    return v;
}

/* The scene of the setup: the board's material (calibrated, or its configured BRDF) and the board
 * at its fitted pose, normal along phi, its extent centred board_offset_m along the line. */
static lsim_status build_board(lsim_scene *scene, const lsim_calib_material *m, size_t per_rev, int calibrated)
{
    lsim_status st;
    if (calibrated) {
        st = lsim_scene_add_calibration(scene, "board", m);
    } else { /* BRDF-only: the configured BRDF through the range equation */
        const lsim_brdf *b = &m->brdf_configured;
        lsim_material_desc d;
        lsim_material_desc_init(&d, (lsim_material_type)b->kind);
        d.reflectance = b->reflectance;
        d.roughness = b->roughness;
        d.ior = b->ior;
        d.f0 = b->f0;
        d.metallic = b->metallic;
        st = lsim_scene_add_material(scene, "board", &d);
    }
    if (st != LSIM_OK)
        return st;
    /* The extent ends at the last beams that hit it; each end is padded by half the spacing of beam
     * hits there, so a beam on the edge hits as it did, not by the luck of rounding. */
    const double phi = m->normal_angle_rad, d = m->fitted_distance_m;
    const double step = 2.0 * LSIM_PI / (double)per_rev;
    double lo = m->board_offset_m - 0.5 * m->board_width_m, hi = m->board_offset_m + 0.5 * m->board_width_m;
    double pad_lo = 0.5 * d * step / pow(cos(atan(fabs(lo) / d)), 2.0);
    double pad_hi = 0.5 * d * step / pow(cos(atan(fabs(hi) / d)), 2.0);
    lo -= pad_lo;
    hi += pad_hi;
    const double s = 0.5 * (lo + hi);
    lsim_object_desc o;
    lsim_object_desc_init(&o);
    o.material = "board";
    o.position[0] = d * cos(phi) - s * sin(phi);
    o.position[1] = d * sin(phi) + s * cos(phi);
    o.rotation_deg[1] = 90.0; /* plane x -> vertical, plane y -> along the line after the yaw */
    o.rotation_deg[2] = phi * 180.0 / LSIM_PI;
    const double size[2] = {1.0, hi - lo};
    return lsim_scene_add_plane(scene, size, &o);
}

/* The sensor of revolution r: the real scan's beam angles of that revolution (az, el: scratch of
 * per_rev), at the origin, with the preset's noise and range resolution and the reach `nearest`. */
static lsim_status revolution_sensor(lsim_context *ctx, const lsim_scan_data *real, size_t r, size_t per_rev,
                                     double *az, const double *el, const preset_settings *preset, double nearest,
                                     lsim_sensor **out)
{
    static const double zero[3] = {0, 0, 0};
    for (size_t i = 0; i < per_rev; ++i)
        az[i] = lsim_wrap_angle(real->angle_rad[r * per_rev + i]) * 180.0 / LSIM_PI;
    lsim_status st = lsim_sensor_create_pattern(ctx, per_rev, az, el, NULL, NULL, out);
    if (st == LSIM_OK)
        st = lsim_sensor_set_pose(*out, zero, zero);
    if (st == LSIM_OK)
        st = lsim_sensor_set_range(*out, nearest, preset->range_max);
    if (st == LSIM_OK)
        st = lsim_sensor_set_noise(*out, preset->range_sigma, preset->intensity_sigma, preset->detection_reflectance);
    if (st == LSIM_OK)
        st = lsim_sensor_set_range_resolution(*out, preset->range_resolution);
    return st;
}

/* Copy one simulated revolution (keep_misses: one point per beam), of real revolution r, into
 * revolution `slot` of the scan `out`. */
static lsim_status store_revolution(lsim_context *ctx, const lsim_points *p, const lsim_calib_material *m,
                                    const lsim_scan_data *real, size_t r, size_t slot, int calibrated, double binary,
                                    lsim_scan_data *out)
{
    const size_t per_rev = real->beams_per_revolution;
    if (lsim_points_count(p) != per_rev)
        return lsim_fail(ctx, LSIM_ERR_ENGINE, "the simulated revolution %zu has %zu points for %zu beams", r,
                         lsim_points_count(p), per_rev);
    const float *range = lsim_points_column(p, LSIM_FIELD_RANGE);
    const float *in = lsim_points_column(p, LSIM_FIELD_INTENSITY);
    const float *refl = lsim_points_column(p, LSIM_FIELD_REFLECTIVITY);
    for (size_t i = 0; i < per_rev; ++i) {
        size_t k = slot * per_rev + i;
        out->angle_rad[k] = real->angle_rad[r * per_rev + i];
        int hit = range[i] > 0.0f;
        out->range_m[k] = hit ? range[i] : INFINITY;
        if (!hit)
            out->intensity[k] = 0.0;
        else if (calibrated)
            out->intensity[k] = in[i];
        else /* BRDF-only in the sensor's scale */
            out->intensity[k] = !isnan(binary) ? binary : m->brdf_scale * refl[i];
    }
    return LSIM_OK;
}

lsim_status lsim_valid_simulate_setup(lsim_context *ctx, const lsim_calib_material *m, const lsim_scan_data *real,
                                      const char *sensor_name, int calibrated, const lsim_valid_options *opt,
                                      lsim_scan_data *out)
{
    memset(out, 0, sizeof *out);
    /* Complete revolutions only: revolution r is the per_rev beams from r * per_rev (the caller
     * checked the structure and cut a trailing partial revolution; never index past count). */
    const size_t per_rev = real->beams_per_revolution, revs = lsim_scan_complete_revolutions(real);
    if (per_rev == 0 || revs == 0)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "the scan has no complete revolution to simulate (%zu beams, "
                         "%zu per revolution)", real->count, per_rev);
    lsim_scene *scene = NULL;
    lsim_sensor *sensor = NULL;
    double *az = malloc(per_rev * sizeof *az), *el = calloc(per_rev, sizeof *el);
    preset_settings preset;
    memset(&preset, 0, sizeof preset);
    lsim_status st = (az && el) ? LSIM_OK : lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory");
    if (st == LSIM_OK)
        st = read_preset(ctx, sensor_name, &preset);
    if (st == LSIM_OK)
        st = lsim_scene_create(ctx, &scene);
    if (st == LSIM_OK)
        st = build_board(scene, m, per_rev, calibrated);
    /* The real sensor's reach on the material (it returned nearer than its datasheet minimum):
     * the calibrated material carries it (noise/calibrated.h), as in a user's scan; the BRDF-only
     * model gets the same reach from the sensor's range, so that the comparison is of noise and
     * drop-out, not of the range gate. */
    double nearest = preset.range_min;
    if (!calibrated && m->reach_min_m > 0.0)
        nearest = fmin(nearest, m->reach_min_m - 0.5 * preset.range_resolution);
    const size_t passes = LSIM_VALID_SIM_PASSES, total = revs * passes;
    if (st == LSIM_OK) {
        out->count = per_rev * total;
        out->range_m = malloc(out->count * sizeof *out->range_m);
        out->intensity = malloc(out->count * sizeof *out->intensity);
        out->angle_rad = malloc(out->count * sizeof *out->angle_rad);
        out->revolutions = total;
        out->beams_per_revolution = per_rev;
        if (!out->range_m || !out->intensity || !out->angle_rad)
            st = lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for %zu simulated beams", out->count);
    }
    const double binary = binary_value(real);
    /* One scene and one point buffer, one frame per simulated revolution (frame_index keys its
     * noise): each real revolution `passes` times, so the simulated statistics are the model's to
     * within a small Monte Carlo error (their sampling error is 1/sqrt(passes) of the real's). */
    lsim_points *p = NULL;
    if (st == LSIM_OK)
        st = lsim_points_create(ctx, &p);
    for (size_t r = 0; r < revs && st == LSIM_OK; ++r) {
        lsim_sensor_destroy(sensor);
        sensor = NULL;
        st = revolution_sensor(ctx, real, r, per_rev, az, el, &preset, nearest, &sensor);
        for (size_t pass = 0; pass < passes && st == LSIM_OK; ++pass) {
            const size_t slot = pass * revs + r;
            lsim_scan_options so;
            lsim_scan_options_init(&so);
            so.seed = opt->seed;
            so.frame_index = (uint32_t)slot;
            so.threads = opt->threads;
            so.keep_misses = 1;
            st = lsim_scene_scan_into(scene, sensor, &so, p);
            if (st == LSIM_OK)
                st = store_revolution(ctx, p, m, real, r, slot, calibrated, binary, out);
        }
    }
    lsim_points_destroy(p);
    if (st != LSIM_OK)
        lsim_scan_free(out);
    lsim_sensor_destroy(sensor);
    lsim_scene_destroy(scene);
    free(az);
    free(el);
    return st;
}
