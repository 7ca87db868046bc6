/* lsim_twin_build: read the frames and poses, put each frame on its beam grid in the world, mesh,
 * fuse, invert reflectances, measure the drop, write the twin (twin.h, docs/twin.md). */
#include "twin/twin.h"
#include "core/context.h"
#include "core/progress.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define MAX_FRAMES 100000

void lsim_twin_options_init(lsim_twin_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->pose_time = 0.5;
    o->reflectance_levels = 48;
    o->shadow_angle_deg = 3.0;
    o->drop_model = 1;
    o->progress = LSIM_PROGRESS_OFF;
}

static int ends_with(const char *s, const char *suffix)
{
    const size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcasecmp(s + a - b, suffix);
}

/* The sensor's rings, columns and frame period from its description (lsim_sensor_describe). */
static lsim_status sensor_layout(lsim_twin_run *run)
{
    const size_t len = lsim_sensor_describe(run->sensor, NULL, 0);
    char *text = malloc(len + 1);
    if (!text)
        return lsim_fail(run->ctx, LSIM_ERR_OUT_OF_MEMORY, "twin: out of memory");
    lsim_sensor_describe(run->sensor, text, len + 1);
    const char *kind = strstr(text, "\nkind: "), *rate = strstr(text, "\nrate_hz: "), *ch = strstr(text, "\nchannels: "),
               *co = strstr(text, "\ncolumns: ");
    const int rotating = kind && !strncmp(kind + 7, "rotating", 8);
    double hz = rate ? strtod(rate + 10, NULL) : 0.0;
    long rings = ch ? strtol(ch + 11, NULL, 10) : 0, columns = co ? strtol(co + 10, NULL, 10) : 0;
    free(text);
    if (!rotating || !(hz > 0.0) || rings < 1 || columns < 1)
        return lsim_fail(run->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "twin: the sensor '%s' is not a rotating lidar with channels and columns: a twin is built "
                         "from a spinning sensor's frames (Ouster, Velodyne, a rotating preset)",
                         lsim_sensor_name(run->sensor));
    if ((size_t)rings * (size_t)columns > (1u << 26))
        return lsim_fail(run->ctx, LSIM_ERR_INVALID_ARGUMENT, "twin: %ld x %ld beams a frame: more than 2^26", rings,
                         columns);
    /* the mean elevation step between rings, from the beam table */
    const size_t nb = lsim_sensor_beam_count(run->sensor);
    double *el = malloc((nb ? nb : 1) * sizeof *el), *org = malloc((nb ? nb : 1) * 3 * sizeof *org);
    uint16_t *ring = malloc((nb ? nb : 1) * sizeof *ring);
    double *count = calloc((size_t)rings, sizeof *count);
    run->ring_el = calloc((size_t)rings, sizeof *run->ring_el);
    if (!el || !org || !ring || !count || !run->ring_el) {
        free(el), free(org), free(ring), free(count);
        return lsim_fail(run->ctx, LSIM_ERR_OUT_OF_MEMORY, "twin: out of memory");
    }
    lsim_sensor_get_beams(run->sensor, NULL, el, NULL, ring);
    lsim_sensor_get_beam_origins(run->sensor, org);
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < nb; ++i) {
        lo = el[i] < lo ? el[i] : lo, hi = el[i] > hi ? el[i] : hi;
        if (ring[i] < rings) {
            run->ring_el[ring[i]] += el[i];
            count[ring[i]] += 1.0;
        }
        run->origin_z += org[3 * i + 2] / (double)nb;
        run->origin_radial += hypot(org[3 * i], org[3 * i + 1]) / (double)nb;
    }
    for (long r = 0; r < rings; ++r)
        run->ring_el[r] = count[r] > 0.0 ? run->ring_el[r] / count[r] : NAN;
    free(el), free(org), free(ring), free(count);
    double sr, si, det, rmin, rmax, res;
    lsim_sensor_get_noise(run->sensor, &sr, &si, &det);
    lsim_sensor_get_range(run->sensor, &rmin, &rmax, &res);
    run->threshold = det / (rmax * rmax);
    run->ring_step = rings > 1 && hi > lo ? (hi - lo) / (rings - 1) * 3.14159265358979323846 / 180.0 : 0.005;
    run->period = 1.0 / hz;
    run->rings = (int)rings;
    run->columns = (int)columns;
    return LSIM_OK;
}

static int by_name(const void *a, const void *b);

/* A folder of frames: velodyne/ *.bin or points/ *.{pcd,ply,las,csv}, sorted by name. */
static lsim_status list_frames(lsim_context *ctx, const char *dir, char ***out, size_t *count)
{
    static const char *const sub[] = {"points", "velodyne"};
    *out = NULL;
    *count = 0;
    for (int s = 0; s < 2; ++s) {
        char path[4096];
        if (snprintf(path, sizeof path, "%s/%s", dir, sub[s]) >= (int)sizeof path)
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "twin: the path '%s' is too long", dir);
        DIR *d = opendir(path);
        if (!d)
            continue;
        char **names = NULL;
        size_t n = 0, cap = 0;
        lsim_status st = LSIM_OK;
        for (struct dirent *e; (e = readdir(d)) != NULL;) {
            const char *nm = e->d_name;
            if (nm[0] == '.' || !(s ? ends_with(nm, ".bin")
                                    : ends_with(nm, ".pcd") || ends_with(nm, ".ply") || ends_with(nm, ".las") ||
                                          ends_with(nm, ".csv")))
                continue;
            if (n == MAX_FRAMES) {
                st = lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "twin: more than %d frames in %s", MAX_FRAMES, path);
                break;
            }
            if (n == cap) {
                cap = cap ? 2 * cap : 64;
                char **g = realloc(names, cap * sizeof *g);
                if (!g) {
                    st = lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "twin: out of memory");
                    break;
                }
                names = g;
            }
            const size_t len = strlen(path) + strlen(nm) + 2;
            if (!(names[n] = malloc(len))) {
                st = lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "twin: out of memory");
                break;
            }
            snprintf(names[n++], len, "%s/%s", path, nm);
        }
        closedir(d);
        if (st == LSIM_OK && n) {
            qsort(names, n, sizeof *names, by_name);
            *out = names;
            *count = n;
            return LSIM_OK;
        }
        for (size_t i = 0; i < n; ++i)
            free(names[i]);
        free(names);
        if (st != LSIM_OK)
            return st;
    }
    return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                     "twin: '%s' holds no frames: give a pcap with its --metadata, or a sequence folder with "
                     "points/NNNNNN.{pcd,ply,las,csv} or velodyne/NNNNNN.bin and poses.txt", dir);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        free(names[i]);
    free(names);
}

static lsim_status check_options(lsim_context *ctx, const char *recording, const lsim_twin_options *o, const char *dir)
{
    if (!recording || !o || !dir)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "twin: recording, options and folder must not be NULL");
    if (!(o->pose_time >= 0.0 && o->pose_time <= 1.0))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "twin: pose_time %g is not in [0, 1] (where in its frame a pose "
                         "holds: 0.5 mid-sweep, 0 the first firing)", o->pose_time);
    if (o->reflectance_levels < 1 || o->reflectance_levels > 256)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "twin: reflectance_levels %d is not in 1..256",
                         o->reflectance_levels);
    if (!(o->shadow_angle_deg >= 0.1 && o->shadow_angle_deg <= 45.0))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "twin: shadow_angle_deg %g is not in 0.1..45", o->shadow_angle_deg);
    if (o->frame_count && !o->frames)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "twin: frame_count %zu without frames", o->frame_count);
    if (o->frame_count > MAX_FRAMES)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "twin: %zu frames, more than %d", o->frame_count, MAX_FRAMES);
    for (size_t i = 0; i < o->frame_count; ++i) {
        if (o->frames[i] < 0)
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "twin: frame %lld is negative", (long long)o->frames[i]);
        for (size_t j = 0; j < i; ++j)
            if (o->frames[j] == o->frames[i])
                return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "twin: frame %lld is given twice",
                                 (long long)o->frames[i]);
    }
    return LSIM_OK;
}

lsim_status lsim_twin_build(lsim_context *ctx, const char *recording, const lsim_twin_options *opt, const char *dir,
                            lsim_twin_stats *stats)
{
    lsim_status st = check_options(ctx, recording, opt, dir);
    if (st != LSIM_OK)
        return st;
    lsim_twin_stats dummy;
    stats = stats ? stats : &dummy;
    memset(stats, 0, sizeof *stats);
    lsim_twin_run run;
    memset(&run, 0, sizeof run);
    run.ctx = ctx;
    run.opt = opt;
    struct stat sb;
    const int folder = stat(recording, &sb) == 0 && S_ISDIR(sb.st_mode);
    char **names = NULL, poses_path[4096];
    size_t file_frames = 0;
    int64_t *frames = NULL;
    lsim_progress prog;
    memset(&prog, 0, sizeof prog);

    /* the sensor */
    if (opt->calibration) {
        st = lsim_sensor_create_calibrated(ctx, opt->calibration, &run.sensor);
        const char *c = opt->calibration;
        run.calibration_ext = ends_with(c, ".xml") ? ".xml" : (ends_with(c, ".yaml") || ends_with(c, ".yml")) ? ".yaml" : ".json";
    } else if (opt->sensor) {
        st = lsim_sensor_create_preset(ctx, opt->sensor, &run.sensor);
    } else {
        st = lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                       "twin: no sensor: give the recording's calibration (--metadata: an Ouster's metadata JSON, a "
                       "Velodyne's table) or a preset (--sensor NAME)");
    }
    if (st != LSIM_OK || (st = sensor_layout(&run)) != LSIM_OK)
        goto done;

    /* poses and the frames to build from */
    const char *poses = opt->poses;
    if (!poses && folder) {
        if (snprintf(poses_path, sizeof poses_path, "%s/poses.txt", recording) >= (int)sizeof poses_path) {
            st = lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "twin: the path '%s' is too long", recording);
            goto done;
        }
        poses = poses_path;
    }
    if (!poses) {
        st = lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                       "twin: no poses: give the sensor's pose per frame (--poses FILE, KITTI odometry's 3 x 4 a line)");
        goto done;
    }
    if ((st = lsim_twin_read_poses(&run, poses)) != LSIM_OK || (st = lsim_twin_set_trajectory(&run)) != LSIM_OK)
        goto done;
    if (folder && (st = list_frames(ctx, recording, &names, &file_frames)) != LSIM_OK)
        goto done;
    size_t nf = opt->frame_count ? opt->frame_count : run.poses;
    if (folder && !opt->frame_count && file_frames < nf)
        nf = file_frames;
    frames = malloc(nf * sizeof *frames);
    run.frame = calloc(nf, sizeof *run.frame);
    if (!frames || !run.frame) {
        st = lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "twin: out of memory (%zu frames)", nf);
        goto done;
    }
    for (size_t i = 0; i < nf; ++i) {
        frames[i] = opt->frame_count ? opt->frames[i] : (int64_t)i;
        if ((uint64_t)frames[i] >= run.poses) {
            st = lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "twin: frame %lld has no pose: %s holds %zu (frames 0..%zu)",
                           (long long)frames[i], poses, run.poses, run.poses - 1);
            goto done;
        }
        if (folder && (uint64_t)frames[i] >= file_frames) {
            st = lsim_fail(ctx, LSIM_ERR_NOT_FOUND, "twin: frame %lld is not in %s: it holds %zu frames",
                           (long long)frames[i], recording, file_frames);
            goto done;
        }
    }

    /* each frame on its grid */
    lsim_progress_start(&prog, opt->progress, stderr, "twin", "frames", (double)nf + 2.0, 1.0);
    for (size_t i = 0; i < nf; ++i) {
        lsim_points *pts = NULL;
        if (folder) {
            st = lsim_points_read(ctx, names[frames[i]], 0, &pts);
        } else {
            lsim_recording_options ro;
            lsim_recording_options_init(&ro);
            ro.frame = frames[i];
            ro.partial = opt->partial;
            st = lsim_points_read_recording(ctx, recording, opt->calibration, &ro, &pts);
        }
        if (st != LSIM_OK)
            goto done;
        st = lsim_twin_frame_from_points(&run, pts, frames[i], &run.frame[i]);
        lsim_points_destroy(pts);
        if (st != LSIM_OK) {
            lsim_twin_frame_free(&run.frame[i]);
            goto done;
        }
        ++run.frames;
        if ((st = lsim_twin_triangulate(&run, &run.frame[i])) != LSIM_OK)
            goto done;
        lsim_progress_update(&prog, (double)i + 1.0);
    }
    run.range_sigma = opt->naive ? NAN : lsim_twin_measure_noise(&run, &run.noise_patches);
    if (!opt->naive && (st = lsim_twin_fuse(&run)) != LSIM_OK)
        goto done;
    for (size_t i = 0; i < run.frames; ++i) {
        lsim_twin_normals(&run.frame[i]);
        lsim_twin_reflectance(&run, &run.frame[i]);
        stats->points += run.frame[i].points;
        stats->transient += run.frame[i].transient;
        stats->fused += run.frame[i].fused;
    }
    stats->frames = run.frames;
    lsim_progress_update(&prog, (double)nf + 1.0);
    if ((st = lsim_twin_measure_drop(&run)) != LSIM_OK)
        goto done;
    stats->drop_beams = run.drop_beams;
    stats->drop_rate = run.drop_beams ? (double)run.drop_missed / run.drop_beams : 0.0;
    st = lsim_twin_write(&run, dir, recording, stats);
    lsim_progress_update(&prog, (double)nf + 2.0);
done:
    lsim_progress_finish(&prog, st == LSIM_OK);
    if (names)
        free_names(names, file_frames);
    free(frames);
    for (size_t i = 0; i < run.frames; ++i)
        lsim_twin_frame_free(&run.frame[i]);
    free(run.frame);
    free(run.pose_xyz);
    free(run.ring_el);
    free(run.pose_rpy);
    free(run.key_t);
    free(run.key_xyz);
    free(run.key_rpy);
    lsim_sensor_destroy(run.sensor);
    return st;
}
