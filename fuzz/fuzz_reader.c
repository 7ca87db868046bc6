/* One harness per text reader, chosen at build time (-DFUZZ_READER=...):
 * pattern CSV, kernel file, calibration config, calibration YAML, real scans
 * (ApolloSim CSV lines and ROS LaserScan dumps), trajectory CSV (t,x,y,z,roll,pitch,yaw), real
 * units' sensor calibrations (Ouster / Velodyne JSON, ROS YAML, VeloView XML). */
#include "fuzz_common.h"

#include "calib/calib_config.h"
#include "calib/calibration.h"
#include "calib/scan_read.h"
#include "core/context.h"
#include "optics/blooming.h"
#include "scene/trajectory_file.h"
#include "sensor/sensor.h"

static void must_say_why(lsim_context *ctx, lsim_status st)
{
    if (st != LSIM_OK && !lsim_context_last_error(ctx)[0])
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_scratch();
    lsim_context *ctx;
    if (lsim_context_create(&ctx) != LSIM_OK)
        return 0;
    lsim_status st;
#if FUZZ_READER == 1
    fuzz_put("input.csv", data, size);
    lsim_sensor_spec spec;
    memset(&spec, 0, sizeof spec);
    st = lsim_pattern_file_read(ctx, fuzz_path("input.csv"), &spec);
    if (st == LSIM_OK)
        lsim_sensor_spec_free(&spec);
#elif FUZZ_READER == 2
    fuzz_put("input.kernel", data, size);
    lsim_kernel k;
    st = lsim_kernel_read(ctx, fuzz_path("input.kernel"), &k);
    if (st == LSIM_OK)
        lsim_kernel_free(&k);
#elif FUZZ_READER == 3
    fuzz_put("input.config", data, size);
    lsim_calib_config cfg;
    st = lsim_calib_config_read(ctx, fuzz_path("input.config"), &cfg);
    if (st == LSIM_OK)
        lsim_calib_config_free(&cfg);
#elif FUZZ_READER == 4
    fuzz_put("input.yaml", data, size);
    lsim_calibration cal;
    st = lsim_calibration_read(ctx, fuzz_path("input.yaml"), &cal);
    if (st == LSIM_OK)
        lsim_calibration_free(&cal);
#elif FUZZ_READER == 5
    fuzz_put("input.txt", data, size);
    lsim_scan_data scan;
    st = lsim_scan_read(ctx, fuzz_path("input.txt"), &scan);
    if (st == LSIM_OK)
        lsim_scan_free(&scan);
#elif FUZZ_READER == 6
    fuzz_put("input.csv", data, size);
    lsim_trajectory tr;
    st = lsim_trajectory_file_read(ctx, fuzz_path("input.csv"), &tr);
    if (st == LSIM_OK) { /* what was read builds a motion that the library accepts */
        lsim_motion *m = NULL;
        if (lsim_motion_make_keys(ctx, "fuzz", tr.count, tr.t, (const double(*)[3])tr.position,
                                  (const double(*)[3])tr.rpy_deg, &m) != LSIM_OK)
            abort();
        lsim_pose p = lsim_motion_pose(m, tr.t[0] + 0.5 * (tr.t[tr.count - 1] - tr.t[0]));
        if (!(p.t.x == p.t.x))
            abort();
        lsim_motion_free(m);
        lsim_trajectory_free(&tr);
    }
#elif FUZZ_READER == 7
    fuzz_put("input.cal", data, size);
    lsim_sensor_spec spec;
    lsim_sensor_spec_defaults(&spec);
    st = lsim_sensor_calibration_read(ctx, fuzz_path("input.cal"), &spec);
    if (st == LSIM_OK) { /* what was read is a sensor the library accepts */
        lsim_sensor *sensor = NULL;
        if (lsim_sensor_create_from_spec(ctx, &spec, &sensor) != LSIM_OK)
            abort();
        lsim_sensor_destroy(sensor);
    } else {
        lsim_sensor_spec_free(&spec);
    }
#else
#error "FUZZ_READER must be 1..7"
#endif
    must_say_why(ctx, st);
    lsim_context_destroy(ctx);
    return 0;
}
