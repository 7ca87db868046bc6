/* The engine seam: the stages after geometry do not know which engine ran. The Embree engine and
 * the brute-force test engine (double-precision, every triangle) must give the same points on
 * scenes that use every kind of ray the pipeline issues: primary rays, mirror and glass bounces
 * (one batch per depth), shadow rays for sunlight and for a bistatic receiver, and rays at each
 * beam's time against a moving object seen through a mirror.
 * The moving scene also has an analytic answer: a box face moving at v along +y toward a mirror
 * on the plane x + y = 15 appears as a ghost at x = 15 - y_face(t), so x + v t is constant. */
#include "harness.h"
#include "files.h"
#include "scan_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const corridor =
    "sensor:\n"
    "  preset: vlp16\n"
    "  position: [0, 0, 1.2]\n"
    "%s"
    "materials:\n"
    "  wall:   {brdf: lambertian, reflectance: 0.5}\n"
    "  floor:  {brdf: oren-nayar, reflectance: 0.3, roughness: 0.5}\n"
    "  mirror: {brdf: mirror, reflectance: 0.95}\n"
    "  pane:   {brdf: glass, ior: 1.5, transmittance: 0.9}\n"
    "objects:\n"
    "  - plane: {size: [30, 4]}\n"
    "    position: [5, 0, 0]\n"
    "    material: floor\n"
    "    label: road\n"
    "  - box: {size: [18, 0.2, 3]}\n"
    "    position: [4, 2.1, 1.5]\n"
    "    material: wall\n"
    "    label: building\n"
    "  - box: {size: [18, 0.2, 3]}\n"
    "    position: [4, -2.1, 1.5]\n"
    "    material: %s\n"
    "    label: building\n"
    "  - plane: {size: [5.6, 3]}\n"
    "    position: [15, 0, 1.5]\n"
    "    rotation: [0, 90, 45]\n"
    "    material: mirror\n"
    "    label: pole\n"
    "  - box: {size: [0.6, 0.6, 1.8]}\n"
    "    position: [15, -6, 0.9]\n"
    "    material: wall\n"
    "    label: person\n"
    "%s"
    "  - box: {size: [10, 0.2, 3]}\n"
    "    position: [15, -9, 1.5]\n"
    "    material: wall\n"
    "    label: building\n"
    "  - plane: {size: [3, 3]}\n"
    "    position: [-6, 0, 1.5]\n"
    "    rotation: [0, 90, 0]\n"
    "    material: pane\n"
    "    label: vegetation\n"
    "  - box: {size: [1, 4, 3]}\n"
    "    position: [-9, 0, 1.5]\n"
    "    material: wall\n"
    "    label: building\n"
    "%s";

#define PERSON_SPEED 20.0 /* m/s along +y, toward the mirror */

static lsim_points *scan_file(lsim_context *ctx, const char *path, lsim_engine_kind engine, int noise, int threads)
{
    lsim_scene *scene;
    lsim_sensor *sensor;
    REQUIRE_OK(ctx, lsim_scene_load(ctx, path, &scene, &sensor));
    REQUIRE_OK(ctx, lsim_scene_set_engine(scene, engine));
    lsim_scan_options opt;
    lsim_scan_options_init(&opt);
    opt.noise = noise;
    opt.seed = 5;
    opt.threads = threads;
    opt.frame = LSIM_FRAME_WORLD;
    lsim_points *p = NULL;
    REQUIRE_OK(ctx, lsim_scene_scan(scene, sensor, &opt, &p));
    lsim_sensor_destroy(sensor);
    lsim_scene_destroy(scene);
    return p;
}

/* Same points from both engines: count, beam, label, range (float against double arithmetic). */
static void same_points(const char *what, const lsim_points *a, const lsim_points *b, double range_tol)
{
    const size_t n = lsim_points_count(a);
    CHECK(n > 1000);
    CHECK(lsim_points_count(b) == n);
    if (lsim_points_count(b) != n) {
        fprintf(stderr, "%s: %zu points (embree) vs %zu (brute)\n", what, n, lsim_points_count(b));
        return;
    }
    const float *ra = fixture_f32(a, LSIM_FIELD_RANGE), *rb = fixture_f32(b, LSIM_FIELD_RANGE);
    const float *ia = fixture_f32(a, LSIM_FIELD_INTENSITY), *ib = fixture_f32(b, LSIM_FIELD_INTENSITY);
    const float *aa = fixture_f32(a, LSIM_FIELD_AZIMUTH), *ab = fixture_f32(b, LSIM_FIELD_AZIMUTH);
    const uint32_t *la = lsim_points_column(a, LSIM_FIELD_LABEL), *lb = lsim_points_column(b, LSIM_FIELD_LABEL);
    size_t label_diff = 0, az_diff = 0;
    double worst = 0.0, worst_i = 0.0;
    for (size_t i = 0; i < n; ++i) {
        label_diff += la[i] != lb[i];
        az_diff += aa[i] != ab[i];
        double d = fabs((double)ra[i] - rb[i]);
        worst = d > worst ? d : worst;
        double di = fabs((double)ia[i] - ib[i]) / fmax(1e-6, fabs(ia[i]));
        worst_i = di > worst_i ? di : worst_i;
    }
    fprintf(stderr, "%s: %zu points, worst range difference %.3g m, worst relative intensity difference %.3g\n",
            what, n, worst, worst_i);
    CHECK(label_diff == 0);
    CHECK(az_diff == 0);
    CHECK(worst < range_tol);
    CHECK(worst_i < 1e-3);
}

/* Points with a label id (SemanticKITTI: 30 is person). */
static size_t count_label(const lsim_points *p, uint32_t id)
{
    const uint32_t *l = lsim_points_column(p, LSIM_FIELD_LABEL);
    size_t c = 0;
    for (size_t i = 0; i < lsim_points_count(p); ++i)
        c += l[i] == id;
    return c;
}

/* The ghost of the moving person's face: x + v t = 15 - y_face(0) = 20.7 for every point on it. */
static void moving_ghost(const lsim_points *p, const char *engine)
{
    const float *x = fixture_f32(p, LSIM_FIELD_X), *ny = fixture_f32(p, LSIM_FIELD_NY);
    const float *t = fixture_f32(p, LSIM_FIELD_TIME);
    const uint32_t *label = lsim_points_column(p, LSIM_FIELD_LABEL);
    size_t face = 0;
    double worst = 0.0, tmin = 1e9, tmax = -1e9;
    for (size_t i = 0; i < lsim_points_count(p); ++i) {
        if (!(label[i] == 30 && fabsf(ny[i]) > 0.99f && x[i] > 17.0f)) /* the person's face, behind the mirror */
            continue;
        ++face;
        double d = fabs(x[i] + PERSON_SPEED * t[i] - 20.7);
        if (d > 1e-3 && getenv("LSIM_TEST_VERBOSE"))
            fprintf(stderr, "  x %.4f ny %.3f t %.5f\n", x[i], ny[i], t[i]);
        worst = d > worst ? d : worst;
        tmin = t[i] < tmin ? t[i] : tmin;
        tmax = t[i] > tmax ? t[i] : tmax;
    }
    fprintf(stderr, "%s: %zu ghost points of the moving face over %.4f..%.4f s, worst |x + v t - 20.7| = %.3g m\n",
            engine, face, tmin, tmax, worst);
    CHECK(face > 20);
    CHECK(worst < 1e-3);
    CHECK(PERSON_SPEED * (tmax - tmin) > 0.02); /* the face moved visibly while it was seen */
}

int main(void)
{
    lsim_context *ctx;
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    scratch_make("engine_seam");
    const char *src = getenv("LSIM_SOURCE_DIR");
    char path[512];

    /* The shipped mirror and glass examples. */
    const char *examples[] = {"mirror_corridor", "glass_facade"};
    for (int e = 0; e < 2; ++e) {
        snprintf(path, sizeof path, "%s/examples/%s/%s.yaml", src ? src : "..", examples[e], examples[e]);
        lsim_points *a = scan_file(ctx, path, LSIM_ENGINE_EMBREE, 0, 2);
        lsim_points *b = scan_file(ctx, path, LSIM_ENGINE_BRUTE, 0, 2);
        same_points(examples[e], a, b, 2e-4);
        lsim_points_destroy(a);
        lsim_points_destroy(b);
    }

    /* Mirror, thick and thin glass, a bistatic receiver and sunlight in one scene; with noise on
     * too (same seed: same draws), and with the person moving. */
    char text[4096];
    snprintf(text, sizeof text, corridor, "  baseline: [0, 0.08, 0.05]\n", "pane", "",
             "ambient: {sun_direction: [-1, -0.4, 0.6], irradiance_w_m2: 600}\n");
    const char *lit = scratch_write_text("lit.yaml", text);
    char lit_path[256];
    snprintf(lit_path, sizeof lit_path, "%s", lit);
    lsim_points *a = scan_file(ctx, lit_path, LSIM_ENGINE_EMBREE, 0, 1);
    lsim_points *b = scan_file(ctx, lit_path, LSIM_ENGINE_BRUTE, 0, 2);
    same_points("mirror + glass + baseline + sun", a, b, 2e-4);
    CHECK(count_label(a, 30) > 20); /* seen through the mirror */
    lsim_points_destroy(a);
    lsim_points_destroy(b);

    char moving[128];
    snprintf(moving, sizeof moving, "    velocity: [0, %g, 0]\n", PERSON_SPEED);
    snprintf(text, sizeof text, corridor, "", "wall", moving, "");
    const char *mv = scratch_write_text("moving.yaml", text);
    snprintf(path, sizeof path, "%s", mv);
    a = scan_file(ctx, path, LSIM_ENGINE_EMBREE, 0, 2);
    b = scan_file(ctx, path, LSIM_ENGINE_BRUTE, 0, 1);
    same_points("moving person through a mirror", a, b, 2e-4);
    moving_ghost(a, "embree");
    moving_ghost(b, "brute");
    lsim_points_destroy(a);
    lsim_points_destroy(b);

    /* Thread counts do not change a frame with paths and shadow rays (groups follow the slice). */
    a = scan_file(ctx, lit_path, LSIM_ENGINE_EMBREE, 1, 1);
    b = scan_file(ctx, lit_path, LSIM_ENGINE_EMBREE, 1, 3);
    CHECK(lsim_points_count(a) == lsim_points_count(b));
    if (lsim_points_count(a) == lsim_points_count(b)) {
        const float *ra = fixture_f32(a, LSIM_FIELD_RANGE), *rb = fixture_f32(b, LSIM_FIELD_RANGE);
        CHECK(memcmp(ra, rb, lsim_points_count(a) * sizeof *ra) == 0);
    }
    lsim_points_destroy(a);
    lsim_points_destroy(b);

    scratch_remove();
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_engine_seam");
}
