/* MCAP output (https://mcap.dev/spec, profile "ros2"), one chunk per frame, indexed:
 *
 *   magic, Header("ros2", "lidarsim"),
 *   Schema 1 sensor_msgs/msg/PointCloud2, Schema 2 tf2_msgs/msg/TFMessage (encoding ros2msg),
 *   Channel 1 /lidarsim/points (schema 1), Channel 2 /tf (schema 2), message encoding cdr,
 *   per frame: a Chunk (compression "", uncompressed_crc 0: not computed, as the spec allows for a
 *   chunk streamed before its bytes are known) holding Message /tf (world -> lidar: the sensor's
 *   pose at the frame start) and Message /lidarsim/points (PointCloud2, frame_id "lidar", or
 *   "world" for points in the world frame), both stamped (header stamp, log and publish time)
 *   with the frame's scan_time; then a Message Index for each of the two channels,
 *   Data End (data_section_crc: CRC-32 of every byte before it, from the leading magic on),
 *   summary: the Schemas, the Channels, Statistics, a Chunk Index per chunk; Summary Offset
 *   records for those groups, Footer (summary_crc: CRC-32 of the summary through the footer's
 *   summary_offset_start), magic.
 * An indexed reader (@mcap/core's McapIndexedReader, as Foxglove seeks) finds every message from
 * the Chunk Indexes; a streaming reader reads the chunks in order.
 * A PointCloud2 holds x, y, z, intensity, time (float32), label, instance (uint32) and ring
 * (uint16), those present, packed in that order (point_step padded to 4 bytes); height 1, is_dense
 * 1 when every coordinate is finite. Its record's length, and so its chunk's, is known when the
 * frame starts, so rows are streamed into it slice by slice and no seek is needed (standard output
 * works). The chunk indexes (40 bytes a frame) are kept until the summary. */
#include "core/context.h"
#include "formats/field_io.h"
#include "formats/crc32.h"
#include "formats/ros2_msgs.h"
#include "formats/writers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define OP_HEADER 0x01
#define OP_FOOTER 0x02
#define OP_SCHEMA 0x03
#define OP_CHANNEL 0x04
#define OP_MESSAGE 0x05
#define OP_CHUNK 0x06
#define OP_MESSAGE_INDEX 0x07
#define OP_CHUNK_INDEX 0x08
#define OP_STATISTICS 0x0B
#define OP_SUMMARY_OFFSET 0x0E
#define OP_DATA_END 0x0F
#define CHANNEL_POINTS 1
#define CHANNEL_TF 2
#define MCAP_ROWS 4096
#define MAX_FIELDS 8
#define CHUNK_HEAD 40          /* a Chunk's fields before its records' bytes */
#define MESSAGE_INDEX_BODY 22  /* a Message Index of one message */

static const unsigned char mcap_magic[8] = {0x89, 'M', 'C', 'A', 'P', 0x30, '\r', '\n'};

/* The PointCloud2 fields, in packing order. */
static const lsim_field cloud_fields[MAX_FIELDS] = {
    LSIM_FIELD_X, LSIM_FIELD_Y, LSIM_FIELD_Z, LSIM_FIELD_INTENSITY, LSIM_FIELD_TIME,
    LSIM_FIELD_LABEL, LSIM_FIELD_INSTANCE, LSIM_FIELD_RING,
};

/* Where a chunk is, for its Chunk Index. */
typedef struct mcap_chunk {
    uint64_t ns;                  /* its messages' log time */
    uint64_t start, length;       /* the Chunk record: offset and bytes (opcode and length included) */
    uint64_t records;             /* its records' bytes (uncompressed = compressed) */
    uint64_t points_message;      /* the PointCloud2 message's offset in the records (the TF's is 0) */
} mcap_chunk;

struct lsim_mcap_writer {
    uint64_t pos;                 /* bytes written so far */
    mcap_chunk *chunks;           /* one per frame (grown by doubling) */
    size_t chunk_cap;
    uint64_t frames;              /* frames started */
    uint64_t start_ns, end_ns;    /* first and last log time */
    lsim_ros2_field fields[MAX_FIELDS];
    lsim_field field_of[MAX_FIELDS];
    size_t field_count;
    uint32_t point_step;
    int in_frame, dense;
    int in_data;                  /* 1 until the Data End: emitted bytes count in data_crc */
    uint32_t data_crc;            /* running CRC-32 of the data section (pre- and post-inverted) */
    uint32_t crc_table[256];
    unsigned char rows[MCAP_ROWS * 32];
};

static void put_u16(unsigned char *p, uint16_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

static void put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; ++i)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; ++i)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void emit(lsim_point_stream *s, const void *p, size_t n)
{
    lsim_mcap_writer *w = s->mcap;
    if (n == 0)
        return;
    fwrite(p, 1, n, s->fp);
    w->pos += n;
    if (w->in_data)
        w->data_crc = lsim_crc32_update(w->crc_table, w->data_crc, p, n);
}

static void emit_record_head(lsim_point_stream *s, uint8_t op, uint64_t length)
{
    unsigned char h[9];
    h[0] = op;
    for (int i = 0; i < 8; ++i)
        h[1 + i] = (unsigned char)(length >> (8 * i));
    emit(s, h, sizeof h);
}

/* A record whose body is `body`, to the file or (out != NULL) to a buffer. */
static void record(lsim_point_stream *s, lsim_bytes *out, uint8_t op, const lsim_bytes *body)
{
    if (body->failed) { /* out of memory: the caller reports it */
        if (out)
            out->failed = 1;
        return;
    }
    if (out) {
        lsim_bytes_u8(out, op);
        lsim_bytes_u64(out, body->size);
        lsim_bytes_put(out, body->data, body->size);
        return;
    }
    emit_record_head(s, op, body->size);
    emit(s, body->data, body->size);
}

static void schema_body(lsim_bytes *b, uint16_t id, const char *name, const char *text)
{
    lsim_bytes_u16(b, id);
    lsim_bytes_str(b, name);
    lsim_bytes_str(b, "ros2msg");
    lsim_bytes_str(b, text); /* bytes: uint32 length + the text */
}

static void channel_body(lsim_bytes *b, uint16_t id, uint16_t schema, const char *topic)
{
    lsim_bytes_u16(b, id);
    lsim_bytes_u16(b, schema);
    lsim_bytes_str(b, topic);
    lsim_bytes_str(b, "cdr");
    lsim_bytes_u32(b, 0); /* metadata: an empty map */
}

/* The Schema and Channel records, to the file (out NULL) or to a buffer; group_len[0] and [1]
 * receive the bytes of the Schema and of the Channel group. */
static void schemas_and_channels(lsim_point_stream *s, lsim_bytes *out, lsim_bytes *tmp, uint64_t group_len[2])
{
    static const struct { uint16_t id; const char *name; const char *text; } schemas[2] = {
        {CHANNEL_POINTS, "sensor_msgs/msg/PointCloud2", lsim_ros2_pointcloud2_schema},
        {CHANNEL_TF, "tf2_msgs/msg/TFMessage", lsim_ros2_tfmessage_schema},
    };
    group_len[0] = group_len[1] = 0;
    for (int i = 0; i < 2; ++i) {
        tmp->size = 0;
        schema_body(tmp, schemas[i].id, schemas[i].name, schemas[i].text);
        record(s, out, OP_SCHEMA, tmp);
        group_len[0] += 9 + tmp->size;
    }
    for (int i = 0; i < 2; ++i) {
        tmp->size = 0;
        channel_body(tmp, schemas[i].id, schemas[i].id, i == 0 ? "/lidarsim/points" : "/tf");
        record(s, out, OP_CHANNEL, tmp);
        group_len[1] += 9 + tmp->size;
    }
}

static void message_prefix(lsim_bytes *b, uint16_t channel, uint32_t sequence, uint64_t ns)
{
    lsim_bytes_u16(b, channel);
    lsim_bytes_u32(b, sequence);
    lsim_bytes_u64(b, ns); /* log time */
    lsim_bytes_u64(b, ns); /* publish time */
}

static lsim_status oom(lsim_point_stream *s)
{
    return lsim_fail(s->ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory writing '%s'", s->path);
}

/* The frame's Chunk head, its TF message and the head of its PointCloud2 message. */
static lsim_status start_frame(lsim_point_stream *s, const lsim_points *frame, size_t count)
{
    lsim_mcap_writer *w = s->mcap;
    const double t = frame->scan_time;
    if (!(t >= 0.0))
        return lsim_fail(s->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "cannot write MCAP '%s': frame start %g s is before 0; MCAP log times and ROS stamps "
                         "count unsigned nanoseconds: give --scan-time >= 0", s->path, t);
    if (!(t < 2147483647.0))
        return lsim_fail(s->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "cannot write MCAP '%s': frame start %g s is past 2147483647 s, the last second a ROS "
                         "stamp (int32 seconds) holds: give a smaller --scan-time", s->path, t);
    if ((uint64_t)count * w->point_step > UINT32_MAX)
        return lsim_fail(s->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "cannot write MCAP '%s': %zu points of %u bytes exceed the 4 GiB a PointCloud2's data "
                         "holds; ask for fewer --fields or a smaller frame", s->path, count, (unsigned)w->point_step);
    if (w->frames == w->chunk_cap) {
        const size_t cap = w->chunk_cap ? 2 * w->chunk_cap : 16;
        mcap_chunk *grown = realloc(w->chunks, cap * sizeof *grown);
        if (!grown)
            return oom(s);
        w->chunks = grown;
        w->chunk_cap = cap;
    }
    const uint64_t ns = (uint64_t)llround(t * 1e9);
    const int32_t sec = (int32_t)(ns / 1000000000u);
    const uint32_t nanosec = (uint32_t)(ns % 1000000000u);
    if (w->frames == 0 || ns < w->start_ns)
        w->start_ns = ns;
    if (w->frames == 0 || ns > w->end_ns)
        w->end_ns = ns;
    lsim_bytes tf = {0}, head = {0}, cdr = {0};
    lsim_ros2_tfmessage(&cdr, sec, nanosec, "world", "lidar", frame->sensor_pose);
    message_prefix(&tf, CHANNEL_TF, (uint32_t)w->frames, ns);
    lsim_bytes_put(&tf, cdr.data, cdr.size);
    cdr.size = 0;
    lsim_ros2_pointcloud2_head(&cdr, sec, nanosec, frame->frame == LSIM_FRAME_WORLD ? "world" : "lidar",
                               (uint32_t)count, w->fields, w->field_count, w->point_step);
    message_prefix(&head, CHANNEL_POINTS, (uint32_t)w->frames, ns);
    lsim_bytes_put(&head, cdr.data, cdr.size);
    const int failed = tf.failed || head.failed || cdr.failed;
    if (!failed) {
        mcap_chunk *c = &w->chunks[w->frames];
        const uint64_t points_body = head.size + (uint64_t)count * w->point_step + 1u;
        c->ns = ns;
        c->start = w->pos;
        c->points_message = 9 + tf.size;
        c->records = c->points_message + 9 + points_body;
        c->length = 9 + CHUNK_HEAD + c->records;
        unsigned char chunk[CHUNK_HEAD];
        put_u64(chunk, ns);          /* message_start_time */
        put_u64(chunk + 8, ns);      /* message_end_time */
        put_u64(chunk + 16, c->records); /* uncompressed_size */
        memset(chunk + 24, 0, 8);    /* uncompressed_crc 0 (not computed), compression "" */
        put_u64(chunk + 32, c->records); /* records: their length, then the records */
        emit_record_head(s, OP_CHUNK, CHUNK_HEAD + c->records);
        emit(s, chunk, sizeof chunk);
        record(s, NULL, OP_MESSAGE, &tf);
        emit_record_head(s, OP_MESSAGE, points_body);
        emit(s, head.data, head.size);
    }
    lsim_bytes_free(&tf);
    lsim_bytes_free(&head);
    lsim_bytes_free(&cdr);
    if (failed)
        return oom(s);
    w->frames++;
    w->in_frame = 1;
    w->dense = 1;
    return LSIM_OK;
}

/* The PointCloud2's is_dense byte, which ends the chunk, then a Message Index per channel. */
static void end_frame(lsim_point_stream *s)
{
    lsim_mcap_writer *w = s->mcap;
    const mcap_chunk *c = &w->chunks[w->frames - 1];
    unsigned char dense = (unsigned char)w->dense;
    emit(s, &dense, 1);
    unsigned char index[MESSAGE_INDEX_BODY];
    for (int k = 0; k < 2; ++k) { /* /tf, then /lidarsim/points */
        put_u16(index, k == 0 ? CHANNEL_TF : CHANNEL_POINTS);
        put_u32(index + 2, 16);  /* records: one (log_time, offset) */
        put_u64(index + 6, c->ns);
        put_u64(index + 14, k == 0 ? 0 : c->points_message);
        emit_record_head(s, OP_MESSAGE_INDEX, sizeof index);
        emit(s, index, sizeof index);
    }
    w->in_frame = 0;
}

lsim_status lsim_mcap_begin(lsim_point_stream *s, const lsim_points *frame)
{
    lsim_mcap_writer *w = calloc(1, sizeof *w);
    if (!w)
        return oom(s);
    s->mcap = w;
    lsim_crc32_table(w->crc_table);
    w->in_data = 1;
    uint32_t offset = 0;
    for (int i = 0; i < MAX_FIELDS; ++i) {
        lsim_field f = cloud_fields[i];
        if (!(s->columns & LSIM_FIELD_BIT(f)))
            continue;
        lsim_field_type type = lsim_field_get_type(f);
        w->fields[w->field_count] = (lsim_ros2_field){lsim_field_name(f), offset,
                                                       type == LSIM_TYPE_F32 ? 7 : (type == LSIM_TYPE_U32 ? 6 : 4)};
        w->field_of[w->field_count++] = f;
        offset += (uint32_t)lsim_field_size(f);
    }
    w->point_step = (offset + 3u) & ~3u;
    emit(s, mcap_magic, sizeof mcap_magic);
    lsim_bytes b = {0}, tmp = {0};
    lsim_bytes_str(&b, "ros2"); /* profile */
    lsim_bytes_str(&b, "lidarsim"); /* library */
    uint64_t groups[2];
    if (!b.failed)
        record(s, NULL, OP_HEADER, &b);
    schemas_and_channels(s, NULL, &tmp, groups);
    int failed = b.failed || tmp.failed;
    lsim_bytes_free(&b);
    lsim_bytes_free(&tmp);
    if (failed)
        return oom(s);
    return start_frame(s, frame, s->expected);
}

lsim_status lsim_mcap_frame(lsim_point_stream *s, const lsim_points *frame)
{
    if (s->mcap->in_frame)
        end_frame(s);
    return start_frame(s, frame, s->expected);
}

lsim_status lsim_mcap_append(lsim_point_stream *s, const lsim_points *points)
{
    lsim_mcap_writer *w = s->mcap;
    const size_t step = w->point_step;
    const float *x = points->column[LSIM_FIELD_X], *y = points->column[LSIM_FIELD_Y], *z = points->column[LSIM_FIELD_Z];
    for (size_t first = 0; first < points->count && !ferror(s->fp); first += MCAP_ROWS) {
        size_t n = points->count - first < MCAP_ROWS ? points->count - first : MCAP_ROWS;
        memset(w->rows, 0, n * step); /* padding bytes are zero */
        for (size_t f = 0; f < w->field_count; ++f) {
            const lsim_field field = w->field_of[f];
            unsigned char *d = w->rows + w->fields[f].offset;
            for (size_t k = 0; k < n; ++k, d += step) {
                size_t i = first + k;
                switch (lsim_field_get_type(field)) {
                case LSIM_TYPE_F32: lsim_io_put_f32le(d, ((const float *)points->column[field])[i]); break;
                case LSIM_TYPE_U16: lsim_io_put_u16le(d, ((const uint16_t *)points->column[field])[i]); break;
                case LSIM_TYPE_U32: lsim_io_put_u32le(d, ((const uint32_t *)points->column[field])[i]); break;
                }
            }
        }
        for (size_t k = 0; k < n && w->dense; ++k)
            w->dense = isfinite(x[first + k]) && isfinite(y[first + k]) && isfinite(z[first + k]);
        emit(s, w->rows, n * step);
    }
    return LSIM_OK;
}

/* Data End, summary, Summary Offsets, Footer, magic. */
static lsim_status finish_file(lsim_point_stream *s)
{
    lsim_mcap_writer *w = s->mcap;
    if (w->in_frame)
        end_frame(s);
    lsim_bytes b = {0}, tmp = {0}, summary = {0};
    w->in_data = 0;
    lsim_bytes_u32(&b, w->data_crc); /* data_section_crc */
    record(s, NULL, OP_DATA_END, &b);
    const uint64_t summary_start = w->pos;
    uint64_t groups[4];
    schemas_and_channels(s, &summary, &tmp, groups);
    b.size = 0; /* Statistics */
    lsim_bytes_u64(&b, 2 * w->frames);       /* message_count */
    lsim_bytes_u16(&b, 2);                   /* schema_count */
    lsim_bytes_u32(&b, 2);                   /* channel_count */
    lsim_bytes_u32(&b, 0);                   /* attachment_count */
    lsim_bytes_u32(&b, 0);                   /* metadata_count */
    lsim_bytes_u32(&b, (uint32_t)w->frames); /* chunk_count: one a frame */
    lsim_bytes_u64(&b, w->start_ns);         /* message_start_time */
    lsim_bytes_u64(&b, w->end_ns);           /* message_end_time */
    lsim_bytes_u32(&b, 2 * (2 + 8));         /* channel_message_counts: map<uint16, uint64> */
    lsim_bytes_u16(&b, CHANNEL_POINTS);
    lsim_bytes_u64(&b, w->frames);
    lsim_bytes_u16(&b, CHANNEL_TF);
    lsim_bytes_u64(&b, w->frames);
    record(s, &summary, OP_STATISTICS, &b);
    groups[2] = 9 + b.size;
    groups[3] = 0; /* a Chunk Index per chunk */
    for (uint64_t k = 0; k < w->frames; ++k) {
        const mcap_chunk *c = &w->chunks[k];
        const uint64_t index_at = c->start + c->length; /* the chunk's Message Indexes follow it */
        b.size = 0;
        lsim_bytes_u64(&b, c->ns);               /* message_start_time */
        lsim_bytes_u64(&b, c->ns);               /* message_end_time */
        lsim_bytes_u64(&b, c->start);            /* chunk_start_offset */
        lsim_bytes_u64(&b, c->length);           /* chunk_length */
        lsim_bytes_u32(&b, 2 * (2 + 8));         /* message_index_offsets: map<uint16, uint64> */
        lsim_bytes_u16(&b, CHANNEL_TF);
        lsim_bytes_u64(&b, index_at);
        lsim_bytes_u16(&b, CHANNEL_POINTS);
        lsim_bytes_u64(&b, index_at + 9 + MESSAGE_INDEX_BODY);
        lsim_bytes_u64(&b, 2 * (9 + MESSAGE_INDEX_BODY)); /* message_index_length */
        lsim_bytes_str(&b, "");                  /* compression */
        lsim_bytes_u64(&b, c->records);          /* compressed_size */
        lsim_bytes_u64(&b, c->records);          /* uncompressed_size */
        record(s, &summary, OP_CHUNK_INDEX, &b);
        groups[3] += 9 + b.size;
    }
    const uint64_t summary_offset_start = summary_start + summary.size;
    static const uint8_t group_op[4] = {OP_SCHEMA, OP_CHANNEL, OP_STATISTICS, OP_CHUNK_INDEX};
    uint64_t group_start = summary_start;
    for (int g = 0; g < 4; ++g) {
        b.size = 0;
        lsim_bytes_u8(&b, group_op[g]);
        lsim_bytes_u64(&b, group_start);
        lsim_bytes_u64(&b, groups[g]);
        record(s, &summary, OP_SUMMARY_OFFSET, &b);
        group_start += groups[g];
    }
    lsim_bytes_u8(&summary, OP_FOOTER);
    lsim_bytes_u64(&summary, 8 + 8 + 4);
    lsim_bytes_u64(&summary, summary_start);
    lsim_bytes_u64(&summary, summary_offset_start);
    int failed = b.failed || tmp.failed || summary.failed;
    if (!failed) {
        lsim_bytes_u32(&summary, lsim_crc32_update(w->crc_table, 0, summary.data, summary.size));
        failed = summary.failed;
    }
    if (!failed) {
        emit(s, summary.data, summary.size);
        emit(s, mcap_magic, sizeof mcap_magic);
    }
    lsim_bytes_free(&b);
    lsim_bytes_free(&tmp);
    lsim_bytes_free(&summary);
    return failed ? oom(s) : LSIM_OK;
}

lsim_status lsim_mcap_end(lsim_point_stream *s, lsim_status status)
{
    if (status == LSIM_OK)
        status = finish_file(s);
    free(s->mcap->chunks);
    free(s->mcap);
    s->mcap = NULL;
    return status;
}
