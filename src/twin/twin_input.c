/* The recording's poses and trajectory, and each frame on its beam grid in the world (twin.h). */
#include "twin/twin.h"
#include "core/context.h"
#include "core/file_open.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846
#define MAX_POSES 1000000

/* Roll, pitch, yaw (degrees) of R = Rz(yaw) Ry(pitch) Rx(roll) (core/vec.h's convention). */
static void rpy_of(const double r[9], double rpy[3])
{
    const double sp = -r[6];
    rpy[1] = asin(sp > 1.0 ? 1.0 : sp < -1.0 ? -1.0 : sp) * 180.0 / PI;
    rpy[0] = atan2(r[7], r[8]) * 180.0 / PI;
    rpy[2] = atan2(r[3], r[0]) * 180.0 / PI;
}

lsim_status lsim_twin_read_poses(lsim_twin_run *run, const char *path)
{
    lsim_context *ctx = run->ctx;
    char *text = NULL;
    size_t size = 0;
    lsim_status st = lsim_file_read_all(ctx, path, LSIM_INPUT_TRAJECTORY, &text, &size);
    if (st != LSIM_OK)
        return st;
    size_t cap = 0, n = 0;
    long line = 0;
    for (char *s = text, *next; s && *s; s = next) {
        char *nl = strchr(s, '\n');
        next = nl ? nl + 1 : NULL;
        if (nl)
            *nl = '\0';
        ++line;
        double v[13];
        int k = 0;
        char *p = s, *end;
        while (k < 13) {
            while (*p == ' ' || *p == '\t' || *p == '\r' || *p == ',')
                ++p;
            if (!*p || *p == '#')
                break;
            v[k] = strtod(p, &end);
            if (end == p || !isfinite(v[k])) {
                st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%ld: value %d is not a number: a poses file holds 12 numbers a "
                               "line (a 3 x 4 matrix, row by row: KITTI odometry's poses.txt)", path, line, k + 1);
                goto done;
            }
            ++k;
            p = end;
        }
        if (k == 0)
            continue;
        if (k != 12) {
            st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%ld: %s numbers where a pose has 12 (a 3 x 4 matrix, row by row: "
                           "KITTI odometry's poses.txt)", path, line, k > 12 ? "more than 12" : (k < 12 ? "fewer than 12" : ""));
            goto done;
        }
        const double r[9] = {v[0], v[1], v[2], v[4], v[5], v[6], v[8], v[9], v[10]};
        double worst = 0.0; /* R^T R = I */
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                double d = r[i] * r[j] + r[3 + i] * r[3 + j] + r[6 + i] * r[6 + j] - (i == j);
                worst = fabs(d) > worst ? fabs(d) : worst;
            }
        const double det = r[0] * (r[4] * r[8] - r[5] * r[7]) - r[1] * (r[3] * r[8] - r[5] * r[6]) +
                           r[2] * (r[3] * r[7] - r[4] * r[6]);
        if (det < 0.0) {
            st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%ld: the 3 x 3 part is a reflection (determinant %.3g), not a "
                           "rotation: give the sensor's pose as [R | t] with R a rotation", path, line, det);
            goto done;
        }
        if (worst > 1e-3) {
            st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%ld: the 3 x 3 part is not a rotation (R^T R off identity by %.3g): "
                           "give the sensor's pose as [R | t] with R a rotation", path, line, worst);
            goto done;
        }
        if (fabs(v[3]) > 1e7 || fabs(v[7]) > 1e7 || fabs(v[11]) > 1e7) {
            st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%ld: a position beyond +-1e7 m", path, line);
            goto done;
        }
        if (n == MAX_POSES) {
            st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%ld: more than %d poses", path, line, MAX_POSES);
            goto done;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            double(*a)[3] = realloc(run->pose_xyz, cap * sizeof *a), (*b)[3];
            if (a)
                run->pose_xyz = a;
            b = a ? realloc(run->pose_rpy, cap * sizeof *b) : NULL;
            if (!b) {
                st = lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "twin: out of memory (%zu poses)", cap);
                goto done;
            }
            run->pose_rpy = b;
        }
        run->pose_xyz[n][0] = v[3];
        run->pose_xyz[n][1] = v[7];
        run->pose_xyz[n][2] = v[11];
        rpy_of(r, run->pose_rpy[n]);
        ++n;
    }
    if (!n)
        st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s: no pose (a 3 x 4 matrix a line, one per frame)", path);
    run->poses = n;
done:
    free(text);
    return st;
}

static double wrap180(double a)
{
    a = fmod(a + 180.0, 360.0);
    return (a < 0.0 ? a + 360.0 : a) - 180.0;
}

/* The recorded path as the sensor's trajectory: pose k at (k + pose_time) periods, and one more key
 * at each end, extrapolated, so that the first and last sweeps move as their neighbours do. */
lsim_status lsim_twin_set_trajectory(lsim_twin_run *run)
{
    const size_t n = run->poses, m = n + (n > 1 ? 2 : 0);
    double *t = malloc(m * sizeof *t), (*xyz)[3] = malloc(m * sizeof *xyz), (*rpy)[3] = malloc(m * sizeof *rpy);
    lsim_status st = LSIM_OK;
    if (!t || !xyz || !rpy) {
        st = lsim_fail(run->ctx, LSIM_ERR_OUT_OF_MEMORY, "twin: out of memory (%zu poses)", n);
        goto done;
    }
    const double a = run->opt->pose_time;
    const size_t o = n > 1 ? 1 : 0;
    for (size_t k = 0; k < n; ++k) {
        t[o + k] = ((double)k + a) * run->period;
        memcpy(xyz[o + k], run->pose_xyz[k], sizeof xyz[0]);
        memcpy(rpy[o + k], run->pose_rpy[k], sizeof rpy[0]);
    }
    if (n > 1) {
        const size_t ends[2][3] = {{0, 1, 2}, {m - 1, m - 2, m - 3}}; /* new key, nearest, next */
        for (int e = 0; e < 2; ++e) {
            const size_t k = ends[e][0], a1 = ends[e][1], a2 = ends[e][2];
            t[k] = 2.0 * t[a1] - t[a2];
            for (int i = 0; i < 3; ++i) {
                xyz[k][i] = 2.0 * xyz[a1][i] - xyz[a2][i];
                rpy[k][i] = rpy[a1][i] + wrap180(rpy[a1][i] - rpy[a2][i]);
            }
        }
    }
    run->keys = m;
    st = lsim_sensor_set_trajectory(run->sensor, run->keys, t, (const double(*)[3])xyz, (const double(*)[3])rpy);
    if (st == LSIM_OK) { /* kept for trajectory.csv */
        run->key_t = t, run->key_xyz = xyz, run->key_rpy = rpy;
        return LSIM_OK;
    }
done:
    free(t);
    free(xyz);
    free(rpy);
    return st;
}

void lsim_twin_pose_at(const lsim_twin_run *run, double t, double origin[3], double r[9])
{
    double q[7];
    lsim_sensor_get_pose_at(run->sensor, t, q);
    origin[0] = q[0];
    origin[1] = q[1];
    origin[2] = q[2];
    const double w = q[3], x = q[4], y = q[5], z = q[6];
    r[0] = 1 - 2 * (y * y + z * z), r[1] = 2 * (x * y - w * z), r[2] = 2 * (x * z + w * y);
    r[3] = 2 * (x * y + w * z), r[4] = 1 - 2 * (x * x + z * z), r[5] = 2 * (y * z - w * x);
    r[6] = 2 * (x * z - w * y), r[7] = 2 * (y * z + w * x), r[8] = 1 - 2 * (x * x + y * y);
}

void lsim_twin_frame_free(lsim_twin_frame *f)
{
    free(f->range);
    free(f->refl);
    free(f->intensity);
    free(f->time);
    free(f->p);
    free(f->o);
    free(f->n);
    free(f->rho);
    free(f->state);
    free(f->tri);
    free(f->splat_cell);
    free(f->phase);
    memset(f, 0, sizeof *f);
}

/* Each ring's phase in columns: the circular mean of value / step over its points (value: the
 * beam's azimuth, or its firing time). */
void lsim_twin_ring_phases(const float *time, const uint16_t *ring, const uint16_t *ret, size_t n, int rings,
                           double step, double *phase)
{
    double *c = calloc((size_t)rings * 2, sizeof *c);
    if (!c) { /* no phase: the columns start at 0 */
        memset(phase, 0, (size_t)rings * sizeof *phase);
        return;
    }
    for (size_t i = 0; i < n; ++i)
        if (ring[i] < rings && (!ret || !ret[i]) && isfinite(time[i])) { /* time: the value */
            const double a = 2.0 * PI * (time[i] / step);
            c[2 * ring[i]] += cos(a);
            c[2 * ring[i] + 1] += sin(a);
        }
    for (int r = 0; r < rings; ++r)
        phase[r] = (c[2 * r] || c[2 * r + 1]) ? atan2(c[2 * r + 1], c[2 * r]) / (2.0 * PI) : 0.0;
    free(c);
}

lsim_status lsim_twin_frame_from_points(lsim_twin_run *run, const lsim_points *pts, int64_t index,
                                        lsim_twin_frame *f)
{
    lsim_context *ctx = run->ctx;
    memset(f, 0, sizeof *f);
    f->index = index;
    f->start = (double)index * run->period;
    f->rings = run->rings;
    f->columns = run->columns;
    f->cells = (size_t)run->rings * (size_t)run->columns;
    const size_t n = lsim_points_count(pts), c = f->cells;
    const float *x = lsim_points_column(pts, LSIM_FIELD_X), *y = lsim_points_column(pts, LSIM_FIELD_Y),
                *z = lsim_points_column(pts, LSIM_FIELD_Z), *tm = lsim_points_column(pts, LSIM_FIELD_TIME),
                *refl = lsim_points_column(pts, LSIM_FIELD_REFLECTIVITY),
                *inten = lsim_points_column(pts, LSIM_FIELD_INTENSITY);
    const uint16_t *ring = lsim_points_column(pts, LSIM_FIELD_RING), *ret = lsim_points_column(pts, LSIM_FIELD_RETURN_INDEX);
    if (!ring || !tm)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "twin: frame %lld has no %s field: the beam grid needs each return's ring and firing time "
                         "(a pcap gives both; a point file written by lidarsim holds them)",
                         (long long)index, ring ? "time" : "ring");
    f->range = malloc(c * sizeof *f->range);
    f->refl = malloc(c * sizeof *f->refl);
    f->intensity = malloc(c * sizeof *f->intensity);
    f->time = malloc(c * sizeof *f->time);
    f->p = malloc(15 * c * sizeof *f->p); /* room for a splat per cell */
    f->splat_cell = malloc(c * sizeof *f->splat_cell);
    f->verts = c;
    f->o = malloc(3 * c * sizeof *f->o);
    f->n = calloc(3 * c, sizeof *f->n);
    f->rho = malloc(5 * c * sizeof *f->rho);
    f->state = calloc(c, 1);
    double *phase = malloc((size_t)run->rings * sizeof *phase);
    f->phase = phase;
    if (!f->range || !f->refl || !f->intensity || !f->time || !f->p || !f->o || !f->n || !f->rho || !f->state || !f->splat_cell || !phase) {
        lsim_twin_frame_free(f);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "twin: out of memory (a grid of %zu cells)", c);
    }
    for (size_t i = 0; i < c; ++i)
        f->range[i] = f->refl[i] = f->intensity[i] = f->rho[i] = NAN;
    /* columns by the beam's azimuth where the points hold it (a staggered head's rings then line up
     * as they look, not as they fire), else by firing time */
    const float *az_col = lsim_points_column(pts, LSIM_FIELD_AZIMUTH);
    const float *key = az_col ? az_col : tm;
    f->by_azimuth = az_col != NULL;
    const double step = az_col ? 360.0 / run->columns : run->period / run->columns;
    lsim_twin_ring_phases(key, ring, ret, n, run->rings, step, phase);
    double az_sum[LSIM_TWIN_AZ_BINS][2] = {{0}};
    uint64_t beyond = 0;
    for (size_t i = 0; i < n; ++i) {
        if (ret && ret[i])
            continue; /* the first echo of each beam */
        if (!(isfinite(x[i]) && isfinite(y[i]) && isfinite(z[i]) && isfinite(tm[i]) && isfinite(key[i])))
            continue;
        const double d2 = (double)x[i] * x[i] + (double)y[i] * y[i] + (double)z[i] * z[i];
        if (!(d2 > 1e-6))
            continue; /* a miss kept as a point */
        if (ring[i] >= run->rings) {
            ++beyond;
            continue;
        }
        long col = lround(key[i] / step - phase[ring[i]]);
        col %= run->columns;
        col += col < 0 ? run->columns : 0;
        const size_t k = (size_t)ring[i] * (size_t)run->columns + (size_t)col;
        if (f->state[k])
            continue; /* two returns on one cell: the first read */
        double o[3], r[9];
        /* the pose at the return's own time (the baseline: the frame's pose for all) */
        lsim_twin_pose_at(run, f->start + (run->opt->naive ? run->opt->pose_time * run->period : tm[i]), o, r);
        const double px = r[0] * x[i] + r[1] * y[i] + r[2] * z[i] + o[0];
        const double py = r[3] * x[i] + r[4] * y[i] + r[5] * z[i] + o[1];
        const double pz = r[6] * x[i] + r[7] * y[i] + r[8] * z[i] + o[2];
        f->state[k] = LSIM_TWIN_CELL_HIT;
        f->p[3 * k] = (float)px, f->p[3 * k + 1] = (float)py, f->p[3 * k + 2] = (float)pz;
        f->o[3 * k] = (float)o[0], f->o[3 * k + 1] = (float)o[1], f->o[3 * k + 2] = (float)o[2];
        f->range[k] = (float)sqrt((px - o[0]) * (px - o[0]) + (py - o[1]) * (py - o[1]) + (pz - o[2]) * (pz - o[2]));
        f->time[k] = tm[i];
        f->refl[k] = refl ? refl[i] : NAN;
        f->intensity[k] = inten ? inten[i] : NAN;
        ++f->points;
        /* the firing time of this azimuth (sensor frame), a circular mean over the sweep */
        double az = atan2(y[i], x[i]) * 180.0 / PI + 180.0;
        int b = (int)(az / 360.0 * LSIM_TWIN_AZ_BINS);
        b = b < 0 ? 0 : b >= LSIM_TWIN_AZ_BINS ? LSIM_TWIN_AZ_BINS - 1 : b;
        const double a = 2.0 * PI * tm[i] / run->period;
        az_sum[b][0] += cos(a);
        az_sum[b][1] += sin(a);
    }
    if (beyond)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "twin: frame %lld has %llu returns on rings beyond the sensor's %d: a recording of another "
                         "sensor than its calibration", (long long)index, (unsigned long long)beyond, run->rings);
    /* bins without returns take the nearest filled one's time */
    int filled = -1;
    for (int b = 0; b < LSIM_TWIN_AZ_BINS; ++b)
        if (az_sum[b][0] || az_sum[b][1]) {
            double t = atan2(az_sum[b][1], az_sum[b][0]) / (2.0 * PI) * run->period;
            f->az_time[b] = t < 0.0 ? t + run->period : t;
            filled = b;
        } else {
            f->az_time[b] = NAN;
        }
    for (int b = 0; b < LSIM_TWIN_AZ_BINS; ++b)
        if (isnan(f->az_time[b])) {
            double best = filled >= 0 ? f->az_time[filled] : 0.5 * run->period;
            for (int d = 1; d < LSIM_TWIN_AZ_BINS / 2; ++d) {
                const double a = f->az_time[(b + d) % LSIM_TWIN_AZ_BINS],
                             c2 = f->az_time[(b - d + LSIM_TWIN_AZ_BINS) % LSIM_TWIN_AZ_BINS];
                if (!isnan(a) || !isnan(c2)) {
                    best = !isnan(a) ? a : c2;
                    break;
                }
            }
            f->az_time[b] = best; /* a later bin may read it: nearest then, too */
        }
    return LSIM_OK;
}
