/* Rotating multi-channel lidar.
 *
 * Beam i is channel (i % channels) of column (i / channels): all channels of column 0, then
 * column 1, ... (time order). Column c fires at c / (columns * rate_hz) seconds with azimuth
 * 360 * c / columns degrees, counter-clockwise from +x, wrapped into (-180, 180]. Every channel
 * of a column fires at the column's time (the few microseconds between the firings of one
 * column are ignored). ring = channel index = index into spec->elevations_deg. */
#include "sensor/beam.h"

void lsim_beam_rotating(const lsim_sensor_spec *spec, size_t index, lsim_beam *beam)
{
    size_t channels = (size_t)spec->channels;
    size_t column = index / channels, channel = index % channels;
    double columns = (double)spec->columns;
    lsim_beam_set_angles(beam, 360.0 * (double)column / columns, spec->elevations_deg[channel]);
    beam->time_s = (double)column / (columns * spec->rate_hz);
    beam->ring = (uint16_t)channel;
}
