/* Beam helpers: angle <-> direction conversions and the per-kind dispatch. */
#include "sensor/beam.h"

#include "core/vec.h"

#include <math.h>

double lsim_wrap_deg(double deg)
{
    double w = fmod(deg, 360.0); /* (-360, 360) */
    if (w > 180.0)
        w -= 360.0;
    else if (w <= -180.0)
        w += 360.0;
    return w;
}

void lsim_beam_set_angles(lsim_beam *beam, double azimuth_deg, double elevation_deg)
{
    double az = lsim_wrap_deg(azimuth_deg);
    double ce = cos(elevation_deg * LSIM_DEG), se = sin(elevation_deg * LSIM_DEG);
    beam->azimuth_deg = az;
    beam->elevation_deg = elevation_deg;
    beam->dir[0] = ce * cos(az * LSIM_DEG);
    beam->dir[1] = ce * sin(az * LSIM_DEG);
    beam->dir[2] = se;
}

void lsim_beam_set_direction(lsim_beam *beam, double x, double y, double z)
{
    double n = sqrt(x * x + y * y + z * z);
    x /= n;
    y /= n;
    z /= n;
    beam->dir[0] = x;
    beam->dir[1] = y;
    beam->dir[2] = z;
    beam->azimuth_deg = lsim_wrap_deg(atan2(y, x) / LSIM_DEG);
    beam->elevation_deg = atan2(z, hypot(x, y)) / LSIM_DEG;
}

void lsim_beam_at(const lsim_sensor_spec *spec, size_t index, lsim_beam *beam)
{
    beam->time_s = 0.0;
    beam->ring = 0;
    beam->origin[0] = beam->origin[1] = beam->origin[2] = 0.0;
    switch (spec->kind) {
    case LSIM_SENSOR_ROTATING: lsim_beam_rotating(spec, index, beam); return;
    case LSIM_SENSOR_PLANAR: lsim_beam_planar(spec, index, beam); return;
    case LSIM_SENSOR_CAMERA: lsim_beam_camera(spec, index, beam); return;
    case LSIM_SENSOR_ROSETTE: lsim_beam_rosette(spec, index, beam); return;
    case LSIM_SENSOR_PATTERN: lsim_beam_pattern(spec, index, beam); return;
    }
    lsim_beam_set_angles(beam, 0.0, 0.0);
}
