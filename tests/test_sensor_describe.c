/* lsim_sensor_describe: the sensor's key numbers as text (what `lidarsim presets NAME` prints),
 * snprintf-style: the whole length returned, truncated output always NUL-terminated. */
#include "harness.h"
#include "test_scenes.h"

#include "lidarsim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    lsim_context *ctx;
    lsim_sensor *s;
    CHECK(lsim_context_create(&ctx) == LSIM_OK);
    REQUIRE_OK(ctx, lsim_sensor_create_preset(ctx, "vlp16", &s));
    size_t n = lsim_sensor_describe(s, NULL, 0);
    CHECK(n > 100);
    char *text = malloc(n + 1);
    CHECK(text != NULL);
    CHECK(lsim_sensor_describe(s, text, n + 1) == n);
    CHECK(strlen(text) == n);
    CHECK(strncmp(text, "name: vlp16\n", 12) == 0);
    CHECK(strstr(text, "\nkind: rotating\n") != NULL);
    CHECK(strstr(text, "\nbeams: 28928\n") != NULL);
    CHECK(strstr(text, "\nchannels: 16\n") != NULL);
    CHECK(text[n - 1] == '\n');
    /* truncated: what fits, NUL-terminated, the same total returned */
    char small[20];
    memset(small, 'x', sizeof small);
    CHECK(lsim_sensor_describe(s, small, sizeof small) == n);
    CHECK(small[19] == '\0' && strncmp(small, text, 19) == 0);
    char one[1] = {'x'};
    CHECK(lsim_sensor_describe(s, one, 1) == n && one[0] == '\0');
    CHECK(lsim_sensor_describe(NULL, small, sizeof small) == 0 && small[0] == '\0');
    free(text);
    lsim_sensor_destroy(s);

    REQUIRE_OK(ctx, lsim_sensor_create_planar(ctx, 270.0, 541, 15.0, &s));
    char buf[4096];
    CHECK(lsim_sensor_describe(s, buf, sizeof buf) < sizeof buf);
    CHECK(strstr(buf, "kind: planar\n") != NULL && strstr(buf, "steps: 541\n") != NULL);
    lsim_sensor_destroy(s);

    /* The URG-04LX measures continuous-wave: the listing says so, gives no pulse, and gives the
     * range noise its samples make (not the 1 cm of range_sigma, which CW does not use), the noise
     * a scan has: inside a sphere of radius 2 m (reflectance 0.2, every beam square on it) the
     * ranges' std over 3 frames is the listed formula's at the echoes' mean intensity, within 8 %. */
    REQUIRE_OK(ctx, lsim_sensor_create_preset(ctx, "urg-04lx", &s));
    CHECK(lsim_sensor_describe(s, buf, sizeof buf) < sizeof buf);
    printf("%s", buf);
    CHECK(strstr(buf, "\nreceiver: continuous-wave (phase shift) at 46.55 and 53.2 MHz, 30 samples") != NULL);
    CHECK(strstr(buf, "unambiguous to 22.54 m") != NULL);
    CHECK(strstr(buf, "pulse_width_ns") == NULL && strstr(buf, "returns:") == NULL);
    CHECK(strstr(buf, "\nrange_sigma_m: 0.0681 at the detection threshold, 0.00681 at 10x it") != NULL);
    CHECK(strstr(buf, "range_sigma_m: 0.01\n") == NULL);
    CHECK(strstr(buf, "\ndescription: planar, continuous-wave") != NULL);
    lsim_scene *scene = test_scene_new(ctx, "grey", 0.2);
    const lsim_object_desc d = test_object("grey", NULL, 0.0, 0.0, 0.0);
    REQUIRE_OK(ctx, lsim_scene_add_sphere(scene, 2.0, &d));
    double s1 = 0.0, s2 = 0.0, in = 0.0;
    size_t count = 0;
    for (uint64_t seed = 1; seed <= 3; ++seed) {
        lsim_scan_options opt;
        lsim_scan_options_init(&opt);
        opt.noise = 1;
        opt.seed = seed;
        lsim_points *p;
        REQUIRE_OK(ctx, lsim_scene_scan(scene, s, &opt, &p));
        const float *r = lsim_points_column(p, LSIM_FIELD_RANGE), *i = lsim_points_column(p, LSIM_FIELD_INTENSITY);
        for (size_t k = 0; k < lsim_points_count(p); ++k) {
            s1 += r[k] - 2.0;
            s2 += (r[k] - 2.0) * (r[k] - 2.0);
            in += i[k];
        }
        count += lsim_points_count(p);
        lsim_points_destroy(p);
    }
    CHECK(count == 3 * 682);
    if (count) {
        const double mean = s1 / count, sd = sqrt(s2 / count - mean * mean), amplitude = in / count;
        /* the listed figure at this amplitude: 0.0681 m x threshold / amplitude */
        const double listed = 0.0681 * (0.1 / (5.6 * 5.6)) / amplitude;
        printf("urg-04lx in a 2 m sphere: range sd %.2f mm at intensity %.4f (listed formula %.2f mm), mean %+.2f mm\n",
               1e3 * sd, amplitude, 1e3 * listed, 1e3 * mean);
        CHECK_NEAR(sd / listed, 1.0, 0.08);
        CHECK(fabs(mean) < 0.001);
    }
    lsim_scene_destroy(scene);
    lsim_sensor_destroy(s);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_sensor_describe");
}
