/* lidarsim compare: per-beam agreement of two frames of one sensor (docs/compare.md).
 *
 * A tool above the pipeline (rank 9, tests/test_layering.py): it reads point sets through the
 * public API (include/lidarsim.h) and writes its report with output's output set and pictures' canvas and plots.
 * Files: compare.c (beam matching and statistics), compare_stats.c (error statistics, Chamfer),
 * compare_report.c (summary.json, errors.png), compare_image.c (range_images.png), kdtree.c (nearest neighbours). */
#ifndef LSIM_COMPARE_COMPARE_H
#define LSIM_COMPARE_COMPARE_H

#include "lidarsim.h"

#include <stddef.h>

/* The matched beams, structure of arrays; NaN range: no return on that side. */
typedef struct lsim_compare_beams {
    size_t n;
    int *ring, *column;      /* -1 when unknown */
    signed char *band;       /* range band, -1 when neither returned */
    double *real_r, *sim_r;  /* ranges, metres */
    double *d_intensity, *d_reflectivity; /* sim - real where both hit and hold it, else NaN */
} lsim_compare_beams;

struct lsim_compare {
    lsim_context *ctx;
    lsim_compare_match match;
    int rings, columns;
    double tolerance_deg;
    uint64_t both_miss_unlisted; /* beams in neither file (by beam): counted as both-miss, not listed */
    lsim_compare_beams beams;
    lsim_compare_stats all, band[LSIM_COMPARE_BANDS];
    lsim_compare_stats *ring; /* rings entries */
    int ring_count;           /* entries of ring */
};

/* The range band of a range (metres), 0..LSIM_COMPARE_BANDS-1. */
int lsim_compare_band_of(double range_m);
extern const double LSIM_COMPARE_BAND_EDGES[LSIM_COMPARE_BANDS + 1];

/* Statistics of the beams for which keep(group) holds: group is ring (RING) or band (BAND) value
 * to match, or all (ALL). scratch holds n doubles. extra_both_miss added to both_miss. */
void lsim_compare_group_stats(const lsim_compare_beams *b, lsim_compare_group group, int index, double *scratch,
                              uint64_t extra_both_miss, lsim_compare_stats *out);
/* range_images.png (compare_image.c): real, sim and sim - real ranges by ring and column; by beam only. */
lsim_status lsim_compare_write_image(const lsim_compare *c, const char *path);
/* Symmetric Chamfer distance of two point sets (n x 3 doubles each): half the sum of the mean
 * nearest-neighbour distances both ways; NaN when either is empty; -1 when out of memory. */
int lsim_compare_chamfer(const double *a, size_t na, const double *b, size_t nb, double *out);

#endif
