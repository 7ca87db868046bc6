/* pcap files of UDP datagrams, and the recording writer that fills them with a sensor's packets
 * (pcap_write.h). The pcap format is written here by hand (24-byte file header, 16-byte record
 * headers): libpcap's pcap_dump_fopen would take the atomic writer's FILE *, but its
 * pcap_dump_close closes that FILE, which the atomic writer must flush, fsync and close itself
 * before the rename, and the format is two fixed headers. */
#include "recording/pcap_write.h"
#include "recording/velodyne_format.h"

#include "core/context.h"
#include "formats/field_io.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void lsim_pcap_write_file_header(FILE *fp)
{
    unsigned char h[24];
    lsim_io_put_u32le(h, 0xa1b2c3d4u); /* microsecond timestamps */
    lsim_io_put_u16le(h + 4, 2);
    lsim_io_put_u16le(h + 6, 4);
    lsim_io_put_u32le(h + 8, 0);       /* thiszone */
    lsim_io_put_u32le(h + 12, 0);      /* sigfigs */
    lsim_io_put_u32le(h + 16, 65535);  /* snaplen */
    lsim_io_put_u32le(h + 20, 1);      /* LINKTYPE_ETHERNET */
    fwrite(h, 1, sizeof h, fp);
}

static void put_u16be(unsigned char *d, unsigned v)
{
    d[0] = (unsigned char)(v >> 8);
    d[1] = (unsigned char)v;
}

/* One's complement sum of 16-bit big-endian words (RFC 1071), not yet folded. */
static uint32_t sum16(const unsigned char *b, size_t n, uint32_t sum)
{
    for (size_t i = 0; i + 1 < n; i += 2)
        sum += (uint32_t)b[i] << 8 | b[i + 1];
    if (n & 1)
        sum += (uint32_t)b[n - 1] << 8;
    return sum;
}

static unsigned fold(uint32_t sum)
{
    while (sum >> 16)
        sum = (sum & 0xFFFFu) + (sum >> 16);
    return ~sum & 0xFFFFu;
}

void lsim_pcap_write_udp(lsim_pcap_out *o, unsigned char *frame, size_t payload, double t_s)
{
    unsigned char *eth = frame, *ip = frame + 14, *udp = frame + 34;
    const size_t udp_len = 8 + payload, ip_len = 20 + udp_len;
    /* Ethernet II: to the broadcast address from a locally administered one, IPv4 */
    memset(eth, 0xFF, 6);
    const unsigned char src_mac[6] = {0x02, 0x00, o->src_ip[0], o->src_ip[1], o->src_ip[2], o->src_ip[3]};
    memcpy(eth + 6, src_mac, 6);
    put_u16be(eth + 12, 0x0800);
    /* IPv4: version 4, 20-byte header, don't fragment, TTL 64, UDP */
    ip[0] = 0x45;
    ip[1] = 0;
    put_u16be(ip + 2, (unsigned)ip_len);
    put_u16be(ip + 4, o->ip_id++);
    put_u16be(ip + 6, 0x4000);
    ip[8] = 64;
    ip[9] = 17;
    put_u16be(ip + 10, 0);
    memcpy(ip + 12, o->src_ip, 4);
    memcpy(ip + 16, o->dst_ip, 4);
    put_u16be(ip + 10, fold(sum16(ip, 20, 0)));
    /* UDP, checksum over the pseudo-header (addresses, protocol, length), header and payload */
    put_u16be(udp, o->port);
    put_u16be(udp + 2, o->port);
    put_u16be(udp + 4, (unsigned)udp_len);
    put_u16be(udp + 6, 0);
    uint32_t sum = sum16(ip + 12, 8, 17u + (uint32_t)udp_len);
    unsigned c = fold(sum16(udp, udp_len, sum));
    put_u16be(udp + 6, c ? c : 0xFFFFu); /* 0 means "no checksum": send all ones instead */
    /* the record header: seconds, microseconds, captured and original length */
    const double us = floor(t_s * 1e6 + 0.5);
    const uint64_t total = us > 0.0 ? (uint64_t)us : 0u;
    unsigned char rec[16];
    lsim_io_put_u32le(rec, (uint32_t)(total / 1000000u));
    lsim_io_put_u32le(rec + 4, (uint32_t)(total % 1000000u));
    lsim_io_put_u32le(rec + 8, (uint32_t)(14 + ip_len));
    lsim_io_put_u32le(rec + 12, (uint32_t)(14 + ip_len));
    fwrite(rec, 1, sizeof rec, o->fp);
    fwrite(frame, 1, 14 + ip_len, o->fp);
}

unsigned lsim_recording_reflectivity_byte(double rho)
{
    if (!(rho > 0.0))
        return 0;
    if (rho <= 1.0)
        return (unsigned)lround(100.0 * rho);
    const double v = 100.0 + floor(155.0 * log10(rho) / 3.0 + 0.5);
    return v >= 255.0 ? 255u : v < 101.0 ? 101u : (unsigned)v;
}

/* "X.json" for "X.pcap" (or "X.pcap.json" for another name); malloc'd, NULL when out of memory. */
static char *metadata_path(const char *path)
{
    const size_t n = strlen(path);
    const int ext = n > 5 && (strcmp(path + n - 5, ".pcap") == 0 || strcmp(path + n - 5, ".PCAP") == 0);
    const size_t stem = ext ? n - 5 : n;
    char *out = malloc(stem + 6);
    if (out) {
        memcpy(out, path, stem);
        memcpy(out + stem, ".json", 6);
    }
    return out;
}

lsim_status lsim_recording_begin(lsim_recording_writer *w, lsim_context *ctx, const lsim_sensor *sensor,
                                 const char *path, const char *ouster_profile)
{
    memset(w, 0, sizeof *w);
    lsim_atomic_begin(&w->group, ctx);
    w->ctx = ctx;
    w->path = path;
    if (!sensor || !path || !*path)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "a pcap recording needs a sensor and a file name");
    const lsim_sensor_spec *s = &sensor->spec;
    w->spec = s;
    if (strcmp(path, "-") == 0 || lsim_atomic_is_direct(path))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "cannot write the pcap '%s' to standard output, a device or "
                         "a FIFO: an Ouster pcap comes with its metadata JSON beside it; give a file name (X.pcap)",
                         path);
    const int ouster = s->kind == LSIM_SENSOR_ROTATING && s->ouster_modes;
    const int velodyne = s->kind == LSIM_SENSOR_ROTATING && !ouster && s->firing_rate_hz > 0.0;
    if (!ouster && !velodyne)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "cannot write '%s': sensor '%s' (%s) has no packet format; a pcap holds an Ouster sensor's "
                         "(the os* presets, e.g. os1-128, and units imported from Ouster metadata) or a Velodyne "
                         "sensor's (vlp16, hdl32e, hdl64e, units imported from their tables) UDP packets; write a "
                         "point cloud (.pcd, .ply, .las, ...) instead", path, s->name,
                         s->kind == LSIM_SENSOR_ROTATING ? "a rotating sensor of neither vendor"
                                                         : lsim_sensor_kind_name(s->kind));
    if (ouster_profile && !ouster)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "cannot write '%s': an Ouster lidar profile ('%s') was given "
                         "but sensor '%s' is a Velodyne, whose packets have one layout; leave the profile out", path,
                         ouster_profile, s->name);
    w->kind = ouster ? LSIM_RECORDING_OUSTER : LSIM_RECORDING_VELODYNE;
    w->channels = s->channels;
    w->columns = lsim_sensor_spec_columns_at_rate(s);
    w->column_hz = s->firing_rate_hz > 0.0 ? s->firing_rate_hz : (double)s->columns * s->rate_hz;
    w->returns = 1;
    w->pcap.src_ip[0] = 192;
    w->pcap.src_ip[1] = 168;
    w->pcap.src_ip[2] = 1;
    w->pcap.src_ip[3] = 201;
    lsim_status st = ouster ? lsim_ouster_out_begin(w, ouster_profile) : lsim_velodyne_out_begin(w);
    if (st != LSIM_OK)
        return st;
    w->cells = (size_t)w->columns * (size_t)w->channels * (size_t)w->returns;
    w->cell = malloc(w->cells * sizeof *w->cell);
    const size_t payload = ouster ? w->layout.packet_size : LSIM_VELODYNE_PACKET_BYTES;
    w->packet = calloc(1, LSIM_PCAP_HEADROOM + payload);
    if (!w->cell || !w->packet)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for the packets of '%s'", path);
    st = lsim_context_check_output(ctx, path); /* no output replaces an input of the run */
    if (st == LSIM_OK)
        st = lsim_atomic_open(&w->group, path, &w->pcap.fp);
    if (st == LSIM_OK)
        lsim_pcap_write_file_header(w->pcap.fp);
    if (st == LSIM_OK && ouster) {
        char *json = metadata_path(path);
        FILE *fp = NULL;
        st = json ? lsim_context_check_output(ctx, json)
                  : lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for the name of '%s''s metadata", path);
        if (st == LSIM_OK)
            st = lsim_atomic_open(&w->group, json, &fp);
        free(json);
        if (st == LSIM_OK)
            st = lsim_ouster_out_metadata(w, fp);
    }
    return st;
}

/* Place each point on the grid: ring -> channel, time -> column, return_index -> echo. */
static lsim_status place(lsim_recording_writer *w, const lsim_points *p)
{
    const lsim_sensor_spec *s = w->spec;
    const float *time = p->column[LSIM_FIELD_TIME], *range = p->column[LSIM_FIELD_RANGE];
    const uint16_t *ring = p->column[LSIM_FIELD_RING], *echo = p->column[LSIM_FIELD_RETURN_INDEX];
    for (size_t i = 0; i < w->cells; ++i)
        w->cell[i] = -1;
    for (size_t i = 0; i < p->count; ++i) {
        if (!(range[i] > 0.0f))
            continue; /* a miss (keep_misses): the pixel stays empty */
        const int k = ring[i];
        if (k >= w->channels)
            return lsim_fail(w->ctx, LSIM_ERR_INVALID_ARGUMENT, "cannot write '%s': point %zu has ring %d, but sensor "
                             "'%s' has %d channels", w->path, i, k, s->name, w->channels);
        const double t0 = (double)time[i] - (s->channel_time_s ? s->channel_time_s[k] : 0.0);
        const double c = floor(t0 * w->column_hz + 0.5);
        if (!(c >= 0.0 && c < (double)w->columns && fabs(t0 * w->column_hz - c) < 0.01))
            return lsim_fail(w->ctx, LSIM_ERR_INVALID_ARGUMENT, "cannot write '%s': point %zu (ring %d) at time %g s "
                             "is not on a column of sensor '%s' (%d columns at %g per second); a recording holds "
                             "the sensor's own firing times", w->path, i, k, (double)time[i], s->name, w->columns,
                             w->column_hz);
        const int e = echo ? echo[i] : 0;
        if (e >= w->returns)
            return lsim_fail(w->ctx, LSIM_ERR_INVALID_ARGUMENT, "cannot write '%s': beam (column %d, ring %d) has "
                             "echo %d, but the packets hold %d return%s a beam; set the sensor's returns to one "
                             "(receiver returns: strongest)%s", w->path, (int)c, k, e + 1, w->returns,
                             w->returns > 1 ? "s" : "",
                             w->kind == LSIM_RECORDING_OUSTER ? " or write a _DUAL Ouster profile" : "");
        const size_t at = ((size_t)c * (size_t)w->channels + (size_t)k) * (size_t)w->returns + (size_t)e;
        w->cell[at] = (int32_t)i;
    }
    return LSIM_OK;
}

lsim_status lsim_recording_frame(lsim_recording_writer *w, const lsim_points *points, uint32_t frame_index,
                                 double scan_time)
{
    if (!w->pcap.fp)
        return lsim_fail(w->ctx, LSIM_ERR_INVALID_ARGUMENT, "the pcap '%s' is not open", w->path);
    if (!(scan_time >= 0.0 && scan_time < 4e9))
        return lsim_fail(w->ctx, LSIM_ERR_INVALID_ARGUMENT, "cannot write '%s': scan time %g s; a pcap counts its "
                         "capture times in seconds since 1970 (0..4e9): give --scan-time 0 or more", w->path,
                         scan_time);
    char what[600];
    snprintf(what, sizeof what, "cannot write the pcap '%.500s'", w->path);
    const uint32_t need = LSIM_FIELD_BIT(LSIM_FIELD_RING) | LSIM_FIELD_BIT(LSIM_FIELD_TIME) |
                          LSIM_FIELD_BIT(LSIM_FIELD_RANGE);
    lsim_status st = points->count ? lsim_points_require(points, need, what) : LSIM_OK;
    if (st == LSIM_OK)
        st = place(w, points);
    if (st != LSIM_OK)
        return st;
    if (w->kind == LSIM_RECORDING_OUSTER)
        lsim_ouster_out_frame(w, points, frame_index, scan_time);
    else
        lsim_velodyne_out_frame(w, points, scan_time);
    ++w->frames;
    return LSIM_OK;
}

lsim_status lsim_recording_finish(lsim_recording_writer *w, lsim_status status)
{
    if (status == LSIM_OK && !w->frames)
        status = lsim_fail(w->ctx, LSIM_ERR_INVALID_ARGUMENT, "the pcap '%s' has no frame", w->path);
    status = lsim_atomic_finish(&w->group, status);
    free(w->cell);
    free(w->packet);
    w->cell = NULL;
    w->packet = NULL;
    w->pcap.fp = NULL;
    return status;
}

lsim_status lsim_points_write_recording(const lsim_points *points, const lsim_sensor *sensor, const char *path,
                                        const char *ouster_profile, uint32_t frame_index)
{
    if (!points)
        return LSIM_ERR_INVALID_ARGUMENT; /* no context to report into */
    lsim_recording_writer w;
    lsim_status st = lsim_recording_begin(&w, points->ctx, sensor, path, ouster_profile);
    if (st == LSIM_OK)
        st = lsim_recording_frame(&w, points, frame_index, points->scan_time);
    return lsim_recording_finish(&w, st);
}
