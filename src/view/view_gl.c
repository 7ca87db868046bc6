/* The viewer's OpenGL 3.3 core renderer (view_gl.h). Functions are linked from libGL (glvnd
 * dispatches them to the current context's driver: Mesa's llvmpipe under Xvfb, a GPU driver on a
 * desktop). */
#define GL_GLEXT_PROTOTYPES 1
#include "view/view_gl.h"

#include "core/context.h"

#include <GL/glcorearb.h>
#include <stdlib.h>
#include <string.h>

struct lsim_view_gl {
    GLuint program, vao[LSIM_VIEW_LAYERS], vbo[LSIM_VIEW_LAYERS];
    GLsizei count[LSIM_VIEW_LAYERS];
    GLint u_mvp, u_eye, u_point_size, u_depth_bias;
    GLuint fbo, fbo_colour, fbo_depth;
};

static const char *vertex_source =
    "#version 330 core\n"
    "layout(location = 0) in vec3 p;\n"
    "layout(location = 1) in vec3 c;\n"
    "layout(location = 2) in vec3 n;\n"
    "uniform mat4 mvp;\n"
    "uniform float point_size;\n"
    "uniform float depth_bias;\n"
    "out vec3 vc;\n"
    "flat out vec3 vn;\n"
    "out vec3 vp;\n"
    "void main() {\n"
    "  gl_Position = mvp * vec4(p, 1.0);\n"
    "  gl_Position.z -= depth_bias * gl_Position.w;\n"
    "  gl_PointSize = point_size;\n"
    "  vc = c; vn = n; vp = p;\n"
    "}\n";

/* Flat shading: ambient + a fixed sun + a headlight (faces turned to the eye are bright). */
static const char *fragment_source =
    "#version 330 core\n"
    "in vec3 vc;\n"
    "flat in vec3 vn;\n"
    "in vec3 vp;\n"
    "uniform vec3 eye;\n"
    "out vec4 frag;\n"
    "void main() {\n"
    "  if (dot(vn, vn) < 0.25) { frag = vec4(vc, 1.0); return; }\n"
    "  vec3 n = normalize(vn);\n"
    "  float s = 0.25 + 0.35 * abs(dot(n, normalize(vec3(0.3, 0.5, 0.8))))\n"
    "              + 0.40 * abs(dot(n, normalize(eye - vp)));\n"
    "  frag = vec4(vc * min(s, 1.0), 1.0);\n"
    "}\n";

static lsim_status compile(lsim_context *ctx, GLenum kind, const char *src, GLuint *out)
{
    GLuint s = glCreateShader(kind);
    glShaderSource(s, 1, &src, NULL);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[1024] = "";
        glGetShaderInfoLog(s, sizeof log, NULL, log);
        glDeleteShader(s);
        return lsim_fail(ctx, LSIM_ERR_IO, "the OpenGL driver (%s) cannot compile the %s shader: %s",
                         lsim_view_gl_renderer(), kind == GL_VERTEX_SHADER ? "vertex" : "fragment", log);
    }
    *out = s;
    return LSIM_OK;
}

const char *lsim_view_gl_renderer(void)
{
    const GLubyte *r = glGetString(GL_RENDERER);
    return r ? (const char *)r : "unknown renderer";
}

lsim_status lsim_view_gl_create(lsim_context *ctx, lsim_view_gl **out)
{
    *out = NULL;
    lsim_view_gl *gl = calloc(1, sizeof *gl);
    if (!gl)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for the renderer");
    GLuint vs = 0, fs = 0;
    lsim_status st = compile(ctx, GL_VERTEX_SHADER, vertex_source, &vs);
    if (st == LSIM_OK)
        st = compile(ctx, GL_FRAGMENT_SHADER, fragment_source, &fs);
    if (st != LSIM_OK) {
        if (vs)
            glDeleteShader(vs);
        free(gl);
        return st;
    }
    gl->program = glCreateProgram();
    glAttachShader(gl->program, vs);
    glAttachShader(gl->program, fs);
    glLinkProgram(gl->program);
    glDeleteShader(vs);
    glDeleteShader(fs);
    GLint ok = 0;
    glGetProgramiv(gl->program, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[1024] = "";
        glGetProgramInfoLog(gl->program, sizeof log, NULL, log);
        st = lsim_fail(ctx, LSIM_ERR_IO, "the OpenGL driver (%s) cannot link the shaders: %s",
                       lsim_view_gl_renderer(), log);
        glDeleteProgram(gl->program);
        free(gl);
        return st;
    }
    gl->u_mvp = glGetUniformLocation(gl->program, "mvp");
    gl->u_eye = glGetUniformLocation(gl->program, "eye");
    gl->u_point_size = glGetUniformLocation(gl->program, "point_size");
    gl->u_depth_bias = glGetUniformLocation(gl->program, "depth_bias");
    glGenVertexArrays(LSIM_VIEW_LAYERS, gl->vao);
    glGenBuffers(LSIM_VIEW_LAYERS, gl->vbo);
    for (int i = 0; i < LSIM_VIEW_LAYERS; ++i) {
        glBindVertexArray(gl->vao[i]);
        glBindBuffer(GL_ARRAY_BUFFER, gl->vbo[i]);
        for (GLuint a = 0; a < 3; ++a) {
            glEnableVertexAttribArray(a);
            glVertexAttribPointer(a, 3, GL_FLOAT, GL_FALSE, sizeof(lsim_view_vertex),
                                  (const void *)(a * 3 * sizeof(float)));
        }
    }
    glBindVertexArray(0);
    *out = gl;
    return LSIM_OK;
}

void lsim_view_gl_destroy(lsim_view_gl *gl)
{
    if (!gl)
        return;
    if (gl->fbo) {
        glDeleteFramebuffers(1, &gl->fbo);
        glDeleteRenderbuffers(1, &gl->fbo_colour);
        glDeleteRenderbuffers(1, &gl->fbo_depth);
    }
    glDeleteBuffers(LSIM_VIEW_LAYERS, gl->vbo);
    glDeleteVertexArrays(LSIM_VIEW_LAYERS, gl->vao);
    glDeleteProgram(gl->program);
    free(gl);
}

void lsim_view_gl_upload(lsim_view_gl *gl, int layer, const lsim_view_buffer *vertices)
{
    glBindBuffer(GL_ARRAY_BUFFER, gl->vbo[layer]);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(vertices->count * sizeof(lsim_view_vertex)), vertices->v,
                 GL_DYNAMIC_DRAW);
    gl->count[layer] = (GLsizei)vertices->count;
}

static void draw_layer(lsim_view_gl *gl, int layer, GLenum mode, float point_size, float depth_bias)
{
    if (gl->count[layer] == 0)
        return;
    glUniform1f(gl->u_point_size, point_size);
    glUniform1f(gl->u_depth_bias, depth_bias);
    glBindVertexArray(gl->vao[layer]);
    glDrawArrays(mode, 0, gl->count[layer]);
}

void lsim_view_gl_draw(lsim_view_gl *gl, const float mvp[16], const double eye[3], int width, int height,
                       int show_beams)
{
    glViewport(0, 0, width, height);
    glClearColor(LSIM_VIEW_BACKGROUND_R / 255.0f, LSIM_VIEW_BACKGROUND_G / 255.0f, LSIM_VIEW_BACKGROUND_B / 255.0f,
                 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glEnable(GL_DEPTH_TEST);
    glEnable(GL_PROGRAM_POINT_SIZE);
    glUseProgram(gl->program);
    glUniformMatrix4fv(gl->u_mvp, 1, GL_FALSE, mvp);
    glUniform3f(gl->u_eye, (float)eye[0], (float)eye[1], (float)eye[2]);
    draw_layer(gl, LSIM_VIEW_TRIANGLES, GL_TRIANGLES, 1.0f, 0.0f);
    if (show_beams)
        draw_layer(gl, LSIM_VIEW_BEAMS, GL_LINES, 1.0f, 2e-6f);
    draw_layer(gl, LSIM_VIEW_POINTS, GL_POINTS, 3.0f, 5e-6f);
    draw_layer(gl, LSIM_VIEW_AXES, GL_LINES, 1.0f, 1e-5f);
    draw_layer(gl, LSIM_VIEW_MARKER, GL_POINTS, 11.0f, 2e-5f); /* over the axes, which start at it */
    glBindVertexArray(0);
}

lsim_status lsim_view_gl_offscreen(lsim_view_gl *gl, lsim_context *ctx, int width, int height)
{
    if (!gl->fbo) {
        glGenFramebuffers(1, &gl->fbo);
        glGenRenderbuffers(1, &gl->fbo_colour);
        glGenRenderbuffers(1, &gl->fbo_depth);
    }
    glBindRenderbuffer(GL_RENDERBUFFER, gl->fbo_colour);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
    glBindRenderbuffer(GL_RENDERBUFFER, gl->fbo_depth);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, width, height);
    glBindFramebuffer(GL_FRAMEBUFFER, gl->fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, gl->fbo_colour);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, gl->fbo_depth);
    GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    if (status != GL_FRAMEBUFFER_COMPLETE)
        return lsim_fail(ctx, LSIM_ERR_IO,
                         "the OpenGL driver (%s) refuses a %d x %d off-screen framebuffer (status 0x%x); "
                         "try a smaller --size",
                         lsim_view_gl_renderer(), width, height, (unsigned)status);
    return LSIM_OK;
}

void lsim_view_gl_read_rgb(int width, int height, unsigned char *rgb)
{
    glFinish();
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, rgb);
    /* OpenGL's first row is the bottom one: flip in place */
    size_t row = (size_t)width * 3;
    unsigned char tmp[3 * 1024];
    for (int y = 0; y < height / 2; ++y) {
        unsigned char *a = rgb + (size_t)y * row, *b = rgb + (size_t)(height - 1 - y) * row;
        for (size_t off = 0; off < row; off += sizeof tmp) {
            size_t n = row - off < sizeof tmp ? row - off : sizeof tmp;
            memcpy(tmp, a + off, n);
            memcpy(a + off, b + off, n);
            memcpy(b + off, tmp, n);
        }
    }
}
