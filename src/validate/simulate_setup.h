/* The simulated scans of a calibration setup (validate's re-simulation, thesis §5.2). */
#ifndef LSIM_VALIDATE_SIMULATE_SETUP_H
#define LSIM_VALIDATE_SIMULATE_SETUP_H

#include "validate/validate.h"

/* Simulate the setup of material `m` as the real scan saw it: the board at its fitted pose, each
 * revolution with that revolution's own beam angles, as many complete revolutions as `real`, the
 * named sensor preset's range, noise and range resolution. `calibrated`: 1 the material's
 * calibration, 0 BRDF-only (its configured BRDF; intensities in the sensor's scale). The
 * simulated beams come back as a scan (angle, range, intensity; range inf and intensity 0 for a
 * miss), one beam per real beam; lsim_scan_free frees it (nothing to free on failure). */
lsim_status lsim_valid_simulate_setup(lsim_context *ctx, const lsim_calib_material *m, const lsim_scan_data *real,
                                      const char *sensor_name, int calibrated, const lsim_valid_options *opt,
                                      lsim_scan_data *out);

#endif
