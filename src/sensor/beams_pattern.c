/* Explicit beam table: azimuth/elevation in degrees, optional time (default 0) and ring
 * (default 0), in the table's row order. */
#include "sensor/beam.h"

void lsim_beam_pattern(const lsim_sensor_spec *spec, size_t index, lsim_beam *beam)
{
    lsim_beam_set_angles(beam, spec->pattern_azimuth_deg[index], spec->pattern_elevation_deg[index]);
    beam->time_s = spec->pattern_time_s ? spec->pattern_time_s[index] : 0.0;
    beam->ring = spec->pattern_ring ? spec->pattern_ring[index] : 0;
}
