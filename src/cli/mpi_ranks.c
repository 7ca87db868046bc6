/* MPI for `lidarsim dataset` (cli/mpi_ranks.h): with an MPI build (CMake LSIM_MPI, OpenMPI) and a
 * launch by mpirun/mpiexec (its environment names a world size), MPI is initialised and the
 * frames split over the ranks; otherwise the run is serial. A launch by mpirun of a build without
 * MPI is refused, and so is a launch by another MPI's launcher (MPICH's mpirun announces K ranks,
 * but OpenMPI's MPI_Init then makes each process a single rank 0 of 1), so that K copies never
 * each write every frame and draw their progress over each other's. */
#include "mpi_ranks.h"

#include <stdio.h>
#include <stdlib.h>

#ifdef LSIM_HAVE_MPI
#include <mpi.h>
#endif

/* The world size mpirun announces to its children (OpenMPI, PMIx, MPICH/Hydra), or 0; *var names
 * the environment variable that said so. */
static long launched_size(const char **var)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE", "MPI_LOCALNRANKS"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; ++i) {
        const char *v = getenv(vars[i]);
        if (v && *v) {
            *var = vars[i];
            return strtol(v, NULL, 10);
        }
    }
    *var = getenv("PMIX_RANK") ? "PMIX_RANK" : "OMPI_COMM_WORLD_RANK";
    return getenv("PMIX_RANK") || getenv("OMPI_COMM_WORLD_RANK") ? 1 : 0;
}

int lsim_cli_mpi_begin(lsim_cli_mpi *m, int *argc, char ***argv)
{
    m->rank = 0;
    m->ranks = 1;
    m->active = 0;
    const char *var = NULL;
    const long size = launched_size(&var);
#ifdef LSIM_HAVE_MPI
    if (size >= 1) {
        int provided = 0;
        if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
            fprintf(stderr, "lidarsim: MPI_Init failed under mpirun\n");
            return -1;
        }
        int r = 0, n = 1;
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
        MPI_Comm_size(MPI_COMM_WORLD, &n);
        if (size > 1 && n == 1) {
            fprintf(stderr,
                    "lidarsim: the launcher announced %ld ranks (%s=%ld), but MPI made this process a single "
                    "rank: mpirun is not the one of the MPI lidarsim is built with (OpenMPI); run OpenMPI's mpirun "
                    "(Debian: openmpi-bin, `update-alternatives --display mpirun` shows which one runs) or split "
                    "the frames with --shard i/n instead\n",
                    size, var, size);
            MPI_Finalize();
            return -1;
        }
        m->rank = (unsigned)r;
        m->ranks = (unsigned)n;
        m->active = 1;
    }
#else
    (void)argc;
    (void)argv;
    (void)var;
    if (size > 1) {
        fprintf(stderr,
                "lidarsim: launched by mpirun with %ld ranks, but this lidarsim was built without MPI; rebuild with "
                "MPI (Debian: apt-get install libopenmpi-dev, then cmake -DLSIM_MPI=ON) or split the frames with "
                "--shard i/n instead\n",
                size);
        return -1;
    }
#endif
    return 0;
}

void lsim_cli_mpi_sum(const lsim_cli_mpi *m, double *values, int count)
{
#ifdef LSIM_HAVE_MPI
    if (m->active)
        MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
#else
    (void)m;
    (void)values;
    (void)count;
#endif
}

int lsim_cli_mpi_any(const lsim_cli_mpi *m, int failed)
{
#ifdef LSIM_HAVE_MPI
    if (m->active) {
        int any = failed;
        MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        return any;
    }
#else
    (void)m;
#endif
    return failed;
}

void lsim_cli_mpi_end(lsim_cli_mpi *m)
{
#ifdef LSIM_HAVE_MPI
    if (m->active)
        MPI_Finalize();
#endif
    m->active = 0;
}

int lsim_cli_mpi_built(void)
{
#ifdef LSIM_HAVE_MPI
    return 1;
#else
    return 0;
#endif
}
