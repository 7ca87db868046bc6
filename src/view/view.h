/* lidarsim view: a live OpenGL viewer of a scene and its sensor's frame (README "Viewer").
 *
 * The public API is include/lidarsim.h's lsim_view_options, lsim_view_options_init and
 * lsim_view_run; view_run.c implements them. The scene's triangles, the sensor, the
 * beams and the points are drawn in a GLFW window with an OpenGL 3.3 core context; keys move the
 * sensor and re-scan the frame through the public API (lsim_sensor_set_pose,
 * lsim_scene_scan_into), as a library user would. GLFW and OpenGL are used only in src/view/
 * (and OpenGL/EGL in src/geometry/); tests/test_layering.py checks it. */
#ifndef LSIM_VIEW_VIEW_H
#define LSIM_VIEW_VIEW_H

#include "lidarsim.h"

#endif
