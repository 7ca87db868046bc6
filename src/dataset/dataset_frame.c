/* One frame of a dataset run, done by a worker (dataset_frame.h): moved here from dataset_run.c
 * when frames began to run side by side, one worker a thread. */
#include "dataset/dataset_frame.h"

#include "core/context.h"
#include "formats/field_io.h"
#include "formats/writers.h"
#include "output/atomic_file.h"
#include "points/points.h"
#include "scene/scene.h"
#include "sensor/sensor.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

lsim_status lsim_ds_worker_init(lsim_ds_worker *w, const lsim_ds_plan *plan)
{
    memset(w, 0, sizeof *w);
    w->plan = plan;
    w->sequence = -1;
    lsim_status st = lsim_context_create(&w->ctx);
    if (st != LSIM_OK)
        return lsim_fail(plan->ctx, st, "out of memory for a dataset worker");
    w->buf = malloc(LSIM_DS_WORKER_BUF_BYTES);
    if (!w->buf)
        return lsim_fail(plan->ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for a dataset worker");
    return LSIM_OK;
}

static void drop_sequence(lsim_ds_worker *w)
{
    lsim_frame_workspace_free(&w->ws);
    memset(&w->ws, 0, sizeof w->ws);
    lsim_sensor_destroy(w->sensor);
    lsim_scene_destroy(w->scene);
    w->sensor = NULL;
    w->scene = NULL;
    w->sequence = -1;
}

void lsim_ds_worker_free(lsim_ds_worker *w)
{
    drop_sequence(w);
    lsim_points_destroy(w->noisy);
    lsim_points_destroy(w->clean);
    lsim_points_destroy(w->twin);
    free(w->count_noisy);
    free(w->count_clean);
    free(w->first_clean);
    free(w->buf);
    lsim_context_destroy(w->ctx);
    memset(w, 0, sizeof *w);
}

/* Grow the per-frame buffers to the sensor's beams and points. */
static lsim_status reserve(lsim_ds_worker *w)
{
    const size_t beams = w->sensor->beams.count, cap = lsim_frame_point_capacity(w->sensor);
    const uint32_t scan_fields = w->plan->fields;
    lsim_status st = LSIM_OK;
    lsim_points **p[3] = {&w->noisy, &w->clean, &w->twin};
    for (int k = 0; k < 3 && st == LSIM_OK; ++k) {
        const uint32_t fields = k < 2 ? scan_fields : LSIM_DS_KITTI_FIELDS; /* twin: the KITTI columns */
        if (!*p[k])
            st = lsim_points_alloc_fields(w->ctx, cap, fields, p[k]);
        else if ((*p[k])->capacity < cap)
            st = lsim_points_reserve(*p[k], cap, fields);
    }
    if (st != LSIM_OK)
        return st;
    if (beams > w->beams) {
        uint8_t *a = realloc(w->count_noisy, beams), *b = realloc(w->count_clean, beams);
        w->count_noisy = a ? a : w->count_noisy;
        w->count_clean = b ? b : w->count_clean;
        size_t *f = realloc(w->first_clean, (beams + 1) * sizeof *f);
        w->first_clean = f ? f : w->first_clean;
        if (!a || !b || !f)
            return lsim_fail(w->ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for %zu beams", beams);
        w->beams = beams;
    }
    return LSIM_OK;
}

/* The sequence's scene and sensor, folders and text files, through the dataset's context. */
static lsim_status build_sequence(lsim_ds_worker *w, size_t q)
{
    const lsim_ds_plan *p = w->plan;
    lsim_status st = lsim_dataset_build_sequence(p->dataset, p->seed, q, &w->scene, &w->sensor);
    if (st != LSIM_OK || (st = lsim_dataset_make_dirs(p->ctx, p->out_dir, q, p->points_format)) != LSIM_OK)
        return st;
    const size_t first = q * p->per, count = p->frames - first < p->per ? p->frames - first : p->per;
    double *pose = malloc(12 * count * sizeof *pose), *time = malloc(count * sizeof *time);
    if (!pose || !time) {
        free(pose);
        free(time);
        return lsim_fail(p->ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for sequence %zu's poses", q);
    }
    for (size_t i = 0; i < count && st == LSIM_OK; ++i)
        st = lsim_dataset_place_frame(p->dataset, p->seed, q, i, w->sensor, &time[i], pose + 12 * i);
    if (st == LSIM_OK)
        st = lsim_dataset_write_sequence(p->ctx, p->out_dir, q, count, pose, time, w->scene);
    free(pose);
    free(time);
    return st;
}

lsim_status lsim_ds_worker_sequence(lsim_ds_worker *w, size_t q)
{
    if (w->sequence == (long)q)
        return LSIM_OK;
    drop_sequence(w);
    const lsim_ds_plan *p = w->plan;
    pthread_mutex_lock(p->lock);
    lsim_status st = build_sequence(w, q);
    if (st != LSIM_OK)
        lsim_fail(w->ctx, st, "%s", lsim_context_last_error(p->ctx));
    pthread_mutex_unlock(p->lock);
    if (st != LSIM_OK)
        return st;
    /* The scene and sensor are this worker's alone from here: their scans report to its context. */
    w->scene->ctx = w->ctx;
    w->sensor->ctx = w->ctx;
    w->sequence = (long)q;
    return reserve(w);
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
static void make_twin(lsim_ds_worker *w)
{
    const size_t beams = w->sensor->beams.count;
    w->first_clean[0] = 0;
    for (size_t b = 0; b < beams; ++b)
        w->first_clean[b + 1] = w->first_clean[b] + w->count_clean[b];
    size_t row = 0;
    for (size_t b = 0; b < beams; ++b)
        for (size_t j = 0; j < w->count_noisy[b]; ++j, ++row)
            if (j < w->count_clean[b])
                copy_row(w->twin, row, w->clean, w->first_clean[b] + j);
            else
                nan_row(w->twin, row);
    for (size_t b = 0; b < beams; ++b)
        for (size_t j = w->count_noisy[b]; j < w->count_clean[b]; ++j)
            copy_row(w->twin, row++, w->clean, w->first_clean[b] + j);
    w->twin->count = row;
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
static lsim_status write_frame(lsim_ds_worker *w, size_t q, size_t index)
{
    const lsim_ds_plan *p = w->plan;
    char dir[4000], path[LSIM_DATASET_FRAME_FILES][4400], name[LSIM_DATASET_FRAME_FILES][LSIM_DATASET_NAME_BYTES];
    lsim_dataset_sequence_dir(dir, sizeof dir, p->out_dir, q);
    const lsim_format format = p->points_format;
    lsim_dataset_frame_files(index, format, name);
    FILE *fp[6] = {NULL};
    lsim_atomic_group g;
    lsim_atomic_begin(&g, w->ctx);
    lsim_status st = LSIM_OK;
    for (int k = 0; k < 6 && st == LSIM_OK; ++k) {
        snprintf(path[k], sizeof path[k], "%s/%s", dir, name[k]);
        st = lsim_atomic_open(&g, path[k], &fp[k]);
    }
    if (st == LSIM_OK) {
        lsim_kitti_write_rows(w->noisy, fp[0], fp[1], w->buf);
        write_times(w->noisy, fp[2], w->buf);
        lsim_kitti_write_rows(w->twin, fp[3], fp[4], w->buf);
        write_times(w->twin, fp[5], w->buf);
    }
    if (st == LSIM_OK && format != LSIM_FORMAT_AUTO) { /* a stream in the same group: one commit */
        snprintf(path[6], sizeof path[6], "%s/%s", dir, name[6]);
        lsim_point_stream ps;
        st = lsim_point_stream_begin_in(&ps, &g, path[6], format, lsim_format_fields(format), w->noisy->count,
                                        w->noisy);
        if (st == LSIM_OK)
            st = lsim_point_stream_append(&ps, w->noisy);
        st = lsim_point_stream_finish(&ps, st);
    }
    return lsim_atomic_finish(&g, st);
}

lsim_status lsim_ds_worker_frame(lsim_ds_worker *w, size_t k, char *line, size_t *length, size_t *points)
{
    const lsim_ds_plan *p = w->plan;
    const size_t q = k / p->per, index = k % p->per;
    lsim_status st = lsim_ds_worker_sequence(w, q);
    if (st != LSIM_OK)
        return st;
    double scan_time, pose[12];
    pthread_mutex_lock(p->lock); /* it reports to the dataset's context */
    st = lsim_dataset_place_frame(p->dataset, p->seed, q, index, w->sensor, &scan_time, pose);
    if (st != LSIM_OK)
        lsim_fail(w->ctx, st, "%s", lsim_context_last_error(p->ctx));
    pthread_mutex_unlock(p->lock);
    if (st != LSIM_OK)
        return st;
    lsim_scan_options opt;
    lsim_scan_options_init(&opt);
    opt.seed = p->seed;
    opt.frame_index = (uint32_t)k;
    opt.scan_time = scan_time;
    opt.threads = p->threads;
    opt.fields = p->fields;
    const size_t beams = w->sensor->beams.count;
    for (int clean = 0; clean < 2 && st == LSIM_OK; ++clean) {
        opt.noise = !clean;
        st = lsim_frame_run(w->scene, w->sensor, &opt, &w->ws, clean ? w->clean : w->noisy);
        if (st == LSIM_OK)
            memcpy(clean ? w->count_clean : w->count_noisy, w->ws.echoes.count, beams);
    }
    if (st != LSIM_OK)
        return st;
    make_twin(w);
    if ((st = write_frame(w, q, index)) != LSIM_OK)
        return st;
    *points = w->noisy->count;
    return lsim_dataset_manifest_line(w->ctx, p->manifest, k, w->buf, LSIM_DS_WORKER_BUF_BYTES, line, length);
}
