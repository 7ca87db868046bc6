/* Trajectory files (CSV) and the motion keys of a scene file's sensor and objects. */
#ifndef LSIM_SCENE_TRAJECTORY_FILE_H
#define LSIM_SCENE_TRAJECTORY_FILE_H

#include "core/motion_make.h"
#include "scene/yaml_doc.h"

/* Read a trajectory CSV:
 *
 *   # comment lines and blank lines are skipped anywhere
 *   t,x,y,z,roll,pitch,yaw        <- header: these 7 columns, any order
 *   0.0,0,0,1.8,0,0,0             <- seconds, metres (world), degrees
 *
 * Times strictly ascending, every value finite (core/motion_make.h limits), 1..1e6 rows, at
 * most 64 MiB. Every failure names file:line, the column and the value, and what to do. */
lsim_status lsim_trajectory_file_read(lsim_context *ctx, const char *path, lsim_trajectory *out);

/* The motion keys of a sensor or object mapping (`key` is "sensor" or "objects[N]" in messages):
 * velocity, angular_velocity_deg_s, trajectory: {file: CSV} or {keyframes: [[t, x, y, z, roll,
 * pitch, yaw], ...]} (file relative to `dir`). A trajectory excludes the rates. */
typedef struct lsim_motion_keys {
    double velocity[3];
    double angular_velocity_deg_s[3];
    lsim_trajectory trajectory; /* count 0: none (owned: lsim_trajectory_free) */
} lsim_motion_keys;

lsim_status lsim_scene_file_read_motion(lsim_yaml *y, yaml_node_t *map, const char *key, const char *dir,
                                        lsim_motion_keys *out);

#endif
