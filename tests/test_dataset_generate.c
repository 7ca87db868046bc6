/* The dataset generator (src/dataset: config, layout, poses) on examples/dataset/dataset.yaml:
 * object counts within their ranges, no overlapping footprints, everything standing on its
 * surface, the sensor's lane clear, moving actors, determinism in (seed, sequence), jitter within
 * its bounds, and a noise-free scan in which every point carries the label of the object it lies
 * on. Then configs that must fail at load, each naming the file and the key or count. */
#include "files.h"
#include "harness.h"

#include "lidarsim.h"
#include "core/motion.h"
#include "core/vec.h"
#include "dataset/dataset_internal.h"
#include "scene/scene.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint32_t label_id(lsim_context *ctx, lsim_scene *scene, const char *name)
{
    uint32_t id = 0;
    REQUIRE_OK(ctx, lsim_label_map_resolve(ctx, &scene->labels, name, &id));
    return id;
}

/* An object's world-space bounds at t = 0 (moving objects placed by their motion). */
static void object_bounds(const lsim_object *o, double lo[3], double hi[3])
{
    for (int a = 0; a < 3; ++a)
        lo[a] = DBL_MAX, hi[a] = -DBL_MAX;
    if (o->shape == LSIM_SHAPE_SPHERE) {
        double c[3] = {o->center[0], o->center[1], o->center[2]};
        if (o->motion) {
            double m[12];
            lsim_motion_pose_at(o->motion, 0.0, m);
            for (int a = 0; a < 3; ++a)
                c[a] = m[4 * a + 3];
        }
        for (int a = 0; a < 3; ++a)
            lo[a] = c[a] - o->radius, hi[a] = c[a] + o->radius;
        return;
    }
    double m[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
    if (o->motion)
        lsim_motion_pose_at(o->motion, 0.0, m);
    for (size_t i = 0; i < o->vertex_count; ++i) {
        const float *v = o->vertices + 3 * i;
        for (int a = 0; a < 3; ++a) {
            double w = m[4 * a] * v[0] + m[4 * a + 1] * v[1] + m[4 * a + 2] * v[2] + m[4 * a + 3];
            lo[a] = fmin(lo[a], w);
            hi[a] = fmax(hi[a], w);
        }
    }
}

static int is_ground(uint32_t label, const uint32_t ground[3])
{
    return label == ground[0] || label == ground[1] || label == ground[2];
}

/* Placement checks on one sequence's scene; returns the number of placed (non-ground) objects. */
static size_t check_scene(lsim_context *ctx, const lsim_dataset *ds, lsim_scene *scene, size_t sequence)
{
    const uint32_t ground[3] = {label_id(ctx, scene, "road"), label_id(ctx, scene, "sidewalk"),
                                label_id(ctx, scene, "terrain")};
    const uint32_t building = label_id(ctx, scene, "building");
    size_t n = scene->object_count, placed = 0, moving = 0;
    double (*lo)[3] = calloc(n, sizeof *lo), (*hi)[3] = calloc(n, sizeof *hi);
    CHECK(lo && hi);
    for (size_t i = 0; i < n; ++i)
        object_bounds(&scene->objects[i], lo[i], hi[i]);
    /* counts per entry (the example's labels are distinct); a moving object of a class SemanticKITTI
     * labels apart when moving ("moving-car", ...) carries that label, and only a moving one */
    for (size_t e = 0; e < ds->entry_count; ++e) {
        uint32_t id = label_id(ctx, scene, ds->entries[e].label), moving_id = UINT32_MAX;
        char name[80];
        snprintf(name, sizeof name, "moving-%s", ds->entries[e].label);
        for (size_t k = 0; k < scene->labels.names.count; ++k)
            if (strcmp(scene->labels.names.entries[k].name, name) == 0)
                moving_id = scene->labels.names.entries[k].id;
        long count = 0;
        for (size_t i = 0; i < n; ++i) {
            const lsim_object *o = &scene->objects[i];
            count += o->label == id || o->label == moving_id;
            if (o->label == moving_id)
                CHECK(o->motion != NULL);
            if (o->label == id && moving_id != UINT32_MAX)
                CHECK(o->motion == NULL);
        }
        printf("sequence %zu: %ld x %s (range %ld..%ld)\n", sequence, count, ds->entries[e].label,
               ds->entries[e].count_lo, ds->entries[e].count_hi);
        CHECK(count >= ds->entries[e].count_lo && count <= ds->entries[e].count_hi);
    }
    const double r = ds->road_width / 2, s = r + ds->sidewalk_width;
    for (size_t i = 0; i < n; ++i) {
        const lsim_object *o = &scene->objects[i];
        CHECK(o->instance == i + 1);
        if (is_ground(o->label, ground))
            continue;
        placed += o->label != building;
        /* on its surface: the sidewalks are raised */
        double cy = fabs(lo[i][1] + hi[i][1]) / 2;
        double surface = (cy > r && cy < s) ? ds->sidewalk_height : 0.0;
        if (fabs(lo[i][2] - surface) > 0.01)
            fprintf(stderr, "object %zu (label %u) bottom at %.4f, surface %.2f\n", i, o->label, lo[i][2], surface);
        CHECK(fabs(lo[i][2] - surface) <= 0.01);
        /* the sensor's lane (straight drive: |y - offset| < clearance) is clear */
        CHECK(hi[i][1] <= ds->offset - ds->clearance + 1e-6 || lo[i][1] >= ds->offset + ds->clearance - 1e-6);
        if (o->motion && o->motion->key_count == 0 &&
            (o->motion->velocity[0] != 0 || o->motion->velocity[1] != 0 || o->motion->velocity[2] != 0))
            ++moving;
        for (size_t k = 0; k < i; ++k) {
            if (is_ground(scene->objects[k].label, ground))
                continue;
            int overlap = lo[i][0] < hi[k][0] - 1e-6 && lo[k][0] < hi[i][0] - 1e-6 && lo[i][1] < hi[k][1] - 1e-6 &&
                          lo[k][1] < hi[i][1] - 1e-6;
            if (overlap)
                fprintf(stderr, "sequence %zu: objects %zu and %zu overlap\n", sequence, i, k);
            CHECK(!overlap);
        }
    }
    /* the example's cars and bicyclists always move */
    const uint32_t car = label_id(ctx, scene, "car"), bike = label_id(ctx, scene, "bicyclist");
    for (size_t i = 0; i < n; ++i)
        if (scene->objects[i].label == car || scene->objects[i].label == bike)
            CHECK(scene->objects[i].motion && hypot(scene->objects[i].motion->velocity[0],
                                                    scene->objects[i].motion->velocity[1]) > 1.0);
    printf("sequence %zu: %zu objects (%zu placed, %zu moving)\n", sequence, n, placed, moving);
    CHECK(moving >= 1);
    free(lo);
    free(hi);
    return placed;
}

/* 1 if two scenes hold the same objects, byte for byte. */
static int same_scene(const lsim_scene *a, const lsim_scene *b)
{
    if (a->object_count != b->object_count)
        return 0;
    for (size_t i = 0; i < a->object_count; ++i) {
        const lsim_object *x = &a->objects[i], *y = &b->objects[i];
        if (x->shape != y->shape || x->label != y->label || x->instance != y->instance ||
            x->material != y->material || x->vertex_count != y->vertex_count ||
            x->triangle_count != y->triangle_count || (x->motion != NULL) != (y->motion != NULL))
            return 0;
        if (x->vertex_count && memcmp(x->vertices, y->vertices, 3 * x->vertex_count * sizeof(float)))
            return 0;
        if (x->triangle_count && memcmp(x->indices, y->indices, 3 * x->triangle_count * sizeof(uint32_t)))
            return 0;
        if (memcmp(x->center, y->center, sizeof x->center) || x->radius != y->radius)
            return 0;
        if (x->motion && (memcmp(x->motion->position, y->motion->position, sizeof x->motion->position) ||
                          memcmp(x->motion->velocity, y->motion->velocity, sizeof x->motion->velocity) ||
                          memcmp(x->motion->rpy_deg, y->motion->rpy_deg, sizeof x->motion->rpy_deg)))
            return 0;
    }
    return 1;
}

/* ---------------------------------------------------------------- the label check */

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* Squared distance from p to triangle abc (Ericson, Real-Time Collision Detection 5.1.5). */
static double point_triangle_d2(const double p[3], const double a[3], const double b[3], const double c[3])
{
    double ab[3], ac[3], ap[3], q[3];
    for (int i = 0; i < 3; ++i)
        ab[i] = b[i] - a[i], ac[i] = c[i] - a[i], ap[i] = p[i] - a[i];
    double d1 = dot3(ab, ap), d2 = dot3(ac, ap);
    if (d1 <= 0 && d2 <= 0) {
        for (int i = 0; i < 3; ++i) q[i] = a[i];
    } else {
        double bp[3], cp[3];
        for (int i = 0; i < 3; ++i)
            bp[i] = p[i] - b[i], cp[i] = p[i] - c[i];
        double d3 = dot3(ab, bp), d4 = dot3(ac, bp), d5 = dot3(ab, cp), d6 = dot3(ac, cp);
        double vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
        if (d3 >= 0 && d4 <= d3) {
            for (int i = 0; i < 3; ++i) q[i] = b[i];
        } else if (vc <= 0 && d1 >= 0 && d3 <= 0) {
            double v = d1 / (d1 - d3);
            for (int i = 0; i < 3; ++i) q[i] = a[i] + v * ab[i];
        } else if (d6 >= 0 && d5 <= d6) {
            for (int i = 0; i < 3; ++i) q[i] = c[i];
        } else if (vb <= 0 && d2 >= 0 && d6 <= 0) {
            double w = d2 / (d2 - d6);
            for (int i = 0; i < 3; ++i) q[i] = a[i] + w * ac[i];
        } else if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
            double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
            for (int i = 0; i < 3; ++i) q[i] = b[i] + w * (c[i] - b[i]);
        } else {
            double den = 1.0 / (va + vb + vc), v = vb * den, w = vc * den;
            for (int i = 0; i < 3; ++i) q[i] = a[i] + ab[i] * v + ac[i] * w;
        }
    }
    double d[3] = {p[0] - q[0], p[1] - q[1], p[2] - q[2]};
    return dot3(d, d);
}

/* Distance from world point p at time t to object o (inf when farther than `within`). */
static double object_distance(const lsim_object *o, const double pw[3], double t, const double lo[3],
                              const double hi[3], double within)
{
    double p[3] = {pw[0], pw[1], pw[2]};
    if (o->motion) { /* into the object's own frame at time t */
        double m[12];
        lsim_motion_pose_at(o->motion, t, m);
        double d[3] = {pw[0] - m[3], pw[1] - m[7], pw[2] - m[11]};
        for (int i = 0; i < 3; ++i)
            p[i] = m[i] * d[0] + m[4 + i] * d[1] + m[8 + i] * d[2];
    }
    if (o->shape == LSIM_SHAPE_SPHERE) {
        const double *c = o->motion ? (const double[3]){0, 0, 0} : o->center;
        double d[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
        return fabs(sqrt(dot3(d, d)) - o->radius);
    }
    for (int a = 0; a < 3; ++a)
        if (p[a] < lo[a] - within || p[a] > hi[a] + within)
            return INFINITY;
    double best = INFINITY;
    for (size_t k = 0; k < o->triangle_count; ++k) {
        double v[3][3];
        for (int j = 0; j < 3; ++j)
            for (int a = 0; a < 3; ++a)
                v[j][a] = o->vertices[3 * o->indices[3 * k + j] + a];
        best = fmin(best, point_triangle_d2(p, v[0], v[1], v[2]));
    }
    return sqrt(best);
}

static void check_labels(lsim_context *ctx, const lsim_dataset *ds, lsim_scene *scene, lsim_sensor *sensor)
{
    double scan_time, pose[12];
    REQUIRE_OK(ctx, lsim_dataset_place_frame(ds, ds->seed, 0, 3, sensor, &scan_time, pose));
    lsim_scan_options opt;
    lsim_scan_options_init(&opt);
    opt.noise = 0;
    opt.frame = LSIM_FRAME_WORLD;
    opt.scan_time = scan_time;
    opt.threads = 2;
    lsim_points *pts = NULL;
    double t0 = now_s();
    REQUIRE_OK(ctx, lsim_scene_scan(scene, sensor, &opt, &pts));
    double scan_s = now_s() - t0;
    size_t n = lsim_points_count(pts);
    const float *x = lsim_points_column(pts, LSIM_FIELD_X), *y = lsim_points_column(pts, LSIM_FIELD_Y);
    const float *z = lsim_points_column(pts, LSIM_FIELD_Z), *time = lsim_points_column(pts, LSIM_FIELD_TIME);
    const uint32_t *label = lsim_points_column(pts, LSIM_FIELD_LABEL);
    CHECK(x && y && z && time && label && n > 10000);
    /* object-frame bounds (moving objects are tested in their own frame) */
    size_t no = scene->object_count;
    double (*lo)[3] = malloc(no * sizeof *lo), (*hi)[3] = malloc(no * sizeof *hi);
    for (size_t i = 0; i < no; ++i) {
        const lsim_object *o = &scene->objects[i];
        for (int a = 0; a < 3; ++a)
            lo[i][a] = DBL_MAX, hi[i][a] = -DBL_MAX;
        for (size_t v = 0; v < o->vertex_count; ++v)
            for (int a = 0; a < 3; ++a) {
                lo[i][a] = fmin(lo[i][a], o->vertices[3 * v + a]);
                hi[i][a] = fmax(hi[i][a], o->vertices[3 * v + a]);
            }
    }
    size_t ok = 0, far = 0, wrong = 0, on_moving = 0;
    for (size_t k = 0; k < n && x; ++k) {
        const double p[3] = {x[k], y[k], z[k]};
        double best = INFINITY;
        size_t which = 0;
        for (size_t i = 0; i < no; ++i) {
            double d = object_distance(&scene->objects[i], p, scan_time + time[k], lo[i], hi[i], 1e-3);
            if (d < best)
                best = d, which = i;
        }
        if (!(best <= 1e-3)) {
            if (far < 5)
                fprintf(stderr, "point %zu (%.4f %.4f %.4f) label %u: nearest object %.4f m away\n", k, p[0], p[1],
                        p[2], label[k], best);
            ++far;
        } else if (scene->objects[which].label != label[k]) {
            if (wrong < 5)
                fprintf(stderr, "point %zu (%.4f %.4f %.4f): label %u, but it lies on object %zu labelled %u\n", k,
                        p[0], p[1], p[2], label[k], which, scene->objects[which].label);
            ++wrong;
        } else {
            ++ok;
            on_moving += scene->objects[which].motion != NULL;
        }
    }
    printf("label check: %zu of %zu points (%.3f %%) carry the label of the object they lie on (%zu on moving "
           "actors); %zu farther than 1 mm, %zu wrong; scan %.2f s\n", ok, n, n ? 100.0 * (double)ok / (double)n : 0.0,
           on_moving, far, wrong, scan_s);
    CHECK(ok == n && far == 0 && wrong == 0);
    CHECK(on_moving > 0);
    free(lo);
    free(hi);
    lsim_points_destroy(pts);
}

/* ---------------------------------------------------------------- poses */

static void check_poses(lsim_context *ctx, const lsim_dataset *ds, lsim_sensor *sensor, lsim_sensor *again)
{
    double max_dp = 0, max_rot = 0;
    int nonzero = 0;
    for (size_t f = 0; f < ds->frames_per_sequence; ++f) {
        double t, pose[12], t2, pose2[12], dp[3], drpy[3];
        /* un-jittered: the mount itself */
        REQUIRE_OK(ctx, lsim_sensor_set_pose(sensor, ds->mount_position, ds->mount_rotation));
        double q[7];
        REQUIRE_OK(ctx, lsim_sensor_get_pose_at(sensor, (double)f * ds->frame_period_s, q));
        REQUIRE_OK(ctx, lsim_dataset_place_frame(ds, ds->seed, 0, f, sensor, &t, pose));
        REQUIRE_OK(ctx, lsim_dataset_place_frame(ds, ds->seed, 0, f, again, &t2, pose2));
        CHECK(t == t2 && memcmp(pose, pose2, sizeof pose) == 0);
        CHECK_NEAR(t, (double)f * ds->frame_period_s, 1e-12);
        lsim_dataset_jitter(ds, ds->seed, 0, f, dp, drpy);
        for (int i = 0; i < 3; ++i) {
            CHECK(fabs(dp[i]) <= ds->jitter_position_m && fabs(drpy[i]) <= ds->jitter_rotation_deg);
            nonzero += dp[i] != 0 && drpy[i] != 0;
        }
        lsim_mat3 r0 = lsim_quat_to_mat3(q + 3);
        double dpos = sqrt(pow(pose[3] - q[0], 2) + pow(pose[7] - q[1], 2) + pow(pose[11] - q[2], 2));
        double tr = 0;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
                tr += r0.m[j][i] * pose[4 * j + i]; /* trace(R0^T R) */
        double angle = acos(fmin(1.0, fmax(-1.0, (tr - 1) / 2))) * 180.0 / 3.14159265358979323846;
        /* the position moves by the jitter and by the mount's rotation jitter acting on nothing
         * else (the mount's offset is in the body frame): within sqrt(3) x the per-axis bound */
        CHECK(dpos <= sqrt(3.0) * ds->jitter_position_m + 1e-9);
        CHECK(angle <= 3.0 * ds->jitter_rotation_deg + 1e-6); /* |Rz Ry Rx| <= the sum of the three */
        max_dp = fmax(max_dp, dpos);
        max_rot = fmax(max_rot, angle);
        /* the sensor's orientation is a rotation */
        CHECK_NEAR(pose[0] * pose[0] + pose[4] * pose[4] + pose[8] * pose[8], 1.0, 1e-9);
    }
    CHECK(nonzero > 0);
    CHECK(max_dp > 0.01 && max_rot > 0.1);
    printf("jitter: largest offset from the un-jittered pose %.3f m, %.3f deg\n", max_dp, max_rot);
    /* the drive: straight along +x at the configured speed (frame 0 to the last) */
    double a[7], b[7];
    REQUIRE_OK(ctx, lsim_sensor_get_pose_at(sensor, 0.0, a));
    REQUIRE_OK(ctx, lsim_sensor_get_pose_at(sensor, 0.5, b));
    CHECK_NEAR(b[0] - a[0], ds->speed * 0.5, 1e-6);
}

/* ---------------------------------------------------------------- bad configs */

static void expect_load_error(lsim_context *ctx, const char *name, const char *library, const char *layout,
                              const char *want1, const char *want2)
{
    char text[4096];
    snprintf(text, sizeof text,
             "seed: 1\nframes: 4\nframes_per_sequence: 2\nsensor: {preset: vlp16, position: [0, 0, 1.8]}\n"
             "layout:\n%s\ntrajectory: {kind: straight, speed: 8}\nlibrary:\n%s", layout, library);
    CHECK(text_written(name, text));
    lsim_dataset *ds = NULL;
    lsim_status st = lsim_dataset_load(ctx, name, &ds);
    const char *msg = lsim_context_last_error(ctx);
    printf("%s: %s\n", name, st == LSIM_OK ? "(loaded)" : msg);
    CHECK(st != LSIM_OK && ds == NULL);
    CHECK(strstr(msg, name) != NULL);
    CHECK(strstr(msg, want1) != NULL);
    CHECK(want2 == NULL || strstr(msg, want2) != NULL);
    lsim_dataset_destroy(ds);
}

static void check_bad_configs(lsim_context *ctx)
{
    const char *street = "  kind: street\n  length: 120\n  road_width: 8\n";
    const char *truck = "/usr/share/assimp/models/glTF/CesiumMilkTruck/CesiumMilkTruck.gltf";
    char lib[1024];
    expect_load_error(ctx, "ds_bad_mesh.yaml", "  - mesh: /nonexistent/models/truck.gltf\n    label: car\n", street,
                      "library[0].mesh", "/nonexistent/models/truck.gltf");
    expect_load_error(ctx, "ds_bad_count.yaml", "  - box: [1, 1, 1]\n    count: [5, 2]\n", street,
                      "library[0].count", "[5, 2]");
    expect_load_error(ctx, "ds_bad_key.yaml", "  - box: [1, 1, 1]\n    colour: red\n", street, "library[0]",
                      "colour");
    snprintf(lib, sizeof lib, "  - mesh: %s\n    rotation: [90, 0, 0]\n    label: truck\n    count: 500\n"
                              "    length: [4.5, 5.5]\n    on: road\n", truck);
    expect_load_error(ctx, "ds_bad_room.yaml", lib, "  kind: street\n  length: 20\n", "library[0].count", "500");
    expect_load_error(ctx, "ds_bad_road.yaml", "  - box: [1, 1, 1]\n", "  kind: street\n  road_width: 0\n",
                      "layout.road_width", NULL);
    expect_load_error(ctx, "ds_bad_size.yaml", "  - box: [1, -1, 1]\n", street, "library[0].box", NULL);
    expect_load_error(ctx, "ds_bad_wide.yaml", "  - box: [1, 5, 1]\n    on: sidewalk\n    yaw: aligned\n", street,
                      "library[0].count", "sidewalk");
    expect_load_error(ctx, "ds_bad_on.yaml", "  - box: [1, 1, 1]\n    on: road\n", "  kind: scatter\n",
                      "library[0].on", "scatter");
    /* the caps on one sequence's work (examples/dataset/README.md "Limits") */
    expect_load_error(ctx, "ds_cap_objects.yaml",
                      "  - box: [0.1, 0.1, 0.1]\n    count: [0, 6000]\n  - sphere: 0.1\n    count: [0, 6000]\n", street,
                      "library[1].count", "at most 10000");
    expect_load_error(ctx, "ds_cap_blocks.yaml", "  - box: [1, 1, 1]\n",
                      "  kind: street\n  length: 10000\n  building_length: [1, 2]\n  building_gap: [0, 1]\n",
                      "layout.building_length", "at most 2000");
    snprintf(lib, sizeof lib, "  - mesh: %s\n    count: [0, 10000]\n    on: anywhere\n", truck);
    expect_load_error(ctx, "ds_cap_triangles.yaml", lib, street, "library[0].count", "at most 20000000");
    expect_load_error(ctx, "ds_cap_count.yaml", "  - box: [1, 1, 1]\n    count: [1e9, 1e9]\n", street,
                      "library[0].count", "10000");
    CHECK(text_written("ds_cap_drive.yaml",
                       "frames: 1000000\nsensor: {type: planar, steps: 16, fov_deg: 90, rate_hz: 0.01}\n"
                       "layout: {kind: scatter}\n"));
    lsim_dataset *ds = NULL;
    CHECK(lsim_dataset_load(ctx, "ds_cap_drive.yaml", &ds) != LSIM_OK && ds == NULL);
    printf("ds_cap_drive.yaml: %s\n", lsim_context_last_error(ctx));
    CHECK(strstr(lsim_context_last_error(ctx), "ds_cap_drive.yaml:1:9: frames:") != NULL);
    CHECK(strstr(lsim_context_last_error(ctx), "at most 1e+07 s") != NULL);
    expect_load_error(ctx, "ds_cap_length.yaml", "  - box: [1, 1, 1]\n", "  kind: street\n  length: 1e7\n",
                      "layout.length", "10000");
}

/* A config that passes the load-time area check but cannot be packed: the build fails, naming
 * the file, the entry's count and what to change. */
static void check_build_failure(lsim_context *ctx)
{
    CHECK(text_written("ds_crowded.yaml",
                       "seed: 1\nframes: 2\nframes_per_sequence: 2\nsensor: {preset: vlp16}\n"
                       "layout: {kind: street, length: 20, road_width: 8}\ntrajectory: {kind: straight, speed: 2}\n"
                       "library:\n  - box: [3, 1.5, 1]\n    label: car\n    count: 18\n"));
    lsim_dataset *ds = NULL;
    REQUIRE_OK(ctx, lsim_dataset_load(ctx, "ds_crowded.yaml", &ds));
    lsim_scene *scene = NULL;
    lsim_sensor *sensor = NULL;
    lsim_status st = lsim_dataset_build_sequence(ds, 1, 0, &scene, &sensor);
    const char *msg = lsim_context_last_error(ctx);
    printf("ds_crowded.yaml: %s\n", msg);
    CHECK(st != LSIM_OK && scene == NULL && sensor == NULL);
    CHECK(strstr(msg, "ds_crowded.yaml:8") != NULL && strstr(msg, "library[0].count") != NULL);
    CHECK(strstr(msg, "of 18") != NULL && strstr(msg, "'car'") != NULL);
    lsim_dataset_destroy(ds);
}

/* A crowded library along a zigzag path: the placement stops at its budget of footprint tests
 * (LSIM_DS_PLACE_BUDGET) with a message naming the entry, instead of running on for minutes. */
static void check_place_budget(lsim_context *ctx)
{
    char text[2048];
    int n = snprintf(text, sizeof text, "frames: 2\nsensor: {type: planar, steps: 16, fov_deg: 90, rate_hz: 0.001}\n"
                                        "layout: {kind: scatter, extent: [200, 200]}\n"
                                        "trajectory: {kind: waypoints, speed: 0.0001, clearance: 1, points: [");
    for (int i = 0; i < 16; ++i)
        n += snprintf(text + n, sizeof text - (size_t)n, "%s[%d, %d]", i ? ", " : "", i % 2 ? 99 : -99, i - 99);
    snprintf(text + n, sizeof text - (size_t)n, "]}\nlibrary:\n  - {box: [1, 1, 1], count: 9000}\n");
    CHECK(text_written("ds_budget.yaml", text));
    lsim_dataset *ds = NULL;
    REQUIRE_OK(ctx, lsim_dataset_load(ctx, "ds_budget.yaml", &ds));
    lsim_scene *scene = NULL;
    lsim_sensor *sensor = NULL;
    double t0 = now_s();
    lsim_status st = lsim_dataset_build_sequence(ds, 0, 0, &scene, &sensor);
    const char *msg = lsim_context_last_error(ctx);
    printf("ds_budget.yaml (%.2f s): %s\n", now_s() - t0, msg);
    CHECK(st != LSIM_OK && scene == NULL && sensor == NULL);
    CHECK(strstr(msg, "ds_budget.yaml:6") != NULL && strstr(msg, "library[0].count") != NULL);
    CHECK(strstr(msg, "footprint tests") != NULL);
    lsim_dataset_destroy(ds);
}

/* A waypoint drive: the sensor follows the polyline at the configured speed, yaw along it. */
static void check_waypoints(lsim_context *ctx)
{
    CHECK(text_written("ds_waypoints.yaml",
                       "frames: 20\nframes_per_sequence: 20\nsensor: {preset: vlp16, position: [0, 0, 1.8]}\n"
                       "layout: {kind: scatter, extent: [80, 80]}\n"
                       "trajectory: {kind: waypoints, speed: 10, points: [[-20, -20], [-10, -20], [-10, 0], [10, 0]]}\n"
                       "library:\n  - box: [1, 1, 2]\n    count: 30\n    label: pole\n"));
    lsim_dataset *ds = NULL;
    REQUIRE_OK(ctx, lsim_dataset_load(ctx, "ds_waypoints.yaml", &ds));
    lsim_scene *scene = NULL;
    lsim_sensor *sensor = NULL;
    REQUIRE_OK(ctx, lsim_dataset_build_sequence(ds, 0, 0, &scene, &sensor));
    double q[7];
    REQUIRE_OK(ctx, lsim_sensor_get_pose_at(sensor, 0.5, q)); /* 5 m along the first leg */
    CHECK_NEAR(q[0], -15.0, 1e-6);
    CHECK_NEAR(q[1], -20.0, 1e-6);
    CHECK_NEAR(q[2], 1.8, 1e-6);
    REQUIRE_OK(ctx, lsim_sensor_get_pose_at(sensor, 1.5, q)); /* 5 m up the second leg, heading +y */
    CHECK_NEAR(q[0], -10.0, 1e-6);
    CHECK_NEAR(q[1], -15.0, 1e-6);
    lsim_mat3 r = lsim_quat_to_mat3(q + 3);
    CHECK(r.m[1][0] > 0.9); /* the sensor's x axis points along +y */
    /* no pole within 1.5 m of the path (it passes (-10, -20) -> (-10, 0): x in -10 +- 1.5 kept clear) */
    for (size_t i = 1; i < scene->object_count; ++i) {
        double lo[3], hi[3];
        object_bounds(&scene->objects[i], lo, hi);
        int on_leg = hi[0] > -11.5 && lo[0] < -8.5 && hi[1] > -21.5 && lo[1] < 1.5;
        CHECK(!on_leg);
    }
    CHECK(scene->object_count == 31);
    lsim_scene_destroy(scene);
    lsim_sensor_destroy(sensor);
    lsim_dataset_destroy(ds);
}

/* A scatter layout with a circular drive: objects keep the clearance from the circle. */
static void check_scatter_circle(lsim_context *ctx)
{
    CHECK(text_written("ds_scatter.yaml",
                       "seed: 3\nframes: 6\nframes_per_sequence: 3\nsensor: {preset: vlp16, position: [0, 0, 1.8]}\n"
                       "layout: {kind: scatter, extent: [60, 60]}\n"
                       "trajectory: {kind: circle, radius: 15, speed: 5}\n"
                       "library:\n  - box: [2, 1, 1.5]\n    label: car\n    count: [10, 20]\n    speed: [0, 3]\n"
                       "  - sphere: 0.5\n    label: other-object\n    count: 5\n"));
    lsim_dataset *ds = NULL;
    REQUIRE_OK(ctx, lsim_dataset_load(ctx, "ds_scatter.yaml", &ds));
    lsim_scene *scene = NULL;
    lsim_sensor *sensor = NULL;
    REQUIRE_OK(ctx, lsim_dataset_build_sequence(ds, ds->seed, 1, &scene, &sensor));
    size_t objects = 0;
    for (size_t i = 1; i < scene->object_count; ++i) { /* object 0 is the ground */
        double lo[3], hi[3];
        object_bounds(&scene->objects[i], lo, hi);
        CHECK_NEAR(lo[2], 0.0, 1e-3);
        /* nearest point of the footprint to the circle's centre and farthest corner */
        double dx = fmax(fmax(lo[0], -hi[0]), 0.0), dy = fmax(fmax(lo[1], -hi[1]), 0.0);
        double near = hypot(dx, dy), farthest = hypot(fmax(fabs(lo[0]), fabs(hi[0])), fmax(fabs(lo[1]), fabs(hi[1])));
        CHECK(near >= 15.0 + 1.5 - 1e-6 || farthest <= 15.0 - 1.5 + 1e-6);
        ++objects;
    }
    CHECK(objects >= 15 && objects <= 25);
    double q0[7], q1[7];
    REQUIRE_OK(ctx, lsim_sensor_get_pose_at(sensor, 0.0, q0));
    REQUIRE_OK(ctx, lsim_sensor_get_pose_at(sensor, 0.2, q1));
    CHECK_NEAR(hypot(q0[0], q0[1]), 15.0, 1e-6);
    CHECK_NEAR(hypot(q1[0], q1[1]), 15.0, 0.01);
    CHECK_NEAR(hypot(q1[0] - q0[0], q1[1] - q0[1]), 5.0 * 0.2, 0.01);
    printf("scatter + circle: %zu objects clear of the drive\n", objects);
    lsim_scene_destroy(scene);
    lsim_sensor_destroy(sensor);
    lsim_dataset_destroy(ds);
}

int main(void)
{
    const char *src = getenv("LSIM_SOURCE_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/examples/dataset/dataset.yaml", src ? src : "..");
    lsim_context *ctx;
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    double t0 = now_s();
    lsim_dataset *ds = NULL;
    REQUIRE_OK(ctx, lsim_dataset_load(ctx, path, &ds));
    printf("load (meshes imported once): %.3f s\n", now_s() - t0);
    lsim_dataset_info info;
    lsim_dataset_get_info(ds, &info);
    CHECK(info.frames == 20 && info.frames_per_sequence == 10 && info.seed == 7);
    CHECK_NEAR(info.frame_period_s, 0.1, 1e-12);
    CHECK(info.text && info.text_len > 100 && strstr(info.text, "frames_per_sequence") != NULL);

    lsim_scene *s0 = NULL, *s1 = NULL, *s0b = NULL;
    lsim_sensor *r0 = NULL, *r1 = NULL, *r0b = NULL;
    t0 = now_s();
    REQUIRE_OK(ctx, lsim_dataset_build_sequence(ds, info.seed, 0, &s0, &r0));
    printf("build sequence 0: %.4f s, %zu objects, %zu triangles\n", now_s() - t0, lsim_scene_object_count(s0),
           lsim_scene_triangle_count(s0));
    REQUIRE_OK(ctx, lsim_dataset_build_sequence(ds, info.seed, 1, &s1, &r1));
    REQUIRE_OK(ctx, lsim_dataset_build_sequence(ds, info.seed, 0, &s0b, &r0b));
    check_scene(ctx, ds, s0, 0);
    check_scene(ctx, ds, s1, 1);
    CHECK(same_scene(s0, s0b));
    CHECK(!same_scene(s0, s1));
    /* another seed gives another scene */
    lsim_scene *s9 = NULL;
    lsim_sensor *r9 = NULL;
    REQUIRE_OK(ctx, lsim_dataset_build_sequence(ds, info.seed + 1, 0, &s9, &r9));
    CHECK(!same_scene(s0, s9));
    lsim_scene_destroy(s9);
    lsim_sensor_destroy(r9);

    check_poses(ctx, ds, r0, r0b);
    check_labels(ctx, ds, s0, r0);
    /* frames out of range are refused */
    double t, pose[12];
    CHECK(lsim_dataset_place_frame(ds, info.seed, 0, info.frames_per_sequence, r0, &t, pose) != LSIM_OK);

    lsim_scene_destroy(s0);
    lsim_scene_destroy(s1);
    lsim_scene_destroy(s0b);
    lsim_sensor_destroy(r0);
    lsim_sensor_destroy(r1);
    lsim_sensor_destroy(r0b);
    lsim_dataset_destroy(ds);

    check_scatter_circle(ctx);
    check_waypoints(ctx);
    check_build_failure(ctx);
    check_place_budget(ctx);
    check_bad_configs(ctx);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_dataset_generate");
}
