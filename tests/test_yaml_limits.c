/* Bounded, well-reported YAML: syntax errors name where the unclosed construct began and where the
 * parser noticed; nesting, value count and size limits; hashed material and label lookups (30k of
 * each load in well under a second); absurd sensor and kernel requests refused up front. */
#include "files.h"
#include "harness.h"

#include "lidarsim.h"
#include "calib/calib_config.h"
#include "calib/calibration.h"
#include "optics/blooming.h"
#include "scene/scene.h"
#include "scene/yaml_doc.h"
#include "sensor/sensor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PATH "test_yaml_limits.tmp.yaml"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Load `text` as a scene (with a sensor); it must fail with every string of `contains` (NULL-ended). */
static void expect_scene_error(lsim_context *ctx, const char *what, const char *text, const char *const *contains)
{
    write_text(PATH, text);
    lsim_scene *scene = NULL;
    lsim_sensor *sensor = NULL;
    lsim_status st = lsim_scene_load(ctx, PATH, &scene, &sensor);
    const char *msg = lsim_context_last_error(ctx);
    CHECK(report_case(what, st == LSIM_ERR_PARSE && !scene && !sensor && contains_all(msg, contains), st, msg));
    lsim_scene_destroy(scene);
    lsim_sensor_destroy(sensor);
    remove(PATH);
}

#define EXPECT(ctx, what, text, ...)                                      \
    do {                                                                  \
        const char *const c_[] = {__VA_ARGS__, NULL};                     \
        expect_scene_error(ctx, what, text, c_);                          \
    } while (0)

static void syntax_errors(lsim_context *ctx)
{
    /* an unclosed `{` on line 4, found only at the end of the file (line 5) */
    EXPECT(ctx, "unclosed brace at the end",
           "sensor: {preset: vlp16}\n"
           "objects:\n"
           "  - sphere: {radius: 1}\n"
           "  - box: {size: [1, 1, 1]\n",
           PATH ":4:10: objects[1].box: the `{` opened here is never closed",
           "the parser noticed at the end of the file, 5:1: did not find expected ',' or '}'", "add the missing `}`");
    /* the same `{` on line 3, noticed where the next list item starts */
    EXPECT(ctx, "unclosed brace",
           "sensor: {preset: vlp16}\n"
           "objects:\n"
           "  - box: {size: [1, 1, 1]\n"
           "  - sphere: {radius: 1}\n"
           "    position: [5, 0, 0]\n",
           PATH ":3:10: objects[0].box: the `{` opened here is not closed before 4:3",
           "(the parser noticed there: did not find expected ',' or '}'", "a missing `,` or `}`?");
    /* an unclosed `[` on line 4: the next line is read as one more item, until `material: default` */
    EXPECT(ctx, "unclosed bracket",
           "sensor: {preset: vlp16}\n"
           "objects:\n"
           "  - box: {size: [1, 1, 1]}\n"
           "    position: [5, 0, 0\n"
           "    material: default\n",
           PATH ":4:15: objects[0].position: the `[` opened here is not closed before 5:13",
           "did not find expected ',' or ']'");
    EXPECT(ctx, "missing comma",
           "sensor: {preset: vlp16}\n"
           "objects:\n"
           "  - box: {size: [1, 1, 1] position: [5, 0, 0]}\n",
           PATH ":3:10: objects[0].box: the `{` opened here is not closed before 3:27",
           "did not find expected ',' or '}'", "a missing `,` or `}`?");
    /* block structure: where the parser noticed, and where the enclosing collection began */
    EXPECT(ctx, "bad indentation",
           "sensor: {preset: vlp16}\n"
           "objects:\n"
           "  - box: {size: [1, 1, 1]}\n"
           "    position: [5, 0, 0]\n"
           "   material: default\n",
           PATH ":5:4: objects: YAML syntax error: did not find expected '-' indicator", "that starts at 3:3");
    EXPECT(ctx, "unclosed quote",
           "sensor: {preset: vlp16}\n"
           "materials:\n"
           "  a: {brdf: \"lambertian, reflectance: 0.5}\n"
           "objects:\n"
           "  - box: {size: [1, 1, 1]}\n",
           PATH ":6:1: materials.a.brdf: YAML syntax error: found unexpected end of stream",
           "quoted scalar that starts at 3:13");
    EXPECT(ctx, "undefined alias", "sensor: {preset: vlp16}\nobjects:\n  - box: *nope\n", PATH ":3:10:",
           "undefined alias", "needs an anchor `&name`");

    /* the calibration file and the calibration config share the loader */
    write_text(PATH, "lidarsim_calibration: 1\nsensor: s\nmaterials:\n  - {name: wall, bins: [\n");
    lsim_calibration cal;
    memset(&cal, 0, sizeof cal);
    CHECK(lsim_calibration_read(ctx, PATH, &cal) == LSIM_ERR_PARSE);
    printf("  calibration: %s\n", lsim_context_last_error(ctx));
    CHECK(strstr(lsim_context_last_error(ctx), PATH ":4:24: materials[0].bins: the `[` opened here is never closed"));
    write_text(PATH, "sensor: s\nmaterials:\n  - name: wall\n    file: {a: 1\n");
    lsim_calib_config cfg;
    CHECK(lsim_calib_config_read(ctx, PATH, &cfg) == LSIM_ERR_PARSE);
    printf("  calibration config: %s\n", lsim_context_last_error(ctx));
    CHECK(strstr(lsim_context_last_error(ctx), PATH ":4:11: materials[0].file: the `{` opened here is never closed"));
    remove(PATH);
}

/* 100k nested `[`: refused at the 65th level at once (it took 16 to 70 s before the limit). */
static void nesting(lsim_context *ctx)
{
    size_t n = 100000;
    char *text = malloc(n + 64);
    strcpy(text, "sensor: {preset: vlp16}\nobjects: ");
    size_t len = strlen(text);
    memset(text + len, '[', n);
    strcpy(text + len + n, "\n");
    double t0 = now_s();
    EXPECT(ctx, "100k nested brackets", text, PATH ":2:73: objects[0][0][0]", "...: nesting deeper than 64 levels",
           "look for `[` or `{` that are never closed");
    double dt = now_s() - t0;
    printf("  100k nested brackets refused in %.3f s\n", dt);
    CHECK(dt < lsim_test_time_limit(5.0)); /* a hang catcher: linear, not quadratic, in the depth */
    /* 60 levels, closed: the YAML is fine; the scene reader then names the first wrong value */
    len = strlen("sensor: {preset: vlp16}\nobjects: ");
    memset(text + len, '[', 60);
    memset(text + len + 60, ']', 60);
    strcpy(text + len + 120, "\n");
    EXPECT(ctx, "60 nested brackets", text, PATH ":2:11: objects[0]: expected a mapping");
    free(text);
}

/* More than LSIM_YAML_MAX_NODES values: refused by the first pass, naming the limit. */
static void node_limit(lsim_context *ctx)
{
    size_t n = LSIM_YAML_MAX_NODES + 10;
    char *text = malloc(2 * n + 64);
    strcpy(text, "sensor: {preset: vlp16}\nobjects: [");
    size_t len = strlen(text);
    for (size_t i = 0; i < n; ++i) {
        text[len++] = '0';
        text[len++] = ',';
    }
    strcpy(text + len, "0]\n");
    double t0 = now_s();
    EXPECT(ctx, "2M values", text, PATH ":2:", "objects: more than 2000000 YAML values", "mesh files");
    printf("  %zu values refused in %.3f s\n", n, now_s() - t0);
    free(text);
}

/* Aliases share one node: a "billion laughs" document stays as small as its text, and every
 * reader walks a fixed-depth schema, so it is rejected quickly at the first wrong value. */
static void aliases(lsim_context *ctx)
{
    double t0 = now_s();
    EXPECT(ctx, "billion laughs",
           "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
           "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
           "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
           "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
           "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
           "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
           "g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n"
           "h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g, *g]\n"
           "i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h, *h]\n",
           PATH ":1:1: (top level): an unknown key (the top level holds none of the valid keys");
    EXPECT(ctx, "laughs as elevations",
           "sensor:\n  type: rotating\n  columns: 10\n  elevations: &a [1, 2]\n  channels: 2\n"
           "objects: &o [*o, *o]\n",
           PATH ":6:10: objects[0]: expected a mapping");
    CHECK(now_s() - t0 < lsim_test_time_limit(2.0)); /* a hang catcher (tests/harness.h) */
}

/* 30k materials, 30k objects and labels: hashed lookups; duplicates still reported. */
static void many_names(lsim_context *ctx)
{
    const int n = 30000;
    FILE *f = fopen(PATH, "w");
    fprintf(f, "sensor: {type: planar, fov_deg: 90, steps: 2, range: [0.1, 100]}\nlabels:\n");
    for (int i = 0; i < 1000; ++i)
        fprintf(f, "  given%d: %d\n", i, 20000 + i);
    for (int i = 0; i < n; i += 2) /* new classes are declared (automatic ids, in this order) */
        fprintf(f, "  c%d: auto\n", i);
    fprintf(f, "materials:\n");
    for (int i = 0; i < n; ++i)
        fprintf(f, "  m%d: {brdf: lambertian, reflectance: %.2f}\n", i, 0.1 + 0.01 * (i % 80));
    fprintf(f, "objects:\n");
    for (int i = 0; i < n; ++i)
        fprintf(f, "  - sphere: {radius: 0.2}\n    position: [%d, %d, 50]\n    material: m%d\n    label: %s%d\n",
                i % 200, i / 200, i, i % 2 ? "given" : "c", i % 2 ? (i / 2) % 1000 : i);
    fclose(f);
    double t0 = now_s();
    lsim_scene *scene = NULL;
    lsim_sensor *sensor = NULL;
    REQUIRE_OK(ctx, lsim_scene_load(ctx, PATH, &scene, &sensor));
    double dt = now_s() - t0;
    printf("  %d materials and objects loaded in %.3f s\n", n, dt);
    CHECK(scene->material_count == (size_t)n + 1);
    CHECK(scene->object_count == (size_t)n);
    CHECK(lsim_scene_find_material(scene, "m29999") == n);
    CHECK(lsim_scene_find_material(scene, "m0") == 1);
    CHECK(lsim_scene_find_material(scene, "default") == 0);
    CHECK(lsim_scene_find_material(scene, "m30000") == -1);
    CHECK(scene->objects[n - 1].material == (uint32_t)n);
    CHECK(scene->objects[12345].material == 12346u);
    /* object 1: "given0" -> 20000 from `labels:`; object 0: c0, the first automatic id -> 100; object 2: c2 -> 101 */
    CHECK(scene->objects[1].label == 20000u);
    CHECK(scene->objects[n - 1].label == 20000u + (uint32_t)(((n - 1) / 2) % 1000));
    CHECK(scene->objects[0].label == 100u);
    CHECK(scene->objects[2].label == 101u);
    /* c0 .. c29998 (15000 names) take 100.. skipping 252..259 (SemanticKITTI's moving classes) */
    CHECK(scene->objects[n - 2].label == 100u + (uint32_t)(n / 2 - 1) + 8u);
    lsim_sensor_destroy(sensor);
    lsim_scene_destroy(scene);

    /* a duplicate name at the very end is still found and reported at its line */
    f = fopen(PATH, "w");
    fprintf(f, "sensor: {preset: vlp16}\nmaterials:\n");
    for (int i = 0; i < n; ++i)
        fprintf(f, "  m%d: {brdf: lambertian, reflectance: 0.5}\n", i);
    fprintf(f, "  m17: {brdf: lambertian, reflectance: 0.5}\nobjects: []\n");
    fclose(f);
    char line[160];
    snprintf(line, sizeof line, PATH ":%d:3: materials: 'm17' appears twice (first on line 20)", n + 3);
    lsim_scene *s2 = NULL;
    CHECK(lsim_scene_load(ctx, PATH, &s2, NULL) == LSIM_ERR_PARSE);
    printf("  duplicate: %s\n", lsim_context_last_error(ctx));
    CHECK(strstr(lsim_context_last_error(ctx), line) != NULL);
    lsim_scene_destroy(s2);
    remove(PATH);
}

static void sensor_limits(lsim_context *ctx)
{
    const char *head = "objects:\n  - box: {size: [1, 1, 1]}\n    position: [5, 0, 0]\nsensor:\n";
    char text[1024];
#define SENSOR(body) (snprintf(text, sizeof text, "%s%s", head, body), text)
    EXPECT(ctx, "1e12 columns", SENSOR("  type: rotating\n  channels: 2\n  elevations: [0, 1]\n  columns: 1e12\n"),
           PATH ":8:12: sensor.columns: 1e12 is out of range; valid: 1 to 10000000");
    EXPECT(ctx, "2^31 steps", SENSOR("  type: planar\n  fov_deg: 90\n  steps: 2147483648\n"),
           PATH ":7:10: sensor.steps: 2147483648 is out of range; valid: 1 to 10000000");
    EXPECT(ctx, "huge steps", SENSOR("  type: planar\n  fov_deg: 90\n  steps: 99999999999999999999999\n"),
           "sensor.steps: 99999999999999999999999 is out of range; valid: 1 to 10000000");
    EXPECT(ctx, "1024 x 1e7", SENSOR("  type: rotating\n  channels: 1024\n  elevation_min: -10\n  elevation_max: 10\n"
                                     "  columns: 10000000\n"),
           "sensor.channels x sensor.columns: 10240000000 beams per frame, at most 100000000 (1e8) allowed",
           "lower the channels or columns");
    EXPECT(ctx, "16384^2 camera", SENSOR("  type: camera\n  width: 16384\n  height: 16384\n  hfov_deg: 60\n"
                                         "  vfov_deg: 40\n"),
           "sensor.width x sensor.height: 268435456 beams per frame, at most 100000000 (1e8) allowed");
    EXPECT(ctx, "1e9 rosette points", SENSOR("  type: rosette\n  points: 1000000000\n  fov_deg: 38\n"),
           PATH ":6:11: sensor.points: 1000000000 is out of range; valid: 1 to 100000000");
    EXPECT(ctx, "max_bounces 1e6", "max_bounces: 1000000\nsensor: {preset: vlp16}\nobjects: []\n",
           PATH ":1:14: max_bounces: 1000000 is out of range; valid: 0 to 16");
    EXPECT(ctx, "rings 100", SENSOR("  preset: vlp16\n  beam: {mode: rays, divergence_mrad: 3, rings: 100}\n"),
           "sensor.beam.rings: 100 is out of range; valid: 1 to 8");
    EXPECT(ctx, "range bins", SENSOR("  preset: vlp16\n  range: [0.5, 100000]\n"
                                     "  beam: {mode: kernel, divergence_mrad: 3, range_bin: 0.001}\n"),
           "sensor.beam.range_bin: 0.001 m over a range of 100000 m makes 100000000 range bins, at most 4194304",
           "use a coarser range_bin");
    EXPECT(ctx, "kernel extent", SENSOR("  preset: vlp16\n  beam: {mode: kernel, divergence_mrad: 0.001, "
                                        "kernel: {halo_extent_deg: 20, core_fwhm_deg: 0.0001}}\n"),
           "sensor.beam.kernel: a 20 deg halo sampled at 2.5e-05 deg", "at most 4096");
#undef SENSOR
}

static void expect_kernel_error(lsim_context *ctx, const char *text, const char *needle)
{
    write_text("test_yaml_limits.tmp.kernel", text);
    lsim_kernel k;
    lsim_status st = lsim_kernel_read(ctx, "test_yaml_limits.tmp.kernel", &k);
    const char *msg = lsim_context_last_error(ctx);
    printf("  kernel: %s\n", msg);
    CHECK(st == LSIM_ERR_PARSE);
    CHECK(strstr(msg, needle) != NULL);
    if (st == LSIM_OK)
        lsim_kernel_free(&k);
    remove("test_yaml_limits.tmp.kernel");
}

static void kernel_limits(lsim_context *ctx)
{
    expect_kernel_error(ctx, "step_deg: 1.7e308\nh: 1 2 1\nv: 1\n",
                        "test_yaml_limits.tmp.kernel:1: step_deg 1.7e+308 is out of range; valid: 1e-05 to 10 degrees");
    expect_kernel_error(ctx, "step_deg: 1e-300\nh: 1\nv: 1\n", "step_deg 1e-300 is out of range");
    char wide[512] = "# wide\nstep_deg: 1\nh:";
    for (int i = 0; i < 93; ++i)
        strcat(wide, i == 46 ? " 1" : " 0");
    strcat(wide, "\nv: 1\n");
    expect_kernel_error(ctx, wide, "test_yaml_limits.tmp.kernel:2: the kernel reaches 46 degrees from its centre (46 "
                                   "samples x step_deg 1), more than 45");
    /* a 2-D array of 2049 x 2049 weights is refused at the row where it passes 2048^2 */
    FILE *f = fopen("test_yaml_limits.tmp.kernel", "w");
    fprintf(f, "step_deg: 0.001\n");
    for (int r = 0; r < 2049; ++r) {
        for (int c = 0; c < 2049; ++c)
            fputs(c ? " 1" : "1", f);
        fputc('\n', f);
    }
    fclose(f);
    lsim_kernel k;
    CHECK(lsim_kernel_read(ctx, "test_yaml_limits.tmp.kernel", &k) == LSIM_ERR_PARSE);
    printf("  kernel: %s\n", lsim_context_last_error(ctx));
    CHECK(strstr(lsim_context_last_error(ctx), "test_yaml_limits.tmp.kernel:2049: the 2-D array has more than 4194304 "
                                               "weights (2048 x 2048)") != NULL);
    remove("test_yaml_limits.tmp.kernel");
}

int main(void)
{
    lsim_context *ctx = NULL;
    REQUIRE_OK(ctx, lsim_context_create(&ctx));
    syntax_errors(ctx);
    nesting(ctx);
    node_limit(ctx);
    aliases(ctx);
    many_names(ctx);
    sensor_limits(ctx);
    kernel_limits(ctx);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_yaml_limits");
}
