/* The option loop every subcommand shares: glibc's getopt_long, with lidarsim's messages.
 *
 *     static const struct option longopts[] = {LSIM_OPTS_COMMON, {"output", required_argument, NULL, 'o'},
 *                                              ..., {0, 0, 0, 0}};
 *     lsim_opts g;
 *     lsim_opts_init(&g, "scan", argc, argv, "ho:", longopts, scan_usage);
 *     for (int c; (c = lsim_opts_next(&g)) != LSIM_OPT_END;)
 *         switch (c) { case LSIM_OPT_EXIT: return 0;   (--help or --version, already printed)
 *                      case LSIM_OPT_ARG: g.arg is a positional argument; case LSIM_OPT_ERROR: return 2; ... }
 *
 * argv[0] is the subcommand's name (main.c passes argv + 1); options and positional arguments may
 * come in any order, and everything after "--" is positional. Long options may be abbreviated
 * when unambiguous and take "--name=value" as well as "--name value" (getopt_long). getopt keeps
 * its state in libc's optind / optarg globals: lsim_opts_init resets them, so one loop at a time. */
#ifndef LSIM_CLI_OPTS_H
#define LSIM_CLI_OPTS_H

#include <getopt.h>
#include <stdio.h>

enum {
    LSIM_OPT_END = -1,      /* no more arguments */
    LSIM_OPT_ERROR = -2,    /* an unknown option or one without its value: the message is printed */
    LSIM_OPT_ARG = 1,       /* a positional argument, in g.arg */
    LSIM_OPT_VERSION = 0x7f00,
    LSIM_OPT_EXIT = 0x7f01, /* --help (usage on stdout) or --version printed: exit 0 */
    LSIM_OPT_LONG = 0x7f10  /* long-only options number from here */
};

/* --help (-h) and --version, which every subcommand takes. */
#define LSIM_OPTS_COMMON {"help", no_argument, NULL, 'h'}, {"version", no_argument, NULL, LSIM_OPT_VERSION}

typedef struct lsim_opts {
    const char *command;            /* "scan", "bench blooming", ... (for messages) */
    int argc;
    char **argv;
    char shortopts[64];             /* "-:" + the command's short options */
    const struct option *longopts;  /* ends with {0, 0, 0, 0} */
    void (*usage)(FILE *out);       /* the command's usage text, printed for -h / --help */
    const char *arg;                /* the value of the option just returned, or the positional argument */
    char name[64];                  /* the option just returned as "--name" or "-c" (for messages) */
    int rest;                       /* after "--" or the end of options: the next positional index */
} lsim_opts;

void lsim_opts_init(lsim_opts *g, const char *command, int argc, char **argv, const char *shortopts,
                    const struct option *longopts, void (*usage)(FILE *out));
/* The next option's code (its long option's val, or its letter), LSIM_OPT_ARG, LSIM_OPT_END,
 * LSIM_OPT_EXIT after printing the usage (-h, --help) or the version (--version), or
 * LSIM_OPT_ERROR after printing "lidarsim CMD: unknown option 'X' (see lidarsim CMD --help)" or
 * "lidarsim CMD: option X needs a value (see lidarsim CMD --help)". */
int lsim_opts_next(lsim_opts *g);

/* Print "lidarsim X.Y.Z" on standard output (every subcommand's --version). */
void lsim_print_version(void);

#endif
