/* lidarsim validate: calibrated and BRDF-only simulations of a calibration setup against the
 * real scan, bin by bin (see validate/validate.h). The driver: read the scan, calibrate, simulate
 * the setup twice, compare. */
#include "validate/validate.h"

#include "core/context.h"
#include "validate/compare_bins.h"
#include "validate/simulate_setup.h"

#include <stdlib.h>
#include <string.h>

/* Beams of the even revolutions into `even`, of the odd ones into `odd` (a revolution is
 * beams_per_revolution consecutive beams). With fewer than 2 revolutions both get every beam. */
static lsim_status split_revolutions(lsim_context *ctx, const lsim_scan_data *full, lsim_scan_data *even,
                                     lsim_scan_data *odd)
{
    const size_t per = full->beams_per_revolution ? full->beams_per_revolution : full->count;
    const size_t revs = per ? full->count / per : 0;
    lsim_scan_data *parts[2] = {even, odd};
    for (int p = 0; p < 2; ++p) {
        size_t n = revs >= 2 ? ((revs + (size_t)(1 - p)) / 2) * per : full->count;
        memset(parts[p], 0, sizeof *parts[p]);
        parts[p]->range_m = malloc((n ? n : 1) * sizeof(double));
        parts[p]->intensity = malloc((n ? n : 1) * sizeof(double));
        parts[p]->angle_rad = malloc((n ? n : 1) * sizeof(double));
        if (!parts[p]->range_m || !parts[p]->intensity || !parts[p]->angle_rad)
            return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory splitting %zu beams", full->count);
        parts[p]->beams_per_revolution = per;
        parts[p]->format = full->format;
    }
    for (size_t i = 0; i < full->count; ++i) {
        size_t r = per ? i / per : 0;
        if (revs >= 2 && r >= revs)
            break; /* a trailing partial revolution */
        for (int p = 0; p < 2; ++p) {
            if (revs >= 2 && (int)(r % 2) != p)
                continue;
            lsim_scan_data *d = parts[p];
            d->range_m[d->count] = full->range_m[i];
            d->intensity[d->count] = full->intensity[i];
            d->angle_rad[d->count] = full->angle_rad[i];
            ++d->count;
        }
    }
    for (int p = 0; p < 2; ++p)
        parts[p]->revolutions = per ? parts[p]->count / per : 1;
    return LSIM_OK;
}

/* The reference of a hold-out: the real odd half against the real even half, by the same tests. */
static lsim_status compare_halves(lsim_context *ctx, const lsim_scan_data *odd, const lsim_scan_data *even,
                                  lsim_valid_material *out)
{
    lsim_valid_material ref;
    memset(&ref, 0, sizeof ref);
    lsim_status st = lsim_calib_material_copy(ctx, &out->calibration, &ref.calibration);
    if (st == LSIM_OK)
        st = lsim_valid_compare_bins(ctx, odd, even, even, LSIM_VALID_REAL_HALVES, &ref);
    if (st == LSIM_OK) {
        out->reference.done = 1;
        out->reference.drop_bins = ref.drop_bins;
        out->reference.drop_inside = ref.drop_inside;
        out->reference.range_bins = ref.range_bins;
        out->reference.range_within = ref.range_within;
        out->reference.ks_tested = ref.ks_tested;
        out->reference.ks_rejected = ref.ks_rejected;
        out->reference.ks_rejected_iid = ref.ks_rejected_iid;
    }
    lsim_valid_material_free(&ref);
    return st;
}

lsim_status lsim_validate_input(lsim_context *ctx, const lsim_calib_input *in, const char *sensor,
                                const lsim_valid_options *opt, lsim_valid_material *out)
{
    memset(out, 0, sizeof *out);
    lsim_scan_data real, cal_scan, brdf_scan;
    memset(&real, 0, sizeof real);
    memset(&cal_scan, 0, sizeof cal_scan);
    memset(&brdf_scan, 0, sizeof brdf_scan);
    lsim_board_fit fit;
    lsim_scan_data full, train;
    memset(&full, 0, sizeof full);
    memset(&train, 0, sizeof train);
    lsim_status st = lsim_scan_read(ctx, in->scan_path, &full);
    /* Only complete revolutions: a recording that stops mid-revolution loses its trailing partial
     * one (said in out->beams_dropped); a scan with no usable revolution structure is refused. */
    if (st == LSIM_OK)
        st = lsim_scan_check_revolutions(ctx, in->scan_path, &full);
    if (st == LSIM_OK) {
        out->beams_per_revolution = full.beams_per_revolution;
        out->revolutions_used = lsim_scan_complete_revolutions(&full);
        out->beams_dropped = full.count - out->revolutions_used * full.beams_per_revolution;
        full.count -= out->beams_dropped;
        full.revolutions = out->revolutions_used;
    }
    /* With hold-out: calibrate on the even revolutions, validate against the odd ones (the thesis
     * calibrates and compares on the same data; §6.2 names the overfitting). Without: the
     * calibration setup itself, as the thesis does. */
    if (st == LSIM_OK && opt->holdout) {
        st = split_revolutions(ctx, &full, &train, &real);
        out->holdout = st == LSIM_OK && train.count != full.count;
    } else if (st == LSIM_OK) {
        real = full; /* the one scan (freed once, below) */
        memset(&full, 0, sizeof full);
    }
    if (st == LSIM_OK)
        st = lsim_calibrate_scan(ctx, in, opt->holdout ? &train : &real, &opt->calib, &out->calibration, &fit);
    if (st == LSIM_OK)
        st = lsim_valid_simulate_setup(ctx, &out->calibration, &real, sensor, 1, opt, &cal_scan);
    if (st == LSIM_OK)
        st = lsim_valid_simulate_setup(ctx, &out->calibration, &real, sensor, 0, opt, &brdf_scan);
    if (st == LSIM_OK)
        st = lsim_valid_compare_bins(ctx, &real, &cal_scan, &brdf_scan,
                                     out->holdout ? LSIM_VALID_HOLDOUT : LSIM_VALID_SAME_SCAN, out);
    if (st == LSIM_OK && out->holdout)
        st = compare_halves(ctx, &real, &train, out);
    lsim_scan_free(&real);
    lsim_scan_free(&train);
    lsim_scan_free(&full);
    lsim_scan_free(&cal_scan);
    lsim_scan_free(&brdf_scan);
    if (st != LSIM_OK)
        lsim_valid_material_free(out);
    return st;
}

void lsim_valid_material_free(lsim_valid_material *v)
{
    lsim_calib_material_free(&v->calibration);
    free(v->bins);
    memset(v, 0, sizeof *v);
}
