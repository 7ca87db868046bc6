/* The optics keys of a scene file's `sensor:` (beam, receiver, baseline) and its top-level
 * `max_bounces`, `atmosphere` and `ambient`. */
#include "scene/scene_file.h"

#include "core/context.h"
#include "core/text.h"
#include "sensor/sensor.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const beam_keys[] = {"divergence_mrad", "mode", "rings", "kernel", "algorithm", "range_bin",
                                        "layout", NULL};
static const char *const kernel_keys[] = {"core_fwhm_deg", "halo_level", "halo_extent_deg", "file", "halo_rows",
                                          NULL};
static const char *const receiver_keys[] = {"pulse_width_ns", "returns", "max_returns", "peak_power_w",
                                            "aperture_m2", "efficiency", "overlap_m", "type", "frequencies_hz",
                                            "samples", "periods", "bias", "overlap", "overlap_full_m",
                                            "ambient_ref_w_m2", NULL};
static const char *const atmosphere_keys[] = {"extinction_per_m", "visibility_m", "backscatter_per_m_sr", NULL};
static const char *const ambient_keys[] = {"sun_direction", "irradiance_w_m2", NULL};

/* Match a string value against names; the index, or an error listing them. */
static lsim_status parse_choice(lsim_yaml *y, yaml_node_t *node, const char *key, const char *const *names,
                                const char *valid, int *out)
{
    const char *s;
    lsim_status st = lsim_yaml_string(y, node, key, &s);
    if (st != LSIM_OK)
        return st;
    for (int i = 0; names[i]; ++i)
        if (strcmp(s, names[i]) == 0) {
            *out = i;
            return LSIM_OK;
        }
    return lsim_yaml_fail(y, node, LSIM_ERR_PARSE, key, "%s is not valid; valid: %s", LSIM_YAML_Q(y, s), valid);
}

lsim_status lsim_scene_file_read_beam(lsim_yaml *y, yaml_node_t *map, const char *dir, lsim_beam_spec *beam)
{
    lsim_status st = lsim_yaml_check_keys(y, map, "sensor.beam", beam_keys);
    if (st == LSIM_OK)
        st = lsim_yaml_opt_number(y, map, "divergence_mrad", "sensor.beam.divergence_mrad", &beam->divergence_mrad);
    yaml_node_t *mode = lsim_yaml_get(y, map, "mode");
    if (st == LSIM_OK && mode) {
        static const char *const modes[] = {"single", "rays", "kernel", NULL};
        int m = 0;
        st = parse_choice(y, mode, "sensor.beam.mode", modes, "single, rays, kernel", &m);
        beam->mode = (lsim_beam_mode)m;
    }
    if (st == LSIM_OK)
        st = lsim_yaml_opt_int(y, map, "rings", "sensor.beam.rings", 1, 8, &beam->rings);
    yaml_node_t *layout = lsim_yaml_get(y, map, "layout");
    if (st == LSIM_OK && layout) { /* rays mode's sub-ray layout (optics/subrays.h) */
        static const char *const layouts[] = {"rings", "line", NULL};
        st = parse_choice(y, layout, "sensor.beam.layout", layouts, "rings, line", &beam->layout);
    }
    if (st == LSIM_OK)
        st = lsim_yaml_opt_int(y, map, "algorithm", "sensor.beam.algorithm", 1, 2, &beam->algorithm);
    if (st == LSIM_OK)
        st = lsim_yaml_opt_number(y, map, "range_bin", "sensor.beam.range_bin", &beam->range_bin);
    yaml_node_t *kernel = lsim_yaml_get(y, map, "kernel");
    if (st == LSIM_OK && kernel) {
        st = lsim_yaml_check_keys(y, kernel, "sensor.beam.kernel", kernel_keys);
        if (st == LSIM_OK)
            st = lsim_yaml_opt_number(y, kernel, "core_fwhm_deg", "sensor.beam.kernel.core_fwhm_deg",
                                      &beam->core_fwhm_deg);
        if (st == LSIM_OK)
            st = lsim_yaml_opt_number(y, kernel, "halo_level", "sensor.beam.kernel.halo_level", &beam->halo_level);
        if (st == LSIM_OK)
            st = lsim_yaml_opt_number(y, kernel, "halo_extent_deg", "sensor.beam.kernel.halo_extent_deg",
                                      &beam->halo_extent_deg);
        yaml_node_t *rows = lsim_yaml_get(y, kernel, "halo_rows");
        if (st == LSIM_OK && rows) { /* pipeline/kernel_rows.c: the halo's rows coarse (default) or all */
            static const char *const halo_rows[] = {"coarse", "fine", NULL};
            st = parse_choice(y, rows, "sensor.beam.kernel.halo_rows", halo_rows, "coarse, fine", &beam->fine_halo);
        }
        yaml_node_t *file = lsim_yaml_get(y, kernel, "file");
        if (st == LSIM_OK && file) {
            const char *name;
            st = lsim_yaml_string(y, file, "sensor.beam.kernel.file", &name);
            if (st == LSIM_OK && lsim_scene_file_resolve(dir, name, beam->kernel_file, sizeof beam->kernel_file))
                st = lsim_yaml_fail(y, file, LSIM_ERR_PARSE, "sensor.beam.kernel.file", "a path of %zu bytes is too long",
                                    strlen(name));
        }
    }
    return st;
}

/* The overlap of every echo (receiver/overlap.h): `overlap: [[R, f], ...]` (a measured curve),
 * `overlap: none`, or `overlap_full_m: R` (the quadratic form); either replaces a preset's. */
static lsim_status read_overlap(lsim_yaml *y, yaml_node_t *map, lsim_receiver_spec *rx)
{
    yaml_node_t *curve = lsim_yaml_get(y, map, "overlap"), *full = lsim_yaml_get(y, map, "overlap_full_m");
    if (curve && full)
        return lsim_yaml_fail(y, full, LSIM_ERR_PARSE, "sensor.receiver.overlap_full_m",
                              "overlap (a measured curve) and overlap_full_m (the quadratic form) exclude each other; "
                              "give one");
    if (full) {
        rx->overlap_points = 0;
        return lsim_yaml_number(y, full, "sensor.receiver.overlap_full_m", &rx->overlap_full_m);
    }
    if (!curve)
        return LSIM_OK;
    rx->overlap_full_m = 0.0;
    rx->overlap_points = 0;
    if (curve->type == YAML_SCALAR_NODE) {
        const char *s;
        lsim_status st = lsim_yaml_string(y, curve, "sensor.receiver.overlap", &s);
        if (st == LSIM_OK && strcmp(s, "none") != 0)
            st = lsim_yaml_fail(y, curve, LSIM_ERR_PARSE, "sensor.receiver.overlap",
                                "%s is not an overlap; give none or a list of [range_m, factor] pairs",
                                LSIM_YAML_Q(y, s));
        return st;
    }
    if (curve->type != YAML_SEQUENCE_NODE)
        return lsim_yaml_fail(y, curve, LSIM_ERR_PARSE, "sensor.receiver.overlap",
                              "expected none or a list of [range_m, factor] pairs");
    const int n = (int)(curve->data.sequence.items.top - curve->data.sequence.items.start);
    if (n < 1 || n > LSIM_OVERLAP_MAX_POINTS)
        return lsim_yaml_fail(y, curve, LSIM_ERR_PARSE, "sensor.receiver.overlap",
                              "%d points; give 1..%d [range_m, factor] pairs", n, LSIM_OVERLAP_MAX_POINTS);
    for (int i = 0; i < n; ++i) {
        yaml_node_t *pair = yaml_document_get_node(&y->doc, curve->data.sequence.items.start[i]);
        char key[48];
        snprintf(key, sizeof key, "sensor.receiver.overlap[%d]", i);
        lsim_status st = lsim_yaml_numbers(y, pair, key, rx->overlap_curve[i], 2, 2, NULL);
        if (st != LSIM_OK)
            return st;
    }
    rx->overlap_points = n;
    return LSIM_OK;
}

lsim_status lsim_scene_file_read_receiver(lsim_yaml *y, yaml_node_t *map, lsim_receiver_spec *rx)
{
    lsim_status st = lsim_yaml_check_keys(y, map, "sensor.receiver", receiver_keys);
    if (st == LSIM_OK)
        st = lsim_yaml_opt_number(y, map, "pulse_width_ns", "sensor.receiver.pulse_width_ns", &rx->pulse_width_ns);
    yaml_node_t *returns = lsim_yaml_get(y, map, "returns");
    if (st == LSIM_OK && returns) {
        static const char *const modes[] = {"first", "strongest", "last", "dual", "all", NULL};
        int m = 0;
        st = parse_choice(y, returns, "sensor.receiver.returns", modes, "first, strongest, last, dual, all", &m);
        rx->mode = (lsim_returns_mode)m;
        if (st == LSIM_OK && rx->mode == LSIM_RETURNS_DUAL && rx->max_returns < 2)
            rx->max_returns = 2; /* dual reports two echoes unless max_returns says otherwise */
        if (st == LSIM_OK && rx->mode == LSIM_RETURNS_ALL && rx->max_returns < 2)
            rx->max_returns = 4;
    }
    if (st == LSIM_OK)
        st = lsim_yaml_opt_int(y, map, "max_returns", "sensor.receiver.max_returns", 1, 16, &rx->max_returns);
    if (st == LSIM_OK)
        st = lsim_yaml_opt_number(y, map, "peak_power_w", "sensor.receiver.peak_power_w", &rx->peak_power_w);
    if (st == LSIM_OK)
        st = lsim_yaml_opt_number(y, map, "aperture_m2", "sensor.receiver.aperture_m2", &rx->aperture_m2);
    if (st == LSIM_OK)
        st = lsim_yaml_opt_number(y, map, "efficiency", "sensor.receiver.efficiency", &rx->efficiency);
    yaml_node_t *type = lsim_yaml_get(y, map, "type");
    if (st == LSIM_OK && type) {
        static const char *const types[] = {"pulsed", "cw", NULL};
        st = parse_choice(y, type, "sensor.receiver.type", types, "pulsed, cw (continuous-wave, phase-shift)", &rx->cw);
    }
    if (st == LSIM_OK)
        st = lsim_yaml_opt_vec(y, map, "frequencies_hz", "sensor.receiver.frequencies_hz", rx->cw_freq_hz, 2);
    if (st == LSIM_OK)
        st = lsim_yaml_opt_int(y, map, "samples", "sensor.receiver.samples", 4, 256, &rx->cw_samples);
    if (st == LSIM_OK)
        st = lsim_yaml_opt_int(y, map, "periods", "sensor.receiver.periods", 1, 10000, &rx->cw_periods);
    if (st == LSIM_OK)
        st = lsim_yaml_opt_vec(y, map, "bias", "sensor.receiver.bias", rx->cw_bias, 3);
    if (st == LSIM_OK)
        st = lsim_yaml_opt_vec(y, map, "overlap_m", "sensor.receiver.overlap_m", rx->overlap_m, 2);
    if (st == LSIM_OK)
        st = read_overlap(y, map, rx);
    if (st == LSIM_OK)
        st = lsim_yaml_opt_number(y, map, "ambient_ref_w_m2", "sensor.receiver.ambient_ref_w_m2", &rx->ambient_ref_w_m2);
    return st;
}

/* atmosphere: {visibility_m | extinction_per_m, backscatter_per_m_sr}. Fog after Hahner et al.
 * 2021: visibility is the meteorological optical range V (5 % contrast), alpha = ln(20) / V, and
 * the backscatter beta = 0.046 / V unless given (extinction_per_m alone: V = ln(20) / alpha). */
static lsim_status read_atmosphere(lsim_yaml *y, yaml_node_t *atm, lsim_scene *scene)
{
    lsim_status st = lsim_yaml_check_keys(y, atm, "atmosphere", atmosphere_keys);
    yaml_node_t *ext = lsim_yaml_get(y, atm, "extinction_per_m"), *vis = lsim_yaml_get(y, atm, "visibility_m");
    yaml_node_t *back = lsim_yaml_get(y, atm, "backscatter_per_m_sr");
    if (st == LSIM_OK && ext && vis)
        st = lsim_yaml_fail(y, vis, LSIM_ERR_PARSE, "atmosphere",
                            "give either extinction_per_m or visibility_m (fog: extinction = ln(20) / visibility)");
    if (st == LSIM_OK && !ext && !vis)
        st = lsim_yaml_fail(y, atm, LSIM_ERR_PARSE, "atmosphere",
                            "needs visibility_m (fog: meteorological optical range, m) or extinction_per_m");
    double alpha = 0.0, visibility = 0.0, beta = 0.0;
    if (st == LSIM_OK && ext) {
        st = lsim_yaml_number(y, ext, "atmosphere.extinction_per_m", &alpha);
        if (st == LSIM_OK && !(alpha >= 0.0 && alpha <= LSIM_EXTINCTION_MAX))
            st = lsim_yaml_fail(y, ext, LSIM_ERR_PARSE, "atmosphere.extinction_per_m",
                                "%g is invalid; must be 0..%g 1/m (fog of 1 m visibility is 3.0)", alpha,
                                LSIM_EXTINCTION_MAX);
        visibility = alpha > 0.0 ? LSIM_LN_20 / alpha : 0.0;
    }
    if (st == LSIM_OK && vis) {
        st = lsim_yaml_number(y, vis, "atmosphere.visibility_m", &visibility);
        if (st == LSIM_OK && !(visibility >= LSIM_VISIBILITY_MIN && isfinite(visibility)))
            st = lsim_yaml_fail(y, vis, LSIM_ERR_PARSE, "atmosphere.visibility_m",
                                "%g is invalid; must be > 0 m, at least %g m (extinction ln(20) / visibility "
                                "<= %g 1/m)", visibility, LSIM_VISIBILITY_MIN, LSIM_EXTINCTION_MAX);
        alpha = LSIM_LN_20 / visibility;
    }
    if (st == LSIM_OK)
        beta = visibility > 0.0 ? LSIM_FOG_BACKSCATTER_MOR / visibility : 0.0;
    if (st == LSIM_OK && back) {
        st = lsim_yaml_number(y, back, "atmosphere.backscatter_per_m_sr", &beta);
        if (st == LSIM_OK && !(beta >= 0.0 && beta <= alpha))
            st = lsim_yaml_fail(y, back, LSIM_ERR_PARSE, "atmosphere.backscatter_per_m_sr",
                                "%g is invalid; must be 0..the extinction (%g 1/m); fog after Hahner et al. has "
                                "0.046 / visibility", beta, alpha);
    }
    if (st == LSIM_OK && lsim_scene_set_atmosphere(scene, alpha, beta) != LSIM_OK) {
        char msg[LSIM_ERROR_MAX];
        lsim_strlcpy(msg, lsim_context_last_error(y->ctx), sizeof msg);
        st = lsim_yaml_fail(y, atm, LSIM_ERR_PARSE, "atmosphere", "%s", msg);
    }
    return st;
}

lsim_status lsim_scene_file_read_environment(lsim_yaml *y, yaml_node_t *root, lsim_scene *scene)
{
    lsim_status st = LSIM_OK;
    yaml_node_t *bounces = lsim_yaml_get(y, root, "max_bounces");
    if (bounces) {
        long b;
        st = lsim_yaml_int(y, bounces, "max_bounces", 0, 16, &b);
        if (st == LSIM_OK)
            scene->max_bounces = (int)b;
    }
    yaml_node_t *atm = lsim_yaml_get(y, root, "atmosphere");
    if (st == LSIM_OK && atm)
        st = read_atmosphere(y, atm, scene);
    yaml_node_t *amb = lsim_yaml_get(y, root, "ambient");
    if (st == LSIM_OK && amb) {
        double sun[3] = {0, 0, 1}, irradiance = 0.0;
        st = lsim_yaml_check_keys(y, amb, "ambient", ambient_keys);
        if (st == LSIM_OK)
            st = lsim_yaml_opt_vec(y, amb, "sun_direction", "ambient.sun_direction", sun, 3);
        if (st == LSIM_OK)
            st = lsim_yaml_opt_number(y, amb, "irradiance_w_m2", "ambient.irradiance_w_m2", &irradiance);
        if (st == LSIM_OK && lsim_scene_set_ambient(scene, sun, irradiance) != LSIM_OK) {
            char msg[LSIM_ERROR_MAX];
            lsim_strlcpy(msg, lsim_context_last_error(y->ctx), sizeof msg);
            st = lsim_yaml_fail(y, amb, LSIM_ERR_PARSE, "ambient", "%s", msg);
        }
    }
    return st;
}
