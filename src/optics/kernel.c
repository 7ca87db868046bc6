/* Beam kernels (combined emitter x collector kappa eta, pbr paper §II, §III): parametric and from file.
 *
 * Parametric 1-D profile, sampled at x = k step_deg for k in [-K, K], K = ceil(halo_extent / step):
 *   p(x) = exp(-x^2 / (2 sigma^2)) + halo_level * exp(-|x| ln(100) / halo_extent),
 *   sigma = core_fwhm / (2 sqrt(2 ln 2)),
 * i.e. a Gaussian core of unit peak plus an exponential halo that starts at `halo_level` times the
 * core's peak and has fallen to exactly 1e-2 of that at `halo_extent` (where the kernel is cut).
 * h and v are the same profile, each normalised to sum 1, so the 2-D kernel h[m] v[n] sums to 1.
 *
 * Kernel file (text; '#' starts a comment; blank lines skipped; numbers separated by blanks or
 * commas):
 *   separable             <- optional keyword
 *   step_deg: 0.01
 *   h: 0.001 0.1 1 0.1 0.001
 *   v: 0.01 1 0.01
 * or a 2-D array, one row per line (rows = elevation, increasing; columns = azimuth, increasing):
 *   step_deg: 0.01
 *   0 1 0
 *   1 4 1
 *   0 1 0
 * The array is reduced to its separable part from its marginals: h[m] = (column sums) / sqrt(T),
 * v[n] = (row sums) / sqrt(T), T the total weight, so h v^T keeps the total weight and reproduces a
 * rank-1 array exactly. Odd sizes, finite non-negative weights with at least one positive per
 * profile; every error names file:line. */
#include "optics/blooming.h"
#include "core/file_open.h"

#include "core/context.h"
#include "core/text.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KERNEL_MAX_HALF 4096 /* 8193 samples per axis at most */
/* A kernel file's pitch and reach: finite angles a lidar's beam can have (the parametric kernel's
 * step is core FWHM / 4 <= 8.5 deg, its halo at most 20 deg), so rays stay finite and the image
 * rendered around the beams stays within the sphere. */
#define KERNEL_MIN_STEP_DEG 1e-5
#define KERNEL_MAX_STEP_DEG 10.0
#define KERNEL_MAX_EXTENT_DEG 45.0
/* A 2-D array holds at most 2048 x 2048 weights (32 MiB while reading); larger kernels are given
 * in the separable form (h: and v: profiles of up to 8193 weights). */
#define KERNEL_MAX_ARRAY_VALUES ((size_t)2048 * 2048)

void lsim_kernel_free(lsim_kernel *kernel)
{
    if (!kernel)
        return;
    free(kernel->h);
    free(kernel->v);
    memset(kernel, 0, sizeof *kernel);
}

static int positive_finite(double x) { return isfinite(x) && x > 0.0; }

lsim_status lsim_kernel_parametric(lsim_context *ctx, double core_fwhm_deg, double halo_level,
                                   double halo_extent_deg, double step_deg, lsim_kernel *out)
{
    if (!out)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "kernel: output is NULL");
    memset(out, 0, sizeof *out);
    if (!positive_finite(core_fwhm_deg))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "kernel: core_fwhm_deg %g must be a positive finite angle",
                         core_fwhm_deg);
    if (!isfinite(halo_level) || halo_level < 0.0 || halo_level > 1.0)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "kernel: halo_level %g must be in [0, 1] (relative to the core's peak; typically 1e-6 .. 1e-3)",
                         halo_level);
    if (!positive_finite(halo_extent_deg))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "kernel: halo_extent_deg %g must be a positive finite angle (typically ~3 deg)", halo_extent_deg);
    if (!positive_finite(step_deg))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "kernel: step_deg %g must be a positive finite angle",
                         step_deg);
    /* ceil with a relative tolerance, so that an extent of exactly K steps gives K */
    double kf = ceil(halo_extent_deg / step_deg * (1.0 - 1e-12));
    if (!(kf <= KERNEL_MAX_HALF))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "kernel: halo_extent_deg / step_deg = %g samples per side exceeds %d; use a coarser step",
                         halo_extent_deg / step_deg, KERNEL_MAX_HALF);
    int half = kf < 1.0 ? 1 : (int)kf;
    size_t n = 2 * (size_t)half + 1;
    float *h = malloc(n * sizeof *h), *v = malloc(n * sizeof *v);
    double *p = malloc(n * sizeof *p);
    if (!h || !v || !p) {
        free(h);
        free(v);
        free(p);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "kernel: out of memory for %zu samples", n);
    }
    const double sigma = core_fwhm_deg / (2.0 * sqrt(2.0 * log(2.0)));
    const double decay = log(100.0) / halo_extent_deg;
    double sum = 0.0;
    for (int k = -half; k <= half; ++k) {
        double x = k * step_deg;
        double w = exp(-x * x / (2.0 * sigma * sigma)) + halo_level * exp(-fabs(x) * decay);
        p[k + half] = w;
        sum += w;
    }
    for (size_t i = 0; i < n; ++i)
        h[i] = v[i] = (float)(p[i] / sum);
    free(p);
    out->half_u = out->half_v = half;
    out->step_deg = step_deg;
    out->h = h;
    out->v = v;
    return LSIM_OK;
}

/* ---- file reader ---- */

typedef struct dvec {
    double *a;
    size_t n, cap;
} dvec;

static int dvec_push(dvec *d, double x)
{
    if (d->n == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 64;
        double *a = realloc(d->a, cap * sizeof *a);
        if (!a)
            return 0;
        d->a = a;
        d->cap = cap;
    }
    d->a[d->n++] = x;
    return 1;
}

typedef struct reader {
    lsim_context *ctx;
    const char *path;
    size_t line_no;
} reader;

/* Parse the numbers of `s` (blank/comma separated) into `out`; a status on failure. */
static lsim_status parse_numbers(const reader *r, char *s, const char *what, dvec *out, int weights)
{
    size_t first = out->n;
    for (;;) {
        while (*s == ' ' || *s == '\t' || *s == ',' || *s == '\r')
            ++s;
        if (!*s)
            break;
        char *tok = s;
        while (*s && *s != ' ' && *s != '\t' && *s != ',' && *s != '\r')
            ++s;
        char save = *s;
        *s = '\0';
        errno = 0;
        char *end = NULL;
        double x = strtod(tok, &end);
        int bad = end == tok || *end != '\0';
        /* the value's place, not its text: a kernel file named in a scene may be any file */
        if (bad)
            return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: %s: value %zu is not a number", r->path, r->line_no, what,
                             out->n - first + 1);
        if (!isfinite(x) || (errno == ERANGE && fabs(x) > 1.0))
            return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: %s: value %zu is not finite", r->path, r->line_no, what,
                             out->n - first + 1);
        if (weights && x < 0.0)
            return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: %s: negative weight %g (weights must be >= 0)", r->path,
                             r->line_no, what, x);
        if (out->n - first >= 2 * (size_t)KERNEL_MAX_HALF + 1)
            return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: %s: more than %d values", r->path, r->line_no, what,
                             2 * KERNEL_MAX_HALF + 1);
        if (!dvec_push(out, x))
            return lsim_fail(r->ctx, LSIM_ERR_OUT_OF_MEMORY, "%s:%zu: out of memory", r->path, r->line_no);
        *s = save;
    }
    if (out->n == first)
        return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: %s: no values", r->path, r->line_no, what);
    return LSIM_OK;
}

/* Check one profile: odd size, at least one positive weight. */
static lsim_status check_profile(const reader *r, size_t line, const char *what, const double *w, size_t n)
{
    if (n % 2 == 0)
        return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: %s has %zu values; the kernel needs an odd size (centred)",
                         r->path, line, what, n);
    double sum = 0.0;
    for (size_t i = 0; i < n; ++i)
        sum += w[i];
    if (!(sum > 0.0) || !isfinite(sum))
        return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: %s needs at least one positive weight (and a finite sum)",
                         r->path, line, what);
    return LSIM_OK;
}

static float *to_floats(const double *w, size_t n, double scale)
{
    float *f = malloc(n * sizeof *f);
    if (f)
        for (size_t i = 0; i < n; ++i)
            f[i] = (float)(w[i] * scale);
    return f;
}


static lsim_status read_file(reader *r, FILE *f, lsim_kernel *out)
{
    char *line = NULL;
    size_t line_cap = 0;
    dvec h = {0}, v = {0}, grid = {0}, tmp = {0};
    size_t h_line = 0, v_line = 0, step_line = 0, sep_line = 0, first_row_line = 0, last_row_line = 0;
    size_t rows = 0, cols = 0;
    double step = 0.0;
    lsim_status st = LSIM_OK;
    for (;;) {
        errno = 0;
        ssize_t len = getline(&line, &line_cap, f);
        if (len < 0) {
            if (ferror(f) || errno == ENOMEM)
                st = lsim_fail(r->ctx, errno == ENOMEM ? LSIM_ERR_OUT_OF_MEMORY : LSIM_ERR_IO,
                               "%s:%zu: read error: %s", r->path, r->line_no + 1, strerror(errno ? errno : EIO));
            break;
        }
        ++r->line_no;
        if (strlen(line) != (size_t)len) {
            st = lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: NUL byte in a text file (is this a kernel file?)",
                           r->path, r->line_no);
            break;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *s = lsim_trim(line);
        if (!*s)
            continue;
        if (strcmp(s, "separable") == 0) {
            if (rows) {
                st = lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: 'separable' after array rows (line %zu)", r->path,
                               r->line_no, first_row_line);
                break;
            }
            sep_line = r->line_no;
            continue;
        }
        char *colon = strchr(s, ':');
        if (colon) {
            *colon = '\0';
            char *key = lsim_trim(s), *value = colon + 1;
            if (strcmp(key, "step_deg") == 0) {
                if (step_line) {
                    st = lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: step_deg given twice (first on line %zu)",
                                   r->path, r->line_no, step_line);
                    break;
                }
                tmp.n = 0;
                if ((st = parse_numbers(r, value, "step_deg", &tmp, 0)) != LSIM_OK)
                    break;
                if (tmp.n != 1 || !(tmp.a[0] > 0.0)) {
                    st = lsim_fail(r->ctx, LSIM_ERR_PARSE,
                                   "%s:%zu: step_deg needs one positive angle (degrees per kernel sample)", r->path,
                                   r->line_no);
                    break;
                }
                if (!(tmp.a[0] >= KERNEL_MIN_STEP_DEG && tmp.a[0] <= KERNEL_MAX_STEP_DEG)) {
                    st = lsim_fail(r->ctx, LSIM_ERR_PARSE,
                                   "%s:%zu: step_deg %g is out of range; valid: 1e-05 to 10 degrees per kernel sample",
                                   r->path, r->line_no, tmp.a[0]);
                    break;
                }
                step = tmp.a[0];
                step_line = r->line_no;
            } else if (strcmp(key, "h") == 0 || strcmp(key, "v") == 0) {
                int is_h = key[0] == 'h';
                size_t *where = is_h ? &h_line : &v_line;
                if (*where) {
                    st = lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: '%s:' given twice (first on line %zu)", r->path,
                                   r->line_no, key, *where);
                    break;
                }
                if (rows) {
                    st = lsim_fail(r->ctx, LSIM_ERR_PARSE,
                                   "%s:%zu: '%s:' profile mixed with 2-D array rows (line %zu); use one form",
                                   r->path, r->line_no, key, first_row_line);
                    break;
                }
                if ((st = parse_numbers(r, value, is_h ? "h" : "v", is_h ? &h : &v, 1)) != LSIM_OK)
                    break;
                *where = r->line_no;
            } else {
                st = lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: unknown key (the text before ':'); valid: step_deg, "
                               "h, v", r->path, r->line_no);
                break;
            }
            continue;
        }
        /* a row of the 2-D array */
        if (h_line || v_line || sep_line) {
            st = lsim_fail(r->ctx, LSIM_ERR_PARSE,
                           "%s:%zu: array row in a separable kernel (expected 'h:', 'v:' or 'step_deg:')", r->path,
                           r->line_no);
            break;
        }
        size_t before = grid.n;
        if ((st = parse_numbers(r, s, "array row", &grid, 1)) != LSIM_OK)
            break;
        size_t n = grid.n - before;
        if (grid.n > KERNEL_MAX_ARRAY_VALUES) {
            st = lsim_fail(r->ctx, LSIM_ERR_PARSE,
                           "%s:%zu: the 2-D array has more than %zu weights (2048 x 2048), the most a kernel array may "
                           "have; give a larger kernel in the separable form ('h:' and 'v:' profiles, up to %d "
                           "values each)", r->path, r->line_no, KERNEL_MAX_ARRAY_VALUES, 2 * KERNEL_MAX_HALF + 1);
            break;
        }
        if (rows == 0) {
            cols = n;
            first_row_line = r->line_no;
        } else if (n != cols) {
            st = lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: array row has %zu values, the first row (line %zu) has %zu",
                           r->path, r->line_no, n, first_row_line, cols);
            break;
        }
        if (++rows > 2 * (size_t)KERNEL_MAX_HALF + 1) {
            st = lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: more than %d array rows", r->path, r->line_no,
                           2 * KERNEL_MAX_HALF + 1);
            break;
        }
        last_row_line = r->line_no;
    }
    const size_t end_line = r->line_no + 1;
    if (st == LSIM_OK && !step_line)
        st = lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: end of file without 'step_deg: <degrees per sample>'", r->path,
                       end_line);
    if (st == LSIM_OK) {
        if (h_line || v_line || sep_line) {
            if (!h_line || !v_line)
                st = lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: end of file without the '%s:' profile", r->path,
                               end_line, h_line ? "v" : "h");
            else if ((st = check_profile(r, h_line, "h", h.a, h.n)) == LSIM_OK &&
                     (st = check_profile(r, v_line, "v", v.a, v.n)) == LSIM_OK) {
                out->h = to_floats(h.a, h.n, 1.0);
                out->v = to_floats(v.a, v.n, 1.0);
                out->half_u = (int)(h.n / 2);
                out->half_v = (int)(v.n / 2);
            }
        } else if (!rows) {
            st = lsim_fail(r->ctx, LSIM_ERR_PARSE,
                           "%s:%zu: no kernel weights: expected 'h:' and 'v:' profiles or rows of a 2-D array",
                           r->path, end_line);
        } else if (cols % 2 == 0) {
            st = lsim_fail(r->ctx, LSIM_ERR_PARSE,
                           "%s:%zu: array rows have %zu values; the kernel needs an odd width (centred)", r->path,
                           first_row_line, cols);
        } else if (rows % 2 == 0) {
            st = lsim_fail(r->ctx, LSIM_ERR_PARSE,
                           "%s:%zu: the array has %zu rows; the kernel needs an odd height (centred)", r->path,
                           last_row_line, rows);
        } else {
            double *cs = calloc(cols, sizeof *cs), *rs = calloc(rows, sizeof *rs);
            if (!cs || !rs) {
                st = lsim_fail(r->ctx, LSIM_ERR_OUT_OF_MEMORY, "%s: out of memory", r->path);
            } else {
                double total = 0.0;
                for (size_t i = 0; i < rows; ++i)
                    for (size_t j = 0; j < cols; ++j) {
                        double w = grid.a[i * cols + j];
                        cs[j] += w;
                        rs[i] += w;
                        total += w;
                    }
                if (!(total > 0.0) || !isfinite(total)) {
                    st = lsim_fail(r->ctx, LSIM_ERR_PARSE,
                                   "%s:%zu: the array needs at least one positive weight (and a finite sum)", r->path,
                                   first_row_line);
                } else {
                    double scale = 1.0 / sqrt(total);
                    out->h = to_floats(cs, cols, scale);
                    out->v = to_floats(rs, rows, scale);
                    out->half_u = (int)(cols / 2);
                    out->half_v = (int)(rows / 2);
                }
            }
            free(cs);
            free(rs);
        }
        if (st == LSIM_OK && (!out->h || !out->v))
            st = lsim_fail(r->ctx, LSIM_ERR_OUT_OF_MEMORY, "%s: out of memory", r->path);
        out->step_deg = step;
        int half = out->half_u > out->half_v ? out->half_u : out->half_v;
        if (st == LSIM_OK && !(half * step <= KERNEL_MAX_EXTENT_DEG))
            st = lsim_fail(r->ctx, LSIM_ERR_PARSE,
                           "%s:%zu: the kernel reaches %g degrees from its centre (%d samples x step_deg %g), more "
                           "than %g; use a smaller step_deg or fewer samples", r->path, step_line, half * step, half,
                           step, KERNEL_MAX_EXTENT_DEG);
    }
    free(line);
    free(h.a);
    free(v.a);
    free(grid.a);
    free(tmp.a);
    return st;
}

lsim_status lsim_kernel_read(lsim_context *ctx, const char *path, lsim_kernel *out)
{
    if (!out)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "kernel: output is NULL");
    memset(out, 0, sizeof *out);
    if (!path)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "kernel: path is NULL");
    FILE *f = NULL;
    lsim_status open_st = lsim_file_open(ctx, path, LSIM_INPUT_KERNEL, &f, NULL);
    if (open_st != LSIM_OK)
        return open_st;
    reader r = {ctx, path, 0};
    lsim_status st = read_file(&r, f, out);
    fclose(f);
    if (st != LSIM_OK)
        lsim_kernel_free(out);
    return st;
}
