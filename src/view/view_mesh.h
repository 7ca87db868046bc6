/* What the viewer draws, as plain vertex arrays (no OpenGL here): the scene's triangles with
 * flat normals and a colour per label or material, the frame's beams and points coloured by
 * intensity or label, and the sensor's marker. */
#ifndef LSIM_VIEW_VIEW_MESH_H
#define LSIM_VIEW_VIEW_MESH_H

#include "lidarsim.h"

#include <stddef.h>
#include <stdint.h>

/* One vertex: world position, RGB in [0, 1], normal (zero: drawn unlit, lines and points). */
typedef struct lsim_view_vertex {
    float p[3], c[3], n[3];
} lsim_view_vertex;

typedef struct lsim_view_buffer {
    lsim_view_vertex *v;
    size_t count, cap;
} lsim_view_buffer;

void lsim_view_buffer_free(lsim_view_buffer *b);

/* Colour of a semantic label: the pictures' SemanticKITTI colours (pictures/label_colors.h: car blue,
 * building orange, traffic-sign red, vegetation green, ...; the darkest lightened to 3:1 against
 * the background), a fixed hash colour for other ids. */
void lsim_view_label_colour(uint32_t label, float rgb[3]);
/* Colour of the material with index `index` (a fixed hash colour; 0, the default material, grey). */
void lsim_view_material_colour(uint32_t index, float rgb[3]);
/* Viridis colour of an intensity on a log scale between log_lo and log_hi (log_lo == log_hi:
 * the bright end; not positive: the dark end). */
void lsim_view_intensity_colour(float intensity, double log_lo, double log_hi, float rgb[3]);

/* Every triangle of the scene (spheres tessellated, moving objects where they are at time 0),
 * three vertices each, with its face normal; coloured by label, or by material when by_material. */
lsim_status lsim_view_scene_triangles(lsim_context *ctx, const lsim_scene *scene, int by_material,
                                      lsim_view_buffer *out);

/* The frame's points (x, y, z in the world frame, intensity and label columns) into `points`
 * (one vertex each) and, every k-th point so that at most max_beams are drawn, a line from
 * `origin` to it into `beams` (two vertices, both coloured by the point's intensity). Points are
 * coloured by label when by_label, else by intensity; intensities map to viridis on a log scale
 * between their 2nd and 98th percentiles. */
lsim_status lsim_view_frame_arrays(lsim_context *ctx, const lsim_points *frame, const double origin[3],
                                   long max_beams, int by_label, lsim_view_buffer *beams,
                                   lsim_view_buffer *points);

/* The sensor's axes (x red, y green, z blue, `length` metres) at position, rotated by roll,
 * pitch, yaw (degrees), as lines. */
lsim_status lsim_view_sensor_axes(lsim_context *ctx, const double position[3], const double rpy_deg[3],
                                  double length, lsim_view_buffer *lines);

#endif
