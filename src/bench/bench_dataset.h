/* `lidarsim bench dataset`: frames per second of whole `lidarsim dataset` runs and the scale-out
 * efficiency of 2 MPI ranks and of 2 shards (bench_dataset.c). */
#ifndef LSIM_BENCH_DATASET_H
#define LSIM_BENCH_DATASET_H

#include <stddef.h>

typedef struct lsim_bench_dataset_result {
    long frames;
    double serial1_s;  /* one process, 1 thread, pinned to 1 core */
    double serial2_s;  /* one process, 2 threads */
    double shards2_s;  /* --shard 0/2 and 1/2 at once, 1 thread each */
    double mpi2_s;     /* mpirun -n 2, 1 thread a rank (0: not run) */
    int mpi;
} lsim_bench_dataset_result;

/* Time `self dataset config --frames N` in each way, best of `repeat`; with_mpi: also mpirun -n 2.
 * 0 on success; otherwise `error` says which run failed. */
int lsim_bench_dataset_run(const char *self, const char *config, long frames, int repeat, int with_mpi,
                           lsim_bench_dataset_result *out, char *error, size_t error_size);

#endif
