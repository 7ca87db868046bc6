/* Time and motion (issue 9) with analytic answers, through both engines (Embree and brute force):
 *   1. a VLP-16 driving at 10 m/s toward a wall 10 m ahead: sensor-frame x + v t = 10 for every
 *      point (t = its time), and the skew of a sweep (~1 m at 10 Hz);
 *   2. a box driving at 20 m/s toward a static sensor: world points on its face at their own time,
 *      x = x0 - 20 t;
 *   3. a sensor turning at a yaw rate: world azimuth = beam azimuth + yaw0 + rate t;
 *   4. keyframes (linear position, slerp rotation) reproduce the rates; scan_time moves the frame
 *      along a trajectory (and the frame's sensor pose follows);
 *   5. motion off (zero rates) is bit-identical to no motion;
 *   6. with noise, bit-identical across thread counts with motion on;
 *   and the library's checks of bad motion input. */
#include "harness.h"
#include "scan_fixture.h"
#include "test_scenes.h"

#include <stdint.h>
#include <string.h>

static const lsim_engine_kind engines[2] = {LSIM_ENGINE_EMBREE, LSIM_ENGINE_BRUTE};
static const char *const engine_names[2] = {"embree", "brute"};

static lsim_points *scan(lsim_context *ctx, lsim_scene *scene, const lsim_sensor *s, lsim_frame frame, int noise,
                         int threads, double scan_time)
{
    lsim_scan_options opt;
    lsim_scan_options_init(&opt);
    opt.noise = noise;
    opt.frame = frame;
    opt.threads = threads;
    opt.scan_time = scan_time;
    opt.seed = 11;
    lsim_points *p = NULL;
    REQUIRE_OK(ctx, lsim_scene_scan(scene, s, &opt, &p));
    return p;
}

static lsim_sensor *vlp16(lsim_context *ctx)
{
    lsim_sensor *s;
    REQUIRE_OK(ctx, lsim_sensor_create_preset(ctx, "vlp16", &s));
    return s;
}

/* A new scene that will run on `engine`. */
static lsim_scene *engine_scene(lsim_context *ctx, lsim_engine_kind engine)
{
    lsim_scene *scene = test_scene_new(ctx, NULL, 0.0);
    REQUIRE_OK(ctx, lsim_scene_set_engine(scene, engine));
    return scene;
}

/* A wall whose face toward the sensor is the plane x = face (a thick box, wide and tall). */
static lsim_scene *wall_scene(lsim_context *ctx, lsim_engine_kind engine, double face)
{
    lsim_scene *scene = engine_scene(ctx, engine);
    const lsim_object_desc d = test_object(NULL, NULL, face + 1.0, 0.0, 0.0);
    const double size[3] = {2.0, 400.0, 100.0};
    REQUIRE_OK(ctx, lsim_scene_add_box(scene, size, &d));
    return scene;
}

/* 1: sensor-frame x + v t = 10; returns the skew: the spread of x over the points straight ahead. */
static void driving_sensor(lsim_context *ctx, int e)
{
    lsim_scene *scene = wall_scene(ctx, engines[e], 10.0);
    lsim_sensor *s = vlp16(ctx);
    const double v[3] = {10.0, 0.0, 0.0};
    REQUIRE_OK(ctx, lsim_sensor_set_motion(s, v, NULL));
    lsim_points *p = scan(ctx, scene, s, LSIM_FRAME_SENSOR, 0, 0, 0.0);
    size_t n = lsim_points_count(p);
    const float *x = fixture_f32(p, LSIM_FIELD_X), *y = fixture_f32(p, LSIM_FIELD_Y);
    const float *t = fixture_f32(p, LSIM_FIELD_TIME);
    double worst = 0.0, ahead_min = INFINITY, ahead_max = -INFINITY;
    for (size_t i = 0; i < n; ++i) {
        double err = fabs(x[i] + 10.0 * t[i] - 10.0);
        worst = err > worst ? err : worst;
        if (fabs(y[i]) < 0.5) { /* straight ahead: fired at the sweep's start and at its end */
            ahead_min = fmin(ahead_min, x[i]);
            ahead_max = fmax(ahead_max, x[i]);
        }
    }
    CHECK(n > 5000);
    CHECK(worst < 1e-3);
    CHECK_NEAR(ahead_max - ahead_min, 1.0, 0.05);
    printf("test 1 (%s): %zu points, max |x + v t - 10| = %.3g m, skew straight ahead = %.4f m\n", engine_names[e],
           n, worst, ahead_max - ahead_min);
    /* World frame: every point on the wall, x = 10. */
    lsim_points *w = scan(ctx, scene, s, LSIM_FRAME_WORLD, 0, 0, 0.0);
    const float *wx = fixture_f32(w, LSIM_FIELD_X);
    double wworst = 0.0;
    for (size_t i = 0; i < lsim_points_count(w); ++i)
        wworst = fmax(wworst, fabs(wx[i] - 10.0));
    CHECK(wworst < 1e-3);
    printf("test 1 (%s): world frame, max |x - 10| = %.3g m\n", engine_names[e], wworst);
    /* The frame's sensor pose: at the start. */
    double pose[7];
    REQUIRE_OK(ctx, lsim_points_sensor_pose(w, pose));
    CHECK(pose[0] == 0.0 && pose[3] == 1.0);
    lsim_points_destroy(w);
    lsim_points_destroy(p);
    lsim_sensor_destroy(s);
    lsim_scene_destroy(scene);
}

/* 1b: the same drive with a bistatic receiver 0.1 m to the emitter's left: the receiver moves with
 * the sensor, so in the sensor frame at each firing time the reported range is the bistatic mean
 * 0.5 (L + |L d - b|), L = (10 - v t) / d_x the emitter's distance to the wall along the beam d. A
 * receiver left at its frame-start place would be v t behind: up to 0.5 m off. */
static void driving_bistatic(lsim_context *ctx, int e)
{
    lsim_scene *scene = wall_scene(ctx, engines[e], 10.0);
    lsim_sensor *s = vlp16(ctx);
    const double v[3] = {10.0, 0.0, 0.0}, b[3] = {0.0, 0.1, 0.0};
    REQUIRE_OK(ctx, lsim_sensor_set_motion(s, v, NULL));
    REQUIRE_OK(ctx, lsim_sensor_set_baseline(s, b));
    lsim_points *p = scan(ctx, scene, s, LSIM_FRAME_SENSOR, 0, 0, 0.0);
    const size_t n = lsim_points_count(p);
    const float *r = fixture_f32(p, LSIM_FIELD_RANGE), *t = fixture_f32(p, LSIM_FIELD_TIME);
    const float *az = fixture_f32(p, LSIM_FIELD_AZIMUTH), *el = fixture_f32(p, LSIM_FIELD_ELEVATION);
    double worst = 0.0, late = 0.0;
    for (size_t i = 0; i < n; ++i) {
        const double deg = 3.14159265358979323846 / 180.0, a = az[i] * deg, l = el[i] * deg;
        const double d[3] = {cos(l) * cos(a), cos(l) * sin(a), sin(l)};
        const double L = (10.0 - 10.0 * t[i]) / d[0];
        const double q[3] = {L * d[0] - b[0], L * d[1] - b[1], L * d[2] - b[2]};
        const double expect = 0.5 * (L + sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]));
        worst = fmax(worst, fabs(r[i] - expect));
        late = fmax(late, t[i]);
    }
    CHECK(n > 5000);
    CHECK(late > 0.09); /* beams fired late in the sweep, when the sensor had moved ~1 m */
    CHECK(worst < 1e-3);
    printf("test 1b (%s): %zu points, bistatic receiver moving with the sensor, max range error %.3g m\n",
           engine_names[e], n, worst);
    lsim_points_destroy(p);
    lsim_sensor_destroy(s);
    lsim_scene_destroy(scene);
}

/* 1c: the same drive in kernel (blooming) mode: each tile column of the rendered image is drawn
 * from the sensor's pose at its beams' mean firing time, so the points are skewed as in test 1
 * (x + v t = 10) to within the image's pitch and a tile column's firing times. */
static void driving_kernel(lsim_context *ctx, int e)
{
    lsim_scene *scene = wall_scene(ctx, engines[e], 10.0);
    lsim_sensor *s = vlp16(ctx);
    const double v[3] = {10.0, 0.0, 0.0};
    REQUIRE_OK(ctx, lsim_sensor_set_motion(s, v, NULL));
    REQUIRE_OK(ctx, lsim_sensor_set_beam(s, 3.0, LSIM_BEAM_KERNEL, 1));
    REQUIRE_OK(ctx, lsim_sensor_set_kernel(s, 0.5, 1e-4, 0.5, NULL, 2, 0.2));
    lsim_points *p = scan(ctx, scene, s, LSIM_FRAME_SENSOR, 0, 0, 0.0);
    const size_t n = lsim_points_count(p);
    const float *x = fixture_f32(p, LSIM_FIELD_X), *y = fixture_f32(p, LSIM_FIELD_Y);
    const float *t = fixture_f32(p, LSIM_FIELD_TIME), *az = fixture_f32(p, LSIM_FIELD_AZIMUTH);
    const float *el = fixture_f32(p, LSIM_FIELD_ELEVATION);
    double worst = 0.0, ahead_min = INFINITY, ahead_max = -INFINITY;
    size_t used = 0;
    for (size_t i = 0; i < n; ++i) {
        /* The echo's range is that of a pixel within the beam's kernel window (0.5 deg here), so
         * it is exact to 1 cm on the wall only near its normal: rings +-1 and +-3 deg, 6 deg around. */
        if (!(fabsf(az[i]) < 6.0f && fabsf(el[i]) < 4.0f))
            continue;
        ++used;
        worst = fmax(worst, fabs(x[i] + 10.0 * t[i] - 10.0));
        if (fabs(y[i]) < 0.5) {
            ahead_min = fmin(ahead_min, x[i]);
            ahead_max = fmax(ahead_max, x[i]);
        }
    }
    CHECK(used > 100);
    CHECK(worst < 0.02); /* a tile column (8 deg of azimuth here) spans 2.2 ms of firing: +-1.1 cm */
    CHECK_NEAR(ahead_max - ahead_min, 1.0, 0.05);
    printf("test 1c (%s): kernel mode, %zu points near ahead, max |x + v t - 10| = %.3g m, skew %.4f m\n",
           engine_names[e], used, worst, ahead_max - ahead_min);
    lsim_points_destroy(p);
    lsim_sensor_destroy(s);
    lsim_scene_destroy(scene);
}

/* 2: a box at 20 m/s toward a static sensor; world points on its face at their time. */
static void driving_box(lsim_context *ctx, int e)
{
    lsim_scene *scene = engine_scene(ctx, engines[e]);
    lsim_object_desc d = test_object(NULL, NULL, 12.0, 0.0, 0.0); /* face at x = 11 at t = 0 */
    d.velocity[0] = -20.0;
    const double size[3] = {2.0, 30.0, 30.0};
    REQUIRE_OK(ctx, lsim_scene_add_box(scene, size, &d));
    lsim_sensor *s = vlp16(ctx);
    lsim_points *p = scan(ctx, scene, s, LSIM_FRAME_WORLD, 0, 0, 0.0);
    size_t n = lsim_points_count(p), face = 0;
    const float *x = fixture_f32(p, LSIM_FIELD_X), *nx = fixture_f32(p, LSIM_FIELD_NX);
    const float *t = fixture_f32(p, LSIM_FIELD_TIME);
    double worst = 0.0, lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; ++i) {
        if (nx[i] > -0.99f) /* a side face */
            continue;
        ++face;
        worst = fmax(worst, fabs(x[i] - (11.0 - 20.0 * t[i])));
        lo = fmin(lo, x[i]);
        hi = fmax(hi, x[i]);
    }
    CHECK(face > 3000);
    CHECK(worst < 1e-3);
    CHECK(hi - lo > 1.8); /* the face moved 2 m during the sweep */
    printf("test 2 (%s): %zu face points, max |x - (11 - 20 t)| = %.3g m, face seen from x = %.3f to %.3f m\n",
           engine_names[e], face, worst, hi, lo);
    /* The same scan at scan_time 0.2 s: the face starts at 11 - 4 = 7 m. */
    lsim_points *q = scan(ctx, scene, s, LSIM_FRAME_WORLD, 0, 0, 0.2);
    x = fixture_f32(q, LSIM_FIELD_X);
    nx = fixture_f32(q, LSIM_FIELD_NX);
    t = fixture_f32(q, LSIM_FIELD_TIME);
    double later = 0.0;
    for (size_t i = 0; i < lsim_points_count(q); ++i)
        if (nx[i] <= -0.99f)
            later = fmax(later, fabs(x[i] - (7.0 - 20.0 * t[i])));
    CHECK(later < 1e-3);
    lsim_points_destroy(q);
    lsim_points_destroy(p);
    lsim_sensor_destroy(s);
    lsim_scene_destroy(scene);
}

static lsim_scene *room_scene(lsim_context *ctx, lsim_engine_kind engine)
{
    lsim_scene *scene = engine_scene(ctx, engine);
    const lsim_object_desc d = test_object(NULL, NULL, 0.0, 0.0, 0.0);
    const double size[3] = {14.0, 9.0, 6.0};
    REQUIRE_OK(ctx, lsim_scene_add_box(scene, size, &d));
    return scene;
}

/* Largest |world azimuth - (beam azimuth + yaw0 + rate (scan_time + t))|, degrees, wrapped. */
static double azimuth_error(const lsim_points *p, double yaw0, double rate, double scan_time)
{
    const float *x = fixture_f32(p, LSIM_FIELD_X), *y = fixture_f32(p, LSIM_FIELD_Y);
    const float *az = fixture_f32(p, LSIM_FIELD_AZIMUTH), *t = fixture_f32(p, LSIM_FIELD_TIME);
    double worst = 0.0;
    for (size_t i = 0; i < lsim_points_count(p); ++i) {
        double got = atan2(y[i], x[i]) * 180.0 / 3.14159265358979323846;
        double want = az[i] + yaw0 + rate * (scan_time + t[i]);
        double d = fmod(got - want, 360.0);
        d = d > 180.0 ? d - 360.0 : d < -180.0 ? d + 360.0 : d;
        worst = fmax(worst, fabs(d));
    }
    return worst;
}

/* 3: yaw rate; 4 (rotation): keyframes of the same turn give the same points. */
static void turning_sensor(lsim_context *ctx, int e)
{
    lsim_scene *scene = room_scene(ctx, engines[e]);
    lsim_sensor *s = vlp16(ctx);
    const double pos[3] = {0, 0, 0}, rpy[3] = {0, 0, 30.0}, rate[3] = {0, 0, 900.0};
    REQUIRE_OK(ctx, lsim_sensor_set_pose(s, pos, rpy));
    REQUIRE_OK(ctx, lsim_sensor_set_motion(s, NULL, rate));
    lsim_points *p = scan(ctx, scene, s, LSIM_FRAME_WORLD, 0, 0, 0.0);
    double worst = azimuth_error(p, 30.0, 900.0, 0.0);
    CHECK(lsim_points_count(p) == lsim_sensor_beam_count(s));
    CHECK(worst < 2e-3);
    /* A static sensor would be off by up to 90 degrees at the end of the sweep. */
    CHECK(azimuth_error(p, 30.0, 0.0, 0.0) > 80.0);
    printf("test 3 (%s): yaw 30 deg + 900 deg/s: max world-azimuth error %.3g deg over %zu points\n",
           engine_names[e], worst, lsim_points_count(p));
    /* scan_time 0.05 s: the turn has gone on 45 degrees. */
    lsim_points *q = scan(ctx, scene, s, LSIM_FRAME_WORLD, 0, 0, 0.05);
    double later = azimuth_error(q, 30.0, 900.0, 0.05);
    CHECK(later < 2e-3);
    /* Keyframes: yaw 30 at t = 0, 30 + 900 at t = 1 s would be 2.5 turns; slerp takes the short way,
     * so key the turn every 0.1 s (90 degrees). */
    double kt[11], kp[11][3], kr[11][3];
    for (int k = 0; k < 11; ++k) {
        kt[k] = 0.1 * k;
        kp[k][0] = kp[k][1] = kp[k][2] = 0.0;
        kr[k][0] = kr[k][1] = 0.0;
        kr[k][2] = 30.0 + 90.0 * k;
    }
    lsim_sensor *k = vlp16(ctx);
    REQUIRE_OK(ctx, lsim_sensor_set_trajectory(k, 11, kt, (const double(*)[3])kp, (const double(*)[3])kr));
    lsim_points *r = scan(ctx, scene, k, LSIM_FRAME_WORLD, 0, 0, 0.0);
    double keyed = azimuth_error(r, 30.0, 900.0, 0.0);
    CHECK(keyed < 2e-3);
    printf("test 4 (%s): keyframes every 90 deg (slerp): max world-azimuth error %.3g deg; scan_time 0.05 s: %.3g "
           "deg\n", engine_names[e], keyed, later);
    lsim_points_destroy(r);
    lsim_points_destroy(q);
    lsim_points_destroy(p);
    lsim_sensor_destroy(k);
    lsim_sensor_destroy(s);
    lsim_scene_destroy(scene);
}

/* 4: keyframes (linear position) reproduce the velocity case; scan_time moves along them. */
static void keyed_drive(lsim_context *ctx, int e)
{
    lsim_scene *scene = wall_scene(ctx, engines[e], 60.0);
    /* 10 m/s from x = 0 at t = 0 to x = 100 at t = 10; the frame at 5 s starts at x = 50. */
    const double kt[2] = {0.0, 10.0}, kp[2][3] = {{0, 0, 0}, {100, 0, 0}}, kr[2][3] = {{0, 0, 0}, {0, 0, 0}};
    lsim_sensor *k = vlp16(ctx);
    REQUIRE_OK(ctx, lsim_sensor_set_trajectory(k, 2, kt, kp, kr));
    lsim_sensor *v = vlp16(ctx);
    const double vel[3] = {10.0, 0, 0};
    REQUIRE_OK(ctx, lsim_sensor_set_motion(v, vel, NULL));
    lsim_points *a = scan(ctx, scene, k, LSIM_FRAME_SENSOR, 0, 0, 5.0);
    lsim_points *b = scan(ctx, scene, v, LSIM_FRAME_SENSOR, 0, 0, 5.0);
    CHECK(lsim_points_count(a) == lsim_points_count(b));
    CHECK(lsim_points_count(a) > 3000);
    const float *ax = fixture_f32(a, LSIM_FIELD_X), *bx = fixture_f32(b, LSIM_FIELD_X);
    const float *t = fixture_f32(a, LSIM_FIELD_TIME);
    double diff = 0.0, worst = 0.0;
    for (size_t i = 0; i < lsim_points_count(a) && i < lsim_points_count(b); ++i) {
        diff = fmax(diff, fabs(ax[i] - bx[i]));
        worst = fmax(worst, fabs(ax[i] + 10.0 * t[i] - 10.0));
    }
    CHECK(diff < 1e-4);
    CHECK(worst < 1e-3);
    double pose[7];
    REQUIRE_OK(ctx, lsim_points_sensor_pose(a, pose));
    CHECK_NEAR(pose[0], 50.0, 1e-9);
    CHECK_NEAR(pose[3], 1.0, 1e-12);
    double at[7];
    REQUIRE_OK(ctx, lsim_sensor_get_pose_at(k, 2.5, at));
    CHECK_NEAR(at[0], 25.0, 1e-9);
    printf("test 4 (%s): keyframes vs velocity at scan_time 5 s: max |dx| %.3g m, max |x + v t - 10| %.3g m, "
           "frame pose x %.6g\n", engine_names[e], diff, worst, pose[0]);
    /* A trajectory carries the sensor mounted on it: 1.8 m up, yawed 90 degrees. */
    const double mount[3] = {0, 0, 1.8}, yaw[3] = {0, 0, 90.0};
    REQUIRE_OK(ctx, lsim_sensor_set_pose(k, mount, yaw));
    REQUIRE_OK(ctx, lsim_sensor_get_pose_at(k, 1.0, at));
    CHECK_NEAR(at[0], 10.0, 1e-9);
    CHECK_NEAR(at[2], 1.8, 1e-9);
    CHECK_NEAR(at[3], cos(3.14159265358979323846 / 4), 1e-9); /* qw of a 90 degree yaw */
    lsim_points_destroy(a);
    lsim_points_destroy(b);
    lsim_sensor_destroy(k);
    lsim_sensor_destroy(v);
    lsim_scene_destroy(scene);
}

static int same_points(const lsim_points *a, const lsim_points *b)
{
    if (lsim_points_count(a) != lsim_points_count(b))
        return 0;
    size_t n = lsim_points_count(a);
    for (int f = 0; f < LSIM_FIELD_COUNT; ++f) {
        const void *ca = lsim_points_column(a, (lsim_field)f), *cb = lsim_points_column(b, (lsim_field)f);
        size_t size = lsim_field_get_type((lsim_field)f) == LSIM_TYPE_U16 ? 2 : 4;
        if (!ca || !cb || memcmp(ca, cb, n * size) != 0)
            return 0;
    }
    return 1;
}

/* A street-like scene: a wall, a ground plane, a sphere and a box; objects with or without rates. */
static lsim_scene *mixed(lsim_context *ctx, lsim_engine_kind engine, int with_zero_rates, int moving)
{
    lsim_scene *scene = engine_scene(ctx, engine);
    lsim_object_desc d = test_object(NULL, NULL, 0.0, 0.0, 0.0);
    const double plane[2] = {80, 80}, wall[3] = {1, 60, 8}, car[3] = {4.5, 1.9, 1.5};
    REQUIRE_OK(ctx, lsim_scene_add_plane(scene, plane, &d));
    d.position[0] = 20.0;
    d.position[2] = 4.0;
    REQUIRE_OK(ctx, lsim_scene_add_box(scene, wall, &d));
    d = test_object(NULL, NULL, 8.0, 3.0, 0.75);
    d.rotation_deg[2] = 20.0;
    if (moving) {
        d.velocity[0] = -15.0;
        d.angular_velocity_deg_s[2] = 45.0;
    }
    (void)with_zero_rates; /* zero rates: lsim_object_desc_init's zeros, the same as none */
    REQUIRE_OK(ctx, lsim_scene_add_box(scene, car, &d));
    d = test_object(NULL, NULL, -6.0, 0.0, 1.0);
    if (moving)
        d.velocity[1] = 5.0;
    REQUIRE_OK(ctx, lsim_scene_add_sphere(scene, 1.0, &d));
    return scene;
}

/* 5: zero rates = no motion, bit for bit; 6: with noise, threads 1 and 2 agree with motion on. */
static void identity_and_threads(lsim_context *ctx, int e)
{
    lsim_scene *plain = mixed(ctx, engines[e], 0, 0);
    lsim_sensor *s = vlp16(ctx), *z = vlp16(ctx);
    const double pos[3] = {0, 0, 1.8}, rpy[3] = {0, 0, 10}, zero[3] = {0, 0, 0};
    REQUIRE_OK(ctx, lsim_sensor_set_pose(s, pos, rpy));
    REQUIRE_OK(ctx, lsim_sensor_set_pose(z, pos, rpy));
    REQUIRE_OK(ctx, lsim_sensor_set_motion(z, zero, zero));
    for (int frame = 0; frame < 2; ++frame) {
        lsim_points *a = scan(ctx, plain, s, frame ? LSIM_FRAME_WORLD : LSIM_FRAME_SENSOR, 1, 0, 0.0);
        lsim_points *b = scan(ctx, plain, z, frame ? LSIM_FRAME_WORLD : LSIM_FRAME_SENSOR, 1, 0, 0.0);
        CHECK(same_points(a, b));
        lsim_points_destroy(a);
        lsim_points_destroy(b);
    }
    /* A trajectory that stands still, times that do not matter: the same points too. */
    const double kt[1] = {3.0}, kp[1][3] = {{0, 0, 0}}, kr[1][3] = {{0, 0, 0}};
    lsim_sensor *k = vlp16(ctx);
    REQUIRE_OK(ctx, lsim_sensor_set_pose(k, pos, rpy));
    REQUIRE_OK(ctx, lsim_sensor_set_trajectory(k, 1, kt, kp, kr));
    lsim_points *a = scan(ctx, plain, s, LSIM_FRAME_WORLD, 1, 0, 0.0);
    lsim_points *b = scan(ctx, plain, k, LSIM_FRAME_WORLD, 1, 0, 0.0);
    size_t n = lsim_points_count(a);
    CHECK(n == lsim_points_count(b));
    const float *ax = fixture_f32(a, LSIM_FIELD_X), *bx = fixture_f32(b, LSIM_FIELD_X);
    double d = 0.0;
    for (size_t i = 0; i < n && n == lsim_points_count(b); ++i)
        d = fmax(d, fabs(ax[i] - bx[i]));
    CHECK(d < 1e-5);
    lsim_points_destroy(a);
    lsim_points_destroy(b);

    /* 6 */
    lsim_scene *moving = mixed(ctx, engines[e], 0, 1);
    const double v[3] = {8, 1, 0}, rate[3] = {0, 0, 20};
    REQUIRE_OK(ctx, lsim_sensor_set_motion(s, v, rate));
    int same = 1;
    for (int frame = 0; frame < 2; ++frame) {
        lsim_points *one = scan(ctx, moving, s, frame ? LSIM_FRAME_WORLD : LSIM_FRAME_SENSOR, 1, 1, 0.3);
        lsim_points *two = scan(ctx, moving, s, frame ? LSIM_FRAME_WORLD : LSIM_FRAME_SENSOR, 1, 2, 0.3);
        lsim_points *three = scan(ctx, moving, s, frame ? LSIM_FRAME_WORLD : LSIM_FRAME_SENSOR, 1, 3, 0.3);
        same &= same_points(one, two) && same_points(one, three);
        CHECK(lsim_points_count(one) > 10000);
        lsim_points_destroy(one);
        lsim_points_destroy(two);
        lsim_points_destroy(three);
    }
    CHECK(same);
    printf("tests 5, 6 (%s): zero rates bit-identical to none; moving scene with noise identical on 1, 2, 3 "
           "threads: %s\n", engine_names[e], same ? "yes" : "NO");
    lsim_sensor_destroy(k);
    lsim_sensor_destroy(s);
    lsim_sensor_destroy(z);
    lsim_scene_destroy(plain);
    lsim_scene_destroy(moving);
}

/* Point indices [0, n) sorted by (ring, time). */
static const uint16_t *sort_ring;
static const float *sort_time;
static int by_ring_time(const void *a, const void *b)
{
    const size_t i = *(const size_t *)a, j = *(const size_t *)b;
    if (sort_ring[i] != sort_ring[j])
        return sort_ring[i] < sort_ring[j] ? -1 : 1;
    return (sort_time[i] > sort_time[j]) - (sort_time[i] < sort_time[j]);
}

static size_t *ring_time_order(const uint16_t *ring, const float *time, size_t n)
{
    size_t *o = malloc((n ? n : 1) * sizeof *o);
    CHECK(o != NULL);
    if (!o)
        return NULL;
    for (size_t i = 0; i < n; ++i)
        o[i] = i;
    sort_ring = ring;
    sort_time = time;
    qsort(o, n, sizeof *o, by_ring_time);
    return o;
}

/* Embree and brute force agree on a scene where everything moves. */
static void engines_agree(lsim_context *ctx)
{
    lsim_points *p[2];
    lsim_sensor *s = vlp16(ctx);
    const double pos[3] = {0, 0, 1.8}, v[3] = {12, 0, 0}, rate[3] = {0, 0, 30};
    REQUIRE_OK(ctx, lsim_sensor_set_pose(s, pos, NULL));
    REQUIRE_OK(ctx, lsim_sensor_set_motion(s, v, rate));
    for (int e = 0; e < 2; ++e) {
        lsim_scene *scene = mixed(ctx, engines[e], 0, 1);
        p[e] = scan(ctx, scene, s, LSIM_FRAME_WORLD, 0, 0, 0.1);
        lsim_scene_destroy(scene);
    }
    size_t n = lsim_points_count(p[0]), m = lsim_points_count(p[1]);
    const float *r0 = fixture_f32(p[0], LSIM_FIELD_RANGE), *r1 = fixture_f32(p[1], LSIM_FIELD_RANGE);
    const uint16_t *ring0 = lsim_points_column(p[0], LSIM_FIELD_RING);
    const float *t0 = fixture_f32(p[0], LSIM_FIELD_TIME), *t1 = fixture_f32(p[1], LSIM_FIELD_TIME);
    /* Points match by (ring, time) (a ring's beams fire in time order; the channels of a column
     * fire in their own slots): count those whose ranges differ by more than 1 mm. */
    size_t differ = 0, matched = 0;
    const uint16_t *ring1 = lsim_points_column(p[1], LSIM_FIELD_RING);
    size_t *o0 = ring_time_order(ring0, t0, n), *o1 = ring_time_order(ring1, t1, m);
    for (size_t a = 0, b = 0; a < n && o0 && o1; ++a) {
        const size_t i = o0[a];
        while (b < m && (ring1[o1[b]] < ring0[i] || (ring1[o1[b]] == ring0[i] && t1[o1[b]] < t0[i])))
            ++b;
        if (b < m && t1[o1[b]] == t0[i] && ring1[o1[b]] == ring0[i]) {
            ++matched;
            differ += fabsf(r0[i] - r1[o1[b]]) > 1e-3f;
        }
    }
    free(o0);
    free(o1);
    CHECK(matched + 20 >= n && matched + 20 >= m);
    CHECK(differ <= n / 1000);
    printf("engines: %zu and %zu points, %zu matched, %zu ranges differ by > 1 mm\n", n, m, matched, differ);
    lsim_points_destroy(p[0]);
    lsim_points_destroy(p[1]);
    lsim_sensor_destroy(s);
}

static void bad_input(lsim_context *ctx)
{
    lsim_sensor *s = vlp16(ctx);
    const double nan3[3] = {0, NAN, 0}, inf3[3] = {INFINITY, 0, 0}, fast[3] = {2e4, 0, 0};
    CHECK(lsim_sensor_set_motion(s, nan3, NULL) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "sensor.velocity") != NULL);
    CHECK(lsim_sensor_set_motion(s, NULL, inf3) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "angular_velocity_deg_s") != NULL);
    CHECK(lsim_sensor_set_motion(s, fast, NULL) == LSIM_ERR_INVALID_ARGUMENT);
    const double kt[3] = {0.0, 0.2, 0.1}, kp[3][3] = {{0}}, kr[3][3] = {{0}};
    CHECK(lsim_sensor_set_trajectory(s, 3, kt, kp, kr) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "sensor.trajectory[2]") != NULL);
    CHECK(strstr(lsim_context_last_error(ctx), "ascending") != NULL);
    const double dup[2] = {0.5, 0.5};
    CHECK(lsim_sensor_set_trajectory(s, 2, dup, kp, kr) == LSIM_ERR_INVALID_ARGUMENT);
    const double kn[1] = {NAN};
    CHECK(lsim_sensor_set_trajectory(s, 1, kn, kp, kr) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_sensor_set_trajectory(s, 1, kt, NULL, kr) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_sensor_set_trajectory(s, 0, NULL, NULL, NULL) == LSIM_OK); /* removes it */
    double pose[7];
    CHECK(lsim_sensor_get_pose_at(s, NAN, pose) == LSIM_ERR_INVALID_ARGUMENT);

    lsim_scene *scene;
    REQUIRE_OK(ctx, lsim_scene_create(ctx, &scene));
    lsim_object_desc d;
    lsim_object_desc_init(&d);
    const double size[3] = {1, 1, 1};
    d.velocity[2] = NAN;
    CHECK(lsim_scene_add_box(scene, size, &d) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "object.velocity") != NULL);
    lsim_object_desc_init(&d);
    d.trajectory_count = 3;
    d.trajectory_t = kt;
    d.trajectory_position = kp;
    d.trajectory_rpy_deg = kr;
    CHECK(lsim_scene_add_sphere(scene, 1.0, &d) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_scene_object_count(scene) == 0);
    /* scan_time: finite; and a motion that leaves the world is refused at scan time. */
    lsim_object_desc_init(&d);
    d.position[0] = 5;
    REQUIRE_OK(ctx, lsim_scene_add_box(scene, size, &d));
    lsim_scan_options opt;
    lsim_scan_options_init(&opt);
    opt.scan_time = NAN;
    lsim_points *p = NULL;
    CHECK(lsim_scene_scan(scene, s, &opt, &p) == LSIM_ERR_INVALID_ARGUMENT && p == NULL);
    CHECK(strstr(lsim_context_last_error(ctx), "scan_time") != NULL);
    const double v[3] = {9000, 0, 0};
    REQUIRE_OK(ctx, lsim_sensor_set_motion(s, v, NULL));
    opt.scan_time = 5e6;
    CHECK(lsim_scene_scan(scene, s, &opt, &p) == LSIM_ERR_INVALID_ARGUMENT && p == NULL);
    CHECK(strstr(lsim_context_last_error(ctx), "beyond") != NULL);
    lsim_scene_destroy(scene);
    lsim_sensor_destroy(s);
}

int main(void)
{
    lsim_context *ctx;
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    for (int e = 0; e < 2; ++e) {
        driving_sensor(ctx, e);
        driving_bistatic(ctx, e);
        driving_kernel(ctx, e);
        driving_box(ctx, e);
        turning_sensor(ctx, e);
        keyed_drive(ctx, e);
        identity_and_threads(ctx, e);
    }
    engines_agree(ctx);
    bad_input(ctx);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_motion");
}
