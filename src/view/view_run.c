/* lidarsim view: the window, its input and the screenshot mode (view.h). GLFW makes the window
 * and its OpenGL 3.3 core context; view_gl.c draws; view_mesh.c builds what it draws. Each move
 * of the sensor re-scans the frame through the public API. No global state: the window's user
 * pointer holds the viewer. */
#define GLFW_INCLUDE_NONE 1
#include "view/view.h"

#include "core/clock.h"
#include "core/context.h"
#include "core/vec.h"
#include "output/atomic_file.h"
#include "pictures/png_rgb.h"
#include "sensor/sensor.h"
#include "view/view_camera.h"
#include "view/view_gl.h"
#include "view/view_mesh.h"

#include <GLFW/glfw3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MOVE_STEP_M 0.5
#define YAW_STEP_DEG 5.0
#define NO_DISPLAY_HELP                                                                                 \
    "run it on a desktop, set DISPLAY to a running X server (ssh -X), or run it under a virtual X server: " \
    "xvfb-run -a -s \"-screen 0 1024x768x24\" lidarsim view SCENE.yaml --screenshot out.png (Debian: apt-get install xvfb xauth)"

typedef struct viewer {
    lsim_context *ctx;
    const lsim_view_options *opt;
    lsim_scene *scene;
    lsim_sensor *sensor;
    lsim_points *frame;
    lsim_scan_options scan;
    double position[3], rpy[3]; /* the sensor's pose (lsim_sensor_set_pose) */
    lsim_view_buffer triangles, beams, points, axes, marker;
    lsim_view_gl *gl;
    lsim_view_camera cam;
    GLFWwindow *window;
    int show_beams, by_label, by_material;
    int button;            /* mouse button held: -1 none */
    double mouse_x, mouse_y;
    int rescan, recolour_scene, recolour_frame; /* work for the loop */
    lsim_status failed;    /* a rescan failed inside a callback: the loop stops with it */
} viewer;

void lsim_view_options_init(lsim_view_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->width = 1280;
    o->height = 800;
    o->max_beams = 5000;
}

static void print_help(void)
{
    printf("lidarsim view: left drag orbit, right drag pan, scroll zoom;\n"
           "  W/S forward/back, A/D left/right, Q/E up/down, Left/Right arrows yaw (the sensor moves and re-scans);\n"
           "  Space beams on/off, L points by label/intensity, M scene by material/label, Esc quit\n");
    fflush(stdout);
}

/* Scan the frame at the sensor's pose and rebuild the beams, points and sensor marker. */
static lsim_status scan_frame(viewer *v)
{
    lsim_status st = lsim_sensor_set_pose(v->sensor, v->position, v->rpy);
    double t0 = lsim_now_ms();
    if (st == LSIM_OK)
        st = lsim_scene_scan_into(v->scene, v->sensor, &v->scan, v->frame);
    double ms = lsim_now_ms() - t0;
    if (st == LSIM_OK)
        st = lsim_view_frame_arrays(v->ctx, v->frame, v->position, v->opt->max_beams, v->by_label, &v->beams,
                                    &v->points);
    if (st == LSIM_OK)
        st = lsim_view_sensor_axes(v->ctx, v->position, v->rpy, 1.0, &v->axes);
    if (st != LSIM_OK)
        return st;
    v->marker.count = 0;
    if (v->marker.cap == 0) {
        v->marker.v = calloc(1, sizeof *v->marker.v);
        if (!v->marker.v)
            return lsim_fail(v->ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for the sensor marker");
        v->marker.cap = 1;
    }
    lsim_view_vertex *m = &v->marker.v[v->marker.count++];
    memset(m, 0, sizeof *m);
    for (int k = 0; k < 3; ++k)
        m->p[k] = (float)v->position[k], m->c[k] = 1.0f;
    if (!v->opt->quiet && !v->opt->screenshot)
        printf("scan: %zu points in %.1f ms, sensor at (%.2f, %.2f, %.2f) yaw %.1f deg\n", lsim_points_count(v->frame),
               ms, v->position[0], v->position[1], v->position[2], v->rpy[2]);
    fflush(stdout);
    return LSIM_OK;
}

static void upload_frame(viewer *v)
{
    lsim_view_gl_upload(v->gl, LSIM_VIEW_BEAMS, &v->beams);
    lsim_view_gl_upload(v->gl, LSIM_VIEW_POINTS, &v->points);
    lsim_view_gl_upload(v->gl, LSIM_VIEW_AXES, &v->axes);
    lsim_view_gl_upload(v->gl, LSIM_VIEW_MARKER, &v->marker);
}

static lsim_status build_scene(viewer *v)
{
    v->triangles.count = 0;
    lsim_status st = lsim_view_scene_triangles(v->ctx, v->scene, v->by_material, &v->triangles);
    if (st == LSIM_OK && v->gl)
        lsim_view_gl_upload(v->gl, LSIM_VIEW_TRIANGLES, &v->triangles);
    return st;
}

static void draw(viewer *v, int width, int height)
{
    float mvp[16];
    double eye[3];
    lsim_view_camera_matrix(&v->cam, (double)width / (height > 0 ? height : 1), mvp);
    lsim_view_camera_eye(&v->cam, eye);
    lsim_view_gl_draw(v->gl, mvp, eye, width, height, v->show_beams);
}

/* ------------------------------------------------------------------ input */

static void move_sensor(viewer *v, double forward, double left, double up, double yaw_deg)
{
    double y = v->rpy[2] * LSIM_DEG;
    double d[3] = {forward * cos(y) - left * sin(y), forward * sin(y) + left * cos(y), up};
    for (int k = 0; k < 3; ++k) {
        v->position[k] += d[k];
        v->cam.target[k] += d[k]; /* the camera follows the sensor */
    }
    v->rpy[2] = fmod(v->rpy[2] + yaw_deg, 360.0);
    v->rescan = 1;
}

static void on_key(GLFWwindow *w, int key, int scancode, int action, int mods)
{
    (void)scancode, (void)mods;
    viewer *v = glfwGetWindowUserPointer(w);
    if (action != GLFW_PRESS && action != GLFW_REPEAT)
        return;
    switch (key) {
    case GLFW_KEY_ESCAPE: glfwSetWindowShouldClose(w, GLFW_TRUE); break;
    case GLFW_KEY_W: move_sensor(v, MOVE_STEP_M, 0, 0, 0); break;
    case GLFW_KEY_S: move_sensor(v, -MOVE_STEP_M, 0, 0, 0); break;
    case GLFW_KEY_A: move_sensor(v, 0, MOVE_STEP_M, 0, 0); break;
    case GLFW_KEY_D: move_sensor(v, 0, -MOVE_STEP_M, 0, 0); break;
    case GLFW_KEY_Q: move_sensor(v, 0, 0, MOVE_STEP_M, 0); break;
    case GLFW_KEY_E: move_sensor(v, 0, 0, -MOVE_STEP_M, 0); break;
    case GLFW_KEY_LEFT: move_sensor(v, 0, 0, 0, YAW_STEP_DEG); break;
    case GLFW_KEY_RIGHT: move_sensor(v, 0, 0, 0, -YAW_STEP_DEG); break;
    case GLFW_KEY_SPACE: v->show_beams = !v->show_beams; break;
    case GLFW_KEY_L: v->by_label = !v->by_label, v->recolour_frame = 1; break;
    case GLFW_KEY_M: v->by_material = !v->by_material, v->recolour_scene = 1; break;
    default: break;
    }
}

static void on_button(GLFWwindow *w, int button, int action, int mods)
{
    (void)mods;
    viewer *v = glfwGetWindowUserPointer(w);
    if (action == GLFW_PRESS && v->button < 0) {
        v->button = button;
        glfwGetCursorPos(w, &v->mouse_x, &v->mouse_y);
    } else if (action == GLFW_RELEASE && button == v->button) {
        v->button = -1;
    }
}

static void on_cursor(GLFWwindow *w, double x, double y)
{
    viewer *v = glfwGetWindowUserPointer(w);
    double dx = x - v->mouse_x, dy = y - v->mouse_y;
    v->mouse_x = x, v->mouse_y = y;
    int width, height;
    glfwGetWindowSize(w, &width, &height);
    if (v->button == GLFW_MOUSE_BUTTON_LEFT)
        lsim_view_camera_orbit(&v->cam, dx, dy);
    else if (v->button == GLFW_MOUSE_BUTTON_RIGHT || v->button == GLFW_MOUSE_BUTTON_MIDDLE)
        lsim_view_camera_pan(&v->cam, dx, dy, height);
}

static void on_scroll(GLFWwindow *w, double dx, double dy)
{
    (void)dx;
    viewer *v = glfwGetWindowUserPointer(w);
    lsim_view_camera_zoom(&v->cam, dy);
}

/* ------------------------------------------------------------------ window */

static lsim_status open_window(viewer *v)
{
    const char *x11 = getenv("DISPLAY"), *wayland = getenv("WAYLAND_DISPLAY");
    if ((!x11 || !*x11) && (!wayland || !*wayland))
        return lsim_fail(v->ctx, LSIM_ERR_IO, "no display: DISPLAY is not set (nor WAYLAND_DISPLAY); " NO_DISPLAY_HELP);
    if (!glfwInit()) {
        const char *why = NULL;
        glfwGetError(&why);
        return lsim_fail(v->ctx, LSIM_ERR_IO, "GLFW cannot open the display '%s' (%s); " NO_DISPLAY_HELP,
                         x11 && *x11 ? x11 : wayland, why ? why : "no reason given");
    }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_VISIBLE, v->opt->screenshot ? GLFW_FALSE : GLFW_TRUE);
    char title[512];
    snprintf(title, sizeof title, "lidarsim view - %s", v->opt->scene);
    v->window = glfwCreateWindow(v->opt->width, v->opt->height, title, NULL, NULL);
    if (!v->window) {
        const char *why = NULL;
        glfwGetError(&why);
        return lsim_fail(v->ctx, LSIM_ERR_IO,
                         "cannot make a %d x %d window with an OpenGL 3.3 core context (%s); install Mesa's "
                         "OpenGL driver (Debian: apt-get install libgl1-mesa-dri libglx-mesa0) or update the GPU driver",
                         v->opt->width, v->opt->height, why ? why : "no reason given");
    }
    glfwMakeContextCurrent(v->window);
    glfwSwapInterval(1);
    glfwSetWindowUserPointer(v->window, v);
    glfwSetKeyCallback(v->window, on_key);
    glfwSetMouseButtonCallback(v->window, on_button);
    glfwSetCursorPosCallback(v->window, on_cursor);
    glfwSetScrollCallback(v->window, on_scroll);
    return lsim_view_gl_create(v->ctx, &v->gl);
}

typedef struct png_rows {
    const unsigned char *rgb;
    uint32_t width;
} png_rows;

static void png_row(void *user, uint32_t y, unsigned char *rgb)
{
    const png_rows *r = user;
    memcpy(rgb, r->rgb + (size_t)y * r->width * 3, (size_t)r->width * 3);
}

static lsim_status screenshot(viewer *v)
{
    int w = v->opt->width, h = v->opt->height;
    unsigned char *rgb = malloc((size_t)w * (size_t)h * 3);
    if (!rgb)
        return lsim_fail(v->ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for a %d x %d screenshot; use a smaller --size",
                         w, h);
    lsim_status st = lsim_view_gl_offscreen(v->gl, v->ctx, w, h);
    if (st == LSIM_OK) {
        draw(v, w, h);
        lsim_view_gl_read_rgb(w, h, rgb);
        lsim_atomic_group g;
        lsim_atomic_begin(&g, v->ctx);
        FILE *fp;
        st = lsim_atomic_open(&g, v->opt->screenshot, &fp);
        png_rows rows = {rgb, (uint32_t)w};
        if (st == LSIM_OK)
            st = lsim_png_write_rgb8(v->ctx, fp, v->opt->screenshot, (uint32_t)w, (uint32_t)h, png_row, &rows);
        st = lsim_atomic_finish(&g, st);
    }
    free(rgb);
    return st;
}

static lsim_status interact(viewer *v)
{
    if (!v->opt->quiet) {
        printf("OpenGL renderer: %s\n", lsim_view_gl_renderer());
        fflush(stdout);
    }
    while (!glfwWindowShouldClose(v->window)) {
        lsim_status st = LSIM_OK;
        if (v->rescan || v->recolour_frame) {
            st = scan_frame(v);
            if (st == LSIM_OK)
                upload_frame(v);
            v->rescan = v->recolour_frame = 0;
        }
        if (st == LSIM_OK && v->recolour_scene) {
            st = build_scene(v);
            v->recolour_scene = 0;
        }
        if (st != LSIM_OK)
            return st;
        int w, h;
        glfwGetFramebufferSize(v->window, &w, &h);
        draw(v, w, h);
        glfwSwapBuffers(v->window);
        glfwWaitEvents();
    }
    return LSIM_OK;
}

/* The starting camera: --camera, else behind and above the sensor, looking at it. */
static void initial_camera(viewer *v)
{
    if (v->opt->has_camera) {
        lsim_view_camera_look(&v->cam, v->opt->eye, v->opt->target);
        return;
    }
    double yaw = (v->rpy[2] + 180.0 + 20.0) * LSIM_DEG, pitch = 60.0 * LSIM_DEG, r = 35.0;
    double eye[3] = {v->position[0] + r * cos(pitch) * cos(yaw), v->position[1] + r * cos(pitch) * sin(yaw),
                     v->position[2] + r * sin(pitch)};
    lsim_view_camera_look(&v->cam, eye, v->position);
}

/* The options' values in range; LSIM_OK or the message naming the field. */
static lsim_status check_options(lsim_context *ctx, const lsim_view_options *opt)
{
    if (!opt)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "view: no options given (lsim_view_options_init fills them)");
    if (!opt->scene || !*opt->scene)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "view: no scene file given (options.scene)");
    if (opt->screenshot && !*opt->screenshot)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "view: the screenshot path is empty (NULL: the window)");
    if (opt->width < 16 || opt->height < 16 || opt->width > 8192 || opt->height > 8192)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "size %d x %d is outside 16..8192 pixels a side",
                         opt->width, opt->height);
    if (opt->max_beams < 0 || opt->max_beams > 100000000L)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "view: max_beams %ld is outside 0..100000000",
                         opt->max_beams);
    if (opt->threads < 0 || opt->threads > 1024)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "view: threads %d is outside 0..1024 (0: all cores)",
                         opt->threads);
    const double *vec[3] = {opt->eye, opt->target, opt->sensor_position};
    for (int k = 0; k < 3; ++k)
        for (int i = 0; i < 3; ++i)
            if (!isfinite(vec[k][i]))
                return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "view: %s is not finite",
                                 k == 0 ? "eye" : k == 1 ? "target" : "sensor_position");
    if (!isfinite(opt->sensor_yaw_deg))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "view: sensor_yaw_deg is not finite");
    return LSIM_OK;
}

lsim_status lsim_view_run(lsim_context *ctx, const lsim_view_options *opt)
{
    if (!ctx)
        return LSIM_ERR_INVALID_ARGUMENT;
    lsim_status bad = check_options(ctx, opt);
    if (bad != LSIM_OK)
        return bad;
    viewer v;
    memset(&v, 0, sizeof v);
    v.ctx = ctx, v.opt = opt, v.button = -1;
    v.show_beams = !opt->hide_beams, v.by_label = opt->colour_by_label, v.by_material = opt->colour_by_material;
    lsim_scan_options_init(&v.scan);
    v.scan.threads = opt->threads;
    v.scan.frame = LSIM_FRAME_WORLD;
    v.scan.fields = LSIM_FIELD_BIT(LSIM_FIELD_X) | LSIM_FIELD_BIT(LSIM_FIELD_Y) | LSIM_FIELD_BIT(LSIM_FIELD_Z) |
                    LSIM_FIELD_BIT(LSIM_FIELD_INTENSITY) | LSIM_FIELD_BIT(LSIM_FIELD_LABEL);
    if (!opt->screenshot && !opt->quiet)
        print_help();
    lsim_status st = opt->screenshot ? lsim_atomic_check(ctx, opt->screenshot) : LSIM_OK;
    if (st == LSIM_OK)
        st = lsim_scene_load(ctx, opt->scene, &v.scene, &v.sensor);
    if (st == LSIM_OK) {
        memcpy(v.position, v.sensor->position, sizeof v.position);
        memcpy(v.rpy, v.sensor->rotation_deg, sizeof v.rpy);
        if (opt->has_sensor_position)
            memcpy(v.position, opt->sensor_position, sizeof v.position);
        if (opt->has_sensor_yaw)
            v.rpy[2] = opt->sensor_yaw_deg;
        initial_camera(&v);
        st = lsim_points_create(ctx, &v.frame);
    }
    if (st == LSIM_OK)
        st = scan_frame(&v);
    if (st == LSIM_OK)
        st = build_scene(&v);
    int glfw_up = 0;
    if (st == LSIM_OK) {
        st = open_window(&v);
        glfw_up = 1;
    }
    if (st == LSIM_OK) {
        lsim_view_gl_upload(v.gl, LSIM_VIEW_TRIANGLES, &v.triangles);
        upload_frame(&v);
        st = opt->screenshot ? screenshot(&v) : interact(&v);
    }
    lsim_view_gl_destroy(v.gl);
    if (v.window)
        glfwDestroyWindow(v.window);
    if (glfw_up)
        glfwTerminate();
    lsim_view_buffer_free(&v.triangles);
    lsim_view_buffer_free(&v.beams);
    lsim_view_buffer_free(&v.points);
    lsim_view_buffer_free(&v.axes);
    lsim_view_buffer_free(&v.marker);
    lsim_points_destroy(v.frame);
    lsim_sensor_destroy(v.sensor);
    lsim_scene_destroy(v.scene);
    if (st == LSIM_OK && opt->screenshot && !opt->quiet) {
        printf("wrote %s (%dx%d)\n", opt->screenshot, opt->width, opt->height);
        fflush(stdout);
    }
    return st;
}
