/* lidarsim twin (lsim_twin_build): the input's first byte picks the options (bit 0: the naive
 * baseline, bit 1: the measured drop, bit 2: poses at the frame start or mid-sweep, bits 3-4: the
 * frames built from: 0 and 1, 0, 1, or every posed one), the rest is the poses file (KITTI: a 3 x 4
 * matrix a line). The recording is a sequence folder made once: two frames of a vlp16 moving
 * through a small room (points/000000.pcd, 000001.pcd with ring, time and azimuth). A failure must
 * say why; a twin built must hold its scene.yaml. */
#include "fuzz_common.h"

#include <sys/stat.h>

#include "lidarsim.h"

static void make_recording(void)
{
    lsim_context *ctx;
    lsim_scene *scene;
    lsim_sensor *sensor;
    if (lsim_context_create(&ctx) != LSIM_OK || lsim_scene_create(ctx, &scene) != LSIM_OK ||
        lsim_sensor_create_preset(ctx, "vlp16", &sensor) != LSIM_OK)
        abort();
    lsim_object_desc d;
    lsim_object_desc_init(&d);
    const double room[3] = {12.0, 8.0, 4.0}, pillar[3] = {0.5, 0.5, 3.0};
    d.position[2] = 1.0;
    if (lsim_scene_add_box(scene, room, &d) != LSIM_OK)
        abort();
    d.position[0] = 3.0, d.position[1] = 1.5;
    if (lsim_scene_add_box(scene, pillar, &d) != LSIM_OK)
        abort();
    const double v[3] = {1.0, 0.0, 0.0};
    if (lsim_sensor_set_motion(sensor, v, NULL) != LSIM_OK)
        abort();
    char dir[512], path[600];
    snprintf(dir, sizeof dir, "%s", fuzz_path("rec"));
    mkdir(dir, 0700);
    snprintf(path, sizeof path, "%s/points", dir);
    mkdir(path, 0700);
    for (int k = 0; k < 2; ++k) {
        lsim_scan_options o;
        lsim_scan_options_init(&o);
        o.scan_time = 0.1 * k;
        o.frame_index = (uint32_t)k;
        o.seed = 1;
        lsim_points *p = NULL;
        snprintf(path, sizeof path, "%s/points/%06d.pcd", dir, k);
        if (lsim_scene_scan(scene, sensor, &o, &p) != LSIM_OK || lsim_points_write(p, path, LSIM_FORMAT_AUTO) != LSIM_OK)
            abort();
        lsim_points_destroy(p);
    }
    lsim_sensor_destroy(sensor);
    lsim_scene_destroy(scene);
    lsim_context_destroy(ctx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int made;
    fuzz_scratch();
    if (!made) {
        make_recording();
        made = 1;
    }
    if (size < 1)
        return 0;
    fuzz_put("poses.txt", data + 1, size - 1);
    lsim_context *ctx;
    if (lsim_context_create(&ctx) != LSIM_OK)
        return 0;
    lsim_twin_options o;
    lsim_twin_options_init(&o);
    o.sensor = "vlp16";
    char poses[512], out[512];
    snprintf(poses, sizeof poses, "%s", fuzz_path("poses.txt"));
    snprintf(out, sizeof out, "%s", fuzz_path("twin"));
    o.poses = poses;
    o.naive = data[0] & 1;
    o.drop_model = (data[0] >> 1) & 1;
    o.pose_time = (data[0] >> 2) & 1 ? 0.0 : 0.5;
    static const int64_t sets[3][2] = {{0, 1}, {0, 0}, {1, 1}};
    const int pick = (data[0] >> 3) & 3;
    if (pick < 3) {
        o.frames = sets[pick];
        o.frame_count = pick == 0 ? 2 : 1;
    }
    lsim_twin_stats s;
    lsim_status st = lsim_twin_build(ctx, fuzz_path("rec"), &o, out, &s);
    if (st != LSIM_OK && !lsim_context_last_error(ctx)[0])
        abort();
    if (st == LSIM_OK) { /* the twin's scene is there (loading it imports every mesh in a child process: slow) */
        char scene[600];
        struct stat sb;
        snprintf(scene, sizeof scene, "%s/scene.yaml", out);
        if (stat(scene, &sb) != 0 || sb.st_size == 0 || s.frames < 1)
            abort();
    }
    lsim_context_destroy(ctx);
    return 0;
}
