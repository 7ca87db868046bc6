/* Viewer of calibration data (thesis §4.3.3): a top-down PNG of one material's calibration setup
 * in the sensor frame (x forward = up, y left = left): the sensor, the fitted board, and for
 * every incidence-angle bin the two beams that hit the board at +-angle, coloured by the bin's
 * mean intensity (viridis, colour bar with the min and max), faded by the drop rate and dashed
 * where more than half the beams dropped (grey and dashed: no return at all in the bin).
 *
 * The board is drawn centred on the foot of the perpendicular from the sensor (the calibration
 * stores no other offset); a beam at incidence theta meets the board line at range
 * fitted_distance_m / cos(theta), direction normal_angle_rad +- theta. The title gives the
 * material, the fitted and the configured distance; a dashed outline marks the board at the
 * configured distance when one was given.
 */
#ifndef LSIM_CALIB_CALIB_VIEW_H
#define LSIM_CALIB_CALIB_VIEW_H

#include "calib/calibration.h"
#include "pictures/plot_png.h"

#define LSIM_CALIB_VIEW_MIN_PIXELS 128
#define LSIM_CALIB_VIEW_MAX_PIXELS 8192

typedef enum lsim_calib_view_colour {
    LSIM_CALIB_VIEW_MEAN = 0,            /* mean_intensity: the mean over the returned beams */
    LSIM_CALIB_VIEW_MEAN_WITH_DROPS = 1  /* mean_intensity * (1 - drop_rate): drops counted as 0
                                          * (thesis's mean; tells more for a 0/47 sensor) */
} lsim_calib_view_colour;

/* Write the view of material m as a pixels x pixels PNG (LSIM_CALIB_VIEW_MIN_PIXELS..MAX_PIXELS),
 * atomically, coloured by LSIM_CALIB_VIEW_MEAN. LSIM_ERR_INVALID_ARGUMENT names the bad field
 * (fitted_distance_m not > 0, non-finite normal, bins NULL with bin_count > 0, ...); a material
 * without bins gives the board alone with "no bins". */
lsim_status lsim_calib_view_png(lsim_context *ctx, const lsim_calib_material *m, const char *path, int pixels);

/* The same with a choice of colouring. */
lsim_status lsim_calib_view_png_colour(lsim_context *ctx, const lsim_calib_material *m, const char *path,
                                       int pixels, lsim_calib_view_colour colour);

/* The view as `lidarsim calibrate --view` and `lidarsim validate` draw it (NAME_view.png): 900 px,
 * coloured by LSIM_CALIB_VIEW_MEAN_WITH_DROPS. */
lsim_status lsim_calib_view_write(lsim_context *ctx, const char *path, const lsim_calib_material *m);
/* Draw the view onto a canvas (any size >= LSIM_CALIB_VIEW_MIN_PIXELS each way), e.g. for tests. */
lsim_status lsim_calib_view_render(lsim_context *ctx, const lsim_calib_material *m, lsim_calib_view_colour colour,
                                   lsim_canvas *canvas);

/* Where lsim_calib_view_render draws the sensor-frame point (x, y) metres on a canvas of that
 * size for m: pixel column and row. Returns 0 when m is invalid. */
int lsim_calib_view_to_pixel(const lsim_calib_material *m, int width, int height, double x, double y, double *col,
                             double *row);

#endif
