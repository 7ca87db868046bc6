/* `lidarsim presets [NAME|FILE [--beams]]`: list the built-in sensors, show one (a preset, a real
 * unit's calibration file or a scene file's sensor), or dump its beams. */
#include "commands.h"
#include "opts.h"

#include "lidarsim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
            "                 JSON, ROS velodyne_pointcloud YAML or VeloView XML), as `sensor: {calibration: FILE}`,\n"
            "                 or for the sensor of a scene file (YAML with a top-level `sensor:` key)\n"
            "  -h, --help     this help (on standard output);  --version  print the version\n");
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

/* 1 if the regular file at `path` is a scene file: a top-level `sensor:` key, which no calibration
 * format has (Ouster JSON quotes its keys; Velodyne YAML starts with lasers/num_lasers). Read line
 * by line, so a large calibration file costs one pass and no memory. */
static int is_scene_file(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[256];
    int scene = 0, start = 1; /* at the start of a line */
    while (!scene && fgets(line, sizeof line, f)) {
        scene = start && strncmp(line, "sensor:", 7) == 0;
        start = strchr(line, '\n') != NULL;
    }
    fclose(f);
    return scene;
}

/* The sensor of a scene file (its objects are loaded and dropped). */
static lsim_status scene_sensor(lsim_context *ctx, const char *path, lsim_sensor **sensor)
{
    lsim_scene *scene = NULL;
    lsim_status st = lsim_scene_load(ctx, path, &scene, sensor);
    lsim_scene_destroy(scene);
    return st;
}

static int print_summary(const lsim_sensor *sensor)
{
    size_t n = lsim_sensor_describe(sensor, NULL, 0);
    char *text = malloc(n + 1);
    if (!text) {
        fprintf(stderr, "lidarsim presets: out of memory\n");
        return LSIM_EXIT_FAILURE;
    }
    lsim_sensor_describe(sensor, text, n + 1);
    fputs(text, stdout);
    free(text);
    return LSIM_EXIT_OK;
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
    static const struct option longopts[] = {LSIM_OPTS_COMMON, {"beams", no_argument, NULL, 'b'}, {0, 0, 0, 0}};
    lsim_opts g;
    lsim_opts_init(&g, "presets", argc, argv, "h", longopts, usage);
    for (int c; (c = lsim_opts_next(&g)) != LSIM_OPT_END;) {
        if (c == LSIM_OPT_ERROR) {
            usage(stderr);
            return LSIM_EXIT_USAGE;
        } else if (c == LSIM_OPT_EXIT) {
            return LSIM_EXIT_OK;
        } else if (c == 'b') {
            beams = 1;
        } else if (name) {
            fprintf(stderr, "lidarsim presets: one preset name at a time ('%s' and '%s' given)\n", name, g.arg);
            return LSIM_EXIT_USAGE;
        } else {
            name = g.arg;
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
    /* a path (has a '/' or a '.') names a real unit's calibration file, or a scene file */
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
    const lsim_status st = !unit                 ? lsim_sensor_create_preset(ctx, name, &sensor)
                           : is_scene_file(name) ? scene_sensor(ctx, name, &sensor)
                                                 : lsim_sensor_create_calibrated(ctx, name, &sensor);
    if (st != LSIM_OK) {
        fprintf(stderr, "lidarsim presets: %s\n", lsim_context_last_error(ctx));
        rc = LSIM_EXIT_FAILURE;
    } else {
        if (beams)
            rc = print_beams(ctx, sensor);
        else
            rc = print_summary(sensor);
        lsim_sensor_destroy(sensor);
    }
    lsim_context_destroy(ctx);
    return rc;
}
