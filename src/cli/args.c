#include "cli/args.h"

#include "calib/calib_view.h"
#include "calib/calibration.h"
#include "cli/commands.h"
#include "core/context.h"
#include "io/atomic_file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int lsim_arg_long(const char *s, long lo, long hi, long *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*end || errno || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int lsim_arg_u64(const char *s, uint64_t *out)
{
    if (!s || !*s || *s == '-')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno)
        return -1;
    *out = (uint64_t)v;
    return 0;
}

int lsim_arg_double(const char *s, double lo, double hi, double *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (*end || errno || !isfinite(v) || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int lsim_arg_invalid(const char *command, const char *opt, const char *value, const char *valid)
{
    fprintf(stderr, "lidarsim %s: %s '%s' is invalid; expected %s\n", command, opt, value ? value : "", valid);
    return LSIM_EXIT_USAGE;
}

int lsim_cli_check_writable(lsim_context *ctx, const char *command, const char *path, const char *what)
{
    struct stat info;
    if (stat(path, &info) == 0 && S_ISDIR(info.st_mode)) {
        fprintf(stderr, "lidarsim %s: cannot write %s: '%s' is a directory; give a file name\n", command, what, path);
        return LSIM_EXIT_FAILURE;
    }
    lsim_atomic_group group;
    lsim_atomic_begin(&group, ctx);
    FILE *fp;
    lsim_status st = lsim_atomic_open(&group, path, &fp);
    lsim_atomic_abort(&group);
    if (st != LSIM_OK) {
        fprintf(stderr, "lidarsim %s: cannot write %s: %s\n", command, what, lsim_context_last_error(ctx));
        return LSIM_EXIT_FAILURE;
    }
    return LSIM_EXIT_OK;
}

lsim_status lsim_cli_output_path(lsim_context *ctx, char *out, size_t size, const char *dir, const char *name,
                                 const char *suffix)
{
    int n = snprintf(out, size, "%s/%s%s", dir, name, suffix);
    if (n < 0 || (size_t)n >= size)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "the output path %s/%s%s is too long (at most %zu bytes)",
                         dir, name, suffix, size - 1);
    return LSIM_OK;
}

int lsim_cli_make_folder(const char *command, const char *dir, const char *what)
{
    struct stat info;
    if (stat(dir, &info) != 0 && mkdir(dir, 0777) != 0) {
        fprintf(stderr, "lidarsim %s: cannot create the %s '%s': %s\n", command, what, dir, strerror(errno));
        return LSIM_EXIT_FAILURE;
    }
    return LSIM_EXIT_OK;
}

lsim_status lsim_cli_write_view(lsim_context *ctx, const char *dir, const lsim_calib_material *m)
{
    char path[4096];
    lsim_status st = lsim_cli_output_path(ctx, path, sizeof path, dir, m->name, "_view.png");
    return st != LSIM_OK ? st : lsim_calib_view_png_colour(ctx, m, path, 900, LSIM_CALIB_VIEW_MEAN_WITH_DROPS);
}
