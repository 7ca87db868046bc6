/* lidarsim bench dataset (bench_dataset.h): whole `lidarsim dataset` runs timed from outside, as a
 * user would time them (wall clock from spawn to exit, process start, config load and mesh import
 * included), each into a fresh temporary folder, best of --repeat:
 *   serial, 1 thread on 1 core (the process pinned to the first allowed CPU: Embree's BVH builds
 *   and OpenMP would otherwise borrow the second core); serial, 2 threads; two shards at once
 *   (--shard 0/2 and 1/2, 1 thread each); mpirun -n 2 (1 thread a rank; OpenMPI binds each rank
 *   to a core) when lidarsim is built with MPI and mpirun is on the PATH.
 * Scale-out efficiency at 2 = t(serial, 1 core) / (2 x t(2 ranks or 2 shards)). */
#define _GNU_SOURCE /* nftw, sched_setaffinity */
#include "bench/bench_dataset.h"

#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void remove_tree(const char *path)
{
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Spawn every argv of `jobs` at once, wait for all; the wall time, or a negative value if one
 * failed. one_core: the children run on the first CPU this process may use. */
static double run_jobs(char *const *jobs[], int count, int one_core)
{
    cpu_set_t saved, one;
    const int pin = one_core && sched_getaffinity(0, sizeof saved, &saved) == 0;
    if (pin) {
        CPU_ZERO(&one);
        for (int c = 0; c < CPU_SETSIZE; ++c)
            if (CPU_ISSET(c, &saved)) {
                CPU_SET(c, &one);
                break;
            }
        sched_setaffinity(0, sizeof one, &one); /* inherited by the children */
    }
    pid_t pid[4];
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    const double t0 = now_s();
    int ok = 1, started = 0;
    for (int i = 0; i < count; ++i) {
        if (posix_spawnp(&pid[i], jobs[i][0], &fa, NULL, jobs[i], environ) != 0) {
            ok = 0;
            break;
        }
        ++started;
    }
    for (int i = 0; i < started; ++i) {
        int status = 0;
        if (waitpid(pid[i], &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
            ok = 0;
    }
    posix_spawn_file_actions_destroy(&fa);
    const double t = now_s() - t0;
    if (pin)
        sched_setaffinity(0, sizeof saved, &saved);
    return ok ? t : -1.0;
}

int lsim_bench_dataset_run(const char *self, const char *config, long frames, int repeat, int with_mpi,
                           lsim_bench_dataset_result *out, char *error, size_t error_size)
{
    memset(out, 0, sizeof *out);
    out->frames = frames;
    char dir[] = "/tmp/lidarsim-bench-dataset-XXXXXX";
    if (!mkdtemp(dir)) {
        snprintf(error, error_size, "cannot create a temporary folder under /tmp");
        return -1;
    }
    char nf[32], a[4200], b[4200];
    snprintf(nf, sizeof nf, "%ld", frames);
    snprintf(a, sizeof a, "%s/a", dir);
    snprintf(b, sizeof b, "%s/b", dir);
    char *serial1[] = {(char *)self, "dataset", (char *)config, "-o", a, "--frames", nf, "--threads", "1", "--quiet", NULL};
    char *serial2[] = {(char *)self, "dataset", (char *)config, "-o", a, "--frames", nf, "--threads", "2", "--quiet", NULL};
    char *shard0[] = {(char *)self, "dataset", (char *)config, "-o", a, "--frames", nf, "--threads", "1", "--shard", "0/2", "--quiet", NULL};
    char *shard1[] = {(char *)self, "dataset", (char *)config, "-o", b, "--frames", nf, "--threads", "1", "--shard", "1/2", "--quiet", NULL};
    char *mpi[] = {"mpirun", "--oversubscribe", "-n", "2", (char *)self, "dataset", (char *)config, "-o", a,
                   "--frames", nf, "--threads", "1", "--quiet", NULL, NULL};
    if (geteuid() == 0) { /* OpenMPI refuses root without it */
        memmove(mpi + 2, mpi + 1, 13 * sizeof *mpi);
        mpi[1] = "--allow-run-as-root";
    }
    double *best[4] = {&out->serial1_s, &out->serial2_s, &out->shards2_s, &out->mpi2_s};
    for (int k = 0; k < 4; ++k)
        *best[k] = 1e300;
    out->mpi = with_mpi;
    int rc = 0;
    for (int r = 0; r < repeat && rc == 0; ++r) {
        for (int k = 0; k < 4 && rc == 0; ++k) {
            if (k == 3 && !with_mpi)
                continue;
            remove_tree(a);
            remove_tree(b);
            char *const *one[1] = {k == 0 ? serial1 : k == 1 ? serial2 : mpi};
            char *const *two[2] = {shard0, shard1};
            const double t = k == 2 ? run_jobs(two, 2, 0) : run_jobs(one, 1, k == 0);
            if (t < 0) {
                snprintf(error, error_size, "a %s run failed (run it by hand: %s dataset %s -o DIR --frames %ld)",
                         k == 0 ? "serial" : k == 1 ? "2-thread" : k == 2 ? "sharded" : "mpirun -n 2", self, config,
                         frames);
                rc = -1;
            } else if (t < *best[k]) {
                *best[k] = t;
            }
        }
    }
    remove_tree(dir);
    if (!with_mpi)
        out->mpi2_s = 0.0;
    return rc;
}
