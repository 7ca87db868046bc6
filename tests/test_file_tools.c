/* The public API of the fit, pattern and dataset tools (include/lidarsim.h), through the
 * header alone:
 *   a  lsim_pattern_from_scan: a wall at x = 5 with known points -> the plane (distance, normal,
 *      rms 0), the pattern's rows (atan2), the time shift, the ring; a tilted non-planar set warns;
 *      the output being the scan, points on a line, a missing column: the status, the message, no
 *      output (an existing one unchanged);
 *   b  lsim_fit_file_run: a room scanned at a known pose, fitted from another: the fitted pose, the
 *      fitted scene file loads with it; -o naming the scene is INVALID_ARGUMENT, a bad key PARSE at
 *      FIT:LINE:COL, an unknown object's error too (not INVALID_ARGUMENT), nothing written;
 *   c  lsim_dataset_load / lsim_dataset_run: two frames in two slices (stop_after 1, then the resume),
 *      the files and the stats; a bad shard, a different seed on the same folder, a bad config. */
#include "files.h"
#include "harness.h"

#include "lidarsim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define WORK "file_tools.work"
#define DEG (3.14159265358979323846 / 180.0)

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *buf = calloc(1, 1 << 20);
    size_t n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    (void)n;
    fclose(f);
    return buf;
}

static int has(const char *text, const char *needle)
{
    return text && strstr(text, needle) != NULL;
}

/* ------------------------------------------------------------------ a: pattern */

static void part_a(lsim_context *ctx)
{
    /* 5 x 5 points on the wall x = 5 (y, z in -1..1), times -0.5 .. 0.46 s, rings 0..4 */
    FILE *f = fopen(WORK "/wall.csv", "w");
    if (!f)
        exit(1);
    fprintf(f, "x,y,z,time,ring\n");
    for (int i = 0; i < 25; ++i)
        fprintf(f, "5,%g,%g,%g,%d\n", -1.0 + 0.5 * (i % 5), -1.0 + 0.5 * (i / 5), -0.5 + 0.04 * i, i / 5);
    fprintf(f, "nan,nan,nan,0,0\n"); /* a miss: no row */
    fclose(f);

    lsim_pattern_options o;
    lsim_pattern_options_init(&o);
    CHECK(o.wall_distance_m == 0.0 && o.report == 0 && o.warnings == 1);
    o.warnings = 0;
    o.wall_distance_m = 5.0;
    lsim_pattern_scan_info info;
    REQUIRE_OK(ctx, lsim_pattern_from_scan(ctx, WORK "/wall.csv", WORK "/pattern.csv", &o, &info));
    CHECK(info.rows == 26 && info.beams == 25);
    CHECK(info.has_time == 1 && info.has_ring == 1);
    CHECK_NEAR(info.time_shift_s, -0.5, 1e-12);
    CHECK_NEAR(info.distance_m, 5.0, 1e-9);
    CHECK_NEAR(info.normal[0], 1.0, 1e-9);
    CHECK_NEAR(info.normal[1], 0.0, 1e-9);
    CHECK_NEAR(info.normal[2], 0.0, 1e-9);
    CHECK(info.rms_m < 1e-9 && info.max_m < 1e-9 && info.planar == 1 && info.distance_matches == 1);
    /* the rows: point 0 is (5, -1, -1) at t = -0.5 s (shifted to 0), ring 0; point 24 (5, 1, 1), ring 4 */
    char *text = read_text(WORK "/pattern.csv");
    CHECK(has(text, "azimuth_deg,elevation_deg,time_s,ring\n"));
    const char *row = text ? strstr(text, "ring\n") : NULL;
    double az = 0, el = 0, t = -1;
    int ring = -1;
    CHECK(row && sscanf(row + 5, "%lf,%lf,%lf,%d", &az, &el, &t, &ring) == 4);
    CHECK_NEAR(az, atan2(-1.0, 5.0) / DEG, 1e-8);
    CHECK_NEAR(el, atan2(-1.0, hypot(5.0, -1.0)) / DEG, 1e-8);
    CHECK_NEAR(t, 0.0, 1e-9);
    CHECK(ring == 0);
    size_t lines = 0;
    for (const char *p = text; p && *p; ++p)
        lines += *p == '\n';
    CHECK(lines == 1 + 1 + 25); /* the comment, the header, 25 beams */
    free(text);

    /* the wall is not where wall_distance_m says; a sphere-ish cloud is not planar: still written */
    o.wall_distance_m = 4.9;
    REQUIRE_OK(ctx, lsim_pattern_from_scan(ctx, WORK "/wall.csv", WORK "/pattern2.csv", &o, &info));
    CHECK(info.distance_matches == 0 && info.planar == 1);
    write_text(WORK "/bumpy.csv", "x,y,z\n5,0,0\n5,1,0\n5,0,1\n4,1,1\n6,-1,-1\n5,0.5,0.5\n");
    o.wall_distance_m = 0.0;
    REQUIRE_OK(ctx, lsim_pattern_from_scan(ctx, WORK "/bumpy.csv", WORK "/pattern3.csv", &o, &info));
    CHECK(info.planar == 0 && info.rms_m > LSIM_PATTERN_PLANAR_RMS_M && info.beams == 6);

    /* errors: no output file, an existing one unchanged, info zeroed */
    lsim_status st = lsim_pattern_from_scan(ctx, WORK "/wall.csv", WORK "/./wall.csv", &o, &info);
    CHECK(st == LSIM_ERR_INVALID_ARGUMENT && has(lsim_context_last_error(ctx), "is the scan itself"));
    CHECK(info.beams == 0 && info.rows == 0);
    write_text(WORK "/line.csv", "x,y,z\n1,0,0\n2,0,0\n3,0,0\n4,0,0\n");
    write_text(WORK "/old.csv", "old\n");
    st = lsim_pattern_from_scan(ctx, WORK "/line.csv", WORK "/old.csv", NULL, NULL);
    CHECK(st == LSIM_ERR_PARSE && has(lsim_context_last_error(ctx), "line.csv") &&
          has(lsim_context_last_error(ctx), "on one line"));
    text = read_text(WORK "/old.csv");
    CHECK(text && strcmp(text, "old\n") == 0);
    free(text);
    write_text(WORK "/two.csv", "x,y,z\n1,0,0\n1,1,0\n");
    st = lsim_pattern_from_scan(ctx, WORK "/two.csv", WORK "/none.csv", NULL, NULL);
    CHECK(st == LSIM_ERR_PARSE && has(lsim_context_last_error(ctx), "at least 3") && !exists(WORK "/none.csv"));
    write_text(WORK "/noxyz.csv", "range,intensity\n1,0.5\n2,0.5\n3,0.5\n");
    st = lsim_pattern_from_scan(ctx, WORK "/noxyz.csv", WORK "/none.csv", NULL, NULL);
    CHECK(st != LSIM_OK && st != LSIM_ERR_INVALID_ARGUMENT && has(lsim_context_last_error(ctx), "no `x` column") &&
          !exists(WORK "/none.csv"));
    st = lsim_pattern_from_scan(ctx, WORK "/nope.csv", WORK "/none.csv", NULL, NULL);
    CHECK(st == LSIM_ERR_IO && has(lsim_context_last_error(ctx), "nope.csv"));
    o.wall_distance_m = -1.0;
    st = lsim_pattern_from_scan(ctx, WORK "/wall.csv", WORK "/none.csv", &o, NULL);
    CHECK(st == LSIM_ERR_INVALID_ARGUMENT && has(lsim_context_last_error(ctx), "wall_distance_m -1"));
    CHECK(lsim_pattern_from_scan(ctx, NULL, WORK "/none.csv", NULL, NULL) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(!exists(WORK "/none.csv"));
}

/* ------------------------------------------------------------------ b: fit file */

static const char *ROOM = "sensor:\n"
                          "  preset: urg-04lx\n"
                          "  position: [%g, %g, 1.0]\n"
                          "  rotation: [0, 0, %g]\n"
                          "objects:\n"
                          "  - box: {size: [6, 4, 3]}\n"
                          "    position: [0.5, 0, 1]\n"
                          "  - box: {size: [0.3, 0.3, 3]}\n"
                          "    name: post\n"
                          "    position: [2, 1.2, 1]\n";

static void write_room(const char *path, double x, double y, double yaw_deg)
{
    char text[1024];
    snprintf(text, sizeof text, ROOM, x, y, yaw_deg);
    write_text(path, text);
}

static void part_b(lsim_context *ctx)
{
    mkdir(WORK "/fit", 0777);
    write_room(WORK "/fit/truth.yaml", 0.4, -0.3, 12.0);
    write_room(WORK "/fit/room.yaml", 0.0, 0.0, 0.0);
    /* the real scan: the truth scanned without noise, misses kept (one row per beam) */
    lsim_scene *scene = NULL;
    lsim_sensor *sensor = NULL;
    REQUIRE_OK(ctx, lsim_scene_load(ctx, WORK "/fit/truth.yaml", &scene, &sensor));
    lsim_scan_options so;
    lsim_scan_options_init(&so);
    so.noise = 0;
    so.keep_misses = 1;
    REQUIRE_OK(ctx, lsim_scene_scan_write(scene, sensor, &so, WORK "/fit/real.csv", LSIM_FORMAT_CSV, NULL));
    const size_t beams = lsim_sensor_beam_count(sensor);
    lsim_sensor_destroy(sensor);
    lsim_scene_destroy(scene);
    write_text(WORK "/fit/fit.yaml", "scene: room.yaml\nscan: real.csv\n"
                                     "parameters:\n  sensor: {dof: se2, initial: {x: 0.1, yaw_deg: 3}}\n");

    lsim_fit_file_options o;
    lsim_fit_file_options_init(&o);
    CHECK(o.max_iterations == 0 && o.progress == LSIM_PROGRESS_OFF && o.report == 0);
    lsim_fit_file_result r;
    REQUIRE_OK(ctx, lsim_fit_file_run(ctx, WORK "/fit/fit.yaml", WORK "/fit/fitted.yaml", &o, &r));
    CHECK(r.parameter_count == 3 && r.beams == beams && r.max_iterations == 100);
    CHECK(strcmp(r.names[0], "sensor.x") == 0 && strcmp(r.names[1], "sensor.y") == 0 &&
          strcmp(r.names[2], "sensor.yaw") == 0);
    CHECK_NEAR(r.initial[0], 0.1, 1e-12);
    CHECK_NEAR(r.initial[1], 0.0, 1e-12);
    CHECK_NEAR(r.initial[2], 3.0 * DEG, 1e-12);
    CHECK_NEAR(r.fitted[0], 0.4, 1e-3);
    CHECK_NEAR(r.fitted[1], -0.3, 1e-3);
    CHECK_NEAR(r.fitted[2], 12.0 * DEG, 0.02 * DEG);
    CHECK(r.fit.final_loss < r.fit.initial_loss && r.fit.rms_residual_m < 1e-3 && r.fit.iterations >= 1);
    CHECK(r.fit.beams_used > beams / 2 && r.fit.beams_used <= beams);
    /* the fitted scene loads with the fitted pose */
    REQUIRE_OK(ctx, lsim_scene_load(ctx, WORK "/fit/fitted.yaml", &scene, &sensor));
    double pose[7];
    REQUIRE_OK(ctx, lsim_sensor_get_pose_at(sensor, 0.0, pose));
    CHECK_NEAR(pose[0], 0.4, 1e-3);
    CHECK_NEAR(pose[1], -0.3, 1e-3);
    CHECK_NEAR(pose[2], 1.0, 1e-9);
    CHECK_NEAR(2.0 * atan2(pose[6], pose[3]), 12.0 * DEG, 0.02 * DEG); /* a yaw-only rotation */
    lsim_sensor_destroy(sensor);
    lsim_scene_destroy(scene);
    /* two iterations: stops there */
    o.max_iterations = 2;
    REQUIRE_OK(ctx, lsim_fit_file_run(ctx, WORK "/fit/fit.yaml", WORK "/fit/two.yaml", &o, &r));
    CHECK(r.max_iterations == 2 && r.fit.iterations == 2 && r.fit.stop == LSIM_FIT_ITERATIONS);

    /* -o naming an input: the arguments' fault; nothing changed */
    char *before = read_text(WORK "/fit/room.yaml");
    lsim_status st = lsim_fit_file_run(ctx, WORK "/fit/fit.yaml", WORK "/fit/room.yaml", NULL, &r);
    CHECK(st == LSIM_ERR_INVALID_ARGUMENT && has(lsim_context_last_error(ctx), "is the scene file"));
    CHECK(r.parameter_count == 0);
    char *after = read_text(WORK "/fit/room.yaml");
    CHECK(before && after && strcmp(before, after) == 0);
    free(before);
    free(after);
    st = lsim_fit_file_run(ctx, WORK "/fit/fit.yaml", WORK "/fit/fit.yaml", NULL, NULL);
    CHECK(st == LSIM_ERR_INVALID_ARGUMENT && has(lsim_context_last_error(ctx), "is the fit file"));
    /* the caller's arguments: INVALID_ARGUMENT, never PARSE */
    CHECK(lsim_fit_file_run(NULL, WORK "/fit/fit.yaml", WORK "/fit/out.yaml", NULL, NULL) == LSIM_ERR_INVALID_ARGUMENT);
    st = lsim_fit_file_run(ctx, WORK "/fit/fit.yaml", "", NULL, NULL);
    CHECK(st == LSIM_ERR_INVALID_ARGUMENT && has(lsim_context_last_error(ctx), "NULL or empty"));
    o.max_iterations = 20000;
    st = lsim_fit_file_run(ctx, WORK "/fit/fit.yaml", WORK "/fit/out.yaml", &o, NULL);
    CHECK(st == LSIM_ERR_INVALID_ARGUMENT && has(lsim_context_last_error(ctx), "max_iterations 20000"));
    /* the fit file's content: PARSE (never INVALID_ARGUMENT) at FIT:LINE:COL, nothing written */
    write_text(WORK "/fit/bad.yaml", "scene: room.yaml\nscan: real.csv\nparameters:\n  sensor: {dof: se2}\n"
                                     "scan_file: x.csv\n");
    st = lsim_fit_file_run(ctx, WORK "/fit/bad.yaml", WORK "/fit/out.yaml", NULL, NULL);
    CHECK(st == LSIM_ERR_PARSE && has(lsim_context_last_error(ctx), "bad.yaml:5:1") &&
          has(lsim_context_last_error(ctx), "unknown key 'scan_file'"));
    write_text(WORK "/fit/bounds.yaml", "scene: room.yaml\nscan: real.csv\nparameters:\n"
                                        "  sensor: {dof: se2, initial: {yaw_deg: 30}, bounds: {yaw_deg: [-10, 10]}}\n");
    st = lsim_fit_file_run(ctx, WORK "/fit/bounds.yaml", WORK "/fit/out.yaml", NULL, NULL);
    CHECK(st != LSIM_OK && st != LSIM_ERR_INVALID_ARGUMENT &&
          has(lsim_context_last_error(ctx), "30 deg is outside its bounds [-10, 10]"));
    write_text(WORK "/fit/door.yaml", "scene: room.yaml\nscan: real.csv\nparameters:\n  objects:\n"
                                      "    door: {dof: se2}\n");
    st = lsim_fit_file_run(ctx, WORK "/fit/door.yaml", WORK "/fit/out.yaml", NULL, NULL);
    CHECK(st != LSIM_OK && st != LSIM_ERR_INVALID_ARGUMENT && has(lsim_context_last_error(ctx), "door.yaml:5:5") &&
          has(lsim_context_last_error(ctx), "no object named 'door'"));
    st = lsim_fit_file_run(ctx, WORK "/fit/fit.yaml", WORK "/fit/nowhere/out.yaml", NULL, NULL);
    CHECK(st == LSIM_ERR_IO && has(lsim_context_last_error(ctx), "cannot write the fitted scene") &&
          has(lsim_context_last_error(ctx), "nowhere/out.yaml"));
    st = lsim_fit_file_run(ctx, WORK "/fit/missing.yaml", WORK "/fit/out.yaml", NULL, NULL);
    CHECK(st == LSIM_ERR_IO && has(lsim_context_last_error(ctx), "missing.yaml"));
    CHECK(!exists(WORK "/fit/out.yaml"));
}

/* ------------------------------------------------------------------ c: dataset */

static void part_c(lsim_context *ctx)
{
    write_text(WORK "/ds.yaml", "seed: 3\nframes: 2\nframes_per_sequence: 2\n"
                                "sensor: {preset: urg-04lx, position: [0, 0, 0.5]}\n"
                                "layout: {kind: scatter, extent: [6, 6]}\n"
                                "trajectory: {kind: straight, speed: 1}\n"
                                "library:\n  - box: [0.5, 0.5, 1]\n    label: car\n    count: [4, 4]\n"
                                "    on: ground\n");
    lsim_dataset *ds = NULL;
    REQUIRE_OK(ctx, lsim_dataset_load(ctx, WORK "/ds.yaml", &ds));
    lsim_dataset_run_options o;
    lsim_dataset_run_options_init(&o);
    CHECK(o.frames == 0 && o.seed_given == 0 && o.shard == 0 && o.shards == 1 && o.rank == 0 && o.ranks == 1 &&
          o.threads == 0 && o.progress == LSIM_PROGRESS_OFF && o.stop_after == 0);
    o.stop_after = 1;
    o.threads = 1;
    lsim_dataset_run_stats s;
    REQUIRE_OK(ctx, lsim_dataset_run(ds, WORK "/ds", &o, &s));
    CHECK(s.frames == 2 && s.mine == 2 && s.done_before == 0 && s.written == 1 && s.points > 0);
    const size_t first = s.points;
    CHECK(file_size(WORK "/ds/sequences/00/velodyne/000000.bin") == (long)(16 * first));
    CHECK(file_size(WORK "/ds/sequences/00/labels/000000.label") == (long)(4 * first));
    CHECK(!exists(WORK "/ds/sequences/00/velodyne/000001.bin"));
    CHECK(exists(WORK "/ds/dataset.json") && exists(WORK "/ds/labels.yaml"));
    /* the resume: the missing frame only */
    o.stop_after = 0;
    REQUIRE_OK(ctx, lsim_dataset_run(ds, WORK "/ds", &o, &s));
    CHECK(s.frames == 2 && s.done_before == 1 && s.written == 1 && s.points > 0);
    CHECK(file_size(WORK "/ds/sequences/00/velodyne/000001.bin") == (long)(16 * s.points));
    REQUIRE_OK(ctx, lsim_dataset_run(ds, WORK "/ds", NULL, &s)); /* all done: nothing to write */
    CHECK(s.done_before == 2 && s.written == 0 && s.points == 0);
    /* a second shard of two writes only its block */
    o.shard = 1;
    o.shards = 2;
    REQUIRE_OK(ctx, lsim_dataset_run(ds, WORK "/ds_shard", &o, &s));
    CHECK(s.frames == 2 && s.mine == 1 && s.written == 1);
    /* errors */
    o.shard = 2;
    lsim_status st = lsim_dataset_run(ds, WORK "/ds_bad", &o, &s);
    CHECK(st == LSIM_ERR_INVALID_ARGUMENT && has(lsim_context_last_error(ctx), "shard 2 of 2"));
    CHECK(!exists(WORK "/ds_bad"));
    lsim_dataset_run_options_init(&o);
    const int bad_threads[2] = {-1, 5000};
    for (int i = 0; i < 2; ++i) { /* refused before the folder is made */
        o.threads = bad_threads[i];
        st = lsim_dataset_run(ds, WORK "/ds_bad", &o, &s);
        CHECK(st == LSIM_ERR_INVALID_ARGUMENT && has(lsim_context_last_error(ctx), "threads") &&
              has(lsim_context_last_error(ctx), "0..1024") && !exists(WORK "/ds_bad"));
    }
    lsim_dataset_run_options_init(&o);
    o.seed_given = 1;
    o.seed = 4;
    st = lsim_dataset_run(ds, WORK "/ds", &o, &s);
    CHECK(st != LSIM_OK && has(lsim_context_last_error(ctx), "seed"));
    CHECK(lsim_dataset_run(ds, NULL, NULL, NULL) == LSIM_ERR_INVALID_ARGUMENT);
    lsim_dataset_destroy(ds);
    write_text(WORK "/ds_bad.yaml", "seed: 3\nframes: 2\nsensor: {preset: urg-04lx}\nlayout: {kind: maze}\n");
    ds = NULL;
    st = lsim_dataset_load(ctx, WORK "/ds_bad.yaml", &ds);
    CHECK(st != LSIM_OK && ds == NULL && has(lsim_context_last_error(ctx), "ds_bad.yaml:") &&
          has(lsim_context_last_error(ctx), "maze"));
    lsim_dataset_destroy(NULL);
}

int main(void)
{
    if (system("rm -rf " WORK) != 0 || mkdir(WORK, 0777) != 0) {
        fprintf(stderr, "cannot make %s\n", WORK);
        return 1;
    }
    lsim_context *ctx = NULL;
    if (lsim_context_create(&ctx) != LSIM_OK)
        return 1;
    part_a(ctx);
    part_b(ctx);
    part_c(ctx);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_file_tools");
}
