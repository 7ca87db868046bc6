/* A sensor inside a closed box room: every beam hits, and every range equals the analytic
 * distance to the wall within 1 mm (noise off), for every kind of sensor and a tilted pose.
 * Beams start at their own origins (a real unit's laser offsets: the Velodyne and Ouster
 * presets), which the analytic answer takes from lsim_sensor_get_beam_origins. */
#include "harness.h"
#include "scan_fixture.h"
#include "test_scenes.h"

#include <stdlib.h>
#include <string.h>

static void check_room(lsim_context *ctx, const char *preset, const double pos[3], const double rpy[3])
{
    const double size[3] = {14.0, 9.0, 5.0}, center[3] = {1.0, -0.5, 2.0};
    lsim_scene *scene = test_scene_new(ctx, "wall", 0.7);
    const lsim_object_desc desc = test_object("wall", "building", center[0], center[1], center[2]);
    REQUIRE_OK(ctx, lsim_scene_add_box(scene, size, &desc));
    lsim_sensor *sensor;
    REQUIRE_OK(ctx, lsim_sensor_create_preset(ctx, preset, &sensor));
    REQUIRE_OK(ctx, lsim_sensor_set_pose(sensor, pos, rpy));
    REQUIRE_OK(ctx, lsim_sensor_set_range(sensor, 0.01, 200.0));
    /* the analytic range is the centre ray's: urg-04lx fires three rays a beam (the cw paper's), whose
     * mix at the room's corners lies between the walls' ranges (test_cw checks the mix itself) */
    if (strcmp(preset, "urg-04lx") == 0)
        REQUIRE_OK(ctx, lsim_sensor_set_beam(sensor, 13.0, LSIM_BEAM_SINGLE, 1));

    lsim_scan_options opt;
    lsim_scan_options_init(&opt);
    opt.noise = 0;
    opt.frame = LSIM_FRAME_WORLD;
    lsim_points *pts;
    REQUIRE_OK(ctx, lsim_scene_scan(scene, sensor, &opt, &pts));
    size_t n = lsim_points_count(pts), beams = lsim_sensor_beam_count(sensor);
    CHECK(n == beams); /* every beam hits */

    const float *x = fixture_f32(pts, LSIM_FIELD_X), *y = fixture_f32(pts, LSIM_FIELD_Y), *z = fixture_f32(pts, LSIM_FIELD_Z);
    const float *range = fixture_f32(pts, LSIM_FIELD_RANGE);
    const float *az = fixture_f32(pts, LSIM_FIELD_AZIMUTH), *el = fixture_f32(pts, LSIM_FIELD_ELEVATION);
    const uint32_t *label = lsim_points_column(pts, LSIM_FIELD_LABEL);
    const uint32_t *instance = lsim_points_column(pts, LSIM_FIELD_INSTANCE);
    double lo[3], hi[3], worst = 0.0, worst_xyz = 0.0;
    for (int k = 0; k < 3; ++k) {
        lo[k] = center[k] - size[k] / 2;
        hi[k] = center[k] + size[k] / 2;
    }
    int labels_ok = 1;
    const double deg = 3.14159265358979323846 / 180.0;
    double *origin = malloc(3 * beams * sizeof *origin);
    CHECK(origin != NULL);
    if (!origin)
        exit(1);
    REQUIRE_OK(ctx, lsim_sensor_get_beam_origins(sensor, origin));
    double farthest = 0.0;
    for (size_t i = 0; i < n; ++i) {
        double ds[3] = {cos(el[i] * deg) * cos(az[i] * deg), cos(el[i] * deg) * sin(az[i] * deg), sin(el[i] * deg)};
        double dw[3], ow[3];
        fixture_rotate(rpy, ds, dw);
        fixture_rotate(rpy, origin + 3 * i, ow);
        farthest = fmax(farthest, sqrt(origin[3 * i] * origin[3 * i] + origin[3 * i + 1] * origin[3 * i + 1] +
                                       origin[3 * i + 2] * origin[3 * i + 2]));
        const double o[3] = {pos[0] + ow[0], pos[1] + ow[1], pos[2] + ow[2]};
        double t = fixture_box_exit(o, dw, lo, hi);
        worst = fmax(worst, fabs(range[i] - t));
        double ex[3] = {o[0] + t * dw[0], o[1] + t * dw[1], o[2] + t * dw[2]};
        worst_xyz = fmax(worst_xyz, fmax(fabs(x[i] - ex[0]), fmax(fabs(y[i] - ex[1]), fabs(z[i] - ex[2]))));
        labels_ok &= label[i] == 50 && instance[i] == 1;
    }
    if (worst > 1e-3 || worst_xyz > 1e-3)
        fprintf(stderr, "%s: worst range error %.6f m, worst xyz error %.6f m\n", preset, worst, worst_xyz);
    CHECK(worst <= 1e-3);
    CHECK(worst_xyz <= 1e-3);
    CHECK(labels_ok); /* "building" is SemanticKITTI id 50; the only object is instance 1 */
    printf("%-12s %7zu beams, all hit, worst |range - analytic| = %.2e m (beam origins up to %.3f m from the "
           "sensor's)\n", preset, n, worst, farthest);
    free(origin);
    lsim_points_destroy(pts);
    lsim_sensor_destroy(sensor);
    lsim_scene_destroy(scene);
}

int main(void)
{
    lsim_context *ctx;
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    const double pos[3] = {0.3, 0.4, 1.7}, level[3] = {0, 0, 0}, tilted[3] = {4.0, -7.0, 33.0};
    const char *const *names = lsim_sensor_preset_names();
    for (size_t i = 0; names[i]; ++i) {
        check_room(ctx, names[i], pos, level);
        check_room(ctx, names[i], pos, tilted);
    }
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_box_room");
}
