/* Calibrated drop-outs against the real RPLIDAR boards (data/apollosim-rplidar, MIT, (c) 2023
 * Gavri Kepets; read from LSIM_DATA_DIR, the test fails without it), on bins other than the
 * calibration's own (issue 24: the real acrylic's drop rate rises from 1 % to 39 % between 60 and
 * 70 deg; the calibrated simulation put 5 % where the real board has 3.5 %).
 *
 * For every material: calibrate at the default 2 deg bins, re-simulate the setup as `validate`
 * does (the board at its fitted pose, the scan's beam angles, every revolution 8 times), classify
 * the real and the simulated beams against the same board, and compare the drop rates in 5 deg
 * bins (which straddle the 2 deg ones: 55-60 holds half of 54-56) and in 1 deg bins. A bin passes
 * when |sim - real| <= 3 sigma of the difference of two binomial proportions (pooled rate, the real
 * and the simulated counts), or 0.5 % when both are below that. Checked: every 5 deg bin of every
 * material, acrylic's 55-60, 60-65 and 65-70 by name, and at least 97 % of all 1 deg bins. Also
 * with hold-out (calibrated on the even revolutions, compared with the odd ones): every 5 deg bin
 * within 3 sigma of the three samples (train half, test half, simulation). */
#include "files.h"
#include "harness.h"

#include "calib/board_fit.h"
#include "calib/calib_config.h"
#include "calib/calibrate.h"
#include "calib/scan_read.h"
#include "core/vec.h"
#include "validate/simulate_setup.h"

#include <string.h>
#include <unistd.h>

#define MAX_BINS 90

typedef struct counts {
    size_t n[MAX_BINS], drops[MAX_BINS];
} counts;

/* Returns and drops of a scan's beams towards the board, by |incidence| in bins of `width` deg. */
static void count_beams(const lsim_board_fit *fit, const lsim_scan_data *scan, double width, counts *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < scan->count; ++i) {
        double psi;
        lsim_board_beam c = lsim_board_classify(fit, scan, i, &psi, NULL);
        if (c != LSIM_BOARD_RETURN && c != LSIM_BOARD_DROP)
            continue;
        size_t k = (size_t)floor(fabs(psi) / LSIM_DEG / width);
        if (k >= MAX_BINS)
            continue;
        ++out->n[k];
        out->drops[k] += c == LSIM_BOARD_DROP;
    }
}

static double rate(size_t d, size_t n) { return n ? (double)d / (double)n : 0.0; }

/* Wilson score interval of d drops in n beams at z = 3 (about 99.7 %). */
static void wilson3(size_t d, size_t n, double *lo, double *hi)
{
    const double z2 = 9.0, p = rate(d, n), nn = (double)n;
    double centre = (p + z2 / (2.0 * nn)) / (1.0 + z2 / nn);
    double half = 3.0 * sqrt(p * (1.0 - p) / nn + z2 / (4.0 * nn * nn)) / (1.0 + z2 / nn);
    *lo = fmax(0.0, centre - half);
    *hi = fmin(1.0, centre + half);
}

/* The 3-sigma limit of |simulated - real| (Newcombe's square-and-add of the Wilson intervals: the
 * real bin's, the simulation's and, with hold-out, the calibration half's, on the side the
 * difference lies). */
static double limit_of(const size_t *d, const size_t *n, size_t terms)
{
    double lo[3], hi[3], p[3];
    for (size_t t = 0; t < terms; ++t) {
        wilson3(d[t], n[t], &lo[t], &hi[t]);
        p[t] = rate(d[t], n[t]);
    }
    const int above = p[1] >= p[0]; /* simulated above real: the simulation's (and the training
                                       half's) low side, the real bin's high side */
    double w2 = above ? pow(p[1] - lo[1], 2) + pow(hi[0] - p[0], 2) : pow(hi[1] - p[1], 2) + pow(p[0] - lo[0], 2);
    if (terms == 3)
        w2 += above ? pow(p[2] - lo[2], 2) : pow(hi[2] - p[2], 2);
    return sqrt(w2);
}

/* Calibrate from `train`, simulate `test`'s revolutions, compare. Returns the 5 deg bins that failed. */
static size_t compare(lsim_context *ctx, const lsim_calib_input *in, const lsim_scan_data *train,
                      const lsim_scan_data *test, int holdout, size_t *fine_bins, size_t *fine_ok)
{
    lsim_calib_options copt;
    lsim_calib_options_init(&copt);
    lsim_calib_material m;
    REQUIRE_OK(ctx, lsim_calibrate_scan(ctx, in, train, &copt, &m, NULL));
    lsim_valid_options vopt;
    memset(&vopt, 0, sizeof vopt);
    vopt.calib = copt;
    vopt.seed = 1;
    lsim_scan_data sim;
    REQUIRE_OK(ctx, lsim_valid_simulate_setup(ctx, &m, test, "rplidar-a1", 1, &vopt, &sim));
    lsim_board_fit board;
    lsim_calib_board_of(&m, &board);
    /* The calibration's drop_halves are the drop rates of the bins' halves counted from the raw
     * beams: for 2 deg bins, the 1 deg bins 2k and 2k + 1 (an empty half holds the bin's rate). */
    counts halves;
    count_beams(&board, train, 1.0, &halves);
    for (size_t j = 0; j < m.bin_count; ++j) {
        const lsim_calib_bin *b = &m.bins[j];
        size_t k = lsim_calib_bin_index(b->angle_deg, m.bin_width_deg);
        CHECK(b->has_drop_halves);
        for (size_t h = 0; h < 2 && 2 * k + h < MAX_BINS; ++h)
            CHECK(b->drop_halves[h] == (halves.n[2 * k + h] ? rate(halves.drops[2 * k + h], halves.n[2 * k + h])
                                                            : b->drop_rate));
    }
    size_t failed = 0;
    for (int pass = 0; pass < 2; ++pass) {
        const double width = pass == 0 ? 5.0 : 1.0;
        counts cr, cs, ct;
        count_beams(&board, test, width, &cr);
        count_beams(&board, &sim, width, &cs);
        count_beams(&board, train, width, &ct);
        for (size_t k = 0; k < MAX_BINS; ++k) {
            if (!cr.n[k] || !cs.n[k])
                continue;
            double pr = rate(cr.drops[k], cr.n[k]), ps = rate(cs.drops[k], cs.n[k]);
            const size_t d3[3] = {cr.drops[k], cs.drops[k], ct.drops[k]}, n3[3] = {cr.n[k], cs.n[k], ct.n[k]};
            double limit = limit_of(d3, n3, holdout && ct.n[k] ? 3 : 2);
            int ok = fabs(ps - pr) <= limit;
            if (pass == 0) {
                if (pr > 0.0 || ps > 0.0)
                    printf("  %-8s %2.0f-%2.0f deg: real %6.2f %% (%4zu)  simulated %6.2f %% (%5zu)  |diff| %5.2f %% "
                           "limit %5.2f %%%s\n", in->name, (double)k * width, (double)(k + 1) * width, 100.0 * pr,
                           cr.n[k], 100.0 * ps, cs.n[k], 100.0 * fabs(ps - pr), 100.0 * limit, ok ? "" : "  FAIL");
                failed += !ok;
                CHECK(ok);
            } else {
                ++*fine_bins;
                *fine_ok += ok;
                if (!ok)
                    printf("  %-8s %2.0f-%2.0f deg (1 deg bin): real %6.2f %% simulated %6.2f %% limit %5.2f %%\n",
                           in->name, (double)k, (double)k + 1.0, 100.0 * pr, 100.0 * ps, 100.0 * limit);
            }
            /* Issue 24's bins by name, the real acrylic's rise between 55 and 70 deg (1.1 %, 3.5 %,
             * 38.5 %). Calibrated and compared on one scan, the model's rate in a bin made of whole
             * half-bins is the real one, so only the simulation's own sampling may separate them:
             * within 3 sigma of that (0.3, 0.6 and 1.5 points; 3.5 % read 4.9 % before). */
            if (pass == 0 && !holdout && strcmp(in->name, "acrylic") == 0 && k >= 11 && k <= 13) {
                double sigma_sim = sqrt(pr * (1.0 - pr) / (double)cs.n[k]);
                printf("  acrylic %2.0f-%2.0f deg: |simulated - real| %.2f points, 3 sigma of the simulation's "
                       "sampling %.2f\n", (double)k * width, (double)(k + 1) * width, 100.0 * fabs(ps - pr),
                       300.0 * sigma_sim);
                CHECK(ok);
                CHECK(fabs(ps - pr) <= 3.0 * sigma_sim);
            }
        }
    }
    lsim_scan_free(&sim);
    lsim_calib_material_free(&m);
    return failed;
}

/* The even (train) and odd (test) complete revolutions of a scan, as validate --holdout splits it. */
static void split(const lsim_scan_data *full, lsim_scan_data *even, lsim_scan_data *odd)
{
    size_t per = full->beams_per_revolution, revs = lsim_scan_complete_revolutions(full);
    lsim_scan_data *half[2] = {even, odd};
    for (int h = 0; h < 2; ++h) {
        memset(half[h], 0, sizeof *half[h]);
        size_t count = (revs + (h == 0)) / 2 * per;
        half[h]->range_m = malloc(count * sizeof(double) + 1);
        half[h]->intensity = malloc(count * sizeof(double) + 1);
        half[h]->angle_rad = malloc(count * sizeof(double) + 1);
        CHECK(half[h]->range_m && half[h]->intensity && half[h]->angle_rad);
    }
    for (size_t r = 0; r < revs; ++r) {
        lsim_scan_data *h = half[r % 2];
        memcpy(h->range_m + h->count, full->range_m + r * per, per * sizeof *h->range_m);
        memcpy(h->intensity + h->count, full->intensity + r * per, per * sizeof *h->intensity);
        memcpy(h->angle_rad + h->count, full->angle_rad + r * per, per * sizeof *h->angle_rad);
        h->count += per;
        ++h->revolutions;
    }
    even->beams_per_revolution = odd->beams_per_revolution = per;
}

int main(void)
{
    char config[1024];
    data_file(config, sizeof config, "test_calib_drop", "apollosim-rplidar/data.config");
    lsim_context *ctx;
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    lsim_calib_config cfg;
    REQUIRE_OK(ctx, lsim_calib_config_read(ctx, config, &cfg));
    CHECK(cfg.count == 5);
    size_t fine_bins = 0, fine_ok = 0, fine_bins_h = 0, fine_ok_h = 0;
    for (size_t i = 0; i < cfg.count; ++i) {
        lsim_scan_data scan;
        REQUIRE_OK(ctx, lsim_scan_read(ctx, cfg.inputs[i].scan_path, &scan));
        REQUIRE_OK(ctx, lsim_scan_check_revolutions(ctx, cfg.inputs[i].scan_path, &scan));
        scan.count = lsim_scan_complete_revolutions(&scan) * scan.beams_per_revolution;
        scan.revolutions = lsim_scan_complete_revolutions(&scan);
        printf("%s: calibrated and compared on the whole scan (5 deg bins with drops)\n", cfg.inputs[i].name);
        compare(ctx, &cfg.inputs[i], &scan, &scan, 0, &fine_bins, &fine_ok);
        lsim_scan_data even, odd;
        split(&scan, &even, &odd);
        printf("%s: hold-out, calibrated on %zu even revolutions, compared with %zu odd ones\n", cfg.inputs[i].name,
               even.revolutions, odd.revolutions);
        compare(ctx, &cfg.inputs[i], &even, &odd, 1, &fine_bins_h, &fine_ok_h);
        lsim_scan_free(&even);
        lsim_scan_free(&odd);
        lsim_scan_free(&scan);
    }
    printf("1 deg bins within 3 sigma: %zu of %zu (whole scans), %zu of %zu (hold-out)\n", fine_ok, fine_bins,
           fine_ok_h, fine_bins_h);
    /* 3 sigma over ~340 bins: about one may fall outside by chance; 99 % must be inside. */
    CHECK(fine_bins > 300 && (double)fine_ok >= 0.99 * (double)fine_bins);
    CHECK(fine_bins_h > 300 && (double)fine_ok_h >= 0.99 * (double)fine_bins_h);
    lsim_calib_config_free(&cfg);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_calib_drop");
}
