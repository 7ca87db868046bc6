/* One harness per text reader, chosen at build time (-DFUZZ_READER=...):
 * pattern CSV, kernel file, calibration config, calibration YAML, real scans
 * (ApolloSim CSV lines and ROS LaserScan dumps), trajectory CSV (t,x,y,z,roll,pitch,yaw), real
 * units' sensor calibrations (Ouster / Velodyne JSON, ROS YAML, VeloView XML), `lidarsim fit`'s
 * fit file (read, its scene loaded, the fit set up and run for a few iterations, the fitted scene
 * written) and its real scans (CSV, PCD, PLY), and lsim_points_read (the point files lidarsim
 * writes: the input's first byte picks CSV, PCD, PLY or a KITTI .bin with a .label beside it, or
 * from 0xF0 up a LAS file). */
#include "fuzz_common.h"

#include "calib/calib_config.h"
#include "calib/calibration.h"
#include "calib/scan_read.h"
#include "core/context.h"
#include "inverse/fit_file.h"
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
#elif FUZZ_READER == 8
    /* a 16-beam CW scanner in a box, and its scan: what a fit file may name */
    fuzz_put_text("fit_scene.yaml", "sensor: {preset: urg-04lx, steps: 16, fov_deg: 90, position: [0.1, 0, 0]}\n"
                                    "materials: {wall: {brdf: lambertian, reflectance: 0.5}}\n"
                                    "objects:\n  - {box: {size: [4, 3, 4]}, material: wall, name: room}\n");
    fuzz_put_text("fit_scan.csv", "range,intensity\n1.9,1\n1.8,1\n1.7,1\n1.6,1\n1.6,1\n1.5,1\n1.5,1\n1.5,1\n1.5,"
                                  "1\n1.5,1\n1.5,1\n1.6,1\n1.6,1\n1.7,1\n1.8,1\n1.9,1\n");
    fuzz_put("input.yaml", data, size);
    lsim_fit_file ff;
    st = lsim_fit_file_read(ctx, fuzz_path("input.yaml"), &ff);
    if (st == LSIM_OK) {
        lsim_scene *scene = NULL;
        lsim_sensor *sensor = NULL;
        lsim_fit *fit = NULL;
        lsim_status run = lsim_fit_file_load_scene(&ff, &scene, &sensor);
        if (run == LSIM_OK && lsim_sensor_beam_count(sensor) <= 4096)
            run = lsim_fit_file_setup(&ff, scene, sensor, &fit);
        lsim_fit_result res;
        if (run == LSIM_OK && fit && lsim_fit_run(fit, 3, NULL, NULL, &res) == LSIM_OK) {
            double p[LSIM_FIT_FILE_MAX_PARAMS];
            char names[LSIM_FIT_FILE_MAX_PARAMS][256];
            const char *np[LSIM_FIT_FILE_MAX_PARAMS];
            const size_t n = lsim_fit_parameter_count(fit);
            lsim_fit_get_parameters(fit, p);
            for (size_t k = 0; k < n; ++k) {
                lsim_fit_parameter_name(fit, k, names[k], sizeof names[k]);
                np[k] = names[k];
            }
            if (lsim_fitted_scene_write(ctx, ff.scene, fuzz_path("fitted.yaml"), n, np, p, "fuzz") != LSIM_OK)
                abort(); /* a scene that loaded and fitted can be written */
        }
        must_say_why(ctx, run);
        lsim_fit_destroy(fit);
        lsim_sensor_destroy(sensor);
        lsim_scene_destroy(scene);
        lsim_fit_file_free(&ff);
    }
#elif FUZZ_READER == 9
    fuzz_put("input.scan", data, size);
    lsim_fit_scan scan;
    st = lsim_fit_scan_read(ctx, fuzz_path("input.scan"), size & 1, 1000, &scan);
    if (st == LSIM_OK)
        lsim_fit_scan_free(&scan);
#elif FUZZ_READER == 10
    static const char *const names[] = {"input.csv", "input.pcd", "input.ply", "input.bin"};
    const char *name = size && data[0] >= 0xF0 ? "input.las" : names[size ? data[0] % 4 : 0];
    const uint8_t *body = size ? data + 1 : data;
    const size_t n = size ? size - 1 : 0;
    if (name[6] == 'b') { /* the .bin's first 4/5, its .label the rest (misaligned sizes included) */
        fuzz_put(name, body, n * 4 / 5);
        fuzz_put("input.label", body + n * 4 / 5, n - n * 4 / 5);
    } else {
        fuzz_put(name, body, n);
    }
    lsim_points *points = NULL;
    st = lsim_points_read(ctx, fuzz_path(name), size > 1 && (data[1] & 1) ? 0x7u : 0, &points);
    if (st == LSIM_OK) {
        const size_t count = lsim_points_count(points);
        const float *x = lsim_points_column(points, LSIM_FIELD_X);
        volatile float sum = 0.0f;
        for (size_t i = 0; i < count; ++i)
            sum += x[i]; /* every row readable */
        (void)sum;
    }
    lsim_points_destroy(points);
#else
#error "FUZZ_READER must be 1..10"
#endif
    must_say_why(ctx, st);
    lsim_context_destroy(ctx);
    return 0;
}
