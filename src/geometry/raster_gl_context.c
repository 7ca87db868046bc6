/* The EGL side of the OpenGL rasterizer (raster_gl.h): a display with no window system (a
 * hardware EGL device, else Mesa's surfaceless platform, else a software device or the default
 * display), an
 * OpenGL 4.3 core context made current with no surface (EGL_KHR_surfaceless_context), the GL
 * function table (eglGetProcAddress), and the shader program. */
#include "geometry/raster_gl_internal.h"

#include "core/context.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LSIM_RASTER_INSTALL "install Mesa's EGL and OpenGL drivers (Debian: apt-get install libegl1 libegl-mesa0 libgl1-mesa-dri)"

static const char *egl_error_name(EGLint e)
{
    switch (e) {
    case EGL_SUCCESS: return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
    case EGL_BAD_CURRENT_SURFACE: return "EGL_BAD_CURRENT_SURFACE";
    case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
    case EGL_BAD_NATIVE_PIXMAP: return "EGL_BAD_NATIVE_PIXMAP";
    case EGL_BAD_NATIVE_WINDOW: return "EGL_BAD_NATIVE_WINDOW";
    case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
    case EGL_BAD_SURFACE: return "EGL_BAD_SURFACE";
    case EGL_CONTEXT_LOST: return "EGL_CONTEXT_LOST";
    default: return "unknown EGL error";
    }
}

static int has_extension(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p && (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return 1;
    return 0;
}

/* Initialise a display of `platform`, or EGL_NO_DISPLAY. */
static EGLDisplay try_display(PFNEGLGETPLATFORMDISPLAYEXTPROC get, EGLenum platform, void *native, const EGLint *attrs)
{
    EGLint major, minor;
    EGLDisplay d = get(platform, native, attrs);
    return d != EGL_NO_DISPLAY && eglInitialize(d, &major, &minor) ? d : EGL_NO_DISPLAY;
}

/* An initialised display with no window system; *how names the platform. In order: a hardware
 * EGL device (a GPU driver), Mesa's surfaceless platform (llvmpipe where there is no GPU: glvnd
 * offers Mesa's client extensions beside a GPU vendor's, so surfaceless alone would pick
 * llvmpipe on a GPU machine), a software EGL device, the default display. */
static EGLDisplay open_display(int *track_references, const char **how)
{
    const char *client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS); /* NULL without client extensions */
    PFNEGLGETPLATFORMDISPLAYEXTPROC get =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    /* Display reference counting, where offered, lets each handle terminate its own use of the
     * (process-wide) display without pulling it from under another handle. */
    int track = has_extension(client, "EGL_KHR_display_reference");
    const EGLint track_attrs[] = {EGL_TRACK_REFERENCES_KHR, EGL_TRUE, EGL_NONE};
    const EGLint *attrs = track ? track_attrs : NULL;
    *track_references = 0;
    EGLDeviceEXT devices[16];
    EGLint count = 0;
    int software[16] = {0};
    if (get && has_extension(client, "EGL_EXT_platform_device")) {
        PFNEGLQUERYDEVICESEXTPROC query_devices = (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
        PFNEGLQUERYDEVICESTRINGEXTPROC query_string =
            (PFNEGLQUERYDEVICESTRINGEXTPROC)eglGetProcAddress("eglQueryDeviceStringEXT");
        if (!query_devices || !query_devices(16, devices, &count))
            count = 0;
        for (EGLint i = 0; i < count; ++i) {
            const char *ext = query_string ? query_string(devices[i], EGL_EXTENSIONS) : NULL;
            software[i] = has_extension(ext, "EGL_MESA_device_software");
            if (software[i])
                continue;
            EGLDisplay d = try_display(get, EGL_PLATFORM_DEVICE_EXT, devices[i], attrs);
            if (d != EGL_NO_DISPLAY) {
                *track_references = track;
                *how = "device platform (EGL_EXT_platform_device), hardware device";
                return d;
            }
        }
    }
    if (get && has_extension(client, "EGL_MESA_platform_surfaceless")) {
        EGLDisplay d = try_display(get, EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, attrs);
        if (d != EGL_NO_DISPLAY) {
            *track_references = track;
            *how = "surfaceless platform (EGL_MESA_platform_surfaceless)";
            return d;
        }
    }
    for (EGLint i = 0; i < count; ++i) {
        if (!software[i])
            continue;
        EGLDisplay d = try_display(get, EGL_PLATFORM_DEVICE_EXT, devices[i], attrs);
        if (d != EGL_NO_DISPLAY) {
            *track_references = track;
            *how = "device platform (EGL_EXT_platform_device), software device";
            return d;
        }
    }
    EGLint major, minor;
    EGLDisplay d = eglGetDisplay(EGL_DEFAULT_DISPLAY);
    if (d != EGL_NO_DISPLAY && eglInitialize(d, &major, &minor)) {
        *how = "default display";
        return d;
    }
    return EGL_NO_DISPLAY;
}

static lsim_status load_functions(lsim_raster_gl *gl)
{
#define LSIM_GL_LOAD(T, N)                                                                          \
    gl->f.N = (PFNGL##T##PROC)eglGetProcAddress("gl" #N);                                            \
    if (!gl->f.N)                                                                                   \
        return lsim_fail(gl->ctx, LSIM_ERR_ENGINE, "OpenGL rasterizer: EGL gives no OpenGL function gl%s (%s)", \
                         #N, LSIM_RASTER_INSTALL);
    LSIM_GL_FUNCTIONS(LSIM_GL_LOAD)
#undef LSIM_GL_LOAD
    return LSIM_OK;
}

lsim_status lsim_raster_gl_make_current(lsim_raster_gl *gl)
{
    if (eglGetCurrentContext() == gl->context)
        return LSIM_OK;
    if (eglMakeCurrent(gl->display, EGL_NO_SURFACE, EGL_NO_SURFACE, gl->context))
        return LSIM_OK;
    EGLint e = eglGetError();
    return lsim_fail(gl->ctx, LSIM_ERR_ENGINE,
                     "OpenGL rasterizer: eglMakeCurrent failed (%s, 0x%x): is the handle used from a thread other than "
                     "the one that created it while that thread still holds it?",
                     egl_error_name(e), (unsigned)e);
}

void lsim_raster_gl_release_current(lsim_raster_gl *gl)
{
    if (gl && gl->display != EGL_NO_DISPLAY && eglGetCurrentContext() == gl->context)
        eglMakeCurrent(gl->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
}

lsim_status lsim_raster_gl_check(lsim_raster_gl *gl, const char *what)
{
    GLenum e = gl->f.GetError(), first = e;
    while (e != GL_NO_ERROR)
        e = gl->f.GetError();
    if (first == GL_NO_ERROR)
        return LSIM_OK;
    const char *name = first == GL_INVALID_ENUM        ? "GL_INVALID_ENUM"
                       : first == GL_INVALID_VALUE     ? "GL_INVALID_VALUE"
                       : first == GL_INVALID_OPERATION ? "GL_INVALID_OPERATION"
                       : first == GL_OUT_OF_MEMORY     ? "GL_OUT_OF_MEMORY"
                       : first == GL_INVALID_FRAMEBUFFER_OPERATION ? "GL_INVALID_FRAMEBUFFER_OPERATION"
                                                                   : "an OpenGL error";
    return lsim_fail(gl->ctx, first == GL_OUT_OF_MEMORY ? LSIM_ERR_OUT_OF_MEMORY : LSIM_ERR_ENGINE,
                     "OpenGL rasterizer: %s failed with %s (0x%x)", what, name, (unsigned)first);
}

/* The vertex shader places the object (view_model = world->camera x object->world, in double
 * on the CPU) and passes the camera-frame position; the fragment shader writes its length (the
 * range), the triangle's world normal from the per-triangle buffer (gl_PrimitiveID counts the
 * draw's triangles), the object id + 1 and the triangle index. */
static const char *const vertex_source =
    "#version 430 core\n"
    "layout(location = 0) in vec3 position;\n"
    "uniform mat4 view_model;\n"
    "uniform mat4 projection;\n"
    "out vec3 camera_position;\n"
    "void main() {\n"
    "    vec4 c = view_model * vec4(position, 1.0);\n"
    "    camera_position = c.xyz;\n"
    "    gl_Position = projection * c;\n"
    "}\n";

static const char *const fragment_source =
    "#version 430 core\n"
    "layout(std430, binding = 0) readonly buffer triangle_normals { float n[]; };\n"
    "uniform mat3 normal_model;\n"
    "uniform uint object_id;\n"
    "uniform uint first_triangle;\n"
    "in vec3 camera_position;\n"
    "layout(location = 0) out float out_range;\n"
    "layout(location = 1) out vec4 out_normal;\n"
    "layout(location = 2) out uint out_object;\n"
    "layout(location = 3) out uint out_primitive;\n"
    "void main() {\n"
    "    uint t = first_triangle + uint(gl_PrimitiveID);\n"
    "    out_range = length(camera_position);\n"
    "    out_normal = vec4(normal_model * vec3(n[3u * t], n[3u * t + 1u], n[3u * t + 2u]), 0.0);\n"
    "    out_object = object_id;\n"
    "    out_primitive = uint(gl_PrimitiveID);\n"
    "}\n";

lsim_status lsim_raster_gl_compile(lsim_raster_gl *gl, GLenum type, const char *what, const char *source, GLuint *out)
{
    GLuint s = gl->f.CreateShader(type);
    if (!s)
        return lsim_raster_gl_check(gl, "creating a shader") == LSIM_OK
                   ? lsim_fail(gl->ctx, LSIM_ERR_ENGINE, "OpenGL rasterizer: glCreateShader failed")
                   : LSIM_ERR_ENGINE;
    gl->f.ShaderSource(s, 1, &source, NULL);
    gl->f.CompileShader(s);
    GLint ok = 0;
    gl->f.GetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[2048] = "";
        gl->f.GetShaderInfoLog(s, sizeof log, NULL, log);
        gl->f.DeleteShader(s);
        return lsim_fail(gl->ctx, LSIM_ERR_ENGINE, "OpenGL rasterizer: the %s shader does not compile on %s: %s", what,
                         gl->describe, log);
    }
    *out = s;
    return LSIM_OK;
}

static lsim_status build_program(lsim_raster_gl *gl)
{
    GLuint vs = 0, fs = 0;
    lsim_status st = lsim_raster_gl_compile(gl, GL_VERTEX_SHADER, "vertex", vertex_source, &vs);
    if (st == LSIM_OK)
        st = lsim_raster_gl_compile(gl, GL_FRAGMENT_SHADER, "fragment", fragment_source, &fs);
    if (st != LSIM_OK) {
        if (vs)
            gl->f.DeleteShader(vs);
        return st;
    }
    gl->program = gl->f.CreateProgram();
    gl->f.AttachShader(gl->program, vs);
    gl->f.AttachShader(gl->program, fs);
    gl->f.LinkProgram(gl->program);
    gl->f.DeleteShader(vs); /* the program keeps them */
    gl->f.DeleteShader(fs);
    GLint ok = 0;
    gl->f.GetProgramiv(gl->program, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[1024] = "";
        gl->f.GetProgramInfoLog(gl->program, sizeof log, NULL, log);
        return lsim_fail(gl->ctx, LSIM_ERR_ENGINE, "OpenGL rasterizer: the shader program does not link: %s", log);
    }
    gl->u_view_model = gl->f.GetUniformLocation(gl->program, "view_model");
    gl->u_projection = gl->f.GetUniformLocation(gl->program, "projection");
    gl->u_normal_model = gl->f.GetUniformLocation(gl->program, "normal_model");
    gl->u_object = gl->f.GetUniformLocation(gl->program, "object_id");
    gl->u_first_triangle = gl->f.GetUniformLocation(gl->program, "first_triangle");
    return lsim_raster_gl_check(gl, "building the shader program");
}

lsim_status lsim_raster_gl_create(lsim_context *ctx, lsim_raster_gl **out)
{
    if (!out)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_raster_gl_create: out is NULL");
    *out = NULL;
    lsim_raster_gl *gl = calloc(1, sizeof *gl);
    if (!gl)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory creating the OpenGL rasterizer");
    gl->ctx = ctx;
    gl->display = EGL_NO_DISPLAY;
    gl->context = EGL_NO_CONTEXT;
    const char *how = "";
    gl->display = open_display(&gl->terminate_display, &how);
    if (gl->display == EGL_NO_DISPLAY) {
        EGLint e = eglGetError();
        free(gl);
        return lsim_fail(ctx, LSIM_ERR_ENGINE,
                         "OpenGL rasterizer: no EGL display without a window system (surfaceless, device or "
                         "default; last EGL error %s, 0x%x): %s",
                         egl_error_name(e), (unsigned)e, LSIM_RASTER_INSTALL);
    }
    lsim_status st = LSIM_OK;
    const char *display_ext = eglQueryString(gl->display, EGL_EXTENSIONS);
    if (!has_extension(display_ext, "EGL_KHR_surfaceless_context")) {
        st = lsim_fail(ctx, LSIM_ERR_ENGINE,
                       "OpenGL rasterizer: the EGL display (%s, vendor %s) lacks EGL_KHR_surfaceless_context: %s", how,
                       eglQueryString(gl->display, EGL_VENDOR), LSIM_RASTER_INSTALL);
        goto fail;
    }
    if (!eglBindAPI(EGL_OPENGL_API)) {
        EGLint e = eglGetError();
        st = lsim_fail(ctx, LSIM_ERR_ENGINE, "OpenGL rasterizer: eglBindAPI(EGL_OPENGL_API) failed (%s, 0x%x): %s",
                       egl_error_name(e), (unsigned)e, LSIM_RASTER_INSTALL);
        goto fail;
    }
    EGLConfig config = EGL_NO_CONFIG_KHR;
    if (!has_extension(display_ext, "EGL_KHR_no_config_context")) {
        const EGLint want[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
        EGLint n = 0;
        if (!eglChooseConfig(gl->display, want, &config, 1, &n) || n < 1) {
            EGLint e = eglGetError();
            st = lsim_fail(ctx, LSIM_ERR_ENGINE,
                           "OpenGL rasterizer: the EGL display (%s) has no OpenGL config (%s, 0x%x): %s", how,
                           egl_error_name(e), (unsigned)e, LSIM_RASTER_INSTALL);
            goto fail;
        }
    }
    const EGLint attrs[] = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 3,
                            EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    gl->context = eglCreateContext(gl->display, config, EGL_NO_CONTEXT, attrs);
    if (gl->context == EGL_NO_CONTEXT) {
        EGLint e = eglGetError();
        st = lsim_fail(ctx, LSIM_ERR_ENGINE,
                       "OpenGL rasterizer: no OpenGL 4.3 core context on the EGL display (%s, vendor %s; %s, 0x%x): "
                       "%s (Mesa >= 20 gives 4.5 on llvmpipe)",
                       how, eglQueryString(gl->display, EGL_VENDOR), egl_error_name(e), (unsigned)e,
                       LSIM_RASTER_INSTALL);
        goto fail;
    }
    if (!eglMakeCurrent(gl->display, EGL_NO_SURFACE, EGL_NO_SURFACE, gl->context)) {
        EGLint e = eglGetError();
        st = lsim_fail(ctx, LSIM_ERR_ENGINE, "OpenGL rasterizer: eglMakeCurrent with no surface failed (%s, 0x%x)",
                       egl_error_name(e), (unsigned)e);
        goto fail;
    }
    if ((st = load_functions(gl)) != LSIM_OK)
        goto fail;
    const char *version = (const char *)gl->f.GetString(GL_VERSION);
    const char *renderer = (const char *)gl->f.GetString(GL_RENDERER);
    snprintf(gl->describe, sizeof gl->describe, "OpenGL %s (%s) via EGL %s", version ? version : "?",
             renderer ? renderer : "?", how);
    if ((st = build_program(gl)) != LSIM_OK || (st = lsim_raster_gl_lookup_init(gl)) != LSIM_OK)
        goto fail;
    gl->f.GenVertexArrays(1, &gl->vao);
    gl->f.GenFramebuffers(1, &gl->fbo);
    if ((st = lsim_raster_gl_check(gl, "creating the vertex array and framebuffer")) != LSIM_OK)
        goto fail;
    *out = gl;
    return LSIM_OK;
fail:
    lsim_raster_gl_destroy(gl);
    return st;
}

void lsim_raster_gl_destroy(lsim_raster_gl *gl)
{
    if (!gl)
        return;
    if (gl->context != EGL_NO_CONTEXT && gl->f.GetError) {
        lsim_raster_gl_make_current(gl); /* another handle's context may be current */
        lsim_raster_gl_release_targets(gl);
        lsim_raster_gl_lookup_release(gl);
        GLuint buffers[3] = {gl->vertex_buffer, gl->index_buffer, gl->normal_buffer};
        gl->f.DeleteBuffers(3, buffers);
        if (gl->vao)
            gl->f.DeleteVertexArrays(1, &gl->vao);
        if (gl->fbo)
            gl->f.DeleteFramebuffers(1, &gl->fbo);
        if (gl->program)
            gl->f.DeleteProgram(gl->program);
    }
    if (gl->display != EGL_NO_DISPLAY) {
        eglMakeCurrent(gl->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        if (gl->context != EGL_NO_CONTEXT)
            eglDestroyContext(gl->display, gl->context);
        /* Without reference counting the display is shared by every handle of the process, so it
         * stays initialised (Mesa terminates its displays at exit). */
        if (gl->terminate_display)
            eglTerminate(gl->display);
        eglReleaseThread();
    }
    free(gl->draws);
    free(gl);
}

const char *lsim_raster_gl_describe(const lsim_raster_gl *gl)
{
    return gl ? gl->describe : "";
}
