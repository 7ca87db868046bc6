/* Files named inside a scene (a beam pattern, a real unit's calibration, a beam kernel, a
 * trajectory, a material calibration) are read only when they are regular files: a FIFO named
 * there is refused at once with a message, instead of blocking the load until a writer comes
 * (core/file_open.h; the mesh case is in test_mesh_hostile). alarm() turns a hang into a failure. */
#include "files.h"
#include "harness.h"

#include "lidarsim.h"
#include "core/file_open.h"

#include <errno.h>

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static lsim_context *ctx;

/* The scene naming the FIFO fails to load, or (a kernel file, read when a frame starts) to scan,
 * with a message naming the file and `needle`. */
static void refused(const char *what, const char *scene_fmt, const char *needle)
{
    char fifo[256], text[1024];
    path_join(fifo, sizeof fifo, scratch_dir, "pipe");
    snprintf(text, sizeof text, scene_fmt, fifo);
    const char *scene_path = scratch_write_text("scene.yaml", text);
    char path[256];
    snprintf(path, sizeof path, "%s", scene_path);
    lsim_scene *scene = NULL;
    lsim_sensor *sensor = NULL;
    alarm((unsigned)lsim_test_time_limit(20));
    lsim_status st = lsim_scene_load(ctx, path, &scene, &sensor);
    if (st == LSIM_OK) {
        lsim_scan_options opt;
        lsim_scan_options_init(&opt);
        lsim_points *pts = NULL;
        st = lsim_scene_scan(scene, sensor, &opt, &pts);
        lsim_points_destroy(pts);
    }
    alarm(0);
    const char *msg = lsim_context_last_error(ctx);
    printf("%-22s -> %s\n", what, msg);
    CHECK(st != LSIM_OK);
    CHECK(strstr(msg, "not a regular file") != NULL);
    CHECK(strstr(msg, "pipe") != NULL);
    CHECK(strstr(msg, needle) != NULL);
    lsim_sensor_destroy(sensor);
    lsim_scene_destroy(scene);
}

/* A file above its kind's bound (core/file_open.c) is refused before it is read, naming the size
 * and the limit: a scene of 64 MiB + 1 and a trajectory one names (sparse files: no disk used). */
static void too_large(void)
{
    char big[256];
    path_join(big, sizeof big, scratch_dir, "big.yaml");
    FILE *f = fopen(big, "w");
    CHECK(f && ftruncate(fileno(f), (64 << 20) + 1) == 0);
    fclose(f);
    lsim_scene *scene = NULL;
    lsim_sensor *sensor = NULL;
    CHECK(lsim_scene_load(ctx, big, &scene, &sensor) == LSIM_ERR_PARSE && !scene && !sensor);
    CHECK(strstr(lsim_context_last_error(ctx), "big.yaml: 67108865 bytes, more than the limit of 64 MiB for a "
                                               "scene file") != NULL);
    char traj[256], text[512];
    path_join(traj, sizeof traj, scratch_dir, "big.csv");
    f = fopen(traj, "w");
    CHECK(f && ftruncate(fileno(f), (64 << 20) + 1) == 0);
    fclose(f);
    snprintf(text, sizeof text, "sensor: {preset: vlp16, trajectory: {file: \"%s\"}}\nobjects:\n  - box: {size: [1, 1, "
             "1]}\n", traj);
    const char *scene_path = scratch_write_text("traj.yaml", text);
    CHECK(lsim_scene_load(ctx, scene_path, &scene, &sensor) != LSIM_OK && !scene && !sensor);
    CHECK(strstr(lsim_context_last_error(ctx), "big.csv: 67108865 bytes, more than the limit of 64 MiB for a "
                                               "trajectory file") != NULL);
    remove(big);
    remove(traj);
}

/* The stream the opener returns stops at the kind's bound even when the file grows after the
 * open (stat said 15 bytes): the read fails with EFBIG after at most 64 MiB, not at the end. */
static void grows(void)
{
    char path[256];
    path_join(path, sizeof path, scratch_dir, "grows.csv");
    scratch_write_text("grows.csv", "t,x,y,z,r,p,y\n");
    FILE *fp = NULL;
    uint64_t size = 0;
    REQUIRE_OK(ctx, lsim_file_open(ctx, path, LSIM_INPUT_TRAJECTORY, &fp, &size));
    CHECK(size == 14);
    CHECK(truncate(path, (64 << 20) + 4096) == 0); /* sparse: no disk used */
    static char buf[1 << 16];
    uint64_t total = 0;
    size_t n;
    errno = 0;
    while ((n = fread(buf, 1, sizeof buf, fp)) > 0)
        total += n;
    CHECK(ferror(fp) && errno == EFBIG);
    CHECK(total <= (uint64_t)64 << 20 && total >= ((uint64_t)64 << 20) - sizeof buf);
    fclose(fp);
    remove(path);
}

int main(void)
{
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    scratch_make("named_fifo");
    char fifo[256];
    path_join(fifo, sizeof fifo, scratch_dir, "pipe");
    CHECK(mkfifo(fifo, 0600) == 0);
    const char *box = "objects:\n  - box: {size: [10, 10, 4]}\n";
    char fmt[1024];
    snprintf(fmt, sizeof fmt, "sensor: {type: pattern, file: \"%%s\"}\n%s", box);
    refused("pattern file", fmt, "pattern");
    snprintf(fmt, sizeof fmt, "sensor: {calibration: \"%%s\"}\n%s", box);
    refused("unit calibration", fmt, "sensor calibration");
    snprintf(fmt, sizeof fmt, "sensor: {preset: vlp16, beam: {mode: kernel, kernel: {file: \"%%s\"}}}\n%s", box);
    refused("beam kernel", fmt, "kernel");
    snprintf(fmt, sizeof fmt, "sensor: {preset: vlp16, trajectory: {file: \"%%s\"}}\n%s", box);
    refused("sensor trajectory", fmt, "trajectory");
    snprintf(fmt, sizeof fmt, "sensor: {preset: vlp16}\nmaterials: {w: {calibration: \"%%s#w\"}}\n%s", box);
    refused("material calibration", fmt, "calibration file");
    too_large();
    grows();
    scratch_remove();
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_named_fifo");
}
