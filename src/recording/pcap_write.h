/* Simulated frames out as a real sensor's UDP packet stream in a pcap file (docs/formats.md "pcap
 * out"), for Ouster and Velodyne sensors (presets and imported units).
 *
 *     lsim_recording_writer w;
 *     st = lsim_recording_begin(&w, ctx, sensor, path, profile);   (checks the sensor, opens the files)
 *     for each frame: st = lsim_recording_frame(&w, points, frame_index, scan_time);
 *     st = lsim_recording_finish(&w, st);                          (commits every file, or none)
 *
 * The pcap and, for Ouster, its metadata JSON (the pcap's path with .json for .pcap) are one
 * atomic group: they appear together or not at all. A frame's points are placed on the sensor's
 * own grid of columns x channels (x returns): the channel is the point's ring, the column comes
 * from its time (an Ouster column fires at c / (W rate); a Velodyne firing sequence at
 * c / firing_rate_hz, each laser channel_time_s later). Nothing is allocated per point or packet:
 * the grid and one packet buffer are made at begin. */
#ifndef LSIM_RECORDING_PCAP_WRITE_H
#define LSIM_RECORDING_PCAP_WRITE_H

#include "output/atomic_file.h"
#include "points/points.h"
#include "recording/ouster_format.h"
#include "sensor/sensor.h"

#include <stdint.h>
#include <stdio.h>

/* Ethernet II (14) + IPv4 without options (20) + UDP (8) in front of every payload. */
#define LSIM_PCAP_HEADROOM 42
/* The most a UDP datagram over IPv4 carries (65,535 - 20 - 8). */
#define LSIM_PCAP_MAX_PAYLOAD 65507

/* Where the datagrams go: a sensor at 192.168.1.201 (Velodyne's factory address; Ouster's
 * examples use the same subnet) sending to `dst_ip` on `port` from `port`. */
typedef struct lsim_pcap_out {
    FILE *fp;
    uint8_t src_ip[4], dst_ip[4];
    uint16_t port;
    uint16_t ip_id; /* IPv4 identification, one more per datagram */
} lsim_pcap_out;

/* The 24-byte pcap file header: little-endian, microsecond timestamps (magic 0xa1b2c3d4), version
 * 2.4, snaplen 65535, link type 1 (Ethernet). */
void lsim_pcap_write_file_header(FILE *fp);
/* One captured datagram: `frame` holds LSIM_PCAP_HEADROOM free bytes then `payload` bytes of UDP
 * payload (<= LSIM_PCAP_MAX_PAYLOAD); the Ethernet, IPv4 (header checksum) and UDP (checksum over
 * the pseudo-header) headers are filled in front and the record is written with the capture time
 * t_s (seconds since 1970, >= 0, rounded to the microsecond). */
void lsim_pcap_write_udp(lsim_pcap_out *o, unsigned char *frame, size_t payload, double t_s);

/* The sensor families that have a packet format. */
typedef enum lsim_recording_kind { LSIM_RECORDING_OUSTER = 1, LSIM_RECORDING_VELODYNE = 2 } lsim_recording_kind;

struct lsim_velodyne_format; /* recording/velodyne_format.h */

typedef struct lsim_recording_writer {
    lsim_atomic_group group;  /* the pcap (and Ouster's JSON); must not move while open */
    lsim_context *ctx;
    const lsim_sensor_spec *spec; /* the sensor's (it must outlive the writer) */
    const char *path;
    lsim_recording_kind kind;
    lsim_pcap_out pcap;
    unsigned char *packet;    /* LSIM_PCAP_HEADROOM + one payload */
    int columns, channels, returns; /* the frame's grid */
    int32_t *cell;            /* [(column * channels + ring) * returns + echo]: point index, -1 none */
    size_t cells;
    double column_hz;         /* columns per second */
    int frames;               /* written so far */
    /* Ouster */
    lsim_ouster_layout layout;
    double origin_mm, signal_scale;
    uint32_t init_id;
    /* Velodyne */
    const struct lsim_velodyne_format *vformat;
    uint8_t ring_of_laser[128]; /* the ring each laser_id fires */
    int return_mode_byte;
} lsim_recording_writer;

/* Check that `sensor` has a packet format (Ouster or Velodyne rotating sensors: presets and
 * imported units) that can hold its beams and ranges, and open the files. `ouster_profile`:
 * udp_profile_lidar of an Ouster stream (NULL: RNG19_RFL8_SIG16_NIR16); must be NULL for Velodyne.
 * On failure nothing is left and the message says what is supported. Always call
 * lsim_recording_finish afterwards, whatever this returns. */
lsim_status lsim_recording_begin(lsim_recording_writer *w, lsim_context *ctx, const lsim_sensor *sensor,
                                 const char *path, const char *ouster_profile);
/* Write one frame: its points (ring, time and range; intensity, reflectivity and return_index
 * when the format carries them) as the packets of one revolution starting at scan_time (seconds
 * on the scene clock, taken as seconds since 1970 in the capture; >= 0). */
lsim_status lsim_recording_frame(lsim_recording_writer *w, const lsim_points *points, uint32_t frame_index,
                                 double scan_time);
/* Commit the files when status is LSIM_OK, else discard them; frees the buffers. */
lsim_status lsim_recording_finish(lsim_recording_writer *w, lsim_status status);

/* Calibrated reflectivity byte (Ouster and Velodyne manuals: 0-100 diffuse reflectance in
 * percent, 101-255 retro-reflectors): round(100 rho) up to rho = 1, then
 * 100 + round(155 log10(rho) / 3) up to 255 (rho = 1000). */
unsigned lsim_recording_reflectivity_byte(double rho);

/* Vendor parts (ouster_write.c, velodyne_write.c): the checks and layout at begin (errors name
 * the sensor and what is supported), the files' headers, and one frame's packets from the grid. */
lsim_status lsim_ouster_out_begin(lsim_recording_writer *w, const char *profile);
lsim_status lsim_ouster_out_metadata(lsim_recording_writer *w, FILE *fp);
void lsim_ouster_out_frame(lsim_recording_writer *w, const lsim_points *points, uint32_t frame_index,
                           double scan_time);
lsim_status lsim_velodyne_out_begin(lsim_recording_writer *w);
void lsim_velodyne_out_frame(lsim_recording_writer *w, const lsim_points *points, double scan_time);

#endif
