/* Section A of the public header, through include/lidarsim.h only: point files read back exactly
 * (lsim_points_read: PCD, PCD ascii, PLY, CSV, KITTI .bin + .label; LAS in test_las_read), pictures of points
 * (lsim_points_render), the checks `lidarsim scan` makes before a scan (lsim_format_resolve,
 * lsim_points_check_output, lsim_path_check_writable), lsim_points_file_remove and the frames writer
 * with a progress report (lsim_scene_scan_write_progress). Errors name the file or value at fault
 * and leave no file behind. */
#include "files.h"
#include "harness.h"
#include "test_scenes.h"

#include "lidarsim.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DIR "point_files.work"

static lsim_context *ctx;

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static int has(const char *text, const char *part) { return strstr(text, part) != NULL; }

static const char *err(void) { return lsim_context_last_error(ctx); }

/* Whole file into buf (at most size bytes); its length, or -1. */
static long slurp(const char *path, unsigned char *buf, size_t size)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return -1;
    size_t n = fread(buf, 1, size, fp);
    fclose(fp);
    return (long)n;
}

/* A PNG's width and height from its IHDR; 0 when not a PNG. */
static int png_size(const char *path, unsigned *w, unsigned *h)
{
    unsigned char b[24];
    if (slurp(path, b, sizeof b) != 24 || memcmp(b, "\x89PNG\r\n\x1a\n", 8) != 0)
        return 0;
    *w = (unsigned)b[16] << 24 | (unsigned)b[17] << 16 | (unsigned)b[18] << 8 | b[19];
    *h = (unsigned)b[20] << 24 | (unsigned)b[21] << 16 | (unsigned)b[22] << 8 | b[23];
    return 1;
}

/* Columns of `mask` equal, bit for bit, in a and b (KITTI's reflectivity is clamped into [0, 1]). */
static int same_columns(const lsim_points *a, const lsim_points *b, uint32_t mask)
{
    size_t n = lsim_points_count(a);
    if (n != lsim_points_count(b))
        return 0;
    for (int f = 0; f < LSIM_FIELD_COUNT; ++f) {
        if (!(mask & LSIM_FIELD_BIT(f)))
            continue;
        const void *ca = lsim_points_column(a, (lsim_field)f), *cb = lsim_points_column(b, (lsim_field)f);
        size_t elem = lsim_field_get_type((lsim_field)f) == LSIM_TYPE_U16 ? 2 : 4;
        if (!ca || !cb || memcmp(ca, cb, n * elem) != 0) {
            fprintf(stderr, "column %s differs\n", lsim_field_name((lsim_field)f));
            return 0;
        }
    }
    return 1;
}

static void test_round_trips(const lsim_points *pts)
{
    static const struct { const char *path; lsim_format format; } files[] = {
        {DIR "/p.pcd", LSIM_FORMAT_PCD}, {DIR "/p_ascii.pcd", LSIM_FORMAT_PCD_ASCII},
        {DIR "/p.ply", LSIM_FORMAT_PLY}, {DIR "/p.csv", LSIM_FORMAT_CSV}};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; ++i) {
        REQUIRE_OK(ctx, lsim_points_write(pts, files[i].path, files[i].format));
        lsim_points *back = NULL;
        REQUIRE_OK(ctx, lsim_points_read(ctx, files[i].path, 0, &back));
        CHECK(lsim_points_fields(back) == LSIM_FIELDS_ALL);
        CHECK(same_columns(pts, back, LSIM_FIELDS_ALL));
        lsim_points_destroy(back);
    }
    /* a subset: x, y, z always; a field the file lacks is absent, not an error */
    const uint32_t ring = LSIM_FIELD_BIT(LSIM_FIELD_RING), epw = LSIM_FIELD_BIT(LSIM_FIELD_EPW);
    const uint32_t xyz = LSIM_FIELD_BIT(LSIM_FIELD_X) | LSIM_FIELD_BIT(LSIM_FIELD_Y) | LSIM_FIELD_BIT(LSIM_FIELD_Z);
    REQUIRE_OK(ctx, lsim_points_write_fields(pts, DIR "/slim.csv", LSIM_FORMAT_CSV, xyz | ring));
    lsim_points *back = NULL;
    REQUIRE_OK(ctx, lsim_points_read(ctx, DIR "/slim.csv", ring | epw, &back));
    CHECK(lsim_points_fields(back) == (xyz | ring));
    CHECK(lsim_points_column(back, LSIM_FIELD_EPW) == NULL);
    CHECK(same_columns(pts, back, xyz | ring));
    /* what was read is written again byte for byte */
    REQUIRE_OK(ctx, lsim_points_write_fields(back, DIR "/slim2.csv", LSIM_FORMAT_CSV, xyz | ring));
    static unsigned char a[1 << 22], b[1 << 22];
    long na = slurp(DIR "/slim.csv", a, sizeof a), nb = slurp(DIR "/slim2.csv", b, sizeof b);
    CHECK(na > 1000 && na == nb && memcmp(a, b, (size_t)na) == 0);
    lsim_points_destroy(back);

    /* KITTI: x, y, z, reflectivity from the .bin; label and instance from the .label */
    REQUIRE_OK(ctx, lsim_points_write(pts, DIR "/k.bin", LSIM_FORMAT_KITTI));
    REQUIRE_OK(ctx, lsim_points_read(ctx, DIR "/k.bin", 0, &back));
    CHECK(lsim_points_fields(back) == lsim_format_fields(LSIM_FORMAT_KITTI));
    CHECK(same_columns(pts, back, xyz | LSIM_FIELD_BIT(LSIM_FIELD_LABEL) | LSIM_FIELD_BIT(LSIM_FIELD_INSTANCE)));
    const float *r = lsim_points_column(pts, LSIM_FIELD_REFLECTIVITY), *rb = lsim_points_column(back, LSIM_FIELD_REFLECTIVITY);
    int same = rb != NULL;
    for (size_t i = 0; same && i < lsim_points_count(pts); ++i)
        same = rb[i] == (r[i] < 0.0f ? 0.0f : r[i] > 1.0f ? 1.0f : r[i]);
    CHECK(same);
    lsim_points_destroy(back);
}

static void test_read_errors(void)
{
    lsim_points *p = (lsim_points *)&p; /* set to NULL on failure */
    CHECK(lsim_points_read(ctx, DIR "/absent.pcd", 0, &p) == LSIM_ERR_IO && p == NULL);
    CHECK(has(err(), "absent.pcd"));
    FILE *fp = fopen(DIR "/noz.csv", "w");
    fputs("x,y,intensity\n1,2,3\n", fp);
    fclose(fp);
    CHECK(lsim_points_read(ctx, DIR "/noz.csv", 0, &p) == LSIM_ERR_PARSE);
    CHECK(has(err(), "noz.csv:1:") && has(err(), "no `z` column"));
    fp = fopen(DIR "/word.csv", "w");
    fputs("x,y,z\n1,2,3\n1,two,3\n", fp);
    fclose(fp);
    CHECK(lsim_points_read(ctx, DIR "/word.csv", 0, &p) == LSIM_ERR_PARSE && has(err(), "word.csv:3"));
    CHECK(lsim_points_read(ctx, DIR "/x.mcap", 0, &p) == LSIM_ERR_INVALID_ARGUMENT && has(err(), "MCAP files are not read"));
    CHECK(lsim_points_read(ctx, NULL, 0, &p) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_points_read(ctx, DIR, 0, &p) == LSIM_ERR_IO && has(err(), "is a directory"));
    /* a truncated KITTI .bin; a .label of another scan */
    fp = fopen(DIR "/t.bin", "wb");
    fwrite("0123456789abcdefXYZ", 1, 19, fp);
    fclose(fp);
    CHECK(lsim_points_read(ctx, DIR "/t.bin", 0, &p) == LSIM_ERR_PARSE && has(err(), "t.bin: 19 bytes"));
    fp = fopen(DIR "/t.bin", "wb");
    fwrite("0123456789abcdef", 1, 16, fp);
    fclose(fp);
    fp = fopen(DIR "/t.label", "wb");
    fwrite("12345678", 1, 8, fp);
    fclose(fp);
    CHECK(lsim_points_read(ctx, DIR "/t.bin", 0, &p) == LSIM_ERR_PARSE && has(err(), "t.label: 8 bytes"));
    CHECK(lsim_points_read(ctx, DIR "/t.bin", LSIM_FIELD_BIT(LSIM_FIELD_X), &p) == LSIM_OK); /* no label asked */
    CHECK(p && lsim_points_count(p) == 1);
    lsim_points_destroy(p);
    /* a PCD header whose WIDTH x HEIGHT (no POINTS) is past 2^64: refused, not wrapped to 0 points */
    fp = fopen(DIR "/huge.pcd", "w");
    fputs("VERSION .7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nCOUNT 1 1 1\nWIDTH 1099511627776\n"
          "HEIGHT 16777216\nDATA binary\n", fp);
    fclose(fp);
    p = (lsim_points *)&p;
    CHECK(lsim_points_read(ctx, DIR "/huge.pcd", 0, &p) == LSIM_ERR_PARSE && p == NULL &&
          has(err(), "huge.pcd:8") && has(err(), "more than 2^40"));
}

/* A wanted column named twice was read from the first without a word: refused naming both
 * columns and the line; and no message repeats the file's text (a header or value "SECRET"). */
static void test_columns_named_twice(void)
{
    lsim_points *p = (lsim_points *)&p;
    write_text(DIR "/dup.csv", "# two x columns\nx,y,z,x\n1,2,3,4\n");
    CHECK(lsim_points_read(ctx, DIR "/dup.csv", 0, &p) == LSIM_ERR_PARSE && p == NULL);
    CHECK(has(err(), "dup.csv:2: columns 1 and 4 are both named `x`"));
    write_text(DIR "/dup_i.csv", "x,y,z,intensity,intensity\n1,2,3,4,5\n");
    CHECK(lsim_points_read(ctx, DIR "/dup_i.csv", 0, &p) == LSIM_ERR_PARSE && has(err(), "columns 4 and 5"));
    /* a column not asked for may repeat (it is not read) */
    CHECK(lsim_points_read(ctx, DIR "/dup_i.csv", LSIM_FIELD_BIT(LSIM_FIELD_X), &p) == LSIM_OK && p);
    lsim_points_destroy(p);
    write_text(DIR "/dup.pcd", "VERSION .7\nFIELDS x y z z\nSIZE 4 4 4 4\nTYPE F F F F\nCOUNT 1 1 1 1\n"
               "WIDTH 1\nHEIGHT 1\nPOINTS 1\nDATA ascii\n1 2 3 4\n");
    CHECK(lsim_points_read(ctx, DIR "/dup.pcd", 0, &p) == LSIM_ERR_PARSE && has(err(), "dup.pcd:9: columns 3 and 4 "
                                                                                  "are both named `z`"));
    write_text(DIR "/dup.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty float y\nproperty float x\n"
               "property float z\nproperty float y\nend_header\n1 2 3 4\n");
    CHECK(lsim_points_read(ctx, DIR "/dup.ply", 0, &p) == LSIM_ERR_PARSE && has(err(), "dup.ply:8: columns 1 and 4"));

    static const char *const secret[] = {
        "x,y,root:x:0:0:SECRET\n1,2,3\n",                  /* a header without z */
        "x,y,z\n1,2,SECRET\n",                              /* a value */
        "VERSION .7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F SECRET\nCOUNT 1 1 1\nDATA ascii\n",
        "VERSION .7\nFIELDS x y z\nSIZE 4 4 SECRET\nTYPE F F F\nCOUNT 1 1 1\nDATA ascii\n",
        "VERSION .7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nCOUNT 1 1 1\nDATA SECRET\n",
        "VERSION .7\nSECRET x\n",
        "ply\nformat SECRET 1.0\n",
        "ply\nformat ascii 1.0\nelement SECRET 1\n",
        "ply\nformat ascii 1.0\nelement vertex SECRET\n",
        "ply\nformat ascii 1.0\nelement vertex 1\nproperty SECRET x\n",
        "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nelement SECRET 2\n",
        "ply\nformat ascii 1.0\nSECRET\n",
    };
    for (size_t i = 0; i < sizeof secret / sizeof secret[0]; ++i) {
        const char *path = i < 2 ? DIR "/secret.csv" : i < 6 ? DIR "/secret.pcd" : DIR "/secret.ply";
        write_text(path, secret[i]);
        p = (lsim_points *)&p;
        CHECK(lsim_points_read(ctx, path, 0, &p) == LSIM_ERR_PARSE && p == NULL);
        if (has(err(), "SECRET"))
            fprintf(stderr, "file %zu: the message quotes the file: %s\n", i, err());
        CHECK(!has(err(), "SECRET") && has(err(), path));
    }
}

/* A FIFO or a device as a point file, or as the .label beside a KITTI .bin, is refused at once
 * (it hung, or /dev/zero was read until memory ran out, then "the file is empty"); alarm() turns a
 * hang into a failure. */
static void test_not_regular(void)
{
    unlink(DIR "/pipe.csv");
    CHECK(mkfifo(DIR "/pipe.csv", 0600) == 0);
    static const char *const name[] = {"zero.csv", "zero.pcd", "zero.ply", "zero.bin", "zero.las"};
    for (size_t i = 0; i < sizeof name / sizeof name[0]; ++i) {
        char path[256];
        snprintf(path, sizeof path, DIR "/%s", name[i]);
        unlink(path);
        CHECK(symlink("/dev/zero", path) == 0);
    }
    static const char *const path[] = {DIR "/pipe.csv", DIR "/zero.csv", DIR "/zero.pcd", DIR "/zero.ply",
                                       DIR "/zero.bin", DIR "/zero.las"};
    for (size_t i = 0; i < sizeof path / sizeof path[0]; ++i) {
        lsim_points *p = (lsim_points *)&p;
        alarm((unsigned)lsim_test_time_limit(20));
        const lsim_status st = lsim_points_read(ctx, path[i], 0, &p);
        alarm(0);
        CHECK(st == LSIM_ERR_IO && p == NULL);
        CHECK(has(err(), path[i]) && has(err(), "not a regular file (a FIFO, socket or device)"));
    }
    /* the .label beside a .bin: a FIFO, then /dev/zero */
    FILE *fp = fopen(DIR "/k.bin", "wb");
    fwrite("0123456789abcdef", 1, 16, fp);
    fclose(fp);
    unlink(DIR "/k.label");
    CHECK(mkfifo(DIR "/k.label", 0600) == 0);
    for (int round = 0; round < 2; ++round) {
        lsim_points *p = (lsim_points *)&p;
        alarm((unsigned)lsim_test_time_limit(20));
        const lsim_status st = lsim_points_read(ctx, DIR "/k.bin", 0, &p);
        alarm(0);
        CHECK(st == LSIM_ERR_IO && p == NULL && has(err(), DIR "/k.label: cannot open the KITTI .label file: it is "
                                                         "not a regular file"));
        unlink(DIR "/k.label");
        CHECK(symlink("/dev/zero", DIR "/k.label") == 0);
    }
    unlink(DIR "/k.label");
    /* a file above its kind's bound is refused before anything is read (sparse: no disk used) */
    static const struct { const char *path; long long size; const char *why; } big[] = {
        {DIR "/big.bin", (4ll << 30) + 16, "big.bin: 4294967312 bytes, more than the limit of 4 GiB for a point file"},
        {DIR "/big.csv", (4ll << 30) + 1, "big.csv: 4294967297 bytes, more than the limit of 4 GiB for a point file"},
    };
    for (size_t i = 0; i < sizeof big / sizeof big[0]; ++i) {
        unlink(big[i].path);
        FILE *f = fopen(big[i].path, "w");
        CHECK(f && ftruncate(fileno(f), (off_t)big[i].size) == 0);
        fclose(f);
        lsim_points *p = (lsim_points *)&p;
        CHECK(lsim_points_read(ctx, big[i].path, 0, &p) == LSIM_ERR_PARSE && p == NULL && has(err(), big[i].why));
        unlink(big[i].path);
    }
    fp = fopen(DIR "/k.bin", "wb"); /* a .label above its own bound beside a small .bin */
    fclose(fp);
    fp = fopen(DIR "/k.label", "w");
    CHECK(fp && ftruncate(fileno(fp), (1ll << 30) + 4) == 0);
    fclose(fp);
    lsim_points *p = (lsim_points *)&p;
    CHECK(lsim_points_read(ctx, DIR "/k.bin", 0, &p) == LSIM_ERR_PARSE && p == NULL &&
          has(err(), "k.label: 1073741828 bytes, more than the limit of 1 GiB for a KITTI .label file"));
    unlink(DIR "/k.label");
}

static void test_render(const lsim_points *pts)
{
    lsim_render_options o;
    lsim_render_options_init(&o);
    CHECK(o.view == LSIM_RENDER_BEV && o.color == LSIM_FIELD_INTENSITY && o.width == 1024 && o.height == 768);
    CHECK(o.extent_m == 0.0 && o.title == NULL);
    lsim_render_layout L;
    REQUIRE_OK(ctx, lsim_points_render(pts, DIR "/bev.png", NULL, &L));
    unsigned w = 0, h = 0;
    CHECK(png_size(DIR "/bev.png", &w, &h) && w == 1024 && h == 768);
    CHECK(L.drawn == lsim_points_count(pts)); /* the room is well inside +-50 m */
    CHECK(L.plot_x0 < L.plot_x1 && L.plot_x1 <= L.key_x0 && L.key_x1 <= 1024 && L.title_y0 < L.title_y1);
    CHECK(L.value_lo > 0.0 && L.value_lo < L.value_hi);
    o.view = LSIM_RENDER_RANGE;
    o.color = LSIM_FIELD_LABEL;
    o.width = 640;
    o.height = 480;
    o.title = "labels";
    REQUIRE_OK(ctx, lsim_points_render(pts, DIR "/label.png", &o, &L));
    CHECK(png_size(DIR "/label.png", &w, &h) && w == 640 && h == 480);
    CHECK(L.classes == 2);
    o.color = LSIM_FIELD_RANGE;
    o.view = LSIM_RENDER_PERSPECTIVE;
    o.extent_m = 1.0; /* nothing that near */
    REQUIRE_OK(ctx, lsim_points_render(pts, DIR "/near.png", &o, &L));
    CHECK(L.drawn == 0);
    /* refusals: nothing written */
    lsim_render_options_init(&o);
    o.width = 100;
    CHECK(lsim_points_render(pts, DIR "/bad.png", &o, NULL) == LSIM_ERR_INVALID_ARGUMENT && has(err(), "100 x 768"));
    lsim_render_options_init(&o);
    o.view = (lsim_render_view)7;
    CHECK(lsim_points_render(pts, DIR "/bad.png", &o, NULL) == LSIM_ERR_INVALID_ARGUMENT && has(err(), "view 7"));
    lsim_render_options_init(&o);
    o.extent_m = -2.0;
    CHECK(lsim_points_render(pts, DIR "/bad.png", &o, NULL) == LSIM_ERR_INVALID_ARGUMENT && has(err(), "-2"));
    lsim_points *slim = NULL;
    REQUIRE_OK(ctx, lsim_points_read(ctx, DIR "/slim.csv", 0, &slim));
    lsim_render_options_init(&o);
    o.color = LSIM_FIELD_EPW;
    CHECK(lsim_points_render(slim, DIR "/bad.png", &o, NULL) == LSIM_ERR_NOT_FOUND && has(err(), "'epw'"));
    lsim_points_destroy(slim);
    CHECK(lsim_points_render(pts, DIR "/nodir/x.png", NULL, NULL) == LSIM_ERR_IO && has(err(), "nodir"));
    CHECK(!exists(DIR "/bad.png"));
}

static void test_formats_and_checks(void)
{
    CHECK(strcmp(lsim_format_name(LSIM_FORMAT_PCD_ASCII), "pcd-ascii") == 0);
    CHECK(strcmp(lsim_format_name(LSIM_FORMAT_AUTO), "auto") == 0);
    CHECK(strcmp(lsim_format_name((lsim_format)99), "unknown") == 0);
    lsim_format f = LSIM_FORMAT_AUTO;
    CHECK(lsim_format_resolve(ctx, "a/b.MCAP", LSIM_FORMAT_AUTO, &f) == LSIM_OK && f == LSIM_FORMAT_MCAP);
    CHECK(lsim_format_resolve(ctx, "-", LSIM_FORMAT_CSV, &f) == LSIM_OK && f == LSIM_FORMAT_CSV);
    CHECK(lsim_format_resolve(ctx, "c.xyz", LSIM_FORMAT_AUTO, &f) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(has(err(), "c.xyz") && has(err(), "'.xyz'"));
    CHECK(lsim_format_resolve(ctx, "c.pcd", (lsim_format)42, &f) == LSIM_ERR_INVALID_ARGUMENT && has(err(), "42"));
    CHECK(lsim_format_resolve(ctx, NULL, LSIM_FORMAT_AUTO, &f) == LSIM_ERR_INVALID_ARGUMENT);

    CHECK(lsim_points_check_output(ctx, "x.bin", LSIM_FORMAT_AUTO, &f) == LSIM_OK && f == LSIM_FORMAT_KITTI);
    CHECK(lsim_points_check_output(ctx, "x.las", LSIM_FORMAT_AUTO, NULL) == LSIM_OK);
    CHECK(lsim_points_check_output(ctx, "-", LSIM_FORMAT_KITTI, &f) == LSIM_ERR_INVALID_ARGUMENT &&
          has(err(), "three files"));
    CHECK(lsim_points_check_output(ctx, "-", LSIM_FORMAT_LAS, &f) == LSIM_ERR_INVALID_ARGUMENT &&
          has(err(), "LAS output cannot go to standard output"));
    CHECK(lsim_points_check_output(ctx, "/dev/null", LSIM_FORMAT_LAS, &f) == LSIM_ERR_INVALID_ARGUMENT &&
          has(err(), "device or FIFO"));
    CHECK(lsim_points_check_output(ctx, "x.pcd", LSIM_FORMAT_KITTI, &f) == LSIM_ERR_INVALID_ARGUMENT &&
          has(err(), "'x.pcd' must end in .bin"));
    CHECK(lsim_points_check_output(ctx, "-", LSIM_FORMAT_AUTO, &f) == LSIM_ERR_INVALID_ARGUMENT &&
          has(err(), "needs the format"));

    CHECK(lsim_path_check_writable(ctx, DIR "/new.pcd") == LSIM_OK && !exists(DIR "/new.pcd"));
    CHECK(lsim_path_check_writable(ctx, "-") == LSIM_OK && lsim_path_check_writable(ctx, "/dev/null") == LSIM_OK);
    CHECK(lsim_path_check_writable(ctx, DIR) == LSIM_ERR_IO && has(err(), "'" DIR "' is a directory"));
    CHECK(lsim_path_check_writable(ctx, DIR "/nodir/a.pcd") == LSIM_ERR_IO && has(err(), "does not exist"));
    CHECK(lsim_path_check_writable(ctx, "") == LSIM_ERR_INVALID_ARGUMENT && has(err(), "empty"));
}

static void test_remove(const lsim_points *pts)
{
    REQUIRE_OK(ctx, lsim_points_write(pts, DIR "/r.bin", LSIM_FORMAT_KITTI));
    CHECK(exists(DIR "/r.bin") && exists(DIR "/r.label") && exists(DIR "/r.labels.yaml"));
    REQUIRE_OK(ctx, lsim_points_file_remove(ctx, DIR "/r.bin", LSIM_FORMAT_AUTO)); /* KITTI from .bin */
    CHECK(!exists(DIR "/r.bin") && !exists(DIR "/r.label") && !exists(DIR "/r.labels.yaml"));
    CHECK(lsim_points_file_remove(ctx, DIR "/r.bin", LSIM_FORMAT_KITTI) == LSIM_OK); /* gone: no error */
    REQUIRE_OK(ctx, lsim_points_write(pts, DIR "/r.pcd", LSIM_FORMAT_PCD));
    REQUIRE_OK(ctx, lsim_points_write_birdseye(pts, DIR "/r.png", 256, 20.0));
    REQUIRE_OK(ctx, lsim_points_file_remove(ctx, DIR "/r.png", LSIM_FORMAT_AUTO));
    CHECK(!exists(DIR "/r.png") && exists(DIR "/r.pcd"));
    CHECK(lsim_points_file_remove(ctx, DIR, LSIM_FORMAT_AUTO) == LSIM_OK && exists(DIR)); /* directories stay */
    CHECK(lsim_points_file_remove(ctx, NULL, LSIM_FORMAT_AUTO) == LSIM_ERR_INVALID_ARGUMENT);
}

static void test_progress_writer(lsim_scene *scene, const lsim_sensor *sensor)
{
    lsim_scan_options o;
    lsim_scan_options_init(&o);
    o.seed = 5;
    lsim_scan_stats a, b;
    REQUIRE_OK(ctx, lsim_scene_scan_write_frames(scene, sensor, &o, 3, DIR "/a.mcap", LSIM_FORMAT_AUTO, &a));
    REQUIRE_OK(ctx, lsim_scene_scan_write_progress(scene, sensor, &o, 3, DIR "/b.mcap", LSIM_FORMAT_AUTO,
                                                   LSIM_PROGRESS_LINES, &b));
    static unsigned char x[1 << 22], y[1 << 22];
    long nx = slurp(DIR "/a.mcap", x, sizeof x), ny = slurp(DIR "/b.mcap", y, sizeof y);
    CHECK(nx > 1000 && nx == ny && memcmp(x, y, (size_t)nx) == 0);
    CHECK(a.rays == b.rays && a.hits == b.hits && a.rays == 3 * lsim_sensor_beam_count(sensor));
    CHECK(lsim_scene_scan_write_progress(scene, sensor, &o, 1, DIR "/c.pcd", LSIM_FORMAT_AUTO, (lsim_progress_mode)9,
                                         NULL) == LSIM_ERR_INVALID_ARGUMENT && has(err(), "progress 9"));
    CHECK(lsim_scene_scan_write_progress(scene, sensor, &o, 2, DIR "/c.pcd", LSIM_FORMAT_AUTO, LSIM_PROGRESS_OFF,
                                         NULL) == LSIM_ERR_INVALID_ARGUMENT && has(err(), "holds one frame"));
    CHECK(!exists(DIR "/c.pcd"));
}

int main(void)
{
    mkdir(DIR, 0777);
    REQUIRE_OK(ctx, lsim_context_create(&ctx));
    lsim_scene *scene = test_scene_room_and_car(ctx, 1.0);
    lsim_sensor *sensor = NULL;
    REQUIRE_OK(ctx, lsim_sensor_create_preset(ctx, "vlp16", &sensor));
    const double pos[3] = {0, 0, 1.0}, rpy[3] = {0, 0, 0};
    REQUIRE_OK(ctx, lsim_sensor_set_pose(sensor, pos, rpy));
    lsim_scan_options o;
    lsim_scan_options_init(&o);
    o.seed = 11;
    lsim_points *pts = NULL;
    REQUIRE_OK(ctx, lsim_scene_scan(scene, sensor, &o, &pts));
    CHECK(lsim_points_count(pts) > 10000);

    test_round_trips(pts);
    test_read_errors();
    test_columns_named_twice();
    test_not_regular();
    test_render(pts);
    test_formats_and_checks();
    test_remove(pts);
    test_progress_writer(scene, sensor);

    lsim_points_destroy(pts);
    lsim_sensor_destroy(sensor);
    lsim_scene_destroy(scene);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_point_files");
}
