/* The viewer's orbit camera (view_camera.h). */
#include "view/view_camera.h"

#include "core/vec.h"

#include <math.h>
#include <string.h>

#define PITCH_MAX (89.0 * LSIM_DEG)

static double clamp(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

void lsim_view_camera_look(lsim_view_camera *cam, const double eye[3], const double target[3])
{
    double d[3] = {eye[0] - target[0], eye[1] - target[1], eye[2] - target[2]};
    double r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    memcpy(cam->target, target, sizeof cam->target);
    if (r < 1e-3) {
        cam->distance = 1e-3;
        cam->yaw = 0.0, cam->pitch = 0.0;
    } else {
        cam->distance = r;
        cam->yaw = atan2(d[1], d[0]);
        cam->pitch = clamp(asin(clamp(d[2] / r, -1.0, 1.0)), -PITCH_MAX, PITCH_MAX);
    }
    if (!(cam->fov_y > 0.0))
        cam->fov_y = 60.0 * LSIM_DEG;
}

void lsim_view_camera_eye(const lsim_view_camera *cam, double eye[3])
{
    eye[0] = cam->target[0] + cam->distance * cos(cam->pitch) * cos(cam->yaw);
    eye[1] = cam->target[1] + cam->distance * cos(cam->pitch) * sin(cam->yaw);
    eye[2] = cam->target[2] + cam->distance * sin(cam->pitch);
}

void lsim_view_camera_orbit(lsim_view_camera *cam, double dx, double dy)
{
    cam->yaw -= dx * 0.005;
    cam->pitch = clamp(cam->pitch + dy * 0.005, -PITCH_MAX, PITCH_MAX);
}

/* The camera's right and up axes in the world. */
static void axes(const lsim_view_camera *cam, lsim_vec3 *right, lsim_vec3 *up)
{
    lsim_vec3 back = lsim_v3(cos(cam->pitch) * cos(cam->yaw), cos(cam->pitch) * sin(cam->yaw), sin(cam->pitch));
    *right = lsim_v3_cross(lsim_v3(0, 0, 1), back);
    double n = lsim_v3_norm(*right);
    *right = n > 0 ? lsim_v3_scale(*right, 1.0 / n) : lsim_v3(0, 1, 0);
    *up = lsim_v3_cross(back, *right);
}

void lsim_view_camera_pan(lsim_view_camera *cam, double dx, double dy, double height)
{
    lsim_vec3 right, up;
    axes(cam, &right, &up);
    double metres_per_pixel = 2.0 * cam->distance * tan(cam->fov_y / 2) / (height > 1 ? height : 1);
    lsim_vec3 move = lsim_v3_add(lsim_v3_scale(right, -dx * metres_per_pixel), lsim_v3_scale(up, dy * metres_per_pixel));
    cam->target[0] += move.x, cam->target[1] += move.y, cam->target[2] += move.z;
}

void lsim_view_camera_zoom(lsim_view_camera *cam, double steps)
{
    cam->distance = clamp(cam->distance * pow(0.9, steps), 0.01, 1e5);
}

void lsim_view_camera_matrix(const lsim_view_camera *cam, double aspect, float out[16])
{
    double eye[3];
    lsim_view_camera_eye(cam, eye);
    lsim_vec3 right, up;
    axes(cam, &right, &up);
    lsim_vec3 back = lsim_v3_cross(right, up), e = lsim_v3(eye[0], eye[1], eye[2]);
    /* view: rows right, up, back; translation -R e */
    double v[4][4] = {{right.x, right.y, right.z, -lsim_v3_dot(right, e)},
                      {up.x, up.y, up.z, -lsim_v3_dot(up, e)},
                      {back.x, back.y, back.z, -lsim_v3_dot(back, e)},
                      {0, 0, 0, 1}};
    double near = clamp(cam->distance * 1e-3, 1e-3, 0.5), far = cam->distance * 20.0 + 2000.0;
    double f = 1.0 / tan(cam->fov_y / 2);
    double p[4][4] = {{f / (aspect > 0 ? aspect : 1), 0, 0, 0},
                      {0, f, 0, 0},
                      {0, 0, (far + near) / (near - far), 2 * far * near / (near - far)},
                      {0, 0, -1, 0}};
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r) {
            double s = 0;
            for (int k = 0; k < 4; ++k)
                s += p[r][k] * v[k][c];
            out[c * 4 + r] = (float)s;
        }
}
