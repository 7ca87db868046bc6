/* Streamed writing (lsim_scene_scan_write): a frame emitted and written a slice at a time gives
 * files byte-identical to lsim_scene_scan + lsim_points_write, for every format (PCD binary and
 * ASCII, PLY, CSV, KITTI with its .label and .labels.yaml), with noise on, on 1 and several
 * threads, in the sensor and the world frame, with --keep-misses and dual returns, whatever the
 * slice size (1,000 points: the frame cut into dozens of slices; 1: one frame slice per write
 * slice; the default: one slice). Failures leave no file: a missing directory, a write that
 * fails half-way (RLIMIT_FSIZE), /dev/full (stays a device); a bad KITTI name fails before the
 * frame. */
#include "files.h"
#include "harness.h"
#include "test_scenes.h"

#include "lidarsim.h"
#include "pipeline/frame.h"
#include "points/points.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

static char dir[64];

static const struct {
    lsim_format format;
    const char *ext;
} formats[] = {
    {LSIM_FORMAT_PCD, "pcd"}, {LSIM_FORMAT_PCD_ASCII, "pcd"}, {LSIM_FORMAT_PLY, "ply"},
    {LSIM_FORMAT_CSV, "csv"}, {LSIM_FORMAT_KITTI, "bin"}, {LSIM_FORMAT_LAS, "las"}, {LSIM_FORMAT_MCAP, "mcap"},
};

/* The file and, for KITTI, its .label and .labels.yaml are the same in both. */
static void check_same_outputs(const char *ref, const char *got, lsim_format format)
{
    CHECK(same_file(ref, got));
    if (format != LSIM_FORMAT_KITTI)
        return;
    const char *suffix[2] = {".label", ".labels.yaml"};
    for (int i = 0; i < 2; ++i) {
        char a[512], b[512];
        snprintf(a, sizeof a, "%.*s%s", (int)(strlen(ref) - 4), ref, suffix[i]);
        snprintf(b, sizeof b, "%.*s%s", (int)(strlen(got) - 4), got, suffix[i]);
        CHECK(same_file(a, b));
    }
}

static void remove_outputs(const char *path, lsim_format format)
{
    remove(path);
    if (format != LSIM_FORMAT_KITTI)
        return;
    char p[512];
    snprintf(p, sizeof p, "%.*s.label", (int)(strlen(path) - 4), path);
    remove(p);
    snprintf(p, sizeof p, "%.*s.labels.yaml", (int)(strlen(path) - 4), path);
    remove(p);
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static void identical_outputs(lsim_context *ctx, lsim_scene *scene, const lsim_sensor *sensor)
{
    static const struct {
        int threads;
        lsim_frame frame;
        int keep_misses;
    } configs[] = {{1, LSIM_FRAME_SENSOR, 0}, {3, LSIM_FRAME_WORLD, 1}, {2, LSIM_FRAME_SENSOR, 1}};
    static const size_t slices[] = {1000, 1, LSIM_WRITE_SLICE_POINTS};
    for (size_t c = 0; c < sizeof configs / sizeof configs[0]; ++c) {
        lsim_scan_options opt;
        lsim_scan_options_init(&opt);
        opt.seed = 11;
        opt.noise = 1;
        opt.frame = configs[c].frame;
        opt.keep_misses = configs[c].keep_misses;
        opt.threads = configs[c].threads;
        lsim_points *pts = NULL; /* the reference: every field, the whole frame at once */
        REQUIRE_OK(ctx, lsim_scene_scan(scene, sensor, &opt, &pts));
        lsim_scan_stats ref_stats;
        REQUIRE_OK(ctx, lsim_points_get_stats(pts, &ref_stats));
        CHECK(lsim_points_count(pts) > 9000); /* nine and more 1,000-point slices */
        const uint16_t *returns = lsim_points_column(pts, LSIM_FIELD_NUM_RETURNS);
        size_t dual = 0; /* beams with two echoes are in the frame */
        for (size_t i = 0; i < lsim_points_count(pts); ++i)
            dual += returns[i] == 2;
        CHECK(dual > 0);
        for (size_t f = 0; f < sizeof formats / sizeof formats[0]; ++f) {
            char ref[256], got[256];
            snprintf(ref, sizeof ref, "%s/ref%zu.%s", dir, f, formats[f].ext);
            snprintf(got, sizeof got, "%s/got%zu.%s", dir, f, formats[f].ext);
            if (formats[f].format == LSIM_FORMAT_LAS && opt.keep_misses) {
                /* Misses have NaN coordinates, which LAS cannot hold: refused, nothing left. */
                CHECK(lsim_points_write(pts, ref, formats[f].format) == LSIM_ERR_INVALID_ARGUMENT);
                CHECK(strstr(lsim_context_last_error(ctx), "keep-misses") != NULL);
                CHECK(lsim_scan_write_sliced(scene, sensor, &opt, got, formats[f].format, 1000, NULL) ==
                      LSIM_ERR_INVALID_ARGUMENT);
                CHECK(count_entries(dir, NULL) == 0);
                continue;
            }
            REQUIRE_OK(ctx, lsim_points_write(pts, ref, formats[f].format));
            for (size_t s = 0; s < sizeof slices / sizeof slices[0]; ++s) {
                lsim_scan_options o = opt;
                o.threads = s == 1 ? 4 : opt.threads; /* another thread count: the same bytes */
                lsim_scan_stats st;
                memset(&st, 0xff, sizeof st);
                REQUIRE_OK(ctx, lsim_scan_write_sliced(scene, sensor, &o, got, formats[f].format, slices[s], &st));
                check_same_outputs(ref, got, formats[f].format);
                /* Chosen columns (ignored by KITTI, whose layout is fixed): the same bytes as the
                 * whole frame written with those columns. */
                o.fields = LSIM_FIELD_BIT(LSIM_FIELD_Y) | LSIM_FIELD_BIT(LSIM_FIELD_X) | LSIM_FIELD_BIT(LSIM_FIELD_RING) |
                           LSIM_FIELD_BIT(LSIM_FIELD_TIME) | LSIM_FIELD_BIT(LSIM_FIELD_EPW);
                char sub_ref[256];
                snprintf(sub_ref, sizeof sub_ref, "%s/sub%zu.%s", dir, f, formats[f].ext);
                REQUIRE_OK(ctx, lsim_points_write_fields(pts, sub_ref, formats[f].format, o.fields));
                remove_outputs(got, formats[f].format);
                REQUIRE_OK(ctx, lsim_scan_write_sliced(scene, sensor, &o, got, formats[f].format, slices[s], &st));
                check_same_outputs(sub_ref, got, formats[f].format);
                if (formats[f].format == LSIM_FORMAT_KITTI)
                    check_same_outputs(ref, got, formats[f].format);
                else
                    CHECK(file_size(got) < file_size(ref));
                remove_outputs(sub_ref, formats[f].format);
                CHECK(st.rays == ref_stats.rays && st.hits == ref_stats.hits &&
                      st.beams_returned == ref_stats.beams_returned);
                CHECK(st.hits + (opt.keep_misses ? st.rays - st.beams_returned : 0) == lsim_points_count(pts));
                remove_outputs(got, formats[f].format);
            }
            /* The public entry point, with the format from the extension. */
            if (formats[f].format != LSIM_FORMAT_PCD_ASCII) {
                REQUIRE_OK(ctx, lsim_scene_scan_write(scene, sensor, &opt, got, LSIM_FORMAT_AUTO, NULL));
                check_same_outputs(ref, got, formats[f].format);
                remove_outputs(got, formats[f].format);
            }
            remove_outputs(ref, formats[f].format);
        }
        lsim_points_destroy(pts);
    }
    CHECK(count_entries(dir, NULL) == 0);
}

static void failures(lsim_context *ctx, lsim_scene *scene, const lsim_sensor *sensor)
{
    lsim_scan_options opt;
    lsim_scan_options_init(&opt);
    opt.threads = 2;
    char path[256];
    /* A missing directory: an I/O error naming it, nothing created. */
    snprintf(path, sizeof path, "%s/missing/out.pcd", dir);
    lsim_scan_stats st;
    memset(&st, 0, sizeof st);
    CHECK(lsim_scan_write_sliced(scene, sensor, &opt, path, LSIM_FORMAT_AUTO, 1000, &st) == LSIM_ERR_IO);
    CHECK(strstr(lsim_context_last_error(ctx), "missing") != NULL);
    CHECK(st.rays > 0); /* the frame was computed: the failure is the output's */
    CHECK(count_entries(dir, NULL) == 0);

    /* KITTI needs a .bin name: refused before the frame, nothing created. */
    snprintf(path, sizeof path, "%s/out.kitti", dir);
    memset(&st, 0, sizeof st);
    CHECK(lsim_scene_scan_write(scene, sensor, &opt, path, LSIM_FORMAT_KITTI, &st) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(st.rays == 0);
    CHECK(lsim_scene_scan_write(scene, sensor, &opt, "-", LSIM_FORMAT_KITTI, NULL) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_scene_scan_write(scene, sensor, &opt, "", LSIM_FORMAT_PCD, NULL) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(count_entries(dir, NULL) == 0);

    /* A write that fails half-way (the file-size limit: EFBIG after 64 KiB): no file, no
     * temporary, for every format. */
    struct rlimit old;
    getrlimit(RLIMIT_FSIZE, &old);
    struct rlimit small = old;
    small.rlim_cur = 64 * 1024;
    void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
    if (setrlimit(RLIMIT_FSIZE, &small) == 0) {
        for (size_t f = 0; f < sizeof formats / sizeof formats[0]; ++f) {
            snprintf(path, sizeof path, "%s/half.%s", dir, formats[f].ext);
            lsim_status s = lsim_scan_write_sliced(scene, sensor, &opt, path, formats[f].format, 1000, NULL);
            CHECK(s == LSIM_ERR_IO);
            CHECK(count_entries(dir, NULL) == 0);
        }
        setrlimit(RLIMIT_FSIZE, &old);
    } else {
        printf("SKIP: cannot lower RLIMIT_FSIZE\n");
    }
    signal(SIGXFSZ, old_handler);

    /* /dev/full is written straight through: the error is reported, the device stays a device. */
    if (access("/dev/full", W_OK) == 0) {
        CHECK(lsim_scan_write_sliced(scene, sensor, &opt, "/dev/full", LSIM_FORMAT_PLY, 1000, NULL) == LSIM_ERR_IO);
        CHECK(strstr(lsim_context_last_error(ctx), strerror(ENOSPC)) != NULL);
        struct stat sb;
        CHECK(stat("/dev/full", &sb) == 0 && S_ISCHR(sb.st_mode));
    } else {
        printf("SKIP: no writable /dev/full\n");
    }
    CHECK(count_entries(dir, NULL) == 0);
}

/* Several frames in one MCAP: the same bytes whatever the slices, the statistics of every frame;
 * several frames in a one-frame format, or none, refused before anything is written. */
static void multi_frame(lsim_context *ctx, lsim_scene *scene, const lsim_sensor *sensor)
{
    lsim_scan_options opt;
    lsim_scan_options_init(&opt);
    opt.threads = 2;
    opt.noise = 1;
    opt.scan_time = 0.5;
    char a[256], b[256];
    snprintf(a, sizeof a, "%s/frames_a.mcap", dir);
    snprintf(b, sizeof b, "%s/frames_b.mcap", dir);
    lsim_scan_stats one, three;
    REQUIRE_OK(ctx, lsim_scan_write_frames_sliced(scene, sensor, &opt, 1, a, LSIM_FORMAT_AUTO, 1000, &one));
    long one_size = file_size(a);
    REQUIRE_OK(ctx, lsim_scan_write_frames_sliced(scene, sensor, &opt, 3, a, LSIM_FORMAT_AUTO, 1000, &three));
    REQUIRE_OK(ctx, lsim_scene_scan_write_frames(scene, sensor, &opt, 3, b, LSIM_FORMAT_MCAP, NULL));
    CHECK(same_file(a, b));
    CHECK(three.rays == 3 * one.rays && three.hits > 2 * one.hits && file_size(a) > 2 * one_size);
    remove(a);
    remove(b);
    snprintf(a, sizeof a, "%s/frames.pcd", dir);
    CHECK(lsim_scene_scan_write_frames(scene, sensor, &opt, 2, a, LSIM_FORMAT_AUTO, NULL) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "MCAP") != NULL && strstr(lsim_context_last_error(ctx), a) != NULL);
    CHECK(lsim_scene_scan_write_frames(scene, sensor, &opt, 0, b, LSIM_FORMAT_AUTO, NULL) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(count_entries(dir, NULL) == 0);
}

/* LAS coordinates: int32 at 0.1 mm around the offset (the sensor position in whole metres, in the
 * world frame); beyond that a clear refusal naming the value, and no file. */
static void las_limits(lsim_context *ctx)
{
    lsim_points *p = NULL;
    REQUIRE_OK(ctx, lsim_points_alloc(ctx, 3, &p));
    p->count = 3;
    for (int f = 0; f < LSIM_FIELD_COUNT; ++f) /* the buffer's columns start uninitialised */
        memset(p->column[f], 0, 3 * lsim_field_size((lsim_field)f));
    float *x = lsim_points_f32(p, LSIM_FIELD_X);
    x[0] = 1.0f;
    x[1] = -2e5f; /* within +-214748 m */
    x[2] = 2e5f;
    char path[256];
    snprintf(path, sizeof path, "%s/limits.las", dir);
    REQUIRE_OK(ctx, lsim_points_write(p, path, LSIM_FORMAT_AUTO));
    CHECK(file_size(path) > 375);
    remove(path);
    x[2] = 3e5f;
    CHECK(lsim_points_write(p, path, LSIM_FORMAT_AUTO) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "214748") != NULL &&
          strstr(lsim_context_last_error(ctx), "limits.las") != NULL &&
          strstr(lsim_context_last_error(ctx), "300000.000") != NULL);
    CHECK(count_entries(dir, NULL) == 0);
    p->frame = LSIM_FRAME_WORLD; /* far from the origin, near the sensor: the offset takes it */
    p->viewpoint[0] = 1e6;
    x[0] = 1e6f;
    x[1] = 1e6f - 1e5f;
    x[2] = 1e6f + 1e5f;
    REQUIRE_OK(ctx, lsim_points_write(p, path, LSIM_FORMAT_AUTO));
    remove(path);
    lsim_points_destroy(p);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/lsim_stream_XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    lsim_context *ctx;
    REQUIRE_OK(ctx, lsim_context_create(&ctx));
    lsim_scene *scene;
    lsim_sensor *sensor;
    mixed_scene_make(ctx, 1200, &scene, &sensor);
    identical_outputs(ctx, scene, sensor);
    failures(ctx, scene, sensor);
    multi_frame(ctx, scene, sensor);
    las_limits(ctx);
    lsim_sensor_destroy(sensor);
    lsim_scene_destroy(scene);
    lsim_context_destroy(ctx);
    remove_tree(dir);
    return lsim_test_summary("test_stream_write");
}
