/* Internals of the OpenGL rasterizer (raster_gl.h): the handle and its table of GL functions.
 * The functions are loaded per handle through eglGetProcAddress (Mesa and every current EGL
 * implement EGL_KHR_get_all_proc_addresses, so core functions come that way too): no global
 * dispatch state, no loader library. Only src/geometry/raster_gl*.c include this. */
#ifndef LSIM_GEOMETRY_RASTER_GL_INTERNAL_H
#define LSIM_GEOMETRY_RASTER_GL_INTERNAL_H

#include "geometry/raster_gl.h"

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/glcorearb.h>

/* X(type suffix, name): PFNGL<SUFFIX>PROC gl<Name> */
#define LSIM_GL_FUNCTIONS(X)                                                                         \
    X(GETERROR, GetError) X(GETSTRING, GetString) X(GETINTEGERV, GetIntegerv) X(ENABLE, Enable)      \
    X(DISABLE, Disable) X(DEPTHFUNC, DepthFunc) X(DEPTHMASK, DepthMask) X(VIEWPORT, Viewport)        \
    X(FINISH, Finish) X(PIXELSTOREI, PixelStorei) X(READPIXELS, ReadPixels) X(READBUFFER, ReadBuffer) \
    X(GENBUFFERS, GenBuffers) X(DELETEBUFFERS, DeleteBuffers) X(BINDBUFFER, BindBuffer)              \
    X(BUFFERDATA, BufferData) X(BUFFERSUBDATA, BufferSubData) X(BINDBUFFERBASE, BindBufferBase) X(GENVERTEXARRAYS, GenVertexArrays)  \
    X(DELETEVERTEXARRAYS, DeleteVertexArrays) X(BINDVERTEXARRAY, BindVertexArray)                    \
    X(ENABLEVERTEXATTRIBARRAY, EnableVertexAttribArray) X(VERTEXATTRIBPOINTER, VertexAttribPointer)  \
    X(CREATESHADER, CreateShader) X(SHADERSOURCE, ShaderSource) X(COMPILESHADER, CompileShader)      \
    X(GETSHADERIV, GetShaderiv) X(GETSHADERINFOLOG, GetShaderInfoLog) X(DELETESHADER, DeleteShader)  \
    X(CREATEPROGRAM, CreateProgram) X(ATTACHSHADER, AttachShader) X(LINKPROGRAM, LinkProgram)        \
    X(GETPROGRAMIV, GetProgramiv) X(GETPROGRAMINFOLOG, GetProgramInfoLog)                            \
    X(DELETEPROGRAM, DeleteProgram) X(USEPROGRAM, UseProgram)                                        \
    X(GETUNIFORMLOCATION, GetUniformLocation) X(UNIFORMMATRIX4FV, UniformMatrix4fv)                  \
    X(UNIFORMMATRIX3FV, UniformMatrix3fv) X(UNIFORM1UI, Uniform1ui)                                  \
    X(GENFRAMEBUFFERS, GenFramebuffers) X(DELETEFRAMEBUFFERS, DeleteFramebuffers)                    \
    X(BINDFRAMEBUFFER, BindFramebuffer) X(FRAMEBUFFERRENDERBUFFER, FramebufferRenderbuffer)          \
    X(GENRENDERBUFFERS, GenRenderbuffers) X(DELETERENDERBUFFERS, DeleteRenderbuffers)                \
    X(BINDRENDERBUFFER, BindRenderbuffer) X(RENDERBUFFERSTORAGE, RenderbufferStorage)                \
    X(CHECKFRAMEBUFFERSTATUS, CheckFramebufferStatus) X(DRAWBUFFERS, DrawBuffers)                    \
    X(CLEARBUFFERFV, ClearBufferfv) X(CLEARBUFFERUIV, ClearBufferuiv)                                \
    X(DRAWELEMENTSBASEVERTEX, DrawElementsBaseVertex)                                                \
    X(GENTEXTURES, GenTextures) X(DELETETEXTURES, DeleteTextures) X(BINDTEXTURE, BindTexture)        \
    X(ACTIVETEXTURE, ActiveTexture) X(TEXSTORAGE3D, TexStorage3D) X(TEXPARAMETERI, TexParameteri)    \
    X(FRAMEBUFFERTEXTURELAYER, FramebufferTextureLayer) X(DISPATCHCOMPUTE, DispatchCompute)          \
    X(MEMORYBARRIER, MemoryBarrier) X(GETBUFFERSUBDATA, GetBufferSubData)

typedef struct lsim_gl_functions {
#define LSIM_GL_MEMBER(T, N) PFNGL##T##PROC N;
    LSIM_GL_FUNCTIONS(LSIM_GL_MEMBER)
#undef LSIM_GL_MEMBER
} lsim_gl_functions;

/* One drawn object: a range of the shared index buffer. */
typedef struct lsim_raster_draw {
    uint32_t object;         /* scene object index */
    size_t first_index;      /* into the index buffer (3 per triangle) */
    size_t triangle_count;
    int32_t base_vertex;     /* added to its indices */
    uint32_t first_triangle; /* into the normal buffer */
    double model[12];        /* 3x4 row-major pose (identity for static objects) */
} lsim_raster_draw;

struct lsim_raster_gl {
    lsim_context *ctx;
    EGLDisplay display;
    EGLContext context;
    int terminate_display; /* 1: the display counts references (EGL_KHR_display_reference) */
    lsim_gl_functions f;
    char describe[256];

    GLuint program;
    GLint u_view_model, u_projection, u_normal_model, u_object, u_first_triangle;
    GLuint vao, vertex_buffer, index_buffer, normal_buffer;

    GLuint fbo, rb_depth, rb_range, rb_normal, rb_object, rb_primitive;
    uint32_t fb_width, fb_height;
    int fb_depth_bits;

    /* The per-beam lookup on the device (raster_gl_lookup.c): its compute program (0: the context
     * has none, the engine looks up on the CPU), the layered framebuffer views are drawn into,
     * and its buffers: rays in, hits out, the view's frame, the objects' poses and table. */
    GLuint lookup_program;
    GLint u_ray_count, u_width, u_height, u_faces, u_object_count, u_correction;
    GLuint layer_fbo, layer_depth;
    uint32_t layer_width, layer_height;
    int layer_depth_bits;
    GLuint ray_buffer, hit_buffer, frame_buffer, pose_buffer, object_buffer;
    size_t lookup_capacity; /* rays the ray and hit buffers hold (grown, never shrunk) */
    double pose_time; /* the poses in pose_buffer are at this time (NAN: none uploaded) */
    int has_motion;   /* some drawn object has a motion */

    const struct lsim_scene *scene;
    lsim_raster_draw *draws;
    size_t draw_count;
    size_t object_count;
};

/* raster_gl_context.c: the context and program; raster_gl.c: scene and views. */
/* Make the handle's context current on this thread if it is not (several handles may live on
 * one thread). */
lsim_status lsim_raster_gl_make_current(lsim_raster_gl *gl);
/* LSIM_OK, or the first pending GL error as a failure naming `what` (the queue is drained). */
lsim_status lsim_raster_gl_check(lsim_raster_gl *gl, const char *what);
/* Draw the scene into the bound framebuffer's viewport (0, 0, width, height): clear, then every
 * object; `proj` gets the column-major projection drawn with (raster_gl.c). */
void lsim_raster_gl_draw(lsim_raster_gl *gl, const lsim_raster_view *view, float proj[16]);
/* Check a view's parameters (raster_gl.c). */
lsim_status lsim_raster_gl_check_view(lsim_raster_gl *gl, const lsim_raster_view *view);
/* raster_gl_lookup.c: build the compute program where the context has compute shaders (OpenGL
 * 4.3); LSIM_OK without building it where it has none; a failure (with the compile log) where it
 * has them and the program does not build. */
lsim_status lsim_raster_gl_lookup_init(lsim_raster_gl *gl);
/* The object table and the static poses for the lookup, after the scene's upload. */
lsim_status lsim_raster_gl_lookup_set_scene(lsim_raster_gl *gl);
void lsim_raster_gl_lookup_release(lsim_raster_gl *gl);
/* Compile one shader; the failure names `what` and carries the compile log. */
lsim_status lsim_raster_gl_compile(lsim_raster_gl *gl, GLenum type, const char *what, const char *source, GLuint *out);
/* Delete the framebuffer's renderbuffers (raster_gl.c; also called by lsim_raster_gl_destroy). */
void lsim_raster_gl_release_targets(lsim_raster_gl *gl);

#endif
