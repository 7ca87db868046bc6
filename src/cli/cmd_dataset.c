/* lidarsim dataset CONFIG.yaml -o DIR [--frames N] [--seed S] [--shard i/n] [--threads N]
 * [--points-format pcd|ply|las|csv] [--progress auto|lines|off] [--quiet]: a labelled dataset in the SemanticKITTI tree
 * (lsim_dataset_run in include/lidarsim.h), resumable, split by shards and, in an MPI build under
 * mpirun, ranks (cli/mpi_ranks.h: MPI is the CLI's; the rank and rank count go in the options). */
#include "args.h"
#include "commands.h"
#include "opts.h"
#include "mpi_ranks.h"

#include "lidarsim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct dataset_args {
    const char *config, *out;
    long frames, threads;
    int seed_given, quiet;
    uint64_t seed;
    unsigned shard, shards;
    lsim_progress_mode progress;
    lsim_format points_format; /* LSIM_FORMAT_AUTO: the config's */
} dataset_args;

static void dataset_usage(FILE *out)
{
    fprintf(out,
            "usage: lidarsim dataset CONFIG.yaml -o DIR [--frames N] [--seed S] [--shard i/n] [--threads N]\n"
            "                        [--points-format pcd|ply|las|csv] [--progress auto|lines|off] [--quiet]\n"
            "       mpirun -n K lidarsim dataset CONFIG.yaml -o DIR ...        (an MPI build)\n\n"
            "Generate a labelled dataset: random scenes from CONFIG (sensor, object library, layout, jitter,\n"
            "trajectory, moving actors; examples/dataset/README.md), each frame scanned with noise and\n"
            "clean, written as a SemanticKITTI tree in DIR (docs/datasets.md). A rerun of the same command\n"
            "writes only the frames the manifest (DIR/manifest/) does not list with whole files (each file's\n"
            "size and CRC-32 are checked: a deleted or changed frame is written again, and said so), after\n"
            "removing the temporary files a killed run left; frame k is the same bytes whatever the split,\n"
            "the threads or the resumes.\n\n"
            "  -o, --output DIR     the dataset folder (created)\n"
            "  --frames N           frames in all (default: the config's `frames`)\n"
            "  --seed S             instead of the config's `seed`\n"
            "  --shard i/n          write only shard i's frames: blocks of consecutive frames of a sequence,\n"
            "                       dealt out to n shards (job arrays: Slurm, Kubernetes indexed jobs, GNU\n"
            "                       parallel); the shards' trees merge into one\n"
            "  --threads N          threads, 0 = all cores (default 0): frames run side by side, one a\n"
            "                       thread, each on its own copy of its sequence's scene\n"
            "  --points-format FMT  also write each frame's noisy points as DIR/sequences/SS/points/NNNNNN.FMT\n"
            "                       with every field the format holds: pcd, ply, las or csv (instead of the\n"
            "                       config's `points_format`; default: none)\n"
            "  --progress MODE      auto (a bar on a terminal, lines otherwise; default), lines, off\n"
            "  --quiet              no progress and no summary\n\n"
            "Under mpirun (a build with MPI: cmake -DLSIM_MPI=ON) the shard's blocks are dealt out again to\n"
            "the K ranks (give each --threads 1 and as many ranks or shards as cores, or threads: they\n"
            "scale alike on one machine; docs/datasets.md \"Throughput\").\n"
            "  -h, --help  this help (on standard output);  --version  print the version\n");
}

static int parse_shard(const char *v, unsigned *i, unsigned *n)
{
    char *slash = strchr(v, '/');
    if (!slash)
        return -1;
    char a[32], b[32];
    const size_t la = (size_t)(slash - v), lb = strlen(slash + 1);
    if (la == 0 || la >= sizeof a || lb == 0 || lb >= sizeof b)
        return -1;
    memcpy(a, v, la);
    a[la] = 0;
    memcpy(b, slash + 1, lb + 1);
    long x, y;
    if (lsim_arg_long(a, 0, 1000000, &x) || lsim_arg_long(b, 1, 1000000, &y) || x >= y)
        return -1;
    *i = (unsigned)x;
    *n = (unsigned)y;
    return 0;
}

static int parse_args(int argc, char **argv, dataset_args *a)
{
    memset(a, 0, sizeof *a);
    a->shards = 1;
    a->progress = LSIM_PROGRESS_AUTO;
    if (argc < 2) {
        dataset_usage(stderr);
        return LSIM_EXIT_USAGE;
    }
    static const struct option longopts[] = {
        LSIM_OPTS_COMMON,
        {"output", required_argument, NULL, 'o'},
        {"frames", required_argument, NULL, 0},
        {"seed", required_argument, NULL, 0},
        {"shard", required_argument, NULL, 0},
        {"threads", required_argument, NULL, 0},
        {"points-format", required_argument, NULL, 0},
        {"progress", required_argument, NULL, 0},
        {"quiet", no_argument, NULL, 0},
        {0, 0, 0, 0}};
    lsim_opts g;
    lsim_opts_init(&g, "dataset", argc, argv, "ho:", longopts, dataset_usage);
    for (int c; (c = lsim_opts_next(&g)) != LSIM_OPT_END;) {
        if (c == LSIM_OPT_ERROR)
            return LSIM_EXIT_USAGE;
        if (c == LSIM_OPT_EXIT)
            return -1;
        /* getopt_long has matched the option and its value: dispatch on its full name */
        const char *opt = c == LSIM_OPT_ARG ? "" : g.name, *val = g.arg;
        if (strcmp(opt, "--quiet") == 0) {
            a->quiet = 1;
        } else if (!strcmp(opt, "-o") || !strcmp(opt, "--output") || !strcmp(opt, "--frames") ||
                   !strcmp(opt, "--seed") || !strcmp(opt, "--shard") || !strcmp(opt, "--threads") ||
                   !strcmp(opt, "--progress") || !strcmp(opt, "--points-format")) {
            if (!strcmp(opt, "-o") || !strcmp(opt, "--output"))
                a->out = val;
            else if (!strcmp(opt, "--frames") && lsim_arg_long(val, 1, 100000000, &a->frames))
                return lsim_arg_invalid("dataset", opt, val, "a frame count, 1..100000000");
            else if (!strcmp(opt, "--threads") && lsim_arg_long(val, 0, 1024, &a->threads))
                return lsim_arg_invalid("dataset", opt, val, "0..1024 (0: all cores)");
            else if (!strcmp(opt, "--seed")) {
                if (lsim_arg_u64(val, &a->seed))
                    return lsim_arg_invalid("dataset", opt, val, "an unsigned 64-bit integer");
                a->seed_given = 1;
            } else if (!strcmp(opt, "--shard") && parse_shard(val, &a->shard, &a->shards))
                return lsim_arg_invalid("dataset", opt, val, "i/n with 0 <= i < n <= 1000000, e.g. 0/4");
            else if (!strcmp(opt, "--points-format")) {
                if (strcmp(val, "pcd") && strcmp(val, "ply") && strcmp(val, "las") && strcmp(val, "csv"))
                    return lsim_arg_invalid("dataset", opt, val, "pcd, ply, las or csv");
                lsim_format_parse(val, &a->points_format);
            } else if (!strcmp(opt, "--progress")) {
                if (!strcmp(val, "auto"))
                    a->progress = LSIM_PROGRESS_AUTO;
                else if (!strcmp(val, "lines"))
                    a->progress = LSIM_PROGRESS_LINES;
                else if (!strcmp(val, "off"))
                    a->progress = LSIM_PROGRESS_OFF;
                else
                    return lsim_arg_invalid("dataset", opt, val, "auto, lines or off");
            }
        } else if (!a->config) {
            a->config = val;
        } else {
            fprintf(stderr, "lidarsim dataset: unexpected argument '%s' (one config only)\n", val);
            return LSIM_EXIT_USAGE;
        }
    }
    if (!a->config || !a->out) {
        fprintf(stderr, "lidarsim dataset: %s (see lidarsim dataset --help)\n",
                !a->config ? "missing the config (CONFIG.yaml)" : "missing -o DIR");
        return LSIM_EXIT_USAGE;
    }
    return 0;
}

int lsim_cmd_dataset(int argc, char **argv)
{
    dataset_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? LSIM_EXIT_OK : rc;
    lsim_cli_mpi mpi;
    if (lsim_cli_mpi_begin(&mpi, &argc, &argv) != 0)
        return LSIM_EXIT_FAILURE;
    lsim_context *ctx = NULL;
    lsim_dataset *d = NULL;
    lsim_dataset_run_stats stats;
    memset(&stats, 0, sizeof stats);
    lsim_status st = lsim_context_create(&ctx);
    if (st == LSIM_OK)
        st = lsim_context_track_inputs(ctx, 1); /* no file the dataset writes may be one it reads */
    if (st == LSIM_OK)
        st = lsim_dataset_load(ctx, a.config, &d);
    if (st == LSIM_OK) {
        lsim_dataset_run_options o;
        lsim_dataset_run_options_init(&o);
        o.frames = (size_t)a.frames;
        o.seed_given = a.seed_given;
        o.seed = a.seed;
        o.shard = a.shard;
        o.shards = a.shards;
        o.rank = mpi.rank;
        o.ranks = mpi.ranks;
        o.threads = (int)a.threads;
        o.points_format = a.points_format;
        o.progress = a.quiet || mpi.rank != 0 ? LSIM_PROGRESS_OFF : a.progress;
        st = lsim_dataset_run(d, a.out, &o, &stats);
    }
    if (st != LSIM_OK)
    {
        if (mpi.active)
            fprintf(stderr, "lidarsim dataset: rank %u of %u: %s\n", mpi.rank, mpi.ranks,
                    ctx ? lsim_context_last_error(ctx) : "out of memory");
        else
            fprintf(stderr, "lidarsim dataset: %s\n", ctx ? lsim_context_last_error(ctx) : "out of memory");
    }
    const int failed = lsim_cli_mpi_any(&mpi, st != LSIM_OK);
    double sums[6] = {(double)stats.written, (double)stats.done_before, (double)stats.points,
                      (double)stats.redone, (double)stats.empty, (double)stats.cleaned};
    lsim_cli_mpi_sum(&mpi, sums, 6);
    /* what a resume found, and frames that came out empty: said on stderr, also after a failure */
    if (!a.quiet && mpi.rank == 0) {
        const int one = mpi.ranks == 1; /* this process's first frames: the others' are not known here */
        if (sums[5] > 0)
            fprintf(stderr, "lidarsim dataset: removed %.0f temporary file%s left in %s by a killed run\n", sums[5],
                    sums[5] == 1 ? "" : "s", a.out);
        if (sums[3] > 0 && one)
            fprintf(stderr, "lidarsim dataset: %.0f frame%s listed in the manifest had files missing, resized or "
                    "changed (or no sizes and checksums to check, from an older lidarsim), the first frame %zu: "
                    "written again\n", sums[3], sums[3] == 1 ? "" : "s", stats.first_redone);
        else if (sums[3] > 0)
            fprintf(stderr, "lidarsim dataset: %.0f frames listed in the manifest had files missing, resized or "
                    "changed: written again\n", sums[3]);
        if (sums[4] > 0 && one)
            fprintf(stderr, "lidarsim dataset: warning: %.0f frame%s have no points, the first frame %zu: the "
                    "sensor saw nothing there; does the trajectory leave the layout? (see poses.txt)\n", sums[4],
                    sums[4] == 1 ? "" : "s", stats.first_empty);
        else if (sums[4] > 0)
            fprintf(stderr, "lidarsim dataset: warning: %.0f frames have no points: the sensor saw nothing there; "
                    "does the trajectory leave the layout?\n", sums[4]);
    }
    if (!failed && !a.quiet && mpi.rank == 0) {
        const double fps = stats.seconds > 0 ? sums[0] / stats.seconds : 0.0;
        char extra[96] = "";
        if (sums[3] > 0 || sums[4] > 0)
            snprintf(extra, sizeof extra, "%s%.0f redone, %.0f empty", "; ", sums[3], sums[4]);
        printf("lidarsim dataset: %zu frames (%.0f written now, %.0f already done%s), %.0f points, %.1f s, %.2f "
               "frames/s%s, wrote %s\n",
               stats.frames, sums[0], sums[1], extra, sums[2], stats.seconds, fps,
               mpi.ranks > 1 || a.shards > 1 ? " (this shard)" : "", a.out);
    }
    lsim_dataset_destroy(d);
    lsim_context_destroy(ctx);
    lsim_cli_mpi_end(&mpi);
    return failed ? LSIM_EXIT_FAILURE : LSIM_EXIT_OK;
}
