/* Pattern extraction (raster paper §3.3; lsim_pattern_from_scan in include/lidarsim.h): a scan of a
 * flat wall, taken in the sensor's frame, turned into a beam table (pattern file,
 * sensor/pattern_file.c) whose beams point where the scan's points are. The wall plane is fitted by
 * total least squares: the smallest principal axis of the points. */
#include "lidarsim.h"

#include "core/file_id.h"
#include "formats/scan_columns.h"
#include "output/atomic_file.h"
#include "sensor/sensor.h"

#include "core/context.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RAD_TO_DEG (180.0 / 3.14159265358979323846)

enum { C_X, C_Y, C_Z, C_TIME, C_RING, C_RANGE, C_COUNT };

static int returned(const lsim_scan_columns *c, size_t i)
{
    const double x = c->value[C_X][i], y = c->value[C_Y][i], z = c->value[C_Z][i];
    if (!isfinite(x) || !isfinite(y) || !isfinite(z) || (x == 0.0 && y == 0.0 && z == 0.0))
        return 0;
    if (c->value[C_RANGE]) {
        const double r = c->value[C_RANGE][i];
        if (!isfinite(r) || r <= 0.0)
            return 0;
    }
    return 1;
}

/* Eigen-decomposition of a symmetric 3x3 matrix by Jacobi rotations: eigenvalues w, eigenvectors
 * in the columns of v. */
static void jacobi3(double a[3][3], double w[3], double v[3][3])
{
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            v[i][j] = i == j;
    for (int sweep = 0; sweep < 64; ++sweep) {
        const double off = fabs(a[0][1]) + fabs(a[0][2]) + fabs(a[1][2]);
        const double scale = fabs(a[0][0]) + fabs(a[1][1]) + fabs(a[2][2]);
        if (off <= 1e-300 || off <= 1e-18 * scale)
            break;
        for (int p = 0; p < 2; ++p)
            for (int q = p + 1; q < 3; ++q) {
                if (a[p][q] == 0.0)
                    continue;
                const double theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
                const double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                const double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
                for (int k = 0; k < 3; ++k) { /* a = J^T a J */
                    const double akp = a[k][p], akq = a[k][q];
                    a[k][p] = c * akp - s * akq;
                    a[k][q] = s * akp + c * akq;
                }
                for (int k = 0; k < 3; ++k) {
                    const double apk = a[p][k], aqk = a[q][k];
                    a[p][k] = c * apk - s * aqk;
                    a[q][k] = s * apk + c * aqk;
                }
                for (int k = 0; k < 3; ++k) {
                    const double vkp = v[k][p], vkq = v[k][q];
                    v[k][p] = c * vkp - s * vkq;
                    v[k][q] = s * vkp + c * vkq;
                }
            }
    }
    for (int i = 0; i < 3; ++i)
        w[i] = a[i][i];
}

/* Least-squares plane through the returned points: centroid and smallest principal axis. */
static lsim_status fit_plane(lsim_context *ctx, const char *path, const lsim_scan_columns *c,
                             lsim_pattern_scan_info *info)
{
    double m[3] = {0, 0, 0};
    size_t n = 0;
    for (size_t i = 0; i < c->count; ++i)
        if (returned(c, i)) {
            for (int k = 0; k < 3; ++k)
                m[k] += c->value[k][i];
            ++n;
        }
    for (int k = 0; k < 3; ++k)
        m[k] /= (double)n;
    double a[3][3] = {{0}};
    for (size_t i = 0; i < c->count; ++i)
        if (returned(c, i)) {
            const double d[3] = {c->value[0][i] - m[0], c->value[1][i] - m[1], c->value[2][i] - m[2]};
            for (int p = 0; p < 3; ++p)
                for (int q = 0; q < 3; ++q)
                    a[p][q] += d[p] * d[q];
        }
    double w[3], v[3][3];
    jacobi3(a, w, v);
    int lo = 0, hi = 0;
    for (int k = 1; k < 3; ++k) {
        if (w[k] < w[lo])
            lo = k;
        if (w[k] > w[hi])
            hi = k;
    }
    const int mid = 3 - lo - hi;
    /* the points span a plane only when the middle axis is not negligible beside the largest */
    if (lo == hi || !(w[mid] > 1e-12 * w[hi]) || !(w[hi] > 0.0))
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s: the %zu points with a return lie on one line (or one "
                         "point); a wall plane needs points spread over the wall", path, n);
    double nv[3] = {v[0][lo], v[1][lo], v[2][lo]};
    const double len = sqrt(nv[0] * nv[0] + nv[1] * nv[1] + nv[2] * nv[2]);
    double d = 0.0;
    for (int k = 0; k < 3; ++k) {
        nv[k] /= len;
        d += nv[k] * m[k];
    }
    if (d < 0.0) { /* point from the sensor towards the wall */
        d = -d;
        for (int k = 0; k < 3; ++k)
            nv[k] = -nv[k];
    }
    double ss = 0.0, mx = 0.0;
    for (size_t i = 0; i < c->count; ++i)
        if (returned(c, i)) {
            const double e = fabs(nv[0] * c->value[0][i] + nv[1] * c->value[1][i] + nv[2] * c->value[2][i] - d);
            ss += e * e;
            if (e > mx)
                mx = e;
        }
    info->distance_m = d;
    for (int k = 0; k < 3; ++k)
        info->normal[k] = nv[k] + 0.0; /* no -0 */
    info->rms_m = sqrt(ss / (double)n);
    info->max_m = mx;
    return LSIM_OK;
}

static void write_rows(FILE *fp, const lsim_scan_columns *c, const lsim_pattern_scan_info *info)
{
    fprintf(fp, "# pattern from the scan of a flat wall (lidarsim pattern from-scan): %zu beams; wall at %.6f m, "
            "normal [%.6f, %.6f, %.6f], rms off-plane %.6f m\n", info->beams, info->distance_m, info->normal[0],
            info->normal[1], info->normal[2], info->rms_m);
    fprintf(fp, "azimuth_deg,elevation_deg%s%s\n", info->has_time ? ",time_s" : "", info->has_ring ? ",ring" : "");
    for (size_t i = 0; i < c->count; ++i) {
        if (!returned(c, i))
            continue;
        const double x = c->value[C_X][i], y = c->value[C_Y][i], z = c->value[C_Z][i];
        fprintf(fp, "%.10f,%.10f", atan2(y, x) * RAD_TO_DEG, atan2(z, hypot(x, y)) * RAD_TO_DEG);
        if (info->has_time) {
            const double t = c->value[C_TIME][i];
            fprintf(fp, ",%.9f", isfinite(t) ? t - info->time_shift_s : 0.0);
        }
        if (info->has_ring)
            fprintf(fp, ",%d", (int)c->value[C_RING][i]);
        fputc('\n', fp);
    }
}

static lsim_status convert(lsim_context *ctx, const char *scan_path, const char *out_path, lsim_pattern_scan_info *info)
{
    static const char *const names[C_COUNT] = {"x", "y", "z", "time", "ring", "range"};
    static const int required[C_COUNT] = {1, 1, 1, 0, 0, 0};
    lsim_scan_columns c;
    lsim_status st = lsim_scan_columns_read(ctx, scan_path, C_COUNT, names, required,
                                            "the scan needs x, y, z columns in the sensor frame (time and ring "
                                            "optional), as `lidarsim scan SCENE -o SCAN.csv --frame sensor` "
                                            "writes them", &c);
    if (st != LSIM_OK)
        return st;
    info->rows = c.count;
    info->has_time = c.value[C_TIME] != NULL;
    info->has_ring = c.value[C_RING] != NULL;
    double t_min = INFINITY;
    for (size_t i = 0; i < c.count; ++i) {
        if (!returned(&c, i))
            continue;
        ++info->beams;
        if (info->has_time && isfinite(c.value[C_TIME][i]) && c.value[C_TIME][i] < t_min)
            t_min = c.value[C_TIME][i];
        if (info->has_ring) {
            const double r = c.value[C_RING][i];
            if (!(r >= 0.0 && r <= 65535.0 && r == floor(r))) {
                st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s: point %zu: ring %g is not an integer 0..65535",
                               scan_path, i + 1, r);
                break;
            }
        }
    }
    if (st == LSIM_OK && info->beams > (size_t)LSIM_SENSOR_MAX_BEAMS)
        st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s: %zu points with a return; a pattern holds at most %d "
                       "beams", scan_path, info->beams, LSIM_SENSOR_MAX_BEAMS);
    if (st == LSIM_OK && info->beams < 3)
        st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s: %zu point%s with a return (of %zu rows); a pattern "
                       "from a wall needs at least 3, spread over the wall", scan_path, info->beams,
                       info->beams == 1 ? "" : "s", info->rows);
    if (st == LSIM_OK && info->has_time && t_min < 0.0)
        info->time_shift_s = t_min;
    /* the pattern's times must read back (lsim_pattern_file_read): 0..LSIM_SENSOR_MAX_BEAM_TIME_S */
    for (size_t i = 0; st == LSIM_OK && info->has_time && i < c.count; ++i) {
        const double t = c.value[C_TIME][i];
        if (returned(&c, i) && isfinite(t) && !(t - info->time_shift_s <= LSIM_SENSOR_MAX_BEAM_TIME_S))
            st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s: point %zu: time %g s is %g s after the earliest beam; a "
                           "pattern's beam times span at most %g s (one frame)", scan_path, i + 1, t,
                           t - info->time_shift_s, LSIM_SENSOR_MAX_BEAM_TIME_S);
    }
    if (st == LSIM_OK)
        st = fit_plane(ctx, scan_path, &c, info);
    if (st == LSIM_OK) {
        lsim_atomic_group g;
        lsim_atomic_begin(&g, ctx);
        FILE *fp;
        st = lsim_atomic_open(&g, out_path, &fp);
        if (st == LSIM_OK)
            write_rows(fp, &c, info);
        st = lsim_atomic_finish(&g, st);
    }
    lsim_scan_columns_free(&c);
    return st;
}

void lsim_pattern_options_init(lsim_pattern_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->warnings = 1;
}

static void report(const char *out_path, const lsim_pattern_scan_info *info)
{
    printf("%s: %zu beams (of %zu rows)%s%s\n", out_path, info->beams, info->rows, info->has_time ? ", time_s" : "",
           info->has_ring ? ", ring" : "");
    printf("wall: distance %.4f m, normal [%.5f, %.5f, %.5f], rms off-plane %.4f m (max %.4f m)\n", info->distance_m,
           info->normal[0], info->normal[1], info->normal[2], info->rms_m, info->max_m);
    if (info->time_shift_s != 0.0)
        printf("times shifted by %+.9f s so that the earliest beam fires at 0\n", -info->time_shift_s);
    fflush(stdout);
}

lsim_status lsim_pattern_from_scan(lsim_context *ctx, const char *scan_path, const char *out_path,
                                   const lsim_pattern_options *options, lsim_pattern_scan_info *info)
{
    lsim_pattern_options defaults;
    lsim_pattern_options_init(&defaults);
    const lsim_pattern_options *o = options ? options : &defaults;
    lsim_pattern_scan_info local;
    if (!info)
        info = &local;
    memset(info, 0, sizeof *info);
    if (!scan_path || !out_path)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_pattern_from_scan: the scan and output paths must not "
                         "be NULL");
    if (!(o->wall_distance_m >= 0.0 && o->wall_distance_m <= 1e6))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_pattern_from_scan: wall_distance_m %g is invalid; "
                         "give the wall's distance in metres, > 0 and <= 1e6 (0: not known)", o->wall_distance_m);
    const lsim_file_id in = lsim_file_id_of(scan_path), out = lsim_file_id_of(out_path);
    if (in.known && out.known && lsim_file_id_same(&in, scan_path, &out, out_path))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "the output '%s' is the scan itself; write the pattern "
                         "elsewhere", out_path);
    const lsim_status st = convert(ctx, scan_path, out_path, info);
    if (st != LSIM_OK) {
        memset(info, 0, sizeof *info);
        return st;
    }
    info->planar = info->rms_m <= LSIM_PATTERN_PLANAR_RMS_M;
    info->distance_matches =
        !(o->wall_distance_m > 0.0 && fabs(info->distance_m - o->wall_distance_m) > LSIM_PATTERN_PLANAR_RMS_M);
    if (o->report)
        report(out_path, info);
    if (o->warnings && !info->planar)
        fprintf(stderr, "lidarsim pattern: warning: the points are not planar (rms %.3f m off the fitted plane, "
                "> %.2f m): the capture was not of one flat wall; the directions are still the points' own\n",
                info->rms_m, LSIM_PATTERN_PLANAR_RMS_M);
    if (o->warnings && !info->distance_matches)
        fprintf(stderr, "lidarsim pattern: warning: the fitted wall is at %.4f m, --wall-distance says %.4f m "
                "(off by %.4f m): check the capture and the sensor's range calibration\n", info->distance_m,
                o->wall_distance_m, info->distance_m - o->wall_distance_m);
    return LSIM_OK;
}
