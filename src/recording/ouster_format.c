/* Ouster lidar packet layouts (ouster_format.h has the table and its sources). */
#include "recording/ouster_format.h"

#include "core/context.h"
#include "formats/field_io.h"

#include <string.h>

static const char *const profile_names[LSIM_OUSTER_PROFILE_COUNT] = {
    "LEGACY", "RNG19_RFL8_SIG16_NIR16", "RNG19_RFL8_SIG16_NIR16_DUAL", "RNG15_RFL8_NIR8",
    "FUSA_RNG15_RFL8_NIR8_DUAL",
};

const char *lsim_ouster_profile_name(lsim_ouster_profile profile)
{
    return (unsigned)profile < LSIM_OUSTER_PROFILE_COUNT ? profile_names[profile] : "unknown";
}

int lsim_ouster_profile_find(const char *name)
{
    for (int p = 0; name && p < LSIM_OUSTER_PROFILE_COUNT; ++p)
        if (strcmp(name, profile_names[p]) == 0)
            return p;
    return -1;
}

#define FIELD(off, n, m, s) ((lsim_ouster_field){(off), (n), (m), (s)})
#define NONE FIELD(0, 0, 0, 0)

lsim_status lsim_ouster_layout_make(lsim_context *ctx, const char *source, lsim_ouster_profile profile,
                                    int pixels_per_column, int columns_per_packet, lsim_ouster_layout *out)
{
    if ((unsigned)profile >= LSIM_OUSTER_PROFILE_COUNT)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "%s: unknown Ouster lidar profile %d", source, (int)profile);
    if (pixels_per_column < 1 || pixels_per_column > 128 || columns_per_packet < 1 || columns_per_packet > 64)
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s: data_format has %d pixels_per_column and %d columns_per_packet; "
                         "Ouster units have 16..128 pixels and 16 columns a packet (lidarsim takes 1..128 and 1..64)",
                         source, pixels_per_column, columns_per_packet);
    lsim_ouster_layout l;
    memset(&l, 0, sizeof l);
    l.profile = profile;
    l.pixels_per_column = pixels_per_column;
    l.columns_per_packet = columns_per_packet;
    const int legacy = profile == LSIM_OUSTER_LEGACY;
    l.packet_header = legacy ? 0 : 32;
    l.packet_footer = legacy ? 0 : 32;
    l.column_header = legacy ? 16 : 12;
    l.column_footer = legacy ? 4 : 0;
    l.returns = 1;
    l.range[1] = l.reflectivity[1] = l.signal[0] = l.signal[1] = l.near_ir = NONE;
    switch (profile) {
    case LSIM_OUSTER_LEGACY:
        l.pixel = 12;
        l.range[0] = FIELD(0, 4, 0x000FFFFFu, 1);
        l.reflectivity[0] = FIELD(4, 2, 0xFFFFu, 1);
        l.signal[0] = FIELD(6, 2, 0xFFFFu, 1);
        l.near_ir = FIELD(8, 2, 0xFFFFu, 1);
        break;
    case LSIM_OUSTER_RNG19_RFL8_SIG16_NIR16:
        l.pixel = 12;
        l.range[0] = FIELD(0, 4, 0x0007FFFFu, 1);
        l.reflectivity[0] = FIELD(4, 1, 0xFFu, 1);
        l.signal[0] = FIELD(6, 2, 0xFFFFu, 1);
        l.near_ir = FIELD(8, 2, 0xFFFFu, 1);
        break;
    case LSIM_OUSTER_RNG19_RFL8_SIG16_NIR16_DUAL:
        l.pixel = 16;
        l.returns = 2;
        l.range[0] = FIELD(0, 4, 0x0007FFFFu, 1);
        l.reflectivity[0] = FIELD(3, 1, 0xFFu, 1);
        l.range[1] = FIELD(4, 4, 0x0007FFFFu, 1);
        l.reflectivity[1] = FIELD(7, 1, 0xFFu, 1);
        l.signal[0] = FIELD(8, 2, 0xFFFFu, 1);
        l.signal[1] = FIELD(10, 2, 0xFFFFu, 1);
        l.near_ir = FIELD(12, 2, 0xFFFFu, 1);
        break;
    case LSIM_OUSTER_RNG15_RFL8_NIR8:
        l.pixel = 4;
        l.range[0] = FIELD(0, 2, 0x7FFFu, 8);
        l.reflectivity[0] = FIELD(2, 1, 0xFFu, 1);
        l.near_ir = FIELD(3, 1, 0xFFu, 16);
        break;
    case LSIM_OUSTER_FUSA_RNG15_RFL8_NIR8_DUAL:
        l.pixel = 8;
        l.returns = 2;
        l.range[0] = FIELD(0, 2, 0x7FFFu, 8);
        l.reflectivity[0] = FIELD(2, 1, 0xFFu, 1);
        l.near_ir = FIELD(3, 1, 0xFFu, 16);
        l.range[1] = FIELD(4, 2, 0x7FFFu, 8);
        l.reflectivity[1] = FIELD(6, 1, 0xFFu, 1);
        break;
    default:
        break;
    }
    l.column_size = l.column_header + (size_t)pixels_per_column * l.pixel + l.column_footer;
    l.packet_size = l.packet_header + (size_t)columns_per_packet * l.column_size + l.packet_footer;
    if (l.packet_size > 65507) /* the most a UDP datagram over IPv4 carries */
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s: %s packets of %d columns of %d pixels would be %zu bytes, more "
                         "than a UDP datagram holds (65,507)", source, profile_names[profile], columns_per_packet,
                         pixels_per_column, l.packet_size);
    *out = l;
    return LSIM_OK;
}

uint32_t lsim_ouster_field_get(const lsim_ouster_field *f, const unsigned char *px)
{
    const unsigned char *b = px + f->offset;
    uint32_t v = f->bytes == 4 ? lsim_io_get_u32le(b) : f->bytes == 2 ? lsim_io_get_u16le(b) : f->bytes == 1 ? b[0] : 0;
    return (v & f->mask) * f->scale;
}

void lsim_ouster_field_put(const lsim_ouster_field *f, unsigned char *px, uint32_t value)
{
    if (!f->bytes)
        return;
    uint32_t raw = value / f->scale;
    if (raw > f->mask)
        raw = f->mask;
    unsigned char *b = px + f->offset;
    uint32_t old = f->bytes == 4 ? lsim_io_get_u32le(b) : f->bytes == 2 ? lsim_io_get_u16le(b) : b[0];
    uint32_t v = (old & ~f->mask) | raw;
    if (f->bytes == 4)
        lsim_io_put_u32le(b, v);
    else if (f->bytes == 2)
        lsim_io_put_u16le(b, (uint16_t)v);
    else
        b[0] = (unsigned char)v;
}

void lsim_ouster_column_get(const lsim_ouster_layout *l, const unsigned char *packet, int c, lsim_ouster_column *out)
{
    const unsigned char *col = packet + l->packet_header + (size_t)c * l->column_size;
    out->timestamp_ns = lsim_io_get_u64le(col);
    out->measurement_id = lsim_io_get_u16le(col + 8);
    out->pixels = col + l->column_header;
    if (l->profile == LSIM_OUSTER_LEGACY) {
        out->frame_id = lsim_io_get_u16le(col + 10);
        out->valid = lsim_io_get_u32le(col + l->column_size - 4) == 0xFFFFFFFFu;
    } else {
        out->frame_id = lsim_ouster_packet_frame_id(l, packet);
        out->valid = lsim_io_get_u16le(col + 10) & 1u;
    }
}

uint32_t lsim_ouster_packet_frame_id(const lsim_ouster_layout *l, const unsigned char *packet)
{
    if (l->profile == LSIM_OUSTER_LEGACY)
        return lsim_io_get_u16le(packet + 10);
    if (l->profile == LSIM_OUSTER_FUSA_RNG15_RFL8_NIR8_DUAL)
        return lsim_io_get_u32le(packet + 4);
    return lsim_io_get_u16le(packet + 2);
}

uint32_t lsim_ouster_packet_type(const lsim_ouster_layout *l, const unsigned char *packet)
{
    if (l->profile == LSIM_OUSTER_LEGACY)
        return 1;
    if (l->profile == LSIM_OUSTER_FUSA_RNG15_RFL8_NIR8_DUAL)
        return packet[0];
    return lsim_io_get_u16le(packet);
}
