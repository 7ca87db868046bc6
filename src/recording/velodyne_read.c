/* A Velodyne recording (pcap of data packets on port 2368) and a laser table into points.
 *
 * Packets: UDP datagrams to port 2368 must be 1,206-byte data packets (velodyne_format.h); the
 * position packets (port 8308) and anything else are skipped. The model comes from the table
 * (its laser count and elevations, as sensor/unit_velodyne.c tells them) or, with no table, from
 * the first packet's product id byte, whose built-in nominal table is then used; a table whose
 * model disagrees with the product id is refused. Return modes: strongest, last, and dual for the
 * one-bank models (VLP-16, HDL-32E, VLP-32C: blocks in pairs of one firing); dual on the HDL-64E
 * and VLS-128 is refused.
 *
 * Azimuth of each firing, as VeloView and the ROS velodyne driver interpolate it: a block's
 * azimuth is that of its firing sequence's start; laser l fires t_l after it (the model's firing
 * sequence, sensor/unit_velodyne.c; the VLP-16's second firing of a block one sequence later),
 * at rot = azimuth + delta * t_l / T, delta the azimuth step to the next firing group of the
 * packet (the last group takes the previous step) and T one group's duration.
 *
 * Points, as velodyne_pointcloud's rawdata.cc (in lidarsim's frame, x forward, y left, z up):
 * phi = rot_correction - rot (counter-clockwise), v = vert_correction, d = count x distance unit
 * (the table's distance_resolution, else the model's: 2 mm, VLS-128 4 mm),
 *   x = (d cos v - vert_offset sin v) cos phi - horiz_offset sin phi
 *   y = (d cos v - vert_offset sin v) sin phi + horiz_offset cos phi
 *   z = d sin v + vert_offset cos v.
 * Fields: range d (from the beam's origin, lidarsim's range), intensity the reflectivity byte
 * (0..255), reflectivity of that byte (Velodyne's calibrated scale: 0..100 diffuse reflectance in
 * percent, 101..255 retroreflectors; recording.h), ring by ascending elevation (lidarsim's ring 0 the
 * lowest), azimuth phi and elevation v in degrees, time the firing's time after the frame's
 * first firing (packet timestamps, microseconds past the hour), return_index/num_returns in dual
 * mode (the beam's returns by range, 0 the nearer; equal distances are one return).
 *
 * Frames: a frame ends where the block azimuth wraps (falls). It is complete when its firings
 * cover the circle: their azimuth steps add up to 360 degrees less at most two steps; frames
 * are counted among complete ones, or all with `partial`. */
#include "recording/recording.h"
#include "recording/pcap_read.h"
#include "recording/velodyne_format.h"

#include "core/context.h"
#include "core/vec.h"
#include "formats/field_io.h"
#include "points/points.h"
#include "sensor/beam.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct velo_ctx {
    lsim_context *ctx;
    const lsim_recording_job *job;
    const char *source;      /* the table's name in messages */
    lsim_velodyne_table table;
    const lsim_velodyne_format *fmt;
    int entry[LSIM_VELODYNE_MAX_LASERS]; /* laser_id -> table entry */
    int ring[LSIM_VELODYNE_MAX_LASERS];  /* laser_id -> ring */
    double fire_s[LSIM_VELODYNE_MAX_LASERS];
    double cos_v[LSIM_VELODYNE_MAX_LASERS], sin_v[LSIM_VELODYNE_MAX_LASERS];
    double sequence_s, group_s, unit_m;
    /* the frame being gathered */
    lsim_recording_point *pts;
    size_t count, capacity;
    int open;
    double start_s, last_az, covered, max_step;
    double hour_base;        /* added to timestamps past the hour, so that time runs on */
    double last_ts;
    uint64_t counted;
    lsim_points *points;
} velo_ctx;

static int by_elevation(const void *a, const void *b, const lsim_velodyne_table *t)
{
    const int i = *(const int *)a, j = *(const int *)b;
    const double x = t->laser[i].vert_rad, y = t->laser[j].vert_rad;
    return x < y ? -1 : x > y ? 1 : t->laser[i].id - t->laser[j].id;
}

static lsim_status setup(velo_ctx *v, int product)
{
    lsim_velodyne_table *t = &v->table;
    const char *model = NULL;
    lsim_status st = lsim_velodyne_timing(v->ctx, v->source, t, &model, &v->sequence_s, v->fire_s);
    if (st != LSIM_OK)
        return st;
    v->fmt = lsim_velodyne_format_find(model);
    const lsim_velodyne_format *by_product = lsim_velodyne_format_of_product(product);
    if (!v->fmt)
        return lsim_fail(v->ctx, LSIM_ERR_PARSE, "%s: a %s table; lidarsim reads no packets of that model", v->source,
                         model);
    if (by_product && by_product != v->fmt)
        return lsim_fail(v->ctx, LSIM_ERR_PARSE, "%s: the packets' product id 0x%02X is a %s, but %s is a %s table (%d "
                         "lasers): give the unit's own calibration", v->job->path, product, by_product->name, v->source,
                         v->fmt->name, t->count);
    v->unit_m = t->distance_resolution_m > 0.0 ? t->distance_resolution_m : v->fmt->distance_m;
    v->group_s = v->sequence_s * v->fmt->firings_per_block;
    int order[LSIM_VELODYNE_MAX_LASERS];
    for (int i = 0; i < t->count; ++i)
        order[i] = i;
    for (int i = 1; i < t->count; ++i) /* insertion sort: at most 128 */
        for (int j = i; j > 0 && by_elevation(&order[j - 1], &order[j], t) > 0; --j) {
            const int s = order[j];
            order[j] = order[j - 1];
            order[j - 1] = s;
        }
    for (int k = 0; k < t->count; ++k) {
        const lsim_velodyne_laser *l = &t->laser[order[k]];
        v->entry[l->id] = order[k];
        v->ring[l->id] = k;
        v->cos_v[l->id] = cos(l->vert_rad);
        v->sin_v[l->id] = sin(l->vert_rad);
    }
    return LSIM_OK;
}

static lsim_status frame_end(velo_ctx *v)
{
    if (!v->open)
        return LSIM_OK;
    v->open = 0;
    const int complete = v->covered + 2.0 * v->max_step >= 360.0 - 1e-9;
    if (!(complete || v->job->partial))
        return LSIM_OK;
    if (v->job->want >= 0 && (uint64_t)v->job->want == v->counted) {
        lsim_points *p = NULL;
        lsim_status st = lsim_recording_points_alloc(v->ctx, v->count, v->job->fields, &p);
        if (st != LSIM_OK)
            return st;
        for (size_t i = 0; i < v->count; ++i)
            lsim_recording_points_set(p, i, &v->pts[i]);
        p->count = v->count;
        v->points = p;
    }
    ++v->counted;
    return LSIM_OK;
}

static lsim_status push(velo_ctx *v, const lsim_recording_point *pt)
{
    if (v->job->want < 0 || (uint64_t)v->job->want != v->counted) /* only the frame asked for is kept */
        return LSIM_OK;
    if (v->count == v->capacity) {
        if (v->capacity >= LSIM_RECORDING_MAX_POINTS)
            return lsim_fail(v->ctx, LSIM_ERR_PARSE, "%s: a frame of more than %u points; the azimuths never wrap "
                             "(not a spinning unit's packets)", v->job->path, LSIM_RECORDING_MAX_POINTS);
        const size_t cap = v->capacity ? 2 * v->capacity : 65536;
        lsim_recording_point *more = realloc(v->pts, cap * sizeof *more);
        if (!more)
            return lsim_fail(v->ctx, LSIM_ERR_OUT_OF_MEMORY, "%s: out of memory for a frame's points", v->job->path);
        v->pts = more;
        v->capacity = cap;
    }
    v->pts[v->count++] = *pt;
    return LSIM_OK;
}

/* One firing group: `banks` blocks starting at block b (dual: 2 x banks); az in degrees. */
static lsim_status group(velo_ctx *v, const lsim_udp_datagram *g, const unsigned char *blk, int nblocks, double az,
                         double step, double t_s)
{
    const lsim_velodyne_format *f = v->fmt;
    const int dual = nblocks == 2 * f->banks;
    for (int bank = 0; bank < f->banks; ++bank) {
        const unsigned char *b0 = blk + (size_t)bank * LSIM_VELODYNE_BLOCK_BYTES;
        const unsigned char *b1 = dual ? blk + (size_t)(bank + f->banks) * LSIM_VELODYNE_BLOCK_BYTES : NULL;
        const int fb = lsim_velodyne_flag_bank(lsim_io_get_u16le(b0));
        if (fb != (f->banks == 1 ? 0 : bank))
            return lsim_fail(v->ctx, LSIM_ERR_PARSE, "%s: record %llu: block flag 0x%04X where a %s packet has 0x%04X",
                             v->job->path, (unsigned long long)g->record, lsim_io_get_u16le(b0), f->name,
                             lsim_velodyne_bank_flag(f->banks == 1 ? 0 : bank));
        for (int j = 0; j < LSIM_VELODYNE_BLOCK_CHANNELS; ++j) {
            const int firing = f->firings_per_block == 2 ? j / 16 : 0;
            const int id = f->firings_per_block == 2 ? j % 16 : bank * 32 + j;
            if (id >= v->table.count)
                continue;
            const unsigned char *c0 = b0 + 4 + 3 * j, *c1 = b1 ? b1 + 4 + 3 * j : NULL;
            unsigned raw[2] = {lsim_io_get_u16le(c0), c1 ? lsim_io_get_u16le(c1) : 0u};
            unsigned refl[2] = {c0[2], c1 ? c1[2] : 0u};
            if (raw[1] == raw[0])
                raw[1] = 0; /* dual mode repeats a single return */
            const int got = (raw[0] != 0) + (raw[1] != 0);
            const double tf = firing * v->sequence_s + v->fire_s[id];
            const double rot = az + step * tf / v->group_s;
            const lsim_velodyne_laser *l = &v->table.laser[v->entry[id]];
            const double phi = l->rot_rad - rot * LSIM_DEG, cp = cos(phi), sp = sin(phi);
            for (int r = 0; r < 2; ++r) {
                if (!raw[r])
                    continue;
                lsim_recording_point pt;
                const double d = raw[r] * v->unit_m;
                const double xy = d * v->cos_v[id] - l->vert_offset_m * v->sin_v[id];
                pt.x = xy * cp - l->horiz_offset_m * sp;
                pt.y = xy * sp + l->horiz_offset_m * cp;
                pt.z = d * v->sin_v[id] + l->vert_offset_m * v->cos_v[id];
                pt.range = d;
                pt.intensity = refl[r];
                pt.reflectivity = lsim_recording_reflectivity_value(refl[r]);
                pt.ring = v->ring[id];
                pt.azimuth_deg = lsim_wrap_deg(phi / LSIM_DEG);
                pt.elevation_deg = l->vert_rad / LSIM_DEG;
                pt.time_s = t_s + tf - v->start_s;
                pt.num_returns = got;
                pt.return_index = got == 2 && raw[r] > raw[1 - r] ? 1 : 0;
                lsim_status st = push(v, &pt);
                if (st != LSIM_OK)
                    return st;
            }
        }
    }
    return LSIM_OK;
}

static lsim_status packet(velo_ctx *v, const lsim_udp_datagram *g)
{
    const unsigned char *p = g->payload;
    const lsim_velodyne_format *f = v->fmt;
    const int mode = p[LSIM_VELODYNE_RETURN_MODE_AT];
    const int dual = mode == LSIM_VELODYNE_RETURN_DUAL;
    if (dual && f->banks != 1)
        return lsim_fail(v->ctx, LSIM_ERR_PARSE, "%s: record %llu: dual-return packets of a %s; lidarsim reads the "
                         "%s's strongest or last return modes only", v->job->path, (unsigned long long)g->record,
                         f->name, f->name);
    const int per = f->banks * (dual ? 2 : 1), groups = LSIM_VELODYNE_BLOCKS / per;
    double ts = lsim_io_get_u32le(p + LSIM_VELODYNE_TIMESTAMP_AT) * 1e-6;
    if (ts >= 3600.0)
        return lsim_fail(v->ctx, LSIM_ERR_PARSE, "%s: record %llu: timestamp %.6f s, beyond the hour the field counts",
                         v->job->path, (unsigned long long)g->record, ts);
    if (ts + v->hour_base < v->last_ts - 1800.0) /* the hour turned */
        v->hour_base += 3600.0;
    ts += v->hour_base;
    v->last_ts = ts;
    double az[LSIM_VELODYNE_BLOCKS];
    for (int k = 0; k < groups; ++k) {
        const unsigned a = lsim_io_get_u16le(p + (size_t)k * per * LSIM_VELODYNE_BLOCK_BYTES + 2);
        if (a >= 36000)
            return lsim_fail(v->ctx, LSIM_ERR_PARSE, "%s: record %llu: block %d has azimuth %u, beyond 35999 "
                             "(hundredths of a degree)", v->job->path, (unsigned long long)g->record, k * per, a);
        az[k] = a / 100.0;
    }
    for (int k = 0; k < groups; ++k) {
        double step = 0.0;
        if (groups > 1) {
            const int a = k + 1 < groups ? k : k - 1;
            step = fmod(az[a + 1] - az[a] + 360.0, 360.0);
        }
        if (v->open && az[k] < v->last_az) {
            lsim_status st = frame_end(v);
            if (st != LSIM_OK || v->points)
                return st;
        }
        const double t_s = ts + k * v->group_s;
        if (!v->open) {
            v->open = 1;
            v->count = 0;
            v->start_s = t_s;
            v->covered = 0.0;
            v->max_step = 0.0;
        } else {
            const double d = az[k] - v->last_az;
            v->covered += d;
            v->max_step = fmax(v->max_step, d);
        }
        v->max_step = fmax(v->max_step, step);
        v->last_az = az[k];
        lsim_status st = group(v, g, p + (size_t)k * per * LSIM_VELODYNE_BLOCK_BYTES, per, az[k], step, t_s);
        if (st != LSIM_OK)
            return st;
    }
    return LSIM_OK;
}

lsim_status lsim_velodyne_recording_read(lsim_context *ctx, const lsim_recording_job *job,
                                         const lsim_velodyne_table *table, lsim_points **out, uint64_t *frames)
{
    velo_ctx *v = calloc(1, sizeof *v);
    if (!v)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "%s: out of memory", job->path);
    v->ctx = ctx;
    v->job = job;
    v->source = job->calibration;
    lsim_pcap_reader *r = NULL;
    lsim_status st = lsim_pcap_open(ctx, job->path, &r);
    uint64_t data = 0;
    while (st == LSIM_OK && !v->points) {
        lsim_udp_datagram g;
        int got = 0;
        if ((st = lsim_pcap_next(r, &g, &got)) != LSIM_OK || !got)
            break;
        if (g.dst_port != LSIM_VELODYNE_DATA_PORT)
            continue;
        if (g.size != LSIM_VELODYNE_PACKET_BYTES) {
            st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s: record %llu: a %zu-byte packet to port %d; Velodyne data packets "
                           "are %d bytes", job->path, (unsigned long long)g.record, g.size, LSIM_VELODYNE_DATA_PORT,
                           LSIM_VELODYNE_PACKET_BYTES);
            break;
        }
        if (!data++) { /* the model: from the table, or the product id's built-in one */
            const int product = g.payload[LSIM_VELODYNE_PRODUCT_AT];
            if (table) {
                v->table = *table;
            } else {
                const lsim_velodyne_format *f = lsim_velodyne_format_of_product(product);
                const lsim_velodyne_table *b = f ? lsim_velodyne_builtin(f->name) : NULL;
                if (!b) {
                    st = lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "%s: Velodyne packets of product id 0x%02X, a model "
                                   "without a built-in table: give the unit's calibration (--metadata TABLE: JSON, "
                                   "ROS YAML or VeloView XML)", job->path, product);
                    break;
                }
                v->table = *b;
                v->source = f->name;
            }
            if ((st = setup(v, product)) != LSIM_OK)
                break;
        }
        st = packet(v, &g);
    }
    if (st == LSIM_OK && !v->points)
        st = frame_end(v);
    if (st == LSIM_OK && !data) {
        lsim_pcap_counts n;
        lsim_pcap_counts_get(r, &n);
        st = lsim_fail(ctx, job->calibration ? LSIM_ERR_PARSE : LSIM_ERR_INVALID_ARGUMENT,
                       "%s: no Velodyne data packets: %llu records, %llu UDP datagrams, none to port %d%s", job->path,
                       (unsigned long long)n.records, (unsigned long long)n.udp, LSIM_VELODYNE_DATA_PORT,
                       job->calibration ? "" : "; an Ouster recording is read with its unit's metadata JSON (lidarsim "
                       "render REC.pcap --metadata M.json; the calibration argument of lsim_points_read_recording)");
    }
    if (st == LSIM_OK && job->want >= 0 && !v->points)
        st = lsim_fail(ctx, LSIM_ERR_NOT_FOUND, "%s: frame %lld asked for, but the recording holds %llu %sframes "
                       "(counted from 0)%s", job->path, (long long)job->want, (unsigned long long)v->counted,
                       job->partial ? "" : "complete ", job->partial ? "" : "; the partial option counts incomplete ones too");
    lsim_pcap_close(r);
    if (frames)
        *frames = v->counted;
    lsim_points *p = v->points;
    free(v->pts);
    free(v);
    if (st != LSIM_OK) {
        lsim_points_destroy(p);
        return st;
    }
    if (out)
        *out = p;
    else
        lsim_points_destroy(p);
    return LSIM_OK;
}
