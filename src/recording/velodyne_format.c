/* Velodyne packet models (velodyne_format.h has the layout and its sources). */
#include "recording/velodyne_format.h"

#include <string.h>

/* Distance units: VLP-16, HDL-32E, VLP-32C manuals "2 mm" per count; HDL-64E S2/S3 manuals: the
 * S2 and later report 2 mm (the S1's 0.2 cm too); VLS-128 manual: 4 mm. */
static const lsim_velodyne_format formats[] = {
    {"vlp16", 16, 0x22, 1, 2, 0.002},
    {"hdl32e", 32, 0x21, 1, 1, 0.002},
    {"vlp32c", 32, 0x28, 1, 1, 0.002},
    {"hdl64e", 64, 0, 2, 1, 0.002},
    {"vls128", 128, 0xA1, 4, 1, 0.004},
};
#define FORMAT_COUNT (sizeof formats / sizeof formats[0])

const lsim_velodyne_format *lsim_velodyne_format_of_product(int product_id)
{
    if (product_id == 0x24) /* Puck Hi-Res: a VLP-16 with its lasers closer together */
        return &formats[0];
    for (size_t i = 0; i < FORMAT_COUNT; ++i)
        if (formats[i].product_id && formats[i].product_id == product_id)
            return &formats[i];
    return NULL;
}

const lsim_velodyne_format *lsim_velodyne_format_of_lasers(int lasers, int hdl32e)
{
    if (lasers == 32)
        return hdl32e ? &formats[1] : &formats[2];
    for (size_t i = 0; i < FORMAT_COUNT; ++i)
        if (formats[i].lasers == lasers)
            return &formats[i];
    return NULL;
}

const lsim_velodyne_format *lsim_velodyne_format_find(const char *name)
{
    for (size_t i = 0; name && i < FORMAT_COUNT; ++i)
        if (strcmp(formats[i].name, name) == 0)
            return &formats[i];
    return NULL;
}

static const uint16_t bank_flags[4] = {0xEEFF, 0xDDFF, 0xCCFF, 0xBBFF};

uint16_t lsim_velodyne_bank_flag(int bank)
{
    return bank >= 0 && bank < 4 ? bank_flags[bank] : 0;
}

int lsim_velodyne_flag_bank(uint16_t flag)
{
    for (int b = 0; b < 4; ++b)
        if (bank_flags[b] == flag)
            return b;
    return -1;
}
