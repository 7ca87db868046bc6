/* The viewer's orbit camera: a target point, a distance, a yaw and a pitch (z up), and the
 * matrices OpenGL needs (column-major floats). Plain math, no OpenGL. */
#ifndef LSIM_VIEW_VIEW_CAMERA_H
#define LSIM_VIEW_VIEW_CAMERA_H

typedef struct lsim_view_camera {
    double target[3];
    double distance;        /* metres from the target to the eye, > 0 */
    double yaw, pitch;      /* radians: the eye sits at target + distance * (cos p cos y, cos p sin y, sin p) */
    double fov_y;           /* vertical field of view, radians */
} lsim_view_camera;

/* A camera looking from eye at target (a distance of at least 1 mm). */
void lsim_view_camera_look(lsim_view_camera *cam, const double eye[3], const double target[3]);
/* The eye position. */
void lsim_view_camera_eye(const lsim_view_camera *cam, double eye[3]);
/* Orbit by a mouse drag of dx, dy pixels (pitch kept within +-89 degrees). */
void lsim_view_camera_orbit(lsim_view_camera *cam, double dx, double dy);
/* Pan: move the target in the view plane by a drag of dx, dy pixels of a window `height` high. */
void lsim_view_camera_pan(lsim_view_camera *cam, double dx, double dy, double height);
/* Zoom by scroll steps (positive: closer); the distance stays within 1 cm .. 100 km. */
void lsim_view_camera_zoom(lsim_view_camera *cam, double steps);
/* projection * view for a viewport of aspect width / height, column-major. */
void lsim_view_camera_matrix(const lsim_view_camera *cam, double aspect, float out[16]);

#endif
