/* A Velodyne sensor's frames as its data packets (UDP port 2368; velodyne_format.h has the
 * layout and its sources): VLP-16, HDL-32E and HDL-64E, presets and imported tables.
 *
 * A lidarsim column is one firing sequence (c / firing_rate_hz after the frame start; laser k
 * fires channel_time_s[k] later, which tells its firing slot and so its laser_id). A block holds
 * one sequence (VLP-16: two, lasers 0-15 then 0-15 again; HDL-64E: a sequence is an upper block
 * 0xEEFF of lasers 0-31 and a lower one 0xDDFF of lasers 32-63). Its azimuth is the head's at the
 * sequence start, counted clockwise as Velodyne does (-head, lidarsim's head azimuth being
 * counter-clockwise), in hundredths of a degree: a reader that adds each laser's rot_correction
 * (and, for the VLP-16 and HDL-32E, interpolates the head over the firing times as the
 * velodyne_pointcloud driver does) gets lidarsim's beam back. Distances are lidarsim's range (from
 * the laser's origin, as the driver measures it) in 2 mm counts; the reflectivity byte is
 * lsim_recording_reflectivity_byte (the manuals' calibrated reflectivity). The timestamp is the
 * first sequence's time in microseconds past the hour; return mode 0x37 (strongest: lidarsim's
 * single echo) or 0x38 (last), or 0x39 dual (VLP-16, HDL-32E: blocks in pairs of one firing, the
 * last echo then the strongest, as the manuals' dual return mode); the product id byte as the
 * model has it (HDL-64E: 0). A frame's last packet is completed with the sequences that follow
 * it, without returns. */
#include "recording/pcap_write.h"
#include "recording/velodyne_format.h"

#include "core/context.h"
#include "core/vec.h"
#include "formats/field_io.h"

#include <math.h>
#include <string.h>

static int by_time(const lsim_sensor_spec *s, int a, int b)
{
    const double ta = s->channel_time_s[a], tb = s->channel_time_s[b];
    if (ta != tb)
        return ta < tb ? -1 : 1;
    /* fired together (HDL-64E): the upper block's laser is the higher one */
    return s->elevations_deg[a] > s->elevations_deg[b] ? -1 : s->elevations_deg[a] < s->elevations_deg[b];
}

lsim_status lsim_velodyne_out_begin(lsim_recording_writer *w)
{
    const lsim_sensor_spec *s = w->spec;
    double lowest = 0.0;
    for (int k = 0; k < s->channels; ++k)
        lowest = fmin(lowest, s->elevations_deg[k]);
    const lsim_velodyne_format *f = lsim_velodyne_format_of_lasers(s->channels, lowest < -28.0);
    if (!f || !s->channel_time_s || (strcmp(f->name, "vlp16") != 0 && strcmp(f->name, "hdl32e") != 0 &&
                                     strcmp(f->name, "hdl64e") != 0))
        return lsim_fail(w->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "cannot write '%s': sensor '%s' (%d channels) is no Velodyne model lidarsim writes packets "
                         "of; it writes the VLP-16, HDL-32E and HDL-64E (presets vlp16, hdl32e, hdl64e and units "
                         "imported from their tables)", w->path, s->name, s->channels);
    if (s->spin >= 0)
        return lsim_fail(w->ctx, LSIM_ERR_INVALID_ARGUMENT, "cannot write '%s': sensor '%s' spins counter-clockwise; "
                         "a Velodyne head turns clockwise (spin -1)", w->path, s->name);
    const int dual = s->receiver.mode == LSIM_RETURNS_DUAL;
    if (!dual && s->receiver.mode != LSIM_RETURNS_FIRST && s->receiver.mode != LSIM_RETURNS_STRONGEST &&
        s->receiver.mode != LSIM_RETURNS_LAST)
        return lsim_fail(w->ctx, LSIM_ERR_INVALID_ARGUMENT, "cannot write '%s': sensor '%s' reports all its echoes; "
                         "Velodyne packets hold one return a beam (strongest, last) or two (dual): set the "
                         "receiver's returns to one of those", w->path, s->name);
    if (dual && f->banks != 1)
        return lsim_fail(w->ctx, LSIM_ERR_INVALID_ARGUMENT, "cannot write '%s': sensor '%s' reports two echoes a beam; "
                         "lidarsim writes the dual return mode of the VLP-16 and HDL-32E, not the %s's: set the "
                         "receiver's returns to strongest or last", w->path, s->name, f->name);
    const double max_m = 65535.0 * f->distance_m;
    if (!(s->range_max <= max_m))
        return lsim_fail(w->ctx, LSIM_ERR_INVALID_ARGUMENT, "cannot write '%s': sensor '%s' reaches %g m, but a %s "
                         "distance holds up to %g m; lower the sensor's range_max", w->path, s->name, s->range_max,
                         f->name, max_m);
    /* laser_id = the ring's place in firing order (ties: upper block first) */
    const int n = s->channels, banks = f->banks;
    int order[128];
    for (int k = 0; k < n; ++k) { /* insertion sort: at most 64 channels */
        int j = k;
        while (j > 0 && by_time(s, order[j - 1], k) > 0) {
            order[j] = order[j - 1];
            --j;
        }
        order[j] = k;
    }
    for (int r = 0; r < n; ++r) {
        /* HDL-64E: order pairs (upper, lower) per slot: upper laser r/2, lower 32 + r/2 */
        const int id = banks == 2 ? (r % 2) * 32 + r / 2 : r;
        w->ring_of_laser[id] = (uint8_t)order[r];
    }
    if (banks == 2)
        for (int r = 0; r < n; r += 2)
            if (s->channel_time_s[order[r]] != s->channel_time_s[order[r + 1]])
                return lsim_fail(w->ctx, LSIM_ERR_INVALID_ARGUMENT, "cannot write '%s': channels %d and %d of sensor "
                                 "'%s' should fire together (an HDL-64E fires an upper and a lower laser at once)",
                                 w->path, order[r], order[r + 1], s->name);
    w->vformat = f;
    w->returns = dual ? 2 : 1;
    w->return_mode_byte = dual ? LSIM_VELODYNE_RETURN_DUAL
                          : s->receiver.mode == LSIM_RETURNS_LAST ? LSIM_VELODYNE_RETURN_LAST
                                                                  : LSIM_VELODYNE_RETURN_STRONGEST;
    memset(w->pcap.dst_ip, 255, 4); /* the factory default: broadcast */
    w->pcap.port = LSIM_VELODYNE_DATA_PORT;
    return LSIM_OK;
}

/* Head azimuth of column c in Velodyne's hundredths of a degree, clockwise. */
static unsigned raw_azimuth(const lsim_sensor_spec *s, double column_hz, int c)
{
    const double head = s->azimuth_start_deg - 360.0 * s->rate_hz * (double)c / column_hz;
    double cw = fmod(-head, 360.0);
    if (cw < 0.0)
        cw += 360.0;
    return (unsigned)lround(cw * 100.0) % 36000u;
}

/* The point a block holds for (column c, ring k): the beam's echo; in dual mode the even block of
 * a pair the last (farther) echo, the odd one the strongest, or the second strongest when the
 * last is the strongest: of two echoes always the nearer one; one echo fills both. -1: none. */
static int32_t block_point(const lsim_recording_writer *w, const float *range, int c, int k, int odd)
{
    const size_t at = ((size_t)c * (size_t)w->channels + (size_t)k) * (size_t)w->returns;
    if (w->returns == 1)
        return w->cell[at];
    const int32_t p0 = w->cell[at], p1 = w->cell[at + 1];
    if (p0 < 0 || p1 < 0)
        return p0 < 0 ? p1 : p0;
    const int32_t far = range[p0] >= range[p1] ? p0 : p1;
    return odd ? (far == p0 ? p1 : p0) : far;
}

void lsim_velodyne_out_frame(lsim_recording_writer *w, const lsim_points *points, double scan_time)
{
    const lsim_sensor_spec *s = w->spec;
    const lsim_velodyne_format *f = w->vformat;
    const float *range = points->column[LSIM_FIELD_RANGE], *refl = points->column[LSIM_FIELD_REFLECTIVITY];
    const int spb = f->firings_per_block, banks = f->banks;
    const int per_firing = LSIM_VELODYNE_BLOCK_CHANNELS / spb; /* lasers of one sequence in a block */
    const int pairs = w->returns == 2 ? 2 : 1;                  /* dual: blocks (last, strongest) */
    const int group = banks * pairs;                             /* blocks of one firing */
    const int per_packet = LSIM_VELODYNE_BLOCKS / group * spb;  /* sequences a packet */
    unsigned char *packet = w->packet + LSIM_PCAP_HEADROOM;
    for (int first = 0; first < w->columns; first += per_packet) {
        memset(packet, 0, LSIM_VELODYNE_PACKET_BYTES);
        for (int b = 0; b < LSIM_VELODYNE_BLOCKS; ++b) {
            unsigned char *block = packet + (size_t)b * LSIM_VELODYNE_BLOCK_BYTES;
            const int bank = b % banks, c0 = first + b / group * spb, odd = pairs == 2 ? b % 2 : 0;
            lsim_io_put_u16le(block, lsim_velodyne_bank_flag(bank));
            lsim_io_put_u16le(block + 2, (uint16_t)raw_azimuth(s, w->column_hz, c0));
            for (int slot = 0; slot < LSIM_VELODYNE_BLOCK_CHANNELS; ++slot) {
                const int c = c0 + slot / per_firing, id = bank * LSIM_VELODYNE_BLOCK_CHANNELS + slot % per_firing;
                if (c >= w->columns)
                    continue; /* past the frame: fired, no return written */
                const int32_t p = block_point(w, range, c, w->ring_of_laser[id], odd);
                if (p < 0)
                    continue;
                unsigned char *ch = block + 4 + 3 * slot;
                const double counts = floor((double)range[p] / f->distance_m + 0.5);
                lsim_io_put_u16le(ch, (uint16_t)fmin(counts, 65535.0));
                ch[2] = refl ? (unsigned char)lsim_recording_reflectivity_byte(refl[p]) : 0;
            }
        }
        const double t = scan_time + (double)first / w->column_hz;
        double toh = fmod(t, 3600.0);
        lsim_io_put_u32le(packet + LSIM_VELODYNE_TIMESTAMP_AT, (uint32_t)fmin(floor(toh * 1e6 + 0.5), 3599999999.0));
        packet[LSIM_VELODYNE_RETURN_MODE_AT] = (unsigned char)(f->product_id ? w->return_mode_byte : 0);
        packet[LSIM_VELODYNE_PRODUCT_AT] = (unsigned char)f->product_id;
        const double t_last = scan_time + (double)(first + per_packet - 1) / w->column_hz;
        lsim_pcap_write_udp(&w->pcap, w->packet, LSIM_VELODYNE_PACKET_BYTES, t_last);
    }
}
