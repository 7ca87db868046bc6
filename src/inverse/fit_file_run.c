/* lsim_fit_file_run (include/lidarsim.h): a fit file read (fit_file.c), its scene and real scan loaded,
 * the fit run with its progress, the fitted scene written (fitted_scene.c) and the result table
 * printed: the work of `lidarsim fit FIT.yaml -o FITTED.yaml`. */
#include "inverse/fit_file.h"

#include "core/context.h"
#include "core/file_id.h"
#include "core/progress.h"
#include "output/atomic_file.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEG (3.14159265358979323846 / 180.0)

void lsim_fit_file_options_init(lsim_fit_file_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->progress = LSIM_PROGRESS_OFF;
}

typedef struct progress_state {
    FILE *out;
    int bar, lines, printed;
    int max_iterations;
    double start; /* seconds */
} progress_state;

static void progress(void *user, int iteration, double loss)
{
    progress_state *p = user;
    if (p->bar) { /* one redrawn line: a bar over the iteration budget, and the time left at most */
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
    } else if (p->lines) {
        fprintf(p->out, "iteration %d: loss %.6g m^2\n", iteration, loss);
    } else {
        return;
    }
    fflush(p->out);
    p->printed = 1;
}

/* The output must not replace one of the inputs. */
/* A failure once the arguments are accepted is the files' content: LSIM_ERR_INVALID_ARGUMENT (a
 * library call refusing a value the fit file gave) becomes LSIM_ERR_PARSE, the message kept, so that
 * INVALID_ARGUMENT means the caller's arguments alone. `prefix` (may be "") goes before the message. */
static lsim_status content_error(lsim_context *ctx, lsim_status st, const char *prefix)
{
    char msg[LSIM_ERROR_MAX];
    snprintf(msg, sizeof msg, "%s", lsim_context_last_error(ctx));
    return lsim_fail(ctx, st == LSIM_ERR_INVALID_ARGUMENT ? LSIM_ERR_PARSE : st, "%s%s", prefix, msg);
}

static lsim_status check_writable(lsim_context *ctx, const char *path)
{
    struct stat info;
    if (stat(path, &info) == 0 && S_ISDIR(info.st_mode))
        return lsim_fail(ctx, LSIM_ERR_IO, "cannot write the fitted scene: '%s' is a directory; give a file name",
                         path);
    /* probe without opening a FIFO or device (its reader would see an empty stream) */
    const lsim_status st = lsim_atomic_check(ctx, path);
    if (st == LSIM_OK)
        return st;
    char why[LSIM_ERROR_MAX]; /* an argument's fault (an empty path) stays LSIM_ERR_INVALID_ARGUMENT */
    snprintf(why, sizeof why, "%s", lsim_context_last_error(ctx));
    return lsim_fail(ctx, st, "cannot write the fitted scene: %s", why);
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

static void report(FILE *out, const lsim_fit_file_result *r, const char *output)
{
    const lsim_fit_result *res = &r->fit;
    fprintf(out, "%-34s %16s %16s\n", "parameter", "initial", "fitted");
    for (size_t k = 0; k < r->parameter_count; ++k) {
        fprintf(out, "%-34s ", r->names[k]);
        print_value(out, r->names[k], r->initial[k]);
        fputc(' ', out);
        print_value(out, r->names[k], r->fitted[k]);
        fputc('\n', out);
    }
    fprintf(out, "loss: %.6g -> %.6g m^2\n", res->initial_loss, res->final_loss);
    fprintf(out, "rms range residual: %.3f mm\n", 1e3 * res->rms_residual_m);
    fprintf(out, "beams: %zu used, %zu at silhouettes, %zu through mirrors/glass, %zu unmatched (of %zu)\n",
            res->beams_used, res->silhouette_beams, res->bounced_beams, res->unmatched_beams, r->beams);
    fprintf(out, "iterations: %d of at most %d, scans: %d, wall time: %.1f ms; %s (last L-BFGS round: %s)\n",
            res->iterations, r->max_iterations, res->evaluations, res->wall_ms,
            res->stop == LSIM_FIT_CONVERGED     ? "converged"
            : res->stop == LSIM_FIT_NO_DESCENT ? "stopped: the simulated loss rose wherever the model led"
                                               : "stopped: out of iterations",
            lsim_fit_file_stop_reason(res->lbfgs_status));
    if (res->stop == LSIM_FIT_ITERATIONS)
        fprintf(out, "note: the fit used all %d iterations and may not have converged; allow more with "
                     "--max-iterations or `max_iterations:` in the fit file\n", r->max_iterations);
    fprintf(out, "wrote %s\n", strcmp(output, "-") == 0 ? "standard output" : output);
    fflush(out);
}

/* The fit itself, once the fit file is read: scene, fit, run, fitted scene written. */
static lsim_status run_file(lsim_context *ctx, lsim_fit_file *ff, const char *fit_path, const char *out_path,
                            const lsim_fit_file_options *o, lsim_fit_file_result *r)
{
    lsim_scene *scene = NULL;
    lsim_sensor *sensor = NULL;
    lsim_fit *fit = NULL;
    lsim_status st = lsim_fit_file_load_scene(ff, &scene, &sensor);
    if (st == LSIM_OK)
        st = lsim_fit_file_setup(ff, scene, sensor, &fit);
    if (st != LSIM_OK)
        st = content_error(ctx, st, "");
    /* the progress and the report go to standard output unless the scene does */
    FILE *out = strcmp(out_path, "-") == 0 ? stderr : stdout;
    const int tty = isatty(fileno(out));
    progress_state ps = {out, 0, 0, 0, r->max_iterations, lsim_progress_now()};
    ps.bar = tty && (o->progress == LSIM_PROGRESS_AUTO || o->progress == LSIM_PROGRESS_BAR);
    ps.lines = !ps.bar && (o->progress == LSIM_PROGRESS_LINES || o->progress == LSIM_PROGRESS_AUTO);
    if (st == LSIM_OK) {
        r->beams = lsim_sensor_beam_count(sensor);
        r->parameter_count = lsim_fit_parameter_count(fit);
        if (r->parameter_count > LSIM_FIT_FILE_MAX_PARAMETERS) /* refused by lsim_fit_add_* before */
            st = lsim_fail(ctx, LSIM_ERR_STATE, "fit: %zu parameters", r->parameter_count);
    }
    if (st == LSIM_OK) {
        for (size_t k = 0; k < r->parameter_count; ++k)
            if (lsim_fit_parameter_name(fit, k, r->names[k], sizeof r->names[k]) != LSIM_OK)
                snprintf(r->names[k], sizeof r->names[k], "parameter %zu", k);
        lsim_fit_get_parameters(fit, r->initial);
        st = lsim_fit_run(fit, r->max_iterations, progress, &ps, &r->fit);
        if (ps.printed && ps.bar)
            fputc('\n', out);
        if (st != LSIM_OK)
            st = content_error(ctx, st, "the fit failed: ");
        else
            lsim_fit_get_parameters(fit, r->fitted);
    }
    if (st == LSIM_OK) {
        const char *names[LSIM_FIT_FILE_MAX_PARAMETERS];
        for (size_t k = 0; k < r->parameter_count; ++k)
            names[k] = r->names[k];
        char comment[2 * LSIM_FIT_FILE_PATH_MAX + 512];
        const size_t n = r->parameter_count;
        snprintf(comment, sizeof comment,
                 "lidarsim fit %s: %s with %zu fitted parameter%s (loss %.6g -> %.6g m^2, rms range residual %.3f mm, "
                 "%d iterations)", fit_path, ff->scene, n, n == 1 ? "" : "s", r->fit.initial_loss,
                 r->fit.final_loss, 1e3 * r->fit.rms_residual_m, r->fit.iterations);
        st = lsim_fitted_scene_write(ctx, ff->scene, out_path, n, names, r->fitted, comment);
        if (st != LSIM_OK)
            st = content_error(ctx, st, "cannot write the fitted scene: ");
    }
    if (st == LSIM_OK && o->report)
        report(out, r, out_path);
    lsim_fit_destroy(fit);
    lsim_sensor_destroy(sensor);
    lsim_scene_destroy(scene);
    return st;
}

lsim_status lsim_fit_file_run(lsim_context *ctx, const char *fit_path, const char *out_path,
                              const lsim_fit_file_options *options, lsim_fit_file_result *result)
{
    if (!ctx)
        return LSIM_ERR_INVALID_ARGUMENT;
    lsim_fit_file_options defaults;
    lsim_fit_file_options_init(&defaults);
    const lsim_fit_file_options *o = options ? options : &defaults;
    lsim_fit_file_result local;
    lsim_fit_file_result *r = result ? result : &local;
    memset(r, 0, sizeof *r);
    if (!fit_path || !out_path || !*fit_path || !*out_path)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_fit_file_run: the fit file and output paths must not "
                         "be NULL or empty");
    if (o->max_iterations < 0 || o->max_iterations > 10000)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_fit_file_run: max_iterations %d is out of range; give "
                         "1..10000, or 0 for the fit file's", o->max_iterations);
    lsim_status st = check_writable(ctx, out_path);
    if (st != LSIM_OK)
        return st;
    lsim_fit_file ff;
    st = lsim_fit_file_read(ctx, fit_path, &ff);
    if (st != LSIM_OK)
        return content_error(ctx, st, "");
    const char *inputs[3] = {fit_path, ff.scene, ff.scan}, *what[3] = {"fit file", "scene file", "scan"};
    for (int i = 0; i < 3 && st == LSIM_OK; ++i)
        if (lsim_file_same_existing(out_path, inputs[i]))
            st = lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "-o %s is the %s; give the fitted scene a name of its own",
                           out_path, what[i]);
    if (st == LSIM_OK) {
        r->max_iterations = o->max_iterations ? o->max_iterations : ff.max_iterations;
        st = run_file(ctx, &ff, fit_path, out_path, o, r);
    }
    lsim_fit_file_free(&ff);
    if (st != LSIM_OK)
        memset(r, 0, sizeof *r);
    return st;
}
