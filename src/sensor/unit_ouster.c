/* Ouster units: sensor metadata (beam intrinsics, lidar mode, lidar_to_sensor_transform) make a
 * rotating spec.
 *
 * Geometry, as the Ouster software user manual turns a pixel into a point (lidar frame): column
 * m of W sits at the encoder angle theta_e = 2 pi (1 - m / W), so the head spins clockwise; beam
 * i leaves at theta_e - beam_azimuth_angles[i] (degrees) and elevation beam_altitude_angles[i]
 * from n (lidar_origin_to_beam_origin_mm) out along theta_e, and the range r it reports is n
 * plus the distance from there. lidar_to_sensor_transform then takes the lidar frame to the
 * sensor frame (a turn about z, 180 deg on every unit, and a lift of 36.18 mm on an OS1): the turn
 * moves where a frame starts (azimuth_start_deg), the lift every beam's origin. lidarsim's range
 * is the distance from the beam's origin, i.e. the Ouster range minus n.
 *
 * All pixels of a column fire together (the column's timestamp); W x rate_hz is one of the lidar
 * modes (512, 1024, 2048 x 10, 20 Hz; not 2048 x 20).
 *
 * The Ouster presets are real units' metadata (ouster_tables.c, tools/make_ouster_tables.py) made
 * into a spec the same way; an imported unit starts from the preset of its product line. */
#include "sensor/unit_calibration.h"
#include "sensor/beam.h"

#include "core/context.h"
#include "core/text.h"
#include "core/vec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Turn every channel's origin to radial `origin_mm` out along the head, `lift_mm` up. */
static lsim_status set_origins(lsim_context *ctx, lsim_sensor_spec *spec, double origin_mm, double lift_mm)
{
    double *o = malloc(3 * (size_t)spec->channels * sizeof *o);
    if (!o)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for %d beam origins", spec->channels);
    for (int k = 0; k < spec->channels; ++k) {
        o[3 * k + 0] = origin_mm * 1e-3;
        o[3 * k + 1] = 0.0;
        o[3 * k + 2] = lift_mm * 1e-3;
    }
    free(spec->channel_origin_m);
    spec->channel_origin_m = o;
    return LSIM_OK;
}

/* Replace the beams, lidar mode and head of `spec` by the unit's (`source` names it in messages). */
static lsim_status apply_table(lsim_context *ctx, const char *source, const lsim_ouster_table *t, lsim_sensor_spec *spec)
{
    const double *m = t->lidar_to_sensor;
    /* only a turn about z and a lift along it: any other transform would not turn with the head */
    const double turn = atan2(m[4], m[0]) / LSIM_DEG;
    const double c = cos(turn * LSIM_DEG), s = sin(turn * LSIM_DEG);
    const double expect[16] = {c, -s, 0, 0, s, c, 0, 0, 0, 0, 1, m[11], 0, 0, 0, 1};
    int ok = fabs(m[11]) <= 1e4;
    for (int i = 0; i < 16; ++i)
        ok &= fabs(m[i] - expect[i]) <= 1e-6;
    if (!ok)
        return lsim_fail(ctx, LSIM_ERR_PARSE,
                         "%s: lidar_to_sensor_transform [%g %g %g %g; %g %g %g %g; %g %g %g %g; %g %g %g %g] is not a "
                         "turn about z and a lift along it; lidarsim models only those (every Ouster unit's)", source,
                         m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8], m[9], m[10], m[11], m[12], m[13], m[14],
                         m[15]);
    const int n = t->count;
    double *elev = malloc((size_t)n * sizeof *elev), *az = malloc((size_t)n * sizeof *az);
    if (!elev || !az) {
        free(elev);
        free(az);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for the beams of %s", source);
    }
    /* Ouster lists beams from the top down; lidarsim's ring 0 is the lowest */
    for (int k = 0; k < n; ++k) {
        elev[k] = t->altitude_deg[n - 1 - k];
        az[k] = -t->azimuth_deg[n - 1 - k];
    }
    for (int k = 1; k < n; ++k)
        if (!(elev[k] >= elev[k - 1])) {
            /* beam n-1-k (ring k) lies below beam n-k (ring k-1) */
            lsim_status st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s: beam_altitude_angles must fall from the first beam to "
                                       "the last (beam %d at %g deg is above beam %d at %g deg)", source, n - k,
                                       elev[k - 1], n - 1 - k, elev[k]);
            free(elev);
            free(az);
            return st;
        }
    free(spec->elevations_deg);
    free(spec->channel_azimuth_deg);
    spec->channels = n;
    spec->elevations_deg = elev;
    spec->channel_azimuth_deg = az;
    spec->columns = t->columns;
    spec->rate_hz = t->rate_hz;
    spec->spin = -1;
    spec->azimuth_start_deg = lsim_wrap_deg(turn);
    spec->ouster_modes = 1;
    return set_origins(ctx, spec, t->origin_mm, m[11] + t->beam_z_mm);
}

lsim_status lsim_ouster_apply_builtin(lsim_context *ctx, const char *preset, lsim_sensor_spec *spec)
{
    const lsim_ouster_table *t = lsim_ouster_builtin(preset);
    if (!t)
        return lsim_fail(ctx, LSIM_ERR_NOT_FOUND, "preset '%s' has no built-in Ouster table", preset);
    return apply_table(ctx, preset, t, spec);
}

/* The Ouster preset an imported unit starts from (its ranges, optics, receiver and noise): the
 * unit's product line (prod_line OS-0-*, OS-1-*, OS-2-*, or OS0/OS1/OS2; OS1 when it says none)
 * and, within it, the preset with the nearest channel count. */
static const char *preset_for(const lsim_ouster_table *t)
{
    static const struct { char line; int channels; const char *preset; } presets[] = {
        {'0', 32, "os0-32"}, {'1', 32, "os1-32"}, {'1', 64, "os1-64"}, {'1', 128, "os1-128"}, {'2', 128, "os2-128"},
    };
    const char *p = t->product;
    char line = '1';
    if (strncmp(p, "OS-", 3) == 0 && (p[3] == '0' || p[3] == '1' || p[3] == '2'))
        line = p[3];
    else if (strncmp(p, "OS", 2) == 0 && (p[2] == '0' || p[2] == '1' || p[2] == '2'))
        line = p[2];
    const char *best = NULL;
    int best_gap = 0;
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; ++i) {
        const int gap = abs(presets[i].channels - t->count);
        if (presets[i].line == line && (!best || gap < best_gap)) {
            best = presets[i].preset;
            best_gap = gap;
        }
    }
    return best;
}

lsim_status lsim_ouster_spec(lsim_context *ctx, const char *source, const lsim_ouster_table *t, lsim_sensor_spec *spec)
{
    lsim_sensor_spec_free(spec);
    lsim_status st = lsim_sensor_spec_from_preset(ctx, preset_for(t), spec);
    if (st == LSIM_OK)
        st = apply_table(ctx, source, t, spec);
    if (st != LSIM_OK) {
        lsim_sensor_spec_free(spec);
        return st;
    }
    const char *base = strrchr(source, '/');
    char name[sizeof spec->name];
    snprintf(name, sizeof name, "ouster:%s", base ? base + 1 : source);
    lsim_strlcpy(spec->name, name, sizeof spec->name);
    return LSIM_OK;
}
