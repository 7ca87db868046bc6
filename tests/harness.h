/* Minimal test harness: CHECK macros that report file:line and keep going, checks of the library's
 * error messages, then a summary. */
#ifndef LSIM_TEST_HARNESS_H
#define LSIM_TEST_HARNESS_H

#include "lidarsim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int lsim_test_failures = 0;
static int lsim_test_checks = 0;

#define CHECK(cond)                                                                     \
    do {                                                                                \
        ++lsim_test_checks;                                                             \
        if (!(cond)) {                                                                  \
            ++lsim_test_failures;                                                       \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);   \
        }                                                                               \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                           \
    do {                                                                                \
        ++lsim_test_checks;                                                             \
        double va_ = (double)(a), vb_ = (double)(b);                                    \
        if (!(fabs(va_ - vb_) <= (tol))) {                                              \
            ++lsim_test_failures;                                                       \
            fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s = %.9g, %s = %.9g (tol %g)\n", \
                    __FILE__, __LINE__, #a, va_, #b, vb_, (double)(tol));               \
        }                                                                               \
    } while (0)

/* Require a status OK; print the context's message otherwise and abort the test. */
#define REQUIRE_OK(ctx, call)                                                           \
    do {                                                                                \
        lsim_status st_ = (call);                                                       \
        if (st_ != LSIM_OK) {                                                           \
            fprintf(stderr, "%s:%d: %s failed: %s: %s\n", __FILE__, __LINE__, #call,    \
                    lsim_status_string(st_), lsim_context_last_error(ctx));             \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

/* Whether the context's last error message holds `a` and, unless NULL, `b`; when not, the message is
 * shown on stderr with what it lacks. For CHECK(message_has(ctx, "file.yaml:3:", "key")). */
static inline int message_has(lsim_context *ctx, const char *a, const char *b)
{
    const char *m = lsim_context_last_error(ctx);
    int ok = strstr(m, a) != NULL && (!b || strstr(m, b) != NULL);
    if (!ok)
        fprintf(stderr, "message '%s' lacks '%s'%s%s%s\n", m, a, b ? "' or '" : "", b ? b : "", b ? "'" : "");
    return ok;
}

/* Whether `text` holds every string of the NULL-terminated list `needles`. */
static inline int contains_all(const char *text, const char *const *needles)
{
    for (size_t i = 0; needles[i]; ++i)
        if (!strstr(text, needles[i]))
            return 0;
    return 1;
}

/* Print a case of bad input with the message it gave: on stdout when the case went as it should
 * (`ok`), on stderr with its status when not. Returns ok, for CHECK(report_case(...)). */
static inline int report_case(const char *what, int ok, lsim_status status, const char *message)
{
    if (!ok)
        fprintf(stderr, "case %s: status %d, message '%s'\n", what, (int)status, message);
    else
        printf("  %s: %s\n", what, message);
    return ok;
}

/* Time limits in the tests only catch hangs (issue 23; tests/timeouts.py for the Python tests): a
 * limit of `seconds` on an idle machine, times LSIM_TIMEOUT_SCALE (tests/CMakeLists.txt: 3 in a
 * Release build, 15 under the sanitizers; at least 1). */
static inline double lsim_test_time_limit(double seconds)
{
    const char *s = getenv("LSIM_TIMEOUT_SCALE");
    double scale = s ? strtod(s, NULL) : 1.0;
    return seconds * (scale >= 1.0 ? scale : 1.0);
}

static inline int lsim_test_summary(const char *name)
{
    if (lsim_test_failures) {
        fprintf(stderr, "%s: %d of %d checks failed\n", name, lsim_test_failures, lsim_test_checks);
        return 1;
    }
    printf("%s: all %d checks passed\n", name, lsim_test_checks);
    return 0;
}

#endif
