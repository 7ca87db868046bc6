/* The cw paper's experiments as a benchmark (issue 11, README "Fitting"): iterations, scans, wall
 * time and final error of lidarsim's fit on the scenes of examples/cw/, the "real" scans lidarsim's
 * own with noise. With a baselines folder it also writes, for experiments 1 and 2, what a
 * point-cloud registration needs (the paper's baselines, PCL's ICP, GICP and NDT, run by
 * bench/pcl_compare.py): the scan simulated at the starting pose (noise off) and the real scan,
 * both in the sensor frame, and the true and starting poses. */
#ifndef LSIM_BENCH_FIT_H
#define LSIM_BENCH_FIT_H

#include <stddef.h>

typedef struct lsim_bench_fit_case {
    const char *name;
    int scans_in_sequence;    /* 1, or the tracking sequence's length (experiment 3) */
    int iterations;           /* L-BFGS iterations (the most of a sequence) */
    int evaluations;          /* simulated scans (the sum over a sequence) */
    double best_ms;           /* wall time of the fit (a sequence: all its fits), best of the repeats */
    double error_mm, error_deg; /* final pose error (a sequence: its worst) */
    size_t beams_used, bounced_beams, silhouette_beams, unmatched_beams; /* at the end (the last scan) */
} lsim_bench_fit_case;

#define LSIM_BENCH_FIT_CASES 3

/* Run experiments 1 (room.yaml), 2 (mirror_room.yaml) and 3 (mirror_pillar.yaml) from
 * `scene_dir`, `repeat` times each. 0 on success; otherwise `error` says why. */
int lsim_bench_fit_run(const char *scene_dir, int repeat, const char *baselines_dir,
                       lsim_bench_fit_case out[LSIM_BENCH_FIT_CASES], char *error, size_t error_size);

#endif
