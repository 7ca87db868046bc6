/* getopt_long with lidarsim's usage messages (cli/opts.h). */
#include "opts.h"

#include "lidarsim.h"

#include <stdio.h>
#include <string.h>

void lsim_opts_init(lsim_opts *g, const char *command, int argc, char **argv, const char *shortopts,
                    const struct option *longopts, void (*usage)(FILE *out))
{
    memset(g, 0, sizeof *g);
    g->command = command;
    g->argc = argc;
    g->argv = argv;
    /* '-': positional arguments are returned in order (code 1); ':': a missing value is told
     * apart from an unknown option. */
    snprintf(g->shortopts, sizeof g->shortopts, "-:%s", shortopts);
    g->longopts = longopts;
    g->usage = usage;
    g->rest = -1;
    optind = 0; /* glibc: start afresh at argv[1] */
    opterr = 0; /* the messages are ours */
}

/* The name of the option that getopt_long just rejected, as typed. */
static const char *typed(const lsim_opts *g)
{
    int i = optind - 1;
    return i >= 1 && i < g->argc ? g->argv[i] : "?";
}

int lsim_opts_next(lsim_opts *g)
{
    g->arg = NULL;
    g->name[0] = '\0';
    if (g->rest >= 0) {
        if (g->rest >= g->argc)
            return LSIM_OPT_END;
        g->arg = g->argv[g->rest++];
        return LSIM_OPT_ARG;
    }
    int index = -1;
    int c = getopt_long(g->argc, g->argv, g->shortopts, g->longopts, &index);
    if (c == -1) { /* "--" (the rest is positional) or the end */
        g->rest = optind;
        return lsim_opts_next(g);
    }
    if (c == 1) {
        g->arg = optarg;
        return LSIM_OPT_ARG;
    }
    if (c == '?') {
        fprintf(stderr, "lidarsim %s: unknown option '%s' (see lidarsim %s --help)\n", g->command, typed(g),
                g->command);
        return LSIM_OPT_ERROR;
    }
    if (c == ':') {
        fprintf(stderr, "lidarsim %s: option %s needs a value (see lidarsim %s --help)\n", g->command, typed(g),
                g->command);
        return LSIM_OPT_ERROR;
    }
    if (index >= 0)
        snprintf(g->name, sizeof g->name, "--%s", g->longopts[index].name);
    else
        snprintf(g->name, sizeof g->name, "-%c", c);
    g->arg = optarg;
    if (c == LSIM_OPT_VERSION) {
        lsim_print_version();
        return LSIM_OPT_EXIT;
    }
    if (c == 'h' && g->usage) {
        g->usage(stdout);
        return LSIM_OPT_EXIT;
    }
    return c;
}

void lsim_print_version(void) { printf("lidarsim %s\n", lsim_version_string()); }
