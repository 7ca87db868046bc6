/* Command-line arguments of scan, presets, calibrate, validate and fit: the input is split into
 * arguments at newlines; the first picks the command. Arguments holding '/' are skipped so
 * that every file a command writes stays in the scratch folder (the working directory). */
#include "fuzz_common.h"

#include "cli/commands.h"

#define MAX_ARGS 24

static void setup(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    if (chdir(fuzz_scratch()) != 0)
        abort();
    fuzz_put_text("tiny.yaml", "sensor: {type: planar, fov_deg: 90, steps: 16}\n"
                               "objects:\n  - box: {size: [4, 4, 4]}\n    position: [0, 0, 0]\n");
    fuzz_put_text("config.yaml", "materials:\n  - {name: wall, file: scan.txt, distance_m: 0.5, width_m: 0.3,"
                                 " brdf: ON, roughness: 0.3, fresnel: 0.5}\n");
    fuzz_put_text("fit_scene.yaml", "sensor: {preset: urg-04lx, steps: 16, fov_deg: 90}\n"
                                    "objects:\n  - box: {size: [4, 3, 4]}\n");
    fuzz_put_text("fit_scan.csv", "range\n1.9\n1.8\n1.7\n1.6\n1.6\n1.5\n1.5\n1.5\n1.5\n1.5\n1.5\n1.6\n1.6\n1.7\n"
                                  "1.8\n1.9\n");
    fuzz_put_text("fit.yaml", "scene: fit_scene.yaml\nscan: fit_scan.csv\nparameters: {sensor: {dof: se2}}\n");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char buf[16385]; /* up to 16 KiB: past the CLI's 4,096-byte path buffers */
    if (size >= sizeof buf)
        return 0;
    setup();
    memcpy(buf, data, size);
    buf[size] = '\0';
    char *argv[MAX_ARGS + 1];
    int argc = 0;
    for (char *save = NULL, *tok = strtok_r(buf, "\n", &save); tok && argc < MAX_ARGS;
         tok = strtok_r(NULL, "\n", &save)) {
        if (strchr(tok, '/'))
            return 0;
        argv[argc++] = tok;
    }
    argv[argc] = NULL;
    if (argc == 0)
        return 0;
    /* argv[0] is the command name, as lidarsim's main passes it */
    if (strcmp(argv[0], "scan") == 0)
        lsim_cmd_scan(argc, argv);
    else if (strcmp(argv[0], "presets") == 0)
        lsim_cmd_presets(argc, argv);
    else if (strcmp(argv[0], "calibrate") == 0)
        lsim_cmd_calibrate(argc, argv);
    else if (strcmp(argv[0], "validate") == 0)
        lsim_cmd_validate(argc, argv);
    else if (strcmp(argv[0], "fit") == 0)
        lsim_cmd_fit(argc, argv);
    return 0;
}
