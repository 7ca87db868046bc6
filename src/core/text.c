#include "core/text.h"

#include <errno.h>
#include <math.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void lsim_strlcpy(char *dst, const char *src, size_t size)
{
    if (size == 0)
        return;
    size_t n = strlen(src);
    if (n >= size)
        n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

char *lsim_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

int lsim_ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

int lsim_has_extension(const char *path, const char *ext)
{
    const size_t n = strlen(path), e = strlen(ext);
    const char *slash = strrchr(path, '/');
    const size_t base = slash ? (size_t)(slash - path) + 1 : 0;
    return n > base + e && strcasecmp(path + n - e, ext) == 0;
}

char *lsim_trim(char *s)
{
    while (*s && isspace((unsigned char)*s))
        ++s;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

size_t lsim_split_fields(char *s, char sep, char **fields, size_t max)
{
    size_t n = 0;
    for (char *p = s;; ++n) {
        char *cut = strchr(p, sep);
        if (cut)
            *cut = '\0';
        if (n < max)
            fields[n] = lsim_trim(p);
        if (!cut)
            return n + 1;
        p = cut + 1;
    }
}

int lsim_parse_double(const char *s, double *out)
{
    while (isspace((unsigned char)*s))
        ++s;
    if (!*s)
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    while (isspace((unsigned char)*end))
        ++end;
    if (*end || end == s || (errno == ERANGE && isfinite(v) && v != 0.0))
        return -1;
    *out = v;
    return 0;
}
