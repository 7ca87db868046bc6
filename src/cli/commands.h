/* The lidarsim subcommands: one file each, int main-like entry points (exit codes). */
#ifndef LSIM_CLI_COMMANDS_H
#define LSIM_CLI_COMMANDS_H

int lsim_cmd_scan(int argc, char **argv);    /* cli/cmd_scan.c */
int lsim_cmd_presets(int argc, char **argv); /* cli/cmd_presets.c */
int lsim_cmd_bench(int argc, char **argv);     /* cli/cmd_bench.c */
int lsim_cmd_calibrate(int argc, char **argv); /* cli/cmd_calibrate.c */
int lsim_cmd_validate(int argc, char **argv);  /* cli/cmd_validate.c */
int lsim_cmd_fit(int argc, char **argv);       /* cli/cmd_fit.c */
int lsim_cmd_pattern(int argc, char **argv);   /* cli/cmd_pattern.c */
int lsim_cmd_dataset(int argc, char **argv);   /* cli/cmd_dataset.c */
int lsim_cmd_render(int argc, char **argv);    /* cli/cmd_render.c */
int lsim_cmd_view(int argc, char **argv);      /* cli/cmd_view.c */
int lsim_cmd_compare(int argc, char **argv);   /* cli/cmd_compare.c */
int lsim_cmd_twin(int argc, char **argv);      /* cli/cmd_twin.c */

/* Exit codes shared by all commands. */
enum { LSIM_EXIT_OK = 0, LSIM_EXIT_FAILURE = 1, LSIM_EXIT_USAGE = 2, LSIM_EXIT_VALIDATION_FAILED = 3 };

#endif
