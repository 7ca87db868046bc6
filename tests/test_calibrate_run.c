/* The public calibrate / validate runs (include/lidarsim.h): lsim_calibrate_run and
 * lsim_validate_run on a synthetic RPLIDAR-like scan of a board 0.6 m away, turned 2 deg
 * (normal at 182 deg, i.e. -178), through the public header only:
 *   - defaults of the options; lsim_calibration_name_valid, lsim_calibration_brdf_parse;
 *   - calibrate from data.config and in the one-material form: the calibration file, the JSON
 *     report (fitted distance within 2 mm of 0.6 m, normal within 0.3 deg of -178, bin width),
 *     the text report's lines, the view PNG (900 px);
 *   - errors name the file / option / material and leave nothing: a missing config, both forms,
 *     a bad bin width, a folder as the output, no board in the scan (the view folder made for
 *     the run is removed again);
 *   - validate: every output in the folder, no staging folder, the verdict line in the report,
 *     the counts; an output folder that is a file is refused before any work;
 *   - lsim_context_remove_partial_outputs with nothing being written. */
#define _GNU_SOURCE /* M_PI */
#include "harness.h"
#include "files.h"

#include "lidarsim.h"

#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static uint64_t rng_state = 7;

static double uniform(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

static double gauss(void)
{
    double u = uniform(), v = uniform();
    return sqrt(-2.0 * log(u > 1e-300 ? u : 1e-300)) * cos(6.283185307179586 * v);
}

static double wrap(double a)
{
    a = fmod(a, 2 * M_PI);
    return a <= -M_PI ? a + 2 * M_PI : a > M_PI ? a - 2 * M_PI : a;
}

/* `revolutions` x 720 beam lines; the board (when `board`) at distance d, normal phi. */
static void write_scan(const char *name, int revolutions, int board)
{
    const double d = 0.6, phi = 182.0 * M_PI / 180.0, width = 1.0;
    const double centre = d * tan(wrap(M_PI - phi));
    size_t cap = (size_t)revolutions * 720 * 64 + 64, n = 0;
    char *text = malloc(cap);
    for (int r = 0; r < revolutions; ++r) {
        for (int i = 0; i < 720; ++i) {
            double a = -3.1241393089294434 + i * 0.008714509196579456, psi = wrap(a - phi);
            int on = board && fabs(psi) < 85.0 * M_PI / 180.0 && fabs(d * tan(psi) - centre) <= width / 2;
            if (on) {
                double deg = fabs(psi) * 180.0 / M_PI, q = fmax(0.0, (deg - 30.0) / 30.0);
                if (uniform() < 0.02 + 0.5 * q * q)
                    n += (size_t)snprintf(text + n, cap - n, "inf,0.0,%.17g\n", a);
                else
                    n += (size_t)snprintf(text + n, cap - n, "%.17g,47.0,%.17g\n",
                                          d / cos(psi) + gauss() * (0.002 + 0.004 * (deg / 60) * (deg / 60)), a);
            } else {
                n += (size_t)snprintf(text + n, cap - n, "%.17g,47.0,%.17g\n", 0.5 + 4.5 * uniform(), a);
            }
        }
    }
    scratch_write(name, text, n);
    free(text);
}

static int exists(const char *path)
{
    struct stat info;
    return lstat(path, &info) == 0;
}

/* The number after "key": in a JSON text (NAN when absent). */
static double json_number(const char *text, const char *key)
{
    char needle[128];
    snprintf(needle, sizeof needle, "\"%s\": ", key);
    const char *p = text ? strstr(text, needle) : NULL;
    return p ? strtod(p + strlen(needle), NULL) : NAN;
}

static char *slurp(const char *path)
{
    size_t n = 0;
    unsigned char *b = read_file_bytes(path, &n);
    if (!b)
        return NULL;
    char *s = realloc(b, n + 1);
    s[n] = 0;
    return s;
}

static void test_defaults(void)
{
    lsim_calibrate_options c;
    memset(&c, 0x5a, sizeof c);
    lsim_calibrate_options_init(&c);
    CHECK(isnan(c.bin_width_deg) && isnan(c.direction_deg) && isnan(c.window_deg) && isnan(c.roughness) &&
          isnan(c.ior));
    CHECK(c.brdf == LSIM_MATERIAL_OREN_NAYAR && c.report == LSIM_REPORT_TEXT && c.progress == LSIM_PROGRESS_OFF);
    CHECK(c.seed == 0 && !c.scan_path && !c.name && !c.sensor && !c.view_dir && !c.report_path && c.width_m == 0.0);
    lsim_validate_options v;
    memset(&v, 0x5a, sizeof v);
    lsim_validate_options_init(&v);
    CHECK(isnan(v.bin_width_deg) && v.seed == 1 && v.threads == 0 && v.holdout == 0);
    CHECK(v.report == LSIM_REPORT_TEXT && !v.report_path && v.progress == LSIM_PROGRESS_OFF);

    CHECK(lsim_calibration_name_valid("rplidar-a1") == 1 && lsim_calibration_name_valid("a.b_c-9") == 1);
    CHECK(lsim_calibration_name_valid("b#1") == 0 && lsim_calibration_name_valid("") == 0 &&
          lsim_calibration_name_valid(NULL) == 0 && lsim_calibration_name_valid("a b") == 0);
    char name[70];
    memset(name, 'x', sizeof name);
    name[63] = 0;
    CHECK(lsim_calibration_name_valid(name) == 1);
    name[63] = 'x';
    name[64] = 0;
    CHECK(lsim_calibration_name_valid(name) == 0);

    lsim_material_type type = LSIM_MATERIAL_LAMBERTIAN;
    CHECK(lsim_calibration_brdf_parse("CT", &type) == 1 && type == LSIM_MATERIAL_COOK_TORRANCE);
    CHECK(lsim_calibration_brdf_parse("oren-nayar", &type) == 1 && type == LSIM_MATERIAL_OREN_NAYAR);
    CHECK(lsim_calibration_brdf_parse("Lambertian", &type) == 1 && type == LSIM_MATERIAL_LAMBERTIAN);
    CHECK(lsim_calibration_brdf_parse("phong", &type) == 0 && type == LSIM_MATERIAL_LAMBERTIAN);
    CHECK(lsim_calibration_brdf_parse(NULL, &type) == 0 && lsim_calibration_brdf_parse("L", NULL) == 0);
}

static void test_calibrate(lsim_context *ctx)
{
    char config[256], cal[256], report[256], views[256], png[256], p[256];
    write_scan("board.txt", 10, 1);
    path_join(config, sizeof config, scratch_dir, "data.config");
    scratch_write_text("data.config", "board,board.txt,0.6,1.0,ON,0.5,0.0\n");
    path_join(cal, sizeof cal, scratch_dir, "cal.yaml");
    path_join(report, sizeof report, scratch_dir, "report.json");

    /* From the config: calibration file and JSON report. */
    lsim_calibrate_options o;
    lsim_calibrate_options_init(&o);
    o.report = LSIM_REPORT_JSON;
    o.report_path = report;
    REQUIRE_OK(ctx, lsim_calibrate_run(ctx, config, cal, &o));
    char *cal_text = slurp(cal), *json = slurp(report);
    CHECK(cal_text && strstr(cal_text, "lidarsim_calibration:") && strstr(cal_text, "name: board"));
    CHECK(json && strstr(json, "\"sensor\": \"rplidar-a1\"") && strstr(json, "\"name\": \"board\""));
    CHECK_NEAR(json_number(json, "fitted_distance_m"), 0.6, 0.002);
    CHECK_NEAR(json_number(json, "configured_distance_m"), 0.6, 1e-12);
    CHECK_NEAR(json_number(json, "normal_angle_deg"), -178.0, 0.3);
    CHECK_NEAR(json_number(json, "bin_width_deg"), 2.0, 0.0);
    CHECK(json_number(json, "revolutions") == 10 && json_number(json, "beams_per_revolution") == 720);
    free(cal_text);
    free(json);

    /* The one-material form, bin width 3, cook-torrance, with a view and the text report. */
    path_join(views, sizeof views, scratch_dir, "views");
    path_join(png, sizeof png, views, "b1_view.png");
    lsim_calibrate_options_init(&o);
    char scan[256];
    path_join(scan, sizeof scan, scratch_dir, "board.txt");
    o.scan_path = scan;
    o.name = "b1";
    o.width_m = 1.0;
    o.distance_m = 0.61;
    o.brdf = LSIM_MATERIAL_COOK_TORRANCE;
    o.bin_width_deg = 3.0;
    o.sensor = "my-sensor";
    o.view_dir = views;
    path_join(report, sizeof report, scratch_dir, "report.txt");
    o.report_path = report;
    REQUIRE_OK(ctx, lsim_calibrate_run(ctx, NULL, cal, &o));
    char *text = slurp(report);
    CHECK(text && strncmp(text, "b1: board at ", 13) == 0);
    CHECK_NEAR(text ? strtod(text + 13, NULL) : NAN, 0.6, 0.002);
    CHECK(text && strstr(text, "configured 0.610 m") && strstr(text, "bins of 3 deg") &&
          strstr(text, "brdf cook-torrance") &&
          strstr(text, "lidarsim: 1 material calibrated (sensor my-sensor), wrote "));
    free(text);
    cal_text = slurp(cal);
    CHECK(cal_text && strstr(cal_text, "name: b1") && strstr(cal_text, "my-sensor"));
    free(cal_text);
    CHECK(png_has_size(png, 900, 900) && count_entries(views, NULL) == 1);

    /* Errors: the message names what is at fault; nothing is written. */
    remove(cal);
    lsim_calibrate_options_init(&o);
    path_join(p, sizeof p, scratch_dir, "nothere.config");
    CHECK(lsim_calibrate_run(ctx, p, cal, &o) == LSIM_ERR_IO && message_has(ctx, "nothere.config", "cannot open"));
    o.scan_path = "board.txt";
    CHECK(lsim_calibrate_run(ctx, config, cal, &o) == LSIM_ERR_INVALID_ARGUMENT &&
          message_has(ctx, "data.config", "not both"));
    lsim_calibrate_options_init(&o);
    o.bin_width_deg = 0.01;
    CHECK(lsim_calibrate_run(ctx, config, cal, &o) == LSIM_ERR_INVALID_ARGUMENT &&
          message_has(ctx, "bin_width_deg 0.01", "0.05..45"));
    lsim_calibrate_options_init(&o);
    o.name = "b#1";
    o.scan_path = scan;
    o.width_m = 1;
    CHECK(lsim_calibrate_run(ctx, NULL, cal, &o) == LSIM_ERR_INVALID_ARGUMENT && message_has(ctx, "'b#1'", NULL));
    lsim_calibrate_options_init(&o);
    CHECK(lsim_calibrate_run(ctx, config, scratch_dir, &o) == LSIM_ERR_IO &&
          message_has(ctx, "cannot write the calibration", "is a directory"));
    CHECK(lsim_calibrate_run(NULL, config, cal, &o) == LSIM_ERR_INVALID_ARGUMENT);

    write_scan("empty.txt", 2, 0);
    scratch_write_text("empty.config", "wall,empty.txt,0.6,1.0,ON,0.5,0.0\n");
    path_join(p, sizeof p, scratch_dir, "empty.config");
    path_join(views, sizeof views, scratch_dir, "newviews");
    o.view_dir = views;
    o.report = LSIM_REPORT_NONE;
    CHECK(lsim_calibrate_run(ctx, p, cal, &o) == LSIM_ERR_NOT_FOUND &&
          message_has(ctx, "material wall (", "empty.config:1): ") && message_has(ctx, "board not found", NULL));
    CHECK(!exists(cal) && !exists(views) && count_entries(scratch_dir, ".part.") == 0);
}

/* The calibration written together with the views: the mode a file there has is kept (a new one
 * gets 0666 less the umask, not mkstemp's 0600); a link is written through, not replaced; standard
 * output and FIFOs are refused (they cannot be renamed into place). Outputs that are inputs are
 * refused before any work. */
static void test_calibrate_outputs(lsim_context *ctx)
{
    char config[256], cal[256], views[256], link_path[256], fifo[256];
    path_join(config, sizeof config, scratch_dir, "data.config");
    path_join(cal, sizeof cal, scratch_dir, "modes.yaml");
    path_join(views, sizeof views, scratch_dir, "modeviews");
    lsim_calibrate_options o;
    lsim_calibrate_options_init(&o);
    o.report = LSIM_REPORT_NONE;
    o.view_dir = views;
    const mode_t mask = umask(022);
    remove(cal);
    REQUIRE_OK(ctx, lsim_calibrate_run(ctx, config, cal, &o));
    struct stat info;
    CHECK(stat(cal, &info) == 0 && (info.st_mode & 0777) == 0644);
    CHECK(chmod(cal, 0640) == 0);
    REQUIRE_OK(ctx, lsim_calibrate_run(ctx, config, cal, &o));
    CHECK(stat(cal, &info) == 0 && (info.st_mode & 0777) == 0640);
    umask(mask);

    path_join(link_path, sizeof link_path, scratch_dir, "link.yaml");
    remove(link_path);
    CHECK(symlink("modes.yaml", link_path) == 0);
    REQUIRE_OK(ctx, lsim_calibrate_run(ctx, config, link_path, &o));
    struct stat l;
    CHECK(lstat(link_path, &l) == 0 && S_ISLNK(l.st_mode) && stat(cal, &info) == 0 && S_ISREG(info.st_mode));
    CHECK(count_entries(scratch_dir, ".part.") == 0);

    /* a dangling link: its target is made, the link stays */
    char dangling[256], made[256];
    path_join(dangling, sizeof dangling, scratch_dir, "dangling.yaml");
    path_join(made, sizeof made, scratch_dir, "made-by-link.yaml");
    remove(dangling);
    remove(made);
    CHECK(symlink("made-by-link.yaml", dangling) == 0);
    REQUIRE_OK(ctx, lsim_calibrate_run(ctx, config, dangling, &o));
    CHECK(lstat(dangling, &l) == 0 && S_ISLNK(l.st_mode) && stat(made, &info) == 0 && S_ISREG(info.st_mode));

    CHECK(lsim_calibrate_run(ctx, config, "-", &o) == LSIM_ERR_INVALID_ARGUMENT &&
          message_has(ctx, "standard output", "regular file"));
    path_join(fifo, sizeof fifo, scratch_dir, "cal.fifo");
    remove(fifo);
    CHECK(mkfifo(fifo, 0600) == 0);
    CHECK(lsim_calibrate_run(ctx, config, fifo, &o) == LSIM_ERR_INVALID_ARGUMENT &&
          message_has(ctx, "cal.fifo", "FIFO or device"));
    CHECK(stat(fifo, &info) == 0 && S_ISFIFO(info.st_mode));
    remove(fifo);

    /* inputs never overwritten: the config, the scan, one file for two outputs */
    char scan[256], report[256];
    path_join(scan, sizeof scan, scratch_dir, "board.txt");
    char *before = slurp(config);
    CHECK(lsim_calibrate_run(ctx, config, config, &o) == LSIM_ERR_INVALID_ARGUMENT &&
          message_has(ctx, "the calibration", "is the config file"));
    CHECK(lsim_calibrate_run(ctx, config, scan, &o) == LSIM_ERR_INVALID_ARGUMENT &&
          message_has(ctx, "is the scan of material 'board'", NULL));
    o.report = LSIM_REPORT_TEXT;
    path_join(report, sizeof report, scratch_dir, "./modes.yaml");
    o.report_path = report;
    CHECK(lsim_calibrate_run(ctx, config, cal, &o) == LSIM_ERR_INVALID_ARGUMENT &&
          message_has(ctx, "the calibration and the report are both", NULL));
    /* one new file spelled two ways is one output too; the null device twice is fine */
    remove(cal);
    char spelled[256];
    path_join(spelled, sizeof spelled, scratch_dir, "./modes.yaml");
    o.view_dir = NULL;
    o.report_path = spelled;
    CHECK(lsim_calibrate_run(ctx, config, cal, &o) == LSIM_ERR_INVALID_ARGUMENT &&
          message_has(ctx, "the calibration and the report are both", NULL) && !exists(cal));
    o.report_path = "/dev/null";
    REQUIRE_OK(ctx, lsim_calibrate_run(ctx, config, "/dev/null", &o));
    /* nor a picture of the view folder: the calibration or the report under its name (also spelled
     * another way) is refused, and the (existing) view folder gets nothing */
    char clash_views[256], clash[256];
    path_join(clash_views, sizeof clash_views, scratch_dir, "clash_views");
    CHECK(mkdir(clash_views, 0755) == 0);
    o.view_dir = clash_views;
    o.report_path = NULL;
    path_join(clash, sizeof clash, clash_views, "board_view.png");
    CHECK(lsim_calibrate_run(ctx, config, clash, &o) == LSIM_ERR_INVALID_ARGUMENT &&
          message_has(ctx, "board_view.png", "another output of this run"));
    path_join(clash, sizeof clash, clash_views, "./board_view.png");
    CHECK(lsim_calibrate_run(ctx, config, clash, &o) == LSIM_ERR_INVALID_ARGUMENT &&
          message_has(ctx, "board_view.png", "another output of this run"));
    o.report_path = clash;
    CHECK(lsim_calibrate_run(ctx, config, cal, &o) == LSIM_ERR_INVALID_ARGUMENT &&
          message_has(ctx, "the report", "another output") && !exists(cal));
    CHECK(count_entries(clash_views, NULL) == 0);
    o.view_dir = NULL;
    o.report_path = NULL;
    char *after = slurp(config);
    CHECK(before && after && strcmp(before, after) == 0);
    free(before);
    free(after);
}

static void test_validate(lsim_context *ctx)
{
    char config[256], out[256], report[256], p[256];
    path_join(config, sizeof config, scratch_dir, "data.config");
    path_join(out, sizeof out, scratch_dir, "out");
    path_join(report, sizeof report, scratch_dir, "verdicts.txt");
    lsim_validate_options o;
    lsim_validate_options_init(&o);
    o.report_path = report;
    lsim_validate_result r = {99, 99};
    REQUIRE_OK(ctx, lsim_validate_run(ctx, config, out, &o, &r));
    CHECK(r.materials == 1 && r.failed <= 1);
    const char *names[] = {"validation.csv", "calibration.yaml", "board_validation.png", "board_view.png"};
    for (int i = 0; i < 4; ++i) {
        path_join(p, sizeof p, out, names[i]);
        CHECK(exists(p));
    }
    CHECK(count_entries(out, NULL) == 4 && count_entries(out, ".lidarsim") == 0);
    char *text = slurp(report);
    CHECK(text && (strncmp(text, "board: PASS;", 12) == 0 || strncmp(text, "board: FAIL;", 12) == 0));
    CHECK(text && (r.failed == 0) == (strncmp(text, "board: PASS;", 12) == 0));
    const char *fitted = text ? strstr(text, "fitted distance ") : NULL;
    CHECK_NEAR(fitted ? strtod(fitted + 16, NULL) : NAN, 0.6, 0.002);
    CHECK(text && strstr(text, "(configured 0.600 m)") && strchr(text, '\n') == text + strlen(text) - 1);
    free(text);
    path_join(p, sizeof p, out, "validation.csv");
    text = slurp(p);
    CHECK(text && strncmp(text, "material,", 9) == 0);
    free(text);

    /* An output folder that is a file: refused at once, nothing written. */
    path_join(p, sizeof p, scratch_dir, "board.txt");
    CHECK(lsim_validate_run(ctx, config, p, &o, &r) == LSIM_ERR_IO &&
          message_has(ctx, "cannot write the output folder", "it is a file, not a folder"));
    CHECK(r.materials == 0 && r.failed == 0);
    o.threads = -1;
    CHECK(lsim_validate_run(ctx, config, out, &o, NULL) == LSIM_ERR_INVALID_ARGUMENT &&
          message_has(ctx, "threads -1", NULL));

    /* a config inside the output folder under an output's name is refused, not overwritten */
    char inside[256];
    path_join(inside, sizeof inside, out, "validation.csv");
    char *cfg_text = slurp(config);
    FILE *f = fopen(inside, "w");
    if (f) {
        fputs(cfg_text ? cfg_text : "", f);
        fclose(f);
    }
    o.threads = 0;
    CHECK(lsim_validate_run(ctx, inside, out, &o, NULL) == LSIM_ERR_INVALID_ARGUMENT &&
          message_has(ctx, "validation.csv is the config file", NULL));
    char *kept = slurp(inside);
    CHECK(cfg_text && kept && strcmp(cfg_text, kept) == 0);
    free(cfg_text);
    free(kept);

    /* the report under the name of one of the folder's pictures, or a scan that is one of them:
     * refused before any work, the picture as it was */
    char picture[256];
    path_join(picture, sizeof picture, out, "board_view.png");
    size_t png_size = 0, png_after_size = 0;
    unsigned char *png = read_file_bytes(picture, &png_size);
    o.report_path = picture;
    CHECK(lsim_validate_run(ctx, config, out, &o, NULL) == LSIM_ERR_INVALID_ARGUMENT &&
          message_has(ctx, "the report", "board_view.png, another output"));
    char scan_cfg[256];
    path_join(scan_cfg, sizeof scan_cfg, scratch_dir, "scan_is_output.config");
    f = fopen(scan_cfg, "w");
    if (f) {
        fputs("board,out/board_view.png,0.6,1.0,ON,0.5,0.0\n", f);
        fclose(f);
    }
    o.report_path = report;
    CHECK(lsim_validate_run(ctx, scan_cfg, out, &o, NULL) == LSIM_ERR_INVALID_ARGUMENT &&
          message_has(ctx, "the output", "is the scan of material 'board'"));
    unsigned char *png_after = read_file_bytes(picture, &png_after_size);
    CHECK(png && png_after && png_size > 1000 && png_size == png_after_size && memcmp(png, png_after, png_size) == 0 &&
          count_entries(out, ".lidarsim") == 0);
    free(png);
    free(png_after);

    CHECK(lsim_context_remove_partial_outputs(NULL) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_context_remove_partial_outputs(ctx) == LSIM_OK); /* nothing being written */
}

int main(void)
{
    lsim_context *ctx;
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    scratch_make("calibrate_run");
    test_defaults();
    test_calibrate(ctx);
    test_calibrate_outputs(ctx);
    test_validate(ctx);
    lsim_context_destroy(ctx);
    scratch_remove();
    return lsim_test_summary("test_calibrate_run");
}
