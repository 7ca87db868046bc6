/* lsim_compare_points: match the beams of two frames (by ring and column, or by direction) and
 * compute their agreement (compare.h). */
#include "compare/compare.h"
#include "compare/kdtree.h"
#include "core/context.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846
#define MAX_CELLS (1u << 26) /* rings x columns of a beam grid (64 M beams) */

/* One frame's columns, as read (floats, NULL when absent). */
typedef struct side {
    const char *name;
    size_t n;
    const float *x, *y, *z, *range, *intensity, *refl, *az, *el, *time;
    const uint16_t *ring, *ret;
} side;

static void side_of(const lsim_points *p, const char *name, side *s)
{
    s->name = name;
    s->n = lsim_points_count(p);
    s->x = lsim_points_column(p, LSIM_FIELD_X);
    s->y = lsim_points_column(p, LSIM_FIELD_Y);
    s->z = lsim_points_column(p, LSIM_FIELD_Z);
    s->range = lsim_points_column(p, LSIM_FIELD_RANGE);
    s->intensity = lsim_points_column(p, LSIM_FIELD_INTENSITY);
    s->refl = lsim_points_column(p, LSIM_FIELD_REFLECTIVITY);
    s->az = lsim_points_column(p, LSIM_FIELD_AZIMUTH);
    s->el = lsim_points_column(p, LSIM_FIELD_ELEVATION);
    s->time = lsim_points_column(p, LSIM_FIELD_TIME);
    s->ring = lsim_points_column(p, LSIM_FIELD_RING);
    s->ret = lsim_points_column(p, LSIM_FIELD_RETURN_INDEX);
}

/* The range of point i, NaN when the beam did not return. */
static double range_of(const side *s, size_t i)
{
    double r;
    if (s->range)
        r = s->range[i];
    else
        r = sqrt((double)s->x[i] * s->x[i] + (double)s->y[i] * s->y[i] + (double)s->z[i] * s->z[i]);
    return isfinite(r) && r > 0.0 && isfinite(s->x[i]) ? r : NAN;
}

void lsim_compare_options_init(lsim_compare_options *o)
{
    if (o) {
        memset(o, 0, sizeof *o);
        o->match = LSIM_COMPARE_MATCH_AUTO;
    }
}

static int beams_alloc(lsim_compare_beams *b, size_t n)
{
    const size_t m = n ? n : 1;
    b->n = n;
    b->ring = malloc(m * sizeof *b->ring);
    b->column = malloc(m * sizeof *b->column);
    b->band = malloc(m);
    b->real_r = malloc(m * sizeof(double));
    b->sim_r = malloc(m * sizeof(double));
    b->d_intensity = malloc(m * sizeof(double));
    b->d_reflectivity = malloc(m * sizeof(double));
    return b->ring && b->column && b->band && b->real_r && b->sim_r && b->d_intensity && b->d_reflectivity ? 0 : -1;
}

static void beams_free(lsim_compare_beams *b)
{
    free(b->ring);
    free(b->column);
    free(b->band);
    free(b->real_r);
    free(b->sim_r);
    free(b->d_intensity);
    free(b->d_reflectivity);
    memset(b, 0, sizeof *b);
}

/* Fill beam k from real point i and sim point j (SIZE_MAX: none on that side). */
static void set_beam(lsim_compare_beams *b, size_t k, const side *r, size_t i, const side *s, size_t j, int ring,
                     int column)
{
    b->ring[k] = ring;
    b->column[k] = column;
    b->real_r[k] = i == SIZE_MAX ? NAN : range_of(r, i);
    b->sim_r[k] = j == SIZE_MAX ? NAN : range_of(s, j);
    const double rr = b->real_r[k], sr = b->sim_r[k];
    b->band[k] = (signed char)(!isnan(rr) ? lsim_compare_band_of(rr) : !isnan(sr) ? lsim_compare_band_of(sr) : -1);
    const int both = !isnan(rr) && !isnan(sr);
    b->d_intensity[k] = both && r->intensity && s->intensity ? (double)s->intensity[j] - r->intensity[i] : NAN;
    b->d_reflectivity[k] = both && r->refl && s->refl ? (double)s->refl[j] - r->refl[i] : NAN;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median step of v (azimuth or time) between successive distinct values of a ring; 0 when
 * there is none. keys: scratch of n doubles. */
static double median_step(const side *s, const float *v, double *keys, double *steps)
{
    /* sort by ring, then value: key = ring * span + value, with span above any value range */
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < s->n; ++i)
        if (isfinite(v[i])) {
            lo = v[i] < lo ? v[i] : lo;
            hi = v[i] > hi ? v[i] : hi;
        }
    if (!(hi >= lo))
        return 0.0;
    const double span = (hi - lo) * 2.0 + 1.0;
    size_t m = 0;
    for (size_t i = 0; i < s->n; ++i)
        if (isfinite(v[i]))
            keys[m++] = s->ring[i] * span + (v[i] - lo);
    qsort(keys, m, sizeof *keys, cmp_double);
    size_t k = 0;
    for (size_t i = 1; i < m; ++i) {
        const double d = keys[i] - keys[i - 1];
        if (d > 1e-6 * (hi - lo + 1e-9) && d < span * 0.5)
            steps[k++] = d;
    }
    if (!k)
        return 0.0;
    qsort(steps, k, sizeof *steps, cmp_double);
    return steps[k / 2];
}

/* Match by (ring, column). */
static lsim_status match_beams(lsim_compare *c, const side *r, const side *s, const lsim_compare_options *o)
{
    lsim_context *ctx = c->ctx;
    const int use_az = r->az && s->az;
    const float *rv = use_az ? r->az : r->time, *sv = use_az ? s->az : s->time;
    int rings = 0, rr = 0, sr = 0;
    for (size_t i = 0; i < r->n; ++i)
        rr = r->ring[i] + 1 > rr ? r->ring[i] + 1 : rr;
    for (size_t i = 0; i < s->n; ++i)
        sr = s->ring[i] + 1 > sr ? s->ring[i] + 1 : sr;
    if (o->rings) {
        if (rr > o->rings || sr > o->rings)
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "compare: the %s frame has ring %d, beyond the %d rings given (rings); give the "
                             "sensor's ring count, or compare frames of one sensor",
                             rr > o->rings ? r->name : s->name, (rr > o->rings ? rr : sr) - 1, o->rings);
        rings = o->rings;
    } else if (rr != sr) {
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "compare: the %s frame has %d rings (0..%d), the %s frame %d: frames of different sensors "
                         "(or a ring without a single return: give the ring count with --rings)",
                         r->name, rr, rr - 1, s->name, sr);
    } else {
        rings = rr;
    }
    const size_t nmax = r->n > s->n ? r->n : s->n;
    double *keys = malloc((nmax ? nmax : 1) * sizeof *keys), *steps = malloc((nmax ? nmax : 1) * sizeof *steps);
    if (!keys || !steps) {
        free(keys);
        free(steps);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "compare: out of memory (%zu points)", nmax);
    }
    const double step_r = median_step(r, rv, keys, steps), step_s = median_step(s, sv, keys, steps);
    free(keys);
    free(steps);
    double step = step_r;
    int columns = o->columns;
    if (use_az) {
        const long nr = step_r > 0 ? lround(360.0 / step_r) : 0, ns = step_s > 0 ? lround(360.0 / step_s) : 0;
        if (!columns) {
            if (nr != ns || nr < 1)
                return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                                 "compare: the %s frame's azimuth step gives %ld columns, the %s frame's %ld: frames "
                                 "of different sensors (or too few returns to tell: give --columns)",
                                 r->name, nr, s->name, ns);
            columns = (int)nr;
        }
        step = 360.0 / columns;
    } else if (!(step_r > 0) || !(step_s > 0) || fabs(step_r / step_s - 1.0) > 0.02) {
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "compare: the %s frame's firing interval is %g s, the %s frame's %g s: frames of different "
                         "sensors (or too few returns to tell)", r->name, step_r, s->name, step_s);
    }
    /* each ring's phase: the circular mean of value / step over both frames' points */
    double *ph = calloc((size_t)rings * 2, sizeof *ph);
    if (!ph)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "compare: out of memory (%d rings)", rings);
    const side *sd[2] = {r, s};
    const float *vv[2] = {rv, sv};
    for (int k = 0; k < 2; ++k)
        for (size_t i = 0; i < sd[k]->n; ++i)
            if (isfinite(vv[k][i])) {
                const double a = 2.0 * PI * (vv[k][i] / step);
                ph[2 * sd[k]->ring[i]] += cos(a);
                ph[2 * sd[k]->ring[i] + 1] += sin(a);
            }
    for (int g = 0; g < rings; ++g)
        ph[2 * g] = atan2(ph[2 * g + 1], ph[2 * g]) / (2.0 * PI);
    /* columns by time: the largest column + 1 */
    if (!use_az && !columns)
        for (int k = 0; k < 2; ++k)
            for (size_t i = 0; i < sd[k]->n; ++i)
                if (isfinite(vv[k][i])) {
                    const double cf = floor(vv[k][i] / step - ph[2 * sd[k]->ring[i]] + 0.5);
                    if (cf + 1 > columns)
                        columns = cf + 1 > 1e9 ? 1000000000 : (int)(cf + 1);
                }
    if (columns < 1 || (uint64_t)rings * (uint64_t)columns > MAX_CELLS) {
        free(ph);
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "compare: %d rings x %d columns is not a beam grid compare can hold (1..%u beams); give "
                         "--columns", rings, columns, MAX_CELLS);
    }
    const size_t cells = (size_t)rings * (size_t)columns;
    size_t *cell[2] = {malloc(cells * sizeof(size_t)), malloc(cells * sizeof(size_t))};
    if (!cell[0] || !cell[1]) {
        free(cell[0]);
        free(cell[1]);
        free(ph);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "compare: out of memory (%zu beams)", cells);
    }
    for (int k = 0; k < 2; ++k) {
        for (size_t q = 0; q < cells; ++q)
            cell[k][q] = SIZE_MAX;
        size_t shared = 0, points = 0;
        for (size_t i = 0; i < sd[k]->n; ++i) {
            if (!isfinite(vv[k][i]) || (sd[k]->ret && sd[k]->ret[i] != 0))
                continue; /* later echoes: the first stands for the beam */
            const int g = sd[k]->ring[i];
            double cf = floor(vv[k][i] / step - ph[2 * g] + 0.5);
            if (use_az)
                cf -= columns * floor(cf / columns);
            if (cf < 0 || cf >= columns)
                continue; /* a fixed --columns that a time does not fit */
            const size_t q = (size_t)g * (size_t)columns + (size_t)cf;
            ++points;
            if (cell[k][q] == SIZE_MAX)
                cell[k][q] = i;
            else
                ++shared;
        }
        if (shared * 100 > points) {
            const int cols = columns;
            free(cell[0]);
            free(cell[1]);
            free(ph);
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "compare: %zu of the %s frame's %zu first echoes share a beam with another at %d "
                             "columns: the beams do not match this grid (give the sensor's --columns, or "
                             "--match direction)", shared, sd[k]->name, points, cols);
        }
    }
    free(ph);
    size_t n = 0;
    for (size_t q = 0; q < cells; ++q)
        n += cell[0][q] != SIZE_MAX || cell[1][q] != SIZE_MAX;
    if (beams_alloc(&c->beams, n)) {
        free(cell[0]);
        free(cell[1]);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "compare: out of memory (%zu beams)", n);
    }
    size_t k = 0;
    for (size_t q = 0; q < cells; ++q)
        if (cell[0][q] != SIZE_MAX || cell[1][q] != SIZE_MAX)
            set_beam(&c->beams, k++, r, cell[0][q], s, cell[1][q], (int)(q / (size_t)columns),
                     (int)(q % (size_t)columns));
    free(cell[0]);
    free(cell[1]);
    c->match = LSIM_COMPARE_MATCH_BEAM;
    c->rings = c->ring_count = rings;
    c->columns = columns;
    c->both_miss_unlisted = cells - n;
    return LSIM_OK;
}

/* Unit directions of a frame's hits into dir (n x 3); idx[k] the point of direction k. */
static size_t directions(const side *s, double *dir, size_t *idx)
{
    size_t m = 0;
    for (size_t i = 0; i < s->n; ++i) {
        if (isnan(range_of(s, i)) || (s->ret && s->ret[i] != 0))
            continue;
        double v[3];
        if (s->az && s->el && isfinite(s->az[i]) && isfinite(s->el[i])) {
            const double a = s->az[i] * PI / 180.0, e = s->el[i] * PI / 180.0;
            v[0] = cos(e) * cos(a);
            v[1] = cos(e) * sin(a);
            v[2] = sin(e);
        } else {
            const double r = sqrt((double)s->x[i] * s->x[i] + (double)s->y[i] * s->y[i] + (double)s->z[i] * s->z[i]);
            v[0] = s->x[i] / r;
            v[1] = s->y[i] / r;
            v[2] = s->z[i] / r;
        }
        memcpy(dir + 3 * m, v, sizeof v);
        idx[m++] = i;
    }
    return m;
}

/* Match by direction: mutual nearest within half the real frame's median angular step. */
static lsim_status match_directions(lsim_compare *c, const side *r, const side *s)
{
    lsim_context *ctx = c->ctx;
    double *dr = malloc((r->n ? r->n : 1) * 3 * sizeof *dr), *ds = malloc((s->n ? s->n : 1) * 3 * sizeof *ds);
    size_t *ir = malloc((r->n ? r->n : 1) * sizeof *ir), *is = malloc((s->n ? s->n : 1) * sizeof *is);
    size_t *pair = malloc((r->n ? r->n : 1) * sizeof *pair);
    unsigned char *taken = calloc(s->n ? s->n : 1, 1);
    double *steps = malloc((r->n ? r->n : 1) * sizeof *steps);
    lsim_kdtree tr = {0}, ts = {0};
    lsim_status st = LSIM_OK;
    if (!dr || !ds || !ir || !is || !pair || !taken || !steps) {
        st = lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "compare: out of memory (%zu + %zu points)", r->n, s->n);
        goto done;
    }
    const size_t nr = directions(r, dr, ir), ns = directions(s, ds, is);
    if (nr < 2 || ns < 1) {
        st = lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                       "compare: the %s frame has %zu returns: too few to match beams by direction",
                       nr < 2 ? r->name : s->name, nr < 2 ? nr : ns);
        goto done;
    }
    if (lsim_kdtree_build(&tr, dr, nr) || lsim_kdtree_build(&ts, ds, ns)) {
        st = lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "compare: out of memory (direction trees)");
        goto done;
    }
    size_t m = 0;
    for (size_t k = 0; k < nr; ++k) {
        double d2;
        if (lsim_kdtree_nearest(&tr, dr + 3 * k, k, INFINITY, &d2) != SIZE_MAX && d2 > 1e-18)
            steps[m++] = sqrt(d2);
    }
    if (!m) {
        st = lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "compare: the %s frame's returns all share one direction",
                       r->name);
        goto done;
    }
    qsort(steps, m, sizeof *steps, cmp_double);
    const double tol = 0.5 * steps[m / 2], tol2 = tol * tol; /* chord ~ angle, radians */
    size_t matched = 0;
    for (size_t k = 0; k < nr; ++k) {
        double d2;
        const size_t j = lsim_kdtree_nearest(&ts, dr + 3 * k, SIZE_MAX, tol2, &d2);
        pair[k] = SIZE_MAX;
        if (j != SIZE_MAX && lsim_kdtree_nearest(&tr, ds + 3 * j, SIZE_MAX, tol2, &d2) == k) {
            pair[k] = j;
            taken[j] = 1;
            ++matched;
        }
    }
    if (beams_alloc(&c->beams, nr + ns - matched)) {
        st = lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "compare: out of memory (%zu beams)", nr + ns - matched);
        goto done;
    }
    size_t b = 0;
    int rings = 0;
    for (size_t k = 0; k < nr; ++k) {
        const int ring = r->ring ? r->ring[ir[k]] : -1;
        rings = ring + 1 > rings ? ring + 1 : rings;
        set_beam(&c->beams, b++, r, ir[k], s, pair[k] == SIZE_MAX ? SIZE_MAX : is[pair[k]], ring, -1);
    }
    for (size_t j = 0; j < ns; ++j)
        if (!taken[j]) {
            const int ring = r->ring && s->ring ? s->ring[is[j]] : -1;
            rings = ring + 1 > rings ? ring + 1 : rings;
            set_beam(&c->beams, b++, r, SIZE_MAX, s, is[j], ring, -1);
        }
    c->match = LSIM_COMPARE_MATCH_DIRECTION;
    c->ring_count = rings;
    c->tolerance_deg = 2.0 * asin(0.5 * tol) * 180.0 / PI;
done:
    lsim_kdtree_free(&tr);
    lsim_kdtree_free(&ts);
    free(dr);
    free(ds);
    free(ir);
    free(is);
    free(pair);
    free(taken);
    free(steps);
    return st;
}

/* Hit points of a frame as doubles (n x 3) for the Chamfer distance. */
static double *hit_points(const side *s, size_t *n)
{
    double *p = malloc((s->n ? s->n : 1) * 3 * sizeof *p);
    size_t m = 0;
    for (size_t i = 0; p && i < s->n; ++i)
        if (!isnan(range_of(s, i)) && isfinite(s->y[i]) && isfinite(s->z[i])) {
            p[3 * m] = s->x[i];
            p[3 * m + 1] = s->y[i];
            p[3 * m + 2] = s->z[i];
            ++m;
        }
    *n = m;
    return p;
}

static lsim_status summarise(lsim_compare *c, const side *r, const side *s)
{
    double *scratch = malloc((c->beams.n ? c->beams.n : 1) * sizeof *scratch);
    c->ring = calloc(c->ring_count ? (size_t)c->ring_count : 1, sizeof *c->ring);
    size_t na, nb;
    double *pa = hit_points(r, &na), *pb = hit_points(s, &nb);
    lsim_status st = LSIM_OK;
    if (!scratch || !c->ring || !pa || !pb)
        st = lsim_fail(c->ctx, LSIM_ERR_OUT_OF_MEMORY, "compare: out of memory (%zu beams)", c->beams.n);
    if (st == LSIM_OK) {
        lsim_compare_group_stats(&c->beams, LSIM_COMPARE_ALL, 0, scratch, c->both_miss_unlisted, &c->all);
        for (int g = 0; g < c->ring_count; ++g)
            lsim_compare_group_stats(&c->beams, LSIM_COMPARE_RING, g, scratch, 0, &c->ring[g]);
        for (int g = 0; g < LSIM_COMPARE_BANDS; ++g)
            lsim_compare_group_stats(&c->beams, LSIM_COMPARE_BAND, g, scratch, 0, &c->band[g]);
        if (lsim_compare_chamfer(pa, na, pb, nb, &c->all.chamfer_m))
            st = lsim_fail(c->ctx, LSIM_ERR_OUT_OF_MEMORY, "compare: out of memory (Chamfer distance)");
    }
    free(scratch);
    free(pa);
    free(pb);
    return st;
}

lsim_status lsim_compare_points(lsim_context *ctx, const lsim_points *real, const lsim_points *sim,
                                const lsim_compare_options *options, lsim_compare **out)
{
    if (out)
        *out = NULL;
    if (!ctx || !real || !sim || !out)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_compare_points: NULL %s",
                         !ctx ? "context" : !real ? "real points" : !sim ? "sim points" : "out");
    lsim_compare_options o;
    lsim_compare_options_init(&o);
    if (options)
        o = *options;
    if ((int)o.match < 0 || o.match > LSIM_COMPARE_MATCH_DIRECTION || o.columns < 0 || o.columns > 10000000 ||
        o.rings < 0 || o.rings > 65536)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "lsim_compare_points: options out of range (match %d: 0..2, columns %d: 0..10000000, rings "
                         "%d: 0..65536)", (int)o.match, o.columns, o.rings);
    side r, s;
    side_of(real, "real", &r);
    side_of(sim, "sim", &s);
    if (!r.x || !r.y || !r.z || !s.x || !s.y || !s.z)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "compare: the %s points have no x, y, z",
                         !r.x || !r.y || !r.z ? "real" : "sim");
    const int by_beam = r.ring && s.ring && ((r.az && s.az) || (r.time && s.time));
    if (o.match == LSIM_COMPARE_MATCH_BEAM && !by_beam) {
        const side *w = !(r.ring && (r.az || r.time)) ? &r : &s;
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "compare: matching by beam needs ring and azimuth (or time) in both frames; the %s frame "
                         "has no %s (match by direction instead, or write the points with those fields)",
                         w->name, !w->ring ? "ring" : "azimuth or time");
    }
    lsim_compare *c = calloc(1, sizeof *c);
    if (!c)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "compare: out of memory");
    c->ctx = ctx;
    lsim_status st = o.match == LSIM_COMPARE_MATCH_DIRECTION || !by_beam ? match_directions(c, &r, &s)
                                                                        : match_beams(c, &r, &s, &o);
    if (st == LSIM_OK)
        st = summarise(c, &r, &s);
    if (st != LSIM_OK) {
        lsim_compare_destroy(c);
        return st;
    }
    *out = c;
    return LSIM_OK;
}

lsim_status lsim_compare_get_layout(const lsim_compare *c, lsim_compare_match *match, int *rings, int *columns,
                                    double *tolerance_deg)
{
    if (!c)
        return LSIM_ERR_INVALID_ARGUMENT;
    if (match)
        *match = c->match;
    if (rings)
        *rings = c->ring_count;
    if (columns)
        *columns = c->columns;
    if (tolerance_deg)
        *tolerance_deg = c->tolerance_deg;
    return LSIM_OK;
}

lsim_status lsim_compare_get_stats(const lsim_compare *c, lsim_compare_group group, int index,
                                   lsim_compare_stats *out)
{
    if (!c || !out)
        return lsim_fail(c ? c->ctx : NULL, LSIM_ERR_INVALID_ARGUMENT, "lsim_compare_get_stats: NULL %s",
                         !c ? "compare" : "out");
    const int n = group == LSIM_COMPARE_ALL ? 1 : group == LSIM_COMPARE_RING ? c->ring_count
                                                  : group == LSIM_COMPARE_BAND ? LSIM_COMPARE_BANDS : 0;
    if (index < 0 || index >= n)
        return lsim_fail(c->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "lsim_compare_get_stats: index %d out of range for group %d (0..%d)", index, (int)group, n - 1);
    *out = group == LSIM_COMPARE_ALL ? c->all : group == LSIM_COMPARE_RING ? c->ring[index] : c->band[index];
    return LSIM_OK;
}

void lsim_compare_destroy(lsim_compare *c)
{
    if (!c)
        return;
    beams_free(&c->beams);
    free(c->ring);
    free(c);
}
