/* Calibration without real data: a closed loop over synthetic scans of a board at a known pose
 * with known per-angle tables (drop rate, intensity mean/std, range std), continuous and binary
 * (0/47) intensity; the recovered bins must agree within sampling error, the fitted pose within
 * 1 mm and 0.2 deg, the fitted BRDF with the one that made the intensities. Then every kind of
 * bad input (malformed scan lines and dumps, a missing board, empty bins, bad configs and
 * calibration files): clear messages with file:line, no crash, no partial output. */
#include "harness.h"
#include "files.h"

#include "calib/board_fit.h"
#include "calib/calib_config.h"
#include "calib/calibrate.h"
#include "calib/calibration.h"
#include "calib/scan_read.h"
#include "core/rng.h"
#include "core/vec.h"
#include "lidarsim.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------------------- */
/* Synthetic scans                                                                              */

#define BEAMS 720
#define START_ANGLE -3.1241393089294434
#define ANGLE_STEP 0.008714509196579456

typedef struct truth {
    double d, phi, width;  /* board line and width (centred where the 180 deg beam meets it) */
    int binary;            /* intensity 47 for every return (RPLIDAR) */
    lsim_brdf brdf;        /* continuous: mean intensity = scale pi f_r cos */
    double scale, rel_std; /* intensity std = rel_std * mean */
    double outliers;       /* fraction of board beams replaced by an occluder's return */
    size_t revolutions;
    uint64_t seed;
} truth;

static double drop_table(double deg)
{
    double p = deg < 20.0 ? 0.02 : 0.02 + 0.6 * pow((deg - 20.0) / 40.0, 2.0);
    return p > 0.95 ? 0.95 : p;
}

static double range_std_table(double deg) { return 0.002 + 0.008 * pow(deg / 60.0, 2.0); }

static double mean_table(const truth *t, double deg)
{
    if (t->binary)
        return 47.0;
    double c = cos(deg * LSIM_DEG);
    return t->scale * LSIM_PI * lsim_brdf_backscatter(&t->brdf, c) * c;
}

/* Signed incidence of beam angle a on the true board, or NAN when the beam misses it. */
static double board_psi(const truth *t, double a)
{
    double psi = lsim_wrap_angle(a - t->phi);
    if (!(fabs(psi) < 85.0 * LSIM_DEG))
        return NAN;
    double s = t->d * tan(psi), c = t->d * tan(lsim_wrap_angle(LSIM_PI - t->phi));
    return fabs(s - c) <= 0.5 * t->width ? psi : NAN;
}

static void make_scan(const truth *t, lsim_scan_data *s)
{
    memset(s, 0, sizeof *s);
    s->count = t->revolutions * BEAMS;
    s->range_m = malloc(s->count * sizeof(double));
    s->intensity = malloc(s->count * sizeof(double));
    s->angle_rad = malloc(s->count * sizeof(double));
    if (!s->range_m || !s->intensity || !s->angle_rad)
        exit(1);
    s->revolutions = t->revolutions;
    s->beams_per_revolution = BEAMS;
    for (size_t rev = 0; rev < t->revolutions; ++rev)
        for (size_t i = 0; i < BEAMS; ++i) {
            size_t id = rev * BEAMS + i;
            double a = START_ANGLE + (double)i * ANGLE_STEP;
            lsim_u32x4 w = lsim_rng_words(t->seed, 1, id, 0);
            double u_drop = lsim_u32_to_open01(w.v[0], w.v[1]), u_out = lsim_u32_to_open01(w.v[2], w.v[3]);
            double n_range = lsim_rng_normal(t->seed, 2, id, 0), n_int = lsim_rng_normal(t->seed, 3, id, 0);
            double psi = board_psi(t, a), r, v;
            if (isnan(psi)) { /* background: a round room of radius 3 m */
                r = 3.0 + 0.01 * n_range;
                v = t->binary ? 47.0 : 20.0;
            } else {
                double deg = fabs(psi) / LSIM_DEG;
                double mu = mean_table(t, deg);
                if (u_out < t->outliers) {
                    r = 0.5 * t->d / cos(psi); /* something in front of the board */
                    v = t->binary ? 47.0 : mu;
                } else if (u_drop < drop_table(deg)) {
                    r = INFINITY;
                    v = 0.0;
                } else {
                    r = t->d / cos(psi) + range_std_table(deg) * n_range;
                    v = t->binary ? 47.0 : fmax(0.0, mu * (1.0 + t->rel_std * n_int));
                }
            }
            s->angle_rad[id] = a;
            s->range_m[id] = r;
            s->intensity[id] = v;
        }
}

/* Expected bin statistics: the tables at each beam's true incidence, averaged over the beams that
 * the fitted normal puts in a bin (a beam within a hair of a bin edge may fall on either side). */
typedef struct expect { double n, p, var_r, mu, var_i, mu2; } expect;

static void expected_bins(const truth *t, double fitted_phi, double bin_width, expect *e, size_t nb)
{
    memset(e, 0, nb * sizeof *e);
    for (size_t i = 0; i < BEAMS; ++i) {
        double a = START_ANGLE + (double)i * ANGLE_STEP;
        double psi = board_psi(t, a);
        if (isnan(psi))
            continue;
        double deg = fabs(psi) / LSIM_DEG;
        size_t k = lsim_calib_bin_index(fabs(lsim_wrap_angle(a - fitted_phi)) / LSIM_DEG, bin_width);
        if (k >= nb)
            continue;
        double sr = range_std_table(deg), mu = mean_table(t, deg);
        e[k].n += 1.0;
        e[k].p += drop_table(deg);
        e[k].var_r += sr * sr;
        e[k].mu += mu;
        e[k].var_i += t->binary ? 0.0 : pow(t->rel_std * mu, 2.0);
        e[k].mu2 += mu * mu;
    }
    for (size_t k = 0; k < nb; ++k)
        if (e[k].n > 0.0) {
            e[k].p /= e[k].n;
            e[k].var_r /= e[k].n;
            e[k].mu /= e[k].n;
            e[k].var_i /= e[k].n;
            e[k].mu2 /= e[k].n;
            e[k].var_i += fmax(0.0, e[k].mu2 - e[k].mu * e[k].mu); /* the mean changes within the bin */
        }
}

static void closed_loop(lsim_context *ctx, const char *label, const truth *t)
{
    lsim_scan_data scan;
    make_scan(t, &scan);
    lsim_calib_input in;
    lsim_calib_input_init(&in);
    snprintf(in.name, sizeof in.name, "%s", label);
    in.width_m = t->width;
    in.distance_m = t->d + 0.07; /* a hand measurement that is off, as in the thesis */
    in.brdf = t->brdf;
    in.brdf.roughness = t->brdf.kind == LSIM_BRDF_COOK_TORRANCE ? 0.8 : 0.1; /* a wrong starting guess */
    lsim_calib_options opt;
    lsim_calib_options_init(&opt);
    lsim_calib_material m;
    lsim_board_fit fit;
    REQUIRE_OK(ctx, lsim_calibrate_scan(ctx, &in, &scan, &opt, &m, &fit));
    printf("%s: d %.5f (true %.5f), normal %.3f deg (true %.3f), %zu returns, %zu outliers, %zu bins, brdf %s "
           "roughness %.4f f0 %.4f scale %.3f rms %.4f\n", label, m.fitted_distance_m, t->d,
           m.normal_angle_rad / LSIM_DEG, t->phi / LSIM_DEG, fit.inliers, m.outliers, m.bin_count,
           lsim_brdf_kind_name(m.brdf.kind), m.brdf.roughness, m.brdf.f0, m.brdf_scale, m.brdf_rms);
    CHECK_NEAR(m.fitted_distance_m, t->d, 0.001);
    CHECK_NEAR(lsim_wrap_angle(m.normal_angle_rad - t->phi) / LSIM_DEG, 0.0, 0.2);
    CHECK_NEAR(m.configured_distance_m, t->d + 0.07, 1e-12);
    CHECK(m.revolutions == t->revolutions && m.beams_per_revolution == BEAMS);
    CHECK_NEAR(m.board_width_m, t->width, 0.01);
    CHECK(!fit.clipped);
    if (t->outliers > 0.0)
        CHECK(m.outliers > 0);

    size_t nb = (size_t)ceil(90.0 / opt.bin_width_deg);
    expect e[64];
    expected_bins(t, m.normal_angle_rad, opt.bin_width_deg, e, nb);
    size_t checked = 0, bad_p = 0, bad_r = 0, bad_i = 0;
    for (size_t j = 0; j < m.bin_count; ++j) {
        const lsim_calib_bin *b = &m.bins[j];
        size_t k = lsim_calib_bin_index(b->angle_deg, opt.bin_width_deg);
        CHECK(k < nb && e[k].n > 0.0);
        if (!(k < nb && e[k].n > 0.0))
            continue;
        double n = (double)b->n, ret = n * (1.0 - b->drop_rate);
        /* Edge bins where the fitted extent cuts a beam differently are skipped by the n check. */
        if (n < 0.9 * e[k].n * (double)t->revolutions * (1.0 - t->outliers) || ret < 30.0)
            continue;
        ++checked;
        /* Drop rate within 3 binomial sigmas; over ~25 bins one may stray by chance (p = 0.0027 each),
         * so one bin beyond 3 sigmas is allowed, none beyond 4. */
        double sp = sqrt(e[k].p * (1.0 - e[k].p) / n), dev = fabs(b->drop_rate - e[k].p);
        if (!(dev <= 3.0 * sp + 1e-9)) {
            bad_p += dev <= 4.0 * sp ? 1 : 100;
            fprintf(stderr, "%s bin %.0f: drop rate %.4f, expected %.4f +- %.4f (3 sigma)\n", label, b->angle_deg,
                    b->drop_rate, e[k].p, 3.0 * sp);
        }
        /* Standard deviations: within 15%, where that is at least 3.5 sampling sigmas (300 returns). */
        double sr = sqrt(e[k].var_r);
        if (ret >= 300.0 && !(fabs(b->std_range_m - sr) <= 0.15 * sr)) {
            ++bad_r;
            fprintf(stderr, "%s bin %.0f: std range %.5f, expected %.5f (15%%)\n", label, b->angle_deg,
                    b->std_range_m, sr);
        }
        double si = sqrt(e[k].var_i);
        if (t->binary) {
            CHECK(b->mean_intensity == 47.0 && b->std_intensity == 0.0);
        } else if (!(fabs(b->mean_intensity - e[k].mu) <= 4.0 * si / sqrt(ret) + 0.002 * e[k].mu &&
                     (ret < 300.0 || fabs(b->std_intensity - si) <= 0.15 * si))) {
            ++bad_i;
            fprintf(stderr, "%s bin %.0f: intensity %.3f +- %.3f, expected %.3f +- %.3f\n", label, b->angle_deg,
                    b->mean_intensity, b->std_intensity, e[k].mu, si);
        }
    }
    printf("%s: %zu bins checked against the tables\n", label, checked);
    CHECK(checked >= 15);
    CHECK(bad_p <= 1);
    CHECK(bad_r == 0);
    CHECK(bad_i == 0);

    /* The fitted BRDF reproduces the intensities that made the data (continuous case): the model at
     * a bin's centre against the true mean over that bin's beams. */
    if (!t->binary) {
        double worst = 0.0;
        for (size_t j = 0; j < m.bin_count; ++j) {
            size_t k = lsim_calib_bin_index(m.bins[j].angle_deg, opt.bin_width_deg);
            if (m.bins[j].drop_rate > 0.9 || !(k < nb && e[k].n > 0.0))
                continue;
            double truth_mu = e[k].mu;
            worst = fmax(worst, fabs(lsim_calib_brdf_intensity(&m, m.bins[j].angle_deg) - truth_mu) / truth_mu);
        }
        printf("%s: fitted BRDF within %.2f%% of the true mean intensity over the measured angles\n", label,
               100.0 * worst);
        CHECK(worst < 0.02);
        if (t->brdf.kind == LSIM_BRDF_OREN_NAYAR)
            CHECK_NEAR(m.brdf.roughness, t->brdf.roughness, 0.05);
        if (t->brdf.kind == LSIM_BRDF_COOK_TORRANCE) {
            CHECK_NEAR(m.brdf.roughness, t->brdf.roughness, 0.05);
            CHECK_NEAR(m.brdf.f0, t->brdf.f0, 0.05);
        }
        CHECK(m.brdf_configured.roughness == in.brdf.roughness);
    }

    /* Lookup: interpolation inside the measured range, the BRDF outside it. */
    lsim_calib_bin q;
    const lsim_calib_bin *b0 = &m.bins[0], *b1 = &m.bins[1];
    /* Inside a bin: its value at the centre; across the bin the slope-limited line averages to
     * the bin's value and never leaves the range of the bin and its neighbours. The drop rate does
     * the same on the grid of half-bins (drop_halves: the rates below and from the centre, whose
     * beam-weighted mean is the bin's rate). */
    CHECK(lsim_calib_lookup(&m, b1->angle_deg, &q) == 1);
    CHECK(b1->has_drop_halves);
    CHECK(b1->drop_rate >= fmin(b1->drop_halves[0], b1->drop_halves[1]) - 1e-12 &&
          b1->drop_rate <= fmax(b1->drop_halves[0], b1->drop_halves[1]) + 1e-12);
    CHECK_NEAR(q.std_range_m, b1->std_range_m, 1e-12);
    if (m.bin_count > 2) {
        const lsim_calib_bin *b2 = &m.bins[2];
        const int steps = 1000;
        for (int h = 0; h < 2; ++h) {
            double avg = 0.0;
            /* the half's neighbours: the bin's other half and the adjacent bin's nearer half */
            double nb = h ? b2->drop_halves[0] : b0->drop_halves[1], other = b1->drop_halves[1 - h];
            double lo = fmin(b1->drop_halves[h], fmin(nb, other)), hi = fmax(b1->drop_halves[h], fmax(nb, other));
            for (int k = 0; k < steps; ++k) {
                double a = b1->angle_deg + 0.5 * m.bin_width_deg * (h - 1 + (k + 0.5) / steps);
                CHECK(lsim_calib_lookup(&m, a, &q) == 1);
                avg += q.drop_rate / steps;
                CHECK(q.drop_rate >= lo - 1e-12 && q.drop_rate <= hi + 1e-12);
            }
            CHECK_NEAR(avg, b1->drop_halves[h], 1e-9);
        }
    }
    CHECK(lsim_calib_lookup(&m, -b0->angle_deg, &q) == 1); /* the sign of the angle does not matter */
    CHECK_NEAR(q.mean_intensity, b0->mean_intensity, 1e-12);
    const lsim_calib_bin *last = &m.bins[m.bin_count - 1];
    CHECK(lsim_calib_lookup(&m, 89.0, &q) == 0); /* beyond the last bin: its upper half's rate */
    CHECK_NEAR(q.drop_rate, last->drop_halves[1], 1e-12);
    /* outside: the fitted BRDF's intensity, or the one value of a sensor whose intensity never varied */
    int varies = 0;
    double constant = -1.0;
    for (size_t k = 0; k < m.bin_count; ++k) {
        if (m.bins[k].drop_rate >= 1.0)
            continue;
        varies |= m.bins[k].std_intensity > 0.0 || (constant >= 0.0 && m.bins[k].mean_intensity != constant);
        constant = m.bins[k].mean_intensity;
    }
    CHECK_NEAR(q.mean_intensity, varies ? lsim_calib_brdf_intensity(&m, 89.0) : constant, 1e-12);
    /* half a bin below the first centre is still measured (the bin's own width) */
    CHECK(lsim_calib_lookup(&m, 0.0, &q) == (b0->angle_deg - 0.5 * m.bin_width_deg <= 0.0));
    CHECK_NEAR(q.std_range_m, b0->std_range_m, 1e-12);

    /* Re-classifying the scan from the material alone gives the same bins' counts. */
    lsim_board_fit again;
    lsim_calib_board_of(&m, &again);
    size_t n0 = 0;
    for (size_t i = 0; i < scan.count; ++i) {
        double psi;
        lsim_board_beam c = lsim_board_classify(&again, &scan, i, &psi, NULL);
        n0 += (c == LSIM_BOARD_RETURN || c == LSIM_BOARD_DROP) &&
              lsim_calib_bin_index(psi / LSIM_DEG, m.bin_width_deg) == lsim_calib_bin_index(b0->angle_deg, m.bin_width_deg);
    }
    CHECK(n0 == b0->n);

    /* The calibration file round-trips exactly. */
    lsim_calibration cal = {LSIM_CALIB_VERSION, "test-sensor", 1, &m}, back;
    char path[128];
    snprintf(path, sizeof path, "%s/%s.yaml", scratch_dir, label);
    REQUIRE_OK(ctx, lsim_calibration_write(ctx, path, &cal));
    REQUIRE_OK(ctx, lsim_calibration_read(ctx, path, &back));
    CHECK(back.version == LSIM_CALIB_VERSION && strcmp(back.sensor, "test-sensor") == 0 && back.count == 1);
    const lsim_calib_material *r = lsim_calibration_find(&back, label);
    CHECK(r != NULL);
    CHECK(lsim_calibration_find(&back, "nope") == NULL);
    if (r) {
        CHECK(strcmp(r->name, m.name) == 0 && strcmp(r->source, m.source) == 0);
        CHECK(r->configured_distance_m == m.configured_distance_m && r->fitted_distance_m == m.fitted_distance_m);
        CHECK(r->normal_angle_rad == m.normal_angle_rad && r->board_width_m == m.board_width_m);
        CHECK(r->configured_width_m == m.configured_width_m && r->board_offset_m == m.board_offset_m);
        CHECK(r->band_m == m.band_m && r->outliers == m.outliers && r->revolutions == m.revolutions);
        CHECK(r->beams_per_revolution == m.beams_per_revolution && r->bin_width_deg == m.bin_width_deg);
        CHECK(memcmp(&r->brdf, &m.brdf, sizeof m.brdf) == 0);
        CHECK(memcmp(&r->brdf_configured, &m.brdf_configured, sizeof m.brdf) == 0);
        CHECK(r->brdf_scale == m.brdf_scale && r->brdf_rms == m.brdf_rms);
        CHECK(r->bin_count == m.bin_count);
        for (size_t j = 0; j < m.bin_count && r->bin_count == m.bin_count; ++j)
            CHECK(memcmp(&r->bins[j], &m.bins[j], sizeof m.bins[j]) == 0);
        lsim_calib_material copy;
        REQUIRE_OK(ctx, lsim_calib_material_copy(ctx, r, &copy));
        CHECK(copy.bins != r->bins && copy.bin_count == r->bin_count &&
              memcmp(copy.bins, r->bins, r->bin_count * sizeof *r->bins) == 0);
        lsim_calib_material_free(&copy);
        CHECK(copy.bins == NULL && copy.bin_count == 0);
    }
    lsim_calibration_free(&back);
    CHECK(back.count == 0 && back.materials == NULL);
    remove(path);
    CHECK(count_entries(scratch_dir, ".tmp.") == 0);
    lsim_calib_material_free(&m);
    lsim_scan_free(&scan);
}

static void test_closed_loop(lsim_context *ctx)
{
    truth on = {0};
    on.d = 0.5;
    on.phi = (180.0 + 3.0) * LSIM_DEG; /* a board turned 3 deg from square */
    on.width = 1.2;
    lsim_brdf_defaults(&on.brdf, LSIM_BRDF_OREN_NAYAR);
    on.brdf.roughness = 0.4;
    on.scale = 120.0;
    on.rel_std = 0.05;
    on.outliers = 0.01;
    on.revolutions = 150;
    on.seed = 11;
    closed_loop(ctx, "synthetic-on", &on);

    truth ct = on;
    ct.d = 1.5;
    ct.phi = -177.5 * LSIM_DEG;
    ct.width = 2.4;
    lsim_brdf_defaults(&ct.brdf, LSIM_BRDF_COOK_TORRANCE);
    ct.brdf.roughness = 0.35;
    ct.brdf.f0 = 0.2;
    ct.scale = 80.0;
    ct.seed = 12;
    closed_loop(ctx, "synthetic-ct", &ct);

    truth bin = on; /* the RPLIDAR's binary intensity: 47 or nothing */
    bin.binary = 1;
    bin.d = 0.3;
    bin.phi = 178.0 * LSIM_DEG;
    bin.width = 0.9;
    bin.outliers = 0.0;
    bin.revolutions = 150;
    bin.seed = 13;
    closed_loop(ctx, "synthetic-binary", &bin);
}

/* ------------------------------------------------------------------------------------------- */
/* Bad input                                                                                    */

static void expect_scan_error(lsim_context *ctx, const char *name, const char *text, int line, const char *what)
{
    const char *path = scratch_write_text(name, text);
    lsim_scan_data s;
    lsim_status st = lsim_scan_read(ctx, path, &s);
    char where[96];
    snprintf(where, sizeof where, "%s:%d:", name, line);
    CHECK(st == LSIM_ERR_PARSE);
    CHECK(message_has(ctx, where, what));
    CHECK(s.count == 0 && s.range_m == NULL);
}

static void test_scan_files(lsim_context *ctx)
{
    /* Good beam lines: comments, blanks, CRLF, inf/nan, three revolutions of four beams. */
    const char *path = scratch_write_text("good.txt", "# a comment\n\nrange_m,intensity,angle_rad\n"
                                              "0.5,47.0,-3.0\r\n0.5,47.0,-1.0\ninf,0.0,1.0\n0.4,47,3.0\n"
                                              "nan,0,-3.0\n0.5,47,-1.0\n0.5,47,1.0\n0.5,47,3.0\n"
                                              "  0.6 , 47 , -3.0 \n0.5,47,-1.0\n");
    lsim_scan_data s;
    REQUIRE_OK(ctx, lsim_scan_read(ctx, path, &s));
    CHECK(s.format == LSIM_SCAN_BEAM_LINES && s.count == 10);
    CHECK(s.revolutions == 3 && s.beams_per_revolution == 4);
    CHECK(!lsim_scan_returned(&s, 2) && !lsim_scan_returned(&s, 4) && lsim_scan_returned(&s, 8));
    CHECK(s.range_m[8] == 0.6 && s.angle_rad[8] == -3.0);
    lsim_scan_free(&s);

    expect_scan_error(ctx, "fields.txt", "0.5,47,1.0\n0.5,47\n", 2, "got 2 fields");
    expect_scan_error(ctx, "many.txt", "0.5,47,1.0,9\n", 1, "got more than 3 fields");
    expect_scan_error(ctx, "word.txt", "0.5,47,1.0\n\n# c\n0.5,abc,1.0\n", 4, "field 2 (intensity) is not a number");
    expect_scan_error(ctx, "angle.txt", "0.5,47,nan\n", 1, "angle");
    expect_scan_error(ctx, "negative.txt", "-0.5,47,1\n", 1, "negative");
    expect_scan_error(ctx, "empty_field.txt", "0.5,,1\n", 1, "field 2");
    const char *empty = scratch_write_text("empty.txt", "# nothing\n\n");
    CHECK(lsim_scan_read(ctx, empty, &s) == LSIM_ERR_PARSE);
    CHECK(message_has(ctx, "empty.txt", "no beams"));
    char missing[128];
    snprintf(missing, sizeof missing, "%s/missing.txt", scratch_dir);
    CHECK(lsim_scan_read(ctx, missing, &s) == LSIM_ERR_IO);
    CHECK(message_has(ctx, "missing.txt", "cannot open"));
    CHECK(lsim_scan_read(ctx, scratch_dir, &s) == LSIM_ERR_IO);
    CHECK(message_has(ctx, "directory", NULL));

    /* LaserScan dumps: two blocks, the second without intensities; `---` separators. */
    path = scratch_write_text("dump.txt", "Timestamp: 1.5\n start_angle: -1.0\nend_angle: 1.0\n angle_increment: 0.5\n"
                                  "range_min: 0.15\nranges: array('f', [1.0, inf, 2.0, 3.0, 0.5])\n"
                                  "intensities: array('f', [47.0, 0.0, 47.0, 47.0, 47.0])\n\n"
                                  "Timestamp: 1.7\nangle_min: -1.0\nangle_increment: 0.5\nranges: [1, 2, 3, 4, nan]\n"
                                  "intensities: array('f')\n---\n");
    REQUIRE_OK(ctx, lsim_scan_read(ctx, path, &s));
    CHECK(s.format == LSIM_SCAN_LASERSCAN_DUMP && s.count == 10 && s.revolutions == 2);
    CHECK(s.beams_per_revolution == 5);
    CHECK(s.angle_rad[4] == 1.0 && s.angle_rad[5] == -1.0 && s.range_m[3] == 3.0);
    CHECK(s.intensity[1] == 0.0 && isnan(s.intensity[6]));
    CHECK(!lsim_scan_returned(&s, 1) && lsim_scan_returned(&s, 6) && !lsim_scan_returned(&s, 9));
    lsim_scan_free(&s);
    expect_scan_error(ctx, "dump_count.txt", "start_angle: 0\nangle_increment: 0.1\nranges: [1, 2, 3]\n"
                                             "intensities: [47, 47]\n", 4, "intensities has 2 values");
    expect_scan_error(ctx, "dump_inc.txt", "Timestamp: 1\nstart_angle: 0\nranges: [1, 2, 3]\n", 1,
                      "angle_increment");
    expect_scan_error(ctx, "dump_item.txt", "start_angle: 0\nangle_increment: 0.1\nranges: [1, x, 3]\n", 3,
                      "ranges item 2 is not a number");
    expect_scan_error(ctx, "dump_array.txt", "start_angle: 0\nangle_increment: 0.1\nranges: array('f', [1, 2\n", 3,
                      "ranges");
    expect_scan_error(ctx, "dump_line.txt", "start_angle: 0\nangle_increment: 0.1\nranges: [1]\nwhat is this\n", 4,
                      "key: value");
    /* a scan named in a config may be any file: no message repeats its text */
    static const char *const secret[] = {
        "0.5,47,1.0\nroot:x:0:0:SECRET\n", "0.5,SECRET,1.0\n", "0.5,47,1.0,SECRET\n",
        "start_angle: SECRET\n", "start_angle: 0\nangle_increment: 0.1\nranges: [1, SECRET]\n",
        "start_angle: 0\nangle_increment: 0.1\nranges: SECRET\n",
        "start_angle: 0\nangle_increment: 0.1\nranges: array('f', [SECRET\n", "start_angle: 0\nSECRET\n",
    };
    for (size_t i = 0; i < sizeof secret / sizeof secret[0]; ++i) {
        const char *path = scratch_write_text("secret.txt", secret[i]);
        lsim_scan_data s;
        CHECK(lsim_scan_read(ctx, path, &s) == LSIM_ERR_PARSE);
        CHECK(message_has(ctx, "secret.txt:", NULL) && !strstr(lsim_context_last_error(ctx), "SECRET"));
        if (strstr(lsim_context_last_error(ctx), "SECRET"))
            fprintf(stderr, "scan %zu: the message repeats the file: %s\n", i, lsim_context_last_error(ctx));
    }
}

static void test_board_not_found(lsim_context *ctx)
{
    truth t = {0};
    t.d = 0.5;
    t.phi = LSIM_PI;
    t.width = 1.0;
    lsim_brdf_defaults(&t.brdf, LSIM_BRDF_LAMBERTIAN);
    t.binary = 1;
    t.revolutions = 2;
    lsim_scan_data s;
    make_scan(&t, &s);
    /* Clutter at random ranges everywhere: no line anywhere. */
    for (size_t i = 0; i < s.count; ++i) {
        lsim_u32x4 w = lsim_rng_words(5, 0, i, 0);
        s.range_m[i] = 0.5 + 4.5 * lsim_u32_to_open01(w.v[0], w.v[1]);
        s.intensity[i] = 47.0;
    }
    lsim_calib_input in;
    lsim_calib_input_init(&in);
    snprintf(in.name, sizeof in.name, "ghost");
    in.width_m = 1.0;
    in.scan_path = "ghost_scan.txt";
    lsim_calib_options opt;
    lsim_calib_options_init(&opt);
    lsim_calib_material m;
    CHECK(lsim_calibrate_scan(ctx, &in, &s, &opt, &m, NULL) == LSIM_ERR_NOT_FOUND);
    CHECK(message_has(ctx, "ghost_scan.txt: board not found", "--direction"));
    CHECK(m.bins == NULL && m.bin_count == 0);
    /* No returns at all where the board should be. */
    for (size_t i = 0; i < s.count; ++i)
        if (fabs(lsim_wrap_angle(s.angle_rad[i] - LSIM_PI)) < 81.0 * LSIM_DEG) {
            s.range_m[i] = INFINITY;
            s.intensity[i] = 0.0;
        }
    CHECK(lsim_calibrate_scan(ctx, &in, &s, &opt, &m, NULL) == LSIM_ERR_NOT_FOUND);
    CHECK(message_has(ctx, "board not found: only 0 returned beams", "window"));
    lsim_scan_free(&s);
}

static void test_configs(lsim_context *ctx)
{
    lsim_calib_config cfg;
    const char *path = scratch_write_text("data.config", "wall,./data/wall_data.txt,0.457,1.25,ON,0.5,0.0\n"
                                                 "# comment\n\nmetal,/abs/metal.txt,0.479,1.0,CT,0.5,1.7\n"
                                                 "glossy,g.txt,0,2,cook-torrance,0.3,0.25\n"
                                                 "flat,f.txt,0.3,0.5,L,0.5,0.0");
    REQUIRE_OK(ctx, lsim_calib_config_read(ctx, path, &cfg));
    CHECK(cfg.count == 4 && strcmp(cfg.sensor, "rplidar-a1") == 0);
    if (cfg.count == 4) {
        char want[160];
        snprintf(want, sizeof want, "%s/./data/wall_data.txt", scratch_dir);
        CHECK(strcmp(cfg.inputs[0].scan_path, want) == 0);
        CHECK(cfg.inputs[0].brdf.kind == LSIM_BRDF_OREN_NAYAR && cfg.inputs[0].brdf.roughness == 0.5);
        CHECK(cfg.inputs[0].distance_m == 0.457 && cfg.inputs[0].width_m == 1.25 && cfg.inputs[0].line == 1);
        CHECK(cfg.inputs[0].brdf.ior == 1.5 && cfg.inputs[0].brdf.f0 < 0.0); /* fresnel 0: not given */
        CHECK(strcmp(cfg.inputs[1].scan_path, "/abs/metal.txt") == 0 && cfg.inputs[1].line == 4);
        CHECK(cfg.inputs[1].brdf.kind == LSIM_BRDF_COOK_TORRANCE && cfg.inputs[1].brdf.ior == 1.7);
        CHECK(cfg.inputs[2].brdf.f0 == 0.25 && cfg.inputs[2].distance_m == 0.0);
        CHECK(cfg.inputs[3].brdf.kind == LSIM_BRDF_LAMBERTIAN);
        CHECK(cfg.inputs[0].direction_deg == 180.0 && cfg.inputs[0].window_deg == 80.0);
    }
    lsim_calib_config_free(&cfg);

    path = scratch_write_text("cal.yaml", "sensor: my-lidar\nbin_width_deg: 1.5\nmaterials:\n"
                                  "  - name: wood\n    file: scans/wood.txt\n    width_m: 1.25\n"
                                  "    brdf: cook-torrance\n    roughness: 0.4\n    ior: 1.6\n    direction_deg: 90\n"
                                  "  - {name: w2, file: w2.txt, width_m: 0.5, distance_m: 0.3}\n");
    REQUIRE_OK(ctx, lsim_calib_config_read(ctx, path, &cfg));
    CHECK(cfg.count == 2 && strcmp(cfg.sensor, "my-lidar") == 0 && cfg.bin_width_deg == 1.5);
    if (cfg.count == 2) {
        CHECK(cfg.inputs[0].brdf.kind == LSIM_BRDF_COOK_TORRANCE && cfg.inputs[0].brdf.ior == 1.6);
        CHECK(cfg.inputs[0].direction_deg == 90.0 && cfg.inputs[0].line == 4);
        CHECK(cfg.inputs[1].brdf.kind == LSIM_BRDF_OREN_NAYAR && cfg.inputs[1].distance_m == 0.3);
    }
    lsim_calib_config_free(&cfg);

    struct { const char *name, *text; int line; const char *what; } bad[] = {
        {"f6.config", "wall,w.txt,0.4,1.2,ON,0.5\n", 1, "expected 7 comma-separated fields"},
        {"brdf.config", "wall,w.txt,0.4,1.2,ON,0.5,0\nwood,w.txt,0.4,1.2,XX,0.5,0\n", 2, "field 5 (BRDF) is invalid"},
        {"num.config", "wall,w.txt,near,1.2,ON,0.5,0\n", 1, "field 3 (distance_m) is not a number"},
        {"width.config", "wall,w.txt,0.4,0,ON,0.5,0\n", 1, "width_m 0 is invalid"},
        {"rough.config", "wall,w.txt,0.4,1,CT,1.5,0\n", 1, "roughness 1.5 is invalid for cook-torrance"},
        {"fresnel.config", "wall,w.txt,0.4,1,CT,0.5,-1\n", 1, "field 7 (fresnel)"},
        {"name.config", "wall#1,w.txt,0.4,1,ON,0.5,0\n", 1, "field 1 (name)"},
        {"dup.config", "wall,w.txt,0.4,1,ON,0.5,0\n\nwall,x.txt,0.4,1,ON,0.5,0\n", 3, "appears twice"},
        {"key.yaml", "materials:\n  - name: a\n    file: a.txt\n    width_m: 1\n    with_m: 2\n", 5,
         "did you mean 'width_m'"},
        {"nowidth.yaml", "materials:\n  - name: a\n    file: a.txt\n", 2, "missing `width_m:`"},
        {"ybrdf.yaml", "materials:\n  - name: a\n    file: a.txt\n    width_m: 1\n    brdf: phong\n", 5,
         "'phong' is invalid"},
        {"bins.yaml", "bin_width_deg: 90\nmaterials:\n  - {name: a, file: a.txt, width_m: 1}\n", 1,
         "bin_width_deg"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        path = scratch_write_text(bad[i].name, bad[i].text);
        char where[96];
        snprintf(where, sizeof where, "%s:%d", bad[i].name, bad[i].line);
        CHECK(lsim_calib_config_read(ctx, path, &cfg) == LSIM_ERR_PARSE);
        CHECK(message_has(ctx, where, bad[i].what));
        CHECK(cfg.count == 0 && cfg.inputs == NULL);
    }
    path = scratch_write_text("empty.config", "\n# only a comment\n");
    CHECK(lsim_calib_config_read(ctx, path, &cfg) == LSIM_ERR_PARSE);
    CHECK(message_has(ctx, "empty.config:1:", "empty"));
}

static void test_calibration_files(lsim_context *ctx)
{
    const char *head = "lidarsim_calibration: 1\nsensor: rplidar-a1\nmaterials:\n  - name: wall\n"
                       "    fitted_distance_m: 0.385\n    normal_angle_rad: 3.14\n    board_width_m: 1.25\n"
                       "    bin_width_deg: 2\n    brdf: {type: oren-nayar, roughness: 0.7, scale: 47}\n";
    char text[2048];
    snprintf(text, sizeof text, "%s    bins:\n      - {angle_deg: 1, n: 10, mean_intensity: 47, std_intensity: 0, "
             "std_range_m: 0.001, drop_rate: 0}\n      - {angle_deg: 3, n: 10, mean_intensity: 47, std_intensity: 0, "
             "std_range_m: 0.002, drop_rate: 0.5}\n", head);
    const char *path = scratch_write_text("min.yaml", text);
    lsim_calibration cal;
    REQUIRE_OK(ctx, lsim_calibration_read(ctx, path, &cal));
    CHECK(cal.count == 1 && cal.materials[0].bin_count == 2 && cal.materials[0].revolutions == 1);
    CHECK(cal.materials[0].configured_width_m == 1.25 && cal.materials[0].brdf_configured.roughness == 0.7);
    lsim_calib_bin q;
    /* Two edge bins (no neighbour on one side: no slope): each bin's own values over its width. */
    CHECK(lsim_calib_lookup(&cal.materials[0], 1.5, &q) == 1 && q.drop_rate == 0.0 && q.std_range_m == 0.001);
    CHECK(lsim_calib_lookup(&cal.materials[0], 2.5, &q) == 1 && q.drop_rate == 0.5 && q.std_range_m == 0.002);
    /* A bin without returns drops every beam. */
    cal.materials[0].bins[1] = (lsim_calib_bin){3.0, 10, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, {0.0, 0.0}, 0};
    CHECK(lsim_calib_lookup(&cal.materials[0], 2.5, &q) == 1 && q.drop_rate == 1.0);
    CHECK(lsim_calib_lookup(NULL, 10.0, &q) == 0 && q.drop_rate == 1.0);
    lsim_calibration_free(&cal);

    /* drop_halves: the drop rate on the grid of half-bins (centres 0.5, 1.5, 2.5, 3.5 deg here),
     * each half's rate varied by the minmod of the differences to its neighbouring halves. */
    snprintf(text, sizeof text, "%s    bins:\n      - {angle_deg: 1, n: 10, mean_intensity: 47, std_intensity: 0, "
             "std_range_m: 0.001, drop_rate: 0.1, drop_halves: [0, 0.2]}\n      - {angle_deg: 3, n: 10, "
             "mean_intensity: 47, std_intensity: 0, std_range_m: 0.002, drop_rate: 0.5, drop_halves: [0.4, 0.6]}\n",
             head);
    path = scratch_write_text("halves.yaml", text);
    REQUIRE_OK(ctx, lsim_calibration_read(ctx, path, &cal));
    const lsim_calib_material *hm = &cal.materials[0];
    CHECK(hm->bins[0].has_drop_halves && hm->bins[0].drop_halves[1] == 0.2 && hm->bins[1].drop_halves[0] == 0.4);
    const double at[][2] = {{0.25, 0.0}, {0.75, 0.0},   /* the first half: no left neighbour, slope 0 */
                            {1.25, 0.15}, {1.5, 0.2}, {1.75, 0.25}, /* 0 | 0.2 | 0.4: 0.2 per degree */
                            {2.5, 0.4}, {2.9, 0.48},    /* 0.2 | 0.4 | 0.6 */
                            {3.5, 0.6}, {10.0, 0.6}};   /* the last half, and beyond it its rate */
    for (size_t i = 0; i < sizeof at / sizeof at[0]; ++i) {
        CHECK(lsim_calib_lookup(hm, at[i][0], &q) == (at[i][0] < 4.0));
        CHECK_NEAR(q.drop_rate, at[i][1], 1e-12);
    }
    lsim_calibration_free(&cal);

    struct { const char *name; const char *text; int line; const char *what; } bad[] = {
        {"v2.yaml", "lidarsim_calibration: 2\nsensor: x\nmaterials: []\n", 1, "unknown version 2"},
        {"nov.yaml", "sensor: x\nmaterials: []\n", 1, "not a lidarsim calibration file"},
        {"nobins.yaml", NULL, 4, "bins: missing"},
        {"emptybins.yaml", NULL, 10, "non-empty list of bins"},
        {"drop.yaml", NULL, 11, "drop_rate: 1.5 is out of range"},
        {"order.yaml", NULL, 12, "ascending"},
        {"bkey.yaml", NULL, 11, "unknown key 'stdrange'"},
        {"n0.yaml", NULL, 11, "out of range"},
        {"grid.yaml", NULL, 11, "angle_deg 2.5 is not the centre of a 2-degree bin (nearest centre 3)"},
        {"halfrange.yaml", NULL, 11, "bins[0].drop_halves: 1.5 is out of range"},
        {"halfcount.yaml", NULL, 11, "bins[0].drop_halves: expected exactly 2 numbers, got 1"},
        {"rough.yaml", "lidarsim_calibration: 1\nsensor: x\nmaterials:\n  - name: wall\n    fitted_distance_m: 0.3\n"
                       "    normal_angle_rad: 3\n    board_width_m: 1\n    bin_width_deg: 2\n"
                       "    brdf: {type: oren-nayar, roughness: 9, scale: 1}\n"
                       "    bins: [{angle_deg: 1, n: 1, mean_intensity: 1, std_intensity: 0, std_range_m: 0, "
                       "drop_rate: 0}]\n", 9, "roughness: value 9 is invalid"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        const char *t = bad[i].text;
        if (!t) {
            const char *tail = "";
            if (strcmp(bad[i].name, "emptybins.yaml") == 0)
                tail = "    bins: []\n";
            else if (strcmp(bad[i].name, "drop.yaml") == 0)
                tail = "    bins:\n      - {angle_deg: 1, n: 10, mean_intensity: 47, std_intensity: 0, "
                       "std_range_m: 0.001, drop_rate: 1.5}\n";
            else if (strcmp(bad[i].name, "order.yaml") == 0)
                tail = "    bins:\n      - {angle_deg: 3, n: 10, mean_intensity: 47, std_intensity: 0, "
                       "std_range_m: 0.001, drop_rate: 0}\n      - {angle_deg: 1, n: 10, mean_intensity: 47, "
                       "std_intensity: 0, std_range_m: 0.001, drop_rate: 0}\n";
            else if (strcmp(bad[i].name, "bkey.yaml") == 0)
                tail = "    bins:\n      - {angle_deg: 3, n: 10, mean_intensity: 47, std_intensity: 0, "
                       "stdrange: 0.001, drop_rate: 0}\n";
            else if (strcmp(bad[i].name, "n0.yaml") == 0)
                tail = "    bins:\n      - {angle_deg: 3, n: 0, mean_intensity: 47, std_intensity: 0, "
                       "std_range_m: 0.001, drop_rate: 0}\n";
            else if (strcmp(bad[i].name, "grid.yaml") == 0)
                tail = "    bins:\n      - {angle_deg: 2.5, n: 10, mean_intensity: 47, std_intensity: 0, "
                       "std_range_m: 0.001, drop_rate: 0}\n";
            else if (strcmp(bad[i].name, "halfrange.yaml") == 0)
                tail = "    bins:\n      - {angle_deg: 1, n: 10, mean_intensity: 47, std_intensity: 0, "
                       "std_range_m: 0.001, drop_rate: 0.5, drop_halves: [0.1, 1.5]}\n";
            else if (strcmp(bad[i].name, "halfcount.yaml") == 0)
                tail = "    bins:\n      - {angle_deg: 1, n: 10, mean_intensity: 47, std_intensity: 0, "
                       "std_range_m: 0.001, drop_rate: 0.5, drop_halves: [0.1]}\n";
            snprintf(text, sizeof text, "%s%s", head, tail);
            t = text;
        }
        path = scratch_write_text(bad[i].name, t);
        char where[96];
        snprintf(where, sizeof where, "%s:%d:", bad[i].name, bad[i].line);
        CHECK(lsim_calibration_read(ctx, path, &cal) == LSIM_ERR_PARSE);
        CHECK(message_has(ctx, where, bad[i].what));
        CHECK(cal.count == 0 && cal.materials == NULL);
    }
    path = scratch_write_text("blank.yaml", "# nothing here\n\n");
    CHECK(lsim_calibration_read(ctx, path, &cal) == LSIM_ERR_PARSE);
    CHECK(message_has(ctx, "blank.yaml:1:", "empty"));

    /* Writing a material without bins (empty bins) fails and leaves nothing behind. */
    lsim_calib_material m;
    memset(&m, 0, sizeof m);
    snprintf(m.name, sizeof m.name, "empty");
    m.fitted_distance_m = 0.3;
    m.board_width_m = 1.0;
    m.bin_width_deg = 2.0;
    lsim_brdf_defaults(&m.brdf, LSIM_BRDF_LAMBERTIAN);
    lsim_calibration one = {LSIM_CALIB_VERSION, "x", 1, &m};
    char out[128];
    snprintf(out, sizeof out, "%s/nobins_out.yaml", scratch_dir);
    CHECK(lsim_calibration_write(ctx, out, &one) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(message_has(ctx, "material empty has no bins", NULL));
    CHECK(access(out, F_OK) != 0);
    snprintf(out, sizeof out, "%s/no/such/dir/cal.yaml", scratch_dir);
    lsim_calib_bin b = {1.0, 5, 47.0, 0.0, 0.001, 0.0, 0.0, 0.0, 0.001, {0.0, 0.0}, 0};
    m.bins = &b;
    m.bin_count = 1;
    CHECK(lsim_calibration_write(ctx, out, &one) == LSIM_ERR_IO);
    CHECK(count_entries(scratch_dir, ".tmp.") == 0);
}

int main(void)
{
    scratch_make("calib");
    lsim_context *ctx;
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    test_closed_loop(ctx);
    test_scan_files(ctx);
    test_board_not_found(ctx);
    test_configs(ctx);
    test_calibration_files(ctx);
    lsim_context_destroy(ctx);
    scratch_remove();
    return lsim_test_summary("test_calib");
}
