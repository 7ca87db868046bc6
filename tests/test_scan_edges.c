/* Edge cases of a scan: the receiver gates noisy ranges (never <= 0 or below the minimum),
 * intensity noise has the configured relative sigma, label ids follow the API's rules, the PCD
 * VIEWPOINT carries the sensor pose in the world frame, and out-of-range placements are errors. */
#include "harness.h"
#include "scan_fixture.h"
#include "test_scenes.h"

#include <stdlib.h>
#include <string.h>

static lsim_scene *room(lsim_context *ctx, double edge)
{
    return test_scene_room(ctx, edge, edge, edge);
}

static lsim_sensor *os1(lsim_context *ctx, const double pos[3], const double rpy[3])
{
    lsim_sensor *s;
    REQUIRE_OK(ctx, lsim_sensor_create_preset(ctx, "os1-64", &s));
    REQUIRE_OK(ctx, lsim_sensor_set_pose(s, pos, rpy));
    return s;
}

static void gating(lsim_context *ctx)
{
    /* A 2 m room, sigma 1 m, minimum range 0.5 m: many noisy ranges fall below the minimum or
     * below zero; none of them may come out as a point. */
    lsim_scene *scene = room(ctx, 2.0);
    const double zero[3] = {0, 0, 0};
    lsim_sensor *s = os1(ctx, zero, zero);
    REQUIRE_OK(ctx, lsim_sensor_set_range(s, 0.5, 50.0));
    REQUIRE_OK(ctx, lsim_sensor_set_noise(s, 1.0, 0.0, 0.1));
    lsim_scan_options opt;
    lsim_scan_options_init(&opt);
    lsim_points *p;
    REQUIRE_OK(ctx, lsim_scene_scan(scene, s, &opt, &p));
    size_t n = lsim_points_count(p), below = 0;
    const float *r = fixture_f32(p, LSIM_FIELD_RANGE);
    for (size_t i = 0; i < n; ++i)
        below += !(r[i] >= 0.5f);
    lsim_scan_stats st;
    lsim_points_get_stats(p, &st);
    printf("gating: %zu of %llu beams kept, %zu below the minimum range\n", n, (unsigned long long)st.rays, below);
    CHECK(below == 0);
    CHECK(st.hits == n);
    CHECK(n > st.rays / 4 && n < st.rays); /* some dropped, most kept: P(r < 0.5) ~ 0.3 for r ~ 1 */
    lsim_points_destroy(p);
    lsim_sensor_destroy(s);
    lsim_scene_destroy(scene);
}

static void intensity_noise(lsim_context *ctx)
{
    lsim_scene *scene = room(ctx, 20.0);
    const double zero[3] = {0, 0, 0};
    lsim_sensor *s = os1(ctx, zero, zero);
    const double sigma = 0.2;
    REQUIRE_OK(ctx, lsim_sensor_set_noise(s, 0.0, sigma, 0.1));
    lsim_scan_options opt;
    lsim_scan_options_init(&opt);
    opt.keep_misses = 1;
    lsim_points *noisy, *clean;
    REQUIRE_OK(ctx, lsim_scene_scan(scene, s, &opt, &noisy));
    opt.noise = 0;
    REQUIRE_OK(ctx, lsim_scene_scan(scene, s, &opt, &clean));
    const float *a = fixture_f32(noisy, LSIM_FIELD_INTENSITY), *b = fixture_f32(clean, LSIM_FIELD_INTENSITY);
    double s1 = 0, s2 = 0;
    size_t m = 0;
    for (size_t i = 0; i < lsim_points_count(clean); ++i) {
        if (a[i] <= 0.0f || b[i] <= 0.0f)
            continue;
        double e = a[i] / b[i] - 1.0;
        s1 += e;
        s2 += e * e;
        ++m;
    }
    double mean = s1 / m, sd = sqrt(s2 / m - mean * mean);
    printf("intensity noise: relative mean %.5f std %.5f (sigma %.2f), n = %zu\n", mean, sd, sigma, m);
    CHECK(m > 60000);
    CHECK_NEAR(mean, 0.0, 4.0 * sigma / sqrt((double)m));
    CHECK_NEAR(sd, sigma, 0.02 * sigma);
    lsim_points_destroy(noisy);
    lsim_points_destroy(clean);
    lsim_sensor_destroy(s);
    lsim_scene_destroy(scene);
}

static void labels(lsim_context *ctx)
{
    lsim_scene *scene;
    REQUIRE_OK(ctx, lsim_scene_create(ctx, &scene));
    REQUIRE_OK(ctx, lsim_scene_set_label_id(scene, "wall", 50)); /* takes building's id */
    lsim_object_desc desc;
    lsim_object_desc_init(&desc);
    const double size[3] = {1, 1, 1};
    desc.label = "building";
    CHECK(lsim_scene_add_box(scene, size, &desc) == LSIM_ERR_INVALID_ARGUMENT);
    const char *msg = lsim_context_last_error(ctx);
    CHECK(strstr(msg, "'building'") && strstr(msg, "50") && strstr(msg, "'wall'"));
    desc.label = "wall";
    desc.position[0] = 5.0;
    REQUIRE_OK(ctx, lsim_scene_add_box(scene, size, &desc));
    /* Ids are fixed when objects are added: changing them afterwards is refused. */
    CHECK(lsim_scene_set_label_id(scene, "wall", 7) == LSIM_ERR_STATE);
    CHECK(strstr(lsim_context_last_error(ctx), "before adding objects") != NULL);
    double az = 0, el = 0;
    lsim_sensor *s;
    REQUIRE_OK(ctx, lsim_sensor_create_pattern(ctx, 1, &az, &el, NULL, NULL, &s));
    lsim_scan_options opt;
    lsim_scan_options_init(&opt);
    lsim_points *p;
    REQUIRE_OK(ctx, lsim_scene_scan(scene, s, &opt, &p));
    CHECK(lsim_points_count(p) == 1);
    if (lsim_points_count(p) == 1)
        CHECK(((const uint32_t *)lsim_points_column(p, LSIM_FIELD_LABEL))[0] == 50);
    lsim_points_destroy(p);
    lsim_sensor_destroy(s);
    lsim_scene_destroy(scene);
}

static void viewpoint(lsim_context *ctx)
{
    lsim_scene *scene = room(ctx, 20.0);
    const double pos[3] = {1.5, -2.0, 0.25}, rpy[3] = {0, 0, 90};
    lsim_sensor *s = os1(ctx, pos, rpy);
    lsim_scan_options opt;
    lsim_scan_options_init(&opt);
    opt.frame = LSIM_FRAME_WORLD;
    lsim_points *p;
    REQUIRE_OK(ctx, lsim_scene_scan(scene, s, &opt, &p));
    const char *path = "test_scan_edges_viewpoint.pcd";
    REQUIRE_OK(ctx, lsim_points_write(p, path, LSIM_FORMAT_PCD));
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    char line[256];
    double v[7] = {0};
    int found = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VIEWPOINT %lf %lf %lf %lf %lf %lf %lf", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]) == 7) {
            found = 1;
            break;
        }
    if (f)
        fclose(f);
    remove(path);
    CHECK(found);
    /* yaw 90 degrees: q = (cos 45, 0, 0, sin 45) */
    CHECK_NEAR(v[0], 1.5, 1e-9);
    CHECK_NEAR(v[1], -2.0, 1e-9);
    CHECK_NEAR(v[2], 0.25, 1e-9);
    CHECK_NEAR(v[3], sqrt(0.5), 1e-7);
    CHECK_NEAR(v[4], 0.0, 1e-7);
    CHECK_NEAR(v[5], 0.0, 1e-7);
    CHECK_NEAR(v[6], sqrt(0.5), 1e-7);
    lsim_points_destroy(p);
    lsim_sensor_destroy(s);
    lsim_scene_destroy(scene);
}

static void limits(lsim_context *ctx)
{
    lsim_scene *scene;
    REQUIRE_OK(ctx, lsim_scene_create(ctx, &scene));
    lsim_object_desc desc;
    lsim_object_desc_init(&desc);
    const double huge[3] = {1e300, 1, 1}, unit[3] = {1, 1, 1};
    CHECK(lsim_scene_add_box(scene, huge, &desc) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "1e7") != NULL);
    desc.position[0] = 1e8;
    CHECK(lsim_scene_add_box(scene, unit, &desc) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "1e7") != NULL);
    desc.position[0] = 0;
    desc.scale = 1e9;
    CHECK(lsim_scene_add_sphere(scene, 1.0, &desc) == LSIM_ERR_INVALID_ARGUMENT);
    const float far_vertices[9] = {0, 0, 0, 1, 0, 0, 0, 3e7f, 0};
    const uint32_t tri[3] = {0, 1, 2};
    desc.scale = 1.0;
    CHECK(lsim_scene_add_triangles(scene, far_vertices, 3, tri, 1, &desc) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "vertex 2") != NULL);
    CHECK(lsim_scene_object_count(scene) == 0);
    lsim_scene_destroy(scene);
}

int main(void)
{
    lsim_context *ctx;
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    gating(ctx);
    intensity_noise(ctx);
    labels(ctx);
    viewpoint(ctx);
    limits(ctx);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_scan_edges");
}
