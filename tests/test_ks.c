/* Two-sample Kolmogorov-Smirnov test and Wilson intervals (calib/ks_test.h): known answers,
 * calibrated p-values on samples from one distribution, power on shifted ones, ties; and the
 * calibration viewer (calib/calib_view.h) on a hand-made material. */
#include "files.h"
#include "harness.h"

#include "calib/calib_view.h"
#include "calib/ks_test.h"
#include "core/rng.h"
#include "lidarsim.h"
#include "pictures/colormap.h"

#include <dirent.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_known_answers(lsim_context *ctx)
{
    lsim_ks_result r;
    /* merged ECDFs: the largest gap is after 5 (F1 = 1, F2 = 1/3) */
    const double a[5] = {5, 1, 4, 2, 3}, b[3] = {7, 3.5, 6};
    REQUIRE_OK(ctx, lsim_ks_two_sample(ctx, a, 5, b, 3, &r));
    CHECK_NEAR(r.d, 2.0 / 3.0, 1e-15);
    CHECK(r.n1 == 5 && r.n2 == 3);
    CHECK_NEAR(r.n_eff, 15.0 / 8.0, 1e-15);
    CHECK_NEAR(r.p, 0.22351642912891242, 1e-9); /* Q_KS(1.046426...) by the plain series */
    /* symmetric in the two samples */
    lsim_ks_result s;
    REQUIRE_OK(ctx, lsim_ks_two_sample(ctx, b, 3, a, 5, &s));
    CHECK(s.d == r.d && s.p == r.p);
    /* disjoint samples: D = 1 */
    const double c[3] = {10, 11, 12};
    REQUIRE_OK(ctx, lsim_ks_two_sample(ctx, a, 5, c, 3, &r));
    CHECK_NEAR(r.d, 1.0, 0.0);
    /* identical samples: D = 0, p = 1 */
    REQUIRE_OK(ctx, lsim_ks_two_sample(ctx, a, 5, a, 5, &r));
    CHECK(r.d == 0.0 && r.p == 1.0);
    /* ties (a 0/47 sensor): D is the difference of the proportions of zeros */
    const double t1[5] = {0, 0, 0, 47, 47}, t2[5] = {47, 0, 47, 47, 47};
    REQUIRE_OK(ctx, lsim_ks_two_sample(ctx, t1, 5, t2, 5, &r));
    CHECK_NEAR(r.d, 0.4, 1e-15);
    /* interleaved with ties across the samples */
    const double u1[4] = {1, 2, 2, 3}, u2[4] = {2, 2, 3, 3};
    REQUIRE_OK(ctx, lsim_ks_two_sample(ctx, u1, 4, u2, 4, &r));
    CHECK_NEAR(r.d, 0.25, 1e-15); /* at 1: 1/4 - 0; at 2: 3/4 - 2/4; at 3: 0 */
    /* NaN and infinities are ignored */
    const double n1[6] = {NAN, 5, 1, 4, 2, 3}, n2[4] = {7, INFINITY, 3.5, 6};
    REQUIRE_OK(ctx, lsim_ks_two_sample(ctx, n1, 6, n2, 4, &r));
    CHECK(r.n1 == 5 && r.n2 == 3);
    CHECK_NEAR(r.d, 2.0 / 3.0, 1e-15);
    /* the test does not apply to an empty sample */
    const double only_nan[2] = {NAN, NAN};
    REQUIRE_OK(ctx, lsim_ks_two_sample(ctx, a, 5, only_nan, 2, &r));
    CHECK(isnan(r.d) && isnan(r.p) && r.n2 == 0);
    REQUIRE_OK(ctx, lsim_ks_two_sample(ctx, NULL, 0, a, 5, &r));
    CHECK(isnan(r.d) && isnan(r.p));
    /* bad arguments */
    CHECK(lsim_ks_two_sample(ctx, NULL, 3, a, 5, &r) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_ks_two_sample(ctx, a, 5, b, 3, NULL) == LSIM_ERR_INVALID_ARGUMENT);
    /* sorted variant agrees */
    const double as[5] = {1, 2, 3, 4, 5}, bs[3] = {3.5, 6, 7};
    lsim_ks_two_sample_sorted(as, 5, bs, 3, &r);
    CHECK_NEAR(r.d, 2.0 / 3.0, 1e-15);

    /* the Kolmogorov distribution: known quantiles, both branches, continuity at the switch */
    CHECK(lsim_ks_q(0.0) == 1.0 && lsim_ks_q(-1.0) == 1.0);
    CHECK(isnan(lsim_ks_q(NAN)));
    CHECK_NEAR(lsim_ks_q(0.5), 0.9639452436648751, 1e-12);
    CHECK_NEAR(lsim_ks_q(1.0), 0.26999967167735456, 1e-12);
    CHECK_NEAR(lsim_ks_q(1.3581), 0.05, 1e-4);
    CHECK_NEAR(lsim_ks_q(1.2238), 0.1000234278356778, 1e-12);
    CHECK_NEAR(lsim_ks_q(2.0), 0.0006709252557796953, 1e-15);
    CHECK_NEAR(lsim_ks_q(1.18 - 1e-12), lsim_ks_q(1.18 + 1e-12), 1e-11);
    CHECK(lsim_ks_q(0.01) == 1.0);
    CHECK(lsim_ks_q(10.0) < 1e-80 && lsim_ks_q(10.0) >= 0.0);
    double prev = 1.0;
    int monotone = 1;
    for (double l = 0.02; l < 4.0; l += 0.01) {
        const double q = lsim_ks_q(l);
        monotone &= q <= prev && q >= 0.0;
        prev = q;
    }
    CHECK(monotone);
    CHECK(isnan(lsim_ks_pvalue(0.5, 0.0)));
}

/* n standard normals (Philox, Box-Muller) shifted by `shift`. */
static void normals(double *out, size_t n, uint64_t seed, uint32_t trial, double shift)
{
    for (size_t i = 0; i < n; ++i)
        out[i] = lsim_rng_normal(seed, trial, i, 0) + shift;
}

static void test_calibration(lsim_context *ctx)
{
    enum { N1 = 200, N2 = 300, TRIALS = 50 };
    double a[N1], b[N2];
    int rejected = 0, shifted_ok = 0;
    for (uint32_t t = 0; t < TRIALS; ++t) {
        lsim_ks_result r;
        normals(a, N1, 11, t, 0.0);
        normals(b, N2, 12, t, 0.0);
        REQUIRE_OK(ctx, lsim_ks_two_sample(ctx, a, N1, b, N2, &r));
        rejected += r.p < 0.05;
        normals(b, N2, 12, t, 1.0);
        REQUIRE_OK(ctx, lsim_ks_two_sample(ctx, a, N1, b, N2, &r));
        shifted_ok += r.p < 1e-6;
    }
    printf("same distribution: %d of %d trials with p < 0.05; shifted by 1 sigma: %d of %d with p < 1e-6\n",
           rejected, TRIALS, shifted_ok, TRIALS);
    CHECK(rejected <= (int)(0.15 * TRIALS));
    CHECK(shifted_ok == TRIALS);

    /* a two-valued variable (0 or 47) with drop proportions 0.2 vs 0.2: p not tiny; 0.2 vs 0.5: tiny */
    double z1[400], z2[400];
    for (int i = 0; i < 400; ++i) {
        const double u1 = lsim_u32_to_open01(lsim_rng_words(5, 0, (uint64_t)i, 0).v[0], 0);
        const double u2 = lsim_u32_to_open01(lsim_rng_words(6, 0, (uint64_t)i, 0).v[0], 0);
        z1[i] = u1 < 0.2 ? 0.0 : 47.0;
        z2[i] = u2 < 0.2 ? 0.0 : 47.0;
    }
    lsim_ks_result r;
    REQUIRE_OK(ctx, lsim_ks_two_sample(ctx, z1, 400, z2, 400, &r));
    CHECK(r.p > 0.01);
    for (int i = 0; i < 400; ++i)
        z2[i] = lsim_u32_to_open01(lsim_rng_words(6, 0, (uint64_t)i, 0).v[0], 0) < 0.5 ? 0.0 : 47.0;
    REQUIRE_OK(ctx, lsim_ks_two_sample(ctx, z1, 400, z2, 400, &r));
    CHECK(r.p < 1e-6);
}

static void test_wilson(void)
{
    double lo, hi;
    lsim_wilson_interval(0, 100, LSIM_Z95, &lo, &hi);
    CHECK(lo == 0.0);
    CHECK_NEAR(hi, 0.03699349820698568, 1e-12);
    lsim_wilson_interval(50, 100, LSIM_Z95, &lo, &hi);
    CHECK_NEAR(lo, 0.4038315303659956, 1e-12);
    CHECK_NEAR(hi, 0.5961684696340044, 1e-12);
    lsim_wilson_interval(3, 20, LSIM_Z95, &lo, &hi);
    CHECK_NEAR(lo, 0.052368745896216595, 1e-12);
    CHECK_NEAR(hi, 0.36041886474075696, 1e-12);
    lsim_wilson_interval(100, 100, LSIM_Z95, &lo, &hi);
    CHECK_NEAR(lo, 0.9630065017930143, 1e-12);
    CHECK(hi == 1.0);
    lsim_wilson_interval(0, 0, LSIM_Z95, &lo, &hi);
    CHECK(lo == 0.0 && hi == 1.0);
    lsim_wilson_interval(5, 3, LSIM_Z95, &lo, &hi);
    CHECK(lo == 0.0 && hi == 1.0);
    /* the interval always holds the proportion and narrows with n */
    int ok = 1;
    for (size_t n = 1; n <= 200; n += 7)
        for (size_t k = 0; k <= n; ++k) {
            lsim_wilson_interval(k, n, LSIM_Z95, &lo, &hi);
            const double p = (double)k / (double)n;
            ok &= lo <= p && p <= hi && lo >= 0.0 && hi <= 1.0;
        }
    CHECK(ok);
    double lo2, hi2;
    lsim_wilson_interval(500, 1000, LSIM_Z95, &lo2, &hi2);
    lsim_wilson_interval(50, 100, LSIM_Z95, &lo, &hi);
    CHECK(hi2 - lo2 < hi - lo);
}

static int count_tmp(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strstr(e->d_name, ".tmp.") != NULL;
    closedir(d);
    return n;
}

static void test_view(lsim_context *ctx, const char *dir)
{
    enum { NB = 12 };
    lsim_calib_bin bins[NB];
    for (int i = 0; i < NB; ++i) {
        bins[i].angle_deg = 2.5 + 5.0 * i;
        bins[i].n = 200;
        bins[i].mean_intensity = 47.0 * cos(bins[i].angle_deg * 3.14159265358979 / 180.0);
        bins[i].std_intensity = 1.0;
        bins[i].std_range_m = 0.002 + 0.0005 * i;
        bins[i].drop_rate = i < 6 ? 0.0 : 0.15 * (i - 5);
    }
    bins[NB - 1].drop_rate = 1.0;
    bins[NB - 1].mean_intensity = NAN;
    lsim_calib_material m;
    memset(&m, 0, sizeof m);
    strcpy(m.name, "wood");
    m.configured_distance_m = 1.0;
    m.fitted_distance_m = 1.012;
    m.normal_angle_rad = 0.05;
    m.board_width_m = 0; /* unknown: drawn to hold every beam */
    m.revolutions = 20;
    m.beams_per_revolution = 360;
    m.bin_width_deg = 5.0;
    m.bin_count = NB;
    m.bins = bins;

    char path[512];
    snprintf(path, sizeof path, "%s/view_wood.png", dir);
    REQUIRE_OK(ctx, lsim_calib_view_png(ctx, &m, path, 900));
    CHECK(png_has_size(path, 900, 900));
    snprintf(path, sizeof path, "%s/view_wood_drops.png", dir);
    REQUIRE_OK(ctx, lsim_calib_view_png_colour(ctx, &m, path, 600, LSIM_CALIB_VIEW_MEAN_WITH_DROPS));
    CHECK(png_has_size(path, 600, 600));

    /* the beam of the first bin (no drops, brightest: top of viridis) at 60 % of its range */
    m.board_width_m = 1.4;
    lsim_canvas *c;
    REQUIRE_OK(ctx, lsim_canvas_create(ctx, 800, 800, NULL, &c));
    REQUIRE_OK(ctx, lsim_calib_view_render(ctx, &m, LSIM_CALIB_VIEW_MEAN, c));
    unsigned char want[3];
    lsim_colormap_viridis(1.0, want);
    const double th = 2.5 * 3.14159265358979 / 180.0, r = 0.6 * m.fitted_distance_m / cos(th);
    double col, row;
    CHECK(lsim_calib_view_to_pixel(&m, 800, 800, r * cos(m.normal_angle_rad + th), r * sin(m.normal_angle_rad + th),
                                   &col, &row));
    int found = 0;
    for (int j = -2; j <= 2; ++j)
        for (int i = -2; i <= 2; ++i) {
            unsigned char p[3];
            found |= lsim_canvas_get(c, (int)col + i, (int)row + j, p) && !memcmp(p, want, 3);
        }
    CHECK(found);
    /* the sensor is drawn (black) where the origin maps; x forward is up */
    double sc, sr, fc, fr;
    CHECK(lsim_calib_view_to_pixel(&m, 800, 800, 0, 0, &sc, &sr));
    CHECK(lsim_calib_view_to_pixel(&m, 800, 800, 1, 0, &fc, &fr));
    CHECK(fr < sr);
    unsigned char p[3];
    CHECK(lsim_canvas_get(c, (int)sc, (int)sr, p) && p[0] == 0 && p[1] == 0 && p[2] == 0);
    snprintf(path, sizeof path, "%s/view_board.png", dir);
    REQUIRE_OK(ctx, lsim_canvas_write_png(ctx, c, path));
    lsim_canvas_destroy(c);

    /* no bins: the board alone */
    lsim_calib_material empty = m;
    empty.bin_count = 0;
    empty.bins = NULL;
    empty.configured_distance_m = 0;
    snprintf(path, sizeof path, "%s/view_empty.png", dir);
    REQUIRE_OK(ctx, lsim_calib_view_png(ctx, &empty, path, 256));
    CHECK(png_has_size(path, 256, 256));

    /* bad input: messages, no file */
    lsim_calib_material bad = m;
    bad.fitted_distance_m = 0.0;
    snprintf(path, sizeof path, "%s/view_bad.png", dir);
    CHECK(lsim_calib_view_png(ctx, &bad, path, 512) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "fitted_distance_m") != NULL);
    bad = m;
    bad.bins = NULL;
    CHECK(lsim_calib_view_png(ctx, &bad, path, 512) == LSIM_ERR_INVALID_ARGUMENT);
    bad = m;
    bad.normal_angle_rad = NAN;
    CHECK(lsim_calib_view_png(ctx, &bad, path, 512) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_calib_view_png(ctx, &m, path, 10) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_calib_view_png(ctx, NULL, path, 512) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_calib_view_png(ctx, &m, "", 512) == LSIM_ERR_INVALID_ARGUMENT);
    struct stat st;
    CHECK(stat(path, &st) != 0);
    snprintf(path, sizeof path, "%s/missing/view.png", dir);
    CHECK(lsim_calib_view_png(ctx, &m, path, 512) == LSIM_ERR_IO);
    CHECK(count_tmp(dir) == 0);
}

int main(void)
{
    lsim_context *ctx;
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    test_known_answers(ctx);
    test_calibration(ctx);
    test_wilson();

    char dir[] = "test_ks.XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_view(ctx, dir);
    const char *keep = getenv("LSIM_KEEP_OUTPUT");
    if (keep && *keep && strcmp(keep, "0")) {
        printf("test_ks: images kept in %s\n", dir);
    } else {
        const char *names[] = {"view_wood.png", "view_wood_drops.png", "view_board.png", "view_empty.png"};
        char path[512];
        for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            unlink(path);
        }
        CHECK(rmdir(dir) == 0); /* nothing else was left in it */
    }
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_ks");
}
