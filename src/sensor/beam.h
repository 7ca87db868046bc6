/* One beam of a frame in double precision, and the per-kind generators (internal to src/sensor).
 *
 * Every generator is a pure function of (spec, index): beam i of the frame in time order.
 * lsim_beams_generate turns them into the float arrays the scan uses; lsim_sensor_get_beams
 * calls them again to hand out exact degrees. */
#ifndef LSIM_SENSOR_BEAM_H
#define LSIM_SENSOR_BEAM_H

#include "sensor/sensor.h"

#include <stddef.h>
#include <stdint.h>

typedef struct lsim_beam {
    double azimuth_deg;   /* atan2(y, x) of the direction, in (-180, 180] */
    double elevation_deg; /* asin(z), in [-90, 90] */
    double time_s;        /* from the start of the frame */
    uint16_t ring;
    double dir[3];        /* unit direction, sensor frame (x forward, y left, z up) */
    double origin[3];     /* where the beam starts, sensor frame (0 unless the spec says) */
} lsim_beam;

/* Beam `index` (< lsim_sensor_spec_beam_count(spec)) of a validated spec. */
void lsim_beam_at(const lsim_sensor_spec *spec, size_t index, lsim_beam *beam);

void lsim_beam_rotating(const lsim_sensor_spec *spec, size_t index, lsim_beam *beam);
void lsim_beam_planar(const lsim_sensor_spec *spec, size_t index, lsim_beam *beam);
void lsim_beam_camera(const lsim_sensor_spec *spec, size_t index, lsim_beam *beam);
void lsim_beam_rosette(const lsim_sensor_spec *spec, size_t index, lsim_beam *beam);
void lsim_beam_pattern(const lsim_sensor_spec *spec, size_t index, lsim_beam *beam);

/* Fill direction (and wrapped azimuth) from azimuth/elevation in degrees. */
void lsim_beam_set_angles(lsim_beam *beam, double azimuth_deg, double elevation_deg);
/* Fill azimuth/elevation from a direction (need not be unit length, must be non-zero). */
void lsim_beam_set_direction(lsim_beam *beam, double x, double y, double z);
/* Wrap an angle in degrees into (-180, 180]. */
double lsim_wrap_deg(double deg);

#endif
