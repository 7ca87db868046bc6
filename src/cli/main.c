/* lidarsim command-line tool: dispatch to one subcommand per file. */
#include "cli/commands.h"

#include "lidarsim.h"

#include <stdio.h>
#include <string.h>

static void usage(FILE *out)
{
    fprintf(out,
            "lidarsim %d.%d.%d — LiDAR and time-of-flight sensor simulator\n\n"
            "usage: lidarsim COMMAND [ARGS]\n\n"
            "commands:\n"
            "  scan SCENE.yaml -o OUT   simulate one frame of the scene's sensor, write a point cloud\n"
            "  presets [NAME [--beams]] list sensor presets, show one, or print its beam table (CSV)\n"
            "  bench [--quick]          frame time vs raw Embree on the same rays (1K..10M beams)\n"
            "  calibrate CONFIG -o CAL  calibrated noise from real scans of benchmark boards (YAML)\n"
            "  validate CONFIG -o DIR   calibrated and BRDF-only simulations vs the real scans, per bin\n\n"
            "Run `lidarsim COMMAND --help` for a command's options.\n",
            LSIM_VERSION_MAJOR, LSIM_VERSION_MINOR, LSIM_VERSION_PATCH);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return LSIM_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return LSIM_EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("lidarsim %d.%d.%d\n", LSIM_VERSION_MAJOR, LSIM_VERSION_MINOR, LSIM_VERSION_PATCH);
        return LSIM_EXIT_OK;
    }
    if (strcmp(cmd, "scan") == 0)
        return lsim_cmd_scan(argc - 1, argv + 1);
    if (strcmp(cmd, "presets") == 0)
        return lsim_cmd_presets(argc - 1, argv + 1);
    if (strcmp(cmd, "bench") == 0)
        return lsim_cmd_bench(argc - 1, argv + 1);
    if (strcmp(cmd, "calibrate") == 0)
        return lsim_cmd_calibrate(argc - 1, argv + 1);
    if (strcmp(cmd, "validate") == 0)
        return lsim_cmd_validate(argc - 1, argv + 1);
    fprintf(stderr, "lidarsim: unknown command '%s'; valid: scan, presets, bench, calibrate, validate (see lidarsim --help)\n", cmd);
    return LSIM_EXIT_USAGE;
}
