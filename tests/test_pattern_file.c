/* Beam pattern CSV reader: good files (any column order, comments, optional columns) and every
 * kind of bad file, whose message must name file:line. */
#include "harness.h"
#include "files.h"

#include "lidarsim.h"
#include "sensor/sensor.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>


/* Read `text` as `name`; expect failure `status` whose message contains name:line and `what`. */
static void expect_error(lsim_context *ctx, const char *name, const char *text, lsim_status status, int line,
                         const char *what)
{
    const char *path = scratch_write_text(name, text);
    lsim_sensor_spec spec;
    lsim_sensor_spec_defaults(&spec);
    lsim_status st = lsim_pattern_file_read(ctx, path, &spec);
    const char *msg = lsim_context_last_error(ctx);
    char where[128];
    snprintf(where, sizeof where, "%s:%d:", name, line);
    if (st != status || !strstr(msg, where) || !strstr(msg, what))
        fprintf(stderr, "%s: status %d, message '%s' (want %s ... %s)\n", name, (int)st, msg, where, what);
    CHECK(st == status);
    CHECK(strstr(msg, where) != NULL);
    CHECK(strstr(msg, what) != NULL);
    CHECK(spec.pattern_count == 0 && spec.pattern_azimuth_deg == NULL); /* spec untouched */
    lsim_sensor_spec_free(&spec);
    remove(path);
}

static void test_good(lsim_context *ctx)
{
    const char *path = scratch_write_text("good.csv",
                                  "# beam table exported by hand\n"
                                  "\n"
                                  "ring, elevation_deg ,time_s,azimuth_deg\r\n"
                                  "0,-15,0,0\n"
                                  "# a comment between rows\n"
                                  "   \n"
                                  "1,-13.5,1e-5,0.25\r\n"
                                  "65535, 89.5 ,0.00002,-179.75\n"
                                  "2,0,0.00003,270");
    lsim_sensor_spec spec;
    lsim_sensor_spec_defaults(&spec);
    REQUIRE_OK(ctx, lsim_pattern_file_read(ctx, path, &spec));
    CHECK(spec.kind == LSIM_SENSOR_PATTERN);
    CHECK(spec.pattern_count == 4);
    if (spec.pattern_count == 4 && spec.pattern_time_s && spec.pattern_ring) {
        CHECK_NEAR(spec.pattern_azimuth_deg[1], 0.25, 0);
        CHECK_NEAR(spec.pattern_elevation_deg[1], -13.5, 0);
        CHECK_NEAR(spec.pattern_time_s[1], 1e-5, 0);
        CHECK(spec.pattern_ring[1] == 1);
        CHECK(spec.pattern_ring[2] == 65535);
        CHECK_NEAR(spec.pattern_elevation_deg[2], 89.5, 0);
        CHECK_NEAR(spec.pattern_azimuth_deg[2], -179.75, 0);
        CHECK_NEAR(spec.pattern_azimuth_deg[3], 270, 0);
    } else {
        CHECK(!"good.csv: wrong shape");
    }
    lsim_sensor *s;
    REQUIRE_OK(ctx, lsim_sensor_create_from_spec(ctx, &spec, &s));
    CHECK(lsim_sensor_beam_count(s) == 4);
    double az[4], el[4], t[4];
    uint16_t ring[4];
    REQUIRE_OK(ctx, lsim_sensor_get_beams(s, az, el, t, ring));
    CHECK_NEAR(az[3], -90, 1e-12);
    CHECK_NEAR(t[3], 3e-5, 0);
    CHECK(ring[2] == 65535);
    lsim_sensor_destroy(s);
    remove(path);

    /* only the required columns (after a UTF-8 BOM); replaces an earlier pattern in the spec */
    lsim_sensor_spec_defaults(&spec);
    path = scratch_write_text("first.csv", "elevation_deg,azimuth_deg,ring,time_s\n1,1,1,1\n");
    REQUIRE_OK(ctx, lsim_pattern_file_read(ctx, path, &spec));
    CHECK(spec.pattern_count == 1 && spec.pattern_ring != NULL && spec.pattern_time_s != NULL);
    remove(path);
    path = scratch_write_text("minimal.csv", "\xEF\xBB\xBF" "azimuth_deg,elevation_deg\n1,2\n3,4\n");
    REQUIRE_OK(ctx, lsim_pattern_file_read(ctx, path, &spec));
    CHECK(spec.pattern_count == 2);
    CHECK(spec.pattern_time_s == NULL);
    CHECK(spec.pattern_ring == NULL);
    CHECK(spec.pattern_azimuth_deg[1] == 3 && spec.pattern_elevation_deg[1] == 4);
    CHECK(lsim_sensor_spec_validate(ctx, &spec) == LSIM_OK);
    lsim_sensor_spec_free(&spec);
    remove(path);
}

static void test_bad(lsim_context *ctx)
{
    expect_error(ctx, "not_a_number.csv", "azimuth_deg,elevation_deg\n1,2\n# c\n3,abc\n", LSIM_ERR_PARSE, 4,
                 "column 2 (elevation_deg) is not a finite number");
    expect_error(ctx, "trailing.csv", "azimuth_deg,elevation_deg\n1.5x,2\n", LSIM_ERR_PARSE, 2,
                 "column 1 (azimuth_deg) is not a finite number");
    expect_error(ctx, "empty_field.csv", "azimuth_deg,elevation_deg\n1,\n", LSIM_ERR_PARSE, 2,
                 "column 2 (elevation_deg) is not a finite number");
    expect_error(ctx, "nan.csv", "azimuth_deg,elevation_deg,time_s\n1,2,nan\n", LSIM_ERR_PARSE, 2,
                 "column 3 (time_s) is not a finite number");
    expect_error(ctx, "inf.csv", "azimuth_deg,elevation_deg\ninf,2\n", LSIM_ERR_PARSE, 2, "column 1 (azimuth_deg) is not a finite number");
    expect_error(ctx, "missing_column.csv", "# header next\nazimuth_deg,time_s\n1,0\n", LSIM_ERR_PARSE, 2,
                 "'elevation_deg'");
    expect_error(ctx, "unknown_column.csv", "azimuth_deg,elevation_deg,intensity\n1,2,3\n", LSIM_ERR_PARSE, 1,
                 "column 3 of the header is not a pattern column");
    expect_error(ctx, "unknown_column2.csv", "azimuth_deg,elevation_deg,intensity\n1,2,3\n", LSIM_ERR_PARSE, 1,
                 "azimuth_deg, elevation_deg");
    expect_error(ctx, "duplicate.csv", "azimuth_deg,elevation_deg,azimuth_deg\n1,2,3\n", LSIM_ERR_PARSE, 1,
                 "column 3 (azimuth_deg) appears twice in the header (first as column 1)");
    expect_error(ctx, "no_rows.csv", "# nothing\nazimuth_deg,elevation_deg\n\n# still nothing\n", LSIM_ERR_PARSE,
                 5, "no beam rows");
    expect_error(ctx, "empty.csv", "", LSIM_ERR_PARSE, 1, "no header");
    expect_error(ctx, "ring_big.csv", "azimuth_deg,elevation_deg,ring\n1,2,3\n1,2,70000\n", LSIM_ERR_PARSE, 3,
                 "column 3 (ring): 70000 is not an integer 0..65535");
    expect_error(ctx, "ring_neg.csv", "azimuth_deg,elevation_deg,ring\n1,2,-1\n", LSIM_ERR_PARSE, 2, "column 3 (ring)");
    expect_error(ctx, "ring_frac.csv", "azimuth_deg,elevation_deg,ring\n1,2,1.5\n", LSIM_ERR_PARSE, 2, "column 3 (ring)");
    expect_error(ctx, "elevation_range.csv", "azimuth_deg,elevation_deg\n1,90.5\n", LSIM_ERR_PARSE, 2,
                 "column 2 (elevation_deg): 90.5 is out of range");
    expect_error(ctx, "negative_time.csv", "azimuth_deg,elevation_deg,time_s\n1,2,-0.1\n", LSIM_ERR_PARSE, 2,
                 "column 3 (time_s): -0.1 s is out of range, must be 0..86400 s");
    /* a time that does not fit the point's float time (it wrote time=inf): refused with its bound */
    expect_error(ctx, "huge_time.csv", "azimuth_deg,elevation_deg,time_s\n1,2,0\n1,2,1e300\n", LSIM_ERR_PARSE, 3,
                 "column 3 (time_s): 1e+300 s is out of range, must be 0..86400 s");
    expect_error(ctx, "day_time.csv", "azimuth_deg,elevation_deg,time_s\n1,2,86400.5\n", LSIM_ERR_PARSE, 2,
                 "column 3 (time_s)");
    expect_error(ctx, "few_fields.csv", "azimuth_deg,elevation_deg,time_s\n1,2,0\n1,2\n", LSIM_ERR_PARSE, 3,
                 "2 fields, the header names 3 columns");
    expect_error(ctx, "many_fields.csv", "azimuth_deg,elevation_deg\n1,2,3,4,5,6\n", LSIM_ERR_PARSE, 2, "fields");

    lsim_sensor_spec spec;
    lsim_sensor_spec_defaults(&spec);
    char missing[128];
    snprintf(missing, sizeof missing, "%s/does_not_exist.csv", scratch_dir);
    CHECK(lsim_pattern_file_read(ctx, missing, &spec) == LSIM_ERR_IO);
    CHECK(strstr(lsim_context_last_error(ctx), "does_not_exist.csv") != NULL);
    CHECK(lsim_pattern_file_read(ctx, NULL, &spec) == LSIM_ERR_INVALID_ARGUMENT);

    /* a beam time past the bound through the API too (spec validation), not only the file */
    const double az[2] = {0.0, 1.0}, el[2] = {0.0, 0.0}, t_huge[2] = {0.0, 1e300};
    lsim_sensor *s = NULL;
    CHECK(lsim_sensor_create_pattern(ctx, 2, az, el, t_huge, NULL, &s) == LSIM_ERR_INVALID_ARGUMENT && !s);
    CHECK(strstr(lsim_context_last_error(ctx), "time_s: 1e+300 is out of range, must be 0..86400 s") != NULL);
    lsim_sensor_destroy(s);
}

/* A pattern file named in a scene may be any file: a message names the line and column, never the
 * file's text (here a "secret" in the header, a row and a ring). */
static void test_no_quote(lsim_context *ctx)
{
    static const char *const files[] = {
        "azimuth_deg,elevation_deg,root:x:0:0:SECRET\n1,2,3\n",
        "azimuth_deg,SECRET\n1,2\n",
        "azimuth_deg,elevation_deg\n1,SECRET\n",
        "azimuth_deg,elevation_deg,ring\n1,2,SECRET\n",
        "azimuth_deg,elevation_deg,time_s\n1,2,SECRET\n",
        "SECRET\n1,2\n",
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; ++i) {
        const char *path = scratch_write_text("secret.csv", files[i]);
        lsim_sensor_spec spec;
        lsim_sensor_spec_defaults(&spec);
        CHECK(lsim_pattern_file_read(ctx, path, &spec) == LSIM_ERR_PARSE);
        const char *msg = lsim_context_last_error(ctx);
        if (strstr(msg, "SECRET"))
            fprintf(stderr, "file %zu: the message quotes the file: %s\n", i, msg);
        CHECK(strstr(msg, "SECRET") == NULL);
        CHECK(strstr(msg, "secret.csv:") != NULL);
        lsim_sensor_spec_free(&spec);
    }
}

int main(void)
{
    scratch_make("pattern");
    lsim_context *ctx;
    if (lsim_context_create(&ctx) != LSIM_OK)
        return 1;
    test_good(ctx);
    test_bad(ctx);
    test_no_quote(ctx);
    lsim_context_destroy(ctx);
    scratch_remove();
    return lsim_test_summary("test_pattern_file");
}
