/* Velodyne units: a per-laser table (from a unit's calibration file or a built-in one) and the
 * model's firing sequence make a rotating spec.
 *
 * Geometry, as the velodyne_pointcloud driver turns a return into a point (its rawdata.cc), in
 * lidarsim's frame (x forward, y left, z up): laser l fires at head rotation `rot` (Velodyne
 * counts it clockwise from +x), its beam leaves at azimuth phi = rot_correction - rot
 * (counter-clockwise) and elevation v = vert_correction, from the origin
 *   horiz_offset * (-sin phi, cos phi, 0) + vert_offset * (-sin v cos phi, -sin v sin phi, cos v)
 * and the measured distance runs from that origin along the beam. So the head spins clockwise
 * (spin -1) from azimuth 0, a channel's azimuth offset is +rot_correction, and its origin at
 * head azimuth 0 is the expression above with phi = rot_correction; it turns with the head.
 *
 * Firing sequences (vendor user manuals, "laser firing sequence" / "timing" sections):
 *   VLP-16  (63-9243 Rev D): 16 lasers one at a time every 2.304 us, then an 18.432 us
 *           recharge: 55.296 us a sequence (18,084.5 sequences/s; ~289k points/s at 1 return).
 *   HDL-32E (63-9113 Rev J): 32 lasers one at a time every 1.152 us in a 40-slot cycle of 46.08 us
 *           (21,701.4 cycles/s; ~694k points/s).
 *   VLP-32C (63-9325 Rev B): lasers fire two at a time every 2.304 us, 16 firings and a
 *           recharge: 55.296 us a sequence.
 *   HDL-64E S2/S3 (63-HDL64ES2): the upper (lasers 0-31) and lower (32-63) blocks fire together,
 *           one laser of each at a time; > 1.333 M points/s, i.e. 20,833 sequences/s (48 us,
 *           1.5 us a slot).
 *   VLS-128 (63-9480): 128 lasers in groups of 8, a 53.3 us firing sequence (2.665 us a group);
 *           the group order of the real unit is not modelled (laser_id / 8).
 * A sequence is one column; the firing rate is fixed in hardware, so rate_hz changes the columns
 * per revolution (floor(sequences per second / rate_hz)). */
#include "sensor/unit_calibration.h"

#include "core/context.h"
#include "core/text.h"
#include "core/vec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct velodyne_model {
    const char *name;
    const char *preset;  /* preset giving its ranges, noise and optics; NULL: the values below */
    int lasers;
    double sequence_s;   /* one firing sequence = one column */
    double slot_s;       /* between firing slots */
    int per_slot;        /* lasers fired together */
    int blocks;          /* 1: laser l fires in slot l / per_slot; 2: slot l % (lasers / 2) (HDL-64E) */
    double range_min, range_max;
} velodyne_model;

static const velodyne_model models[] = {
    {"vlp16", "vlp16", 16, 55.296e-6, 2.304e-6, 1, 1, 0, 0},
    {"hdl32e", "hdl32e", 32, 46.08e-6, 1.152e-6, 1, 1, 0, 0},
    /* VLP-32C datasheet (63-9378): range up to 200 m */
    {"vlp32c", NULL, 32, 55.296e-6, 2.304e-6, 2, 1, 0.5, 200.0},
    {"hdl64e", "hdl64e", 64, 48e-6, 1.5e-6, 2, 2, 0, 0},
    /* VLS-128 datasheet (63-9480): range up to 245 m */
    {"vls128", NULL, 128, 53.3e-6, 2.665e-6, 8, 1, 0.5, 245.0},
};

/* The model of a table: by laser count; 32 lasers reaching below -28 deg are an HDL-32E. */
static const velodyne_model *find_model(const lsim_velodyne_table *t)
{
    double lowest = 0.0;
    for (int i = 0; i < t->count; ++i)
        lowest = fmin(lowest, t->laser[i].vert_rad / LSIM_DEG);
    switch (t->count) {
    case 16: return &models[0];
    case 32: return lowest < -28.0 ? &models[1] : &models[2];
    case 64: return &models[3];
    case 128: return &models[4];
    }
    return NULL;
}

static int by_elevation(const void *a, const void *b)
{
    const lsim_velodyne_laser *x = a, *y = b;
    return (x->vert_rad > y->vert_rad) - (x->vert_rad < y->vert_rad);
}

/* Replace the beams and timing of `spec` by the table's (rings by ascending elevation). */
static lsim_status apply_table(lsim_context *ctx, const char *source, const velodyne_model *m,
                               const lsim_velodyne_table *t, lsim_sensor_spec *spec)
{
    const int n = t->count;
    if (!(t->distance_resolution_m >= 0.0 && t->distance_resolution_m <= 1.0))
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s: distance_resolution %g m is out of range, must be 0..1 (Velodyne "
                         "units report 0.002 or 0.004)", source, t->distance_resolution_m);
    lsim_velodyne_laser sorted[LSIM_VELODYNE_MAX_LASERS];
    memcpy(sorted, t->laser, (size_t)n * sizeof *sorted);
    int seen[LSIM_VELODYNE_MAX_LASERS] = {0};
    for (int i = 0; i < n; ++i) {
        const lsim_velodyne_laser *l = &sorted[i];
        if (l->id < 0 || l->id >= n || seen[l->id]++)
            return lsim_fail(ctx, LSIM_ERR_PARSE, "%s: laser_id %d (entry %d) is %s; a table of %d lasers numbers them "
                             "0..%d once each", source, l->id, i, l->id < 0 || l->id >= n ? "out of range" : "repeated",
                             n, n - 1);
        if (!(fabs(l->vert_rad) <= LSIM_PI / 2) || !(fabs(l->rot_rad) <= LSIM_PI) || !(fabs(l->vert_offset_m) <= 1.0) ||
            !(fabs(l->horiz_offset_m) <= 1.0))
            return lsim_fail(ctx, LSIM_ERR_PARSE,
                             "%s: laser_id %d: vert_correction %g rad, rot_correction %g rad, vert_offset_correction "
                             "%g m, horiz_offset_correction %g m; must be finite, |angles| within pi/2 and pi, "
                             "offsets within 1 m (radians and metres, as velodyne_pointcloud writes them)",
                             source, l->id, l->vert_rad, l->rot_rad, l->vert_offset_m, l->horiz_offset_m);
    }
    qsort(sorted, (size_t)n, sizeof *sorted, by_elevation);
    double *elev = malloc((size_t)n * sizeof *elev), *az = malloc((size_t)n * sizeof *az);
    double *time = malloc((size_t)n * sizeof *time), *origin = malloc(3 * (size_t)n * sizeof *origin);
    if (!elev || !az || !time || !origin) {
        free(elev);
        free(az);
        free(time);
        free(origin);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for the beams of %s", source);
    }
    const int slots = m->lasers / m->per_slot;
    for (int k = 0; k < n; ++k) {
        const lsim_velodyne_laser *l = &sorted[k];
        const double v = l->vert_rad, phi = l->rot_rad;
        elev[k] = v / LSIM_DEG;
        az[k] = phi / LSIM_DEG;
        const int slot = m->blocks == 2 ? l->id % slots : l->id / m->per_slot;
        time[k] = slot * m->slot_s;
        origin[3 * k + 0] = -l->horiz_offset_m * sin(phi) - l->vert_offset_m * sin(v) * cos(phi);
        origin[3 * k + 1] = l->horiz_offset_m * cos(phi) - l->vert_offset_m * sin(v) * sin(phi);
        origin[3 * k + 2] = l->vert_offset_m * cos(v);
    }
    free(spec->elevations_deg);
    free(spec->channel_azimuth_deg);
    free(spec->channel_time_s);
    free(spec->channel_origin_m);
    spec->kind = LSIM_SENSOR_ROTATING;
    spec->channels = n;
    spec->elevations_deg = elev;
    spec->channel_azimuth_deg = az;
    spec->channel_time_s = time;
    spec->channel_origin_m = origin;
    spec->spin = -1;
    spec->azimuth_start_deg = 0.0;
    spec->firing_rate_hz = 1.0 / m->sequence_s;
    spec->columns = lsim_sensor_spec_columns_at_rate(spec);
    if (t->distance_resolution_m > 0.0)
        spec->range_resolution = t->distance_resolution_m;
    return LSIM_OK;
}

lsim_status lsim_velodyne_apply_builtin(lsim_context *ctx, const char *preset, lsim_sensor_spec *spec)
{
    const lsim_velodyne_table *t = lsim_velodyne_builtin(preset);
    const velodyne_model *m = t ? find_model(t) : NULL;
    if (!m)
        return lsim_fail(ctx, LSIM_ERR_NOT_FOUND, "preset '%s' has no built-in Velodyne table", preset);
    return apply_table(ctx, preset, m, t, spec);
}

lsim_status lsim_velodyne_spec(lsim_context *ctx, const char *source, const lsim_velodyne_table *table,
                               lsim_sensor_spec *spec)
{
    const velodyne_model *m = find_model(table);
    if (!m)
        return lsim_fail(ctx, LSIM_ERR_PARSE,
                         "%s: a Velodyne table of %d lasers; lidarsim knows the firing sequences of 16 (VLP-16), 32 "
                         "(HDL-32E, VLP-32C), 64 (HDL-64E) and 128 (VLS-128) lasers", source, table->count);
    lsim_status st;
    if (m->preset) {
        lsim_sensor_spec_free(spec);
        if ((st = lsim_sensor_spec_from_preset(ctx, m->preset, spec)) != LSIM_OK)
            return st;
    } else {
        lsim_sensor_spec_free(spec);
        lsim_sensor_spec_defaults(spec);
        spec->range_min = m->range_min;
        spec->range_max = m->range_max;
        spec->range_sigma = 0.015;
        spec->noise_snr = 1; /* as every preset */
        spec->beam.divergence_mrad = 3.0;
        spec->receiver.pulse_width_ns = 5.0;
    }
    /* the name says which model and which unit: "hdl64e:64e_s2.1-sztaki.json" */
    const char *base = strrchr(source, '/');
    char name[sizeof spec->name];
    snprintf(name, sizeof name, "%s:%s", m->name, base ? base + 1 : source);
    lsim_strlcpy(spec->name, name, sizeof spec->name);
    return apply_table(ctx, source, m, table, spec);
}

lsim_status lsim_velodyne_timing(lsim_context *ctx, const char *source, const lsim_velodyne_table *table,
                                 const char **model, double *sequence_s, double time_s[LSIM_VELODYNE_MAX_LASERS])
{
    lsim_sensor_spec spec;
    lsim_sensor_spec_defaults(&spec);
    lsim_status st = lsim_velodyne_spec(ctx, source, table, &spec); /* checks the table */
    lsim_sensor_spec_free(&spec);
    if (st != LSIM_OK)
        return st;
    const velodyne_model *m = find_model(table);
    const int slots = m->lasers / m->per_slot;
    for (int i = 0; i < table->count; ++i) {
        const int id = table->laser[i].id;
        time_s[id] = (m->blocks == 2 ? id % slots : id / m->per_slot) * m->slot_s;
    }
    *model = m->name;
    *sequence_s = m->sequence_s;
    return LSIM_OK;
}
