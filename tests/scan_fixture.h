/* Shared helpers for scan tests: an independent rotation, ray/box distance, column access, a sensor
 * loaded from scene-file lines. */
#ifndef LSIM_TEST_SCAN_FIXTURE_H
#define LSIM_TEST_SCAN_FIXTURE_H

#include "lidarsim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* R = Rz(yaw) Ry(pitch) Rx(roll), written out independently of the library. */
static inline void fixture_rotate(const double rpy_deg[3], const double v[3], double out[3])
{
    const double d = 3.14159265358979323846 / 180.0;
    double r = rpy_deg[0] * d, p = rpy_deg[1] * d, y = rpy_deg[2] * d;
    double a[3] = {v[0], v[1] * cos(r) - v[2] * sin(r), v[1] * sin(r) + v[2] * cos(r)}; /* Rx */
    double b[3] = {a[0] * cos(p) + a[2] * sin(p), a[1], -a[0] * sin(p) + a[2] * cos(p)}; /* Ry */
    out[0] = b[0] * cos(y) - b[1] * sin(y);                                              /* Rz */
    out[1] = b[0] * sin(y) + b[1] * cos(y);
    out[2] = b[2];
}

/* Distance from o (inside) along unit d to the walls of the axis-aligned box [lo, hi]. */
static inline double fixture_box_exit(const double o[3], const double d[3], const double lo[3], const double hi[3])
{
    double t = INFINITY;
    for (int k = 0; k < 3; ++k) {
        if (d[k] > 1e-12)
            t = fmin(t, (hi[k] - o[k]) / d[k]);
        else if (d[k] < -1e-12)
            t = fmin(t, (lo[k] - o[k]) / d[k]);
    }
    return t;
}

static inline const float *fixture_f32(const lsim_points *p, lsim_field f)
{
    return (const float *)lsim_points_column(p, f);
}

/* Write a scene file at `path` whose sensor is `sensor_yaml` (the lines under `sensor:`), with one
 * box 5 m ahead, load it (the scene is dropped, *sensor kept) and remove the file. */
static inline lsim_status fixture_load_sensor(lsim_context *ctx, const char *path, const char *sensor_yaml,
                                              lsim_sensor **sensor)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
    fprintf(f, "sensor:\n%sobjects:\n  - box: {size: [1, 1, 1]}\n    position: [5, 0, 0]\n", sensor_yaml);
    fclose(f);
    lsim_scene *scene = NULL;
    *sensor = NULL;
    lsim_status st = lsim_scene_load(ctx, path, &scene, sensor);
    lsim_scene_destroy(scene);
    remove(path);
    return st;
}

#endif
