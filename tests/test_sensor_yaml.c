/* The scene file's `sensor:` section: inline rosette sensors and `prism_hz`, and the bounds on
 * rate_hz, range and position, each reported at the offending key's line. */
#include "harness.h"
#include "scan_fixture.h"

#include "lidarsim.h"
#include "sensor/sensor.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define SCENE_PATH "test_sensor_yaml.tmp.yaml"

static lsim_status load(lsim_context *ctx, const char *sensor_yaml, lsim_sensor **sensor)
{
    return fixture_load_sensor(ctx, SCENE_PATH, sensor_yaml, sensor);
}

/* The scene must fail with every string of `contains` in the message (NULL-terminated). */
static void expect_error(lsim_context *ctx, const char *what, const char *sensor_yaml, const char *const *contains)
{
    lsim_sensor *s = NULL;
    lsim_status st = load(ctx, sensor_yaml, &s);
    const char *msg = lsim_context_last_error(ctx);
    report_case(what, st == LSIM_ERR_PARSE && s == NULL && contains_all(msg, contains), st, msg);
    CHECK(st == LSIM_ERR_PARSE);
    CHECK(s == NULL);
    for (size_t i = 0; contains[i]; ++i)
        CHECK(strstr(msg, contains[i]) != NULL);
    lsim_sensor_destroy(s);
}

/* Largest angle (degrees) between any beam and the first one: 0 when every beam points the same way. */
static double spread_deg(const lsim_sensor *s)
{
    double m = 0;
    for (size_t i = 1; i < s->beams.count; ++i) {
        double c = s->beams.dx[0] * s->beams.dx[i] + s->beams.dy[0] * s->beams.dy[i] + s->beams.dz[0] * s->beams.dz[i];
        m = fmax(m, acos(fmin(1.0, fmax(-1.0, c))) * 180.0 / 3.14159265358979323846);
    }
    return m;
}

static void test_inline_rosette(lsim_context *ctx)
{
    lsim_sensor *s;
    /* no prism_hz: the default rates, the same as the livox-mid40 preset's */
    REQUIRE_OK(ctx, load(ctx, "  type: rosette\n  points: 1000\n  fov_deg: 30\n", &s));
    CHECK(lsim_sensor_beam_count(s) == 1000);
    CHECK(s->spec.rosette_hz[0] == lsim_sensor_default_prism_hz[0]);
    CHECK(s->spec.rosette_hz[1] == lsim_sensor_default_prism_hz[1]);
    double spread = spread_deg(s);
    printf("  inline rosette, default prism rates: beams spread over %.2f deg (fov 30)\n", spread);
    CHECK(spread > 20.0 && spread <= 30.0 + 1e-4);
    lsim_sensor_spec preset;
    REQUIRE_OK(ctx, lsim_sensor_spec_from_preset(ctx, "livox-mid40", &preset));
    CHECK(preset.rosette_hz[0] == s->spec.rosette_hz[0] && preset.rosette_hz[1] == s->spec.rosette_hz[1]);
    lsim_sensor_spec_free(&preset);
    lsim_sensor_destroy(s);

    /* prism_hz sets the rates */
    REQUIRE_OK(ctx, load(ctx, "  type: rosette\n  points: 2000\n  fov_deg: 20\n  prism_hz: [120, -74.5]\n", &s));
    CHECK(s->spec.rosette_hz[0] == 120 && s->spec.rosette_hz[1] == -74.5);
    spread = spread_deg(s);
    CHECK(spread > 12.0 && spread <= 20.0 + 1e-4);
    lsim_sensor_destroy(s);

    /* on the preset too */
    REQUIRE_OK(ctx, load(ctx, "  preset: livox-mid40\n  prism_hz: [300, -185]\n", &s));
    CHECK(s->spec.rosette_hz[0] == 300 && s->spec.rosette_hz[1] == -185);
    CHECK(s->spec.rosette_points == 10000);
    lsim_sensor_destroy(s);
}

static void test_prism_hz_errors(lsim_context *ctx)
{
    static const char *const equal[] = {SCENE_PATH ":5:", "sensor.prism_hz", "250", "must differ", NULL};
    expect_error(ctx, "equal rates", "  type: rosette\n  points: 1000\n  fov_deg: 30\n  prism_hz: [250, 250]\n",
                 equal);
    static const char *const zero[] = {SCENE_PATH ":5:", "sensor.prism_hz[1]", "0 Hz", "non-zero", NULL};
    expect_error(ctx, "zero rate", "  type: rosette\n  points: 1000\n  fov_deg: 30\n  prism_hz: [250, 0]\n", zero);
    static const char *const inf[] = {"sensor.prism_hz[0]", "finite", NULL};
    expect_error(ctx, "infinite rate", "  type: rosette\n  points: 1000\n  fov_deg: 30\n  prism_hz: [.inf, 3]\n",
                 inf);
    static const char *const count[] = {"sensor.prism_hz", NULL};
    expect_error(ctx, "one rate", "  type: rosette\n  points: 1000\n  fov_deg: 30\n  prism_hz: [250]\n", count);
    static const char *const rotating[] = {"sensor.prism_hz", "does not apply to a rotating sensor",
                                           "only to rosette", NULL};
    expect_error(ctx, "prism_hz on a rotating preset", "  preset: vlp16\n  prism_hz: [250, -150]\n", rotating);
    static const char *const planar[] = {"sensor.prism_hz", "planar", NULL};
    expect_error(ctx, "prism_hz on a planar sensor",
                 "  type: planar\n  fov_deg: 180\n  steps: 100\n  prism_hz: [250, -150]\n", planar);
}

static void test_bounds(lsim_context *ctx)
{
    static const char *const rate_tiny[] = {SCENE_PATH ":3:", "sensor.rate_hz", "1e-300", "[1e-3, 1e6]", NULL};
    expect_error(ctx, "rate_hz 1e-300", "  preset: vlp16\n  rate_hz: 1e-300\n", rate_tiny);
    static const char *const rate_big[] = {"sensor.rate_hz", "2e+06", NULL};
    expect_error(ctx, "rate_hz 2e6", "  preset: vlp16\n  rate_hz: 2e6\n", rate_big);
    static const char *const range_big[] = {SCENE_PATH ":3:", "sensor.range", "max 1e+07 m", "<= 1e6 m", NULL};
    expect_error(ctx, "range max 1e7", "  preset: vlp16\n  range: [0.5, 1e7]\n", range_big);
    static const char *const pos_far[] = {SCENE_PATH ":3:", "sensor.position", "y = 1e+19 m",
                                          "within \u00b11e7 m", NULL};
    expect_error(ctx, "position 1e19", "  preset: vlp16\n  position: [0, 1e19, 0]\n", pos_far);
    static const char *const rot_inf[] = {"sensor.rotation[1]", "finite", NULL};
    expect_error(ctx, "rotation inf", "  preset: vlp16\n  rotation: [0, .inf, 0]\n", rot_inf);

    /* the limits themselves load */
    lsim_sensor *s;
    /* (a planar preset: a Velodyne's columns follow from its rate, 18 million at 0.001 Hz) */
    REQUIRE_OK(ctx, load(ctx, "  preset: rplidar-a1\n  rate_hz: 0.001\n  range: [0, 1e6]\n  position: [1e7, -1e7, 0]\n",
                         &s));
    CHECK(s->spec.rate_hz == 1e-3 && s->spec.range_max == 1e6 && s->position[0] == 1e7 && s->position[1] == -1e7);
    lsim_sensor_destroy(s);
}

int main(void)
{
    lsim_context *ctx;
    if (lsim_context_create(&ctx) != LSIM_OK)
        return 1;
    test_inline_rosette(ctx);
    test_prism_hz_errors(ctx);
    test_bounds(ctx);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_sensor_yaml");
}
