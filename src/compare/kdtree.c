/* Static 3-D k-d tree: median splits by quickselect on the widest axis; iterative-depth queries. */
#include "compare/kdtree.h"

#include <stdint.h>
#include <math.h>
#include <stdlib.h>

static double coord(const lsim_kdtree *t, size_t i, int axis) { return t->xyz[3 * t->order[i] + axis]; }

static void swap_idx(size_t *a, size_t *b)
{
    const size_t s = *a;
    *a = *b;
    *b = s;
}

/* Put the element of rank k of order[lo, hi) by `axis` at position k, smaller ones before it and
 * larger ones after. Three-way partitions, so that many equal coordinates (a file of one point
 * repeated) cost O(n), not O(n^2). */
static void select_kth(lsim_kdtree *t, size_t lo, size_t hi, size_t k, int axis)
{
    while (hi - lo > 1) {
        const double pivot = coord(t, lo + (hi - lo) / 2, axis);
        size_t lt = lo, i = lo, gt = hi; /* [lo, lt) < pivot, [lt, i) == pivot, [gt, hi) > pivot */
        while (i < gt) {
            const double v = coord(t, i, axis);
            if (v < pivot)
                swap_idx(&t->order[lt++], &t->order[i++]);
            else if (v > pivot)
                swap_idx(&t->order[i], &t->order[--gt]);
            else
                ++i;
        }
        if (k < lt)
            hi = lt;
        else if (k >= gt)
            lo = gt;
        else
            return;
    }
}

static void build(lsim_kdtree *t, size_t lo, size_t hi)
{
    /* explicit recursion depth is log2(n): ranges halve */
    if (hi - lo < 1)
        return;
    double mn[3] = {INFINITY, INFINITY, INFINITY}, mx[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = lo; i < hi; ++i)
        for (int a = 0; a < 3; ++a) {
            const double v = coord(t, i, a);
            mn[a] = v < mn[a] ? v : mn[a];
            mx[a] = v > mx[a] ? v : mx[a];
        }
    int axis = 0;
    for (int a = 1; a < 3; ++a)
        if (mx[a] - mn[a] > mx[axis] - mn[axis])
            axis = a;
    const size_t mid = lo + (hi - lo) / 2;
    select_kth(t, lo, hi, mid, axis);
    t->axis[mid] = (unsigned char)axis;
    build(t, lo, mid);
    build(t, mid + 1, hi);
}

int lsim_kdtree_build(lsim_kdtree *t, const double *xyz, size_t n)
{
    t->xyz = xyz;
    t->n = 0;
    t->order = malloc((n ? n : 1) * sizeof *t->order);
    t->axis = malloc(n ? n : 1);
    if (!t->order || !t->axis) {
        lsim_kdtree_free(t);
        return -1;
    }
    for (size_t i = 0; i < n; ++i)
        t->order[i] = i;
    t->n = n;
    build(t, 0, n);
    return 0;
}

void lsim_kdtree_free(lsim_kdtree *t)
{
    free(t->order);
    free(t->axis);
    t->order = NULL;
    t->axis = NULL;
    t->n = 0;
}

typedef struct query {
    const lsim_kdtree *t;
    const double *q;
    size_t skip, best;
    double best_d2;
} query;

static void search(query *s, size_t lo, size_t hi)
{
    while (hi > lo) {
        const lsim_kdtree *t = s->t;
        const size_t mid = lo + (hi - lo) / 2, p = t->order[mid];
        const double *x = t->xyz + 3 * p;
        const double dx = x[0] - s->q[0], dy = x[1] - s->q[1], dz = x[2] - s->q[2];
        const double d2 = dx * dx + dy * dy + dz * dz;
        if (p != s->skip && (d2 < s->best_d2 || (s->best == SIZE_MAX && d2 <= s->best_d2))) {
            s->best_d2 = d2;
            s->best = p;
        }
        const int axis = t->axis[mid];
        const double diff = s->q[axis] - x[axis];
        size_t near_lo = lo, near_hi = mid, far_lo = mid + 1, far_hi = hi;
        if (diff >= 0) {
            near_lo = mid + 1;
            near_hi = hi;
            far_lo = lo;
            far_hi = mid;
        }
        search(s, near_lo, near_hi);
        /* the far side is no nearer than the splitting plane: once a point is found, one as near
         * as it cannot replace it (so equal points cost O(log n), not O(n)) */
        if (diff * diff > s->best_d2 || (s->best != SIZE_MAX && diff * diff >= s->best_d2))
            return;
        lo = far_lo; /* the far side: loop rather than recurse */
        hi = far_hi;
    }
}

size_t lsim_kdtree_nearest(const lsim_kdtree *t, const double q[3], size_t skip, double max_d2, double *d2)
{
    query s = {t, q, skip, SIZE_MAX, max_d2};
    search(&s, 0, t->n);
    if (d2)
        *d2 = s.best_d2;
    return s.best;
}
