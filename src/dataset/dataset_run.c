/* The dataset runner (dataset_run.h): the frames this writer owns, each scanned twice (noisy, then
 * clean: noise and drop-outs off, the same seed, frame index and time) and written atomically, then
 * recorded in the manifest (a frame's work: dataset_frame.c).
 *
 * Frames run side by side: the writer's frames to do are cut into units (runs of at most UNIT_MAX
 * consecutive frames of one sequence, in frame order), and worker threads claim units in order,
 * each frame scanned with one thread on the worker's own scene, sensor and workspace (a worker
 * builds a sequence's scene when its first frame of that sequence comes and keeps it for the
 * sequence's later frames). So the serial parts of a frame (building a sequence's scene and its
 * engine, the clean twin, the files, their fsyncs and the manifest read-back) run beside the other
 * workers' scans instead of between them. This thread appends the manifest lines in frame order
 * (the manifest and the tree are the same bytes for any thread count), reports progress and keeps
 * the statistics; a worker runs at most a window (2 x workers x the unit's length + 1) of frames
 * ahead of the last line appended, so the lines waiting for theirs are bounded. With fewer units than threads, each frame's scan takes the
 * threads left over. */
#include "dataset/dataset_frame.h"

#include "core/context.h"
#include "core/progress.h"
#include "dataset/dataset_internal.h"
#include "formats/writers.h"
#include "points/points.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

/* Frames of a unit at most (and at most the split's block): a sequence of up to UNIT_MAX frames is
 * one unit (one scene build). */
#define UNIT_MAX 64

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A finished frame waiting for its manifest line to be appended: slot ordinal % window. */
typedef struct ds_slot {
    int ready;
    lsim_status st;
    size_t frame, points, length;
    char *message; /* an error's (malloc'ed) */
    char line[LSIM_MANIFEST_LINE_BYTES];
} ds_slot;

/* The frames to do and who does which; every field below `lock` is guarded by it. */
typedef struct ds_queue {
    const lsim_dataset_split *split;
    const unsigned char *done;
    size_t frames, per, todo; /* todo: frames to write this run (owned, not done, within stop_after) */
    size_t unit_max, window;
    pthread_mutex_t *lock;
    pthread_cond_t changed; /* a slot became ready, a line was appended, or stop */
    size_t cursor, claimed; /* next frame to look at; frames (ordinals) claimed */
    size_t appended;        /* lines appended: ordinals below it are recorded */
    int stop;
    ds_slot *slots;
} ds_queue;

typedef struct ds_thread {
    lsim_ds_worker worker;
    ds_queue *queue;
    pthread_t id;
    int started;
} ds_thread;

/* Claim the next unit: up to unit_max frames to do of one sequence, in order (lock held). */
static size_t claim(ds_queue *qu, size_t *frame, size_t *ordinal)
{
    size_t n = 0;
    long sequence = -1;
    while (qu->cursor < qu->frames && qu->claimed < qu->todo && n < qu->unit_max) {
        const size_t k = qu->cursor;
        if (!lsim_dataset_owns(qu->split, k) || qu->done[k]) {
            ++qu->cursor;
            continue;
        }
        if (sequence >= 0 && (long)(k / qu->per) != sequence)
            break;
        sequence = (long)(k / qu->per);
        frame[n] = k;
        ordinal[n++] = qu->claimed++;
        ++qu->cursor;
    }
    return n;
}

static void *work(void *arg)
{
    ds_thread *t = arg;
    ds_queue *qu = t->queue;
    size_t frame[UNIT_MAX], ordinal[UNIT_MAX];
    int failed = 0;
    pthread_mutex_lock(qu->lock);
    for (size_t n; !failed && !qu->stop && (n = claim(qu, frame, ordinal)) > 0;)
        for (size_t i = 0; i < n && !failed; ++i) {
            while (!qu->stop && ordinal[i] >= qu->appended + qu->window)
                pthread_cond_wait(&qu->changed, qu->lock);
            if (qu->stop)
                break;
            pthread_mutex_unlock(qu->lock);
            char line[LSIM_MANIFEST_LINE_BYTES];
            size_t length = 0, points = 0;
            const lsim_status st = lsim_ds_worker_frame(&t->worker, frame[i], line, &length, &points);
            char *message = st != LSIM_OK ? strdup(lsim_context_last_error(t->worker.ctx)) : NULL;
            pthread_mutex_lock(qu->lock);
            ds_slot *s = &qu->slots[ordinal[i] % qu->window];
            s->st = st;
            s->frame = frame[i];
            s->points = points;
            s->length = length;
            s->message = message;
            if (st == LSIM_OK)
                memcpy(s->line, line, length);
            s->ready = 1;
            failed = st != LSIM_OK; /* the frames after it are not recorded: stop here */
            pthread_cond_broadcast(&qu->changed);
        }
    pthread_mutex_unlock(qu->lock);
    return NULL;
}

/* Append the lines in frame order as the workers finish the frames; the first failure (in frame
 * order) ends the run with its message. */
static lsim_status record(ds_queue *qu, lsim_context *ctx, int manifest, lsim_progress *p,
                          lsim_dataset_run_stats *stats)
{
    lsim_status st = LSIM_OK;
    for (size_t i = 0; i < qu->todo && st == LSIM_OK; ++i) {
        pthread_mutex_lock(qu->lock);
        ds_slot *s = &qu->slots[i % qu->window];
        while (!s->ready)
            pthread_cond_wait(&qu->changed, qu->lock);
        st = s->st;
        if (st != LSIM_OK)
            lsim_fail(ctx, st, "%s", s->message ? s->message : "out of memory");
        else
            st = lsim_dataset_manifest_append(ctx, manifest, s->frame, s->line, s->length);
        const size_t frame = s->frame, points = s->points;
        free(s->message);
        memset(s, 0, sizeof *s);
        if (st == LSIM_OK) {
            qu->appended = i + 1;
            pthread_cond_broadcast(&qu->changed);
        }
        pthread_mutex_unlock(qu->lock);
        if (st == LSIM_OK) {
            ++stats->written;
            stats->points += points;
            if (points == 0)
                stats->first_empty = stats->empty++ ? stats->first_empty : frame;
            lsim_progress_update(p, (double)stats->written);
        }
    }
    return st;
}

/* The units of the frames to do (what claim would deal out). */
static size_t count_units(const ds_queue *qu)
{
    size_t units = 0, in_unit = 0, seen = 0;
    long sequence = -1;
    for (size_t k = 0; k < qu->frames && seen < qu->todo; ++k) {
        if (!lsim_dataset_owns(qu->split, k) || qu->done[k])
            continue;
        ++seen;
        if ((long)(k / qu->per) != sequence || in_unit == qu->unit_max) {
            ++units;
            in_unit = 0;
            sequence = (long)(k / qu->per);
        }
        ++in_unit;
    }
    return units;
}

/* Run the workers over the frames to do; workers[0] may hold sequence 0 already (the root files'). */
static lsim_status run_workers(ds_queue *qu, ds_thread *threads, int workers, lsim_context *ctx, int manifest,
                               lsim_progress *p, lsim_dataset_run_stats *stats)
{
    lsim_status st = LSIM_OK;
    qu->slots = calloc(qu->window, sizeof *qu->slots);
    if (!qu->slots || pthread_cond_init(&qu->changed, NULL) != 0) {
        free(qu->slots);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for %zu frames in flight", qu->window);
    }
    for (int i = 0; i < workers && st == LSIM_OK; ++i) {
        threads[i].queue = qu;
        if (pthread_create(&threads[i].id, NULL, work, &threads[i]) != 0)
            st = lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "cannot start dataset worker thread %d of %d", i + 1, workers);
        else
            threads[i].started = 1;
    }
    if (st == LSIM_OK)
        st = record(qu, ctx, manifest, p, stats);
    pthread_mutex_lock(qu->lock);
    qu->stop = 1;
    pthread_cond_broadcast(&qu->changed);
    pthread_mutex_unlock(qu->lock);
    for (int i = 0; i < workers; ++i)
        if (threads[i].started)
            pthread_join(threads[i].id, NULL);
    for (size_t i = 0; i < qu->window; ++i)
        free(qu->slots[i].message);
    free(qu->slots);
    pthread_cond_destroy(&qu->changed);
    return st;
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
    lsim_dataset_info info;
    lsim_dataset_get_info(dataset, &info);
    const uint64_t seed = o->seed_given ? o->seed : info.seed;
    const size_t frames = o->frames ? o->frames : info.frames, per = info.frames_per_sequence;
    if (o->points_format != LSIM_FORMAT_AUTO && !lsim_dataset_points_format_ok(o->points_format))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "points format %d (%s): give one of %s, or LSIM_FORMAT_AUTO "
                         "for the config's", (int)o->points_format, lsim_format_name(o->points_format),
                         LSIM_DATASET_POINTS_FORMATS);
    if (o->points_format != LSIM_FORMAT_AUTO)
        info.points_format = o->points_format;
    uint32_t fields = LSIM_DS_KITTI_FIELDS;
    if (info.points_format != LSIM_FORMAT_AUTO) /* only then: the default scans no more than it writes */
        fields |= lsim_format_fields(info.points_format);
    if (o->shards == 0 || o->shard >= o->shards || o->ranks == 0 || o->rank >= o->ranks)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "shard %u of %u, rank %u of %u: need shard < shards, rank < ranks",
                         o->shard, o->shards, o->rank, o->ranks);
    if (o->threads < 0 || o->threads > 1024)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "threads %d is invalid; valid: 0..1024 (0 = all cores)",
                         o->threads);
    if (frames == 0 || frames > UINT32_MAX)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "%zu frames: give 1 .. %u", frames, UINT32_MAX);
    stats->frames = frames;
    stats->first_redone = stats->first_empty = SIZE_MAX;
    const lsim_dataset_split split = lsim_dataset_split_make(frames, per, o->shard, o->shards, o->rank, o->ranks);
    const int threads = lsim_threads_resolve(o->threads);
    unsigned char *done = calloc(frames, 1), *buf = malloc(LSIM_DS_WORKER_BUF_BYTES);
    ds_thread *workers = calloc((size_t)threads, sizeof *workers);
    if (!done || !buf || !workers) {
        free(done);
        free(buf);
        free(workers);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for %zu frames", frames);
    }
    /* no output may replace an input: checked for every planned file before any is written */
    lsim_status st = lsim_dataset_check_planned(ctx, out_dir, frames, per, info.points_format, &split);
    if (st == LSIM_OK)
        st = lsim_dataset_check_root(ctx, out_dir, &info, seed, frames);
    if (st == LSIM_OK)
        st = lsim_dataset_make_dirs(ctx, out_dir, SIZE_MAX, LSIM_FORMAT_AUTO);
    /* leftovers of killed runs first: all of them when no other writer runs here */
    int lock = -1, alone = 0;
    if (st == LSIM_OK) {
        lsim_dataset_lock(out_dir, &lock, &alone);
        st = lsim_dataset_clean(ctx, out_dir, per, &split, alone, &stats->cleaned);
        if (lock >= 0 && alone)
            (void)flock(lock, LOCK_SH); /* from now on others may run beside this one */
    }
    const lsim_dataset_manifest_scan scan = {out_dir, frames, per, info.points_format, &split, buf,
                                             LSIM_DS_WORKER_BUF_BYTES};
    if (st == LSIM_OK)
        st = lsim_dataset_manifest_read(ctx, &scan, done);
    size_t todo = 0;
    for (size_t k = 0; k < frames; ++k)
        if (lsim_dataset_owns(&split, k)) {
            ++stats->mine;
            stats->done_before += done[k] == LSIM_MANIFEST_DONE;
            if (done[k] == LSIM_MANIFEST_DAMAGED || done[k] == LSIM_MANIFEST_UNCHECKED) {
                stats->first_redone = stats->redone++ ? stats->first_redone : k;
                done[k] = LSIM_MANIFEST_ABSENT;
            }
            todo += done[k] == LSIM_MANIFEST_ABSENT;
        }
    if (o->stop_after && todo > o->stop_after)
        todo = o->stop_after;
    int manifest = -1;
    if (st == LSIM_OK)
        st = lsim_dataset_manifest_open(ctx, out_dir, o, &manifest);
    /* as many workers as threads (fewer with fewer units), each frame's scan the threads left over */
    pthread_mutex_t shared = PTHREAD_MUTEX_INITIALIZER;
    ds_queue qu;
    memset(&qu, 0, sizeof qu);
    qu.split = &split;
    qu.done = done;
    qu.frames = frames;
    qu.per = per;
    qu.todo = todo;
    qu.unit_max = split.block < UNIT_MAX ? split.block : UNIT_MAX;
    qu.lock = &shared;
    const size_t units = count_units(&qu);
    const int count = units == 0 ? 1 : units < (size_t)threads ? (int)units : threads;
    qu.window = 2 * (size_t)count * qu.unit_max + 1;
    lsim_ds_plan plan = {ctx, &shared, dataset, out_dir, info.points_format, seed, frames, per, fields,
                         threads / count, &scan};
    for (int i = 0; i < count && st == LSIM_OK; ++i)
        st = lsim_ds_worker_init(&workers[i].worker, &plan);
    /* the root files: by the writer of frame 0, from sequence 0's scene (the first worker keeps it) */
    if (st == LSIM_OK && lsim_dataset_owns(&split, 0)) {
        st = lsim_ds_worker_sequence(&workers[0].worker, 0);
        if (st != LSIM_OK)
            lsim_fail(ctx, st, "%s", lsim_context_last_error(workers[0].worker.ctx));
        else
            st = lsim_dataset_write_root(ctx, out_dir, &info, seed, frames, workers[0].worker.scene);
    }
    lsim_progress p;
    lsim_progress_start(&p, o->progress, stderr, "dataset", "frames",
                        (double)(stats->mine - stats->done_before), 0.0);
    if (st == LSIM_OK && todo > 0)
        st = run_workers(&qu, workers, count, ctx, manifest, &p, stats);
    lsim_progress_finish(&p, st == LSIM_OK);
    if (manifest >= 0)
        close(manifest);
    if (lock >= 0)
        close(lock); /* and with it the lock */
    for (int i = 0; i < count; ++i) /* calloc'ed: those never made free nothing */
        lsim_ds_worker_free(&workers[i].worker);
    pthread_mutex_destroy(&shared);
    free(workers);
    free(buf);
    free(done);
    stats->seconds = now_s() - t0;
    return st;
}
