/* Planar (2-D) scanner in the sensor's xy plane.
 *
 * Beam i of `steps` points at azimuth -fov/2 + (i + 0.5) * fov / steps degrees (the centre of
 * its angular step, counter-clockwise), elevation 0, and fires at i / (steps * rate_hz) s.
 * ring 0. */
#include "sensor/beam.h"

void lsim_beam_planar(const lsim_sensor_spec *spec, size_t index, lsim_beam *beam)
{
    double steps = (double)spec->steps;
    double fov = spec->fov_deg;
    lsim_beam_set_angles(beam, -0.5 * fov + ((double)index + 0.5) * fov / steps, 0.0);
    beam->time_s = (double)index / (steps * spec->rate_hz);
    beam->ring = 0;
}
