/* Ouster lidar packets: the layout of each lidar profile (udp_profile_lidar), as Ouster's sensor
 * manual ("Sensor Data" > "Lidar Data Packet Format", firmware 2.x/3.x) and its SDK's packet_format
 * describe them. Offsets are bytes, every field little-endian.
 *
 * LEGACY (firmware < 2.2, and 2.x in legacy mode): no packet header or footer; a column is a
 *   16-byte header (timestamp u64 ns @0, measurement_id u16 @8, frame_id u16 @10, encoder count
 *   u32 @12), pixels of 12 bytes (range u32 @0, low 20 bits, mm; reflectivity u16 @4; signal u16
 *   @6; near_ir u16 @8), then a 4-byte block status (0xFFFFFFFF: valid).
 * The others ("eUDP", firmware >= 2.2): a 32-byte packet header (packet_type u16 @0 = 1,
 *   frame_id u16 @2, init_id u24 @4, prod_sn u40 @7, ...), columns of a 12-byte header
 *   (timestamp u64 @0, measurement_id u16 @8, status u16 @10, bit 0: valid) and pixels, then a
 *   32-byte packet footer.
 *   RNG19_RFL8_SIG16_NIR16 (single return, 12-byte pixel): range u32 @0 low 19 bits mm,
 *     reflectivity u8 @4, signal u16 @6, near_ir u16 @8.
 *   RNG19_RFL8_SIG16_NIR16_DUAL (16 bytes): range u32 @0 low 19 bits, reflectivity u8 @3, range2
 *     u32 @4 low 19 bits, reflectivity2 u8 @7, signal u16 @8, signal2 u16 @10, near_ir u16 @12.
 *   RNG15_RFL8_NIR8 (low data rate, 4 bytes): range u16 @0 low 15 bits in 8 mm units,
 *     reflectivity u8 @2, near_ir u8 @3 in units of 16.
 *   FUSA_RNG15_RFL8_NIR8_DUAL (8 bytes): as RNG15_RFL8_NIR8 for the first return, range2 u16 @4
 *     (15 bits, 8 mm), reflectivity2 u8 @6; its packet header has an 8-bit packet type and a
 *     32-bit frame_id @4.
 * A packet carries columns_per_packet columns (16 on every unit), a frame columns_per_frame
 * (the lidar mode's 512, 1024 or 2048), each of pixels_per_column pixels. */
#ifndef LSIM_RECORDING_OUSTER_FORMAT_H
#define LSIM_RECORDING_OUSTER_FORMAT_H

#include "lidarsim.h"

#include <stddef.h>
#include <stdint.h>

typedef enum lsim_ouster_profile {
    LSIM_OUSTER_LEGACY = 0,
    LSIM_OUSTER_RNG19_RFL8_SIG16_NIR16,
    LSIM_OUSTER_RNG19_RFL8_SIG16_NIR16_DUAL,
    LSIM_OUSTER_RNG15_RFL8_NIR8,
    LSIM_OUSTER_FUSA_RNG15_RFL8_NIR8_DUAL,
    LSIM_OUSTER_PROFILE_COUNT
} lsim_ouster_profile;

/* One field of a pixel: `bytes` (1, 2 or 4) at `offset`, masked, then scaled by `scale`
 * (range: to millimetres; near_ir: to the 16-bit scale). bytes 0: the profile has no such field. */
typedef struct lsim_ouster_field {
    int offset, bytes;
    uint32_t mask;
    uint32_t scale;
} lsim_ouster_field;

typedef struct lsim_ouster_layout {
    lsim_ouster_profile profile;
    int pixels_per_column, columns_per_packet;
    size_t packet_header, column_header, pixel, column_footer, packet_footer;
    size_t column_size, packet_size;
    int returns; /* 1 or 2 */
    lsim_ouster_field range[2], reflectivity[2], signal[2], near_ir;
} lsim_ouster_layout;

/* Ouster's name of a profile ("LEGACY", "RNG15_RFL8_NIR8", ...). */
const char *lsim_ouster_profile_name(lsim_ouster_profile profile);
/* The profile named `name` (as metadata's udp_profile_lidar writes it); -1 when none. */
int lsim_ouster_profile_find(const char *name);

/* The layout of a profile for pixels_per_column (1..128) and columns_per_packet (1..64); an error
 * naming `source` when the values are out of range or the packet would pass 65,535 bytes. */
lsim_status lsim_ouster_layout_make(lsim_context *ctx, const char *source, lsim_ouster_profile profile,
                                    int pixels_per_column, int columns_per_packet, lsim_ouster_layout *out);

/* A field of the pixel at `px` (the caller checked the pixel lies in the packet); 0 for a field the
 * profile lacks. */
uint32_t lsim_ouster_field_get(const lsim_ouster_field *f, const unsigned char *px);
/* Store `value` (in the field's scaled units, clamped to what it holds) into the pixel. */
void lsim_ouster_field_put(const lsim_ouster_field *f, unsigned char *px, uint32_t value);

/* The headers of column `c` of `packet` (packet_size bytes). */
typedef struct lsim_ouster_column {
    uint64_t timestamp_ns;
    uint32_t measurement_id;
    uint32_t frame_id;
    int valid;                  /* status bit 0 (eUDP) or block status 0xFFFFFFFF (LEGACY) */
    const unsigned char *pixels; /* the first pixel */
} lsim_ouster_column;
void lsim_ouster_column_get(const lsim_ouster_layout *l, const unsigned char *packet, int c, lsim_ouster_column *out);
/* The packet's frame_id (LEGACY: the first column's) and packet_type (LEGACY: 1). */
uint32_t lsim_ouster_packet_frame_id(const lsim_ouster_layout *l, const unsigned char *packet);
uint32_t lsim_ouster_packet_type(const lsim_ouster_layout *l, const unsigned char *packet);

#endif
