/* Built-in sensor presets (datasheet numbers; the source of each is noted beside it).
 *
 * Rotating presets list their elevations ASCENDING: ring 0 is the lowest beam (the Velodyne
 * ROS driver's convention), whatever the vendor's laser numbering or firing order is. */
#include "sensor/sensor.h"
#include "sensor/unit_calibration.h"

#include "core/context.h"
#include "core/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A run of `count` evenly spaced elevations from `first` to `last` degrees (inclusive). */
typedef struct elevation_block {
    int count;
    double first, last;
} elevation_block;

typedef struct preset {
    const char *name;
    const char *description;
    lsim_sensor_kind kind;
    elevation_block blocks[2]; /* rotating; count 0 = unused */
    int columns;               /* rotating */
    double fov_deg;            /* planar, rosette */
    int steps;                 /* planar; rosette points */
    int width, height;         /* camera */
    double hfov_deg, vfov_deg; /* camera */
    double rate_hz, range_min, range_max, range_sigma;
    /* Beam divergence (mrad, full angle) and pulse width (ns). Published figures where there are
     * any (VLP-16 3 mrad per DESIGN.md §3; Ouster OS1 0.18 deg FWHM; Livox Mid-40 0.28 deg;
     * Kinect v2: one pixel, 70.6 deg / 512); the others are typical values for the class. */
    double divergence_mrad, pulse_ns;
} preset;

static const preset presets[] = {
    /* Velodyne presets: beams, firing sequence and rate from a per-laser table
     * (velodyne_tables.c, unit_velodyne.c), so no elevation blocks here.
     * VLP-16 datasheet (63-9229 Rev C) and user manual (63-9243): 16 channels, -15..+15 deg every
     * 2 deg, 0.1-0.4 deg azimuth at 5-20 Hz, range up to 100 m, accuracy +-3 cm; a firing
     * sequence every 55.296 us: 1808 columns at 10 Hz. */
    {"vlp16", "rotating, 16 ch x 1808 col (28928 beams), 360 x 30 deg (-15..+15), 0.5-100 m, 10 Hz, clockwise; Velodyne VLP-16 (nominal table)",
     LSIM_SENSOR_ROTATING, {{0, 0, 0}, {0, 0, 0}}, 1808, 0, 0, 0, 0, 0, 0, 10.0, 0.5, 100.0, 0.015, 3.0, 6.0},
    /* HDL-32E datasheet (97-0038) and manual (63-9113): 32 lasers +10.67..-30.67 deg (1.33 deg
     * apart), range 1-100 m, accuracy +-2 cm; a 46.08 us firing cycle: 2170 columns at 10 Hz,
     * 1085 at 20 Hz. */
    {"hdl32e", "rotating, 32 ch x 2170 col (69440 beams), 360 x 41.3 deg (-30.67..+10.67), 1-100 m, 10 Hz, clockwise; Velodyne HDL-32E (nominal table)",
     LSIM_SENSOR_ROTATING, {{0, 0, 0}, {0, 0, 0}}, 2170, 0, 0, 0, 0, 0, 0, 10.0, 1.0, 100.0, 0.01, 3.0, 5.0},
    /* HDL-64E S2 manual (63-HDL64ES2, "Specifications"): 64 lasers in an upper and a lower block,
     * vertical field of view +2.0..-24.8 deg (26.8 deg), 0.08-0.35 deg azimuth, range 0.9-120 m
     * (50 m at 10 %, 120 m at 80 % reflectance), accuracy < 2 cm, > 1.333 M points/s: 2083
     * columns at 10 Hz. KITTI's sensor. The table is a real unit's (velodyne_pointcloud's
     * 64e_utexas: +2.02..-24.71 deg, within 0.29 deg of KITTI's unit laser by laser; it lists no
     * laser offsets, so every beam leaves the sensor origin). */
    {"hdl64e", "rotating, 64 ch x 2083 col (133312 beams), 360 x 26.7 deg (-24.71..+2.02), 0.9-120 m, 10 Hz, clockwise; Velodyne HDL-64E S2 (a real unit's table, within 0.3 deg of KITTI's)",
     LSIM_SENSOR_ROTATING, {{0, 0, 0}, {0, 0, 0}}, 2083, 0, 0, 0, 0, 0, 0, 10.0, 0.9, 120.0, 0.01, 2.0, 5.0},
    /* Ouster presets: each is one real unit's metadata (ouster_tables.c, generated from data/ by
     * tools/make_ouster_tables.py): beam_altitude_angles, beam_azimuth_angles (the detector
     * columns' azimuth stagger), lidar_origin_to_beam_origin_mm, lidar_to_sensor_transform lift,
     * and lidar_mode (1024x10 for all five, Ouster's default); so no elevation blocks or columns
     * here. Precision: the OS1 datasheet's +-1.5 cm (1 sigma, SNR > 250) for every unit. Beam
     * divergence: the OS1 datasheet's FWHM (0.13 deg for 16/64 channels, 0.18 deg for 128) taken
     * as the full angle; OS0 and OS2 figures were not found, so they keep the OS1-128's. */
    /* OS0-32 (OS-0-32-U1, data/ouster-recordings): 32 beams over 89.3 deg (+43.88..-45.40), all in
     * one detector column (azimuth -2.6..-4.5 deg). Range: OS0 datasheet, 50 m at 80 %; real OS0
     * units return down to 0.24 m (issue 24; the shared recording's nearest return is 1.81 m, see
     * tools/ouster_min_range.py, so it neither confirms nor bounds that figure). */
    {"os0-32", "rotating, 32 ch x 1024 col (32768 beams), 360 x 89.3 deg (-45.40..+43.88), 0.24-50 m, 10 Hz, clockwise; Ouster OS0-32 (a real OS-0-32-U1 unit's metadata)",
     LSIM_SENSOR_ROTATING, {{0, 0, 0}, {0, 0, 0}}, 0, 0, 0, 0, 0, 0, 0, 10.0, 0.24, 50.0, 0.015, 3.1, 5.0},
    /* OS1-32 (OS-1-32-G, gradient beam spacing, data/ouster-recordings): 32 beams over 28.1 deg
     * (+12.75..-15.32). Range: OS1 datasheet (rev C), 0.3-120 m. */
    {"os1-32", "rotating, 32 ch x 1024 col (32768 beams), 360 x 28.1 deg (-15.32..+12.75, gradient), 0.3-120 m, 10 Hz, clockwise; Ouster OS1-32 (a real OS-1-32-G unit's metadata)",
     LSIM_SENSOR_ROTATING, {{0, 0, 0}, {0, 0, 0}}, 0, 0, 0, 0, 0, 0, 0, 10.0, 0.3, 120.0, 0.015, 3.1, 5.0},
    /* OS1-64, first generation (serial 991913000010, Ouster SDK tests/metadata): 64 beams over 33.4
     * deg (+16.73..-16.68), four detector columns at about +3.1/+1.0/-1.1/-3.2 deg azimuth. The
     * gen-1 OS1 datasheet: vertical field of view +16.6..-16.6 deg (33.2) for 64 channels, range
     * 0.8-120 m at 80 % (0.8-40 m at 10 %), beam divergence 0.13 deg FWHM (2.3 mrad). */
    {"os1-64", "rotating, 64 ch x 1024 col (65536 beams), 360 x 33.4 deg (-16.68..+16.73), 0.8-120 m, 10 Hz, clockwise; Ouster OS1-64 gen 1 (a real unit's metadata)",
     LSIM_SENSOR_ROTATING, {{0, 0, 0}, {0, 0, 0}}, 0, 0, 0, 0, 0, 0, 0, 10.0, 0.8, 120.0, 0.015, 2.3, 5.0},
    /* OS1-128 (data/sensor-calibrations/ouster/OS-1-128_v2.3.0_1024x10.json): 128 beams over 42.8
     * deg (+20.95..-21.82), four detector columns at about +-1.41 / +-4.22 deg azimuth. Range: OS1
     * datasheet (rev C), 0.3-120 m; beam divergence 0.18 deg FWHM. */
    {"os1-128", "rotating, 128 ch x 1024 col (131072 beams), 360 x 42.8 deg (-21.82..+20.95), 0.3-120 m, 10 Hz, clockwise; Ouster OS1-128 (a real unit's metadata)",
     LSIM_SENSOR_ROTATING, {{0, 0, 0}, {0, 0, 0}}, 0, 0, 0, 0, 0, 0, 0, 10.0, 0.3, 120.0, 0.015, 3.1, 5.0},
    /* OS2-128 (OS-2-128-U1, data/sensor-calibrations/ouster): 128 beams over 21.9 deg (+10.76..
     * -11.09), four columns at about +-0.7 / +-2.08 deg azimuth, beams 78.3 mm above the sensor
     * frame. Range: OS2 datasheet, 0.8-240 m (80 %). */
    {"os2-128", "rotating, 128 ch x 1024 col (131072 beams), 360 x 21.9 deg (-11.09..+10.76), 0.8-240 m, 10 Hz, clockwise; Ouster OS2-128 (a real OS-2-128-U1 unit's metadata)",
     LSIM_SENSOR_ROTATING, {{0, 0, 0}, {0, 0, 0}}, 0, 0, 0, 0, 0, 0, 0, 10.0, 0.8, 240.0, 0.015, 3.1, 5.0},
    /* Slamtec RPLIDAR A1 datasheet (A1M8 v2.x): 360 deg, range 0.15-12 m, 5.5 Hz typical scan
     * rate; real scans from the ApolloSim data set have 720 beams per revolution (0.5 deg);
     * accuracy < 1% of range (~5 mm at short range). */
    {"rplidar-a1", "planar, 720 beams over 360 deg (0.5 deg), 0.15-12 m, 5.5 Hz; Slamtec RPLIDAR A1",
     LSIM_SENSOR_PLANAR, {{0, 0, 0}, {0, 0, 0}}, 0, 360.0, 720, 0, 0, 0, 0, 5.5, 0.15, 12.0, 0.005, 10.0, 5.0},
    /* Hokuyo URG-04LX specification: 240 deg, angular step 360/1024 = 0.3515625 deg, 682 steps,
     * 100 ms per scan, range 20-5600 mm, accuracy +-10 mm (60-1000 mm). */
    {"urg-04lx", "planar, continuous-wave (46.55 / 53.2 MHz), 682 beams over 239.77 deg (0.3516 deg), 0.02-5.6 m, 10 Hz; Hokuyo URG-04LX",
     LSIM_SENSOR_PLANAR, {{0, 0, 0}, {0, 0, 0}}, 0, 682 * 0.3515625, 682, 0, 0, 0, 0, 10.0, 0.02, 5.6, 0.01, 13.0, 5.0},
    /* Livox Mid-40 specification: 38.4 deg circular FOV, non-repetitive rosette, 100,000
     * points/s (10000 per 0.1 s frame), range 1-260 m (80% reflectivity), precision 2 cm. */
    {"livox-mid40", "rosette, 10000 beams, 38.4 deg circular FOV, 1-260 m, 10 Hz (100k pts/s); Livox Mid-40",
     LSIM_SENSOR_ROSETTE, {{0, 0, 0}, {0, 0, 0}}, 0, 38.4, 10000, 0, 0, 0, 0, 10.0, 1.0, 260.0, 0.02, 4.9, 4.0},
    /* Microsoft Kinect v2 (Kinect for Windows v2) depth camera: 512 x 424 pixels, 70.6 x 60 deg,
     * 0.5-4.5 m, 30 Hz, time-of-flight. */
    {"kinect-v2", "camera, 512 x 424 px (217088 beams), 70.6 x 60 deg, 0.5-4.5 m, 30 Hz; Microsoft Kinect v2 ToF",
     LSIM_SENSOR_CAMERA, {{0, 0, 0}, {0, 0, 0}}, 0, 0, 0, 512, 424, 70.6, 60.0, 30.0, 0.5, 4.5, 0.005, 2.4, 5.0},
};

#define PRESET_COUNT (sizeof presets / sizeof presets[0])

static const char *const preset_names[PRESET_COUNT + 1] = {
    "vlp16", "hdl32e", "hdl64e", "os0-32", "os1-32", "os1-64", "os1-128", "os2-128", "rplidar-a1", "urg-04lx",
    "livox-mid40", "kinect-v2", NULL,
};

const char *const *lsim_sensor_preset_names(void) { return preset_names; }

/* Where each preset's figures come from, by group (docs/presets.md has the same table with links):
 * geometry (beams, timing, lidar modes), range (limits and precision) and optics (beam divergence,
 * pulse width, receiver). `lidarsim presets NAME` prints them. */
typedef struct preset_sources {
    const char *name, *geometry, *range, *optics;
} preset_sources;

#define OUSTER_SDK "Ouster SDK (github.com/ouster-lidar/ouster-sdk, BSD-3-Clause) "
static const preset_sources sources[] = {
    {"vlp16", "Velodyne's nominal VLP-16 table (npm @foxglove/velodyne-cloud 1.0.1 VLP16db.json, MIT); firing "
              "sequence: VLP-16 user manual 63-9243 Rev D",
     "VLP-16 datasheet 63-9229 Rev C: 100 m, +-3 cm", "DESIGN.md section 3: 3 mrad; pulse 6 ns (typical)"},
    {"hdl32e", "Velodyne's nominal HDL-32E table (@foxglove/velodyne-cloud 32db.json, MIT); firing cycle: HDL-32E "
               "user manual 63-9113 Rev J",
     "HDL-32E datasheet 97-0038 and manual 63-9113: 1-100 m, +-2 cm", "typical for the class: 3 mrad, 5 ns"},
    {"hdl64e", "a real HDL-64E unit's table (velodyne_pointcloud 64e_utexas, via @foxglove/velodyne-cloud "
               "64e_utexas.json, MIT): +2.02..-24.71 deg against the S2 manual's +2.0..-24.8; firing: HDL-64E S2 "
               "manual 63-HDL64ES2",
     "HDL-64E S2 manual 63-HDL64ES2 Specifications: 0.9-120 m, < 2 cm", "typical for the class: 2 mrad, 5 ns"},
    {"os0-32", "a real OS-0-32-U1's metadata (data/ouster-recordings/OS-0-32-U1_v2.2.0_1024x10.json; " OUSTER_SDK
               "tests/pcaps @ 46b7bce)",
     "OS0 datasheet: 50 m at 80 %; 0.24 m minimum: real OS0 units (issue 24); precision: OS1 datasheet +-1.5 cm",
     "not published for OS0: the OS1-128's 0.18 deg FWHM (3.1 mrad); pulse 5 ns (typical)"},
    {"os1-32", "a real OS-1-32-G's metadata (data/ouster-recordings/OS-1-32-G_v2.1.1_1024x10.json; " OUSTER_SDK
               "tests/pcaps @ 46b7bce)",
     "OS1 datasheet rev C: 0.3-120 m, +-1.5 cm (SNR > 250)", "OS1 datasheet: 0.18 deg FWHM (3.1 mrad); pulse 5 ns "
                                                               "(typical)"},
    {"os1-64", "a real first-generation OS1-64's metadata (data/sensor-calibrations/ouster/"
               "OS-1-64_v2.1.2_991913000010.json; " OUSTER_SDK "tests/metadata/2_1_2_os1-991913000010-64.json @ "
               "06f81a1)",
     "gen-1 OS1 datasheet: 0.8-120 m at 80 % (0.8-40 m at 10 %), +-1.5 cm (SNR > 250)",
     "gen-1 OS1 datasheet: 0.13 deg FWHM for 64 channels (2.3 mrad); pulse 5 ns (typical)"},
    {"os1-128", "a real OS-1-128's metadata (data/sensor-calibrations/ouster/OS-1-128_v2.3.0_1024x10.json; "
                OUSTER_SDK "tests/pcaps @ 46b7bce)",
     "OS1 datasheet rev C: 0.3-120 m, +-1.5 cm (SNR > 250)", "OS1 datasheet: 0.18 deg FWHM for 128 channels (3.1 "
                                                               "mrad); pulse 5 ns (typical)"},
    {"os2-128", "a real OS-2-128-U1's metadata (data/sensor-calibrations/ouster/OS-2-128-U1_v2.3.0_1024x10.json; "
                OUSTER_SDK "tests/pcaps @ 46b7bce)",
     "OS2 datasheet: 0.8-240 m at 80 %; precision: a real OS-2's 1 cm on strong echoes (issue 24)",
     "not published for OS2 here: the OS1-128's 0.18 deg FWHM (3.1 mrad); pulse 5 ns (typical)"},
    {"rplidar-a1", "RPLIDAR A1M8 datasheet v2.x: 360 deg; 720 beams a turn as in the ApolloSim scans (data/"
                   "apollosim-rplidar)",
     "RPLIDAR A1M8 datasheet: 0.15-12 m, < 1 % of range", "typical for the class: 10 mrad, 5 ns"},
    {"urg-04lx", "Hokuyo URG-04LX specification: 240 deg, 0.3515625 deg steps, 682 steps, 100 ms a scan",
     "URG-04LX specification: 20-5600 mm, +-10 mm", "cw paper (Hokuyo URG-04LX): phase shift at 46.55 and 53.2 MHz; "
                                                     "its beam as three rays in a line (section III-C) at +-6.5 mrad "
                                                     "of 13 mrad (the project's figure: no datasheet gives one)"},
    {"livox-mid40", "Livox Mid-40 specification: 38.4 deg circular, non-repetitive rosette, 100,000 points/s",
     "Livox Mid-40 specification: 1-260 m (80 %), 2 cm", "Livox Mid-40 specification: 0.28 deg x 0.03 deg (4.9 "
                                                          "mrad); 4 ns (typical)"},
    {"kinect-v2", "Kinect v2 depth camera: 512 x 424 px, 70.6 x 60 deg, 30 Hz", "Kinect v2: 0.5-4.5 m",
     "one pixel (70.6 deg / 512 = 2.4 mrad); 5 ns (typical)"},
};

const char *lsim_sensor_preset_source(const char *name, lsim_preset_source group)
{
    for (size_t i = 0; name && i < sizeof sources / sizeof sources[0]; ++i)
        if (strcmp(sources[i].name, name) == 0)
            return group == LSIM_SOURCE_GEOMETRY ? sources[i].geometry
                   : group == LSIM_SOURCE_RANGE  ? sources[i].range
                                                 : sources[i].optics;
    return NULL;
}

static const preset *find_preset(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < PRESET_COUNT; ++i)
        if (strcmp(presets[i].name, name) == 0)
            return &presets[i];
    return NULL;
}

const char *lsim_sensor_preset_description(const char *name)
{
    const preset *p = find_preset(name);
    return p ? p->description : NULL;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Fill the preset's elevations, sorted ascending (ring 0 lowest). */
static lsim_status fill_elevations(lsim_context *ctx, const preset *p, lsim_sensor_spec *spec)
{
    int total = p->blocks[0].count + p->blocks[1].count;
    double *e = malloc((size_t)total * sizeof *e);
    if (!e)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for preset '%s'", p->name);
    int k = 0;
    for (int b = 0; b < 2; ++b) {
        const elevation_block *blk = &p->blocks[b];
        for (int i = 0; i < blk->count; ++i)
            e[k++] = blk->count > 1 ? blk->first + (blk->last - blk->first) * i / (blk->count - 1) : blk->first;
    }
    qsort(e, (size_t)total, sizeof *e, compare_double);
    spec->channels = total;
    spec->elevations_deg = e;
    return LSIM_OK;
}

lsim_status lsim_sensor_spec_from_preset(lsim_context *ctx, const char *name, lsim_sensor_spec *spec)
{
    if (!spec)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_sensor_spec_from_preset: spec must not be NULL");
    const preset *p = find_preset(name);
    if (!p) {
        char list[512] = "";
        for (size_t i = 0; i < PRESET_COUNT; ++i) {
            if (i)
                strncat(list, ", ", sizeof list - strlen(list) - 1);
            strncat(list, presets[i].name, sizeof list - strlen(list) - 1);
        }
        return lsim_fail(ctx, LSIM_ERR_NOT_FOUND, "sensor.preset: '%s' is not a preset, valid: %s",
                         name ? name : "(null)", list);
    }
    lsim_sensor_spec_defaults(spec);
    lsim_strlcpy(spec->name, p->name, sizeof spec->name);
    spec->kind = p->kind;
    spec->rate_hz = p->rate_hz;
    spec->range_min = p->range_min;
    spec->range_max = p->range_max;
    spec->range_sigma = p->range_sigma;
    spec->noise_snr = 1; /* presets: noise and drop-outs grow as the signal falls toward the threshold */
    spec->beam.divergence_mrad = p->divergence_mrad;
    if (strcmp(p->name, "urg-04lx") == 0) { /* a continuous-wave (phase-shift) sensor: DESIGN.md §2, cw paper */
        spec->receiver.cw = 1;
        spec->receiver.cw_freq_hz[0] = 46.55e6; /* beat 6.65 MHz: unambiguous to 22.5 m (its "22 m" error) */
        spec->receiver.cw_freq_hz[1] = 53.2e6;
        /* Its beam as the cw paper fires it (§III-C, Fig. 5): three rays, the central one and one
         * each side along the scan, summed unweighted, so a beam across a depth edge mixes its
         * surfaces (docs/sensor.md). The rays sit at the beam's edge, +-divergence / 2 (13 mrad
         * full angle, from the table above: 6.5 mrad each side, 13 mm apart per metre; Hokuyo's
         * specification gives no divergence and the paper's beam diameter is lost from our copy
         * of its text, so this figure is the project's, not a datasheet's). */
        spec->beam.mode = LSIM_BEAM_RAYS;
        spec->beam.layout = LSIM_BEAM_LAYOUT_LINE;
        spec->beam.rings = 1;
    }
    /* RPLIDAR A1 and URG-04LX report whole millimetres (their scans' ranges step by 1 mm). */
    spec->range_resolution = p->kind == LSIM_SENSOR_PLANAR ? 0.001 : 0.0;
    spec->receiver.pulse_width_ns = p->pulse_ns;
    lsim_sensor_preset_radiometry(p->name, spec); /* threshold, overlap, sigma, ambient (preset_radiometry.c) */
    switch (p->kind) {
    case LSIM_SENSOR_ROTATING: {
        spec->columns = p->columns;
        lsim_status st = lsim_velodyne_builtin(p->name) ? lsim_velodyne_apply_builtin(ctx, p->name, spec)
                         : lsim_ouster_builtin(p->name) ? lsim_ouster_apply_builtin(ctx, p->name, spec)
                                                        : fill_elevations(ctx, p, spec);
        if (st != LSIM_OK)
            lsim_sensor_spec_free(spec);
        return st;
    }
    case LSIM_SENSOR_PLANAR:
        spec->fov_deg = p->fov_deg;
        spec->steps = p->steps;
        break;
    case LSIM_SENSOR_CAMERA:
        spec->width = p->width;
        spec->height = p->height;
        spec->hfov_deg = p->hfov_deg;
        spec->vfov_deg = p->vfov_deg;
        break;
    case LSIM_SENSOR_ROSETTE:
        spec->rosette_fov_deg = p->fov_deg;
        spec->rosette_points = p->steps;
        spec->rosette_hz[0] = lsim_sensor_default_prism_hz[0]; /* see sensor.h */
        spec->rosette_hz[1] = lsim_sensor_default_prism_hz[1];
        break;
    case LSIM_SENSOR_PATTERN: break;
    }
    return LSIM_OK;
}
