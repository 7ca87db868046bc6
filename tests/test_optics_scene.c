/* Optics through whole scans, against closed forms: mirror ghosts, glass panes with two echoes,
 * BRDFs in the range equation, echo pulse width, sub-ray mixed pixels, sunlight, fog, the
 * emitter-receiver baseline, and blooming of a retroreflective sign (Alg. 1 = Alg. 2). */
#include "harness.h"
#include "scan_fixture.h"
#include "test_scenes.h"

#include "optics/brdf.h"

#include <string.h>

#define PI 3.14159265358979323846

typedef struct grid {
    size_t n;
    double az[4096], el[4096];
} grid;

static lsim_sensor *pattern(lsim_context *ctx, const double *az, const double *el, size_t n)
{
    lsim_sensor *s;
    REQUIRE_OK(ctx, lsim_sensor_create_pattern(ctx, n, az, el, NULL, NULL, &s));
    const double zero[3] = {0, 0, 0};
    REQUIRE_OK(ctx, lsim_sensor_set_pose(s, zero, zero));
    REQUIRE_OK(ctx, lsim_sensor_set_range(s, 0.1, 100.0));
    return s;
}

static lsim_points *scan(lsim_context *ctx, lsim_scene *scene, lsim_sensor *s, int noise, uint64_t seed)
{
    lsim_scan_options opt;
    lsim_scan_options_init(&opt);
    opt.noise = noise;
    opt.seed = seed;
    lsim_points *p;
    REQUIRE_OK(ctx, lsim_scene_scan(scene, s, &opt, &p));
    return p;
}

/* A square wall `size` metres wide of `material` at x, its normal along x. */
static void add_wall(lsim_context *ctx, lsim_scene *scene, const char *material, double x, double size)
{
    test_scene_wall(ctx, scene, material, x, size, size, 90.0, 0.0);
}

static void mirror_ghost(lsim_context *ctx)
{
    /* Beam along +x hits a 45 degree mirror at x = 5, turns to +y, meets a wall at y = 3:
     * the ghost lies along the emitted ray at 5 + 3 = 8 m, with power rho_m^2 rho_w / 8^2. */
    lsim_scene *scene = test_scene_new(ctx, NULL, 0.0);
    lsim_material_desc m;
    lsim_material_desc_init(&m, LSIM_MATERIAL_MIRROR);
    m.reflectance = 0.9;
    REQUIRE_OK(ctx, lsim_scene_add_material(scene, "mirror", &m));
    REQUIRE_OK(ctx, lsim_scene_add_lambertian(scene, "wall", 0.6));
    lsim_object_desc d;
    lsim_object_desc_init(&d);
    d.material = "mirror";
    d.position[0] = 5.0;
    d.rotation_deg[1] = 90.0;  /* normal along -x ... */
    d.rotation_deg[2] = -45.0; /* ... turned to face (-1, 1)/sqrt2 */
    const double mirror_size[2] = {2.0, 2.0};
    REQUIRE_OK(ctx, lsim_scene_add_plane(scene, mirror_size, &d));
    lsim_object_desc_init(&d);
    d.material = "wall";
    d.position[0] = 5.0;
    d.position[1] = 3.0;
    d.rotation_deg[0] = 90.0; /* plane normal along y */
    const double wall_size[2] = {10.0, 10.0};
    REQUIRE_OK(ctx, lsim_scene_add_plane(scene, wall_size, &d));
    double az = 0, el = 0;
    lsim_sensor *s = pattern(ctx, &az, &el, 1);
    lsim_points *p = scan(ctx, scene, s, 0, 1);
    CHECK(lsim_points_count(p) == 1);
    if (lsim_points_count(p) == 1) {
        printf("mirror ghost: range %.6f m at x %.6f, intensity %.6e\n", fixture_f32(p, LSIM_FIELD_RANGE)[0],
               fixture_f32(p, LSIM_FIELD_X)[0], fixture_f32(p, LSIM_FIELD_INTENSITY)[0]);
        CHECK_NEAR(fixture_f32(p, LSIM_FIELD_RANGE)[0], 8.0, 1e-4);
        CHECK_NEAR(fixture_f32(p, LSIM_FIELD_X)[0], 8.0, 1e-4); /* behind the mirror, on the emitted ray */
        CHECK_NEAR(fixture_f32(p, LSIM_FIELD_Y)[0], 0.0, 1e-4);
        CHECK_NEAR(fixture_f32(p, LSIM_FIELD_INTENSITY)[0], 0.81 * 0.6 / 64.0, 1e-6);
    }
    lsim_points_destroy(p);
    /* No bounces: the mirror at 45 degrees returns nothing itself. */
    REQUIRE_OK(ctx, lsim_scene_set_max_bounces(scene, 0));
    p = scan(ctx, scene, s, 0, 1);
    CHECK(lsim_points_count(p) == 0);
    lsim_points_destroy(p);
    lsim_sensor_destroy(s);
    lsim_scene_destroy(scene);
}

static void glass_pane(lsim_context *ctx)
{
    /* A glass pane (thin plane) at 4 m in front of a wall at 10 m: with `all` returns two echoes,
     * the glass's specular one at 4 m and the wall's at 10 m whose intensity is reduced by the
     * pane's two-way transmission ((1 - F)^2 tau)^2, F the normal-incidence Fresnel reflectance. */
    lsim_scene *scene = test_scene_new(ctx, NULL, 0.0);
    lsim_material_desc g;
    lsim_material_desc_init(&g, LSIM_MATERIAL_GLASS);
    g.ior = 1.5;
    g.transmittance = 0.9;
    REQUIRE_OK(ctx, lsim_scene_add_material(scene, "glass", &g));
    REQUIRE_OK(ctx, lsim_scene_add_lambertian(scene, "wall", 0.5));
    add_wall(ctx, scene, "glass", 4.0, 3.0);
    add_wall(ctx, scene, "wall", 10.0, 30.0);
    double az = 0, el = 0;
    lsim_sensor *s = pattern(ctx, &az, &el, 1);
    REQUIRE_OK(ctx, lsim_sensor_set_receiver(s, 5.0, LSIM_RETURNS_ALL, 4));
    lsim_points *p = scan(ctx, scene, s, 0, 1);
    CHECK(lsim_points_count(p) == 2);
    if (lsim_points_count(p) == 2) {
        const float *r = fixture_f32(p, LSIM_FIELD_RANGE), *in = fixture_f32(p, LSIM_FIELD_INTENSITY);
        const uint16_t *idx = lsim_points_column(p, LSIM_FIELD_RETURN_INDEX);
        const uint16_t *num = lsim_points_column(p, LSIM_FIELD_NUM_RETURNS);
        double f = 0.04, t = (1 - f) * (1 - f) * 0.9;
        printf("glass: echoes at %.4f m (%.4g) and %.4f m (%.4g); wall expected %.6g\n", r[0], in[0], r[1], in[1],
               0.5 / 100.0 * t * t);
        CHECK_NEAR(r[0], 4.0, 1e-4);
        CHECK_NEAR(r[1], 10.0, 1e-4);
        CHECK(idx[0] == 0 && idx[1] == 1 && num[0] == 2 && num[1] == 2);
        CHECK_NEAR(in[1], 0.5 / 100.0 * t * t, 1e-7);
        CHECK(in[0] > in[1]); /* the pane at normal incidence is a bright specular echo */
    }
    lsim_points_destroy(p);
    /* dual: strongest and last -> the same two echoes. */
    REQUIRE_OK(ctx, lsim_sensor_set_receiver(s, 5.0, LSIM_RETURNS_DUAL, 2));
    p = scan(ctx, scene, s, 0, 1);
    CHECK(lsim_points_count(p) == 2);
    lsim_points_destroy(p);
    /* last only: the wall. */
    REQUIRE_OK(ctx, lsim_sensor_set_receiver(s, 5.0, LSIM_RETURNS_LAST, 1));
    p = scan(ctx, scene, s, 0, 1);
    CHECK(lsim_points_count(p) == 1 && fabsf(fixture_f32(p, LSIM_FIELD_RANGE)[0] - 10.0f) < 1e-3f);
    lsim_points_destroy(p);
    lsim_sensor_destroy(s);
    lsim_scene_destroy(scene);
}

static void brdfs_in_scan(lsim_context *ctx)
{
    /* A wall turned by 40 degrees: intensity = pi f_r(theta) cos(theta) / R^2 with the BRDF's
     * own backscatter value (optics/brdf.c, tested against closed forms in test_brdf). */
    const lsim_material_type types[3] = {LSIM_MATERIAL_OREN_NAYAR, LSIM_MATERIAL_COOK_TORRANCE,
                                         LSIM_MATERIAL_RETROREFLECTOR};
    const lsim_brdf_kind kinds[3] = {LSIM_BRDF_OREN_NAYAR, LSIM_BRDF_COOK_TORRANCE, LSIM_BRDF_RETROREFLECTOR};
    for (int k = 0; k < 3; ++k) {
        lsim_scene *scene = test_scene_new(ctx, NULL, 0.0);
        lsim_material_desc m;
        lsim_material_desc_init(&m, types[k]);
        REQUIRE_OK(ctx, lsim_scene_add_material(scene, "m", &m));
        lsim_object_desc d;
        lsim_object_desc_init(&d);
        d.material = "m";
        d.position[0] = 12.0;
        d.rotation_deg[1] = 90.0;
        d.rotation_deg[2] = 40.0;
        const double size[2] = {20.0, 20.0};
        REQUIRE_OK(ctx, lsim_scene_add_plane(scene, size, &d));
        double az = 0, el = 0;
        lsim_sensor *s = pattern(ctx, &az, &el, 1);
        lsim_points *p = scan(ctx, scene, s, 0, 1);
        CHECK(lsim_points_count(p) == 1);
        if (lsim_points_count(p) == 1) {
            lsim_brdf b;
            lsim_brdf_defaults(&b, kinds[k]);
            double c = cos(40.0 * PI / 180.0);
            double expected = PI * lsim_brdf_backscatter(&b, c) * c / (12.0 * 12.0);
            CHECK_NEAR(fixture_f32(p, LSIM_FIELD_INTENSITY)[0] / expected, 1.0, 2e-4);
            CHECK_NEAR(fixture_f32(p, LSIM_FIELD_INCIDENCE)[0], 40.0, 1e-3);
        }
        lsim_points_destroy(p);
        lsim_sensor_destroy(s);
        lsim_scene_destroy(scene);
    }
}

static void epw_grows(lsim_context *ctx)
{
    /* Echo pulse width grows with reflectance for perpendicular targets, and with the
     * footprint's range spread at grazing incidence. */
    double last = 0.0;
    const double rho[4] = {0.05, 0.2, 0.5, 1.0};
    for (int k = 0; k < 4; ++k) {
        lsim_scene *scene = test_scene_new(ctx, NULL, 0.0);
        REQUIRE_OK(ctx, lsim_scene_add_lambertian(scene, "m", rho[k]));
        add_wall(ctx, scene, "m", 20.0, 20.0);
        double az = 0, el = 0;
        lsim_sensor *s = pattern(ctx, &az, &el, 1);
        lsim_points *p = scan(ctx, scene, s, 0, 1);
        double epw = lsim_points_count(p) == 1 ? fixture_f32(p, LSIM_FIELD_EPW)[0] : 0.0;
        printf("epw at rho %.2f: %.4f m\n", rho[k], epw);
        CHECK(epw > last);
        last = epw;
        lsim_points_destroy(p);
        lsim_sensor_destroy(s);
        lsim_scene_destroy(scene);
    }
    /* Grazing: a ground plane seen at 80 degrees with a 3 mrad beam has a wider echo than the
     * same return at normal incidence with the same peak. */
    lsim_scene *scene = test_scene_new(ctx, NULL, 0.0);
    REQUIRE_OK(ctx, lsim_scene_add_lambertian(scene, "m", 1.0));
    lsim_object_desc d;
    lsim_object_desc_init(&d);
    d.material = "m";
    d.position[2] = -2.0;
    const double ground[2] = {200.0, 200.0};
    REQUIRE_OK(ctx, lsim_scene_add_plane(scene, ground, &d));
    double az = 0, el = -10.0;
    lsim_sensor *s = pattern(ctx, &az, &el, 1);
    REQUIRE_OK(ctx, lsim_sensor_set_beam(s, 3.0, LSIM_BEAM_SINGLE, 1));
    lsim_points *p = scan(ctx, scene, s, 0, 1);
    CHECK(lsim_points_count(p) == 1);
    double grazing = lsim_points_count(p) ? fixture_f32(p, LSIM_FIELD_EPW)[0] : 0.0;
    lsim_points_destroy(p);
    REQUIRE_OK(ctx, lsim_sensor_set_beam(s, 0.0, LSIM_BEAM_SINGLE, 1));
    p = scan(ctx, scene, s, 0, 1);
    double sharp = lsim_points_count(p) ? fixture_f32(p, LSIM_FIELD_EPW)[0] : 0.0;
    printf("epw at 80 deg incidence: %.4f m with a 3 mrad beam, %.4f m with a 0 mrad beam\n", grazing, sharp);
    CHECK(grazing > sharp);
    lsim_points_destroy(p);
    lsim_sensor_destroy(s);
    lsim_scene_destroy(scene);
}

static void subrays_mixed_pixel(lsim_context *ctx)
{
    /* A beam aimed at the edge of a near box in front of a far wall: sub-rays see both, the
     * receiver reports two echoes (near and far) in `all` mode; a single ray sees one. */
    lsim_scene *scene = test_scene_new(ctx, NULL, 0.0);
    REQUIRE_OK(ctx, lsim_scene_add_lambertian(scene, "m", 0.8));
    add_wall(ctx, scene, "m", 30.0, 60.0);
    lsim_object_desc d;
    lsim_object_desc_init(&d);
    d.material = "m";
    d.position[0] = 10.0;
    d.position[1] = -1.0; /* box spans y in [-2, 0]: its edge is on the beam axis */
    const double box[3] = {1.0, 2.0, 2.0};
    REQUIRE_OK(ctx, lsim_scene_add_box(scene, box, &d));
    double az = 0, el = 0;
    lsim_sensor *s = pattern(ctx, &az, &el, 1);
    REQUIRE_OK(ctx, lsim_sensor_set_receiver(s, 4.0, LSIM_RETURNS_ALL, 4));
    REQUIRE_OK(ctx, lsim_sensor_set_beam(s, 5.0, LSIM_BEAM_RAYS, 3));
    lsim_points *p = scan(ctx, scene, s, 0, 1);
    size_t n = lsim_points_count(p);
    printf("mixed pixel: %zu echoes with sub-rays\n", n);
    CHECK(n == 2);
    if (n == 2) {
        CHECK_NEAR(fixture_f32(p, LSIM_FIELD_RANGE)[0], 9.5, 0.05);
        CHECK_NEAR(fixture_f32(p, LSIM_FIELD_RANGE)[1], 30.0, 0.05);
    }
    lsim_points_destroy(p);
    lsim_sensor_destroy(s);
    lsim_scene_destroy(scene);
}

static void subrays_conserve_power(lsim_context *ctx)
{
    /* Every sub-ray counts, however many: a wall's reflectivity is rho with 217 sub-rays, and
     * behind a glass pane (two contributions per sub-ray) the wall keeps ((1 - F)^2 tau)^2. */
    lsim_scene *scene = test_scene_new(ctx, NULL, 0.0);
    REQUIRE_OK(ctx, lsim_scene_add_lambertian(scene, "m", 0.5));
    add_wall(ctx, scene, "m", 10.0, 20.0);
    double az = 0, el = 0;
    lsim_sensor *s = pattern(ctx, &az, &el, 1);
    REQUIRE_OK(ctx, lsim_sensor_set_beam(s, 3.0, LSIM_BEAM_RAYS, 8));
    lsim_points *p = scan(ctx, scene, s, 0, 1);
    CHECK(lsim_points_count(p) == 1);
    if (lsim_points_count(p) == 1)
        CHECK_NEAR(fixture_f32(p, LSIM_FIELD_REFLECTIVITY)[0], 0.5, 0.01);
    lsim_points_destroy(p);
    lsim_material_desc g;
    lsim_material_desc_init(&g, LSIM_MATERIAL_GLASS);
    g.ior = 1.5;
    g.transmittance = 0.9;
    REQUIRE_OK(ctx, lsim_scene_add_material(scene, "glass", &g));
    add_wall(ctx, scene, "glass", 4.0, 3.0);
    REQUIRE_OK(ctx, lsim_sensor_set_receiver(s, 5.0, LSIM_RETURNS_LAST, 1));
    REQUIRE_OK(ctx, lsim_sensor_set_beam(s, 3.0, LSIM_BEAM_RAYS, 4));
    p = scan(ctx, scene, s, 0, 1);
    CHECK(lsim_points_count(p) == 1);
    if (lsim_points_count(p) == 1) {
        double t = 0.96 * 0.96 * 0.9;
        printf("sub-rays behind glass: wall intensity %.6g, expected %.6g\n", fixture_f32(p, LSIM_FIELD_INTENSITY)[0],
               0.005 * t * t);
        CHECK_NEAR(fixture_f32(p, LSIM_FIELD_INTENSITY)[0] / (0.005 * t * t), 1.0, 0.02);
    }
    lsim_points_destroy(p);
    lsim_sensor_destroy(s);
    lsim_scene_destroy(scene);
}

static void thin_glass_far(lsim_context *ctx)
{
    /* A 5 mm glass box (a solid: refraction in, refraction out) in front of a wall, near and far:
     * the wall behind must stay visible; so must a wall behind an open glass mesh (one quad). */
    const double distances[3] = {10.0, 60.0, 120.0};
    for (int k = 0; k < 3; ++k) {
        double d = distances[k];
        lsim_scene *scene = test_scene_new(ctx, NULL, 0.0);
        REQUIRE_OK(ctx, lsim_scene_add_lambertian(scene, "m", 0.9));
        lsim_material_desc g;
        lsim_material_desc_init(&g, LSIM_MATERIAL_GLASS);
        REQUIRE_OK(ctx, lsim_scene_add_material(scene, "glass", &g));
        add_wall(ctx, scene, "m", d + 8.0, 40.0); /* beyond the pane's bright echo (EPW ~5 m) */
        lsim_object_desc o;
        lsim_object_desc_init(&o);
        o.material = "glass";
        o.position[0] = d;
        const double pane[3] = {0.005, 4.0, 4.0};
        REQUIRE_OK(ctx, lsim_scene_add_box(scene, pane, &o));
        double az = 0, el = 0;
        lsim_sensor *s = pattern(ctx, &az, &el, 1);
        REQUIRE_OK(ctx, lsim_sensor_set_range(s, 0.1, 200.0));
        REQUIRE_OK(ctx, lsim_sensor_set_receiver(s, 5.0, LSIM_RETURNS_LAST, 1));
        lsim_points *p = scan(ctx, scene, s, 0, 1);
        CHECK(lsim_points_count(p) == 1 && fabsf(fixture_f32(p, LSIM_FIELD_RANGE)[0] - (float)(d + 8.0)) < 0.05f);
        lsim_points_destroy(p);
        lsim_sensor_destroy(s);
        lsim_scene_destroy(scene);
    }
    lsim_scene *scene = test_scene_new(ctx, NULL, 0.0);
    REQUIRE_OK(ctx, lsim_scene_add_lambertian(scene, "m", 0.9));
    lsim_material_desc g;
    lsim_material_desc_init(&g, LSIM_MATERIAL_GLASS);
    REQUIRE_OK(ctx, lsim_scene_add_material(scene, "glass", &g));
    add_wall(ctx, scene, "m", 12.0, 40.0);
    const float quad[12] = {5, -2, -2, 5, 2, -2, 5, 2, 2, 5, -2, 2};
    const uint32_t tris[6] = {0, 1, 2, 0, 2, 3};
    lsim_object_desc o;
    lsim_object_desc_init(&o);
    o.material = "glass";
    REQUIRE_OK(ctx, lsim_scene_add_triangles(scene, quad, 4, tris, 2, &o));
    double az = 0, el = 0;
    lsim_sensor *s = pattern(ctx, &az, &el, 1);
    REQUIRE_OK(ctx, lsim_sensor_set_receiver(s, 5.0, LSIM_RETURNS_LAST, 1));
    lsim_points *p = scan(ctx, scene, s, 0, 1);
    CHECK(lsim_points_count(p) == 1 && fabsf(fixture_f32(p, LSIM_FIELD_RANGE)[0] - 12.0f) < 0.05f);
    lsim_points_destroy(p);
    lsim_sensor_destroy(s);
    lsim_scene_destroy(scene);
}

static double range_std(lsim_context *ctx, lsim_scene *scene, double irradiance, size_t *count)
{
    const double sun[3] = {-1, 0, 0.2};
    REQUIRE_OK(ctx, lsim_scene_set_ambient(scene, sun, irradiance));
    grid *g = calloc(1, sizeof *g);
    g->n = 4000;
    for (size_t i = 0; i < g->n; ++i) { /* 4000 beams into a small solid angle of the wall */
        g->az[i] = -2.0 + 4.0 * (double)(i % 80) / 80.0;
        g->el[i] = -1.0 + 2.0 * (double)(i / 80) / 50.0;
    }
    lsim_sensor *s = pattern(ctx, g->az, g->el, g->n);
    REQUIRE_OK(ctx, lsim_sensor_set_noise(s, 0.0, 0.0, 0.1)); /* only the receiver's shot noise */
    lsim_points *p = scan(ctx, scene, s, 1, 7);
    size_t n = lsim_points_count(p);
    const float *r = fixture_f32(p, LSIM_FIELD_RANGE), *az = fixture_f32(p, LSIM_FIELD_AZIMUTH),
                *el = fixture_f32(p, LSIM_FIELD_ELEVATION);
    double s2 = 0.0;
    size_t m = 0;
    for (size_t i = 0; i < n; ++i) {
        double truth = 50.0 / (cos(az[i] * PI / 180.0) * cos(el[i] * PI / 180.0)); /* the wall at x = 50 */
        if (fabs(r[i] - truth) > 2.0)
            continue; /* false echoes of the sun are not range noise */
        s2 += (r[i] - truth) * (r[i] - truth);
        ++m;
    }
    *count = m;
    lsim_points_destroy(p);
    lsim_sensor_destroy(s);
    free(g);
    return m ? sqrt(s2 / m) : 0.0;
}

static void sunlight(lsim_context *ctx)
{
    /* A dark wall at 50 m facing a low sun: the echo's range jitter grows with the irradiance. */
    lsim_scene *scene = test_scene_new(ctx, NULL, 0.0);
    REQUIRE_OK(ctx, lsim_scene_add_lambertian(scene, "m", 0.2));
    add_wall(ctx, scene, "m", 50.0, 100.0);
    size_t dark_n, sun_n;
    double dark = range_std(ctx, scene, 0.0, &dark_n);
    double lit = range_std(ctx, scene, 1000.0, &sun_n);
    printf("sunlight: range rms %.5f m (%zu points) in the dark, %.5f m (%zu points) at 1000 W/m^2\n", dark, dark_n,
           lit, sun_n);
    CHECK(lit > 2.0 * dark + 1e-4);
    lsim_scene_destroy(scene);
}

static void atmosphere(lsim_context *ctx)
{
    /* Extinction: the wall's intensity falls by exp(-2 alpha R). Fog backscatter: a false echo
     * near the sensor, labelled "outlier" (1). */
    lsim_scene *scene = test_scene_new(ctx, NULL, 0.0);
    REQUIRE_OK(ctx, lsim_scene_add_lambertian(scene, "m", 0.5));
    add_wall(ctx, scene, "m", 20.0, 40.0);
    double az = 0, el = 0;
    lsim_sensor *s = pattern(ctx, &az, &el, 1);
    REQUIRE_OK(ctx, lsim_scene_set_atmosphere(scene, 0.01, 0.0));
    lsim_points *p = scan(ctx, scene, s, 0, 1);
    CHECK(lsim_points_count(p) == 1);
    if (lsim_points_count(p) == 1)
        CHECK_NEAR(fixture_f32(p, LSIM_FIELD_INTENSITY)[0], 0.5 / 400.0 * exp(-2.0 * 0.01 * 20.0), 1e-7);
    lsim_points_destroy(p);
    /* Dense fog (15 m visibility at 2 % contrast) with a strong backscatter: its echo peaks at ~2.6 m,
     * inside the default overlap ramp (1.666-7.635 m). */
    REQUIRE_OK(ctx, lsim_scene_set_atmosphere(scene, 3.912 / 15.0, 0.05));
    REQUIRE_OK(ctx, lsim_sensor_set_receiver(s, 5.0, LSIM_RETURNS_ALL, 4));
    p = scan(ctx, scene, s, 0, 1);
    size_t n = lsim_points_count(p);
    int fog_echo = 0;
    for (size_t i = 0; i < n; ++i)
        fog_echo |= fixture_f32(p, LSIM_FIELD_RANGE)[i] < 5.0f &&
                    ((const uint32_t *)lsim_points_column(p, LSIM_FIELD_LABEL))[i] == 1;
    printf("fog: %zu echoes, first at %.3f m\n", n, n ? fixture_f32(p, LSIM_FIELD_RANGE)[0] : 0.0f);
    CHECK(fog_echo);
    lsim_points_destroy(p);
    lsim_sensor_destroy(s);
    lsim_scene_destroy(scene);
}

static void baseline(lsim_context *ctx)
{
    /* A receiver 20 cm to the left of the emitter, and a post 40 cm in front of the receiver
     * (not of the emitter): the wall behind is lit but the receiver cannot see it there. */
    lsim_scene *scene = test_scene_new(ctx, NULL, 0.0);
    REQUIRE_OK(ctx, lsim_scene_add_lambertian(scene, "m", 0.5));
    add_wall(ctx, scene, "m", 10.0, 40.0);
    lsim_object_desc d;
    lsim_object_desc_init(&d);
    d.material = "m";
    d.position[0] = 0.4;
    d.position[1] = 0.2;
    const double post[3] = {0.05, 0.05, 3.0};
    REQUIRE_OK(ctx, lsim_scene_add_box(scene, post, &d));
    double az = 0, el = 0;
    lsim_sensor *s = pattern(ctx, &az, &el, 1);
    lsim_points *p = scan(ctx, scene, s, 0, 1);
    CHECK(lsim_points_count(p) == 1); /* monostatic: the wall */
    lsim_points_destroy(p);
    const double offset[3] = {0.0, 0.2, 0.0};
    REQUIRE_OK(ctx, lsim_sensor_set_baseline(s, offset));
    p = scan(ctx, scene, s, 0, 1);
    CHECK(lsim_points_count(p) == 0); /* the post shadows the receiver */
    lsim_points_destroy(p);
    const double clear[3] = {0.0, -0.2, 0.0};
    REQUIRE_OK(ctx, lsim_sensor_set_baseline(s, clear));
    p = scan(ctx, scene, s, 0, 1);
    CHECK(lsim_points_count(p) == 1);
    if (lsim_points_count(p) == 1) /* bistatic range: half of emitter->wall + wall->receiver */
        CHECK_NEAR(fixture_f32(p, LSIM_FIELD_RANGE)[0], 0.5 * (10.0 + sqrt(100.0 + 0.04)), 1e-4);
    lsim_points_destroy(p);
    lsim_sensor_destroy(s);
    lsim_scene_destroy(scene);
}

/* Points outside the sign's angular contour that carry the sign's range. */
static size_t bloom_points(lsim_context *ctx, lsim_material_type type, double peak, double halo, int algorithm,
                           lsim_points **keep)
{
    lsim_scene *scene = test_scene_new(ctx, NULL, 0.0);
    REQUIRE_OK(ctx, lsim_scene_add_lambertian(scene, "wall", 0.1));
    lsim_material_desc m;
    lsim_material_desc_init(&m, type);
    if (type == LSIM_MATERIAL_RETROREFLECTOR)
        m.peak = peak;
    else
        m.reflectance = 0.8;
    REQUIRE_OK(ctx, lsim_scene_add_material(scene, "sign", &m));
    add_wall(ctx, scene, "wall", 40.0, 60.0);
    add_wall(ctx, scene, "sign", 20.0, 1.0); /* 1 m sign at 20 m: +-1.43 deg */
    grid *g = calloc(1, sizeof *g);
    g->n = 0;
    for (int i = 0; i < 41; ++i)
        for (int j = 0; j < 41; ++j) {
            g->az[g->n] = -4.0 + 0.2 * i;
            g->el[g->n] = -4.0 + 0.2 * j;
            ++g->n;
        }
    lsim_sensor *s = pattern(ctx, g->az, g->el, g->n);
    REQUIRE_OK(ctx, lsim_sensor_set_beam(s, 3.0, LSIM_BEAM_KERNEL, 1));
    REQUIRE_OK(ctx, lsim_sensor_set_kernel(s, 0.2, halo, 3.0, NULL, algorithm, 0.2));
    lsim_points *p = scan(ctx, scene, s, 0, 1);
    size_t n = lsim_points_count(p), outside = 0;
    const float *r = fixture_f32(p, LSIM_FIELD_RANGE), *az = fixture_f32(p, LSIM_FIELD_AZIMUTH),
                *el = fixture_f32(p, LSIM_FIELD_ELEVATION);
    const double edge = atan(0.5 / 20.0) * 180.0 / PI;
    for (size_t i = 0; i < n; ++i)
        outside += fabsf(r[i] - 20.0f) < 0.5f && (fabs(az[i]) > edge + 0.25 || fabs(el[i]) > edge + 0.25);
    if (keep)
        *keep = p;
    else
        lsim_points_destroy(p);
    lsim_sensor_destroy(s);
    lsim_scene_destroy(scene);
    free(g);
    return outside;
}

static void blooming(lsim_context *ctx)
{
    lsim_points *a1 = NULL, *a2 = NULL;
    size_t bright = bloom_points(ctx, LSIM_MATERIAL_RETROREFLECTOR, 1000.0, 1e-3, 1, &a1);
    size_t bright2 = bloom_points(ctx, LSIM_MATERIAL_RETROREFLECTOR, 1000.0, 1e-3, 2, &a2);
    size_t dim = bloom_points(ctx, LSIM_MATERIAL_RETROREFLECTOR, 100.0, 1e-3, 2, NULL);
    size_t narrow = bloom_points(ctx, LSIM_MATERIAL_RETROREFLECTOR, 1000.0, 1e-4, 2, NULL);
    size_t lambert = bloom_points(ctx, LSIM_MATERIAL_LAMBERTIAN, 0.0, 1e-3, 2, NULL);
    printf("blooming: %zu points outside the sign (peak 1000), %zu (peak 100), %zu (halo 1e-4), %zu (Lambertian)\n",
           bright2, dim, narrow, lambert);
    CHECK(bright2 > 0);
    CHECK(bright2 > dim);
    CHECK(bright2 > narrow);
    CHECK(lambert == 0);
    /* Alg. 1 and Alg. 2 give the same points. */
    CHECK(bright == bright2);
    CHECK(lsim_points_count(a1) == lsim_points_count(a2));
    if (lsim_points_count(a1) == lsim_points_count(a2)) {
        size_t n = lsim_points_count(a1), same = 0;
        for (size_t i = 0; i < n; ++i)
            same += fixture_f32(a1, LSIM_FIELD_RANGE)[i] == fixture_f32(a2, LSIM_FIELD_RANGE)[i] &&
                    fabsf(fixture_f32(a1, LSIM_FIELD_INTENSITY)[i] / fixture_f32(a2, LSIM_FIELD_INTENSITY)[i] - 1.0f) <
                        1e-4f;
        CHECK(same == n);
    }
    lsim_points_destroy(a1);
    lsim_points_destroy(a2);
}

int main(void)
{
    lsim_context *ctx;
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    mirror_ghost(ctx);
    glass_pane(ctx);
    brdfs_in_scan(ctx);
    epw_grows(ctx);
    subrays_mixed_pixel(ctx);
    subrays_conserve_power(ctx);
    thin_glass_far(ctx);
    sunlight(ctx);
    atmosphere(ctx);
    baseline(ctx);
    blooming(ctx);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_optics_scene");
}
