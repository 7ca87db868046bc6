#include "formats/format.h"

#include "core/context.h"

#include <stdint.h>
#include <string.h>
#include <strings.h>

static const struct {
    const char *name;
    lsim_format format;
} format_names[] = {
    {"pcd", LSIM_FORMAT_PCD},
    {"pcd-ascii", LSIM_FORMAT_PCD_ASCII},
    {"ply", LSIM_FORMAT_PLY},
    {"kitti", LSIM_FORMAT_KITTI},
    {"csv", LSIM_FORMAT_CSV},
    {"las", LSIM_FORMAT_LAS},
    {"mcap", LSIM_FORMAT_MCAP},
    {"pcap", LSIM_FORMAT_PCAP},
};

static const struct {
    const char *extension;
    lsim_format format;
} format_extensions[] = {
    {".pcd", LSIM_FORMAT_PCD},
    {".ply", LSIM_FORMAT_PLY},
    {".bin", LSIM_FORMAT_KITTI},
    {".csv", LSIM_FORMAT_CSV},
    {".las", LSIM_FORMAT_LAS},
    {".mcap", LSIM_FORMAT_MCAP},
    {".pcap", LSIM_FORMAT_PCAP},
};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

const char *lsim_format_valid_names(void) { return "pcd, pcd-ascii, ply, kitti, csv, las, mcap, pcap"; }

const char *lsim_format_name(lsim_format format)
{
    if (format == LSIM_FORMAT_AUTO)
        return "auto";
    for (size_t i = 0; i < COUNT_OF(format_names); ++i)
        if (format_names[i].format == format)
            return format_names[i].name;
    return "unknown";
}

lsim_status lsim_format_parse_ctx(lsim_context *ctx, const char *name, lsim_format *out)
{
    if (!out)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_format_parse: output pointer is NULL");
    if (!name)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "no output format given: use one of %s",
                         lsim_format_valid_names());
    for (size_t i = 0; i < COUNT_OF(format_names); ++i) {
        if (strcasecmp(name, format_names[i].name) == 0) {
            *out = format_names[i].format;
            return LSIM_OK;
        }
    }
    return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "unknown output format '%s': use one of %s", name,
                     lsim_format_valid_names());
}

lsim_status lsim_format_parse(const char *name, lsim_format *out)
{
    return lsim_format_parse_ctx(NULL, name, out);
}

lsim_status lsim_format_from_path(lsim_context *ctx, const char *path, lsim_format *out)
{
    if (strcmp(path, "-") == 0)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "writing to standard output (-o -) needs the format: give --format pcd, pcd-ascii, "
                         "ply, csv or mcap (KITTI is three files and LAS completes its header at the end: "
                         "neither can go to standard output)");
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    if (!dot || dot == base)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "cannot tell the output format of '%s': it has no extension; name it .pcd, .ply, "
                         ".bin (KITTI), .csv, .las, .mcap or .pcap (a sensor's packets), or give the format explicitly "
                         "(--format %s)", path, "pcd|pcd-ascii|ply|kitti|csv|las|mcap|pcap");
    for (size_t i = 0; i < COUNT_OF(format_extensions); ++i) {
        if (strcasecmp(dot, format_extensions[i].extension) == 0) {
            *out = format_extensions[i].format;
            return LSIM_OK;
        }
    }
    return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                     "cannot tell the output format of '%s': unknown extension '%s'; use .pcd, .ply, "
                     ".bin (KITTI), .csv, .las, .mcap or .pcap (a sensor's packets), or give the format explicitly "
                     "(--format %s)", path, dot, "pcd|pcd-ascii|ply|kitti|csv|las|mcap|pcap");
}

lsim_status lsim_format_resolve(lsim_context *ctx, const char *path, lsim_format requested, lsim_format *out)
{
    if (!path || !out)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_format_resolve: path and out must not be NULL");
    if (requested == LSIM_FORMAT_AUTO)
        return lsim_format_from_path(ctx, path, out);
    for (size_t i = 0; i < COUNT_OF(format_names); ++i) {
        if (format_names[i].format == requested) {
            *out = requested;
            return LSIM_OK;
        }
    }
    return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "cannot write '%s': invalid format value %d (use one of %s)",
                     path, (int)requested, lsim_format_valid_names());
}

int lsim_pcap_magic(const unsigned char *h, size_t size)
{
    if (size < 4)
        return 0;
    const uint32_t le = (uint32_t)h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16 | (uint32_t)h[3] << 24;
    return le == 0xA1B2C3D4u || le == 0xD4C3B2A1u || le == 0xA1B23C4Du || le == 0x4D3CB2A1u || le == 0x0A0D0D0Au;
}
