/* One scene scanned from several threads at once (issue 23): lsim_scene_scan, lsim_scene_scan_into
 * and lsim_scene_scan_write on the same scene from THREADS pthreads, and lsim_fit_run on it while
 * other threads scan it. The scene's engine, its per-frame placement of moving objects and its
 * cached frame workspace are shared, so before the scene's lock the frames overwrote each other's
 * echoes (or crashed); now every frame is bit-identical to the same frame scanned alone, and the
 * fit ends where it ends alone. Run it under the ASan build too (build-*-asan). */
#define _GNU_SOURCE
#include "files.h"
#include "harness.h"
#include "test_scenes.h"

#include "lidarsim.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define THREADS 4
#define ROUNDS 3

/* 1 if every column both buffers hold has the same bytes and the counts agree (and are not 0). */
static int same_points_quiet(const lsim_points *a, const lsim_points *b, int quiet)
{
    if (lsim_points_count(a) != lsim_points_count(b) || lsim_points_count(a) == 0)
        return 0;
    for (int f = 0; f < LSIM_FIELD_COUNT; ++f) {
        const void *x = lsim_points_column(a, (lsim_field)f), *y = lsim_points_column(b, (lsim_field)f);
        if (!x != !y)
            return 0;
        if (!x)
            continue;
        size_t bytes = lsim_points_count(a) * (lsim_field_get_type((lsim_field)f) == LSIM_TYPE_U16 ? 2 : 4);
        if (memcmp(x, y, bytes) != 0) {
            if (!quiet)
                fprintf(stderr, "field %s differs\n", lsim_field_name((lsim_field)f));
            return 0;
        }
    }
    return 1;
}

static int same_points(const lsim_points *a, const lsim_points *b) { return same_points_quiet(a, b, 0); }

/* Frame k's options: its own seed, time and frame index (so the moving crate is elsewhere). */
static lsim_scan_options frame_options(int k)
{
    lsim_scan_options o;
    lsim_scan_options_init(&o);
    o.seed = 1000 + (uint64_t)k;
    o.frame_index = (uint32_t)k;
    o.scan_time = 0.25 * k;
    o.threads = 2;
    return o;
}

typedef struct worker {
    lsim_scene *scene;
    lsim_context *scene_ctx; /* where the scene's calls report their errors */
    lsim_sensor *sensor;
    const lsim_points *expected; /* frame `k` scanned alone */
    int k;
    char path[256], expected_path[256]; /* scan_write's file and the one written alone */
    int frames_ok, frames;               /* filled by the thread */
    lsim_status status;
    char message[512];
} worker;

static void *scan_worker(void *arg)
{
    worker *w = arg;
    lsim_context *ctx;
    if (lsim_context_create(&ctx) != LSIM_OK)
        return NULL;
    lsim_points *into = NULL;
    lsim_status st = lsim_points_create(ctx, &into);
    const lsim_scan_options o = frame_options(w->k);
    for (int r = 0; st == LSIM_OK && r < ROUNDS; ++r) {
        lsim_points *p = NULL;
        st = lsim_scene_scan(w->scene, w->sensor, &o, &p); /* a new buffer */
        if (st == LSIM_OK) {
            w->frames_ok += same_points(p, w->expected);
            ++w->frames;
            lsim_points_destroy(p);
            st = lsim_scene_scan_into(w->scene, w->sensor, &o, into); /* the thread's reused buffer */
        }
        if (st == LSIM_OK) {
            w->frames_ok += same_points(into, w->expected);
            ++w->frames;
            st = lsim_scene_scan_write(w->scene, w->sensor, &o, w->path, LSIM_FORMAT_PCD, NULL); /* sliced */
        }
        if (st == LSIM_OK) {
            size_t a = 0, b = 0;
            unsigned char *got = read_file_bytes(w->path, &a), *want = read_file_bytes(w->expected_path, &b);
            w->frames_ok += got && want && a == b && a > 0 && memcmp(got, want, a) == 0;
            ++w->frames;
            free(got);
            free(want);
        }
    }
    w->status = st;
    if (st != LSIM_OK)
        snprintf(w->message, sizeof w->message, "%s", lsim_context_last_error(w->scene_ctx));
    lsim_points_destroy(into);
    lsim_context_destroy(ctx);
    return NULL;
}

/* A small rotating lidar (8 channels x 450 columns): frames of milliseconds. */
static lsim_sensor *small_lidar(lsim_context *ctx)
{
    double el[8];
    for (int i = 0; i < 8; ++i)
        el[i] = -15.0 + 30.0 * i / 7.0;
    lsim_sensor *s;
    REQUIRE_OK(ctx, lsim_sensor_create_rotating(ctx, 8, el, 450, 10.0, &s));
    return s;
}

static lsim_scene *room(lsim_context *ctx, int moving)
{
    lsim_scene *scene = test_scene_room(ctx, 30, 20, 8);
    const double crate[3] = {1.5, 1, 1.2}, pillar[3] = {0.5, 0.5, 3};
    lsim_object_desc d = test_object(NULL, "car", 4, 1.5, 0);
    if (moving)
        d.velocity[1] = 2.0; /* 2 m/s across: each frame time places it elsewhere */
    REQUIRE_OK(ctx, lsim_scene_add_box(scene, crate, &d));
    d = test_object(NULL, "pole", -3, -4, 0);
    REQUIRE_OK(ctx, lsim_scene_add_box(scene, pillar, &d));
    return scene;
}

/* THREADS threads, each scanning its own frame of one moving scene ROUNDS times three ways. */
static void scans_in_threads(const char *dir)
{
    lsim_context *ctx;
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    lsim_scene *scene = room(ctx, 1);
    lsim_sensor *sensor = small_lidar(ctx);
    lsim_points *expected[THREADS];
    worker w[THREADS];
    memset(w, 0, sizeof w);
    for (int k = 0; k < THREADS; ++k) { /* each frame alone first */
        const lsim_scan_options o = frame_options(k);
        REQUIRE_OK(ctx, lsim_scene_scan(scene, sensor, &o, &expected[k]));
        w[k] = (worker){.scene = scene, .scene_ctx = ctx, .sensor = sensor, .expected = expected[k], .k = k};
        snprintf(w[k].path, sizeof w[k].path, "%s/thread%d.pcd", dir, k);
        snprintf(w[k].expected_path, sizeof w[k].expected_path, "%s/alone%d.pcd", dir, k);
        REQUIRE_OK(ctx, lsim_scene_scan_write(scene, sensor, &o, w[k].expected_path, LSIM_FORMAT_PCD, NULL));
    }
    /* the frames differ from one another (else equality would not tell them apart) */
    for (int k = 1; k < THREADS; ++k)
        CHECK(!same_points_quiet(expected[k], expected[0], 1));
    pthread_t t[THREADS];
    for (int k = 0; k < THREADS; ++k)
        CHECK(pthread_create(&t[k], NULL, scan_worker, &w[k]) == 0);
    for (int k = 0; k < THREADS; ++k)
        pthread_join(t[k], NULL);
    for (int k = 0; k < THREADS; ++k) {
        if (w[k].status != LSIM_OK)
            fprintf(stderr, "thread %d: %s: %s\n", k, lsim_status_string(w[k].status), w[k].message);
        CHECK(w[k].status == LSIM_OK);
        CHECK(w[k].frames == 3 * ROUNDS);
        if (w[k].frames_ok != w[k].frames)
            fprintf(stderr, "thread %d: %d of %d frames equal to the frame alone\n", k, w[k].frames_ok, w[k].frames);
        CHECK(w[k].frames_ok == 3 * ROUNDS);
        lsim_points_destroy(expected[k]);
        unlink(w[k].path);
        unlink(w[k].expected_path);
    }
    lsim_sensor_destroy(sensor);
    lsim_scene_destroy(scene);
    lsim_context_destroy(ctx);
}

typedef struct fit_job {
    lsim_fit *fit;
    lsim_fit_result result;
    double params[3];
    lsim_status status;
} fit_job;

static void *fit_worker(void *arg)
{
    fit_job *j = arg;
    j->status = lsim_fit_run(j->fit, 20, NULL, NULL, &j->result);
    if (j->status == LSIM_OK)
        j->status = lsim_fit_get_parameters(j->fit, j->params);
    return NULL;
}

/* A fit of the sensor's pose (x, y, yaw) to a scan of the static room, from 0.36 m and 4 degrees
 * off, on a sensor of its own. */
static lsim_fit *make_fit(lsim_context *ctx, lsim_scene *scene, lsim_sensor **sensor, const float *real, size_t n)
{
    *sensor = small_lidar(ctx);
    const double start[3] = {0.3, -0.2, 0.3}, rpy[3] = {0, 0, 4.0};
    REQUIRE_OK(ctx, lsim_sensor_set_pose(*sensor, start, rpy));
    lsim_fit *fit;
    REQUIRE_OK(ctx, lsim_fit_create(scene, *sensor, LSIM_FIT_SE2, &fit));
    REQUIRE_OK(ctx, lsim_fit_set_scan(fit, real, n));
    return fit;
}

/* lsim_fit_run in one thread while THREADS - 1 others scan the same scene. */
static void fit_while_scanning(const char *dir)
{
    lsim_context *ctx;
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    lsim_scene *scene = room(ctx, 0);
    lsim_sensor *truth = small_lidar(ctx);
    const double at[3] = {0, 0, 0.3}, level[3] = {0, 0, 0};
    REQUIRE_OK(ctx, lsim_sensor_set_pose(truth, at, level));
    lsim_scan_options o = frame_options(0);
    o.keep_misses = 1;
    o.scan_time = 0.0;
    lsim_points *scan;
    REQUIRE_OK(ctx, lsim_scene_scan(scene, truth, &o, &scan));
    const size_t n = lsim_points_count(scan);
    const float *real = lsim_points_column(scan, LSIM_FIELD_RANGE);

    /* the fit alone */
    lsim_sensor *alone_sensor;
    fit_job alone = {.fit = make_fit(ctx, scene, &alone_sensor, real, n)};
    fit_worker(&alone);
    REQUIRE_OK(ctx, alone.status);
    CHECK(alone.result.iterations > 1);
    CHECK_NEAR(alone.params[0], 0.0, 0.05); /* it found the sensor */
    CHECK_NEAR(alone.params[1], 0.0, 0.05);

    /* the scanners' frames alone, then the fit and the scanners together */
    lsim_sensor *sensor = small_lidar(ctx);
    lsim_points *expected[THREADS];
    worker w[THREADS];
    memset(w, 0, sizeof w);
    for (int k = 1; k < THREADS; ++k) {
        const lsim_scan_options ok = frame_options(k);
        REQUIRE_OK(ctx, lsim_scene_scan(scene, sensor, &ok, &expected[k]));
        w[k] = (worker){.scene = scene, .scene_ctx = ctx, .sensor = sensor, .expected = expected[k], .k = k};
        snprintf(w[k].path, sizeof w[k].path, "%s/fit_thread%d.pcd", dir, k);
        snprintf(w[k].expected_path, sizeof w[k].expected_path, "%s/fit_alone%d.pcd", dir, k);
        REQUIRE_OK(ctx, lsim_scene_scan_write(scene, sensor, &ok, w[k].expected_path, LSIM_FORMAT_PCD, NULL));
    }
    lsim_sensor *together_sensor;
    fit_job together = {.fit = make_fit(ctx, scene, &together_sensor, real, n)};
    pthread_t t[THREADS];
    CHECK(pthread_create(&t[0], NULL, fit_worker, &together) == 0);
    for (int k = 1; k < THREADS; ++k)
        CHECK(pthread_create(&t[k], NULL, scan_worker, &w[k]) == 0);
    for (int k = 0; k < THREADS; ++k)
        pthread_join(t[k], NULL);
    CHECK(together.status == LSIM_OK);
    CHECK(together.result.iterations == alone.result.iterations);
    CHECK(together.result.evaluations == alone.result.evaluations);
    CHECK(together.result.final_loss == alone.result.final_loss);
    CHECK(memcmp(together.params, alone.params, sizeof alone.params) == 0);
    for (int k = 1; k < THREADS; ++k) {
        CHECK(w[k].status == LSIM_OK);
        CHECK(w[k].frames_ok == 3 * ROUNDS);
        lsim_points_destroy(expected[k]);
        unlink(w[k].path);
        unlink(w[k].expected_path);
    }
    lsim_fit_destroy(alone.fit);
    lsim_fit_destroy(together.fit);
    lsim_sensor_destroy(alone_sensor);
    lsim_sensor_destroy(together_sensor);
    lsim_sensor_destroy(sensor);
    lsim_sensor_destroy(truth);
    lsim_points_destroy(scan);
    lsim_scene_destroy(scene);
    lsim_context_destroy(ctx);
}

int main(void)
{
    char dir[] = "/tmp/lsim_threads_XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    scans_in_threads(dir);
    fit_while_scanning(dir);
    rmdir(dir);
    return lsim_test_summary("test_scene_threads");
}
