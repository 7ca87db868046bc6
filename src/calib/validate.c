/* lidarsim validate: calibrated and BRDF-only simulations of a calibration setup against the
 * real scan, bin by bin (see calib/validate.h). */
#include "calib/validate.h"

#include "calib/ks_test.h"
#include "core/context.h"
#include "core/vec.h"
#include "io/plot_png.h"
#include "points/points.h"
#include "scene/scene.h"
#include "sensor/sensor.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One classified beam that fell in a calibration bin. */
typedef struct beam_sample {
    size_t bin;           /* index into the material's bins */
    int returned;
    double residual, intensity;
} beam_sample;

typedef struct sample_set {
    beam_sample *s;
    size_t count;
} sample_set;

static int compare_bin(const void *a, const void *b)
{
    size_t x = ((const beam_sample *)a)->bin, y = ((const beam_sample *)b)->bin;
    return (x > y) - (x < y);
}

/* Position of the calibration bin whose range holds |psi|, or SIZE_MAX. */
static size_t bin_of(const lsim_calib_material *m, double psi_rad)
{
    size_t k = lsim_calib_bin_index(fabs(psi_rad) * 180.0 / LSIM_PI, m->bin_width_deg);
    double centre = lsim_calib_bin_center(k, m->bin_width_deg);
    for (size_t i = 0; i < m->bin_count; ++i)
        if (fabs(m->bins[i].angle_deg - centre) < 1e-9)
            return i;
    return SIZE_MAX;
}

/* Classify every beam of a scan against the board and keep those in a calibration bin. */
static lsim_status collect(lsim_context *ctx, const lsim_calib_material *m, const lsim_board_fit *fit,
                           const lsim_scan_data *scan, sample_set *out)
{
    out->s = malloc((scan->count ? scan->count : 1) * sizeof *out->s);
    out->count = 0;
    if (!out->s)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for %zu beams", scan->count);
    for (size_t i = 0; i < scan->count; ++i) {
        double psi, residual = 0.0;
        lsim_board_beam c = lsim_board_classify(fit, scan, i, &psi, &residual);
        if (c != LSIM_BOARD_RETURN && c != LSIM_BOARD_DROP)
            continue;
        size_t b = bin_of(m, psi);
        if (b == SIZE_MAX)
            continue;
        out->s[out->count++] = (beam_sample){b, c == LSIM_BOARD_RETURN, residual, scan->intensity[i]};
    }
    qsort(out->s, out->count, sizeof *out->s, compare_bin);
    return LSIM_OK;
}

/* Statistics of the samples of bin b (the set is sorted by bin; *first is advanced). */
static lsim_valid_stats stats_of(const sample_set *set, size_t b, size_t *first, double **range_out,
                                 double **intensity_out, size_t *returns_out)
{
    lsim_valid_stats st = {0, 0, NAN, NAN, NAN, NAN};
    size_t i = *first;
    while (i < set->count && set->s[i].bin < b)
        ++i;
    size_t lo = i;
    double si = 0, si2 = 0, sr = 0, sr2 = 0;
    size_t k = 0;
    for (; i < set->count && set->s[i].bin == b; ++i) {
        ++st.n;
        if (!set->s[i].returned)
            continue;
        double v = set->s[i].intensity, r = set->s[i].residual;
        si += v;
        si2 += v * v;
        sr += r;
        sr2 += r * r;
        if (range_out)
            (*range_out)[k] = r;
        if (intensity_out)
            (*intensity_out)[k] = v;
        ++k;
    }
    *first = i;
    st.returns = k;
    (void)lo;
    if (st.n)
        st.drop_rate = 1.0 - (double)k / (double)st.n;
    if (k >= 1)
        st.mean_intensity = si / k;
    if (k >= 2) {
        st.std_intensity = sqrt(fmax(0.0, (si2 - si * si / k) / (k - 1)));
        st.std_range_m = sqrt(fmax(0.0, (sr2 - sr * sr / k) / (k - 1)));
    }
    if (returns_out)
        *returns_out = k;
    return st;
}

/* The real scan's intensity when every return reads the same value (a binary sensor), else NaN. */
static double binary_value(const lsim_scan_data *scan)
{
    double v = NAN;
    for (size_t i = 0; i < scan->count; ++i) {
        if (!lsim_scan_returned(scan, i))
            continue;
        if (isnan(v))
            v = scan->intensity[i];
        else if (scan->intensity[i] != v)
            return NAN;
    }
    return v;
}

/* Simulate the setup: the board at its fitted pose, the scan's own beam angles, as many
 * revolutions as the real scan; the simulated beams as a scan (angle, range, intensity). */
static lsim_status simulate(lsim_context *ctx, const lsim_calib_material *m, const lsim_scan_data *real,
                            const char *sensor_name, int calibrated, const lsim_valid_options *opt,
                            lsim_scan_data *out)
{
    memset(out, 0, sizeof *out);
    /* Complete revolutions only: revolution r is the per_rev beams from r * per_rev (the caller
     * checked the structure and cut a trailing partial revolution; never index past count). */
    const size_t per_rev = real->beams_per_revolution, revs = lsim_scan_complete_revolutions(real);
    if (per_rev == 0 || revs == 0)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "the scan has no complete revolution to simulate (%zu beams, "
                         "%zu per revolution)", real->count, per_rev);
    lsim_scene *scene = NULL;
    lsim_sensor *sensor = NULL;
    double *az = malloc(per_rev * sizeof *az), *el = calloc(per_rev, sizeof *el);
    lsim_sensor_spec preset;
    lsim_sensor_spec_defaults(&preset);
    lsim_status st = (az && el) ? LSIM_OK : lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory");
    if (st == LSIM_OK)
        st = lsim_sensor_spec_from_preset(ctx, sensor_name, &preset);
    if (st == LSIM_OK)
        st = lsim_scene_create(ctx, &scene);
    if (st == LSIM_OK) {
        if (calibrated) {
            st = lsim_scene_add_calibration(scene, "board", m);
        } else { /* BRDF-only: the configured BRDF through the range equation */
            const lsim_brdf *b = &m->brdf_configured;
            lsim_material_desc d;
            lsim_material_desc_init(&d, (lsim_material_type)b->kind);
            d.reflectance = b->reflectance;
            d.roughness = b->roughness;
            d.ior = b->ior;
            d.f0 = b->f0;
            d.metallic = b->metallic;
            st = lsim_scene_add_material(scene, "board", &d);
        }
    }
    if (st == LSIM_OK) {
        /* The board: normal along phi, its extent centred board_offset_m along the line. The extent
         * ends at the last beams that hit it; each end is padded by half the spacing of beam hits
         * there, so a beam on the edge hits as it did, not by the luck of rounding. */
        const double phi = m->normal_angle_rad, d = m->fitted_distance_m;
        const double step = 2.0 * LSIM_PI / (double)per_rev;
        double lo = m->board_offset_m - 0.5 * m->board_width_m, hi = m->board_offset_m + 0.5 * m->board_width_m;
        double pad_lo = 0.5 * d * step / pow(cos(atan(fabs(lo) / d)), 2.0);
        double pad_hi = 0.5 * d * step / pow(cos(atan(fabs(hi) / d)), 2.0);
        lo -= pad_lo;
        hi += pad_hi;
        const double s = 0.5 * (lo + hi);
        lsim_object_desc o;
        lsim_object_desc_init(&o);
        o.material = "board";
        o.position[0] = d * cos(phi) - s * sin(phi);
        o.position[1] = d * sin(phi) + s * cos(phi);
        o.rotation_deg[1] = 90.0; /* plane x -> vertical, plane y -> along the line after the yaw */
        o.rotation_deg[2] = phi * 180.0 / LSIM_PI;
        const double size[2] = {1.0, hi - lo};
        st = lsim_scene_add_plane(scene, size, &o);
    }
    /* The real sensor's own reach: it reported returns nearer than its datasheet minimum. */
    double nearest = preset.range_min;
    for (size_t i = 0; i < real->count; ++i)
        if (lsim_scan_returned(real, i) && 0.9 * real->range_m[i] < nearest)
            nearest = 0.9 * real->range_m[i];
    if (st == LSIM_OK) {
        out->count = per_rev * revs;
        out->range_m = malloc(out->count * sizeof *out->range_m);
        out->intensity = malloc(out->count * sizeof *out->intensity);
        out->angle_rad = malloc(out->count * sizeof *out->angle_rad);
        out->revolutions = revs;
        out->beams_per_revolution = per_rev;
        if (!out->range_m || !out->intensity || !out->angle_rad)
            st = lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for %zu simulated beams", out->count);
    }
    const double binary = binary_value(real);
    const double zero[3] = {0, 0, 0};
    for (size_t r = 0; r < revs && st == LSIM_OK; ++r) {
        /* this revolution's own beam angles */
        for (size_t i = 0; i < per_rev; ++i)
            az[i] = lsim_wrap_angle(real->angle_rad[r * per_rev + i]) * 180.0 / LSIM_PI;
        lsim_sensor_destroy(sensor);
        sensor = NULL;
        st = lsim_sensor_create_pattern(ctx, per_rev, az, el, NULL, NULL, &sensor);
        if (st == LSIM_OK)
            st = lsim_sensor_set_pose(sensor, zero, zero);
        if (st == LSIM_OK)
            st = lsim_sensor_set_range(sensor, nearest, preset.range_max);
        if (st == LSIM_OK)
            st = lsim_sensor_set_noise(sensor, preset.range_sigma, preset.intensity_sigma,
                                       preset.detection_reflectance);
        if (st != LSIM_OK)
            break;
        sensor->spec.range_resolution = preset.range_resolution;
        lsim_scan_options so;
        lsim_scan_options_init(&so);
        so.seed = opt->seed;
        so.frame_index = (uint32_t)r;
        so.threads = opt->threads;
        so.keep_misses = 1;
        lsim_points *p = NULL;
        st = lsim_scene_scan(scene, sensor, &so, &p);
        if (st != LSIM_OK)
            break;
        if (lsim_points_count(p) != per_rev) { /* keep_misses: one point per beam */
            st = lsim_fail(ctx, LSIM_ERR_ENGINE, "the simulated revolution %zu has %zu points for %zu beams", r,
                           lsim_points_count(p), per_rev);
            lsim_points_destroy(p);
            break;
        }
        const float *range = lsim_points_column(p, LSIM_FIELD_RANGE);
        const float *in = lsim_points_column(p, LSIM_FIELD_INTENSITY);
        const float *refl = lsim_points_column(p, LSIM_FIELD_REFLECTIVITY);
        for (size_t i = 0; i < per_rev; ++i) {
            size_t k = r * per_rev + i;
            out->angle_rad[k] = real->angle_rad[k];
            int hit = range[i] > 0.0f;
            out->range_m[k] = hit ? range[i] : INFINITY;
            if (!hit)
                out->intensity[k] = 0.0;
            else if (calibrated)
                out->intensity[k] = in[i];
            else /* BRDF-only in the sensor's scale */
                out->intensity[k] = !isnan(binary) ? binary : m->brdf_scale * refl[i];
        }
        lsim_points_destroy(p);
    }
    if (st != LSIM_OK)
        lsim_scan_free(out);
    lsim_sensor_spec_free(&preset);
    lsim_sensor_destroy(sensor);
    lsim_scene_destroy(scene);
    free(az);
    free(el);
    return st;
}

/* Normalised discrepancy of a model's bin to the real one (lower = closer). */
static double discrepancy(const lsim_valid_stats *model, const lsim_valid_stats *real)
{
    double e = 0.0;
    if (real->n) {
        double p = real->drop_rate, sigma = sqrt(fmax(p * (1.0 - p), 0.0) / real->n);
        e += fabs(model->drop_rate - p) / fmax(sigma, 0.01);
    }
    if (real->returns >= LSIM_VALID_MIN_RETURNS && real->std_range_m > 0.0)
        e += fabs((isnan(model->std_range_m) ? 0.0 : model->std_range_m) - real->std_range_m) / real->std_range_m;
    if (real->returns >= 2) {
        double scale = fmax(real->std_intensity, 0.01 * fmax(fabs(real->mean_intensity), 1.0));
        double mi = isnan(model->mean_intensity) ? 0.0 : model->mean_intensity;
        double si = isnan(model->std_intensity) ? 0.0 : model->std_intensity;
        e += (fabs(mi - real->mean_intensity) + fabs(si - real->std_intensity)) / scale;
    }
    return e;
}

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

lsim_status lsim_validate_input(lsim_context *ctx, const lsim_calib_input *in, const char *sensor,
                                const lsim_valid_options *opt, lsim_valid_material *out)
{
    memset(out, 0, sizeof *out);
    lsim_scan_data real, cal_scan, brdf_scan;
    memset(&real, 0, sizeof real);
    memset(&cal_scan, 0, sizeof cal_scan);
    memset(&brdf_scan, 0, sizeof brdf_scan);
    sample_set sr = {0}, sc = {0}, sb = {0};
    double *buf = NULL;
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
    const lsim_calib_material *m = &out->calibration;
    if (st == LSIM_OK)
        st = simulate(ctx, m, &real, sensor, 1, opt, &cal_scan);
    if (st == LSIM_OK)
        st = simulate(ctx, m, &real, sensor, 0, opt, &brdf_scan);
    lsim_board_fit board;
    lsim_calib_board_of(m, &board);
    if (st == LSIM_OK)
        st = collect(ctx, m, &board, &real, &sr);
    if (st == LSIM_OK)
        st = collect(ctx, m, &board, &cal_scan, &sc);
    if (st == LSIM_OK)
        st = collect(ctx, m, &board, &brdf_scan, &sb);
    size_t most = sr.count > sc.count ? sr.count : sc.count;
    if (st == LSIM_OK) {
        out->bins = calloc(m->bin_count ? m->bin_count : 1, sizeof *out->bins);
        buf = malloc(4 * (most ? most : 1) * sizeof *buf);
        if (!out->bins || !buf)
            st = lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for the validation of '%s'", in->name);
    }
    if (st == LSIM_OK) {
        out->bin_count = m->bin_count;
        size_t fr = 0, fc = 0, fb = 0;
        double total_c = 0.0, total_b = 0.0;
        size_t scored = 0;
        for (size_t b = 0; b < m->bin_count; ++b) {
            lsim_valid_bin *v = &out->bins[b];
            double *rr = buf, *ri = buf + most, *cr = buf + 2 * most, *ci = buf + 3 * most;
            size_t nr = 0, nc = 0;
            v->angle_deg = m->bins[b].angle_deg;
            v->real = stats_of(&sr, b, &fr, &rr, &ri, &nr);
            v->calibrated = stats_of(&sc, b, &fc, &cr, &ci, &nc);
            v->brdf_only = stats_of(&sb, b, &fb, NULL, NULL, NULL);
            lsim_wilson_interval(v->real.n - v->real.returns, v->real.n, LSIM_Z95, &v->drop_lo, &v->drop_hi);
            lsim_ks_result ks;
            lsim_ks_two_sample(ctx, rr, nr, cr, nc, &ks);
            v->ks_range_d = ks.d;
            v->ks_range_p = ks.p;
            lsim_ks_two_sample(ctx, ri, nr, ci, nc, &ks);
            v->ks_intensity_d = ks.d;
            v->ks_intensity_p = ks.p;
            out->ks_tested += !isnan(v->ks_range_p);
            out->ks_rejected += !isnan(v->ks_range_p) && v->ks_range_p < 0.05;
            if (v->real.n) {
                ++out->drop_bins;
                out->drop_inside += v->calibrated.drop_rate >= v->drop_lo - 1e-12 &&
                                    v->calibrated.drop_rate <= v->drop_hi + 1e-12;
                total_c += discrepancy(&v->calibrated, &v->real);
                total_b += discrepancy(&v->brdf_only, &v->real);
                ++scored;
            }
            if (v->real.returns >= LSIM_VALID_MIN_RETURNS && v->real.std_range_m > 0.0) {
                ++out->range_bins;
                out->range_within += fabs(v->calibrated.std_range_m - v->real.std_range_m) <= 0.2 * v->real.std_range_m;
            }
        }
        out->score_calibrated = scored ? total_c / scored : NAN;
        out->score_brdf_only = scored ? total_b / scored : NAN;
    }
    free(buf);
    free(sr.s);
    free(sc.s);
    free(sb.s);
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

void lsim_valid_write_csv(FILE *fp, const lsim_valid_material *v, int header)
{
    if (header)
        fputs("material,angle_deg,n_real,returns_real,n_sim,drop_real,drop_lo,drop_hi,drop_calibrated,"
              "drop_brdf_only,std_range_real,std_range_calibrated,std_range_brdf_only,mean_intensity_real,"
              "mean_intensity_calibrated,mean_intensity_brdf_only,std_intensity_real,std_intensity_calibrated,"
              "std_intensity_brdf_only,ks_range_d,ks_range_p,ks_intensity_d,ks_intensity_p\n",
              fp);
    for (size_t i = 0; i < v->bin_count; ++i) {
        const lsim_valid_bin *b = &v->bins[i];
        fprintf(fp,
                "%s,%.9g,%zu,%zu,%zu,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,"
                "%.9g,%.9g\n",
                v->calibration.name, b->angle_deg, b->real.n, b->real.returns, b->calibrated.n, b->real.drop_rate,
                b->drop_lo, b->drop_hi, b->calibrated.drop_rate, b->brdf_only.drop_rate, b->real.std_range_m,
                b->calibrated.std_range_m, b->brdf_only.std_range_m, b->real.mean_intensity,
                b->calibrated.mean_intensity, b->brdf_only.mean_intensity, b->real.std_intensity,
                b->calibrated.std_intensity, b->brdf_only.std_intensity, b->ks_range_d, b->ks_range_p,
                b->ks_intensity_d, b->ks_intensity_p);
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
    static const char *const titles[4] = {"mean intensity", "intensity std", "drop rate (real: 95% interval)",
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
           v->score_calibrated < v->score_brdf_only;
}

void lsim_valid_verdict(const lsim_valid_material *v, char *out, size_t size)
{
    snprintf(out, size,
             "%s: %s; drop rate inside the real 95%% interval in %zu/%zu bins; range std within 20%% in %zu/%zu bins "
             "(>= %d returns); discrepancy calibrated %.3g vs BRDF-only %.3g (%s); KS (range) rejects at 5%% in "
             "%zu/%zu bins; %s; fitted distance %.4f m (configured %.3f m)",
             v->calibration.name, lsim_valid_passed(v) ? "PASS" : "FAIL", v->drop_inside, v->drop_bins,
             v->range_within, v->range_bins, LSIM_VALID_MIN_RETURNS, v->score_calibrated, v->score_brdf_only,
             v->score_calibrated < v->score_brdf_only ? "calibrated closer" : "BRDF-only closer", v->ks_rejected,
             v->ks_tested, v->holdout ? "held out: calibrated on even revolutions, compared with odd" : "compared with the calibration scan",
             v->calibration.fitted_distance_m, v->calibration.configured_distance_m);
}
