/* lsim_points_read on LAS files (formats/las_read.c), through include/lidarsim.h only:
 *  - lidarsim's own LAS 1.4 (format 6 + extra bytes) read back: x, y, z within half the 0.1 mm
 *    step, label, instance, epw, ring, range, time, return index and count bit for bit,
 *    reflectivity within 1/65535; `fields` reads only what it asks for;
 *  - a LAS 1.2 file of format 1 written here byte by byte as another writer would (scale 0.01,
 *    an offset, no extra bytes): the known coordinates, intensity, returns and GPS time;
 *  - malformed files: not LAS, a truncated header, more points than the file holds, LAZ, version
 *    2.0, a VLR running into the points, an unknown extra-bytes type: LSIM_ERR_PARSE naming the
 *    file and what is wrong, *out NULL. */
#include "harness.h"
#include "test_scenes.h"

#include "lidarsim.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define DIR "las_read.work"

static lsim_context *ctx;

static int has(const char *part)
{
    const char *m = lsim_context_last_error(ctx);
    if (strstr(m, part))
        return 1;
    fprintf(stderr, "  message was: %s\n", m);
    return 0;
}

static void put16(unsigned char *b, unsigned v) { b[0] = (unsigned char)v, b[1] = (unsigned char)(v >> 8); }
static void put32(unsigned char *b, uint32_t v)
{
    for (int i = 0; i < 4; ++i)
        b[i] = (unsigned char)(v >> (8 * i));
}
static void put64(unsigned char *b, uint64_t v)
{
    put32(b, (uint32_t)v);
    put32(b + 4, (uint32_t)(v >> 32));
}
static void putf64(unsigned char *b, double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    put64(b, u);
}

static void write_bytes(const char *path, const unsigned char *b, size_t n)
{
    FILE *fp = fopen(path, "wb");
    if (fp) {
        fwrite(b, 1, n, fp);
        fclose(fp);
    }
}

/* The columns of `f` in a and b: equal bit for bit (tol < 0) or within tol. */
static int columns_match(const lsim_points *a, const lsim_points *b, lsim_field f, double tol)
{
    const size_t n = lsim_points_count(a);
    const void *ca = lsim_points_column(a, f), *cb = lsim_points_column(b, f);
    if (!ca || !cb || lsim_points_count(b) != n) {
        fprintf(stderr, "  %s: missing or counts differ\n", lsim_field_name(f));
        return 0;
    }
    const lsim_field_type t = lsim_field_get_type(f);
    if (tol < 0.0)
        return memcmp(ca, cb, n * (t == LSIM_TYPE_U16 ? 2 : 4)) == 0;
    for (size_t i = 0; i < n; ++i) {
        const double va = ((const float *)ca)[i], vb = ((const float *)cb)[i];
        if (!(fabs(va - vb) <= tol)) {
            fprintf(stderr, "  %s[%zu]: %.9g vs %.9g\n", lsim_field_name(f), i, va, vb);
            return 0;
        }
    }
    return 1;
}

static void test_own_files(void)
{
    lsim_scene *scene = test_scene_room_and_car(ctx, 0.0);
    REQUIRE_OK(ctx, lsim_scene_commit(scene));
    lsim_sensor *sensor = NULL;
    REQUIRE_OK(ctx, lsim_sensor_create_preset(ctx, "vlp16", &sensor));
    const double pos[3] = {0.4, -0.3, 1.0}, rpy[3] = {0, 0, 20};
    REQUIRE_OK(ctx, lsim_sensor_set_pose(sensor, pos, rpy));
    REQUIRE_OK(ctx, lsim_sensor_set_receiver(sensor, 6.0, LSIM_RETURNS_ALL, 3));
    REQUIRE_OK(ctx, lsim_sensor_set_beam(sensor, 3.0, LSIM_BEAM_RAYS, 2)); /* edges give two echoes */
    lsim_scan_options o;
    lsim_scan_options_init(&o);
    o.seed = 5;
    o.frame = LSIM_FRAME_WORLD; /* a non-zero offset in the file */
    lsim_points *pts = NULL, *back = NULL;
    REQUIRE_OK(ctx, lsim_scene_scan(scene, sensor, &o, &pts));
    CHECK(lsim_points_count(pts) > 10000);
    REQUIRE_OK(ctx, lsim_points_write(pts, DIR "/own.las", LSIM_FORMAT_LAS));
    REQUIRE_OK(ctx, lsim_points_read(ctx, DIR "/own.las", 0, &back));
    const lsim_field exact[] = {LSIM_FIELD_LABEL, LSIM_FIELD_INSTANCE, LSIM_FIELD_EPW,         LSIM_FIELD_RING,
                                LSIM_FIELD_RANGE, LSIM_FIELD_TIME,     LSIM_FIELD_RETURN_INDEX, LSIM_FIELD_NUM_RETURNS};
    for (size_t k = 0; k < sizeof exact / sizeof exact[0]; ++k)
        CHECK(columns_match(pts, back, exact[k], -1.0));
    for (int a = 0; a < 3; ++a)
        CHECK(columns_match(pts, back, (lsim_field)(LSIM_FIELD_X + a), 0.5e-4 + 1e-6));
    /* reflectivity: the LAS intensity, round(65535 r) of r clamped to [0, 1] */
    const float *r = lsim_points_column(pts, LSIM_FIELD_REFLECTIVITY);
    const float *rb = lsim_points_column(back, LSIM_FIELD_REFLECTIVITY);
    int near = r && rb;
    for (size_t i = 0; near && i < lsim_points_count(pts); ++i)
        near = fabs(rb[i] - fmin(fmax(r[i], 0.0), 1.0)) <= 0.5 / 65535 + 1e-7;
    CHECK(near);
    CHECK(lsim_points_column(back, LSIM_FIELD_INTENSITY) == NULL); /* not in the file */
    /* several returns per beam came through: some beams give a second echo off the car's edge */
    const uint16_t *nr = lsim_points_column(back, LSIM_FIELD_NUM_RETURNS);
    size_t multi = 0;
    for (size_t i = 0; nr && i < lsim_points_count(back); ++i)
        multi += nr[i] > 1;
    CHECK(multi > 0);
    lsim_points_destroy(back);
    /* only the fields asked for */
    REQUIRE_OK(ctx, lsim_points_read(ctx, DIR "/own.las", LSIM_FIELD_BIT(LSIM_FIELD_LABEL), &back));
    CHECK(lsim_points_fields(back) == (LSIM_FIELD_BIT(LSIM_FIELD_X) | LSIM_FIELD_BIT(LSIM_FIELD_Y) |
                                       LSIM_FIELD_BIT(LSIM_FIELD_Z) | LSIM_FIELD_BIT(LSIM_FIELD_LABEL)));
    CHECK(columns_match(pts, back, LSIM_FIELD_LABEL, -1.0));
    lsim_points_destroy(back);
    lsim_points_destroy(pts);
    lsim_sensor_destroy(sensor);
    lsim_scene_destroy(scene);
}

/* A LAS 1.2 file of point format 1 (28-byte records) as another writer makes it: 2 points. */
static size_t las12(unsigned char *b)
{
    memset(b, 0, 227 + 2 * 28);
    memcpy(b, "LASF", 4);
    b[24] = 1, b[25] = 2;
    memcpy(b + 26, "another writer", 14);
    put16(b + 94, 227);
    put32(b + 96, 227);
    put32(b + 100, 0);
    b[104] = 1;
    put16(b + 105, 28);
    put32(b + 107, 2);
    for (int a = 0; a < 3; ++a) {
        putf64(b + 131 + 8 * a, 0.01);
        putf64(b + 155 + 8 * a, 1000.0 * (a + 1));
    }
    const int32_t X[2][3] = {{123, -456, 789}, {-1, 2, -3}};
    for (int p = 0; p < 2; ++p) {
        unsigned char *r = b + 227 + 28 * p;
        for (int a = 0; a < 3; ++a)
            put32(r + 4 * a, (uint32_t)X[p][a]);
        put16(r + 12, p ? 0 : 65535);
        r[14] = p ? (unsigned char)(1 | 1 << 3) : (unsigned char)(2 | 3 << 3); /* return 2 of 3; 1 of 1 */
        r[15] = 2;                                                             /* ground */
        putf64(r + 20, p ? 100.25 : 12.5);
    }
    return 227 + 2 * 28;
}

static void test_other_writer(void)
{
    unsigned char b[512];
    size_t n = las12(b);
    write_bytes(DIR "/v12.las", b, n);
    lsim_points *p = NULL;
    REQUIRE_OK(ctx, lsim_points_read(ctx, DIR "/v12.las", 0, &p));
    CHECK(p && lsim_points_count(p) == 2);
    if (!p || lsim_points_count(p) != 2)
        return;
    const float *x = lsim_points_column(p, LSIM_FIELD_X), *y = lsim_points_column(p, LSIM_FIELD_Y),
                *z = lsim_points_column(p, LSIM_FIELD_Z), *refl = lsim_points_column(p, LSIM_FIELD_REFLECTIVITY),
                *t = lsim_points_column(p, LSIM_FIELD_TIME);
    const uint16_t *ri = lsim_points_column(p, LSIM_FIELD_RETURN_INDEX);
    const uint16_t *nr = lsim_points_column(p, LSIM_FIELD_NUM_RETURNS);
    /* X * 0.01 + offset, to the float32 step there (2.4e-4 near 3000) */
    CHECK_NEAR(x[0], 1001.23, 3e-4);
    CHECK_NEAR(y[0], 1995.44, 3e-4);
    CHECK_NEAR(z[0], 3007.89, 3e-4);
    CHECK_NEAR(x[1], 999.99, 3e-4);
    CHECK_NEAR(z[1], 2999.97, 3e-4);
    CHECK(refl[0] == 1.0f && refl[1] == 0.0f);
    CHECK(ri[0] == 1 && nr[0] == 3 && ri[1] == 0 && nr[1] == 1);
    CHECK(t[0] == 12.5f && t[1] == 100.25f);
    CHECK(lsim_points_column(p, LSIM_FIELD_LABEL) == NULL && lsim_points_column(p, LSIM_FIELD_RING) == NULL);
    lsim_points_destroy(p);

    /* format 0 has no GPS time: no time column */
    b[104] = 0;
    put16(b + 105, 28); /* 8 bytes beyond format 0's 20: undescribed extra bytes, skipped */
    write_bytes(DIR "/v12_f0.las", b, n);
    REQUIRE_OK(ctx, lsim_points_read(ctx, DIR "/v12_f0.las", 0, &p));
    CHECK(p && lsim_points_count(p) == 2 && lsim_points_column(p, LSIM_FIELD_TIME) == NULL);
    lsim_points_destroy(p);
}

static void expect_parse(const char *name, const unsigned char *b, size_t n, const char *why)
{
    char path[256];
    snprintf(path, sizeof path, DIR "/%s.las", name);
    write_bytes(path, b, n);
    lsim_points *p = (lsim_points *)&p;
    CHECK(lsim_points_read(ctx, path, 0, &p) == LSIM_ERR_PARSE && p == NULL && has(path) && has(why));
}

static void test_malformed(void)
{
    unsigned char b[1024];
    size_t n = las12(b);
    expect_parse("csv", (const unsigned char *)"x,y,z\n1,2,3\n", 12, "does not start with a LAS header");
    expect_parse("short", b, 100, "does not start with a LAS header");
    put32(b + 107, 3); /* 3 points counted, 2 there */
    expect_parse("count", b, n, "counts 3 points of 28 bytes");
    n = las12(b);
    b[104] = 0x80 | 1; /* LAZ */
    expect_parse("laz", b, n, "compressed (LAZ)");
    n = las12(b);
    b[24] = 2;
    expect_parse("version", b, n, "LAS version 2.2");
    n = las12(b);
    put16(b + 105, 12); /* records shorter than the format's */
    expect_parse("record", b, n, "point record length is shorter");
    n = las12(b);
    putf64(b + 139, 0.0);
    expect_parse("scale", b, n, "the header's y scale factor (0) or y offset (2000) is not a finite number");
    /* a huge offset or scale made every coordinate inf in its float (exit 0): the field is named */
    n = las12(b);
    putf64(b + 155, 1e300);
    expect_parse("huge_offset", b, n, "the header's x scale factor (0.01) and x offset (1e+300) give coordinates up "
                 "to 1e+300 m, beyond the 1e+12 m");
    n = las12(b);
    putf64(b + 147, 1e30);
    expect_parse("huge_scale", b, n, "z scale factor (1e+30) and z offset (3000)");
    n = las12(b);
    putf64(b + 163, -1e12); /* the reach is |offset| + 2^31 |scale|: just past the bound */
    expect_parse("far_offset", b, n, "y offset (-1e+12)");
    /* a GPS time that no float holds (the time column): refused naming the point */
    n = las12(b);
    putf64(b + 227 + 28 + 20, 1e300);
    expect_parse("huge_time", b, n, "point 2: its GPS time 1e+300 s is not finite or beyond +-1e+10 s");
    n = las12(b);
    putf64(b + 227 + 20, NAN);
    expect_parse("nan_time", b, n, "point 1: its GPS time nan s");
    n = las12(b);
    put32(b + 96, 5000);
    expect_parse("offset", b, n, "offset to the point data");

    /* a VLR: one claiming more bytes than lie before the points; an Extra Bytes VLR of type 20 */
    unsigned char v[1024];
    memset(v, 0, sizeof v);
    n = las12(b);
    memcpy(v, b, 227);
    put32(v + 96, 227 + 54 + 192);
    put32(v + 100, 1);
    put16(v + 105, 28 + 4);
    memcpy(v + 227 + 2, "LASF_Spec", 9);
    put16(v + 227 + 18, 4);
    put16(v + 227 + 20, 192);
    unsigned char *e = v + 227 + 54;
    e[2] = 5; /* ulong */
    memcpy(e + 4, "label", 5);
    const size_t head = 227 + 54 + 192;
    for (int p = 0; p < 2; ++p) {
        memcpy(v + head + 32 * p, b + 227 + 28 * p, 28);
        put32(v + head + 32 * p + 28, 40u + (unsigned)p);
    }
    write_bytes(DIR "/labelled.las", v, head + 64);
    lsim_points *p = NULL;
    REQUIRE_OK(ctx, lsim_points_read(ctx, DIR "/labelled.las", 0, &p));
    const uint32_t *label = p ? lsim_points_column(p, LSIM_FIELD_LABEL) : NULL;
    CHECK(label && label[0] == 40 && label[1] == 41);
    lsim_points_destroy(p);
    /* an Extra Bytes scale that takes a value past a float: refused naming the field and point */
    e[3] = 8;
    putf64(e + 112, 1e300);
    expect_parse("extra_scale", v, head + 64, "point 1: its Extra Bytes `label` is 4e+301");
    e[3] = 0;
    e[2] = 20;
    expect_parse("extra_type", v, head + 64, "data type 20");
    e[2] = 5;
    put16(v + 227 + 20, 400);
    expect_parse("vlr", v, head + 64, "variable length record runs into the point data");
    put16(v + 227 + 20, 100);
    put32(v + 96, 227 + 54 + 100);
    expect_parse("vlr_size", v, head + 64, "not a whole number of 192-byte descriptors");
}

int main(void)
{
    mkdir(DIR, 0777);
    REQUIRE_OK(ctx, lsim_context_create(&ctx));
    test_own_files();
    test_other_writer();
    test_malformed();
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_las_read");
}
