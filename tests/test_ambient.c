/* Sunlight is continuous in the irradiance (issue 23): a VLP-16 with its preset's SNR noise over a
 * dark ground and a few walls, noise on, scanned at in-band irradiances from 0 to 1000 W/m^2.
 *  - 0, 1e-9 and 1e-6 W/m^2 give the same points: the same count, every intensity within 1e-4
 *    relative, every range the same at 1e-9 and at most 0.1 % of them one 2 mm step away at 1e-6
 *    (before the fix any sun switched the receiver to another noise model: 16 more points at
 *    1e-9 W/m^2, none of the frames alike);
 *  - brighter, the false echoes (label 1) only grow, and the surface points thin out (drop-outs
 *    of weak echoes grow with the background's shot noise);
 *  - the same irradiance twice, and 1 and 3 threads, give the same bytes. */
#include "harness.h"
#include "scan_fixture.h"
#include "test_scenes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static lsim_scene *street(lsim_context *ctx)
{
    lsim_scene *scene = test_scene_new(ctx, "asphalt", 0.08);
    REQUIRE_OK(ctx, lsim_scene_add_lambertian(scene, "facade", 0.9));
    lsim_object_desc d = test_object("asphalt", "road", 0.0, 0.0, 0.0);
    const double ground[2] = {160.0, 160.0};
    REQUIRE_OK(ctx, lsim_scene_add_plane(scene, ground, &d));
    d.material = "facade";
    d.label = "building";
    const double wall[3] = {4.0, 30.0, 8.0};
    for (int k = 0; k < 3; ++k) {
        d.position[0] = 25.0 + 20.0 * k;
        d.position[1] = k == 1 ? 20.0 : -15.0;
        d.position[2] = 4.0;
        REQUIRE_OK(ctx, lsim_scene_add_box(scene, wall, &d));
    }
    return scene;
}

typedef struct frame {
    size_t n, surface, outliers;
    float *range, *intensity;
    uint32_t *label;
} frame;

static frame scan_at(lsim_context *ctx, lsim_scene *scene, lsim_sensor *s, double irradiance, int threads)
{
    const double sun[3] = {-0.5, 0.3, 0.6};
    REQUIRE_OK(ctx, lsim_scene_set_ambient(scene, sun, irradiance));
    lsim_scan_options opt;
    lsim_scan_options_init(&opt);
    opt.noise = 1;
    opt.seed = 11;
    opt.threads = threads;
    lsim_points *p;
    REQUIRE_OK(ctx, lsim_scene_scan(scene, s, &opt, &p));
    frame f = {lsim_points_count(p), 0, 0, NULL, NULL, NULL};
    f.range = malloc((f.n + 1) * sizeof *f.range);
    f.intensity = malloc((f.n + 1) * sizeof *f.intensity);
    f.label = malloc((f.n + 1) * sizeof *f.label);
    if (!f.range || !f.intensity || !f.label) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    memcpy(f.range, fixture_f32(p, LSIM_FIELD_RANGE), f.n * sizeof *f.range);
    memcpy(f.intensity, fixture_f32(p, LSIM_FIELD_INTENSITY), f.n * sizeof *f.intensity);
    memcpy(f.label, lsim_points_column(p, LSIM_FIELD_LABEL), f.n * sizeof *f.label);
    for (size_t i = 0; i < f.n; ++i) {
        f.outliers += f.label[i] == 1;
        f.surface += f.label[i] != 1;
    }
    lsim_points_destroy(p);
    return f;
}

static void frame_free(frame *f)
{
    free(f->range);
    free(f->intensity);
    free(f->label);
}

/* Largest range and relative intensity differences of two frames of equal count, and how many
 * ranges differ. */
static size_t frame_diff(const frame *a, const frame *b, double *dr, double *di)
{
    size_t moved = 0;
    *dr = *di = 0.0;
    for (size_t i = 0; i < a->n && i < b->n; ++i) {
        moved += a->range[i] != b->range[i];
        *dr = fmax(*dr, fabs((double)a->range[i] - b->range[i]));
        *di = fmax(*di, fabs((double)a->intensity[i] - b->intensity[i]) / fmax(fabs((double)a->intensity[i]), 1e-30));
    }
    return moved;
}

int main(void)
{
    lsim_context *ctx;
    CHECK(lsim_context_create(&ctx) == LSIM_OK);
    lsim_scene *scene = street(ctx);
    lsim_sensor *s;
    REQUIRE_OK(ctx, lsim_sensor_create_preset(ctx, "vlp16", &s));
    const double pos[3] = {0, 0, 1.8}, rot[3] = {0, 0, 0};
    REQUIRE_OK(ctx, lsim_sensor_set_pose(s, pos, rot));
    REQUIRE_OK(ctx, lsim_sensor_set_receiver(s, 6.0, LSIM_RETURNS_ALL, 3)); /* false echoes add points */
    /* The ambient model alone, as before the presets' radiometry (issue 24): the threshold of a 10 %
     * target at 100 m, and no rise with the background (with it, the false echoes stay few:
     * tests/test_radiometry.c) */
    REQUIRE_OK(ctx, lsim_sensor_set_noise(s, 0.015, 0.05, 0.1));
    REQUIRE_OK(ctx, lsim_sensor_set_ambient_rise(s, 0.0));

    frame dark = scan_at(ctx, scene, s, 0.0, 2);
    printf("0 W/m^2: %zu points (%zu outliers)\n", dark.n, dark.outliers);
    CHECK(dark.n > 10000 && dark.outliers == 0);
    /* 1e-9: the same points but for the intensities' last bits; 1e-6: a few ranges moved by the
     * VLP-16's 2 mm step (a range within ~1 um of a rounding edge) */
    const double faint[] = {1e-9, 1e-6};
    const size_t most_moved[] = {0, dark.n / 1000};
    for (size_t k = 0; k < 2; ++k) {
        frame f = scan_at(ctx, scene, s, faint[k], 2);
        double dr = 0.0, di = 0.0;
        size_t moved = f.n == dark.n ? frame_diff(&dark, &f, &dr, &di) : f.n;
        printf("%g W/m^2: %zu points (%zu outliers), %zu ranges moved (by at most %.3g m), intensities within %.3g\n",
               faint[k], f.n, f.outliers, moved, dr, di);
        CHECK(f.n == dark.n);
        CHECK(f.outliers == 0);
        CHECK(moved <= most_moved[k]);
        CHECK(dr <= 0.00201);
        CHECK(di <= 1e-4);
        frame_free(&f);
    }

    /* brighter: false echoes only grow, and from 300 W/m^2 the points with them; the surface
     * points thin out (noise lifts as many weak echoes over the threshold as it drops at first,
     * so they may gain a few before the drop-outs win) */
    const double bright[] = {1.0, 10.0, 100.0, 300.0, 1000.0, 2000.0};
    size_t total = 0, outliers = 0, surface = dark.surface;
    for (size_t k = 0; k < sizeof bright / sizeof bright[0]; ++k) {
        frame f = scan_at(ctx, scene, s, bright[k], 2);
        printf("%g W/m^2: %zu points: %zu on surfaces, %zu false echoes\n", bright[k], f.n, f.surface, f.outliers);
        CHECK(f.outliers >= outliers);
        CHECK(f.surface <= dark.surface + 5);
        if (bright[k] >= 300.0) {
            CHECK(f.n >= total);
            CHECK(f.surface < surface);
        }
        total = f.n;
        outliers = f.outliers;
        surface = f.surface;
        frame_free(&f);
    }
    CHECK(surface + 1000 < dark.surface);
    CHECK(outliers > 5000);

    /* deterministic: the same irradiance again, and another thread count, give the same points */
    frame a = scan_at(ctx, scene, s, 20.0, 1), b = scan_at(ctx, scene, s, 20.0, 3);
    CHECK(a.n == b.n && a.n > 0);
    if (a.n == b.n) {
        CHECK(memcmp(a.range, b.range, a.n * sizeof *a.range) == 0);
        CHECK(memcmp(a.intensity, b.intensity, a.n * sizeof *a.intensity) == 0);
        CHECK(memcmp(a.label, b.label, a.n * sizeof *a.label) == 0);
    }
    frame_free(&a);
    frame_free(&b);
    frame_free(&dark);
    lsim_sensor_destroy(s);
    lsim_scene_destroy(scene);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_ambient");
}
