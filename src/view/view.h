/* lidarsim view: a live OpenGL viewer of a scene and its sensor's frame (README "Viewer").
 *
 * The scene's triangles (flat shaded, coloured by label or material), the sensor (a marker and its
 * axes), the beams as lines from the sensor to each hit (coloured by intensity) and the points
 * (by intensity or label), in a GLFW window with an OpenGL 3.3 core context. Keys move the sensor
 * and re-scan the frame through the public API (lsim_sensor_set_pose, lsim_scene_scan_into), as a
 * library user would. With a screenshot path, one frame is rendered off-screen into a PNG and the
 * viewer returns at once. GLFW and OpenGL are used only in src/view/ (and OpenGL/EGL in
 * src/geometry/); tests/test_layering.py checks it. */
#ifndef LSIM_VIEW_VIEW_H
#define LSIM_VIEW_VIEW_H

#include "lidarsim.h"

typedef struct lsim_view_options {
    const char *scene;        /* scene file (required) */
    const char *screenshot;   /* PNG to write, then return; NULL: interactive window */
    int width, height;        /* window / screenshot size in pixels (default 1280 x 800) */
    int has_camera;           /* 1: eye and target below; 0: an orbit view around the sensor */
    double eye[3], target[3]; /* world, metres */
    int has_sensor_position;  /* 1: put the sensor at sensor_position before the first scan */
    double sensor_position[3];
    int has_sensor_yaw;       /* 1: the sensor's yaw is sensor_yaw_deg before the first scan */
    double sensor_yaw_deg;
    long max_beams;           /* beam lines drawn at most (every k-th beam; default 5000, 0: none) */
    int colour_by_label;      /* 1: points by label; 0: by intensity (default) */
    int colour_by_material;   /* 1: triangles by material; 0: by label (default) */
    int hide_beams;           /* 1: start with the beam lines off */
    int threads;              /* scan threads (0: all cores) */
    int quiet;                /* 1: no key help, no per-scan line */
} lsim_view_options;

/* Defaults for every field (scene and screenshot NULL). */
void lsim_view_options_init(lsim_view_options *options);

/* Load the scene, scan its sensor's frame and show it (or write the screenshot). Errors set ctx's
 * message: the scene loader's FILE:LINE message, no display (names xvfb-run and DISPLAY), a
 * window or OpenGL 3.3 context GLFW cannot make, a PNG that cannot be written. */
lsim_status lsim_view_run(lsim_context *ctx, const lsim_view_options *options);

#endif
