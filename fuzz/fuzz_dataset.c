/* Dataset config (`lidarsim dataset`, examples/dataset/README.md) -> lsim_dataset_load; when it
 * loads, sequences 0 and 1 are built (1 only if 0 was), frames 0..2 of each placed (their poses must be finite) and
 * one frame scanned with noise on, when the sensor is small enough to keep executions fast.
 * Meshes: the scratch folder holds tri.obj (one triangle) that seeds name as `mesh: tri.obj`;
 * the importer's time limit is 1 s, as in fuzz_mesh, so a config naming a slow or odd file costs
 * at most that. */
#include "fuzz_common.h"

#include "dataset/dataset_internal.h"
#include "lidarsim.h"

#include <math.h>

#define FUZZ_DS_MAX_SCAN_BEAMS 20000
/* Sequences are built only for libraries of at most this many objects (the sum of the count
 * maxima) and paths of at most this many waypoints: the loader's caps allow 10000 objects and a
 * placement budget of seconds, which would make executions slow (the caps and the budget have
 * their tests in tests/test_dataset_generate.c). */
#define FUZZ_DS_MAX_OBJECTS 2000
#define FUZZ_DS_MAX_WAYPOINTS 256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_scratch();
    static int companions;
    if (!companions) {
        fuzz_put_text("tri.obj", "v 0 0 0\nv 1 0 0\nv 0 1 1\nf 1 2 3\n");
        companions = 1;
    }
    fuzz_put("dataset.yaml", data, size);
    lsim_context *ctx;
    if (lsim_context_create(&ctx) != LSIM_OK)
        return 0;
    lsim_context_set_import_limits(ctx, 1, 512e6);
    lsim_dataset *ds = NULL;
    if (lsim_dataset_load(ctx, fuzz_path("dataset.yaml"), &ds) != LSIM_OK) {
        if (!lsim_context_last_error(ctx)[0])
            abort(); /* every failure must say why */
        if (getenv("FUZZ_VERBOSE")) /* seeds: check that they load */
            fprintf(stderr, "not loaded: %s\n", lsim_context_last_error(ctx));
        lsim_context_destroy(ctx);
        return 0;
    }
    lsim_dataset_info info;
    lsim_dataset_get_info(ds, &info);
    long objects = 0;
    for (size_t i = 0; i < ds->entry_count; ++i)
        objects += ds->entries[i].count_hi;
    const int build = objects <= FUZZ_DS_MAX_OBJECTS && ds->waypoint_count <= FUZZ_DS_MAX_WAYPOINTS;
    int scanned = 0;
    for (size_t seq = 0; seq < 2 && build; ++seq) {
        lsim_scene *scene = NULL;
        lsim_sensor *sensor = NULL;
        lsim_status st = lsim_dataset_build_sequence(ds, info.seed, seq, &scene, &sensor);
        if (st != LSIM_OK) {
            if (!lsim_context_last_error(ctx)[0])
                abort();
            if (getenv("FUZZ_VERBOSE"))
                fprintf(stderr, "sequence %zu not built: %s\n", seq, lsim_context_last_error(ctx));
            break; /* sequence 1 would most likely fail the same way, as slowly */
        }
        for (size_t k = 0; k < 3 && k < info.frames_per_sequence; ++k) {
            double t, pose[12];
            st = lsim_dataset_place_frame(ds, info.seed, seq, k, sensor, &t, pose);
            if (st != LSIM_OK) {
                if (!lsim_context_last_error(ctx)[0])
                    abort();
                break;
            }
            for (int i = 0; i < 12; ++i)
                if (!isfinite(pose[i]))
                    abort(); /* a config that loaded gives finite poses */
            if (!scanned && lsim_sensor_beam_count(sensor) <= FUZZ_DS_MAX_SCAN_BEAMS) {
                lsim_scan_options opt;
                lsim_scan_options_init(&opt);
                opt.threads = 1;
                opt.noise = 1;
                opt.scan_time = t;
                lsim_points *pts = NULL;
                if (lsim_scene_scan(scene, sensor, &opt, &pts) == LSIM_OK)
                    lsim_points_destroy(pts);
                scanned = 1;
                if (getenv("FUZZ_VERBOSE"))
                    fprintf(stderr, "sequence %zu frame %zu scanned (%zu beams)\n", seq, k,
                            (size_t)lsim_sensor_beam_count(sensor));
            }
        }
        lsim_scene_destroy(scene);
        lsim_sensor_destroy(sensor);
    }
    lsim_dataset_destroy(ds);
    lsim_context_destroy(ctx);
    return 0;
}
