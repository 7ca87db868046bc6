/* lidarsim fit FIT.yaml -o FITTED.yaml: the parameters a fit file names, fitted to a real scan
 * (lsim_fit_*, L-BFGS), written into a copy of the scene file (inverse/fit_file.h). */
#include "cli/args.h"
#include "cli/commands.h"
#include "core/progress.h"
#include "cli/opts.h"
#include "core/file_id.h"
#include "inverse/fit_file.h"

#include "lidarsim.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define DEG (3.14159265358979323846 / 180.0)

typedef struct fit_args {
    const char *fit, *output;
    long max_iterations; /* 0: the fit file's (default 100) */
    int quiet;
} fit_args;

static void fit_usage(FILE *out)
{
    fprintf(out,
            "usage: lidarsim fit FIT.yaml -o FITTED.yaml [options]\n\n"
            "Fit the parameters FIT.yaml names (the sensor's pose, named objects' poses, Lambertian\n"
            "reflectances, the CW receiver's bias) to a real scan, and write the scene file with the\n"
            "fitted values in. FIT.yaml (paths relative to it):\n\n"
            "  scene: room.yaml          the scene; its `sensor:` is the sensor being fitted\n"
            "  scan: real.csv            one row per beam in the sensor's beam order: CSV with `range`\n"
            "                            (and `intensity`) columns, PCD or PLY; `lidarsim scan SCENE -o\n"
            "                            real.csv --keep-misses` writes one\n"
            "  intensity_weight: 1.0     optional: also fit the intensities (m^2 per relative error^2)\n"
            "  parameters:               at least one, at most 8 values in all\n"
            "    sensor: {dof: se2, initial: {x: 0.1, yaw_deg: 3}, bounds: {x: [-1, 1]}}\n"
            "    objects: {door: {dof: se2, initial: {...}, bounds: {...}}}   (the objects' `name:`)\n"
            "    reflectance: {white: {initial: 0.5}}                        (Lambertian materials)\n"
            "    cw_bias: {initial: [0, 0, 0], bounds: {c1: [-1, 1]}}\n"
            "  loss: {type: huber, scale: 0.05}   squared (default), huber or cauchy (scale in m)\n"
            "  max_iterations: 100\n\n"
            "Pose axes: x y z (m), roll_deg pitch_deg yaw_deg; se2 fits x, y, yaw; se3 all six.\n\n"
            "  -o, --output FILE         the fitted scene (YAML); its relative file names are rewritten\n"
            "                            to resolve from its folder\n"
            "  --max-iterations N        L-BFGS iterations, 1..10000 (default: the fit file's, or 100)\n"
            "  --quiet                   print nothing on success (no progress, no result block)\n"
            "  -h, --help  this help (on standard output);  --version  print the version\n");
}

static int parse_args(int argc, char **argv, fit_args *a)
{
    memset(a, 0, sizeof *a);
    static const struct option longopts[] = {
        LSIM_OPTS_COMMON,
        {"output", required_argument, NULL, 'o'},
        {"max-iterations", required_argument, NULL, 0},
        {"quiet", no_argument, NULL, 0},
        {0, 0, 0, 0}};
    lsim_opts g;
    lsim_opts_init(&g, "fit", argc, argv, "ho:", longopts, fit_usage);
    for (int c; (c = lsim_opts_next(&g)) != LSIM_OPT_END;) {
        if (c == LSIM_OPT_ERROR)
            return LSIM_EXIT_USAGE;
        if (c == LSIM_OPT_EXIT)
            return -1;
        /* getopt_long has matched the option and its value: dispatch on its full name */
        const char *opt = c == LSIM_OPT_ARG ? "" : g.name, *val = g.arg;
        if (strcmp(opt, "-o") == 0 || strcmp(opt, "--output") == 0 || strcmp(opt, "--max-iterations") == 0) {
            if (strcmp(opt, "--max-iterations") != 0)
                a->output = val;
            else if (lsim_arg_long(val, 1, 10000, &a->max_iterations))
                return lsim_arg_invalid("fit", opt, val, "an integer 1..10000");
        } else if (strcmp(opt, "--quiet") == 0) {
            a->quiet = 1;
        } else if (!a->fit) {
            a->fit = val;
        } else {
            fprintf(stderr, "lidarsim fit: unexpected argument '%s' (one fit file only)\n", val);
            return LSIM_EXIT_USAGE;
        }
    }
    if (!a->fit || !a->output) {
        fprintf(stderr, "lidarsim fit: %s\n", !a->fit ? "missing the fit file (FIT.yaml)" : "missing -o FITTED.yaml");
        fit_usage(stderr);
        return LSIM_EXIT_USAGE;
    }
    return 0;
}

typedef struct progress_state {
    FILE *out;
    int tty, quiet, printed;
    int max_iterations;
    double start; /* seconds */
} progress_state;

static void progress(void *user, int iteration, double loss)
{
    progress_state *p = user;
    if (p->quiet)
        return;
    if (p->tty) { /* one redrawn line: a bar over the iteration budget, and the time left at most */
        const double el = lsim_progress_now() - p->start;
        const int left = p->max_iterations > iteration ? p->max_iterations - iteration : 0;
        const int fill = p->max_iterations > 0 ? 20 * (iteration < p->max_iterations ? iteration : p->max_iterations)
                                                       / p->max_iterations : 20;
        char bar[21];
        for (int i = 0; i < 20; ++i)
            bar[i] = i < fill ? '#' : '.';
        bar[20] = 0;
        fprintf(p->out, "\riteration %d: loss %.6g m^2  [%s] %d/%d  ETA <= %.0f s   ", iteration, loss, bar,
                iteration, p->max_iterations, iteration > 0 ? el / iteration * left : 0.0);
    } else
        fprintf(p->out, "iteration %d: loss %.6g m^2\n", iteration, loss);
    fflush(p->out);
    p->printed = 1;
}

/* The output must not replace one of the inputs. */
static int same_file(const char *a, const char *b)
{
    const lsim_file_id x = lsim_file_id_of(a), y = lsim_file_id_of(b);
    return x.known && y.known && lsim_file_id_same(&x, a, &y, b);
}

static void print_value(FILE *out, const char *name, double v)
{
    if (lsim_fit_file_is_angle(name))
        fprintf(out, "%12.4f deg", v / DEG);
    else if (strncmp(name, "sensor.", 7) == 0 || strncmp(name, "object.", 7) == 0)
        fprintf(out, "%12.5f m  ", v);
    else
        fprintf(out, "%12.6g    ", v);
}

static void report(FILE *out, const lsim_fit *fit, const double *initial, const double *fitted, size_t n,
                   const lsim_fit_result *res, int max_iterations, size_t beams, const char *output)
{
    fprintf(out, "%-34s %16s %16s\n", "parameter", "initial", "fitted");
    for (size_t k = 0; k < n; ++k) {
        char name[256];
        if (lsim_fit_parameter_name(fit, k, name, sizeof name) != LSIM_OK)
            snprintf(name, sizeof name, "parameter %zu", k);
        fprintf(out, "%-34s ", name);
        print_value(out, name, initial[k]);
        fputc(' ', out);
        print_value(out, name, fitted[k]);
        fputc('\n', out);
    }
    fprintf(out, "loss: %.6g -> %.6g m^2\n", res->initial_loss, res->final_loss);
    fprintf(out, "rms range residual: %.3f mm\n", 1e3 * res->rms_residual_m);
    fprintf(out, "beams: %zu used, %zu at silhouettes, %zu through mirrors/glass, %zu unmatched (of %zu)\n",
            res->beams_used, res->silhouette_beams, res->bounced_beams, res->unmatched_beams, beams);
    fprintf(out, "iterations: %d of at most %d, scans: %d, wall time: %.1f ms; %s (last L-BFGS round: %s)\n",
            res->iterations, max_iterations, res->evaluations, res->wall_ms,
            res->stop == LSIM_FIT_CONVERGED     ? "converged"
            : res->stop == LSIM_FIT_NO_DESCENT ? "stopped: the simulated loss rose wherever the model led"
                                               : "stopped: out of iterations",
            lsim_fit_file_stop_reason(res->lbfgs_status));
    if (res->stop == LSIM_FIT_ITERATIONS)
        fprintf(out, "note: the fit used all %d iterations and may not have converged; allow more with "
                     "--max-iterations or `max_iterations:` in the fit file\n", max_iterations);
    fprintf(out, "wrote %s\n", strcmp(output, "-") == 0 ? "standard output" : output);
}

int lsim_cmd_fit(int argc, char **argv)
{
    fit_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? LSIM_EXIT_OK : rc;
    lsim_context *ctx = NULL;
    if (lsim_context_create(&ctx) != LSIM_OK) {
        fprintf(stderr, "lidarsim fit: out of memory\n");
        return LSIM_EXIT_FAILURE;
    }
    lsim_fit_file ff;
    lsim_scene *scene = NULL;
    lsim_sensor *sensor = NULL;
    lsim_fit *fit = NULL;
    int have_file = 0;
    rc = lsim_cli_check_writable(ctx, "fit", a.output, "the fitted scene");
    if (rc == LSIM_EXIT_OK) {
        if (lsim_fit_file_read(ctx, a.fit, &ff) != LSIM_OK) {
            fprintf(stderr, "lidarsim fit: %s\n", lsim_context_last_error(ctx));
            rc = LSIM_EXIT_FAILURE;
        } else {
            have_file = 1;
        }
    }
    if (rc == LSIM_EXIT_OK) {
        const char *inputs[3] = {a.fit, ff.scene, ff.scan}, *what[3] = {"fit file", "scene file", "scan"};
        for (int i = 0; i < 3 && rc == LSIM_EXIT_OK; ++i)
            if (same_file(a.output, inputs[i])) {
                fprintf(stderr, "lidarsim fit: -o %s is the %s; give the fitted scene a name of its own\n", a.output,
                        what[i]);
                rc = LSIM_EXIT_USAGE;
            }
    }
    if (rc == LSIM_EXIT_OK && (lsim_fit_file_load_scene(&ff, &scene, &sensor) != LSIM_OK ||
                               lsim_fit_file_setup(&ff, scene, sensor, &fit) != LSIM_OK)) {
        fprintf(stderr, "lidarsim fit: %s\n", lsim_context_last_error(ctx));
        rc = LSIM_EXIT_FAILURE;
    }
    /* the report goes to standard output unless the scene does */
    FILE *out = strcmp(a.output, "-") == 0 ? stderr : stdout;
    progress_state ps = {out, isatty(fileno(out)), a.quiet, 0, 0, lsim_progress_now()};
    double initial[LSIM_FIT_FILE_MAX_PARAMS] = {0}, fitted[LSIM_FIT_FILE_MAX_PARAMS] = {0};
    size_t n = fit ? lsim_fit_parameter_count(fit) : 0;
    lsim_fit_result res;
    memset(&res, 0, sizeof res);
    const int iterations = a.max_iterations ? (int)a.max_iterations : have_file ? ff.max_iterations : 100;
    ps.max_iterations = iterations;
    if (rc == LSIM_EXIT_OK) {
        lsim_fit_get_parameters(fit, initial);
        lsim_status st = lsim_fit_run(fit, iterations, progress, &ps, &res);
        if (ps.printed && ps.tty)
            fputc('\n', out);
        if (st != LSIM_OK) {
            fprintf(stderr, "lidarsim fit: the fit failed: %s\n", lsim_context_last_error(ctx));
            rc = LSIM_EXIT_FAILURE;
        } else {
            lsim_fit_get_parameters(fit, fitted);
        }
    }
    if (rc == LSIM_EXIT_OK) {
        char names_buf[LSIM_FIT_FILE_MAX_PARAMS][256];
        const char *names[LSIM_FIT_FILE_MAX_PARAMS];
        for (size_t k = 0; k < n; ++k) {
            lsim_fit_parameter_name(fit, k, names_buf[k], sizeof names_buf[k]);
            names[k] = names_buf[k];
        }
        char comment[2 * LSIM_FIT_FILE_PATH_MAX + 512];
        snprintf(comment, sizeof comment,
                 "lidarsim fit %s: %s with %zu fitted parameter%s (loss %.6g -> %.6g m^2, rms range residual %.3f mm, "
                 "%d iterations)", a.fit, ff.scene, n, n == 1 ? "" : "s", res.initial_loss, res.final_loss,
                 1e3 * res.rms_residual_m, res.iterations);
        if (lsim_fitted_scene_write(ctx, ff.scene, a.output, n, names, fitted, comment) != LSIM_OK) {
            fprintf(stderr, "lidarsim fit: cannot write the fitted scene: %s\n", lsim_context_last_error(ctx));
            rc = LSIM_EXIT_FAILURE;
        }
    }
    if (rc == LSIM_EXIT_OK && !a.quiet)
        report(out, fit, initial, fitted, n, &res, iterations, lsim_sensor_beam_count(sensor), a.output);
    lsim_fit_destroy(fit);
    lsim_sensor_destroy(sensor);
    lsim_scene_destroy(scene);
    if (have_file)
        lsim_fit_file_free(&ff);
    lsim_context_destroy(ctx);
    return rc;
}
