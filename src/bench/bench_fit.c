/* The cw paper's experiments 1-3 as a benchmark (see bench_fit.h). */
#include "bench/bench_fit.h"

#include "core/clock.h"
#include "lidarsim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEG (3.14159265358979323846 / 180.0)

typedef struct fit_env {
    lsim_context *ctx;
    char *error;
    size_t error_size;
} fit_env;

static int fail(fit_env *e, const char *what)
{
    snprintf(e->error, e->error_size, "%s: %s", what, lsim_context_last_error(e->ctx));
    return -1;
}

/* A scan of every beam (misses as range 0), noise on or off, in the sensor frame. */
static int scan(fit_env *e, lsim_scene *scene, lsim_sensor *s, int noise, unsigned seed, lsim_points **out)
{
    lsim_scan_options opt;
    lsim_scan_options_init(&opt);
    opt.noise = noise;
    opt.seed = seed;
    opt.keep_misses = 1;
    return lsim_scene_scan(scene, s, &opt, out) == LSIM_OK ? 0 : fail(e, "scan");
}

static int write_csv(fit_env *e, const lsim_points *p, const char *dir, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    const uint32_t fields = LSIM_FIELD_BIT(LSIM_FIELD_X) | LSIM_FIELD_BIT(LSIM_FIELD_Y) |
                            LSIM_FIELD_BIT(LSIM_FIELD_Z) | LSIM_FIELD_BIT(LSIM_FIELD_RANGE);
    return lsim_points_write_fields(p, path, LSIM_FORMAT_CSV, fields) == LSIM_OK ? 0 : fail(e, path);
}

/* Experiments 1 and 2: the sensor's SE(2) pose from (0, 0, 0) to the truth. */
static int localise(fit_env *e, const char *dir, const char *file, const double truth[3], int repeat,
                    const char *baselines, const char *tag, lsim_bench_fit_case *c)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    lsim_scene *scene = NULL;
    lsim_sensor *s = NULL;
    lsim_points *real = NULL, *start = NULL;
    float *range = NULL;
    int rc = lsim_scene_load(e->ctx, path, &scene, &s) == LSIM_OK ? 0 : fail(e, path);
    double z = 1.0;
    if (rc == 0) {
        double pose[7]; /* the file's height is kept */
        lsim_sensor_get_pose_at(s, 0.0, pose);
        z = pose[2];
        const double tp[3] = {truth[0], truth[1], z}, tr[3] = {0, 0, truth[2]};
        rc = lsim_sensor_set_pose(s, tp, tr) == LSIM_OK ? scan(e, scene, s, 1, 7, &real) : fail(e, "pose");
    }
    const double p0[3] = {0, 0, z}, r0[3] = {0, 0, 0};
    if (rc == 0)
        rc = lsim_sensor_set_pose(s, p0, r0) == LSIM_OK ? scan(e, scene, s, 0, 0, &start) : fail(e, "pose");
    const size_t n = real ? lsim_points_count(real) : 0;
    if (rc == 0 && !(range = malloc((n ? n : 1) * sizeof *range)))
        rc = fail(e, "out of memory");
    if (rc == 0)
        memcpy(range, lsim_points_column(real, LSIM_FIELD_RANGE), n * sizeof *range);
    if (rc == 0 && baselines) {
        char name[64];
        snprintf(name, sizeof name, "%s_target.csv", tag);
        rc = write_csv(e, real, baselines, name);
        snprintf(name, sizeof name, "%s_source.csv", tag);
        if (rc == 0)
            rc = write_csv(e, start, baselines, name);
        snprintf(path, sizeof path, "%s/%s_poses.txt", baselines, tag);
        FILE *f = rc == 0 ? fopen(path, "w") : NULL;
        if (rc == 0 && !f) {
            snprintf(e->error, e->error_size, "cannot write %s", path);
            rc = -1;
        }
        if (f) {
            fprintf(f, "# x y yaw_deg\ntruth %.9g %.9g %.9g\nstart 0 0 0\n", truth[0], truth[1], truth[2]);
            fclose(f);
        }
    }
    c->best_ms = INFINITY;
    for (int k = 0; rc == 0 && k < repeat; ++k) {
        lsim_fit *fit = NULL;
        lsim_fit_result res;
        double p[3];
        rc = lsim_sensor_set_pose(s, p0, r0) == LSIM_OK && lsim_fit_create(scene, s, LSIM_FIT_SE2, &fit) == LSIM_OK &&
                     lsim_fit_set_scan(fit, range, n) == LSIM_OK && lsim_fit_run(fit, 100, NULL, NULL, &res) == LSIM_OK &&
                     lsim_fit_get_parameters(fit, p) == LSIM_OK
                 ? 0
                 : fail(e, file);
        if (rc == 0) {
            c->best_ms = fmin(c->best_ms, res.wall_ms);
            c->iterations = res.iterations;
            c->evaluations = res.evaluations;
            c->error_mm = 1e3 * hypot(p[0] - truth[0], p[1] - truth[1]);
            c->error_deg = fabs(p[2] / DEG - truth[2]);
            c->beams_used = res.beams_used;
            c->bounced_beams = res.bounced_beams;
            c->silhouette_beams = res.silhouette_beams;
            c->unmatched_beams = res.unmatched_beams;
        }
        lsim_fit_destroy(fit);
    }
    c->scans_in_sequence = 1;
    free(range);
    lsim_points_destroy(real);
    lsim_points_destroy(start);
    lsim_sensor_destroy(s);
    lsim_scene_destroy(scene);
    return rc;
}

/* Experiment 3: the pillar tracked over 8 scans (as tests/test_fit_optics.c): it moves 2 cm,
 * -1.5 cm and 1 deg a scan; the first fit starts 1.5 cm, -1 cm and 1 deg off, the second from the
 * first, the others from a constant-velocity prediction; Cauchy loss, scale 5 cm. */
static int track(fit_env *e, const char *dir, int repeat, lsim_bench_fit_case *c)
{
    enum { SCANS = 8 };
    char path[1024];
    snprintf(path, sizeof path, "%s/mirror_pillar.yaml", dir);
    lsim_scene *scene = NULL;
    lsim_sensor *s = NULL;
    int rc = lsim_scene_load(e->ctx, path, &scene, &s) == LSIM_OK ? 0 : fail(e, path);
    double pos[3], rpy[3];
    if (rc == 0 && lsim_scene_get_object_pose(scene, "pillar", pos, rpy) != LSIM_OK)
        rc = fail(e, "pillar");
    float *real[SCANS] = {0};
    size_t n = 0;
    for (int k = 0; rc == 0 && k < SCANS; ++k) {
        const double tp[3] = {pos[0] + 0.02 * k, pos[1] - 0.015 * k, pos[2]}, tr[3] = {0, 0, rpy[2] + k};
        lsim_points *p = NULL;
        rc = lsim_scene_set_object_pose(scene, "pillar", tp, tr) == LSIM_OK ? scan(e, scene, s, 1, 100 + (unsigned)k, &p)
                                                                            : fail(e, "pillar");
        n = p ? lsim_points_count(p) : 0;
        if (rc == 0 && !(real[k] = malloc((n ? n : 1) * sizeof *real[k])))
            rc = fail(e, "out of memory");
        if (rc == 0)
            memcpy(real[k], lsim_points_column(p, LSIM_FIELD_RANGE), n * sizeof *real[k]);
        lsim_points_destroy(p);
    }
    c->best_ms = INFINITY;
    for (int r = 0; rc == 0 && r < repeat; ++r) {
        double est[3] = {pos[0] + 0.015, pos[1] - 0.01, (rpy[2] + 1.0) * DEG}, prev[3] = {0, 0, 0}, ms = 0.0;
        c->iterations = c->evaluations = 0;
        c->error_mm = c->error_deg = 0.0;
        for (int k = 0; rc == 0 && k < SCANS; ++k) {
            double start[3];
            for (int a = 0; a < 3; ++a)
                start[a] = k >= 2 ? 2.0 * est[a] - prev[a] : est[a];
            const double ep[3] = {start[0], start[1], pos[2]}, er[3] = {0, 0, start[2] / DEG};
            lsim_fit *fit = NULL;
            lsim_fit_result res;
            memcpy(prev, est, sizeof prev);
            rc = lsim_scene_set_object_pose(scene, "pillar", ep, er) == LSIM_OK &&
                         lsim_fit_create(scene, s, LSIM_FIT_FIXED, &fit) == LSIM_OK &&
                         lsim_fit_add_object_pose(fit, "pillar", LSIM_FIT_SE2) == LSIM_OK &&
                         lsim_fit_set_scan(fit, real[k], n) == LSIM_OK &&
                         lsim_fit_set_loss(fit, LSIM_FIT_LOSS_CAUCHY, 0.05) == LSIM_OK &&
                         lsim_fit_run(fit, 100, NULL, NULL, &res) == LSIM_OK &&
                         lsim_fit_get_parameters(fit, est) == LSIM_OK
                     ? 0
                     : fail(e, "mirror_pillar.yaml");
            if (rc == 0) {
                const double tx = pos[0] + 0.02 * k, ty = pos[1] - 0.015 * k, tyaw = rpy[2] + k;
                ms += res.wall_ms;
                c->iterations = res.iterations > c->iterations ? res.iterations : c->iterations;
                c->evaluations += res.evaluations;
                c->error_mm = fmax(c->error_mm, 1e3 * hypot(est[0] - tx, est[1] - ty));
                c->error_deg = fmax(c->error_deg, fabs(est[2] / DEG - tyaw));
                c->beams_used = res.beams_used;
                c->bounced_beams = res.bounced_beams;
                c->silhouette_beams = res.silhouette_beams;
                c->unmatched_beams = res.unmatched_beams;
            }
            lsim_fit_destroy(fit);
        }
        c->best_ms = fmin(c->best_ms, ms);
    }
    c->scans_in_sequence = SCANS;
    for (int k = 0; k < SCANS; ++k)
        free(real[k]);
    lsim_sensor_destroy(s);
    lsim_scene_destroy(scene);
    return rc;
}

int lsim_bench_fit_run(const char *scene_dir, int repeat, const char *baselines_dir,
                       lsim_bench_fit_case out[LSIM_BENCH_FIT_CASES], char *error, size_t error_size)
{
    fit_env e = {NULL, error, error_size};
    memset(out, 0, LSIM_BENCH_FIT_CASES * sizeof *out);
    if (lsim_context_create(&e.ctx) != LSIM_OK) {
        snprintf(error, error_size, "out of memory creating a context");
        return -1;
    }
    static const double truth1[3] = {0.40, -0.30, 12.0}, truth2[3] = {0.12, -0.08, 4.0};
    out[0].name = "1 room";
    out[1].name = "2 mirrors+glass";
    out[2].name = "3 mirror tracking";
    int rc = localise(&e, scene_dir, "room.yaml", truth1, repeat, baselines_dir, "exp1", &out[0]);
    if (rc == 0)
        rc = localise(&e, scene_dir, "mirror_room.yaml", truth2, repeat, baselines_dir, "exp2", &out[1]);
    if (rc == 0)
        rc = track(&e, scene_dir, repeat, &out[2]);
    lsim_context_destroy(e.ctx);
    return rc;
}
