/* validate's outputs for one material: the per-bin CSV rows, the sim-vs-real figure and the
 * verdict (see validate/validate.h). */
#include "validate/validate.h"

#include "core/context.h"
#include "pictures/plot_png.h"

#include <stdlib.h>

void lsim_valid_write_csv(FILE *fp, const lsim_valid_material *v, int header)
{
    if (header)
        fputs("material,angle_deg,n_real,returns_real,n_sim,drop_real,drop_lo,drop_hi,drop_calibrated,"
              "drop_brdf_only,std_range_real,std_range_calibrated,std_range_brdf_only,mean_intensity_real,"
              "mean_intensity_calibrated,mean_intensity_brdf_only,std_intensity_real,std_intensity_calibrated,"
              "std_intensity_brdf_only,ks_range_d,ks_range_p,ks_intensity_d,ks_intensity_p,ks_range_n_eff,"
              "ks_range_p_iid\n",
              fp);
    for (size_t i = 0; i < v->bin_count; ++i) {
        const lsim_valid_bin *b = &v->bins[i];
        fprintf(fp,
                "%s,%.9g,%zu,%zu,%zu,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,"
                "%.9g,%.9g,%.9g,%.9g\n",
                v->calibration.name, b->angle_deg, b->real.n, b->real.returns, b->calibrated.n, b->real.drop_rate,
                b->drop_lo, b->drop_hi, b->calibrated.drop_rate, b->brdf_only.drop_rate, b->real.std_range_m,
                b->calibrated.std_range_m, b->brdf_only.std_range_m, b->real.mean_intensity,
                b->calibrated.mean_intensity, b->brdf_only.mean_intensity, b->real.std_intensity,
                b->calibrated.std_intensity, b->brdf_only.std_intensity, b->ks_range_d, b->ks_range_p,
                b->ks_intensity_d, b->ks_intensity_p, b->ks_range_n_eff, b->ks_range_p_iid);
    }
}

lsim_status lsim_valid_plot(lsim_context *ctx, const lsim_valid_material *v, const char *path)
{
    char title[160];
    snprintf(title, sizeof title, "%s: real vs simulated per incidence angle (fitted d = %.4f m)", v->calibration.name,
             v->calibration.fitted_distance_m);
    lsim_plot *p = NULL;
    lsim_status st = lsim_plot_grid(ctx, 1200, 900, 2, 2, title, &p);
    if (st != LSIM_OK)
        return st;
    size_t n = v->bin_count;
    double *x = malloc((n ? n : 1) * 12 * sizeof *x);
    if (!x) {
        lsim_plot_destroy(p);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory plotting '%s'", path);
    }
    double *y[11];
    for (int k = 0; k < 11; ++k)
        y[k] = x + (size_t)(k + 1) * (n ? n : 1);
    for (size_t i = 0; i < n; ++i) {
        const lsim_valid_bin *b = &v->bins[i];
        x[i] = b->angle_deg;
        y[0][i] = b->real.mean_intensity;
        y[1][i] = b->calibrated.mean_intensity;
        y[2][i] = b->brdf_only.mean_intensity;
        y[3][i] = b->real.std_intensity;
        y[4][i] = b->calibrated.std_intensity;
        y[5][i] = b->brdf_only.std_intensity;
        y[6][i] = b->real.drop_rate;
        y[7][i] = b->calibrated.drop_rate;
        y[8][i] = b->brdf_only.drop_rate;
        y[9][i] = b->drop_lo;
        y[10][i] = b->drop_hi;
    }
    static const char *const titles[4] = {"mean intensity", "intensity std", "drop rate (bars: the 95% interval)",
                                          "range std (m)"};
    unsigned char red[3], blue[3], grey[3] = {110, 110, 110};
    lsim_plot_palette(3, red);
    lsim_plot_palette(0, blue);
    for (int panel = 0; panel < 4 && st == LSIM_OK; ++panel) {
        st = lsim_plot_select(p, panel / 2, panel % 2);
        if (st == LSIM_OK)
            st = lsim_plot_set_labels(p, titles[panel], "incidence angle (deg)", NULL);
        if (st != LSIM_OK)
            break;
        if (panel < 3) {
            const double *real = y[3 * panel], *cal = y[3 * panel + 1], *brdf = y[3 * panel + 2];
            if (panel == 2)
                st = lsim_plot_add_series_err(p, "real", x, real, y[9], y[10], n, LSIM_PLOT_MARKERS, grey);
            else
                st = lsim_plot_add_series(p, "real", x, real, n, LSIM_PLOT_MARKERS, grey);
            if (st == LSIM_OK)
                st = lsim_plot_add_series(p, "calibrated", x, cal, n, LSIM_PLOT_BOTH, blue);
            if (st == LSIM_OK)
                st = lsim_plot_add_series(p, "BRDF-only", x, brdf, n, LSIM_PLOT_LINE, red);
        } else {
            double *r = malloc(3 * (n ? n : 1) * sizeof *r);
            if (!r) {
                st = lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory plotting '%s'", path);
                break;
            }
            for (size_t i = 0; i < n; ++i) {
                r[i] = v->bins[i].real.std_range_m;
                r[n + i] = v->bins[i].calibrated.std_range_m;
                r[2 * n + i] = v->bins[i].brdf_only.std_range_m;
            }
            st = lsim_plot_add_series(p, "real", x, r, n, LSIM_PLOT_MARKERS, grey);
            if (st == LSIM_OK)
                st = lsim_plot_add_series(p, "calibrated", x, r + n, n, LSIM_PLOT_BOTH, blue);
            if (st == LSIM_OK)
                st = lsim_plot_add_series(p, "BRDF-only", x, r + 2 * n, n, LSIM_PLOT_LINE, red);
            free(r);
        }
    }
    if (st == LSIM_OK)
        st = lsim_plot_write(p, path);
    free(x);
    lsim_plot_destroy(p);
    return st;
}

int lsim_valid_passed(const lsim_valid_material *v)
{
    return v->drop_bins > 0 && 10 * v->drop_inside >= 9 * v->drop_bins && v->range_within == v->range_bins &&
           v->score_calibrated < v->score_brdf_only && 5 * v->ks_rejected <= v->ks_tested;
}

void lsim_valid_verdict(const lsim_valid_material *v, char *out, size_t size)
{
    char reference[200] = "";
    if (v->reference.done)
        snprintf(reference, sizeof reference, "; the real sensor's odd vs even halves: drop rate %zu/%zu, range std "
                 "%zu/%zu, KS rejects %zu/%zu (as if independent %zu)", v->reference.drop_inside,
                 v->reference.drop_bins, v->reference.range_within, v->reference.range_bins, v->reference.ks_rejected,
                 v->reference.ks_tested, v->reference.ks_rejected_iid);
    snprintf(out, size,
             "%s: %s; drop rate inside the %s 95%% interval in %zu/%zu bins; range std within 20%% in %zu/%zu bins "
             "(>= %d returns); discrepancy calibrated %.3g vs BRDF-only %.3g (%s); KS (range, effective n) rejects at "
             "5%% in %zu/%zu bins (BRDF-only %zu; as if every return were independent: %zu); %s; fitted distance "
             "%.4f m (configured %.3f m)%s",
             v->calibration.name, lsim_valid_passed(v) ? "PASS" : "FAIL", v->holdout ? "hold-out" : "real",
             v->drop_inside, v->drop_bins, v->range_within, v->range_bins, LSIM_VALID_MIN_RETURNS,
             v->score_calibrated, v->score_brdf_only,
             v->score_calibrated < v->score_brdf_only ? "calibrated closer" : "BRDF-only closer", v->ks_rejected,
             v->ks_tested, v->ks_rejected_brdf, v->ks_rejected_iid,
             v->holdout ? "held out: calibrated on even revolutions, compared with odd" : "compared with the calibration scan",
             v->calibration.fitted_distance_m, v->calibration.configured_distance_m, reference);
}
