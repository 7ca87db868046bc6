/* Scene YAML (sensor, materials, optics, labels, objects) -> lsim_scene_load, then a scan
 * when the sensor is small enough to keep executions fast. */
#include "fuzz_common.h"

#include "lidarsim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_scratch();
    fuzz_put("scene.yaml", data, size);
    lsim_context *ctx;
    if (lsim_context_create(&ctx) != LSIM_OK)
        return 0;
    lsim_context_set_import_limits(ctx, 5, 0);
    lsim_scene *scene = NULL;
    lsim_sensor *sensor = NULL;
    if (lsim_scene_load(ctx, fuzz_path("scene.yaml"), &scene, &sensor) == LSIM_OK) {
        if (lsim_sensor_beam_count(sensor) <= 512) {
            lsim_scan_options opt;
            lsim_scan_options_init(&opt);
            opt.threads = 1;
            lsim_points *pts = NULL;
            if (lsim_scene_scan(scene, sensor, &opt, &pts) == LSIM_OK)
                lsim_points_destroy(pts);
        }
        lsim_scene_destroy(scene);
        lsim_sensor_destroy(sensor);
    } else if (!lsim_context_last_error(ctx)[0]) {
        abort(); /* every failure must say why */
    }
    lsim_context_destroy(ctx);
    return 0;
}
