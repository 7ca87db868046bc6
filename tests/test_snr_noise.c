/* The SNR noise model (README "Noise") against its closed form: a planar sensor's 20,000 beams
 * hit a flat wall head-on, with the wall's reflectance chosen so that the echo's peak P sits at a
 * known multiple of the detection threshold T. With snr_at_threshold k the noise floor is T / k,
 * SNR = P / floor, the range noise sqrt(sigma0^2 + (jitter / SNR)^2) with jitter = sqrt(2) x the
 * pulse's sigma in range, and a beam is dropped with probability Phi(-(P - T) / floor). The
 * constant model keeps sigma0 and drops nothing. */
#include "harness.h"
#include "scan_fixture.h"
#include "test_scenes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BEAMS 20000
#define DIST 50.0
#define SIGMA0 0.01
#define K_SNR 5.0
#define RANGE_MAX 100.0
#define DETECT 0.1 /* Lambertian reflectance detected just at RANGE_MAX: T = 0.1 / 100^2 */

typedef struct result {
    double p_clean;   /* noise-free peak intensity */
    double kept;      /* fraction of beams with a point */
    double sd, mean;  /* of range - clean range, over kept beams */
} result;

static result scan_wall(lsim_context *ctx, double reflectance, lsim_noise_kind model, uint64_t seed)
{
    lsim_scene *scene = test_scene_new(ctx, "wall", reflectance);
    test_scene_wall(ctx, scene, "wall", DIST, 60.0, 60.0, -90.0, 0.0); /* facing the sensor */
    lsim_sensor *s;
    REQUIRE_OK(ctx, lsim_sensor_create_planar(ctx, 2.0, BEAMS, 10.0, &s));
    REQUIRE_OK(ctx, lsim_sensor_set_range(s, 0.5, RANGE_MAX));
    REQUIRE_OK(ctx, lsim_sensor_set_noise(s, SIGMA0, 0.0, DETECT));
    REQUIRE_OK(ctx, lsim_sensor_set_noise_model(s, model, K_SNR));
    result res;
    lsim_points *p[2];
    for (int noisy = 0; noisy < 2; ++noisy) {
        lsim_scan_options opt;
        lsim_scan_options_init(&opt);
        opt.noise = noisy;
        opt.seed = seed;
        opt.keep_misses = 1; /* one row per beam */
        REQUIRE_OK(ctx, lsim_scene_scan(scene, s, &opt, &p[noisy]));
    }
    const float *rc = fixture_f32(p[0], LSIM_FIELD_RANGE), *ic = fixture_f32(p[0], LSIM_FIELD_INTENSITY);
    const float *r = fixture_f32(p[1], LSIM_FIELD_RANGE);
    CHECK(lsim_points_count(p[0]) == BEAMS && lsim_points_count(p[1]) == BEAMS);
    double s1 = 0, s2 = 0, pc = 0;
    size_t kept = 0, clean_misses = 0;
    for (size_t i = 0; i < BEAMS; ++i) {
        clean_misses += !(rc[i] > 0.0f);
        pc += ic[i] / BEAMS;
        if (r[i] == 0.0f)
            continue;
        const double e = (double)r[i] - rc[i];
        s1 += e;
        s2 += e * e;
        ++kept;
    }
    CHECK(clean_misses == 0); /* noise off: every beam returns */
    res.p_clean = pc;
    res.kept = (double)kept / BEAMS;
    res.mean = kept ? s1 / kept : 0;
    res.sd = kept ? sqrt(s2 / kept - res.mean * res.mean) : 0;
    lsim_points_destroy(p[0]);
    lsim_points_destroy(p[1]);
    lsim_sensor_destroy(s);
    lsim_scene_destroy(scene);
    return res;
}

int main(void)
{
    lsim_context *ctx;
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    const double T = DETECT / (RANGE_MAX * RANGE_MAX), floor_ = T / K_SNR;
    /* the default pulse: 5 ns FWHM, sigma in range c tau / 2 / 2.3548 */
    const double jitter = sqrt(2.0) * 299792458.0 * 5e-9 / 2.0 / 2.3548200450309493;
    /* peak / threshold: strong, twice the threshold, 1.2 and 1.05 times it */
    const double ratios[] = {30.0, 2.0, 1.2, 1.05};
    for (size_t c = 0; c < sizeof ratios / sizeof ratios[0]; ++c) {
        const double rho = ratios[c] * T * DIST * DIST; /* P = rho / R^2 head-on */
        result snr = scan_wall(ctx, rho, LSIM_NOISE_SNR, 7 + c);
        const double P = snr.p_clean, SNR = P / floor_;
        const double sd_expect = sqrt(SIGMA0 * SIGMA0 + (jitter / SNR) * (jitter / SNR));
        const double keep_expect = 0.5 * erfc(-((P - T) / floor_) / sqrt(2.0)); /* Phi((P - T) / floor) */
        const double n_kept = snr.kept * BEAMS;
        printf("P/T %.3f (SNR %.1f): range sd %.5f m (model %.5f), kept %.4f (model %.4f), mean %+.1e m\n", P / T, SNR,
               snr.sd, sd_expect, snr.kept, keep_expect, snr.mean);
        CHECK(fabs(P / T - ratios[c]) < 0.01 * ratios[c]); /* the wall gives the peak it was chosen for */
        CHECK_NEAR(snr.sd, sd_expect, 4.0 * sd_expect / sqrt(2.0 * n_kept));
        CHECK_NEAR(snr.mean, 0.0, 4.0 * sd_expect / sqrt(n_kept));
        CHECK_NEAR(snr.kept, keep_expect, 4.0 * sqrt(keep_expect * (1 - keep_expect) / BEAMS) + 1e-4);
        /* the constant model: sigma0 whatever the signal, nothing dropped (no intensity noise here) */
        result flat = scan_wall(ctx, rho, LSIM_NOISE_CONSTANT, 7 + c);
        CHECK_NEAR(flat.sd, SIGMA0, 4.0 * SIGMA0 / sqrt(2.0 * BEAMS));
        CHECK(flat.kept == 1.0);
    }
    /* the noise grows with range and falls with reflectance: a sensor's precision is not one number */
    result bright = scan_wall(ctx, 1.0, LSIM_NOISE_SNR, 3), dark = scan_wall(ctx, 0.03, LSIM_NOISE_SNR, 3);
    printf("white wall at %g m: range sd %.4f m; 3 %% grey: %.4f m, %.1f %% dropped\n", DIST, bright.sd, dark.sd,
           100 * (1 - dark.kept));
    CHECK(dark.sd > 5.0 * bright.sd && dark.kept < 0.9 && bright.kept == 1.0);
    lsim_sensor *s;
    REQUIRE_OK(ctx, lsim_sensor_create_preset(ctx, "vlp16", &s));
    CHECK(lsim_sensor_set_noise_model(s, (lsim_noise_kind)7, 5.0) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "sensor.noise.model") != NULL);
    CHECK(lsim_sensor_set_noise_model(s, LSIM_NOISE_SNR, 0.5) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "snr_at_threshold") != NULL);
    lsim_sensor_destroy(s);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_snr_noise");
}
