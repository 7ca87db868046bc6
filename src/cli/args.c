#include "args.h"

#include "commands.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int lsim_arg_size(const char *s, long lo, long hi, long *width, long *height)
{
    const char *x = s ? strchr(s, 'x') : NULL;
    char w[32];
    if (!x || (size_t)(x - s) >= sizeof w)
        return -1;
    memcpy(w, s, (size_t)(x - s));
    w[x - s] = '\0';
    return lsim_arg_long(w, lo, hi, width) || lsim_arg_long(x + 1, lo, hi, height) ? -1 : 0;
}

int lsim_arg_invalid(const char *command, const char *opt, const char *value, const char *valid)
{
    fprintf(stderr, "lidarsim %s: %s '%s' is invalid; expected %s\n", command, opt, value ? value : "", valid);
    return LSIM_EXIT_USAGE;
}

int lsim_cli_check_writable(lsim_context *ctx, const char *command, const char *path, const char *what)
{
    /* not a directory, and a temporary file can be made there (FIFOs and devices are not opened) */
    if (lsim_path_check_writable(ctx, path) != LSIM_OK) {
        fprintf(stderr, "lidarsim %s: cannot write %s: %s\n", command, what, lsim_context_last_error(ctx));
        return LSIM_EXIT_FAILURE;
    }
    return LSIM_EXIT_OK;
}

static lsim_context *volatile signal_ctx;

void lsim_cli_signal_context(lsim_context *ctx) { signal_ctx = ctx; }

void lsim_cli_on_signal(void)
{
    lsim_context *ctx = signal_ctx;
    if (ctx)
        lsim_context_remove_partial_outputs(ctx);
}

int lsim_arg_fields(const char *command, const char *list, uint32_t *out)
{
    *out = 0;
    const char *p = list;
    while (1) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        int found = -1;
        for (int f = 0; f < LSIM_FIELD_COUNT && found < 0; ++f) {
            const char *name = lsim_field_name((lsim_field)f);
            if (strlen(name) == len && strncmp(name, p, len) == 0)
                found = f;
        }
        if (found < 0) {
            fprintf(stderr, "lidarsim %s: --fields: '%.*s' is not a point field; give names separated by commas from:",
                    command, (int)(len < 64 ? len : 64), p);
            for (int f = 0; f < LSIM_FIELD_COUNT; ++f)
                fprintf(stderr, " %s", lsim_field_name((lsim_field)f));
            fputc('\n', stderr);
            return -1;
        }
        *out |= LSIM_FIELD_BIT(found);
        if (!end)
            return 0;
        p = end + 1;
    }
}
