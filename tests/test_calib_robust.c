/* Robustness of the calibration inputs (issue 8):
 *   - revolution detection is linear: a 200,000-line scan whose angles alternate (every beam a
 *     wrap) is read at once (it compared every pair of segments: 80k lines took 8.5 s), and its
 *     revolution structure (1 beam per revolution) is refused with the file and the counts;
 *   - a few stray beams at the end do not make the revolution 1 beam long; a trailing partial
 *     revolution is not a complete one (validate uses count / beams_per_revolution revolutions);
 *   - a scene with 2,000 `calibration: FILE#m` references parses FILE once per load (bytes read
 *     from /proc/self/io) and gives every material the right calibration;
 *   - outputs committed together (lsim_output_set, src/output/output_set.h; validate, calibrate --view):
 *     a rename failing half-way removes the files already renamed, a file never written stops
 *     the commit, a folder the set made is removed again, success leaves no staging folder. */
#include "harness.h"
#include "files.h"

#include "calib/calibration.h"
#include "calib/scan_read.h"
#include "scene/scene.h"

#include "core/context.h"
#include "output/output_set.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Beam lines of `revs` revolutions of `per` beams (angles -pi..pi), then `extra` beams of the
 * next revolution, then the `stray` lines as given. */
static const char *write_revolutions(const char *name, size_t revs, size_t per, size_t extra, const char *stray)
{
    size_t n = (revs * per + extra) * 40 + strlen(stray) + 64;
    char *text = malloc(n), *p = text;
    p += sprintf(p, "range_m,intensity,angle_rad\n");
    for (size_t i = 0; i < revs * per + extra; ++i)
        p += sprintf(p, "0.5,47.0,%.9f\n", -3.14 + 6.28 * (double)(i % per) / (double)per);
    strcpy(p, stray);
    const char *path = scratch_write_text(name, text);
    free(text);
    return path;
}

static void test_alternating(lsim_context *ctx)
{
    const size_t lines = 200000;
    char *text = malloc(lines * 16 + 1), *p = text;
    for (size_t i = 0; i < lines; ++i)
        p += sprintf(p, "0.5,47,%s\n", i % 2 ? "3.0" : "-3.0");
    const char *path = scratch_write_text("alternating.txt", text);
    free(text);
    lsim_scan_data s;
    REQUIRE_OK(ctx, lsim_scan_read(ctx, path, &s));
    CHECK(s.count == lines);
    CHECK(s.revolutions == lines);          /* every beam wraps */
    CHECK(s.beams_per_revolution == 1);     /* no segment is longer */
    CHECK(lsim_scan_complete_revolutions(&s) == lines);
    CHECK(lsim_scan_check_revolutions(ctx, path, &s) == LSIM_ERR_PARSE);
    CHECK(message_has(ctx, "alternating.txt", "200000 beams in 200000 revolutions"));
    CHECK(message_has(ctx, "1 beam long", "at least 16 beams per revolution"));
    lsim_scan_free(&s);
}

static void test_revolution_structure(lsim_context *ctx)
{
    lsim_scan_data s;
    /* One revolution then two stray beams, each a wrap: segments 720, 1, 1. */
    const char *path = write_revolutions("stray.txt", 1, 720, 0, "0.5,47.0,-3.0\n0.5,47.0,3.0\n");
    REQUIRE_OK(ctx, lsim_scan_read(ctx, path, &s));
    CHECK(s.count == 722 && s.revolutions == 3);
    CHECK(s.beams_per_revolution == 720); /* was 1: the two stray segments out-voted the revolution */
    CHECK(lsim_scan_complete_revolutions(&s) == 1);
    CHECK(lsim_scan_check_revolutions(ctx, path, &s) == LSIM_OK);
    lsim_scan_free(&s);

    /* A recording that stops mid-revolution: 5 revolutions and 300 beams of a sixth. */
    path = write_revolutions("partial.txt", 5, 720, 300, "");
    REQUIRE_OK(ctx, lsim_scan_read(ctx, path, &s));
    CHECK(s.count == 3900 && s.revolutions == 6 && s.beams_per_revolution == 720);
    CHECK(lsim_scan_complete_revolutions(&s) == 5); /* 6 x 720 = 4320 > 3900 beams read */
    CHECK(lsim_scan_check_revolutions(ctx, path, &s) == LSIM_OK);
    lsim_scan_free(&s);

    /* Segments of 40, 40, 40, 7, 7, 7, 7: the long ones are the revolution though outnumbered. */
    char stray[400] = "";
    for (int k = 0; k < 4; ++k)
        for (int i = 0; i < 7; ++i)
            snprintf(stray + strlen(stray), sizeof stray - strlen(stray), "0.5,47,%d\n", i == 0 ? -3 : i - 3);
    path = write_revolutions("short_segments.txt", 3, 40, 0, stray);
    REQUIRE_OK(ctx, lsim_scan_read(ctx, path, &s));
    CHECK(s.count == 148 && s.revolutions == 7 && s.beams_per_revolution == 40);
    CHECK(lsim_scan_complete_revolutions(&s) == 3);
    lsim_scan_free(&s);

    /* Ties among long segments still go to the longer: 30, 30, 20, 20. */
    {
        char *text = malloc(100 * 32), *p = text;
        const int len[4] = {30, 20, 30, 20};
        for (int r = 0; r < 4; ++r)
            for (int i = 0; i < len[r]; ++i)
                p += sprintf(p, "0.5,47,%.6f\n", -3.0 + 6.0 * i / len[r]);
        path = scratch_write_text("ties.txt", text);
        free(text);
    }
    REQUIRE_OK(ctx, lsim_scan_read(ctx, path, &s));
    CHECK(s.count == 100 && s.revolutions == 4 && s.beams_per_revolution == 30);
    CHECK(lsim_scan_complete_revolutions(&s) == 3);
    lsim_scan_free(&s);

    /* A LaserScan dump whose blocks differ in length: 20, 20, 10 beams -> 2 complete revolutions
     * of the longest block (3 x 20 would read past the 50 beams). */
    char dump[2048] = "";
    const int blocks[3] = {20, 20, 10};
    for (int b = 0; b < 3; ++b) {
        snprintf(dump + strlen(dump), sizeof dump - strlen(dump), "start_angle: -3.0\nangle_increment: 0.3\nranges: [");
        for (int i = 0; i < blocks[b]; ++i)
            snprintf(dump + strlen(dump), sizeof dump - strlen(dump), "%s0.5", i ? ", " : "");
        snprintf(dump + strlen(dump), sizeof dump - strlen(dump), "]\n---\n");
    }
    path = scratch_write_text("dump.txt", dump);
    REQUIRE_OK(ctx, lsim_scan_read(ctx, path, &s));
    CHECK(s.count == 50 && s.revolutions == 3 && s.beams_per_revolution == 20);
    CHECK(lsim_scan_complete_revolutions(&s) == 2);
    CHECK(lsim_scan_check_revolutions(ctx, path, &s) == LSIM_OK);
    lsim_scan_free(&s);

    /* Too few beams per revolution, though structured: 8-beam revolutions are refused. */
    path = write_revolutions("tiny.txt", 10, 8, 0, "");
    REQUIRE_OK(ctx, lsim_scan_read(ctx, path, &s));
    CHECK(s.count == 80 && s.revolutions == 10 && s.beams_per_revolution == 8);
    CHECK(lsim_scan_check_revolutions(ctx, path, &s) == LSIM_ERR_PARSE);
    CHECK(message_has(ctx, "tiny.txt: no usable revolution structure: 80 beams in 10 revolutions", "8 beams long"));
    lsim_scan_free(&s);
}

/* A calibration with two materials told apart by their bins: board (6 bins of 10 deg) and wall
 * (4 bins of 15 deg, intensity 12). */
static void write_calibration(lsim_context *ctx, const char *path)
{
    lsim_calibration cal;
    memset(&cal, 0, sizeof cal);
    cal.version = LSIM_CALIB_VERSION;
    snprintf(cal.sensor, sizeof cal.sensor, "rplidar-a1");
    cal.count = 2;
    lsim_calib_material m[2];
    lsim_calib_bin bins[2][6];
    memset(m, 0, sizeof m);
    memset(bins, 0, sizeof bins);
    for (int k = 0; k < 2; ++k) {
        snprintf(m[k].name, sizeof m[k].name, "%s", k ? "wall" : "board");
        m[k].configured_distance_m = m[k].fitted_distance_m = 1.0;
        m[k].board_width_m = m[k].configured_width_m = 3.0;
        m[k].band_m = 0.05;
        m[k].revolutions = 1;
        m[k].beams_per_revolution = 720;
        m[k].bin_width_deg = k ? 15.0 : 10.0;
        m[k].bin_count = k ? 4 : 6;
        for (size_t i = 0; i < m[k].bin_count; ++i) {
            bins[k][i].angle_deg = m[k].bin_width_deg * (i + 0.5);
            bins[k][i].n = 1000;
            bins[k][i].mean_intensity = k ? 12.0 : 47.0;
            bins[k][i].std_intensity = 0.0;
            bins[k][i].std_range_m = 0.002;
            bins[k][i].drop_rate = 0.1;
            bins[k][i].mean_range_m = 0.0;
        }
        m[k].bins = bins[k];
        lsim_brdf_defaults(&m[k].brdf, LSIM_BRDF_LAMBERTIAN);
        lsim_brdf_defaults(&m[k].brdf_configured, LSIM_BRDF_LAMBERTIAN);
        m[k].brdf_scale = 47.0;
    }
    cal.materials = m;
    REQUIRE_OK(ctx, lsim_calibration_write(ctx, path, &cal));
}

/* Bytes this process has read so far (/proc/self/io rchar); -1 when unknown. */
static long long bytes_read(void)
{
    FILE *f = fopen("/proc/self/io", "r");
    long long v = -1;
    if (f) {
        char key[32];
        long long x;
        while (fscanf(f, "%31[^:]: %lld\n", key, &x) == 2)
            if (strcmp(key, "rchar") == 0)
                v = x;
        fclose(f);
    }
    return v;
}

static long long file_size(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    fseek(f, 0, SEEK_END);
    long long n = ftell(f);
    fclose(f);
    return n;
}

static void test_scene_calibration_cache(lsim_context *ctx)
{
    char cal_path[256], scene_path[256];
    path_join(cal_path, sizeof cal_path, scratch_dir, "cal.yaml");
    write_calibration(ctx, cal_path);
    const size_t refs = 2000;
    size_t cap = refs * 64 + 256;
    char *text = malloc(cap), *p = text;
    p += sprintf(p, "materials:\n");
    for (size_t i = 0; i < refs; ++i) /* three spellings of the one file: the same file, one parse */
        p += sprintf(p, "  m%zu: {calibration: \"%s#%s\"}\n", i, i % 3 == 0 ? "cal.yaml" : i % 3 == 1 ? "./cal.yaml"
                                                                                 : cal_path, i % 2 ? "wall" : "board");
    p += sprintf(p, "objects:\n  - plane: {size: [1, 1]}\n    material: m1\n");
    snprintf(scene_path, sizeof scene_path, "%s", scratch_write_text("scene.yaml", text));
    free(text);

    long long before = bytes_read();
    lsim_scene *scene = NULL;
    REQUIRE_OK(ctx, lsim_scene_load(ctx, scene_path, &scene, NULL));
    long long after = bytes_read();
    long long cal_size = file_size(cal_path), scene_size = file_size(scene_path);
    if (before >= 0 && after >= 0) {
        /* the scene once, the calibration a few times (its reader opens it twice), not 2,000 times */
        printf("read %lld bytes loading a %lld-byte scene with %zu references to a %lld-byte calibration\n",
               after - before, scene_size, refs, cal_size);
        CHECK(after - before < 3 * scene_size + 20 * cal_size);
    } else {
        printf("NOTE: /proc/self/io is unreadable: the parse count is not checked\n");
    }
    size_t ok = 0;
    for (size_t i = 0; i < refs; ++i) {
        char name[32];
        snprintf(name, sizeof name, "m%zu", i);
        long k = lsim_scene_find_material(scene, name);
        const struct lsim_calib_material *c = k >= 0 ? scene->materials[k].calibration : NULL;
        const int wall = i % 2 == 1;
        ok += c && c->bin_count == (wall ? 4u : 6u) && c->bin_width_deg == (wall ? 15.0 : 10.0) &&
              c->bins[0].mean_intensity == (wall ? 12.0 : 47.0);
    }
    CHECK(ok == refs);
    lsim_scene_destroy(scene);

    /* A name the file lacks still lists the names it has; a missing file is still named. */
    const char *bad = scratch_write_text("bad.yaml", "materials:\n  a: {calibration: \"cal.yaml#board\"}\n"
                                                     "  b: {calibration: \"cal.yaml#nope\"}\nobjects: []\n");
    scene = NULL;
    CHECK(lsim_scene_load(ctx, bad, &scene, NULL) == LSIM_ERR_PARSE && scene == NULL);
    CHECK(message_has(ctx, "bad.yaml:3", "has no material 'nope'; it has: board, wall"));
    const char *missing = scratch_write_text("missing.yaml", "materials:\n  a: {calibration: \"cal.yaml#board\"}\n"
                                                             "  b: {calibration: \"none.yaml#board\"}\nobjects: []\n");
    CHECK(lsim_scene_load(ctx, missing, &scene, NULL) == LSIM_ERR_PARSE && scene == NULL);
    CHECK(message_has(ctx, "missing.yaml:3", "none.yaml: cannot open the calibration file"));
}

static void write_small(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static int is_file_with(const char *path, const char *text)
{
    char buf[64] = "";
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return strcmp(buf, text) == 0;
}

static int exists(const char *path)
{
    struct stat info;
    return lstat(path, &info) == 0;
}

static void test_outputs(lsim_context *ctx)
{
    char dir[256], p[3][4096], q[256], single[256];
    lsim_output_set o;

    /* Success: a new folder with three files; nothing else left in it. */
    path_join(dir, sizeof dir, scratch_dir, "ok");
    lsim_output_set_init(&o, ctx, "test");
    CHECK(lsim_output_set_folder(&o, dir, "output folder") == LSIM_OK && o.made_dir == 1);
    CHECK(count_entries(dir, NULL) == 1); /* the staging folder */
    const char *names[3] = {"a", "b", "c"};
    for (int i = 0; i < 3; ++i) {
        REQUIRE_OK(ctx, lsim_output_set_add(&o, names[i], ".txt", p[i], sizeof p[i]));
        write_small(p[i], names[i]);
    }
    CHECK(lsim_output_set_add(&o, "b", ".txt", q, sizeof q) == LSIM_ERR_INVALID_ARGUMENT); /* twice */
    REQUIRE_OK(ctx, lsim_output_set_commit(&o));
    path_join(q, sizeof q, dir, "b.txt");
    CHECK(is_file_with(q, "b") && count_entries(dir, NULL) == 3 && count_entries(dir, ".lidarsim") == 0);
    lsim_output_set_abort(&o); /* after a commit: nothing to do */
    CHECK(count_entries(dir, NULL) == 3);

    /* A rename failing half-way (b.txt turned into a folder after it was registered): a.txt,
     * already renamed, is removed again; c.txt never appears; the staging folder goes. The
     * output folder stays: it holds the b.txt folder, which is not ours to remove. */
    path_join(dir, sizeof dir, scratch_dir, "half");
    lsim_output_set_init(&o, ctx, "test");
    CHECK(lsim_output_set_folder(&o, dir, "output folder") == LSIM_OK);
    for (int i = 0; i < 3; ++i) {
        REQUIRE_OK(ctx, lsim_output_set_add(&o, names[i], ".txt", p[i], sizeof p[i]));
        write_small(p[i], names[i]);
    }
    path_join(q, sizeof q, dir, "b.txt");
    CHECK(mkdir(q, 0777) == 0);
    CHECK(lsim_output_set_commit(&o) == LSIM_ERR_IO);
    CHECK(message_has(ctx, "b.txt", "cannot move"));
    CHECK(count_entries(dir, NULL) == 1 && exists(q)); /* only the folder b.txt */
    CHECK(o.count == 0 && o.stage == NULL);

    /* A registered file never written: nothing is committed; the folder made here is removed. The
     * single file outside the folder has its temporary beside it until then, and none after. */
    path_join(dir, sizeof dir, scratch_dir, "unwritten");
    path_join(single, sizeof single, scratch_dir, "single.yaml");
    lsim_output_set_init(&o, ctx, "test");
    CHECK(lsim_output_set_folder(&o, dir, "output folder") == LSIM_OK);
    REQUIRE_OK(ctx, lsim_output_set_add(&o, "a", ".txt", p[0], sizeof p[0]));
    REQUIRE_OK(ctx, lsim_output_set_add(&o, "b", ".txt", p[1], sizeof p[1]));
    REQUIRE_OK(ctx, lsim_output_set_add_file(&o, single, p[2], sizeof p[2]));
    CHECK(exists(p[2]) && strstr(p[2], "single.yaml.part.") != NULL);
    write_small(p[0], "a");
    write_small(p[2], "s");
    CHECK(lsim_output_set_commit(&o) == LSIM_ERR_IO);
    CHECK(message_has(ctx, "b.txt", "was not written"));
    CHECK(!exists(dir) && !exists(single) && !exists(p[2]));
    CHECK(count_entries(scratch_dir, "single") == 0);

    /* Abort before commit: same; a folder that was there before stays, with what it had. */
    path_join(dir, sizeof dir, scratch_dir, "there");
    CHECK(mkdir(dir, 0777) == 0);
    path_join(q, sizeof q, dir, "mine.txt");
    write_small(q, "mine");
    lsim_output_set_init(&o, ctx, "test");
    CHECK(lsim_output_set_folder(&o, dir, "output folder") == LSIM_OK && o.made_dir == 0);
    REQUIRE_OK(ctx, lsim_output_set_add(&o, "mine", ".txt", p[0], sizeof p[0]));
    write_small(p[0], "theirs");
    lsim_output_set_abort(&o);
    CHECK(is_file_with(q, "mine") && count_entries(dir, NULL) == 1);

    /* A termination signal while the set is being written: the handler's call removes every
     * temporary file, the staging folder and the folder the set made (and only those); the set
     * is registered in its context until it is committed or aborted. */
    path_join(dir, sizeof dir, scratch_dir, "signalled");
    path_join(single, sizeof single, scratch_dir, "signalled.yaml");
    lsim_output_set_init(&o, ctx, "test");
    CHECK(ctx->partial_outputs == NULL);
    CHECK(lsim_output_set_folder(&o, dir, "output folder") == LSIM_OK && ctx->partial_outputs == &o);
    REQUIRE_OK(ctx, lsim_output_set_add(&o, "a", ".txt", p[0], sizeof p[0]));
    REQUIRE_OK(ctx, lsim_output_set_add(&o, "b", ".txt", p[1], sizeof p[1]));
    REQUIRE_OK(ctx, lsim_output_set_add_file(&o, single, p[2], sizeof p[2]));
    write_small(p[0], "a");
    write_small(p[1], "b");
    CHECK(exists(dir) && exists(p[2]) && count_entries(dir, NULL) == 1); /* the staging folder */
    CHECK(lsim_context_remove_partial_outputs(ctx) == LSIM_OK);
    CHECK(!exists(p[0]) && !exists(p[1]) && !exists(p[2]) && !exists(dir) && !exists(single));
    CHECK(count_entries(scratch_dir, "signalled") == 0);
    lsim_output_set_abort(&o); /* after the handler: nothing left to remove */
    CHECK(ctx->partial_outputs == NULL && lsim_context_remove_partial_outputs(ctx) == LSIM_OK);

    /* A folder in the place of an output is refused when it is registered, before any work. */
    lsim_output_set_init(&o, ctx, "test");
    CHECK(lsim_output_set_folder(&o, scratch_dir, "output folder") == LSIM_OK);
    CHECK(lsim_output_set_add(&o, "half/b", ".txt", p[0], sizeof p[0]) == LSIM_ERR_IO);
    CHECK(message_has(ctx, "b.txt: it is a folder", "remove or rename it"));
    lsim_output_set_abort(&o);
    CHECK(count_entries(scratch_dir, ".lidarsim") == 0);
}

int main(void)
{
    lsim_context *ctx;
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    scratch_make("calib_robust");
    test_alternating(ctx);
    test_revolution_structure(ctx);
    test_scene_calibration_cache(ctx);
    test_outputs(ctx);
    scratch_remove();
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_calib_robust");
}
