/* MPI ranks for `lidarsim dataset` (cli/mpi_ranks.c). */
#ifndef LSIM_CLI_MPI_RANKS_H
#define LSIM_CLI_MPI_RANKS_H

typedef struct lsim_cli_mpi {
    unsigned rank, ranks; /* 0 of 1 when serial */
    int active;           /* MPI was initialised */
} lsim_cli_mpi;

/* Initialise MPI when launched by mpirun and built with it; 0, or -1 with a message on stderr. */
int lsim_cli_mpi_begin(lsim_cli_mpi *m, int *argc, char ***argv);
/* Sum `count` values over the ranks (in place; a no-op when serial). */
void lsim_cli_mpi_sum(const lsim_cli_mpi *m, double *values, int count);
/* 1 if any rank passed failed != 0 (collective). */
int lsim_cli_mpi_any(const lsim_cli_mpi *m, int failed);
void lsim_cli_mpi_end(lsim_cli_mpi *m);
/* 1 if this lidarsim was built with MPI. */
int lsim_cli_mpi_built(void);

#endif
