/* Rotating multi-channel lidar.
 *
 * Beam i is channel (i % channels) of column (i / channels): all channels of column 0, then
 * column 1, ... ring = channel index = index into spec->elevations_deg.
 *
 * Column c starts at c / (columns * rate_hz) seconds, or at c / firing_rate_hz when the firing
 * rate is fixed in hardware (then the last column of a revolution does not quite close the
 * circle, as on a real Velodyne). Channel k fires channel_time_s[k] later. The head turns at
 * rate_hz revolutions per second, `spin` +1 counter-clockwise from +x, -1 clockwise, starting
 * at azimuth_start_deg; a beam leaves at the head's azimuth at its own firing instant plus the
 * channel's azimuth offset, from the channel's origin turned with the head. Without per-channel
 * tables and with the defaults, column c points at 360 c / columns degrees. */
#include "sensor/beam.h"

#include "core/vec.h"

#include <math.h>

void lsim_beam_rotating(const lsim_sensor_spec *spec, size_t index, lsim_beam *beam)
{
    const size_t channels = (size_t)spec->channels;
    const size_t column = index / channels, channel = index % channels;
    const double columns = (double)spec->columns;
    const double spin = spec->spin < 0 ? -1.0 : 1.0;
    double head, time;
    if (spec->firing_rate_hz > 0.0) {
        time = (double)column / spec->firing_rate_hz;
        head = 360.0 * spec->rate_hz * time;
    } else {
        time = (double)column / (columns * spec->rate_hz);
        head = 360.0 * (double)column / columns;
    }
    if (spec->channel_time_s) {
        const double dt = spec->channel_time_s[channel];
        time += dt;
        head += 360.0 * spec->rate_hz * dt;
    }
    head = spec->azimuth_start_deg + spin * head;
    const double offset = spec->channel_azimuth_deg ? spec->channel_azimuth_deg[channel] : 0.0;
    lsim_beam_set_angles(beam, head + offset, spec->elevations_deg[channel]);
    beam->time_s = time;
    beam->ring = (uint16_t)channel;
    if (spec->channel_origin_m) {
        const double *o = spec->channel_origin_m + 3 * channel;
        const double c = cos(head * LSIM_DEG), s = sin(head * LSIM_DEG);
        beam->origin[0] = c * o[0] - s * o[1];
        beam->origin[1] = s * o[0] + c * o[1];
        beam->origin[2] = o[2];
    }
}
