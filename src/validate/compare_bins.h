/* validate's comparison: the real and the simulated scans of a setup, bin by bin. */
#ifndef LSIM_VALIDATE_COMPARE_BINS_H
#define LSIM_VALIDATE_COMPARE_BINS_H

#include "validate/validate.h"

/* Classify the beams of the three scans against the board of out->calibration, keep those that
 * fall in one of its incidence-angle bins, and fill out->bins (statistics, the interval the
 * drop rate must fall in for `mode`, KS tests), out->bin_count and the verdict's counts and
 * scores. `calibrated` is the calibrated simulation, or for LSIM_VALID_REAL_HALVES the other real
 * half (then brdf_only may be the same scan; its scores mean nothing). */
lsim_status lsim_valid_compare_bins(lsim_context *ctx, const lsim_scan_data *real, const lsim_scan_data *calibrated,
                                    const lsim_scan_data *brdf_only, lsim_valid_mode mode, lsim_valid_material *out);

#endif
