/* A simulated frame written as the sensor's packets (lsim_points_write_recording,
 * lsim_scene_scan_write with LSIM_FORMAT_PCAP) reads back (lsim_points_read_recording) equal to
 * the scan: every point once, on its ring and column, range within half the packets' range step,
 * beam angles within the format's resolution (Ouster 0.01 deg; Velodyne 0.015 deg: the block
 * azimuth's 0.01 deg counts, rounded, plus the rounding of the azimuth step a reader interpolates
 * each laser's firing time with), position within half a step + range x that angle,
 * reflectivity within the byte's 0.005. Sensors: the VLP-16 and HDL-32E presets (read by their
 * product id), an HDL-64E S2 unit imported from its table (data/sensor-calibrations; read with that
 * table: its packets carry no product id), os1-64 (1024 columns, default profile
 * RNG19_RFL8_SIG16_NIR16) and os1-128 (2048 columns) in LEGACY, RNG15_RFL8_NIR8 (8 mm) and
 * RNG19_RFL8_SIG16_NIR16_DUAL (also os1-64 with two echoes a beam where its wide beams graze a thin
 * board: both echoes come back, on their return index), read with the metadata JSON written beside
 * the pcap; a VLP-16 with two echoes a beam in its dual return mode (0x39: block pairs of the last
 * and the strongest echo). Also: the
 * scan-write path gives the same bytes as the points path; a sensor without packets, a pcap
 * through lsim_points_write and a folder that does not exist fail with no file left. */
#include "files.h"
#include "harness.h"

#include "lidarsim.h"

#include <math.h>
#include <string.h>

static const char *scene_text(const char *sensor)
{
    static char text[1024];
    snprintf(text, sizeof text,
             "sensor:\n  %s\n  position: [0, 0, 1.5]\n"
             "materials:\n  wall: {brdf: lambertian, reflectance: 0.6}\n"
             "objects:\n  - box: {size: [30, 24, 10]}\n    position: [2, 1, 3]\n    material: wall\n"
             "  - box: {size: [0.05, 4, 4]}\n    position: [5, 0, 1.5]\n    material: wall\n", sensor);
    return text;
}

typedef struct roundtrip {
    const char *name, *sensor, *profile;
    double column_hz; /* firing sequences (columns) a second: the manuals' */
    int channels, columns;
    double step_m;    /* the packets' range step */
    const char *table; /* Velodyne: the table to read with, under LSIM_DATA_DIR (NULL: by product id) */
    double angle_deg; /* bound on the beam angles */
} roundtrip;

/* Column of a point: its firing time, less the laser's offset within the sequence (< 1 column). */
static long column_of(double t, double column_hz) { return (long)floor(t * column_hz + 0.02); }

static void compare(const roundtrip *r, const lsim_points *a, const lsim_points *b)
{
    const size_t na = lsim_points_count(a), nb = lsim_points_count(b);
    CHECK(na == nb);
    if (na != nb) {
        fprintf(stderr, "%s: %zu points scanned, %zu read back\n", r->name, na, nb);
        return;
    }
    const size_t cells = (size_t)r->columns * (size_t)r->channels * 2; /* x 2 echoes */
    long *slot = malloc(cells * sizeof *slot);
    for (size_t i = 0; i < cells; ++i)
        slot[i] = -1;
    const float *at = lsim_points_column(a, LSIM_FIELD_TIME), *bt = lsim_points_column(b, LSIM_FIELD_TIME);
    const uint16_t *ar = lsim_points_column(a, LSIM_FIELD_RING), *br = lsim_points_column(b, LSIM_FIELD_RING);
    const uint16_t *ae = lsim_points_column(a, LSIM_FIELD_RETURN_INDEX);
    const uint16_t *be = lsim_points_column(b, LSIM_FIELD_RETURN_INDEX);
    int misplaced = 0, twice = 0, missing = 0;
    for (size_t i = 0; i < na; ++i) {
        const long c = column_of(at[i], r->column_hz);
        if (c < 0 || c >= r->columns || ar[i] >= r->channels || ae[i] > 1) {
            ++misplaced;
            continue;
        }
        slot[((size_t)c * (size_t)r->channels + ar[i]) * 2 + ae[i]] = (long)i;
    }
    double dr = 0, dpos = 0, daz = 0, del = 0, drefl = 0, excess = 0;
    const float *ax = lsim_points_column(a, LSIM_FIELD_X), *ay = lsim_points_column(a, LSIM_FIELD_Y);
    const float *az = lsim_points_column(a, LSIM_FIELD_Z), *arng = lsim_points_column(a, LSIM_FIELD_RANGE);
    const float *bx = lsim_points_column(b, LSIM_FIELD_X), *by = lsim_points_column(b, LSIM_FIELD_Y);
    const float *bz = lsim_points_column(b, LSIM_FIELD_Z), *brng = lsim_points_column(b, LSIM_FIELD_RANGE);
    const float *aaz = lsim_points_column(a, LSIM_FIELD_AZIMUTH), *baz = lsim_points_column(b, LSIM_FIELD_AZIMUTH);
    const float *ael = lsim_points_column(a, LSIM_FIELD_ELEVATION), *bel = lsim_points_column(b, LSIM_FIELD_ELEVATION);
    const float *arf = lsim_points_column(a, LSIM_FIELD_REFLECTIVITY);
    const float *brf = lsim_points_column(b, LSIM_FIELD_REFLECTIVITY);
    for (size_t j = 0; j < nb; ++j) {
        const long c = column_of(bt[j], r->column_hz);
        if (c < 0 || c >= r->columns || br[j] >= r->channels || be[j] > 1) {
            ++misplaced;
            continue;
        }
        long *s = &slot[((size_t)c * (size_t)r->channels + br[j]) * 2 + be[j]];
        if (*s == -2) {
            ++twice;
            continue;
        }
        if (*s < 0) {
            ++missing;
            continue;
        }
        const size_t i = (size_t)*s;
        *s = -2;
        dr = fmax(dr, fabs((double)brng[j] - arng[i]));
        const double e = sqrt(pow((double)bx[j] - ax[i], 2) + pow((double)by[j] - ay[i], 2) +
                              pow((double)bz[j] - az[i], 2));
        dpos = fmax(dpos, e);
        excess = fmax(excess, e - (r->step_m / 2 + arng[i] * r->angle_deg * 3.14159265358979 / 180.0 + 2e-5));
        daz = fmax(daz, fabs(remainder((double)baz[j] - aaz[i], 360.0)));
        del = fmax(del, fabs((double)bel[j] - ael[i]));
        drefl = fmax(drefl, fabs((double)brf[j] - arf[i]));
    }
    free(slot);
    CHECK(misplaced == 0 && twice == 0 && missing == 0);
    CHECK(dr <= r->step_m / 2 + 2e-5);
    CHECK(excess <= 0.0);
    CHECK(daz <= r->angle_deg && del <= r->angle_deg);
    CHECK(drefl <= 0.005 + 1e-6);
    printf("%s: %zu points; max |d range| %.5f m, |d position| %.5f m, |d azimuth| %.5f deg, |d elevation| %.5f "
           "deg, |d reflectivity| %.4f; misplaced %d, twice %d, missing %d\n", r->name, na, dr, dpos, daz, del, drefl,
           misplaced, twice, missing);
}

static void run(lsim_context *ctx, const roundtrip *r, const char *data)
{
    char name[64], yaml[300], pcap[300], json[300], table[600], again[300];
    if (r->table)
        path_join(table, sizeof table, data, r->table);
    char sensor_line[700];
    snprintf(sensor_line, sizeof sensor_line, r->table ? "calibration: %s" : "%s", r->table ? table : r->sensor);
    snprintf(name, sizeof name, "%s.yaml", r->name);
    snprintf(yaml, sizeof yaml, "%s", scratch_write_text(name, scene_text(sensor_line)));
    snprintf(pcap, sizeof pcap, "%s/%s.pcap", scratch_dir, r->name);
    snprintf(json, sizeof json, "%s/%s.json", scratch_dir, r->name);
    lsim_scene *scene = NULL;
    lsim_sensor *sensor = NULL;
    REQUIRE_OK(ctx, lsim_scene_load(ctx, yaml, &scene, &sensor));
    lsim_scan_options o;
    lsim_scan_options_init(&o);
    o.noise = 0;
    o.scan_time = 12.5;
    lsim_points *a = NULL, *b = NULL;
    REQUIRE_OK(ctx, lsim_scene_scan(scene, sensor, &o, &a));
    REQUIRE_OK(ctx, lsim_points_write_recording(a, sensor, pcap, r->profile, 0));
    lsim_recording_options ro;
    lsim_recording_options_init(&ro);
    ro.partial = 1;
    const int ouster = r->table == NULL && strncmp(r->sensor, "preset: os", 10) == 0;
    REQUIRE_OK(ctx, lsim_points_read_recording(ctx, pcap, ouster ? json : r->table ? table : NULL, &ro, &b));
    compare(r, a, b);
    if (strstr(r->name, "two-echoes")) { /* the case must hold second echoes to test them */
        const uint16_t *e = lsim_points_column(a, LSIM_FIELD_RETURN_INDEX);
        size_t second = 0;
        for (size_t i = 0; i < lsim_points_count(a); ++i)
            second += e[i] == 1;
        printf("%s: %zu second echoes\n", r->name, second);
        CHECK(second > 100);
    }
    /* the scan-write path: the same bytes */
    snprintf(again, sizeof again, "%s/%s_scan.pcap", scratch_dir, r->name);
    o.packet_profile = r->profile;
    REQUIRE_OK(ctx, lsim_scene_scan_write(scene, sensor, &o, again, LSIM_FORMAT_AUTO, NULL));
    size_t n1 = 0, n2 = 0;
    unsigned char *b1 = read_file_bytes(pcap, &n1), *b2 = read_file_bytes(again, &n2);
    CHECK(b1 && b2 && n1 == n2 && memcmp(b1, b2, n1) == 0);
    free(b1);
    free(b2);
    lsim_points_destroy(a);
    lsim_points_destroy(b);
    lsim_sensor_destroy(sensor);
    lsim_scene_destroy(scene);
}

/* Failures leave nothing: a planar sensor, a pcap without its sensor, a folder that is missing. */
static void refusals(lsim_context *ctx)
{
    const char *yaml = scratch_write_text("planar.yaml", scene_text("preset: rplidar-a1"));
    char path[300];
    lsim_scene *scene = NULL;
    lsim_sensor *sensor = NULL;
    REQUIRE_OK(ctx, lsim_scene_load(ctx, yaml, &scene, &sensor));
    lsim_points *p = NULL;
    REQUIRE_OK(ctx, lsim_scene_scan(scene, sensor, NULL, &p));
    snprintf(path, sizeof path, "%s/planar.pcap", scratch_dir);
    CHECK(lsim_points_write_recording(p, sensor, path, NULL, 0) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "no packet format") && strstr(lsim_context_last_error(ctx), "vlp16"));
    CHECK(lsim_scene_scan_write(scene, sensor, NULL, path, LSIM_FORMAT_PCAP, NULL) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_points_write(p, path, LSIM_FORMAT_AUTO) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "lsim_points_write_recording") != NULL);
    lsim_points_destroy(p);
    lsim_sensor_destroy(sensor);
    lsim_scene_destroy(scene);
    yaml = scratch_write_text("os.yaml", scene_text("preset: os1-64"));
    REQUIRE_OK(ctx, lsim_scene_load(ctx, yaml, &scene, &sensor));
    REQUIRE_OK(ctx, lsim_scene_scan(scene, sensor, NULL, &p));
    snprintf(path, sizeof path, "%s/missing/os.pcap", scratch_dir);
    CHECK(lsim_points_write_recording(p, sensor, path, NULL, 0) == LSIM_ERR_IO);
    snprintf(path, sizeof path, "%s/os.pcap", scratch_dir);
    CHECK(lsim_points_write_recording(p, sensor, path, "RNG99", 0) == LSIM_ERR_INVALID_ARGUMENT);
    lsim_points_destroy(p);
    lsim_sensor_destroy(sensor);
    lsim_scene_destroy(scene);
    CHECK(count_entries(scratch_dir, ".pcap") == 0 && count_entries(scratch_dir, ".json") == 0);
}

int main(void)
{
    const char *data = getenv("LSIM_DATA_DIR");
    char velodyne[512];
    snprintf(velodyne, sizeof velodyne, "%s/sensor-calibrations/velodyne", data ? data : "../data");
    scratch_make("pcap_roundtrip");
    lsim_context *ctx = NULL;
    REQUIRE_OK(ctx, lsim_context_create(&ctx));
    refusals(ctx);
    const roundtrip cases[] = {
        /* Velodyne manuals: sequences of 55.296 us (VLP-16), 46.08 us (HDL-32E), 48 us (HDL-64E) */
        {"vlp16", "preset: vlp16", NULL, 1 / 55.296e-6, 16, 1808, 0.002, NULL, 0.015},
        {"hdl32e", "preset: hdl32e", NULL, 1 / 46.08e-6, 32, 2170, 0.002, NULL, 0.015},
        /* an imported unit: the table is the scene's calibration and the reader's */
        {"hdl64e-unit", "", NULL, 1 / 48e-6, 64, 2083, 0.002, "64e_s2.1-sztaki.json", 0.015},
        {"os1-64", "preset: os1-64\n  columns: 1024", NULL, 1024 * 10.0, 64, 1024, 0.001, NULL, 0.01},
        {"os1-128-legacy", "preset: os1-128\n  columns: 2048", "LEGACY", 2048 * 10.0, 128, 2048, 0.001, NULL, 0.01},
        {"os1-128-lb", "preset: os1-128\n  columns: 2048", "RNG15_RFL8_NIR8", 2048 * 10.0, 128, 2048, 0.008, NULL,
         0.01},
        {"os1-128-dual", "preset: os1-128\n  columns: 2048", "RNG19_RFL8_SIG16_NIR16_DUAL", 2048 * 10.0, 128, 2048,
         0.001, NULL, 0.01},
        /* two echoes on the beams that graze the thin board (wide beams of 19 rays) */
        {"vlp16-two-echoes", "preset: vlp16\n  receiver: {returns: dual}\n  beam: {mode: rays, rings: 2, "
         "divergence_mrad: 20}", NULL, 1 / 55.296e-6, 16, 1808, 0.002, NULL, 0.015},
        {"os1-64-two-echoes", "preset: os1-64\n  columns: 1024\n  receiver: {returns: dual}\n  beam: {mode: rays, "
         "rings: 2, divergence_mrad: 20}", "RNG19_RFL8_SIG16_NIR16_DUAL", 1024 * 10.0, 64, 1024, 0.001, NULL, 0.01},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
        run(ctx, &cases[i], velodyne);
    lsim_context_destroy(ctx);
    scratch_remove();
    return lsim_test_summary("test_pcap_roundtrip");
}
