/* lidarsim command-line tool: dispatch to one subcommand per file. */
#include "args.h"
#include "commands.h"
#include "opts.h"

#include "lidarsim.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

/* SIGINT, SIGTERM and SIGHUP still end the process as by default, but always from the main thread.
 * The kernel may hand a process-directed signal to any thread that does not block it; while the
 * main thread holds these signals back around the short link + rename of an output
 * (output/atomic_group.c), an OpenMP worker would otherwise take the signal and end the process in
 * the middle of it. The handler, in another thread, sends the signal on to the main thread,
 * where it waits until that window is over; in the main thread it removes the temporary files of
 * the outputs being written in the command's context (lsim_cli_on_signal, cli/args.h), restores
 * the default action and re-raises. */
static pthread_t main_thread;

static void forward_to_main_thread(int sig)
{
    if (!pthread_equal(pthread_self(), main_thread)) {
        pthread_kill(main_thread, sig); /* handled again there, once its window is over */
        return;
    }
    lsim_cli_on_signal(); /* validate / calibrate --view: no staging folder left behind */
    signal(sig, SIG_DFL);
    raise(sig); /* delivered when this handler returns: the default action, the right exit status */
}

static void route_termination_signals(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    main_thread = pthread_self();
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; ++i) {
        struct sigaction old, sa;
        if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
            continue; /* keep a signal ignored by the parent (nohup, background jobs) ignored */
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = forward_to_main_thread;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}

/* The commands, in the order `lidarsim --help` lists them: name, entry point, synopsis, summary. */
typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *synopsis, *summary;
} command;

static const command COMMANDS[] = {
    {"scan", lsim_cmd_scan, "scan SCENE.yaml -o OUT", "simulate one frame of the scene's sensor, write a point cloud"},
    {"presets", lsim_cmd_presets, "presets [NAME [--beams]]", "list sensor presets, show one, or print its beam table (CSV)"},
    {"bench", lsim_cmd_bench, "bench [--quick]", "frame time vs raw Embree on the same rays (1K..10M beams)"},
    {"calibrate", lsim_cmd_calibrate, "calibrate CONFIG -o CAL", "calibrated noise from real scans of benchmark boards (YAML)"},
    {"validate", lsim_cmd_validate, "validate CONFIG -o DIR", "calibrated and BRDF-only simulations vs the real scans, per bin"},
    {"fit", lsim_cmd_fit, "fit FIT.yaml -o OUT.yaml", "fit sensor / object poses, reflectances, CW bias to a real scan"},
    {"pattern", lsim_cmd_pattern, "pattern from-scan SCAN -o PATTERN.csv", "a pattern file from a scan of a flat wall"},
    {"dataset", lsim_cmd_dataset, "dataset CONFIG.yaml -o DIR", "a labelled SemanticKITTI dataset (shards, MPI, resume)"},
    {"render", lsim_cmd_render, "render POINTS -o PNG", "a picture of a point file (bev, range, perspective)"},
    {"view", lsim_cmd_view, "view SCENE.yaml [--screenshot PNG]", "live OpenGL viewer: scene, sensor, beams, points"},
    {"compare", lsim_cmd_compare, "compare REAL SIM -o DIR", "per-beam agreement of two frames of one sensor (ray drop, range)"},
    {"twin", lsim_cmd_twin, "twin RECORDING -o DIR --poses P", "a scene rebuilt from a real recording, to scan with any sensor"},
};
enum { COMMAND_COUNT = sizeof COMMANDS / sizeof COMMANDS[0] };

static void usage(FILE *out)
{
    fprintf(out, "lidarsim %s — LiDAR and time-of-flight sensor simulator\n\nusage: lidarsim COMMAND [ARGS]\n\ncommands:\n",
            lsim_version_string());
    int column = 0; /* the summaries line up after the longest synopsis */
    for (int i = 0; i < COMMAND_COUNT; ++i)
        if ((int)strlen(COMMANDS[i].synopsis) > column)
            column = (int)strlen(COMMANDS[i].synopsis);
    for (int i = 0; i < COMMAND_COUNT; ++i)
        fprintf(out, "  %-*s  %s\n", column, COMMANDS[i].synopsis, COMMANDS[i].summary);
    fprintf(out, "\nRun `lidarsim COMMAND --help` (or `lidarsim help COMMAND`) for a command's options;\n"
                 "`lidarsim --version` (or `lidarsim COMMAND --version`) prints the version.\n");
}

static int run_command(const char *cmd, int argc, char **argv)
{
    for (int i = 0; i < COMMAND_COUNT; ++i)
        if (strcmp(cmd, COMMANDS[i].name) == 0)
            return COMMANDS[i].run(argc, argv);
    fprintf(stderr, "lidarsim: unknown command '%s'; valid:", cmd);
    for (int i = 0; i < COMMAND_COUNT; ++i)
        fprintf(stderr, "%s %s", i ? "," : "", COMMANDS[i].name);
    fprintf(stderr, " (see lidarsim --help)\n");
    return LSIM_EXIT_USAGE;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return LSIM_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || (strcmp(cmd, "help") == 0 && argc == 2)) {
        usage(stdout);
        return LSIM_EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        lsim_print_version();
        return LSIM_EXIT_OK;
    }
    if (strcmp(cmd, "help") == 0) { /* lidarsim help CMD: CMD --help */
        char help[] = "--help";
        char *args[] = {argv[2], help, NULL};
        return run_command(argv[2], 2, args);
    }
    route_termination_signals();
    return run_command(cmd, argc - 1, argv + 1);
}
