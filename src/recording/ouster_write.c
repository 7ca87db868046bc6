/* An Ouster sensor's frames as its lidar packets (UDP port 7502) and its metadata JSON.
 *
 * The layout of each profile is ouster_format.h's (Ouster sensor manual, "Lidar Data Packet
 * Format"). Column m of W (measurement_id m) fires at m / (W rate) after the frame start; its
 * pixel i is beam i of the metadata, which lists beams from the top down (lidarsim's ring
 * H - 1 - i). Per pixel:
 *   range         lidarsim's range (from the beam's origin) plus lidar_origin_to_beam_origin_mm:
 *                 Ouster measures from the lidar origin's side of the beam (its manual's
 *                 xyz = (r - n) d + n (cos theta_e, sin theta_e, 0)), in mm (8 mm: RNG15);
 *                 0 = no return
 *   reflectivity  lsim_recording_reflectivity_byte(reflectivity): Ouster's calibrated scale
 *   signal        photons: intensity x 5 / T (T the sensor's detection threshold, so an echo
 *                 just detected reads 5 photons, as real units detect at about 4.5-8)
 *   near_ir       0 (lidarsim has no ambient image)
 * Timestamps are nanoseconds on the scene clock (scan_time + m / (W rate)); LEGACY columns also
 * carry frame_id and the encoder count m x 90112 / W; every column's status is valid. */
#include "recording/pcap_write.h"

#include "core/context.h"
#include "core/vec.h"
#include "formats/field_io.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define OUSTER_PORT 7502
#define OUSTER_ENCODER_TICKS 90112u /* encoder counts a revolution (LEGACY column header) */
#define OUSTER_INIT_ID 0x4C5349u    /* initialization_id of the packets and the metadata ("LSI") */
#define OUSTER_SIGNAL_AT_THRESHOLD 5.0

lsim_status lsim_ouster_out_begin(lsim_recording_writer *w, const char *profile)
{
    const lsim_sensor_spec *s = w->spec;
    int p = profile ? lsim_ouster_profile_find(profile) : LSIM_OUSTER_RNG19_RFL8_SIG16_NIR16;
    if (p < 0 || p == LSIM_OUSTER_FUSA_RNG15_RFL8_NIR8_DUAL)
        return lsim_fail(w->ctx, LSIM_ERR_INVALID_ARGUMENT, "cannot write '%s': Ouster lidar profile '%s'%s; write "
                         "RNG19_RFL8_SIG16_NIR16 (default), RNG19_RFL8_SIG16_NIR16_DUAL, RNG15_RFL8_NIR8 or LEGACY",
                         w->path, profile, p < 0 ? " is unknown" : " is read but not written");
    if (s->columns != 512 && s->columns != 1024 && s->columns != 2048)
        return lsim_fail(w->ctx, LSIM_ERR_INVALID_ARGUMENT, "cannot write '%s': sensor '%s' has %d columns; an Ouster "
                         "lidar mode has 512, 1024 or 2048", w->path, s->name, s->columns);
    if (s->spin >= 0)
        return lsim_fail(w->ctx, LSIM_ERR_INVALID_ARGUMENT, "cannot write '%s': sensor '%s' spins counter-clockwise; "
                         "an Ouster head turns clockwise (spin -1)", w->path, s->name);
    for (int k = 0; s->channel_time_s && k < s->channels; ++k)
        if (s->channel_time_s[k] != 0.0)
            return lsim_fail(w->ctx, LSIM_ERR_INVALID_ARGUMENT, "cannot write '%s': channel %d of sensor '%s' fires "
                             "%g s after its column; an Ouster column fires all its beams at once", w->path, k,
                             s->name, s->channel_time_s[k]);
    /* every beam from the same origin: n out along the head, lifted by the lidar-to-sensor z */
    const double *o = s->channel_origin_m;
    for (int k = 1; o && k < s->channels; ++k)
        if (o[3 * k] != o[0] || o[3 * k + 1] != o[1] || o[3 * k + 2] != o[2])
            return lsim_fail(w->ctx, LSIM_ERR_INVALID_ARGUMENT, "cannot write '%s': sensor '%s' has beams from "
                             "different origins (channel %d); Ouster metadata gives one origin for every beam",
                             w->path, s->name, k);
    if (o && o[1] != 0.0)
        return lsim_fail(w->ctx, LSIM_ERR_INVALID_ARGUMENT, "cannot write '%s': the beam origin of sensor '%s' is %g m "
                         "sideways of the head; Ouster's lies along it", w->path, s->name, o[1]);
    w->origin_mm = o ? o[0] * 1e3 : 0.0;
    lsim_status st = lsim_ouster_layout_make(w->ctx, w->path, (lsim_ouster_profile)p, s->channels, 16, &w->layout);
    if (st != LSIM_OK)
        return st;
    const double unit_mm = w->layout.range[0].scale;
    const double max_m = ((double)w->layout.range[0].mask * unit_mm - w->origin_mm) * 1e-3;
    if (!(s->range_max <= max_m))
        return lsim_fail(w->ctx, LSIM_ERR_INVALID_ARGUMENT, "cannot write '%s': sensor '%s' reaches %g m, but a %s "
                         "range field holds up to %g m; lower the sensor's range_max", w->path, s->name, s->range_max,
                         lsim_ouster_profile_name(w->layout.profile), max_m);
    const double threshold = lsim_sensor_threshold(s);
    w->signal_scale = threshold > 0.0 && isfinite(threshold) ? OUSTER_SIGNAL_AT_THRESHOLD / threshold : 0.0;
    w->returns = w->layout.returns;
    w->init_id = OUSTER_INIT_ID;
    const uint8_t host[4] = {192, 168, 1, 100}; /* Ouster's examples' udp_dest */
    memcpy(w->pcap.dst_ip, host, 4);
    w->pcap.port = OUSTER_PORT;
    return LSIM_OK;
}

/* The product line written in the metadata: from a preset's name (os1-128 -> OS-1-128), else
 * OS-1-<channels>. */
static void product_line(const lsim_sensor_spec *s, char *out, size_t size)
{
    int gen = 1;
    if ((s->name[0] == 'o' || s->name[0] == 'O') && (s->name[1] == 's' || s->name[1] == 'S') && s->name[2] >= '0' &&
        s->name[2] <= '2' && s->name[3] == '-')
        gen = s->name[2] - '0';
    snprintf(out, size, "OS-%d-%d", gen, s->channels);
}

static void json_array(FILE *fp, const char *key, const double *v, int n, const char *end)
{
    fprintf(fp, "  \"%s\": [", key);
    for (int i = 0; i < n; ++i)
        fprintf(fp, "%s%.10g", i ? ", " : "", v[i] == 0.0 ? 0.0 : v[i]);
    fprintf(fp, "]%s\n", end);
}

lsim_status lsim_ouster_out_metadata(lsim_recording_writer *w, FILE *fp)
{
    const lsim_sensor_spec *s = w->spec;
    const int n = s->channels, W = s->columns;
    double altitude[128], azimuth[128];
    int shift[128], min_shift = 0;
    for (int i = 0; i < n; ++i) { /* beam i from the top: ring n - 1 - i */
        altitude[i] = s->elevations_deg[n - 1 - i];
        azimuth[i] = s->channel_azimuth_deg ? -s->channel_azimuth_deg[n - 1 - i] : 0.0;
        shift[i] = (int)lround(azimuth[i] * W / 360.0);
        if (i == 0 || shift[i] < min_shift)
            min_shift = shift[i];
    }
    const double turn = s->azimuth_start_deg * LSIM_DEG;
    const double lift_mm = s->channel_origin_m ? s->channel_origin_m[2] * 1e3 : 0.0;
    const double c = cos(turn), sn = sin(turn);
    const double to_sensor[16] = {c, -sn, 0, 0, sn, c, 0, 0, 0, 0, 1, lift_mm, 0, 0, 0, 1};
    const double beam_to_lidar[16] = {1, 0, 0, w->origin_mm, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    const double imu[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    char product[32];
    product_line(s, product, sizeof product);
    fprintf(fp, "{\n");
    json_array(fp, "beam_altitude_angles", altitude, n, ",");
    json_array(fp, "beam_azimuth_angles", azimuth, n, ",");
    json_array(fp, "beam_to_lidar_transform", beam_to_lidar, 16, ",");
    fprintf(fp, "  \"build_rev\": \"v2.3.0\",\n  \"client_version\": \"lidarsim %s\",\n", lsim_version_string());
    fprintf(fp, "  \"data_format\": {\n    \"column_window\": [0, %d],\n    \"columns_per_frame\": %d,\n"
                "    \"columns_per_packet\": %d,\n    \"pixel_shift_by_row\": [", W - 1, W,
            w->layout.columns_per_packet);
    for (int i = 0; i < n; ++i)
        fprintf(fp, "%s%d", i ? ", " : "", shift[i] - min_shift);
    fprintf(fp, "],\n    \"pixels_per_column\": %d,\n    \"udp_profile_imu\": \"LEGACY\",\n"
                "    \"udp_profile_lidar\": \"%s\"\n  },\n", n, lsim_ouster_profile_name(w->layout.profile));
    fprintf(fp, "  \"hostname\": \"lidarsim\",\n");
    json_array(fp, "imu_to_sensor_transform", imu, 16, ",");
    fprintf(fp, "  \"initialization_id\": %u,\n  \"json_calibration_version\": 4,\n", (unsigned)w->init_id);
    fprintf(fp, "  \"lidar_mode\": \"%dx%d\",\n", W, (int)lround(s->rate_hz));
    fprintf(fp, "  \"lidar_origin_to_beam_origin_mm\": %.10g,\n", w->origin_mm);
    json_array(fp, "lidar_to_sensor_transform", to_sensor, 16, ",");
    fprintf(fp, "  \"prod_line\": \"%s\",\n  \"prod_pn\": \"\",\n  \"prod_sn\": \"0\",\n  \"status\": \"RUNNING\",\n"
                "  \"udp_port_imu\": 7503,\n  \"udp_port_lidar\": %d\n}\n", product, OUSTER_PORT);
    return LSIM_OK;
}

/* The point of a pixel (column m, Ouster beam i, return e), or -1. */
static int32_t pixel_point(const lsim_recording_writer *w, int m, int i, int e)
{
    const size_t ring = (size_t)(w->channels - 1 - i);
    return w->cell[((size_t)m * (size_t)w->channels + ring) * (size_t)w->returns + (size_t)e];
}

void lsim_ouster_out_frame(lsim_recording_writer *w, const lsim_points *points, uint32_t frame_index,
                           double scan_time)
{
    const lsim_ouster_layout *l = &w->layout;
    const int W = w->columns, legacy = l->profile == LSIM_OUSTER_LEGACY;
    const float *range = points->column[LSIM_FIELD_RANGE], *refl = points->column[LSIM_FIELD_REFLECTIVITY];
    const float *intensity = points->column[LSIM_FIELD_INTENSITY];
    const double unit_mm = l->range[0].scale;
    unsigned char *packet = w->packet + LSIM_PCAP_HEADROOM;
    for (int first = 0; first < W; first += l->columns_per_packet) {
        memset(packet, 0, l->packet_size);
        if (!legacy) { /* packet_type 1, frame_id, init_id (24 bits), prod_sn (40 bits: 0) */
            lsim_io_put_u16le(packet, 1);
            lsim_io_put_u16le(packet + 2, (uint16_t)frame_index);
            packet[4] = (unsigned char)w->init_id;
            packet[5] = (unsigned char)(w->init_id >> 8);
            packet[6] = (unsigned char)(w->init_id >> 16);
        }
        for (int j = 0; j < l->columns_per_packet; ++j) {
            const int m = first + j;
            unsigned char *col = packet + l->packet_header + (size_t)j * l->column_size;
            const double t = scan_time + (double)m / w->column_hz;
            lsim_io_put_u64le(col, (uint64_t)llround(t * 1e9));
            lsim_io_put_u16le(col + 8, (uint16_t)m);
            if (legacy) {
                lsim_io_put_u16le(col + 10, (uint16_t)frame_index);
                lsim_io_put_u32le(col + 12, (uint32_t)((uint64_t)m * OUSTER_ENCODER_TICKS / (uint64_t)W));
                lsim_io_put_u32le(col + l->column_size - 4, 0xFFFFFFFFu);
            } else {
                lsim_io_put_u16le(col + 10, 1); /* status: valid */
            }
            for (int i = 0; i < l->pixels_per_column; ++i) {
                unsigned char *px = col + l->column_header + (size_t)i * l->pixel;
                for (int e = 0; e < l->returns; ++e) {
                    const int32_t p = pixel_point(w, m, i, e);
                    if (p < 0)
                        continue;
                    const double mm = (double)range[p] * 1e3 + w->origin_mm;
                    lsim_ouster_field_put(&l->range[e], px, (uint32_t)lround(mm / unit_mm) * l->range[e].scale);
                    if (refl)
                        lsim_ouster_field_put(&l->reflectivity[e], px, lsim_recording_reflectivity_byte(refl[p]));
                    if (intensity) {
                        const double sig = fmin(65535.0, fmax(0.0, floor(intensity[p] * w->signal_scale + 0.5)));
                        lsim_ouster_field_put(&l->signal[e], px, (uint32_t)sig);
                    }
                }
            }
        }
        const double t_packet = scan_time + (double)(first + l->columns_per_packet - 1) / w->column_hz;
        lsim_pcap_write_udp(&w->pcap, w->packet, l->packet_size, t_packet);
    }
}
