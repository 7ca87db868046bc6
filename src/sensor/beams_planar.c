/* Planar (2-D) scanner in the sensor's xy plane.
 *
 * Beam i of `steps` points at azimuth -fov/2 + (i + 0.5) * fov / steps degrees (the centre of
 * its angular step, counter-clockwise), elevation 0, ring 0. The head turns once every
 * 1 / rate_hz s at a constant speed, so the steps of a field of view narrower than a full turn
 * take fov / 360 of it (a URG-04LX's 682 steps of 1,024 a turn: 66.6 ms of its 100 ms) and
 * beam i fires at i * (fov / 360) / (steps * rate_hz) s. */
#include "sensor/beam.h"

void lsim_beam_planar(const lsim_sensor_spec *spec, size_t index, lsim_beam *beam)
{
    double steps = (double)spec->steps;
    double fov = spec->fov_deg;
    lsim_beam_set_angles(beam, -0.5 * fov + ((double)index + 0.5) * fov / steps, 0.0);
    beam->time_s = fov >= 360.0 ? (double)index / (steps * spec->rate_hz)
                                : (double)index * fov / (360.0 * steps * spec->rate_hz);
    beam->ring = 0;
}
