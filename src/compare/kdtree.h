/* A static 3-D k-d tree for nearest-neighbour queries (Chamfer distance, beam matching by
 * direction): built once over a point array (the caller's, not copied), O(n log n) queries in all. */
#ifndef LSIM_COMPARE_KDTREE_H
#define LSIM_COMPARE_KDTREE_H

#include <stddef.h>

typedef struct lsim_kdtree {
    const double *xyz; /* n x 3, the caller's */
    size_t n;
    size_t *order;     /* point indices in tree order: the median of each range is its node */
    unsigned char *axis; /* split axis of the node at each position */
} lsim_kdtree;

/* 0 on success, -1 when out of memory (tree left empty). n may be 0. */
int lsim_kdtree_build(lsim_kdtree *tree, const double *xyz, size_t n);
void lsim_kdtree_free(lsim_kdtree *tree);
/* The index of the point nearest q other than `skip` (SIZE_MAX: none skipped) within sqrt(max_d2),
 * or SIZE_MAX when there is none; *d2 its squared distance. */
size_t lsim_kdtree_nearest(const lsim_kdtree *tree, const double q[3], size_t skip, double max_d2, double *d2);

#endif
