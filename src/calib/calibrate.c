/* Calibrating one material: board fit, incidence-angle bins, BRDF fit (calibrate.h). */
#include "calib/calibrate.h"

#include "calib/range_quant.h"

#include "core/context.h"
#include "core/text.h"
#include "core/vec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void lsim_calib_options_init(lsim_calib_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->bin_width_deg = LSIM_CALIB_DEFAULT_BIN_WIDTH_DEG;
    lsim_board_fit_options_init(&opt->fit);
}

static size_t bin_count(double w) { return (size_t)ceil(90.0 / w - 1e-9); }

size_t lsim_calib_bin_index(double angle_deg, double bin_width_deg)
{
    double a = fabs(angle_deg);
    size_t nb = bin_count(bin_width_deg);
    if (!(a < 90.0))
        return nb - 1;
    size_t k = (size_t)floor(a / bin_width_deg);
    return k < nb ? k : nb - 1;
}

double lsim_calib_bin_center(size_t index, double bin_width_deg)
{
    double lo = (double)index * bin_width_deg, hi = lo + bin_width_deg;
    return 0.5 * (lo + (hi < 90.0 ? hi : 90.0));
}

void lsim_calib_board_of(const lsim_calib_material *m, lsim_board_fit *fit)
{
    memset(fit, 0, sizeof *fit);
    fit->distance_m = m->fitted_distance_m;
    fit->normal_rad = m->normal_angle_rad;
    fit->band_m = m->band_m;
    fit->extent_min_m = m->board_offset_m - 0.5 * m->board_width_m;
    fit->extent_max_m = m->board_offset_m + 0.5 * m->board_width_m;
    fit->run_min_m = fit->extent_min_m;
    fit->run_max_m = fit->extent_max_m;
    fit->center_m = m->board_offset_m;
    fit->near_normal_median_m = NAN;
}

/* ------------------------------------------------------------------------------------------- */
/* Binning                                                                                      */

typedef struct acc {
    size_t n, returns, n_int;
    size_t n_half[2], drops_half[2]; /* below and from the bin's centre (lsim_calib_bin.drop_halves) */
    double sum_i, sum_r, m2_i, m2_r;
} acc;

lsim_status lsim_calibrate_scan(lsim_context *ctx, const lsim_calib_input *in, const lsim_scan_data *scan,
                                const lsim_calib_options *opt, lsim_calib_material *out, lsim_board_fit *fit_out)
{
    memset(out, 0, sizeof *out);
    const char *src = in->scan_path ? in->scan_path : in->name;
    if (!(opt->bin_width_deg >= 0.05 && opt->bin_width_deg <= 45.0))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "bin width %g deg is invalid; valid: 0.05 to 45 degrees",
                         opt->bin_width_deg);
    lsim_board_fit_options fo = opt->fit;
    fo.direction_rad = in->direction_deg * LSIM_DEG;
    fo.window_rad = in->window_deg * LSIM_DEG;
    fo.width_m = in->width_m;
    fo.source = src;
    lsim_board_fit fit;
    lsim_status st = lsim_board_fit_run(ctx, scan, &fo, &fit);
    if (st != LSIM_OK)
        return st;
    if (fit_out)
        *fit_out = fit;

    double w = opt->bin_width_deg;
    size_t nb = bin_count(w);
    /* Ranges on a grid: per bin, where the returns' true ranges fall within a step (range_quant.h). */
    const double step = lsim_scan_range_step(scan);
    acc *bins = calloc(nb, sizeof *bins);
    double *cells = step > 0.0 ? calloc(nb * LSIM_QUANT_CELLS, sizeof *cells) : NULL;
    if (!bins || (step > 0.0 && !cells)) {
        free(bins);
        free(cells);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory binning %s", src);
    }
    size_t outliers = 0;
    double reach_min = HUGE_VAL, reach_max = 0.0;
    for (int pass = 0; pass < 2; ++pass) {
        for (size_t i = 0; i < scan->count; ++i) {
            double psi, res;
            lsim_board_beam c = lsim_board_classify(&fit, scan, i, &psi, &res);
            if (c == LSIM_BOARD_OFF)
                continue;
            if (c == LSIM_BOARD_OUTLIER) {
                outliers += pass == 0;
                continue;
            }
            const size_t k = lsim_calib_bin_index(psi / LSIM_DEG, w);
            acc *b = &bins[k];
            double v = scan->intensity[i];
            if (pass == 0) {
                ++b->n;
                const int half = fabs(psi / LSIM_DEG) >= lsim_calib_bin_center(k, w);
                ++b->n_half[half];
                b->drops_half[half] += c == LSIM_BOARD_DROP;
                if (c == LSIM_BOARD_RETURN) {
                    ++b->returns;
                    b->sum_r += res;
                    reach_min = fmin(reach_min, scan->range_m[i]);
                    reach_max = fmax(reach_max, scan->range_m[i]);
                    if (cells) /* the true range: the reading less its residual */
                        cells[k * LSIM_QUANT_CELLS + lsim_quant_cell(scan->range_m[i] - res, step)] += 1.0;
                    if (isfinite(v)) {
                        ++b->n_int;
                        b->sum_i += v;
                    }
                }
            } else if (c == LSIM_BOARD_RETURN) {
                double dr = res - b->sum_r / (double)b->returns;
                b->m2_r += dr * dr;
                if (isfinite(v)) {
                    double di = v - b->sum_i / (double)b->n_int;
                    b->m2_i += di * di;
                }
            }
        }
    }
    size_t stored = 0;
    for (size_t k = 0; k < nb; ++k)
        stored += bins[k].n > 0;
    if (!stored) {
        free(bins);
        free(cells);
        return lsim_fail(ctx, LSIM_ERR_NOT_FOUND, "%s: material %s: no beams towards the board fell in any "
                         "incidence-angle bin (empty bins); check the board width and direction", src, in->name);
    }
    out->bins = calloc(stored, sizeof *out->bins);
    if (!out->bins) {
        free(bins);
        free(cells);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory binning %s", src);
    }
    for (size_t k = 0; k < nb; ++k) {
        const acc *b = &bins[k];
        if (!b->n)
            continue;
        lsim_calib_bin *o = &out->bins[out->bin_count++];
        o->angle_deg = lsim_calib_bin_center(k, w);
        o->n = b->n;
        o->mean_intensity = b->n_int ? b->sum_i / (double)b->n_int : 0.0;
        o->std_intensity = b->n_int > 1 ? sqrt(b->m2_i / (double)(b->n_int - 1)) : 0.0;
        o->std_range_m = b->returns > 1 ? sqrt(b->m2_r / (double)(b->returns - 1)) : 0.0;
        o->mean_range_m = b->returns ? b->sum_r / (double)b->returns : 0.0;
        o->drop_rate = (double)(b->n - b->returns) / (double)b->n;
        o->has_drop_halves = 1;
        for (int h = 0; h < 2; ++h)
            o->drop_halves[h] = b->n_half[h] ? (double)b->drops_half[h] / (double)b->n_half[h] : o->drop_rate;
        o->noise_mean_m = o->mean_range_m;
        o->noise_std_m = o->std_range_m;
        if (cells && b->returns > 1)
            lsim_quant_latent(cells + k * LSIM_QUANT_CELLS, step, o->mean_range_m, o->std_range_m * o->std_range_m,
                              &o->noise_mean_m, &o->noise_std_m);
    }
    free(bins);
    free(cells);
    out->range_resolution_m = step;
    out->noise_fitted = 1;
    out->reach_min_m = reach_min <= reach_max ? reach_min : 0.0;
    out->reach_max_m = reach_max;

    lsim_strlcpy(out->name, in->name, sizeof out->name);
    lsim_strlcpy(out->source, in->scan_path ? in->scan_path : "", sizeof out->source);
    out->configured_distance_m = in->distance_m;
    out->fitted_distance_m = fit.distance_m;
    out->normal_angle_rad = fit.normal_rad;
    out->configured_width_m = in->width_m;
    out->board_width_m = fit.extent_max_m - fit.extent_min_m;
    out->board_offset_m = 0.5 * (fit.extent_min_m + fit.extent_max_m);
    out->band_m = fit.band_m;
    out->outliers = outliers;
    out->revolutions = scan->revolutions;
    out->beams_per_revolution = scan->beams_per_revolution;
    out->bin_width_deg = w;
    out->brdf = in->brdf;
    out->brdf_configured = in->brdf;
    st = lsim_calib_fit_brdf(ctx, out);
    if (st != LSIM_OK)
        lsim_calib_material_free(out);
    return st;
}

lsim_status lsim_calibrate_input(lsim_context *ctx, const lsim_calib_input *in, const lsim_calib_options *opt,
                                 lsim_calib_material *out, lsim_board_fit *fit_out)
{
    memset(out, 0, sizeof *out);
    lsim_scan_data scan;
    lsim_status st = lsim_scan_read(ctx, in->scan_path, &scan);
    if (st != LSIM_OK)
        return st;
    st = lsim_calibrate_scan(ctx, in, &scan, opt, out, fit_out);
    lsim_scan_free(&scan);
    return st;
}
