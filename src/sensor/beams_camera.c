/* Time-of-flight camera: pinhole, one beam per pixel, global shutter.
 *
 * Beam i is pixel (u, v) = (i % width, i / width), u to the right, v down (row-major, row 0 at
 * the top). Its direction in the sensor frame is proportional to
 *   (1, -(u + 0.5 - width/2) / fx, -(v + 0.5 - height/2) / fy),
 * fx = (width/2) / tan(hfov/2), fy = (height/2) / tan(vfov/2), so the outer pixel edges span
 * exactly hfov x vfov. ring = row v, time 0. */
#include "sensor/beam.h"

#include "core/vec.h"

#include <math.h>

void lsim_beam_camera(const lsim_sensor_spec *spec, size_t index, lsim_beam *beam)
{
    size_t width = (size_t)spec->width;
    double u = (double)(index % width), v = (double)(index / width);
    double half_w = 0.5 * spec->width, half_h = 0.5 * spec->height;
    double fx = half_w / tan(0.5 * spec->hfov_deg * LSIM_DEG);
    double fy = half_h / tan(0.5 * spec->vfov_deg * LSIM_DEG);
    lsim_beam_set_direction(beam, 1.0, -(u + 0.5 - half_w) / fx, -(v + 0.5 - half_h) / fy);
    beam->time_s = 0.0;
    beam->ring = (uint16_t)(index / width);
}
