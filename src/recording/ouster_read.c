/* An Ouster recording (pcap of lidar packets) and its metadata into points.
 *
 * Packets: UDP datagrams to the metadata's udp_port_lidar (7502 when it has none) must be lidar
 * packets of its udp_profile_lidar (LEGACY when it has none), pixels_per_column and
 * columns_per_packet (ouster_format.h), else the metadata is not this unit's (an error naming the
 * record, the size and the layout expected). Other ports (IMU: 7503) are skipped.
 *
 * Frames: columns are gathered by frame_id; a frame ends when another frame_id comes. It is
 * complete when every column of the column_window (all columns_per_frame by default) came;
 * frames are counted from 0 among the complete ones (a recording started or stopped mid-turn has
 * an incomplete first or last frame), or among all with `partial`.
 *
 * Points, as Ouster's software manual ("Sensor Data" > "Coordinate Frames", the SDK's XYZ lookup
 * table) turns a pixel into a point: column m of W sits at the encoder angle
 * theta_e = 2 pi (1 - m / W); beam i at theta = theta_e - beam_azimuth_angles[i] and
 * phi = beam_altitude_angles[i]; with r the pixel's range (mm) and n lidar_origin_to_beam_origin_mm,
 *   lidar frame: ((r - n) cos theta cos phi + n cos theta_e, (r - n) sin theta cos phi +
 *                 n sin theta_e, (r - n) sin phi + beam_to_lidar z),
 * then lidar_to_sensor_transform (rotation, translation in mm) into the sensor frame, the frame
 * lidarsim's Ouster specs scan in (sensor/unit_ouster.c), in metres. Fields:
 *   range          (r - n) / 1000: lidarsim's range, from the beam's origin (not Ouster's r)
 *   intensity      signal (photons) where the profile has it; RNG15_RFL8_NIR8 and the FUSA
 *                  profile have none: near_ir (scaled to 16 bits as Ouster does, x16)
 *   reflectivity   of Ouster's calibrated reflectivity (recording.h: /100 up to 100, then logarithmic to
 *                  1000 at 255; LEGACY's 16-bit field is read the same, values above 255 as 255's)
 *   ring           pixels_per_column - 1 - i (lidarsim's ring 0 is the lowest beam; Ouster's 0 the top)
 *   azimuth, elevation  the beam's direction in the sensor frame, degrees (atan2(y, x), asin(z))
 *   time           the column's timestamp minus the frame's earliest, seconds
 *   return_index, num_returns  dual profiles: the pixel's returns ordered by range (0 the nearer)
 * A range of 0 is no return; a column whose status says invalid gives no points. */
#include "recording/recording.h"
#include "recording/ouster_format.h"
#include "recording/pcap_read.h"

#include "core/context.h"
#include "core/vec.h"
#include "points/points.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct frame_buf {
    int W;
    size_t bytes;            /* pixel bytes of a column */
    unsigned char *pixels;   /* W * bytes */
    uint64_t *ts;
    unsigned char *present, *valid;
    int have;                /* columns present */
    int open;
    uint32_t frame_id;
} frame_buf;

typedef struct ouster_ctx {
    lsim_context *ctx;
    const lsim_recording_job *job;
    const lsim_ouster_table *t;
    lsim_ouster_layout l;
    int expected;            /* columns of a complete frame */
    frame_buf f;
    uint64_t counted;        /* frames counted so far */
    lsim_points *points;     /* the frame asked for, once read */
} ouster_ctx;

static int in_window(const lsim_ouster_table *t, int m)
{
    const int a = t->column_window[0], b = t->column_window[1];
    if (a < 0 || b < 0)
        return 1;
    return a <= b ? m >= a && m <= b : m >= a || m <= b;
}

static lsim_status decode(ouster_ctx *o)
{
    const lsim_ouster_table *t = o->t;
    const lsim_ouster_layout *l = &o->l;
    const frame_buf *f = &o->f;
    const int W = f->W, H = l->pixels_per_column;
    size_t n = 0;
    uint64_t t0 = UINT64_MAX;
    for (int m = 0; m < W; ++m)
        if (f->present[m] && f->ts[m] < t0)
            t0 = f->ts[m];
    for (int m = 0; m < W; ++m)
        if (f->present[m] && f->valid[m])
            for (int i = 0; i < H; ++i)
                for (int r = 0; r < l->returns; ++r)
                    n += lsim_ouster_field_get(&l->range[r], f->pixels + (size_t)m * f->bytes + (size_t)i * l->pixel) != 0;
    lsim_points *p = NULL;
    lsim_status st = lsim_recording_points_alloc(o->ctx, n, o->job->fields, &p);
    if (st != LSIM_OK)
        return st;
    const double *M = t->lidar_to_sensor, nmm = t->origin_mm;
    size_t k = 0;
    for (int m = 0; m < W; ++m) {
        if (!f->present[m] || !f->valid[m])
            continue;
        const double theta_e = 2.0 * LSIM_PI * (1.0 - (double)m / W);
        const double ce = cos(theta_e), se = sin(theta_e);
        for (int i = 0; i < H; ++i) {
            const unsigned char *px = f->pixels + (size_t)m * f->bytes + (size_t)i * l->pixel;
            uint32_t range[2] = {0, 0};
            int got = 0;
            for (int r = 0; r < l->returns; ++r)
                got += (range[r] = lsim_ouster_field_get(&l->range[r], px)) != 0;
            if (!got)
                continue;
            const double theta = theta_e - t->azimuth_deg[i] * (LSIM_PI / 180.0), phi = t->altitude_deg[i] * (LSIM_PI / 180.0);
            const double d[3] = {cos(theta) * cos(phi), sin(theta) * cos(phi), sin(phi)};
            double ds[3];
            for (int a = 0; a < 3; ++a)
                ds[a] = M[4 * a] * d[0] + M[4 * a + 1] * d[1] + M[4 * a + 2] * d[2];
            const uint32_t near_ir = lsim_ouster_field_get(&l->near_ir, px);
            for (int r = 0; r < l->returns; ++r) {
                if (!range[r])
                    continue;
                const double rr = (double)range[r] - nmm;
                const double q[3] = {rr * d[0] + nmm * ce, rr * d[1] + nmm * se, rr * d[2] + t->beam_z_mm};
                lsim_recording_point pt;
                pt.x = (M[0] * q[0] + M[1] * q[1] + M[2] * q[2] + M[3]) * 1e-3;
                pt.y = (M[4] * q[0] + M[5] * q[1] + M[6] * q[2] + M[7]) * 1e-3;
                pt.z = (M[8] * q[0] + M[9] * q[1] + M[10] * q[2] + M[11]) * 1e-3;
                pt.range = rr * 1e-3;
                pt.intensity = l->signal[r].bytes ? lsim_ouster_field_get(&l->signal[r], px) : near_ir;
                pt.reflectivity = lsim_recording_reflectivity_value(lsim_ouster_field_get(&l->reflectivity[r], px));
                pt.ring = H - 1 - i;
                pt.azimuth_deg = atan2(ds[1], ds[0]) * (180.0 / LSIM_PI);
                pt.elevation_deg = asin(fmax(-1.0, fmin(1.0, ds[2]))) * (180.0 / LSIM_PI);
                pt.time_s = (double)(f->ts[m] - t0) * 1e-9;
                pt.num_returns = got;
                pt.return_index = got == 2 && range[r] > range[1 - r] ? 1 : 0;
                lsim_recording_points_set(p, k++, &pt);
            }
        }
    }
    p->count = k;
    o->points = p;
    return LSIM_OK;
}

/* The frame in the buffer has ended: count it, decode it when it is the one asked for. */
static lsim_status frame_end(ouster_ctx *o)
{
    frame_buf *f = &o->f;
    if (!f->open)
        return LSIM_OK;
    const int complete = f->have >= o->expected;
    lsim_status st = LSIM_OK;
    if (complete || o->job->partial) {
        if (o->job->want >= 0 && (uint64_t)o->job->want == o->counted)
            st = decode(o);
        ++o->counted;
    }
    f->open = 0;
    f->have = 0;
    memset(f->present, 0, (size_t)f->W);
    return st;
}

static lsim_status column_add(ouster_ctx *o, const lsim_udp_datagram *g, int c, const lsim_ouster_column *col)
{
    frame_buf *f = &o->f;
    if (col->measurement_id >= (uint32_t)f->W)
        return lsim_fail(o->ctx, LSIM_ERR_PARSE, "%s: record %llu: column %d has measurement_id %u, but %s gives %d "
                         "columns a frame (0..%d): the recording is not of this unit's lidar mode, or damaged",
                         o->job->path, (unsigned long long)g->record, c, col->measurement_id, o->job->calibration, f->W,
                         f->W - 1);
    lsim_status st = LSIM_OK;
    if (f->open && col->frame_id != f->frame_id)
        st = frame_end(o);
    if (st != LSIM_OK || o->points)
        return st;
    if (!f->open) {
        f->open = 1;
        f->frame_id = col->frame_id;
    }
    const int m = (int)col->measurement_id;
    if (f->present[m])
        return lsim_fail(o->ctx, LSIM_ERR_PARSE, "%s: record %llu: column %d repeats measurement_id %d of frame %u "
                         "(a packet sent twice, or a damaged recording)", o->job->path, (unsigned long long)g->record, c,
                         m, f->frame_id);
    f->present[m] = 1;
    f->valid[m] = (unsigned char)col->valid;
    f->ts[m] = col->timestamp_ns;
    f->have += in_window(o->t, m);
    memcpy(f->pixels + (size_t)m * f->bytes, col->pixels, f->bytes);
    return LSIM_OK;
}

static lsim_status setup(ouster_ctx *o)
{
    const lsim_ouster_table *t = o->t;
    const char *cal = o->job->calibration;
    const int profile = t->udp_profile_lidar[0] ? lsim_ouster_profile_find(t->udp_profile_lidar) : LSIM_OUSTER_LEGACY;
    if (profile < 0)
        return lsim_fail(o->ctx, LSIM_ERR_PARSE, "%s: udp_profile_lidar '%s' is not a profile lidarsim reads (LEGACY, "
                         "RNG19_RFL8_SIG16_NIR16, RNG19_RFL8_SIG16_NIR16_DUAL, RNG15_RFL8_NIR8, "
                         "FUSA_RNG15_RFL8_NIR8_DUAL)", cal, t->udp_profile_lidar);
    const int H = t->pixels_per_column ? t->pixels_per_column : t->count;
    if (H != t->count)
        return lsim_fail(o->ctx, LSIM_ERR_PARSE, "%s: pixels_per_column %d but %d beam angles", cal, H, t->count);
    lsim_status st = lsim_ouster_layout_make(o->ctx, cal, (lsim_ouster_profile)profile, H,
                                             t->columns_per_packet ? t->columns_per_packet : 16, &o->l);
    if (st != LSIM_OK)
        return st;
    const int W = t->columns;
    if (W < 1 || W > LSIM_RECORDING_MAX_COLUMNS || (t->columns_per_frame && t->columns_per_frame != W))
        return lsim_fail(o->ctx, LSIM_ERR_PARSE, "%s: lidar_mode gives %d columns a frame, columns_per_frame %d; they "
                         "must agree and lie in 1..%d", cal, W, t->columns_per_frame, LSIM_RECORDING_MAX_COLUMNS);
    const int a = t->column_window[0], b = t->column_window[1];
    if ((a >= 0 || b >= 0) && (a < 0 || b < 0 || a >= W || b >= W))
        return lsim_fail(o->ctx, LSIM_ERR_PARSE, "%s: column_window [%d, %d] lies outside the %d columns", cal, a, b, W);
    o->expected = a < 0 ? W : a <= b ? b - a + 1 : W - a + b + 1;
    frame_buf *f = &o->f;
    f->W = W;
    f->bytes = (size_t)H * o->l.pixel;
    f->pixels = malloc((size_t)W * f->bytes);
    f->ts = malloc((size_t)W * sizeof *f->ts);
    f->present = calloc((size_t)W, 1);
    f->valid = calloc((size_t)W, 1);
    if (!f->pixels || !f->ts || !f->present || !f->valid)
        return lsim_fail(o->ctx, LSIM_ERR_OUT_OF_MEMORY, "%s: out of memory for a frame of %d x %d pixels",
                         o->job->path, W, H);
    return LSIM_OK;
}

lsim_status lsim_ouster_recording_read(lsim_context *ctx, const lsim_recording_job *job, const lsim_ouster_table *t,
                                       lsim_points **out, uint64_t *frames)
{
    ouster_ctx o;
    memset(&o, 0, sizeof o);
    o.ctx = ctx;
    o.job = job;
    o.t = t;
    lsim_pcap_reader *r = NULL;
    lsim_status st = setup(&o);
    if (st == LSIM_OK)
        st = lsim_pcap_open(ctx, job->path, &r);
    const int port = t->udp_port_lidar > 0 ? t->udp_port_lidar : 7502;
    uint64_t lidar = 0;
    while (st == LSIM_OK && !o.points) {
        lsim_udp_datagram g;
        int got = 0;
        if ((st = lsim_pcap_next(r, &g, &got)) != LSIM_OK || !got)
            break;
        if (g.dst_port != port)
            continue;
        if (g.size != o.l.packet_size) {
            st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s: record %llu: a %zu-byte packet to port %d, but %s describes %s "
                           "packets of %d columns x %d pixels, %zu bytes: the recording is not of the unit (or lidar "
                           "profile) this metadata describes", job->path, (unsigned long long)g.record, g.size, port,
                           job->calibration, lsim_ouster_profile_name(o.l.profile), o.l.columns_per_packet,
                           o.l.pixels_per_column, o.l.packet_size);
            break;
        }
        const uint32_t type = lsim_ouster_packet_type(&o.l, g.payload);
        if (type != 1) {
            st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s: record %llu: packet type %u, not a lidar packet (1)", job->path,
                           (unsigned long long)g.record, type);
            break;
        }
        ++lidar;
        for (int c = 0; c < o.l.columns_per_packet && st == LSIM_OK && !o.points; ++c) {
            lsim_ouster_column col;
            lsim_ouster_column_get(&o.l, g.payload, c, &col);
            st = column_add(&o, &g, c, &col);
        }
    }
    if (st == LSIM_OK && !o.points)
        st = frame_end(&o);
    if (st == LSIM_OK && !lidar) {
        lsim_pcap_counts n;
        lsim_pcap_counts_get(r, &n);
        st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s: no Ouster lidar packets: %llu records, %llu UDP datagrams, none to port "
                       "%d (%s's udp_port_lidar, or 7502)", job->path, (unsigned long long)n.records,
                       (unsigned long long)n.udp, port, job->calibration);
    }
    if (st == LSIM_OK && job->want >= 0 && !o.points)
        st = lsim_fail(ctx, LSIM_ERR_NOT_FOUND, "%s: frame %lld asked for, but the recording holds %llu %sframes "
                       "(counted from 0)%s", job->path, (long long)job->want, (unsigned long long)o.counted,
                       job->partial ? "" : "complete ", job->partial ? "" : "; the partial option counts incomplete ones too");
    lsim_pcap_close(r);
    free(o.f.pixels);
    free(o.f.ts);
    free(o.f.present);
    free(o.f.valid);
    if (frames)
        *frames = o.counted;
    if (st != LSIM_OK) {
        lsim_points_destroy(o.points);
        return st;
    }
    if (out)
        *out = o.points;
    else
        lsim_points_destroy(o.points);
    return LSIM_OK;
}
