/* lsim_scene_scan: one frame through every stage, timed per stage. */
#include "pipeline/frame_setup.h"
#include "pipeline/frame_cache.h"

#include "core/clock.h"
#include "core/context.h"
#include "core/motion.h"
#include "core/motion_make.h"
#include "core/rng.h"
#include "formats/format.h"
#include "formats/writers.h"
#include "noise/calibrated.h"
#include "noise/noise.h"
#include "optics/fog.h"
#include "points/points.h"
#include "scene/scene.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
void lsim_scan_options_init(lsim_scan_options *options)
{
    memset(options, 0, sizeof *options);
    options->noise = 1;
    options->frame = LSIM_FRAME_SENSOR;
}

int lsim_threads_resolve(int requested)
{
    if (requested > 0)
        return requested;
    int n = omp_get_num_procs();
    return n > 0 ? n : 1;
}

size_t lsim_frame_point_capacity(const lsim_sensor *sensor)
{
    return sensor->beams.count * (size_t)sensor->spec.receiver.max_returns;
}

/* The sensor as one frame sees it: a shallow copy (sharing the beams, spec and motion) whose pose
 * is the pose at the frame start, with the frame's start and whether it moves during the frame.
 * Every stage gets this copy, so a static sensor runs exactly as before. */
static void frame_sensor(const lsim_sensor *sensor, const lsim_scan_options *options, lsim_sensor *out)
{
    *out = *sensor;
    out->frame_start = options->scan_time;
    out->pose = lsim_sensor_pose_at(sensor, options->scan_time);
    out->frame_moves = lsim_sensor_moves(sensor);
    out->frame_of = sensor;
}

/* 1 if time matters in this frame: a moving sensor or object, or a frame not starting at 0. The
 * writers then record the sensor's pose at the frame start. */
static int frame_timed(const lsim_scene *scene, const lsim_sensor *sensor, const lsim_scan_options *options)
{
    return sensor->frame_moves || options->scan_time != 0.0 || lsim_scene_has_motion(scene);
}

/* Where the sensor was at the frame start, for the writers (tx ty tz qw qx qy qz). */
static void frame_sensor_pose(const lsim_scene *scene, const lsim_sensor *sensor, const lsim_scan_options *options,
                              lsim_points *points)
{
    points->sensor_pose[0] = sensor->pose.t.x;
    points->sensor_pose[1] = sensor->pose.t.y;
    points->sensor_pose[2] = sensor->pose.t.z;
    lsim_mat3_to_quat(&sensor->pose.r, &points->sensor_pose[3]);
    points->timed = frame_timed(scene, sensor, options);
    points->scan_time = options->scan_time;
    points->frame = options->frame;
}

/* Place the moving objects for this frame's sweep ([scan_time, scan_time + span], span = the
 * last beam's time) and check that the sensor and the moving objects stay within the world's
 * +-1e7 m over it. */
static lsim_status frame_time(lsim_scene *scene, lsim_engine *engine, const lsim_sensor *sensor,
                              const lsim_scan_options *options)
{
    lsim_context *ctx = scene->ctx;
    const int moving = lsim_scene_has_instances(scene);
    if (!moving && !sensor->frame_moves)
        return LSIM_OK;
    double span = 0.0;
    const float *time = sensor->beams.time;
    for (size_t i = 0; i < sensor->beams.count; ++i)
        span = time[i] > span ? time[i] : span;
    const double start = options->scan_time, end = start + span;
    const double limit = LSIM_SENSOR_MAX_POSITION_M;
    for (int k = 0; k < 2 && sensor->frame_moves; ++k) {
        lsim_pose p = lsim_sensor_pose_at(sensor, k ? end : start);
        if (!(fabs(p.t.x) <= limit && fabs(p.t.y) <= limit && fabs(p.t.z) <= limit))
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "scan_time %g: the sensor's motion puts it at [%g, %g, %g] at %g s, beyond +-1e7 m of "
                             "the origin; check the scan time, the velocity or the trajectory",
                             options->scan_time, p.t.x, p.t.y, p.t.z, k ? end : start);
    }
    for (size_t i = 0; i < scene->object_count; ++i) {
        const lsim_object *o = &scene->objects[i];
        for (int k = 0; k < 2 && o->motion; ++k) {
            lsim_pose p = lsim_motion_pose(o->motion, k ? end : start);
            if (!(fabs(p.t.x) <= limit && fabs(p.t.y) <= limit && fabs(p.t.z) <= limit))
                return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                                 "scan_time %g: object %zu (%s) moves to [%g, %g, %g] at %g s, beyond +-1e7 m of the "
                                 "origin; check the scan time, its velocity or its trajectory",
                                 options->scan_time, i + 1, o->kind, p.t.x, p.t.y, p.t.z, k ? end : start);
        }
    }
    return moving ? lsim_engine_set_frame_time(engine, ctx, start, span) : LSIM_OK;
}

/* Share of a frame's progress report given to computing its echoes (the rest to emitting and
 * writing its points). */
#define MEASURE_SHARE 0.9

/* The frame up to the echoes (no point emission): the engine (built if the scene has none or
 * changed since: frame_cache.h), workspace sized for `fields`, the frame loop. Fills `stats`
 * except write_ms; noise_ms and total_ms do not yet count the emission.
 * `sensor` is the frame's copy (frame_sensor). With `report`, the calling thread reports
 * frames_done + MEASURE_SHARE x (slices done / slices) as the frame's slices finish. */
static lsim_status frame_measure_reported(lsim_scene *scene, const lsim_sensor *sensor,
                                          const lsim_scan_options *options, lsim_frame_workspace *ws, uint32_t fields,
                                          int threads, lsim_scan_stats *stats, lsim_frames_report_fn report,
                                          void *user, double frames_done)
{
    lsim_context *ctx = scene->ctx;
    const lsim_sensor_spec *spec = &sensor->spec;
    const size_t n = sensor->beams.count;
    double t0 = lsim_now_ms();
    lsim_engine *engine = NULL;
    int builds = 0; /* this frame builds the BVH: its time is this frame's */
    lsim_status st = lsim_scene_engine_ready(scene, &engine, &builds);
    if (st == LSIM_OK)
        st = frame_time(scene, engine, sensor, options);
    if (st != LSIM_OK)
        return st;
    st = lsim_frame_workspace_reserve(ctx, ws, n, spec->receiver.max_returns, scene->object_count, threads, fields);
    if (st != LSIM_OK)
        return st;
    lsim_frame_fill_surfaces(scene, ws);
    lsim_frame_setup f;
    lsim_frame_setup_make(&f, scene, sensor, options, ws);
    f.engine = engine;
    double bloom_ms = 0.0;
    if (f.kernel) {
        double b0 = lsim_now_ms();
        st = lsim_frame_bloom(scene, engine, sensor, &f.optics, f.threshold, threads, ws);
        if (st != LSIM_OK)
            return st;
        bloom_ms = lsim_now_ms() - b0;
    }

    const size_t chunk = ws->chunk = lsim_frame_chunk(n, threads, f.subrays.count);
    const size_t chunks = (n + chunk - 1) / chunk;
    double trace_ms = 0.0, shade_ms = 0.0, noise_ms = 0.0;
    double t2s = lsim_now_ms();
    size_t chunks_done = 0;
#pragma omp parallel num_threads(threads) reduction(+ : trace_ms, shade_ms, noise_ms)
    {
        lsim_frame_scratch *s = &ws->scratch[omp_get_thread_num()];
#pragma omp for schedule(dynamic, 1)
        for (size_t c = 0; c < chunks; ++c) {
            size_t lo = c * chunk, hi = lo + chunk < n ? lo + chunk : n;
            ws->chunk_points[c + 1] = lsim_frame_slice_run(&f, ws, s, lo, hi, &trace_ms, &shade_ms, &noise_ms);
            size_t done;
#pragma omp atomic capture
            done = ++chunks_done;
            if (report && omp_get_thread_num() == 0) /* the caller's thread: the report is not thread-safe */
                report(user, frames_done + MEASURE_SHARE * (double)done / (double)chunks);
        }
    }
    double t2 = lsim_now_ms();
    size_t echoes = 0, returned = 0;
    for (size_t c = 0; c < chunks; ++c)
        echoes += ws->chunk_points[c + 1];
    for (size_t i = 0; i < n; ++i)
        returned += ws->echoes.count[i] > 0;

    memset(stats, 0, sizeof *stats);
    stats->rays = n;
    stats->hits = echoes;
    stats->beams_returned = returned;
    stats->build_ms = builds ? scene->build_ms : 0.0;
    /* Wall time of the frame loop split by each stage's share of the threads' time; the blooming
     * render counts as tracing. */
    double busy = trace_ms + shade_ms + noise_ms, wall = t2 - t2s;
    double scale = busy > 0.0 ? wall / busy : 0.0;
    stats->trace_ms = trace_ms * scale + bloom_ms;
    stats->shade_ms = shade_ms * scale;
    stats->noise_ms = noise_ms * scale;
    stats->load_ms = scene->load_ms;
    stats->total_ms = scene->load_ms + (t2 - t0); /* the commit (a BVH build) too */
    return LSIM_OK;
}

static lsim_status frame_measure(lsim_scene *scene, const lsim_sensor *sensor, const lsim_scan_options *options,
                                 lsim_frame_workspace *ws, uint32_t fields, int threads, lsim_scan_stats *stats)
{
    return frame_measure_reported(scene, sensor, options, ws, fields, threads, stats, NULL, NULL, 0.0);
}

/* PCD VIEWPOINT: where the sensor is in the points' frame (identity in the sensor frame). */
static void frame_viewpoint(const lsim_sensor *sensor, const lsim_scan_options *options, double viewpoint[7])
{
    if (options->frame != LSIM_FRAME_WORLD)
        return;
    viewpoint[0] = sensor->pose.t.x;
    viewpoint[1] = sensor->pose.t.y;
    viewpoint[2] = sensor->pose.t.z;
    lsim_mat3_to_quat(&sensor->pose.r, &viewpoint[3]);
}

lsim_status lsim_frame_run(lsim_scene *scene, const lsim_sensor *sensor, const lsim_scan_options *options,
                           lsim_frame_workspace *ws, lsim_points *points)
{
    lsim_context *ctx = scene->ctx;
    if (points->capacity < lsim_frame_point_capacity(sensor))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "point buffer holds %zu points, the sensor needs %zu (beams x max returns)", points->capacity,
                         lsim_frame_point_capacity(sensor));
    const int threads = lsim_threads_resolve(options->threads);
    const uint32_t fields = lsim_frame_fields(options, points->fields);
    lsim_scan_stats stats;
    lsim_sensor framed;
    frame_sensor(sensor, options, &framed);
    sensor = &framed;
    lsim_status st = frame_measure(scene, sensor, options, ws, fields, threads, &stats);
    if (st != LSIM_OK)
        return st;
    double t2 = lsim_now_ms();
    lsim_points_emit(sensor, ws, options, fields, points, threads);
    double emit_ms = lsim_now_ms() - t2;
    frame_viewpoint(sensor, options, points->viewpoint);
    frame_sensor_pose(scene, sensor, options, points);
    /* Point emission counts with noise (both end in the point buffer). */
    stats.noise_ms += emit_ms;
    stats.total_ms += emit_ms;
    points->stats = stats;
    return LSIM_OK;
}

static lsim_status validate_options(lsim_context *ctx, const lsim_scan_options *o)
{
    if (o->threads < 0 || o->threads > 1024)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "threads %d must be in 0..1024 (0: all cores)", o->threads);
    if (o->frame != LSIM_FRAME_SENSOR && o->frame != LSIM_FRAME_WORLD)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "frame must be LSIM_FRAME_SENSOR or LSIM_FRAME_WORLD");
    if (o->noise != 0 && o->noise != 1)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "noise must be 0 or 1");
    if (!(fabs(o->scan_time) <= LSIM_MOTION_MAX_TIME))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "scan_time %g is invalid; must be a finite number of seconds within +-%g", o->scan_time,
                         LSIM_MOTION_MAX_TIME);
    if (o->fields & ~LSIM_FIELDS_ALL)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "fields 0x%x has bits of no field; use LSIM_FIELD_BIT(LSIM_FIELD_...) bits (0: every field)",
                         (unsigned)o->fields);
    return LSIM_OK;
}

static lsim_status scan_into(lsim_scene *scene, const lsim_sensor *sensor, const lsim_scan_options *options,
                             lsim_points *points)
{
    if (!scene || !sensor || !points)
        return lsim_fail(scene ? scene->ctx : NULL, LSIM_ERR_INVALID_ARGUMENT,
                         "lsim_scene_scan_into: scene, sensor and points must not be NULL");
    lsim_context *ctx = scene->ctx;
    lsim_scan_options defaults;
    if (!options) {
        lsim_scan_options_init(&defaults);
        options = &defaults;
    }
    lsim_status st = validate_options(ctx, options);
    lsim_frame_workspace *ws = NULL;
    if (st == LSIM_OK)
        st = lsim_scene_workspace(scene, &ws);
    if (st == LSIM_OK)
        st = lsim_points_reserve(points, lsim_frame_point_capacity(sensor), options->fields);
    if (st == LSIM_OK)
        st = lsim_points_set_labels(points, scene->labels.names.entries, scene->labels.names.count);
    if (st == LSIM_OK)
        st = lsim_frame_run(scene, sensor, options, ws, points);
    if (st != LSIM_OK)
        points->count = 0;
    return st;
}

/* The public scans hold the scene's lock for the whole frame: the engine (built by the first
 * frame, placed at each frame's time), the cached workspace and the label table are the scene's,
 * so frames of one scene from several threads take turns, each with every thread it asked for. */
lsim_status lsim_scene_scan_into(lsim_scene *scene, const lsim_sensor *sensor, const lsim_scan_options *options,
                                 lsim_points *points)
{
    if (scene)
        lsim_scene_lock(scene);
    lsim_status st = scan_into(scene, sensor, options, points);
    if (scene)
        lsim_scene_unlock(scene);
    return st;
}

static lsim_status scan_new(lsim_scene *scene, const lsim_sensor *sensor, const lsim_scan_options *options,
                            lsim_points **out_points)
{
    if (!scene || !sensor || !out_points)
        return lsim_fail(scene ? scene->ctx : NULL, LSIM_ERR_INVALID_ARGUMENT,
                         "lsim_scene_scan: scene, sensor and out_points must not be NULL");
    lsim_context *ctx = scene->ctx;
    lsim_scan_options defaults;
    if (!options) {
        lsim_scan_options_init(&defaults);
        options = &defaults;
    }
    lsim_status st = validate_options(ctx, options);
    if (st != LSIM_OK)
        return st;
    lsim_points *points = NULL;
    st = lsim_points_alloc_fields(ctx, lsim_frame_point_capacity(sensor), options->fields, &points);
    if (st != LSIM_OK)
        return st;
    st = lsim_points_set_labels(points, scene->labels.names.entries, scene->labels.names.count);
    lsim_frame_workspace *ws = NULL;
    if (st == LSIM_OK)
        st = lsim_scene_workspace(scene, &ws);
    if (st == LSIM_OK)
        st = lsim_frame_run(scene, sensor, options, ws, points);
    if (st != LSIM_OK) {
        lsim_points_destroy(points);
        return st;
    }
    *out_points = points;
    return LSIM_OK;
}

lsim_status lsim_scene_scan(lsim_scene *scene, const lsim_sensor *sensor, const lsim_scan_options *options,
                            lsim_points **out_points)
{
    if (scene)
        lsim_scene_lock(scene);
    lsim_status st = scan_new(scene, sensor, options, out_points);
    if (scene)
        lsim_scene_unlock(scene);
    return st;
}

/* Add one frame's statistics to a file's. Every frame's carry the scene's load time (in load_ms
 * and total_ms): the file's count it once. */
static void stats_add(lsim_scan_stats *sum, const lsim_scan_stats *f)
{
    sum->total_ms -= sum->load_ms;
    sum->load_ms = f->load_ms > sum->load_ms ? f->load_ms : sum->load_ms;
    sum->total_ms += sum->load_ms - f->load_ms;
    sum->rays += f->rays;
    sum->hits += f->hits;
    sum->beams_returned += f->beams_returned;
    sum->build_ms += f->build_ms;
    sum->trace_ms += f->trace_ms;
    sum->shade_ms += f->shade_ms;
    sum->noise_ms += f->noise_ms;
    sum->write_ms += f->write_ms;
    sum->total_ms += f->total_ms;
}

lsim_status lsim_scan_write_frames_sliced(lsim_scene *scene, const lsim_sensor *sensor,
                                          const lsim_scan_options *options, unsigned frames, const char *path,
                                          lsim_format format, size_t slice_points, lsim_scan_stats *out_stats)
{
    return lsim_scan_write_frames_report(scene, sensor, options, frames, path, format, slice_points, out_stats,
                                         NULL, NULL);
}

static lsim_status write_frames(lsim_scene *scene, const lsim_sensor *sensor, const lsim_scan_options *options,
                                unsigned frames, const char *path, lsim_format format, size_t slice_points,
                                lsim_scan_stats *out_stats, lsim_frames_report_fn report, void *user);

lsim_status lsim_scan_write_frames_report(lsim_scene *scene, const lsim_sensor *sensor,
                                          const lsim_scan_options *options, unsigned frames, const char *path,
                                          lsim_format format, size_t slice_points, lsim_scan_stats *out_stats,
                                          lsim_frames_report_fn report, void *user)
{
    lsim_format resolved;
    if (scene && sensor && path && lsim_format_resolve(NULL, path, format, &resolved) == LSIM_OK &&
        resolved == LSIM_FORMAT_PCAP) { /* whole frames, each under the scene's lock */
        lsim_scan_options defaults;
        if (!options)
            lsim_scan_options_init(&defaults);
        return lsim_scan_write_pcap(scene, sensor, options ? options : &defaults, frames, path, out_stats, report,
                                    user);
    }
    if (scene) /* the whole file, as lsim_scene_scan holds it for a frame */
        lsim_scene_lock(scene);
    lsim_status st = write_frames(scene, sensor, options, frames, path, format, slice_points, out_stats, report,
                                  user);
    if (scene)
        lsim_scene_unlock(scene);
    return st;
}

static lsim_status write_frames(lsim_scene *scene, const lsim_sensor *sensor, const lsim_scan_options *options,
                                unsigned frames, const char *path, lsim_format format, size_t slice_points,
                                lsim_scan_stats *out_stats, lsim_frames_report_fn report, void *user)
{
    if (!scene || !sensor || !path)
        return lsim_fail(scene ? scene->ctx : NULL, LSIM_ERR_INVALID_ARGUMENT,
                         "lsim_scene_scan_write: scene, sensor and path must not be NULL");
    lsim_context *ctx = scene->ctx;
    if (!*path)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "lsim_scene_scan_write: the output path is empty: give a file name");
    lsim_scan_options defaults;
    if (!options) {
        lsim_scan_options_init(&defaults);
        options = &defaults;
    }
    lsim_status st = validate_options(ctx, options);
    lsim_format resolved = LSIM_FORMAT_AUTO;
    if (st == LSIM_OK) /* before the (possibly long) frame */
        st = lsim_format_resolve(ctx, path, format, &resolved);
    if (st == LSIM_OK && resolved == LSIM_FORMAT_KITTI)
        st = lsim_kitti_check_path(ctx, path);
    if (st == LSIM_OK && (frames < 1 || frames > LSIM_MAX_FRAMES_PER_FILE))
        st = lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "cannot write '%s': %u frames; give 1..%u", path, frames,
                       (unsigned)LSIM_MAX_FRAMES_PER_FILE);
    if (st == LSIM_OK && frames > 1 && resolved != LSIM_FORMAT_MCAP)
        st = lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                       "cannot write %u frames to '%s': a %s file holds one frame; write MCAP (.mcap, --format mcap) "
                       "for several frames in one file, or one file per frame (--scan-time, --frame-index)",
                       frames, path, lsim_format_name(resolved));
    if (st == LSIM_OK && frames > 1 && !(sensor->spec.rate_hz > 0.0 && isfinite(sensor->spec.rate_hz)))
        st = lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "cannot scan %u frames: the sensor's rate %g Hz gives no "
                       "frame period; set the sensor's rate_hz", frames, sensor->spec.rate_hz);
    const double last_time = options->scan_time + (double)(frames - 1) / sensor->spec.rate_hz;
    if (st == LSIM_OK && !(fabs(last_time) <= LSIM_MOTION_MAX_TIME))
        st = lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "cannot scan %u frames from scan_time %g: the last starts at "
                       "%g s, beyond +-%g s; give fewer frames", frames, options->scan_time, last_time,
                       LSIM_MOTION_MAX_TIME);
    if (st != LSIM_OK)
        return st;
    /* The frames keep what the file holds: the format's fields, or those of options->fields
     * (PCD, PLY, CSV, LAS, MCAP; KITTI's layout is fixed). */
    const uint32_t fields = lsim_format_columns(resolved, options->fields);
    const int threads = lsim_threads_resolve(options->threads);
    lsim_frame_workspace *ws = NULL;
    lsim_scan_stats sum = {0};
    lsim_points *slice = NULL;
    lsim_point_stream stream;
    int stream_open = 0;
    st = lsim_scene_workspace(scene, &ws);
    for (unsigned k = 0; st == LSIM_OK && k < frames; ++k) {
        lsim_scan_options frame_options = *options;
        frame_options.scan_time = options->scan_time + (double)k / (frames > 1 ? sensor->spec.rate_hz : 1.0);
        frame_options.frame_index = options->frame_index + k;
        const lsim_scan_options *o = &frame_options;
        lsim_sensor framed;
        frame_sensor(sensor, o, &framed);
        lsim_scan_stats stats;
        st = frame_measure_reported(scene, &framed, o, ws, fields, threads, &stats, report, user, (double)k);
        if (st != LSIM_OK)
            break;
        if (out_stats) { /* the frame is computed: a failure from here on is the output's */
            *out_stats = sum;
            stats_add(out_stats, &stats);
        }
        double t0 = lsim_now_ms();
        const size_t n = framed.beams.count, chunk = ws->chunk, chunks = (n + chunk - 1) / chunk;
        const size_t total = lsim_points_emit_offsets(&framed, ws, o);
        const size_t *offset = ws->chunk_points; /* [c]: first point of frame slice c; [chunks]: total */
        /* One write slice holds whole frame slices: at least one frame slice's points at most, and no
         * more than the frame's points. */
        const size_t slots = (size_t)(framed.spec.receiver.max_returns > 0 ? framed.spec.receiver.max_returns : 1);
        size_t cap = slice_points > chunk * slots ? slice_points : chunk * slots;
        if (cap > total)
            cap = total;
        if (!slice || slice->capacity < cap) {
            lsim_points_destroy(slice);
            slice = NULL;
            st = lsim_points_alloc_fields(ctx, cap, fields, &slice);
            if (st == LSIM_OK)
                st = lsim_points_set_labels(slice, scene->labels.names.entries, scene->labels.names.count);
            if (st != LSIM_OK)
                break;
        }
        frame_viewpoint(&framed, o, slice->viewpoint);
        frame_sensor_pose(scene, &framed, o, slice);
        if (!stream_open) {
            st = lsim_point_stream_begin(&stream, ctx, path, resolved, fields, total, slice);
            stream_open = 1;
        } else {
            st = lsim_point_stream_next_frame(&stream, total, slice);
        }
        for (size_t c = 0; st == LSIM_OK && c < chunks;) {
            size_t e = c + 1;
            while (e < chunks && offset[e + 1] - offset[c] <= cap)
                ++e;
            lsim_points_emit_range(&framed, ws, o, fields, slice, threads, c, e);
            st = lsim_point_stream_append(&stream, slice);
            c = e;
            if (report && st == LSIM_OK)
                report(user, (double)(k + 1) - (1.0 - MEASURE_SHARE) * (double)(chunks - c) / (double)chunks);
        }
        stats.write_ms = lsim_now_ms() - t0; /* point emission and writing, interleaved */
        stats.total_ms += stats.write_ms;
        stats_add(&sum, &stats);
    }
    if (stream_open)
        st = lsim_point_stream_finish(&stream, st);
    lsim_points_destroy(slice);
    if (st != LSIM_OK) {
        if (out_stats && out_stats->rays) /* computed frames, but the file failed: no write time */
            out_stats->write_ms = 0.0;
        return st;
    }
    if (out_stats)
        *out_stats = sum;
    return LSIM_OK;
}

lsim_status lsim_scan_write_sliced(lsim_scene *scene, const lsim_sensor *sensor, const lsim_scan_options *options,
                                   const char *path, lsim_format format, size_t slice_points,
                                   lsim_scan_stats *out_stats)
{
    return lsim_scan_write_frames_sliced(scene, sensor, options, 1, path, format, slice_points, out_stats);
}

lsim_status lsim_scene_scan_write_frames(lsim_scene *scene, const lsim_sensor *sensor,
                                         const lsim_scan_options *options, unsigned frames, const char *path,
                                         lsim_format format, lsim_scan_stats *out_stats)
{
    return lsim_scan_write_frames_sliced(scene, sensor, options, frames, path, format, LSIM_WRITE_SLICE_POINTS,
                                         out_stats);
}

lsim_status lsim_scene_scan_write(lsim_scene *scene, const lsim_sensor *sensor, const lsim_scan_options *options,
                                  const char *path, lsim_format format, lsim_scan_stats *out_stats)
{
    return lsim_scan_write_sliced(scene, sensor, options, path, format, LSIM_WRITE_SLICE_POINTS, out_stats);
}
