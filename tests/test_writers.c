/* Point-cloud writers: every format round-trips bit-exactly (checked independently by
 * tests/check_formats.py with numpy), failures leave no files, the bird's-eye PNG is valid. */
#include "files.h"
#include "harness.h"

#include "lidarsim.h"
#include "points/points.h"

#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define N_POINTS 1000

/* ---------------------------------------------------------------- deterministic content
 * The same formulas are in tests/check_formats.py (expected_columns); keep them in step.
 * Only +, -, *, / in double, then one rounding to float, so Python reproduces every bit. */

static float gen_f32(lsim_field f, size_t i)
{
    const double d = (double)i;
    switch (f) {
    case LSIM_FIELD_X: return i % 97 == 0 ? NAN : (float)((d - 500.0) * 0.37);
    case LSIM_FIELD_Y: return (float)(d * 1e-7 - 3e-5);
    case LSIM_FIELD_Z: return i % 97 == 0 ? NAN : (float)(d * 1e30 / 7.0);
    case LSIM_FIELD_RANGE: return i == 3 ? INFINITY : (float)(d / 3.0);
    case LSIM_FIELD_INTENSITY: return (float)((double)(i % 50) * 0.5 + d * 1e-7);
    case LSIM_FIELD_REFLECTIVITY: return i % 89 == 1 ? NAN : (float)((d - 100.0) / 700.0);
    case LSIM_FIELD_AZIMUTH: return i == 4 ? -INFINITY : (float)(d * 0.36 - 180.0);
    case LSIM_FIELD_ELEVATION: return (float)(-d * 1e-3); /* row 0: -0.0 */
    case LSIM_FIELD_TIME: return (float)(d * 1e-4);
    case LSIM_FIELD_INCIDENCE: return (float)(d * 0.09);
    case LSIM_FIELD_NX: return (float)((d - 500.0) / 500.0);
    case LSIM_FIELD_NY: return (float)(1.0 / (d + 1.0));
    case LSIM_FIELD_NZ: return (float)(-1.0 / (d + 3.0));
    case LSIM_FIELD_X_CLEAN: return (float)(d * 1e-40); /* subnormal floats */
    case LSIM_FIELD_Y_CLEAN: return (float)(d * -12345.678);
    case LSIM_FIELD_Z_CLEAN: return (float)(d * 3.0e35); /* up to ~3e38, near FLT_MAX */
    case LSIM_FIELD_EPW: return (float)(d * 0.001 + 0.25);
    case LSIM_FIELD_POWER: return (float)(d * 1e-9 / 3.0);
    default: return 0.0f;
    }
}

static const uint32_t label_ids[4] = {0, 10, 40, 252};

static uint32_t gen_uint(lsim_field f, size_t i)
{
    const uint64_t u = (uint64_t)i;
    switch (f) {
    case LSIM_FIELD_RING: return (i == 0 || i == 999) ? 65535u : (uint32_t)((u * 2654435761u) % 65536u);
    case LSIM_FIELD_LABEL: return (i % 5 == 0 || i == 998) ? 65535u : label_ids[i % 4];
    case LSIM_FIELD_INSTANCE: return i == 998 ? 65535u : (uint32_t)((u * 7919u) % 65536u);
    case LSIM_FIELD_RETURN_INDEX: return (uint32_t)(i % 3);
    case LSIM_FIELD_NUM_RETURNS: return i == 997 ? 65535u : (uint32_t)(i % 3 + 1);
    default: return 0;
    }
}

static lsim_points *make_points(lsim_context *ctx, size_t n)
{
    lsim_points *p;
    REQUIRE_OK(ctx, lsim_points_alloc(ctx, n, &p));
    p->count = n;
    for (int f = 0; f < LSIM_FIELD_COUNT; ++f) {
        for (size_t i = 0; i < n; ++i) {
            switch (lsim_field_get_type((lsim_field)f)) {
            case LSIM_TYPE_F32: lsim_points_f32(p, (lsim_field)f)[i] = gen_f32((lsim_field)f, i); break;
            case LSIM_TYPE_U16: lsim_points_u16(p, (lsim_field)f)[i] = (uint16_t)gen_uint((lsim_field)f, i); break;
            case LSIM_TYPE_U32: lsim_points_u32(p, (lsim_field)f)[i] = gen_uint((lsim_field)f, i); break;
            }
        }
    }
    lsim_label_entry map[7];
    memset(map, 0, sizeof map);
    const uint32_t ids[7] = {0, 10, 40, 70, 252, 300, 301};
    const char *names[7] = {"unlabeled", "car", "road", "vegetation", "moving-car", "odd: \"name\"", "yes"};
    for (int k = 0; k < 7; ++k) {
        map[k].id = ids[k];
        strcpy(map[k].name, names[k]);
    }
    REQUIRE_OK(ctx, lsim_points_set_labels(p, map, 7));
    return p;
}

/* ---------------------------------------------------------------- file system helpers */

static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}
/* Run /usr/bin/python3 check_formats.py with the given arguments; returns its exit status. */
static int run_checker(const char *const *args, int nargs)
{
    char script[4096];
    const char *src = getenv("LSIM_SOURCE_DIR");
    if (src && *src) {
        snprintf(script, sizeof script, "%s/tests/check_formats.py", src);
    } else {
        snprintf(script, sizeof script, "%s", __FILE__);
        char *slash = strrchr(script, '/');
        if (slash)
            slash[1] = '\0';
        else
            script[0] = '\0';
        strncat(script, "check_formats.py", sizeof script - strlen(script) - 1);
    }
    if (access(script, R_OK) != 0) {
        fprintf(stderr, "cannot find %s (set LSIM_SOURCE_DIR to the source tree)\n", script);
        return -1;
    }
    char *argv[16];
    int k = 0;
    argv[k++] = "/usr/bin/python3";
    argv[k++] = script;
    for (int i = 0; i < nargs && k < 15; ++i)
        argv[k++] = (char *)args[i];
    argv[k] = NULL;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        execv(argv[0], argv);
        _exit(127);
    }
    int status;
    if (waitpid(pid, &status, 0) != pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* ---------------------------------------------------------------- tests */

static void write_all_formats(lsim_points *p, const char *dir)
{
    lsim_context *ctx = p->ctx;
    char path[4096];
    path_join(path, sizeof path, dir, "cloud.pcd");
    REQUIRE_OK(ctx, lsim_points_write(p, path, LSIM_FORMAT_AUTO));
    path_join(path, sizeof path, dir, "cloud_ascii.pcd");
    REQUIRE_OK(ctx, lsim_points_write(p, path, LSIM_FORMAT_PCD_ASCII));
    path_join(path, sizeof path, dir, "cloud.ply");
    REQUIRE_OK(ctx, lsim_points_write(p, path, LSIM_FORMAT_AUTO));
    path_join(path, sizeof path, dir, "cloud.bin");
    REQUIRE_OK(ctx, lsim_points_write(p, path, LSIM_FORMAT_AUTO));
    path_join(path, sizeof path, dir, "cloud.csv");
    REQUIRE_OK(ctx, lsim_points_write(p, path, LSIM_FORMAT_CSV));
}

static void test_format_parse(void)
{
    static const struct { const char *name; lsim_format format; } ok[] = {
        {"pcd", LSIM_FORMAT_PCD}, {"pcd-ascii", LSIM_FORMAT_PCD_ASCII}, {"ply", LSIM_FORMAT_PLY},
        {"kitti", LSIM_FORMAT_KITTI}, {"csv", LSIM_FORMAT_CSV}, {"PLY", LSIM_FORMAT_PLY},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; ++i) {
        lsim_format f = LSIM_FORMAT_AUTO;
        CHECK(lsim_format_parse(ok[i].name, &f) == LSIM_OK);
        CHECK(f == ok[i].format);
    }
    lsim_format f;
    CHECK(lsim_format_parse("xyz", &f) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_format_parse("", &f) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_format_parse(NULL, &f) == LSIM_ERR_INVALID_ARGUMENT);
}

/* Every failure: right status, a message, and nothing left in `dir`. */
static void test_failures(lsim_points *p, const char *dir)
{
    lsim_context *ctx = p->ctx;
    char path[4096], other[4096];

    /* (a) directory does not exist */
    path_join(path, sizeof path, dir, "missing/cloud.pcd");
    CHECK(lsim_points_write(p, path, LSIM_FORMAT_AUTO) == LSIM_ERR_IO);
    CHECK(strstr(lsim_context_last_error(ctx), "missing/cloud.pcd") != NULL);
    path_join(path, sizeof path, dir, "missing/cloud.bin");
    CHECK(lsim_points_write(p, path, LSIM_FORMAT_AUTO) == LSIM_ERR_IO);
    path_join(path, sizeof path, dir, "missing");
    CHECK(!exists(path));

    /* (b) unknown or missing extension */
    path_join(path, sizeof path, dir, "cloud.xyz");
    CHECK(lsim_points_write(p, path, LSIM_FORMAT_AUTO) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), ".xyz") != NULL);
    CHECK(strstr(lsim_context_last_error(ctx), "--format") != NULL);
    CHECK(!exists(path));
    path_join(path, sizeof path, dir, "cloud");
    CHECK(lsim_points_write(p, path, LSIM_FORMAT_AUTO) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(!exists(path));
    CHECK(lsim_points_write(p, path, (lsim_format)99) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_points_write(p, "", LSIM_FORMAT_PCD) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_points_write(NULL, path, LSIM_FORMAT_PCD) == LSIM_ERR_INVALID_ARGUMENT);

    /* KITTI needs a .bin path */
    path_join(path, sizeof path, dir, "cloud.pcd");
    CHECK(lsim_points_write(p, path, LSIM_FORMAT_KITTI) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), ".bin") != NULL);
    CHECK(!exists(path));

    /* KITTI rename of the 2nd file fails (a directory is in the way): none of the 3 appear. */
    path_join(other, sizeof other, dir, "roll.label");
    CHECK(mkdir(other, 0755) == 0);
    path_join(path, sizeof path, dir, "roll.bin");
    CHECK(lsim_points_write(p, path, LSIM_FORMAT_AUTO) == LSIM_ERR_IO);
    CHECK(strstr(lsim_context_last_error(ctx), "roll.label") != NULL);
    CHECK(!exists(path));
    path_join(path, sizeof path, dir, "roll.labels.yaml");
    CHECK(!exists(path));
    CHECK(rmdir(other) == 0);

    /* The output path is a directory */
    path_join(path, sizeof path, dir, "adir.ply");
    CHECK(mkdir(path, 0755) == 0);
    CHECK(lsim_points_write(p, path, LSIM_FORMAT_AUTO) == LSIM_ERR_IO);
    CHECK(rmdir(path) == 0);

    /* A write fails part-way (file size limit, like a full disk): error, no file, no temporary. */
    struct rlimit saved;
    CHECK(getrlimit(RLIMIT_FSIZE, &saved) == 0);
    struct rlimit small = saved;
    small.rlim_cur = 1000;
    fflush(stdout); /* the limit applies to a redirected stdout/stderr too */
    fflush(stderr);
    void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
    if (setrlimit(RLIMIT_FSIZE, &small) == 0) {
        path_join(path, sizeof path, dir, "full.pcd");
        CHECK(lsim_points_write(p, path, LSIM_FORMAT_AUTO) == LSIM_ERR_IO);
        CHECK(strstr(lsim_context_last_error(ctx), "full.pcd") != NULL);
        path_join(path, sizeof path, dir, "full.bin");
        CHECK(lsim_points_write(p, path, LSIM_FORMAT_AUTO) == LSIM_ERR_IO);
        path_join(path, sizeof path, dir, "full.png");
        CHECK(lsim_points_write_birdseye(p, path, 256, 200.0) == LSIM_ERR_IO);
        CHECK(setrlimit(RLIMIT_FSIZE, &saved) == 0);
    }
    signal(SIGXFSZ, old_handler);

    CHECK(count_entries(dir, NULL) == 0);
}

static void test_birdseye(lsim_points *p, lsim_points *empty, const char *dir)
{
    lsim_context *ctx = p->ctx;
    char path[4096];
    path_join(path, sizeof path, dir, "bev.png");
    REQUIRE_OK(ctx, lsim_points_write_birdseye(p, path, 256, 200.0));
    FILE *fp = fopen(path, "rb");
    CHECK(fp != NULL);
    if (fp) {
        unsigned char head[24] = {0};
        CHECK(fread(head, 1, sizeof head, fp) == sizeof head);
        CHECK(memcmp(head, "\x89PNG\r\n\x1a\n", 8) == 0);
        CHECK(memcmp(head + 12, "IHDR", 4) == 0);
        /* a figure: the 256 x 256 cells as its plot, with axes, a colour bar and a title around */
        CHECK(png_u32be(head + 16) > 256 + 100 && png_u32be(head + 20) > 256 + 50);
        fclose(fp);
    }
    path_join(path, sizeof path, dir, "bev_empty.png");
    REQUIRE_OK(ctx, lsim_points_write_birdseye(empty, path, 16, 1.0));
    CHECK(exists(path));

    /* Orientation: a dim point 10 m ahead (up) and a bright one 20 m to the left (left);
     * tests/check_formats.py --orient-png decodes the figure and checks both cells. */
    lsim_points *two;
    REQUIRE_OK(ctx, lsim_points_alloc(ctx, 2, &two));
    two->count = 2;
    for (int f = 0; f < LSIM_FIELD_COUNT; ++f)
        memset(two->column[f], 0, 2 * lsim_field_size((lsim_field)f));
    float *x = lsim_points_f32(two, LSIM_FIELD_X), *y = lsim_points_f32(two, LSIM_FIELD_Y);
    float *in = lsim_points_f32(two, LSIM_FIELD_INTENSITY);
    x[0] = 10.0f, y[0] = 0.0f, in[0] = 1.0f;
    x[1] = 0.0f, y[1] = 20.0f, in[1] = 100.0f;
    path_join(path, sizeof path, dir, "orient.png");
    REQUIRE_OK(ctx, lsim_points_write_birdseye(two, path, 64, 32.0));
    lsim_points_destroy(two);

    /* Invalid arguments: rejected, with a message, no file. */
    path_join(path, sizeof path, dir, "bad.png");
    const int bad_pixels[] = {15, 8193, 0, -64};
    for (size_t i = 0; i < sizeof bad_pixels / sizeof bad_pixels[0]; ++i) {
        CHECK(lsim_points_write_birdseye(p, path, bad_pixels[i], 50.0) == LSIM_ERR_INVALID_ARGUMENT);
        CHECK(strstr(lsim_context_last_error(ctx), "8192") != NULL);
    }
    const double bad_extent[] = {0.0, -1.0, NAN, INFINITY};
    for (size_t i = 0; i < sizeof bad_extent / sizeof bad_extent[0]; ++i)
        CHECK(lsim_points_write_birdseye(p, path, 64, bad_extent[i]) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(!exists(path));
    path_join(path, sizeof path, dir, "missing/bev.png");
    CHECK(lsim_points_write_birdseye(p, path, 64, 10.0) == LSIM_ERR_IO);
}

static void test_empty_label_map(lsim_points *empty, const char *dir)
{
    char path[4096];
    REQUIRE_OK(empty->ctx, lsim_points_set_labels(empty, NULL, 0));
    path_join(path, sizeof path, dir, "nolabels.bin");
    REQUIRE_OK(empty->ctx, lsim_points_write(empty, path, LSIM_FORMAT_KITTI));
    path_join(path, sizeof path, dir, "nolabels.labels.yaml");
    FILE *fp = fopen(path, "r");
    CHECK(fp != NULL);
    if (fp) {
        char text[512] = {0};
        size_t n = fread(text, 1, sizeof text - 1, fp);
        text[n] = '\0';
        CHECK(strstr(text, "\nlabels: {}\n") != NULL);
        fclose(fp);
    }
}

int main(void)
{
    lsim_context *ctx;
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    char dir[] = "test_writers.XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char empty_dir[256], fail_dir[256];
    path_join(empty_dir, sizeof empty_dir, dir, "empty");
    path_join(fail_dir, sizeof fail_dir, dir, "fail");
    CHECK(mkdir(empty_dir, 0755) == 0);
    CHECK(mkdir(fail_dir, 0755) == 0);

    lsim_points *points = make_points(ctx, N_POINTS);
    lsim_points *empty = make_points(ctx, 0);

    test_format_parse();

    /* Write the empty cloud first at the full cloud's paths: the second write replaces it. */
    write_all_formats(empty, dir);
    write_all_formats(points, dir);
    write_all_formats(empty, empty_dir);
    test_birdseye(points, empty, dir);

    /* (c) no temporaries left behind */
    CHECK(count_entries(dir, ".tmp.") == 0);
    CHECK(count_entries(empty_dir, ".tmp.") == 0);

    char orient[512];
    path_join(orient, sizeof orient, dir, "orient.png");
    const char *full_args[] = {dir, "1000", "--orient-png", orient};
    CHECK(run_checker(full_args, 4) == 0);
    const char *empty_args[] = {empty_dir, "0"};
    CHECK(run_checker(empty_args, 2) == 0);

    test_failures(points, fail_dir);
    test_empty_label_map(empty, empty_dir);
    CHECK(count_entries(empty_dir, ".tmp.") == 0);

    lsim_points_destroy(points);
    lsim_points_destroy(empty);
    lsim_context_destroy(ctx);
    int rc = lsim_test_summary("test_writers");
    if (rc == 0)
        remove_tree(dir);
    else
        fprintf(stderr, "outputs kept in %s\n", dir);
    return rc;
}
