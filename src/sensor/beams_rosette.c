/* Non-repetitive rosette of a Livox-style solid-state lidar (two counter-rotating Risley
 * prisms).
 *
 * Beam i fires at t = i / (rosette_points * rate_hz). Each prism deflects the beam by a
 * quarter of the field of view, rotating at its own rate, so the 2-D deflection in degrees
 * (horizontal to the left, vertical up) is
 *   (h, v) = (fov/4) (cos 2 pi f1 t, sin 2 pi f1 t) + (fov/4) (cos 2 pi f2 t, sin 2 pi f2 t),
 * at most fov/2 from the axis. The deflection maps to a direction r = |(h, v)| degrees from +x
 * towards the polar angle atan2(v, h) (an equidistant projection), so every beam lies within
 * the circular field of view. With f1, f2 of opposite signs and an irrational ratio the curve
 * does not close within a frame. ring 0. */
#include "sensor/beam.h"

#include "core/vec.h"

#include <math.h>

void lsim_beam_rosette(const lsim_sensor_spec *spec, size_t index, lsim_beam *beam)
{
    double t = (double)index / ((double)spec->rosette_points * spec->rate_hz);
    double quarter = 0.25 * spec->rosette_fov_deg;
    double a1 = 2.0 * LSIM_PI * fmod(spec->rosette_hz[0] * t, 1.0);
    double a2 = 2.0 * LSIM_PI * fmod(spec->rosette_hz[1] * t, 1.0);
    double h = quarter * (cos(a1) + cos(a2));
    double v = quarter * (sin(a1) + sin(a2));
    double r = hypot(h, v) * LSIM_DEG;
    double sr = sin(r), c = cos(r);
    double y = 0.0, z = 0.0;
    if (r > 0.0) {
        y = sr * (h * LSIM_DEG) / r;
        z = sr * (v * LSIM_DEG) / r;
    }
    lsim_beam_set_direction(beam, c, y, z);
    beam->time_s = t;
    beam->ring = 0;
}
