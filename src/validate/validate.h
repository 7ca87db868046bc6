/* Validation of the calibrated noise against the real sensor (thesis §5.2-5.3, Fig. 5.1-5.4):
 * re-simulate each calibration setup (the board at its fitted pose, the sensor's own beam
 * angles, the same number of revolutions) and compare, per incidence-angle bin, the simulated
 * statistics with the real ones, for two models:
 *   calibrated  the material's calibration (noise/calibrated.h);
 *   BRDF-only   a plain parametric model (thesis §5.3): the material's configured BRDF through
 *               lidarsim's range equation and detection threshold, the sensor's parametric range
 *               noise, intensities in the sensor's scale (its binary value for a binary sensor,
 *               else brdf_scale x reflectivity).
 * Per bin: mean and std of intensity, drop rate (with its 95 % interval, lsim_valid_mode), range
 * std, and two-sample Kolmogorov-Smirnov tests of range residuals (p-value for the effective
 * number of independent returns: the real sensor repeats each beam's reading every revolution)
 * and intensities. Each real revolution is simulated LSIM_VALID_SIM_PASSES times. With hold-out,
 * the real odd half is also compared with the real even half by the same tests (the reference).
 *
 * A tool above the pipeline (DESIGN.md §6, layering; tests/test_layering.py): it drives the
 * simulator through the public multi-frame API (include/lidarsim.h), and reads scans and
 * calibrates with the calibration stage (src/calib). The one call below the public API is the
 * scene stage's lsim_scene_add_calibration, which takes a calibration held in memory. Files:
 * validate.c (the driver), simulate_setup.c (the simulated scans), compare_bins.c (the per-bin
 * statistics and scores), report.c (CSV, figure, verdict). */
#ifndef LSIM_VALIDATE_VALIDATE_H
#define LSIM_VALIDATE_VALIDATE_H

#include "calib/calibrate.h"

#include <stdio.h>

/* Statistics of one bin for one source (real, calibrated, BRDF-only). */
typedef struct lsim_valid_stats {
    size_t n, returns;
    double mean_intensity, std_intensity, std_range_m, drop_rate;
    double n_eff_range; /* independent range residuals: returns / Kish's design effect of their grouping by
                         * beam (1 + (sum n_beam^2 / returns - 1) x intraclass correlation) */
} lsim_valid_stats;

/* What a model is compared with, which sets the drop rate's interval (compare_bins.c). */
typedef enum lsim_valid_mode {
    LSIM_VALID_SAME_SCAN = 0, /* the scan it was calibrated on: inside the real bin's 95 % Wilson interval */
    LSIM_VALID_HOLDOUT,       /* the held-out half: the difference's 95 % interval (the real half's, the
                               * simulation's and the calibration half's sampling, square-and-add) */
    LSIM_VALID_REAL_HALVES    /* the real sensor against itself: odd half vs even half (two terms) */
} lsim_valid_mode;

typedef struct lsim_valid_bin {
    double angle_deg;
    lsim_valid_stats real, calibrated, brdf_only;
    double drop_lo, drop_hi;     /* the interval the model's drop rate must fall in (lsim_valid_mode) */
    double ks_range_d, ks_range_p;         /* calibrated vs real range residuals; p for the effective n */
    double ks_range_n_eff, ks_range_p_iid; /* the effective n, and p as if every return were independent */
    double ks_intensity_d, ks_intensity_p; /* calibrated vs real intensities */
} lsim_valid_bin;

typedef struct lsim_valid_material {
    lsim_calib_material calibration;
    size_t bin_count;
    lsim_valid_bin *bins;
    size_t drop_bins, drop_inside;   /* bins compared for drop rate / inside the real interval */
    size_t range_bins, range_within; /* bins with >= LSIM_VALID_MIN_RETURNS returns / within 20 % */
    double score_calibrated, score_brdf_only; /* mean normalised discrepancy to real (lower = closer) */
    size_t ks_tested, ks_rejected;   /* bins with a range KS test / rejected at 5 % (effective n) */
    size_t ks_rejected_iid;          /* rejected at 5 % as if every return were independent */
    size_t ks_rejected_brdf;         /* the BRDF-only model's range residuals rejected (effective n) */
    int holdout;                     /* 1: calibrated on even revolutions, compared with the odd ones */
    /* Hold-out only: the same comparison of the real sensor's odd half with its even half. */
    struct {
        int done;
        size_t drop_bins, drop_inside, range_bins, range_within, ks_tested, ks_rejected, ks_rejected_iid;
    } reference;
    size_t revolutions_used;         /* complete revolutions of the scan used */
    size_t beams_per_revolution;
    size_t beams_dropped;            /* beams of a trailing partial revolution, left out */
} lsim_valid_material;

/* validate simulates each real revolution this many times (frame indices r + k x revolutions):
 * the simulated statistics then estimate the model's own to within 1/sqrt(8) of the real scan's
 * sampling error, so a comparison tests the model rather than the luck of one simulated draw. */
#define LSIM_VALID_SIM_PASSES 8

/* Bins with fewer real returns than this are left out of the range-std comparison: the sampling
 * error of a std from n returns is about 1/sqrt(2n), 10 % at n = 50, too close to the 20 % limit. */
#define LSIM_VALID_MIN_RETURNS 100

typedef struct lsim_valid_options {
    lsim_calib_options calib;
    uint64_t seed;
    int threads;
    int holdout; /* 1: calibrate on the even revolutions, compare with the odd ones */
} lsim_valid_options;

/* Calibrate `in` from the even revolutions of its scan and validate against the odd ones (the
 * whole scan for both when it has a single revolution). Only complete revolutions are used (a
 * trailing partial one is left out and counted in out->beams_dropped); a scan with fewer than
 * LSIM_SCAN_MIN_BEAMS_PER_REVOLUTION beams per revolution is refused (LSIM_ERR_PARSE). */
lsim_status lsim_validate_input(lsim_context *ctx, const lsim_calib_input *in, const char *sensor,
                                const lsim_valid_options *opt, lsim_valid_material *out);
void lsim_valid_material_free(lsim_valid_material *v);

/* Write the per-bin rows of a material (header written when `header` is non-zero). */
void lsim_valid_write_csv(FILE *fp, const lsim_valid_material *v, int header);
/* The sim-vs-real figure of a material: a 2x2 grid (mean intensity, intensity std, drop rate with
 * the real 95 % intervals, range std) with the real, calibrated and BRDF-only series. */
lsim_status lsim_valid_plot(lsim_context *ctx, const lsim_valid_material *v, const char *path);
/* One line: the verdict and its numbers. */
void lsim_valid_verdict(const lsim_valid_material *v, char *out, size_t size);
/* 1 when the material meets the validation criteria: drop rate inside its 95 % interval
 * (lsim_valid_mode) in >= 90 % of bins, range std within 20 % in every compared bin, calibrated
 * closer than BRDF-only, and the range residuals' KS test (effective n) rejecting at 5 % in at
 * most 20 % of the tested bins (4x its nominal rate: the bins are not independent). */
int lsim_valid_passed(const lsim_valid_material *v);

#endif
