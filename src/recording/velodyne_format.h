/* Velodyne data packets (the 1,206-byte UDP payload on port 2368), as the user manuals of the
 * VLP-16 (63-9243 Rev D, "Data Packet Format"), HDL-32E (63-9113 Rev J), VLP-32C (63-9325 Rev B),
 * HDL-64E S2/S3 (63-HDL64ES2, 63-HDL64ES3) and VLS-128 (63-9480) describe them:
 *   12 data blocks of 100 bytes: flag u16 (0xEEFF; the HDL-64E's lower block 0xDDFF, the VLS-128's
 *     banks 0xEEFF, 0xDDFF, 0xCCFF, 0xBBFF for lasers 0-31, 32-63, 64-95, 96-127), azimuth u16 in
 *     hundredths of a degree (0..35999), then 32 channels of distance u16 and reflectivity u8;
 *   timestamp u32 @1200 (microseconds past the hour), return mode u8 @1204 (0x37 strongest,
 *   0x38 last, 0x39 dual), product id u8 @1205 (0x21 HDL-32E, 0x22 VLP-16, 0x24 Puck Hi-Res,
 *   0x28 VLP-32C, 0xA1 VLS-128; the HDL-64E predates the byte).
 * Little-endian throughout. A distance of 0 is no return. */
#ifndef LSIM_RECORDING_VELODYNE_FORMAT_H
#define LSIM_RECORDING_VELODYNE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define LSIM_VELODYNE_PACKET_BYTES 1206
#define LSIM_VELODYNE_BLOCKS 12
#define LSIM_VELODYNE_BLOCK_BYTES 100
#define LSIM_VELODYNE_BLOCK_CHANNELS 32
#define LSIM_VELODYNE_DATA_PORT 2368
#define LSIM_VELODYNE_TIMESTAMP_AT 1200
#define LSIM_VELODYNE_RETURN_MODE_AT 1204
#define LSIM_VELODYNE_PRODUCT_AT 1205

enum {
    LSIM_VELODYNE_RETURN_STRONGEST = 0x37,
    LSIM_VELODYNE_RETURN_LAST = 0x38,
    LSIM_VELODYNE_RETURN_DUAL = 0x39
};

/* A model's packet: how its lasers fill the blocks and the unit of its distances. */
typedef struct lsim_velodyne_format {
    const char *name;      /* "vlp16", as the presets and unit_velodyne.c name it */
    int lasers;
    int product_id;        /* the byte @1205; 0: none (HDL-64E) */
    int banks;             /* blocks of one firing: 1, HDL-64E 2 (upper, lower), VLS-128 4 */
    int firings_per_block; /* VLP-16: 2 (channels 0-15, then 16-31 a firing sequence later); else 1 */
    double distance_m;     /* one distance count: 2 mm, VLS-128 4 mm */
} lsim_velodyne_format;

/* The model of a product id (NULL: unknown), of a laser count (NULL: none; 32 lasers: the
 * HDL-32E when `hdl32e`, else the VLP-32C), or of a name. */
const lsim_velodyne_format *lsim_velodyne_format_of_product(int product_id);
const lsim_velodyne_format *lsim_velodyne_format_of_lasers(int lasers, int hdl32e);
const lsim_velodyne_format *lsim_velodyne_format_find(const char *name);

/* The block flag of bank b (0..3). */
uint16_t lsim_velodyne_bank_flag(int bank);
/* The bank of a flag, -1 for none. */
int lsim_velodyne_flag_bank(uint16_t flag);

#endif
