/* Recordings (lsim_points_read_recording): the input's first byte picks the unit, the rest is the
 * capture file. Ouster units get a metadata JSON made here for each lidar profile (LEGACY 32
 * pixels, RNG19_RFL8_SIG16_NIR16 16, its DUAL 32, RNG15_RFL8_NIR8 128, FUSA_RNG15_RFL8_NIR8_DUAL
 * 16; 1024 columns, 16 a packet: the seeds are the shared recordings cut to a few packets);
 * Velodyne units: no table (the product id's built-in one), a 16-laser or a 64-laser table. Frame
 * 0 is read with partial frames counted, then the frames are counted; a failure must say why. */
#include "fuzz_common.h"

#include "lidarsim.h"

static void metadata(const char *name, const char *profile, int pixels)
{
    char text[16384];
    int n = snprintf(text, sizeof text, "{\"beam_altitude_angles\": [");
    for (int i = 0; i < pixels; ++i)
        n += snprintf(text + n, sizeof text - (size_t)n, "%s%.3f", i ? ", " : "", 20.0 - 40.0 * i / pixels);
    n += snprintf(text + n, sizeof text - (size_t)n, "], \"beam_azimuth_angles\": [");
    for (int i = 0; i < pixels; ++i)
        n += snprintf(text + n, sizeof text - (size_t)n, "%s%.2f", i ? ", " : "", i % 4 * 2.8 - 4.2);
    snprintf(text + n, sizeof text - (size_t)n,
             "], \"lidar_mode\": \"1024x10\", \"lidar_origin_to_beam_origin_mm\": 15.806, "
             "\"lidar_to_sensor_transform\": [-1, 0, 0, 0, 0, -1, 0, 0, 0, 0, 1, 36.18, 0, 0, 0, 1], "
             "\"udp_port_lidar\": 7502, \"data_format\": {\"columns_per_frame\": 1024, \"columns_per_packet\": 16, "
             "\"pixels_per_column\": %d, \"column_window\": [0, 1023]%s%s%s}}", pixels,
             profile ? ", \"udp_profile_lidar\": \"" : "", profile ? profile : "", profile ? "\"" : "");
    fuzz_put_text(name, text);
}

static void velodyne_table(const char *name, int lasers)
{
    char text[32768];
    int n = snprintf(text, sizeof text, "{\"distance_resolution\": 0.002, \"lasers\": [");
    for (int i = 0; i < lasers; ++i)
        n += snprintf(text + n, sizeof text - (size_t)n,
                      "%s{\"laser_id\": %d, \"vert_correction\": %.5f, \"rot_correction\": %.4f, "
                      "\"vert_offset_correction\": 0.2, \"horiz_offset_correction\": 0.026}",
                      i ? ", " : "", i, (lasers == 16 ? -15.0 + 2.0 * i : 2.0 - 0.42 * i) * 0.0174533,
                      (i % 2 ? 0.05 : -0.05));
    snprintf(text + n, sizeof text - (size_t)n, "]}");
    fuzz_put_text(name, text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int made;
    fuzz_scratch();
    if (!made) {
        metadata("legacy.json", NULL, 32);
        metadata("rng19.json", "RNG19_RFL8_SIG16_NIR16", 16);
        metadata("dual.json", "RNG19_RFL8_SIG16_NIR16_DUAL", 32);
        metadata("rng15.json", "RNG15_RFL8_NIR8", 128);
        metadata("fusa.json", "FUSA_RNG15_RFL8_NIR8_DUAL", 16);
        velodyne_table("vlp16.json", 16);
        velodyne_table("hdl64e.json", 64);
        made = 1;
    }
    if (size < 1)
        return 0;
    static const char *const units[8] = {"legacy.json", "rng19.json", "dual.json", "rng15.json", "fusa.json",
                                         NULL, "vlp16.json", "hdl64e.json"};
    const char *unit = units[data[0] % 8];
    char cal[512];
    snprintf(cal, sizeof cal, "%s", unit ? fuzz_path(unit) : "");
    fuzz_put("input.pcap", data + 1, size - 1);
    lsim_context *ctx;
    if (lsim_context_create(&ctx) != LSIM_OK)
        return 0;
    lsim_recording_options o;
    lsim_recording_options_init(&o);
    o.partial = 1;
    lsim_points *p = NULL;
    lsim_status st = lsim_points_read_recording(ctx, fuzz_path("input.pcap"), unit ? cal : NULL, &o, &p);
    if (st != LSIM_OK && !lsim_context_last_error(ctx)[0])
        abort();
    if (st == LSIM_OK) {
        const size_t n = lsim_points_count(p);
        const float *x = lsim_points_column(p, LSIM_FIELD_X);
        for (size_t i = 0; i < n; ++i) /* every point read is a finite position */
            if (!(x[i] == x[i]))
                abort();
        lsim_points_destroy(p);
    }
    uint64_t frames = 0;
    st = lsim_recording_count_frames(ctx, fuzz_path("input.pcap"), unit ? cal : NULL, &o, &frames);
    if (st != LSIM_OK && !lsim_context_last_error(ctx)[0])
        abort();
    lsim_context_destroy(ctx);
    return 0;
}
