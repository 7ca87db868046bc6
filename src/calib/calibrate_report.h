/* The reports of lsim_calibrate_run: `lidarsim calibrate`'s JSON and text summaries. */
#ifndef LSIM_CALIB_CALIBRATE_REPORT_H
#define LSIM_CALIB_CALIBRATE_REPORT_H

#include "calib/calibrate.h"

#include <stdio.h>

/* The JSON summary of a calibration and its board fits (one per material); `output` the
 * calibration file written (NULL: null). Numbers in their shortest exact form, NaN as null. */
void lsim_calibrate_print_json(FILE *out, const lsim_calibration *cal, const lsim_board_fit *fits, const char *output);
/* A material's text summary: the board, its extent, the bins, the reach and the BRDF fit. */
void lsim_calibrate_print_summary(FILE *out, const lsim_calib_material *m, const lsim_board_fit *f);

#endif
