/* The viewer's OpenGL 3.3 core renderer: one shader program, a vertex buffer per layer (scene
 * triangles, beam lines, points, sensor axes, sensor marker), drawing into the current context's
 * framebuffer or an off-screen one for screenshots. Needs a current OpenGL 3.3 core context (the
 * window's, view_run.c); nothing here knows GLFW. */
#ifndef LSIM_VIEW_VIEW_GL_H
#define LSIM_VIEW_VIEW_GL_H

#include "lidarsim.h"
#include "view/view_mesh.h"

enum {
    LSIM_VIEW_TRIANGLES = 0, /* lit, GL_TRIANGLES */
    LSIM_VIEW_BEAMS,         /* GL_LINES, toggled */
    LSIM_VIEW_POINTS,        /* GL_POINTS, 3 px */
    LSIM_VIEW_AXES,          /* GL_LINES */
    LSIM_VIEW_MARKER,        /* GL_POINTS, 11 px */
    LSIM_VIEW_LAYERS
};

/* The background colour, RGB8 (the corners of a screenshot of an empty view). */
#define LSIM_VIEW_BACKGROUND_R 30
#define LSIM_VIEW_BACKGROUND_G 30
#define LSIM_VIEW_BACKGROUND_B 36

typedef struct lsim_view_gl lsim_view_gl;

/* Compile the program and make the buffers (the context must be current). Errors name the shader
 * log or the OpenGL version found. */
lsim_status lsim_view_gl_create(lsim_context *ctx, lsim_view_gl **out);
void lsim_view_gl_destroy(lsim_view_gl *gl);
/* Replace a layer's vertices. */
void lsim_view_gl_upload(lsim_view_gl *gl, int layer, const lsim_view_buffer *vertices);
/* Clear and draw every layer (beams only when show_beams) into a width x height viewport of the
 * bound framebuffer; mvp from lsim_view_camera_matrix, eye for the headlight. */
void lsim_view_gl_draw(lsim_view_gl *gl, const float mvp[16], const double eye[3], int width, int height,
                       int show_beams);
/* Bind an off-screen width x height framebuffer (RGBA8 + 24-bit depth) to draw into; LSIM_ERR_IO
 * naming the framebuffer status when the driver refuses it. */
lsim_status lsim_view_gl_offscreen(lsim_view_gl *gl, lsim_context *ctx, int width, int height);
/* Read the bound framebuffer's width x height pixels as RGB8, top row first (3 * width * height
 * bytes). */
void lsim_view_gl_read_rgb(int width, int height, unsigned char *rgb);
/* The context's GL_RENDERER string ("llvmpipe (LLVM 15.0.6, 256 bits)", ...). */
const char *lsim_view_gl_renderer(void);

#endif
