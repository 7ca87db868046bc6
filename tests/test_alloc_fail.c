/* Allocation-failure injection, as SQLite's tests do: every malloc, calloc, realloc (and strdup,
 * strndup, posix_memalign, aligned_alloc) the library makes goes through a counter (the test is
 * linked with -Wl,--wrap=...; see tests/CMakeLists.txt) that fails the k-th call. For k = 1, 2, ...
 * each scenario (load a scene file, scan, write PCD, KITTI, PLY, CSV, the PNGs, LAS and MCAP, then a streamed
 * scan + KITTI write through lsim_scene_scan_write) runs until a
 * run completes without reaching the k-th call, in two modes: the k-th call alone fails, or every
 * call from the k-th on fails. Every run that hits the failure must
 *   - return LSIM_ERR_OUT_OF_MEMORY with a non-empty last-error message (only a failed
 *     lsim_context_create has no context to put a message in), or succeed with output identical
 *     to the reference run (a recovered failure);
 *   - leave no output file (and no temporary file) behind after a failure;
 *   - not crash, and leak nothing: free is wrapped too, and every block the library allocates
 *     during a run must be freed by the end of it (checked after each run, so the report names k;
 *     in the release build as well). Under the ASan build, LeakSanitizer also checks the whole heap
 *     after each loop over k (leaks inside third-party libraries caused by a missed cleanup call).
 * Third-party libraries (libyaml, Embree, assimp, cairo, libgomp) are shared objects: their own
 * allocations are not counted, nor are libc's internal ones (getline, fopen).
 * Scenarios: inline rotating sensor with mirror, glass, retroreflector, fog and sun; a pattern
 * CSV sensor with a kernel file (blooming) and a calibrated material from a calibration YAML; a
 * camera with sub-rays and dual returns. */
#define _GNU_SOURCE /* strndup, aligned_alloc prototypes for the wrappers */
#include "harness.h"
#include "files.h"

#include "lidarsim.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#define LEAK_CHECK() __lsan_do_recoverable_leak_check()
#else
#define LEAK_CHECK() 0
#endif

/* ---- the failing allocator ---- */

void *__real_malloc(size_t size);
void __real_free(void *p);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
int __real_posix_memalign(void **out, size_t align, size_t size);
void *__real_aligned_alloc(size_t align, size_t size);

static long alloc_calls;    /* calls counted since arm() */
static long fail_at;        /* 0: never fail; otherwise the call number that fails */
static int fail_persistent; /* fail every call from fail_at on */
static long failures;       /* calls failed since arm() */
static int armed;

/* The blocks allocated while armed and not yet freed: an open-addressing set of pointers. */
#define LIVE_SLOTS (1u << 16)
#define TOMBSTONE ((void *)1)
static void *live[LIVE_SLOTS];
static long live_count, live_overflow;
static int live_lock;

static void lock(void)
{
    while (__atomic_exchange_n(&live_lock, 1, __ATOMIC_ACQUIRE))
        ;
}
static void unlock(void) { __atomic_store_n(&live_lock, 0, __ATOMIC_RELEASE); }

static size_t slot_of(const void *p) { return (size_t)(((uintptr_t)p >> 4) * 2654435761u) & (LIVE_SLOTS - 1); }

static void live_add(void *p)
{
    if (!p || !__atomic_load_n(&armed, __ATOMIC_SEQ_CST))
        return;
    lock();
    if (live_count >= (long)(LIVE_SLOTS / 2)) {
        ++live_overflow;
    } else {
        size_t i = slot_of(p);
        while (live[i] && live[i] != TOMBSTONE)
            i = (i + 1) & (LIVE_SLOTS - 1);
        live[i] = p;
        ++live_count;
    }
    unlock();
}

static void live_remove(void *p)
{
    if (!p)
        return;
    lock();
    for (size_t i = slot_of(p); live[i]; i = (i + 1) & (LIVE_SLOTS - 1))
        if (live[i] == p) {
            live[i] = TOMBSTONE;
            --live_count;
            break;
        }
    unlock();
}

static void live_clear(void)
{
    memset(live, 0, sizeof live);
    live_count = live_overflow = 0;
}

static void arm(long k, int persistent)
{
    live_clear();
    __atomic_store_n(&alloc_calls, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&failures, 0, __ATOMIC_SEQ_CST);
    fail_at = k;
    fail_persistent = persistent;
    __atomic_store_n(&armed, 1, __ATOMIC_SEQ_CST);
}

static void disarm(void) { __atomic_store_n(&armed, 0, __ATOMIC_SEQ_CST); }

/* Whether this allocation should fail. */
static int should_fail(void)
{
    if (!__atomic_load_n(&armed, __ATOMIC_SEQ_CST))
        return 0;
    long n = __atomic_add_fetch(&alloc_calls, 1, __ATOMIC_SEQ_CST);
    if (fail_at > 0 && (n == fail_at || (fail_persistent && n > fail_at))) {
        __atomic_add_fetch(&failures, 1, __ATOMIC_SEQ_CST);
        return 1;
    }
    return 0;
}

static void *track(void *p)
{
    live_add(p);
    return p;
}

void *__wrap_malloc(size_t size) { return should_fail() ? NULL : track(__real_malloc(size)); }
void *__wrap_calloc(size_t n, size_t size) { return should_fail() ? NULL : track(__real_calloc(n, size)); }
void *__wrap_realloc(void *p, size_t size)
{
    if (should_fail())
        return NULL;
    void *q = __real_realloc(p, size);
    if (q || size == 0)
        live_remove(p);
    return track(q);
}
char *__wrap_strdup(const char *s) { return should_fail() ? NULL : track(__real_strdup(s)); }
char *__wrap_strndup(const char *s, size_t n) { return should_fail() ? NULL : track(__real_strndup(s, n)); }
int __wrap_posix_memalign(void **out, size_t align, size_t size)
{
    if (should_fail())
        return 12; /* ENOMEM */
    int rc = __real_posix_memalign(out, align, size);
    if (rc == 0)
        live_add(*out);
    return rc;
}
void *__wrap_aligned_alloc(size_t align, size_t size)
{
    return should_fail() ? NULL : track(__real_aligned_alloc(align, size));
}
void __wrap_free(void *p)
{
    live_remove(p);
    __real_free(p);
}

/* ---- inputs ---- */

static const char *const scene_rotating =
    "sensor:\n"
    "  type: rotating\n"
    "  channels: 4\n"
    "  elevation_min: -10\n"
    "  elevation_max: 5\n"
    "  columns: 24\n"
    "  position: [0, 0, 1.5]\n"
    "  range: [0.3, 60]\n"
    "  noise: {range_sigma: 0.01, intensity_sigma: 0.05}\n"
    "  receiver: {pulse_width_ns: 6, returns: all, max_returns: 3}\n"
    "materials:\n"
    "  wall: {brdf: lambertian, reflectance: 0.4}\n"
    "  shiny: {brdf: mirror, reflectance: 0.9}\n"
    "  pane: {brdf: glass, ior: 1.5, transmittance: 0.9}\n"
    "  sign: {brdf: retroreflector, peak: 500, falloff_deg: 20}\n"
    "  rough: {brdf: cook-torrance, reflectance: 0.3, roughness: 0.4}\n"
    "max_bounces: 3\n"
    "atmosphere: {visibility_m: 80, backscatter_per_m_sr: 0.001}\n"
    "ambient: {sun_direction: [0.3, 0.2, 1], irradiance_w_m2: 20}\n"
    "labels:\n"
    "  bollard: 120\n"
    "objects:\n"
    "  - box: {size: [30, 30, 6]}\n"
    "    position: [0, 0, 3]\n"
    "    material: wall\n"
    "    label: building\n"
    "  - sphere: {radius: 0.6}\n"
    "    position: [4, 1, 1]\n"
    "    material: shiny\n"
    "    label: bollard\n"
    "  - plane: {size: [2, 2]}\n"
    "    position: [-4, 0, 1.5]\n"
    "    rotation: [0, 90, 0]\n"
    "    material: pane\n"
    "  - box: {size: [0.5, 0.5, 2]}\n"
    "    position: [0, 5, 1]\n"
    "    material: sign\n"
    "    label: pole\n"
    "  - sphere: {radius: 0.4}\n"
    "    position: [0, -4, 1.4]\n"
    "    material: rough\n";

static const char *const scene_pattern =
    "sensor:\n"
    "  type: pattern\n"
    "  file: fan.csv\n"
    "  position: [0, 0, 0]\n"
    "  range: [0.15, 30]\n"
    "  beam:\n"
    "    divergence_mrad: 3\n"
    "    mode: kernel\n"
    "    kernel: {file: small.kernel}\n"
    "    range_bin: 0.2\n"
    "materials:\n"
    "  board: {calibration: cal.yaml#board}\n"
    "  back: {brdf: oren-nayar, reflectance: 0.3, roughness: 0.5}\n"
    "objects:\n"
    "  - plane: {size: [1, 3]}\n"
    "    position: [1, 0, 0]\n"
    "    rotation: [0, 90, 0]\n"
    "    material: board\n"
    "  - box: {size: [0.5, 8, 4]}\n"
    "    position: [6, 0, 0]\n"
    "    material: back\n";

static const char *const fan_csv =
    "azimuth_deg,elevation_deg,time_s,ring\n"
    "-20,0,0,0\n-15,0,0.001,0\n-10,0,0.002,0\n-5,0,0.003,0\n0,0,0.004,0\n"
    "5,0,0.005,0\n10,0,0.006,0\n15,0,0.007,0\n20,0,0.008,0\n40,1,0.009,1\n";

static const char *const kernel_txt = "separable\nstep_deg: 0.5\nh: 0.01 0.2 1 0.2 0.01\nv: 0.1 1 0.1\n";

static const char *const calibration_yaml =
    "lidarsim_calibration: 1\nsensor: rplidar-a1\nmaterials:\n  - name: board\n"
    "    fitted_distance_m: 1.0\n    normal_angle_rad: 3.14\n    board_width_m: 3\n"
    "    bin_width_deg: 20\n    brdf: {type: oren-nayar, roughness: 0.7, scale: 47}\n"
    "    bins:\n"
    "      - {angle_deg: 10, n: 10, mean_intensity: 47, std_intensity: 1, std_range_m: 0.002, drop_rate: 0.1}\n"
    "      - {angle_deg: 30, n: 10, mean_intensity: 40, std_intensity: 2, std_range_m: 0.003, drop_rate: 0.3}\n"
    "      - {angle_deg: 50, n: 10, mean_intensity: 30, std_intensity: 3, std_range_m: 0.004, drop_rate: 0.5}\n";

static const char *const scene_camera =
    "sensor:\n"
    "  type: camera\n"
    "  width: 8\n"
    "  height: 6\n"
    "  hfov_deg: 60\n"
    "  vfov_deg: 45\n"
    "  range: [0.1, 20]\n"
    "  beam: {divergence_mrad: 5, mode: rays, rings: 2}\n"
    "  receiver: {pulse_width_ns: 4, returns: dual, max_returns: 2}\n"
    "  baseline: [0, 0.05, 0]\n"
    "materials:\n"
    "  pane: {brdf: glass, ior: 1.5, transmittance: 0.8}\n"
    "  back: {brdf: lambertian, reflectance: 0.6}\n"
    "objects:\n"
    "  - plane: {size: [4, 4]}\n"
    "    position: [2, 0, 0]\n"
    "    rotation: [0, 90, 0]\n"
    "    material: pane\n"
    "  - box: {size: [1, 10, 10]}\n"
    "    position: [5, 0, 0]\n"
    "    material: back\n"
    "    label: building\n";

/* ---- one run ---- */

/* The write steps in order, and the files each leaves (KITTI: three). */
enum { OUT_PCD, OUT_KITTI, OUT_PLY, OUT_CSV, OUT_BEV, OUT_RANGE, OUT_LAS, OUT_MCAP, OUT_STREAM, STEP_COUNT };
enum { FILE_COUNT = 13 };
static const char *const out_names[FILE_COUNT] = {"cloud.pcd", "cloud.bin", "cloud.label", "cloud.labels.yaml",
                                                  "cloud.ply", "cloud.csv", "bev.png", "range.png",
                                                  "cloud.las", "cloud.mcap", "stream.bin", "stream.label", "stream.labels.yaml"};
static const int file_step[FILE_COUNT] = {OUT_PCD, OUT_KITTI, OUT_KITTI, OUT_KITTI, OUT_PLY, OUT_CSV, OUT_BEV, OUT_RANGE,
                                          OUT_LAS, OUT_MCAP, OUT_STREAM, OUT_STREAM, OUT_STREAM};
static const int step_file[STEP_COUNT] = {0, 1, 4, 5, 6, 7, 8, 9, 10}; /* the path each step is given */

typedef struct run_result {
    lsim_status status;
    char message[512];
    int had_context;
    int step; /* the write step that failed; -1: an earlier stage (context, load, scan) */
} run_result;

/* Paths are prepared before arming so that the test itself allocates nothing while armed. */
static char out_dir[256], out_path[FILE_COUNT][320];

static run_result run_once(const char *scene_path)
{
    run_result r = {LSIM_OK, "", 0, -1};
    lsim_context *ctx = NULL;
    lsim_scene *scene = NULL;
    lsim_sensor *sensor = NULL;
    lsim_points *points = NULL;
    r.status = lsim_context_create(&ctx);
    if (r.status != LSIM_OK)
        return r;
    r.had_context = 1;
    lsim_scan_options opt;
    lsim_scan_options_init(&opt);
    opt.threads = 1;
    opt.seed = 7;
    lsim_status st = lsim_scene_load(ctx, scene_path, &scene, &sensor);
    if (st == LSIM_OK)
        st = lsim_scene_scan(scene, sensor, &opt, &points);
    for (int step = 0; step < STEP_COUNT && st == LSIM_OK; ++step) {
        const char *path = out_path[step_file[step]];
        switch (step) {
        case OUT_PCD: st = lsim_points_write(points, path, LSIM_FORMAT_AUTO); break;
        case OUT_KITTI: st = lsim_points_write(points, path, LSIM_FORMAT_KITTI); break;
        case OUT_PLY: st = lsim_points_write(points, path, LSIM_FORMAT_PLY); break;
        case OUT_CSV: st = lsim_points_write(points, path, LSIM_FORMAT_CSV); break;
        case OUT_BEV: st = lsim_points_write_birdseye(points, path, 64, 20.0); break;
        case OUT_RANGE: st = lsim_points_write_range_image(points, path, 2.0); break;
        case OUT_LAS: st = lsim_points_write(points, path, LSIM_FORMAT_AUTO); break;
        case OUT_MCAP: st = lsim_points_write(points, path, LSIM_FORMAT_AUTO); break;
        default: st = lsim_scene_scan_write(scene, sensor, &opt, path, LSIM_FORMAT_AUTO, NULL); break;
        }
        if (st != LSIM_OK)
            r.step = step;
    }
    r.status = st;
    if (st != LSIM_OK)
        snprintf(r.message, sizeof r.message, "%s", lsim_context_last_error(ctx));
    lsim_points_destroy(points);
    lsim_sensor_destroy(sensor);
    lsim_scene_destroy(scene);
    lsim_context_destroy(ctx);
    return r;
}


static unsigned char *reference[FILE_COUNT];
static size_t reference_size[FILE_COUNT];

static void clear_outputs(void)
{
    DIR *d = opendir(out_dir);
    if (!d)
        return;
    struct dirent *e;
    char path[600];
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            path_join(path, sizeof path, out_dir, e->d_name);
            unlink(path);
        }
    closedir(d);
}

/* The outputs of the steps before `steps` match the reference run, and nothing else is in the
 * folder (no output of the failed step or later, no temporary file). */
static int outputs_match_reference(int steps)
{
    int expected = 0;
    for (int i = 0; i < FILE_COUNT; ++i) {
        if (file_step[i] >= steps)
            continue;
        ++expected;
        size_t n = 0;
        unsigned char *got = read_file_bytes(out_path[i], &n);
        int same = got && n == reference_size[i] && memcmp(got, reference[i], n) == 0;
        free(got);
        if (!same) {
            fprintf(stderr, "%s differs from the reference run or is missing\n", out_path[i]);
            return 0;
        }
    }
    return count_entries(out_dir, NULL) == expected;
}

static long loop_over_k(const char *name, const char *scene_path, int persistent, long total, long *recovered);

/* Run one scenario for k = 1, 2, ... in both modes. Returns the number of allocation calls of
 * a complete run. */
static long run_scenario(const char *name, const char *scene_path)
{
    /* Reference run, counting the calls. */
    clear_outputs();
    arm(0, 0);
    run_result ref = run_once(scene_path);
    disarm();
    long total = alloc_calls;
    if (ref.status != LSIM_OK) {
        fprintf(stderr, "%s: reference run failed: %s\n", name, ref.message);
        CHECK(!"reference run failed");
        return 0;
    }
    CHECK(count_entries(out_dir, NULL) == FILE_COUNT);
    for (int i = 0; i < FILE_COUNT; ++i) {
        free(reference[i]);
        reference[i] = read_file_bytes(out_path[i], &reference_size[i]); /* not while armed */
        CHECK(reference[i] != NULL && reference_size[i] > 0);
    }
    if (live_count || LEAK_CHECK()) {
        fprintf(stderr, "%s: the reference run leaks (%ld block(s) of the library's own)\n", name, live_count);
        CHECK(!"the reference run leaks");
    }

    long recovered = 0, failed_runs = 0;
    for (int persistent = 0; persistent < 2; ++persistent) {
        failed_runs += loop_over_k(name, scene_path, persistent, total, &recovered);
        if (LEAK_CHECK()) {
            fprintf(stderr, "%s: LeakSanitizer found a leak after the %s-mode loop (not a block the library "
                    "allocated itself: look for a missed cleanup call of a third-party library)\n", name,
                    persistent ? "persistent" : "single");
            CHECK(!"memory leaked after an allocation failure");
        }
    }
    printf("%s: %ld allocation calls per run; %ld injected runs failed cleanly, %ld recovered\n", name, total,
           failed_runs, recovered);
    clear_outputs();
    return total;
}

/* k = 1, 2, ... until a run reaches no k-th call; returns the number of runs that failed. */
static long loop_over_k(const char *name, const char *scene_path, int persistent, long total, long *recovered)
{
    long failed_runs = 0;
    for (long k = 1;; ++k) {
        clear_outputs();
        arm(k, persistent);
        run_result r = run_once(scene_path);
        disarm();
        long hit = failures;
        int before = lsim_test_failures;
        if (live_count || live_overflow)
            fprintf(stderr, "%s: %ld block(s) allocated by the library during the run were not freed\n", name,
                    live_count);
        CHECK(live_count == 0 && live_overflow == 0);
        if (hit == 0) { /* past the last allocation: the run must be the reference */
            CHECK(r.status == LSIM_OK);
            CHECK(outputs_match_reference(STEP_COUNT));
            if (k <= total)
                fprintf(stderr, "%s: only %ld of %ld calls reached with k = %ld\n", name, alloc_calls, total, k);
            CHECK(k > total);
            break;
        }
        if (r.status == LSIM_OK) {
            ++*recovered;
            CHECK(outputs_match_reference(STEP_COUNT));
        } else {
            ++failed_runs;
            CHECK(!r.had_context || r.message[0] != '\0');
            CHECK(r.status == LSIM_ERR_OUT_OF_MEMORY); /* not a parse or I/O error: say what happened */
            /* The steps before the failing one wrote their files; the failing one left nothing. */
            if (!outputs_match_reference(r.step < 0 ? 0 : r.step)) {
                CHECK(!"files left behind by the failed step");
                count_entries(out_dir, "");
            }
        }
        if (getenv("LSIM_TEST_VERBOSE"))
            printf("%s k=%ld %s: %s: %s\n", name, k, persistent ? "persistent" : "single",
                   lsim_status_string(r.status), r.message);
        if (lsim_test_failures != before)
            fprintf(stderr, "%s: failure at allocation k = %ld (%s mode): status %s, message '%s'\n", name, k,
                    persistent ? "persistent" : "single", lsim_status_string(r.status), r.message);
        if (k > 4 * total + 100) {
            CHECK(!"the run never completes without an allocation failure");
            break;
        }
    }
    return failed_runs;
}

int main(void)
{
    scratch_make("allocfail");
    path_join(out_dir, sizeof out_dir, scratch_dir, "out");
    if (mkdir(out_dir, 0777) != 0) {
        perror(out_dir);
        return 1;
    }
    for (int i = 0; i < FILE_COUNT; ++i)
        path_join(out_path[i], sizeof out_path[i], out_dir, out_names[i]);
    scratch_write_text("fan.csv", fan_csv);
    scratch_write_text("small.kernel", kernel_txt);
    scratch_write_text("cal.yaml", calibration_yaml);
    struct {
        const char *name, *file, *text;
    } scenes[] = {
        {"rotating", "rotating.yaml", scene_rotating},
        {"pattern+kernel+calibration", "pattern.yaml", scene_pattern},
        {"camera+rays", "camera.yaml", scene_camera},
    };
    for (size_t i = 0; i < sizeof scenes / sizeof scenes[0]; ++i) {
        char path[256];
        path_join(path, sizeof path, scratch_dir, scenes[i].file);
        scratch_write_text(scenes[i].file, scenes[i].text);
        run_scenario(scenes[i].name, path);
    }
    for (int i = 0; i < FILE_COUNT; ++i)
        free(reference[i]);
    remove_tree(scratch_dir);
    return lsim_test_summary("test_alloc_fail");
}
