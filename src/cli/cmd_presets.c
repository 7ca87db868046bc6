/* `lidarsim presets [NAME [--beams]]`: list the built-in sensors, show one, or dump its beams. */
#include "cli/commands.h"

#include "lidarsim.h"
#include "sensor/sensor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
    fprintf(out,
            "usage: lidarsim presets [NAME|FILE [--beams]]\n"
            "\n"
            "  (no NAME)      list the built-in sensor presets with a one-line description\n"
            "  NAME           print the preset's key numbers (kind, beams, range, rate, elevations)\n"
            "  NAME --beams   print its beam table as CSV: ring,azimuth_deg,elevation_deg,time_s,\n"
            "                 origin_x,origin_y,origin_z (where each beam starts, sensor frame, m)\n"
            "                 (one row per beam in firing order; azimuth counter-clockwise from +x)\n"
            "  FILE [--beams] the same for a real unit's calibration file (Ouster metadata JSON, Velodyne\n"
            "                 JSON, ROS velodyne_pointcloud YAML or VeloView XML), as `sensor: {calibration: FILE}`\n"
            "  -h, --help     show this help\n");
}

static void list_presets(void)
{
    const char *const *names = lsim_sensor_preset_names();
    printf("%-12s %s\n", "NAME", "DESCRIPTION");
    for (size_t i = 0; names[i]; ++i)
        printf("%-12s %s\n", names[i], lsim_sensor_preset_description(names[i]));
}

static void unknown_preset(const char *name)
{
    const char *const *names = lsim_sensor_preset_names();
    fprintf(stderr, "lidarsim presets: '%s' is not a preset, valid:", name);
    for (size_t i = 0; names[i]; ++i)
        fprintf(stderr, "%s %s", i ? "," : "", names[i]);
    fprintf(stderr, "\n");
}

static void print_kind_numbers(const lsim_sensor_spec *s)
{
    switch (s->kind) {
    case LSIM_SENSOR_ROTATING:
        printf("channels: %d\ncolumns: %d\nazimuth_step_deg: %.9g\nspin: %s\n", s->channels, s->columns,
               s->firing_rate_hz > 0 ? 360.0 * s->rate_hz / s->firing_rate_hz : 360.0 / s->columns,
               s->spin < 0 ? "cw" : "ccw");
        if (s->firing_rate_hz > 0)
            printf("firing_rate_hz: %.9g (columns per second, fixed: columns = floor(firing_rate_hz / rate_hz))\n",
                   s->firing_rate_hz);
        if (s->ouster_modes)
            printf("lidar_modes: 512x10 512x20 1024x10 1024x20 2048x10\n");
        printf("elevations_deg (ring 0 first):");
        for (int i = 0; i < s->channels; ++i)
            printf(" %.9g", s->elevations_deg[i]);
        printf("\n");
        break;
    case LSIM_SENSOR_PLANAR:
        printf("fov_deg: %.9g\nsteps: %d\nazimuth_step_deg: %.9g\n", s->fov_deg, s->steps, s->fov_deg / s->steps);
        break;
    case LSIM_SENSOR_CAMERA:
        printf("width: %d\nheight: %d\nhfov_deg: %.9g\nvfov_deg: %.9g\n", s->width, s->height, s->hfov_deg,
               s->vfov_deg);
        break;
    case LSIM_SENSOR_ROSETTE:
        printf("fov_deg: %.9g (circular)\npoints: %d\nprism_hz: %.9g %.9g\n", s->rosette_fov_deg,
               s->rosette_points, s->rosette_hz[0], s->rosette_hz[1]);
        break;
    case LSIM_SENSOR_PATTERN: break;
    }
}

static void print_summary(const lsim_sensor *sensor)
{
    const lsim_sensor_spec *s = &sensor->spec;
    printf("name: %s\n", s->name);
    const char *description = lsim_sensor_preset_description(s->name);
    printf("description: %s\n", description ? description : "a real unit, from its calibration file");
    printf("kind: %s\n", lsim_sensor_kind_name(s->kind));
    printf("beams: %zu\n", lsim_sensor_beam_count(sensor));
    printf("rate_hz: %.9g\n", s->rate_hz);
    printf("range_m: %.9g .. %.9g\n", s->range_min, s->range_max);
    printf("range_sigma_m: %.9g\n", s->range_sigma);
    printf("intensity_sigma: %.9g\n", s->intensity_sigma);
    printf("detection_reflectance: %.9g\n", s->detection_reflectance);
    static const char *const returns[] = {"first", "strongest", "last", "dual", "all"};
    printf("beam_divergence_mrad: %.9g\n", s->beam.divergence_mrad);
    printf("pulse_width_ns: %.9g\n", s->receiver.pulse_width_ns);
    printf("returns: %s (max %d)\n", returns[s->receiver.mode], s->receiver.max_returns);
    print_kind_numbers(s);
}

static int print_beams(lsim_context *ctx, const lsim_sensor *sensor)
{
    size_t n = lsim_sensor_beam_count(sensor);
    double *az = malloc(n * sizeof *az), *el = malloc(n * sizeof *el), *t = malloc(n * sizeof *t);
    double *org = malloc(3 * n * sizeof *org);
    uint16_t *ring = malloc(n * sizeof *ring);
    int rc = LSIM_EXIT_OK;
    if (!az || !el || !t || !ring || !org) {
        fprintf(stderr, "lidarsim presets: out of memory for %zu beams\n", n);
        rc = LSIM_EXIT_FAILURE;
    } else if (lsim_sensor_get_beams(sensor, az, el, t, ring) != LSIM_OK ||
               lsim_sensor_get_beam_origins(sensor, org) != LSIM_OK) {
        fprintf(stderr, "lidarsim presets: %s\n", lsim_context_last_error(ctx));
        rc = LSIM_EXIT_FAILURE;
    } else {
        printf("ring,azimuth_deg,elevation_deg,time_s,origin_x,origin_y,origin_z\n");
        for (size_t i = 0; i < n; ++i)
            printf("%u,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n", (unsigned)ring[i], az[i], el[i], t[i], org[3 * i],
                   org[3 * i + 1], org[3 * i + 2]);
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fprintf(stderr, "lidarsim presets: error writing the beam table\n");
            rc = LSIM_EXIT_FAILURE;
        }
    }
    free(az);
    free(el);
    free(t);
    free(org);
    free(ring);
    return rc;
}

int lsim_cmd_presets(int argc, char **argv)
{
    const char *name = NULL;
    int beams = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return LSIM_EXIT_OK;
        } else if (strcmp(argv[i], "--beams") == 0) {
            beams = 1;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "lidarsim presets: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return LSIM_EXIT_USAGE;
        } else if (name) {
            fprintf(stderr, "lidarsim presets: one preset name at a time ('%s' and '%s' given)\n", name, argv[i]);
            return LSIM_EXIT_USAGE;
        } else {
            name = argv[i];
        }
    }
    if (!name) {
        if (beams) {
            fprintf(stderr, "lidarsim presets: --beams needs a preset NAME\n");
            return LSIM_EXIT_USAGE;
        }
        list_presets();
        return LSIM_EXIT_OK;
    }
    /* a path (has a '/' or a '.') names a real unit's calibration file */
    const int unit = !lsim_sensor_preset_description(name) && (strchr(name, '/') || strchr(name, '.'));
    if (!lsim_sensor_preset_description(name) && !unit) {
        unknown_preset(name);
        return LSIM_EXIT_USAGE;
    }
    lsim_context *ctx;
    if (lsim_context_create(&ctx) != LSIM_OK) {
        fprintf(stderr, "lidarsim presets: out of memory\n");
        return LSIM_EXIT_FAILURE;
    }
    lsim_sensor *sensor;
    int rc = LSIM_EXIT_OK;
    if ((unit ? lsim_sensor_create_calibrated(ctx, name, &sensor) : lsim_sensor_create_preset(ctx, name, &sensor)) !=
        LSIM_OK) {
        fprintf(stderr, "lidarsim presets: %s\n", lsim_context_last_error(ctx));
        rc = LSIM_EXIT_FAILURE;
    } else {
        if (beams)
            rc = print_beams(ctx, sensor);
        else
            print_summary(sensor);
        lsim_sensor_destroy(sensor);
    }
    lsim_context_destroy(ctx);
    return rc;
}
