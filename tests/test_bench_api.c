/* The benchmarks and the viewer through the public header only (include/lidarsim.h):
 * lsim_bench_kind_name, lsim_bench_options_init, lsim_bench_run, lsim_view_options_init,
 * lsim_view_run. A tiny frame benchmark's report (every beam of the closed sphere returns with
 * noise off), the defaults of every kind, options out of range naming the field and leaving no
 * report, and the viewer's errors that come before any window (no display, a bad size, no
 * scene). No timing is asserted. */
#include "harness.h"

#include "lidarsim.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

static void check_kinds(void)
{
    static const char *names[] = {"frame", "blooming", "pulses", "fit", "dataset"};
    static const int repeats[] = {5, 3, 5, 3, 1};
    for (int k = 0; k < 5; ++k) {
        const char *name = lsim_bench_kind_name((lsim_bench_kind)k);
        CHECK(name && strcmp(name, names[k]) == 0);
        lsim_bench_options o;
        lsim_bench_options_init(&o, (lsim_bench_kind)k);
        CHECK(o.kind == (lsim_bench_kind)k);
        CHECK(o.repeat == repeats[k]);
    }
    CHECK(lsim_bench_kind_name((lsim_bench_kind)5) == NULL);
    CHECK(lsim_bench_kind_name((lsim_bench_kind)-1) == NULL);

    lsim_bench_options o;
    lsim_bench_options_init(&o, LSIM_BENCH_FRAME);
    CHECK(o.threads == 0 && o.json == 0 && o.progress == LSIM_PROGRESS_OFF && o.report_path == NULL);
    CHECK(o.beam_count == 5 && o.beams[0] == 1000 && o.beams[4] == 10000000);
    CHECK(o.triangles == 1000000 && o.engine == LSIM_ENGINE_EMBREE && o.moving == 0 && o.fields == 0 && o.noise == 1);
    CHECK(o.rings == 2 && o.frames == 500 && o.program == NULL && o.mpi == 0 && o.baselines_dir == NULL);
    CHECK(strcmp(o.scenes_dir, "examples/cw") == 0 && strcmp(o.config, "examples/dataset/dataset.yaml") == 0);
}

static void check_frame_report(lsim_context *ctx)
{
    const char *path = "test_bench_api.jsonl";
    remove(path);
    lsim_bench_options o;
    lsim_bench_options_init(&o, LSIM_BENCH_FRAME);
    o.beams[0] = 256;
    o.beams[1] = 200; /* rounded up to whole columns: 256 */
    o.beam_count = 2;
    o.triangles = 64;
    o.repeat = 2;
    o.threads = 1;
    o.noise = 0;
    o.json = 1;
    o.fields = LSIM_FIELD_BIT(LSIM_FIELD_X) | LSIM_FIELD_BIT(LSIM_FIELD_Y) | LSIM_FIELD_BIT(LSIM_FIELD_Z);
    o.report_path = path;
    REQUIRE_OK(ctx, lsim_bench_run(ctx, &o));
    const char *text = slurp(path);
    CHECK(text != NULL);
    if (!text)
        return;
    int lines = 0;
    for (const char *p = text; (p = strchr(p, '\n')); ++p)
        ++lines;
    CHECK(lines == 2);
    CHECK(strstr(text, "{\"engine\": \"raycast\", \"moving\": false, \"beams\": 256, \"triangles\": 64, \"threads\": 1, ")
          == text);
    /* every beam returns from inside the closed sphere: points == beams on both lines */
    const char *p = text;
    int both = 0;
    while ((p = strstr(p, "\"points\": 256}\n"))) {
        ++both;
        ++p;
    }
    CHECK(both == 2);
    remove(path);
}

/* One bad option: LSIM_ERR_INVALID_ARGUMENT naming it, and no report left. */
static void expect_invalid(lsim_context *ctx, const lsim_bench_options *o, const char *needle)
{
    const char *path = "test_bench_api_bad.txt";
    remove(path);
    lsim_bench_options bad = *o;
    bad.report_path = path;
    lsim_status st = lsim_bench_run(ctx, &bad);
    CHECK(st == LSIM_ERR_INVALID_ARGUMENT);
    const char *msg = lsim_context_last_error(ctx);
    if (!strstr(msg, needle)) {
        fprintf(stderr, "expected '%s' in: %s\n", needle, msg);
        CHECK(0);
    }
    CHECK(access(path, F_OK) != 0);
}

static void check_bad_options(lsim_context *ctx)
{
    lsim_bench_options o;
    lsim_bench_options_init(&o, LSIM_BENCH_FRAME);
    o.repeat = 0;
    expect_invalid(ctx, &o, "repeat 0 is outside 1..1000");
    lsim_bench_options_init(&o, LSIM_BENCH_BLOOMING);
    o.threads = -1;
    expect_invalid(ctx, &o, "bench blooming: threads -1 is outside 0..1024");
    lsim_bench_options_init(&o, LSIM_BENCH_FRAME);
    o.beams[2] = 127;
    expect_invalid(ctx, &o, "beams[2] = 127 is outside 128..100000000");
    lsim_bench_options_init(&o, LSIM_BENCH_FRAME);
    o.beam_count = 17;
    expect_invalid(ctx, &o, "beam_count 17 is outside 1..16");
    lsim_bench_options_init(&o, LSIM_BENCH_FRAME);
    o.triangles = 63;
    expect_invalid(ctx, &o, "triangles 63 is outside 64..100000000");
    lsim_bench_options_init(&o, LSIM_BENCH_FRAME);
    o.engine = LSIM_ENGINE_BRUTE;
    expect_invalid(ctx, &o, "engine 1 is neither");
    lsim_bench_options_init(&o, LSIM_BENCH_PULSES);
    o.rings = 0;
    expect_invalid(ctx, &o, "bench pulses: rings 0 is outside 1..8");
    lsim_bench_options_init(&o, LSIM_BENCH_DATASET);
    o.program = "/bin/true";
    o.frames = 1;
    expect_invalid(ctx, &o, "bench dataset: frames 1 is outside 2..1000000");
    lsim_bench_options_init(&o, LSIM_BENCH_DATASET);
    expect_invalid(ctx, &o, "set options.program to the lidarsim binary");
    lsim_bench_options_init(&o, LSIM_BENCH_FIT);
    o.scenes_dir = NULL;
    expect_invalid(ctx, &o, "no scenes folder");
    lsim_bench_options_init(&o, LSIM_BENCH_FRAME);
    o.kind = (lsim_bench_kind)9;
    expect_invalid(ctx, &o, "kind 9 is not a benchmark");
    CHECK(lsim_bench_run(ctx, NULL) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_bench_run(NULL, &o) == LSIM_ERR_INVALID_ARGUMENT);

    /* a report in a folder that does not exist: LSIM_ERR_IO naming it, before any benchmark */
    lsim_bench_options_init(&o, LSIM_BENCH_FRAME);
    o.report_path = "test_bench_api_no_such_folder/report.txt";
    CHECK(lsim_bench_run(ctx, &o) == LSIM_ERR_IO);
    CHECK(strstr(lsim_context_last_error(ctx), "test_bench_api_no_such_folder") != NULL);

    /* the fit's scenes missing: the error names the scene file */
    lsim_bench_options_init(&o, LSIM_BENCH_FIT);
    o.scenes_dir = "test_bench_api_no_scenes";
    o.repeat = 1;
    CHECK(lsim_bench_run(ctx, &o) != LSIM_OK);
    CHECK(strstr(lsim_context_last_error(ctx), "room.yaml") != NULL);
}

static void check_view(lsim_context *ctx)
{
    lsim_view_options o;
    lsim_view_options_init(&o);
    CHECK(o.scene == NULL && o.screenshot == NULL);
    CHECK(o.width == 1280 && o.height == 800 && o.max_beams == 5000);
    CHECK(o.has_camera == 0 && o.has_sensor_position == 0 && o.has_sensor_yaw == 0);
    CHECK(o.colour_by_label == 0 && o.colour_by_material == 0 && o.hide_beams == 0 && o.threads == 0 && o.quiet == 0);

    CHECK(lsim_view_run(ctx, &o) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "no scene file") != NULL);
    CHECK(lsim_view_run(ctx, NULL) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_view_run(NULL, &o) == LSIM_ERR_INVALID_ARGUMENT);

    const char *scene = "test_bench_api_scene.yaml", *shot = "test_bench_api_shot.png";
    FILE *f = fopen(scene, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs("sensor:\n  preset: vlp16\n  position: [0, 0, 1]\nobjects:\n  - plane: {size: [20, 20]}\n", f);
    fclose(f);
    remove(shot);
    o.scene = scene;
    o.screenshot = shot;
    o.quiet = 1;
    o.width = 15;
    CHECK(lsim_view_run(ctx, &o) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "size 15 x 800 is outside 16..8192") != NULL);
    o.width = 64;
    o.max_beams = -2;
    CHECK(lsim_view_run(ctx, &o) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "max_beams -2") != NULL);
    o.max_beams = 10;
    o.threads = 2000;
    CHECK(lsim_view_run(ctx, &o) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "threads 2000") != NULL);
    o.threads = 1;

    /* a scene that does not load: the loader's message names the file */
    o.scene = "test_bench_api_missing.yaml";
    CHECK(lsim_view_run(ctx, &o) != LSIM_OK);
    CHECK(strstr(lsim_context_last_error(ctx), "test_bench_api_missing.yaml") != NULL);

    /* no display: LSIM_ERR_IO naming xvfb-run and DISPLAY; no PNG written */
    o.scene = scene;
    unsetenv("DISPLAY");
    unsetenv("WAYLAND_DISPLAY");
    CHECK(lsim_view_run(ctx, &o) == LSIM_ERR_IO);
    const char *msg = lsim_context_last_error(ctx);
    CHECK(strstr(msg, "no display") != NULL && strstr(msg, "xvfb-run") != NULL && strstr(msg, "DISPLAY") != NULL);
    CHECK(access(shot, F_OK) != 0);
    remove(scene);
}

int main(void)
{
    lsim_context *ctx;
    if (lsim_context_create(&ctx) != LSIM_OK)
        return 1;
    check_kinds();
    check_frame_report(ctx);
    check_bad_options(ctx);
    check_view(ctx);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_bench_api");
}
