/* The dataset runner (dataset_run.h): the frames this writer owns, each scanned twice (noisy, then
 * clean: noise and drop-outs off, the same seed, frame index and time) and written atomically, then
 * recorded in the manifest. A sequence's scene and sensor are built when its first owned frame
 * comes and kept for its later frames. */
#include "dataset/dataset_run.h"

#include "core/context.h"
#include "core/progress.h"
#include "dataset/dataset_internal.h"
#include "formats/field_io.h"
#include "formats/writers.h"
#include "output/atomic_file.h"
#include "pipeline/frame.h"
#include "points/points.h"
#include "scene/scene.h"
#include "sensor/sensor.h"

#include <math.h>
#include <stdint.h>
#include <sys/file.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define FIELDS                                                                                                  \
    (LSIM_FIELD_BIT(LSIM_FIELD_X) | LSIM_FIELD_BIT(LSIM_FIELD_Y) | LSIM_FIELD_BIT(LSIM_FIELD_Z) |               \
     LSIM_FIELD_BIT(LSIM_FIELD_REFLECTIVITY) | LSIM_FIELD_BIT(LSIM_FIELD_LABEL) |                               \
     LSIM_FIELD_BIT(LSIM_FIELD_INSTANCE) | LSIM_FIELD_BIT(LSIM_FIELD_TIME))

typedef struct run_state {
    lsim_context *ctx;
    const lsim_dataset *dataset;
    const lsim_dataset_run_options *o;
    const char *out_dir;
    lsim_dataset_info info;
    uint64_t seed;
    size_t frames, per;
    long sequence; /* built: scene, sensor (-1: none) */
    lsim_scene *scene;
    lsim_sensor *sensor;
    lsim_frame_workspace ws;
    lsim_points *noisy, *clean, *twin;
    uint32_t fields;       /* the scans' (noisy and clean): FIELDS, and with a points format every field it
                              holds (both scans alike: the workspace's echo arrays are not freed and
                              regrown between them) */
    uint8_t *count_noisy, *count_clean;
    size_t *first_clean;
    size_t beams;
    unsigned char *buf; /* KITTI rows */
    int manifest;
} run_state;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void drop_sequence(run_state *s)
{
    lsim_frame_workspace_free(&s->ws);
    memset(&s->ws, 0, sizeof s->ws);
    lsim_sensor_destroy(s->sensor);
    lsim_scene_destroy(s->scene);
    s->sensor = NULL;
    s->scene = NULL;
    s->sequence = -1;
}

/* Grow the per-frame buffers to the sensor's beams and points. */
static lsim_status reserve(run_state *s)
{
    const size_t beams = s->sensor->beams.count, cap = lsim_frame_point_capacity(s->sensor);
    lsim_status st = LSIM_OK;
    lsim_points **p[3] = {&s->noisy, &s->clean, &s->twin};
    for (int k = 0; k < 3 && st == LSIM_OK; ++k) {
        const uint32_t fields = k < 2 ? s->fields : FIELDS; /* twin: the KITTI columns */
        if (!*p[k])
            st = lsim_points_alloc_fields(s->ctx, cap, fields, p[k]);
        else if ((*p[k])->capacity < cap)
            st = lsim_points_reserve(*p[k], cap, fields);
    }
    if (st != LSIM_OK)
        return st;
    if (beams > s->beams) {
        uint8_t *a = realloc(s->count_noisy, beams), *b = realloc(s->count_clean, beams);
        s->count_noisy = a ? a : s->count_noisy;
        s->count_clean = b ? b : s->count_clean;
        size_t *f = realloc(s->first_clean, (beams + 1) * sizeof *f);
        s->first_clean = f ? f : s->first_clean;
        if (!a || !b || !f)
            return lsim_fail(s->ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for %zu beams", beams);
        s->beams = beams;
    }
    return LSIM_OK;
}

/* Build sequence q (its scene and sensor), its folders and its text files. */
static lsim_status open_sequence(run_state *s, size_t q)
{
    drop_sequence(s);
    lsim_status st = lsim_dataset_build_sequence(s->dataset, s->seed, q, &s->scene, &s->sensor);
    if (st != LSIM_OK)
        return st;
    s->sequence = (long)q;
    if ((st = reserve(s)) != LSIM_OK ||
        (st = lsim_dataset_make_dirs(s->ctx, s->out_dir, q, s->info.points_format)) != LSIM_OK)
        return st;
    const size_t first = q * s->per, count = s->frames - first < s->per ? s->frames - first : s->per;
    double *pose = malloc(12 * count * sizeof *pose), *time = malloc(count * sizeof *time);
    if (!pose || !time) {
        free(pose);
        free(time);
        return lsim_fail(s->ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for sequence %zu's poses", q);
    }
    for (size_t i = 0; i < count && st == LSIM_OK; ++i)
        st = lsim_dataset_place_frame(s->dataset, s->seed, q, i, s->sensor, &time[i], pose + 12 * i);
    if (st == LSIM_OK)
        st = lsim_dataset_write_sequence(s->ctx, s->out_dir, q, count, pose, time, s->scene);
    free(pose);
    free(time);
    return st;
}

static void copy_row(lsim_points *to, size_t dst, const lsim_points *from, size_t src)
{
    for (int f = 0; f < LSIM_FIELD_COUNT; ++f)
        if (to->column[f] && from->column[f]) {
            const size_t n = lsim_field_size((lsim_field)f);
            memcpy((char *)to->column[f] + dst * n, (const char *)from->column[f] + src * n, n);
        }
}

static void nan_row(lsim_points *to, size_t dst)
{
    const lsim_field f32[] = {LSIM_FIELD_X, LSIM_FIELD_Y, LSIM_FIELD_Z, LSIM_FIELD_TIME};
    for (size_t k = 0; k < sizeof f32 / sizeof *f32; ++k)
        lsim_points_f32(to, f32[k])[dst] = NAN;
    lsim_points_f32(to, LSIM_FIELD_REFLECTIVITY)[dst] = 0.0f;
    lsim_points_u32(to, LSIM_FIELD_LABEL)[dst] = 0;
    lsim_points_u32(to, LSIM_FIELD_INSTANCE)[dst] = 0;
}

/* twin = the clean scan reordered: row i the clean twin of noisy row i (beam b's echo j is clean
 * beam b's echo j; a NaN row where the clean beam has fewer echoes), then the clean echoes no noisy
 * row has, in beam order. */
static void make_twin(run_state *s)
{
    const size_t beams = s->sensor->beams.count;
    s->first_clean[0] = 0;
    for (size_t b = 0; b < beams; ++b)
        s->first_clean[b + 1] = s->first_clean[b] + s->count_clean[b];
    size_t row = 0;
    for (size_t b = 0; b < beams; ++b)
        for (size_t j = 0; j < s->count_noisy[b]; ++j, ++row)
            if (j < s->count_clean[b])
                copy_row(s->twin, row, s->clean, s->first_clean[b] + j);
            else
                nan_row(s->twin, row);
    for (size_t b = 0; b < beams; ++b)
        for (size_t j = s->count_noisy[b]; j < s->count_clean[b]; ++j)
            copy_row(s->twin, row++, s->clean, s->first_clean[b] + j);
    s->twin->count = row;
}

static void write_times(const lsim_points *p, FILE *fp, unsigned char *buf)
{
    const float *t = p->column[LSIM_FIELD_TIME];
    for (size_t first = 0; first < p->count && !ferror(fp); first += 4 * LSIM_KITTI_ROWS) {
        const size_t n = p->count - first < 4 * LSIM_KITTI_ROWS ? p->count - first : 4 * LSIM_KITTI_ROWS;
        for (size_t k = 0; k < n; ++k)
            lsim_io_put_f32le(buf + 4 * k, t[first + k]);
        fwrite(buf, 4, n, fp);
    }
}

/* The frame's six files, and its point file with a points format: all or none. */
static lsim_status write_frame(run_state *s, size_t q, size_t index)
{
    char dir[4000], path[LSIM_DATASET_FRAME_FILES][4400], name[LSIM_DATASET_FRAME_FILES][LSIM_DATASET_NAME_BYTES];
    lsim_dataset_sequence_dir(dir, sizeof dir, s->out_dir, q);
    const lsim_format format = s->info.points_format;
    lsim_dataset_frame_files(index, format, name);
    FILE *fp[6] = {NULL};
    lsim_atomic_group g;
    lsim_atomic_begin(&g, s->ctx);
    lsim_status st = LSIM_OK;
    for (int k = 0; k < 6 && st == LSIM_OK; ++k) {
        snprintf(path[k], sizeof path[k], "%s/%s", dir, name[k]);
        st = lsim_atomic_open(&g, path[k], &fp[k]);
    }
    if (st == LSIM_OK) {
        lsim_kitti_write_rows(s->noisy, fp[0], fp[1], s->buf);
        write_times(s->noisy, fp[2], s->buf);
        lsim_kitti_write_rows(s->twin, fp[3], fp[4], s->buf);
        write_times(s->twin, fp[5], s->buf);
    }
    if (st == LSIM_OK && format != LSIM_FORMAT_AUTO) { /* a stream in the same group: one commit */
        snprintf(path[6], sizeof path[6], "%s/%s", dir, name[6]);
        lsim_point_stream ps;
        st = lsim_point_stream_begin_in(&ps, &g, path[6], format, lsim_format_fields(format), s->noisy->count,
                                        s->noisy);
        if (st == LSIM_OK)
            st = lsim_point_stream_append(&ps, s->noisy);
        st = lsim_point_stream_finish(&ps, st);
    }
    return lsim_atomic_finish(&g, st);
}

static lsim_status run_frame(run_state *s, size_t k)
{
    const size_t q = k / s->per, index = k % s->per;
    lsim_status st = LSIM_OK;
    if (s->sequence != (long)q && (st = open_sequence(s, q)) != LSIM_OK)
        return st;
    double scan_time, pose[12];
    if ((st = lsim_dataset_place_frame(s->dataset, s->seed, q, index, s->sensor, &scan_time, pose)) != LSIM_OK)
        return st;
    lsim_scan_options opt;
    lsim_scan_options_init(&opt);
    opt.seed = s->seed;
    opt.frame_index = (uint32_t)k;
    opt.scan_time = scan_time;
    opt.threads = s->o->threads;
    opt.fields = s->fields;
    const size_t beams = s->sensor->beams.count;
    for (int clean = 0; clean < 2 && st == LSIM_OK; ++clean) {
        opt.noise = !clean;
        st = lsim_frame_run(s->scene, s->sensor, &opt, &s->ws, clean ? s->clean : s->noisy);
        if (st == LSIM_OK)
            memcpy(clean ? s->count_clean : s->count_noisy, s->ws.echoes.count, beams);
    }
    if (st != LSIM_OK)
        return st;
    make_twin(s);
    return write_frame(s, q, index);
}

void lsim_dataset_run_options_init(lsim_dataset_run_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->shards = 1;
    o->ranks = 1;
    o->progress = LSIM_PROGRESS_OFF;
}

lsim_status lsim_dataset_run(const lsim_dataset *dataset, const char *out_dir, const lsim_dataset_run_options *options,
                             lsim_dataset_run_stats *out_stats)
{
    lsim_dataset_run_stats local;
    lsim_dataset_run_stats *stats = out_stats ? out_stats : &local;
    memset(stats, 0, sizeof *stats);
    if (!dataset)
        return LSIM_ERR_INVALID_ARGUMENT;
    lsim_context *ctx = dataset->ctx;
    if (!out_dir || !*out_dir)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_dataset_run: no output folder given");
    lsim_dataset_run_options defaults;
    lsim_dataset_run_options_init(&defaults);
    const lsim_dataset_run_options *o = options ? options : &defaults;
    const double t0 = now_s();
    run_state s;
    memset(&s, 0, sizeof s);
    s.ctx = ctx;
    s.dataset = dataset;
    s.o = o;
    s.out_dir = out_dir;
    s.sequence = -1;
    s.manifest = -1;
    lsim_dataset_get_info(dataset, &s.info);
    s.seed = o->seed_given ? o->seed : s.info.seed;
    s.frames = o->frames ? o->frames : s.info.frames;
    s.per = s.info.frames_per_sequence;
    if (o->points_format != LSIM_FORMAT_AUTO && !lsim_dataset_points_format_ok(o->points_format))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "points format %d (%s): give one of %s, or LSIM_FORMAT_AUTO "
                         "for the config's", (int)o->points_format, lsim_format_name(o->points_format),
                         LSIM_DATASET_POINTS_FORMATS);
    if (o->points_format != LSIM_FORMAT_AUTO)
        s.info.points_format = o->points_format;
    s.fields = FIELDS;
    if (s.info.points_format != LSIM_FORMAT_AUTO) /* only then: the default scans no more than it writes */
        s.fields |= lsim_format_fields(s.info.points_format);
    if (o->shards == 0 || o->shard >= o->shards || o->ranks == 0 || o->rank >= o->ranks)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "shard %u of %u, rank %u of %u: need shard < shards, rank < ranks",
                         o->shard, o->shards, o->rank, o->ranks);
    if (o->threads < 0 || o->threads > 1024)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "threads %d is invalid; valid: 0..1024 (0 = all cores)",
                         o->threads);
    if (s.frames == 0 || s.frames > UINT32_MAX)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "%zu frames: give 1 .. %u", s.frames, UINT32_MAX);
    stats->frames = s.frames;
    stats->first_redone = stats->first_empty = SIZE_MAX;
    const lsim_dataset_split split = lsim_dataset_split_make(s.frames, s.per, o->shard, o->shards, o->rank, o->ranks);
    unsigned char *done = calloc(s.frames, 1);
    s.buf = malloc(16 * LSIM_KITTI_ROWS);
    if (!done || !s.buf) {
        free(done);
        free(s.buf);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for %zu frames", s.frames);
    }
    /* no output may replace an input: checked for every planned file before any is written */
    lsim_status st = lsim_dataset_check_planned(ctx, out_dir, s.frames, s.per, s.info.points_format, &split);
    if (st == LSIM_OK)
        st = lsim_dataset_check_root(ctx, out_dir, &s.info, s.seed, s.frames);
    if (st == LSIM_OK)
        st = lsim_dataset_make_dirs(ctx, out_dir, SIZE_MAX, LSIM_FORMAT_AUTO);
    /* leftovers of killed runs first: all of them when no other writer runs here */
    int lock = -1, alone = 0;
    if (st == LSIM_OK) {
        lsim_dataset_lock(out_dir, &lock, &alone);
        st = lsim_dataset_clean(ctx, out_dir, s.per, &split, alone, &stats->cleaned);
        if (lock >= 0 && alone)
            (void)flock(lock, LOCK_SH); /* from now on others may run beside this one */
    }
    const lsim_dataset_manifest_scan scan = {out_dir, s.frames, s.per, s.info.points_format, &split, s.buf,
                                             16 * LSIM_KITTI_ROWS};
    if (st == LSIM_OK)
        st = lsim_dataset_manifest_read(ctx, &scan, done);
    for (size_t k = 0; k < s.frames; ++k)
        if (lsim_dataset_owns(&split, k)) {
            ++stats->mine;
            stats->done_before += done[k] == LSIM_MANIFEST_DONE;
            if (done[k] == LSIM_MANIFEST_DAMAGED || done[k] == LSIM_MANIFEST_UNCHECKED) {
                stats->first_redone = stats->redone++ ? stats->first_redone : k;
                done[k] = LSIM_MANIFEST_ABSENT;
            }
        }
    if (st == LSIM_OK)
        st = lsim_dataset_manifest_open(ctx, out_dir, o, &s.manifest);
    /* the root files: by the writer of frame 0, from sequence 0's scene */
    if (st == LSIM_OK && lsim_dataset_owns(&split, 0) && (st = open_sequence(&s, 0)) == LSIM_OK)
        st = lsim_dataset_write_root(ctx, out_dir, &s.info, s.seed, s.frames, s.scene);
    lsim_progress p;
    lsim_progress_start(&p, o->progress, stderr, "dataset", "frames",
                        (double)(stats->mine - stats->done_before), 0.0);
    size_t written = 0;
    for (size_t k = 0; k < s.frames && st == LSIM_OK; ++k) {
        if (!lsim_dataset_owns(&split, k) || done[k])
            continue;
        st = run_frame(&s, k);
        if (st == LSIM_OK)
            st = lsim_dataset_manifest_add(ctx, s.manifest, &scan, k);
        if (st == LSIM_OK) {
            ++stats->written;
            stats->points += s.noisy->count;
            if (s.noisy->count == 0)
                stats->first_empty = stats->empty++ ? stats->first_empty : k;
            lsim_progress_update(&p, (double)++written);
            if (o->stop_after && stats->written >= o->stop_after)
                break;
        }
    }
    lsim_progress_finish(&p, st == LSIM_OK);
    if (s.manifest >= 0)
        close(s.manifest);
    if (lock >= 0)
        close(lock); /* and with it the lock */
    drop_sequence(&s);
    lsim_points_destroy(s.noisy);
    lsim_points_destroy(s.clean);
    lsim_points_destroy(s.twin);
    free(s.count_noisy);
    free(s.count_clean);
    free(s.first_clean);
    free(s.buf);
    free(done);
    stats->seconds = now_s() - t0;
    return st;
}
