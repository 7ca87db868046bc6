/* One frame through the data flow: beams -> (sub-)rays -> hits -> contributions (optics,
 * Whitted recursion) -> echoes (pulsed receiver) -> measurements (noise) -> points.
 * The frame loop runs the stages slice by slice: a slice's rays and hits live in per-thread
 * scratch that stays in cache; the echoes, which point emission reads, are frame-sized.
 * The workspace is sized once and reusable frame after frame. */
#ifndef LSIM_PIPELINE_FRAME_H
#define LSIM_PIPELINE_FRAME_H

#include "core/rng_block.h"
#include "lidarsim.h"
#include "geometry/engine.h"
#include "optics/fog.h"
#include "optics/path.h"
#include "optics/wavefront.h"
#include "optics/subrays.h"
#include "receiver/pulsed.h"
#include "sensor/sensor.h"

/* Rays per work item of the frame loop: at most LSIM_FRAME_CHUNK (a slice's arrays stay in
 * L2), fewer for small frames so every thread gets work (lsim_frame_chunk). */
#define LSIM_FRAME_CHUNK 2048
#define LSIM_FRAME_CHUNK_MIN 256
/* Contributions one beam may collect (sub-rays x bounces + fog); the strongest are kept. */
#define LSIM_MAX_CONTRIBUTIONS 64

/* Beams per slice for a frame of n beams on `threads` threads with `subrays` rays per beam. */
static inline size_t lsim_frame_chunk(size_t n, int threads, int subrays)
{
    size_t c = (n / ((size_t)threads * 8) + 63) / 64 * 64;
    c = c < LSIM_FRAME_CHUNK_MIN ? LSIM_FRAME_CHUNK_MIN : c > LSIM_FRAME_CHUNK ? LSIM_FRAME_CHUNK : c;
    if (subrays > 1) {
        size_t per = LSIM_FRAME_CHUNK / (size_t)subrays;
        c = per < 1 ? 1 : per < c ? per : c;
    }
    return c;
}

/* Echoes of a frame: slot b * slots + k is echo k (nearest first) of beam b. Only the arrays the
 * frame's point fields need are held (lsim_echo_fields); the others are NULL and not written. */
typedef struct lsim_echo_buffer {
    int slots;            /* max returns per beam */
    float *range;         /* measured range (always) */
    float *range_clean;   /* noise-free range of the echo: x/y/z_clean */
    float *intensity;     /* measured peak, intensity units: intensity, power, reflectivity */
    float *epw;           /* echo pulse width, metres: epw */
    float *cos_incidence; /* incidence */
    float *nx, *ny, *nz;  /* surface normal facing the sensor, world: nx, ny, nz */
    uint32_t *object;     /* label, instance */
    uint8_t *count;       /* per beam: echoes kept (always) */
} lsim_echo_buffer;

/* The point fields a scan fills: options->fields (0: every field) within the buffer's columns. */
static inline uint32_t lsim_frame_fields(const lsim_scan_options *options, uint32_t buffer_fields)
{
    uint32_t asked = options->fields ? options->fields : LSIM_FIELDS_ALL;
    return asked & buffer_fields;
}

/* Contributions of one beam at most, and of a batch of beams in a thread's buffer. */
#define LSIM_BEAM_CONTRIBUTIONS (LSIM_MAX_CONTRIBUTIONS + LSIM_FOG_MAX_SEGMENTS)
#define LSIM_SLICE_CONTRIBUTIONS (2 * LSIM_FRAME_CHUNK + LSIM_BEAM_CONTRIBUTIONS)

typedef struct lsim_frame_scratch {
    lsim_rays rays; /* LSIM_FRAME_CHUNK each */
    lsim_hits hits;
    lsim_contribution *contributions; /* LSIM_SLICE_CONTRIBUTIONS */
    uint32_t *beam_start;             /* LSIM_FRAME_CHUNK: first contribution of a batch's beam */
    uint16_t *beam_count;
    float *beam_background;
    float *facing[4];                 /* LSIM_FRAME_CHUNK: one-ray beams' facing normal x, y, z and cos(theta) */
    lsim_rng_blocks rng;              /* LSIM_FRAME_CHUNK: the first Philox block of each batch beam's stream */
    lsim_paths paths;                 /* the path trees of the slice's mirror/glass/shadowed sub-rays */
    uint32_t path_ray[LSIM_PATH_GROUP]; /* slice ray of each group member */
    int path_at;                      /* next member to take */
} lsim_frame_scratch;

/* Kernel (blooming) mode: per-beam nearest echo over the rendered image. */
typedef struct lsim_bloom_result {
    float *range, *power;
    uint32_t *object;
    float *cos_incidence, *nx, *ny, *nz;
} lsim_bloom_result;

typedef struct lsim_frame_workspace {
    size_t capacity;       /* beams */
    size_t slot_capacity;  /* beams x slots */
    lsim_echo_buffer echoes;
    size_t chunk;          /* beams per slice of the current frame */
    size_t *chunk_points;  /* [c + 1]: points slice c emits; prefix-summed into offsets by emit */
    lsim_frame_scratch *scratch; /* one per thread */
    int scratch_count;
    lsim_surfaces surfaces;
    size_t object_capacity;
    lsim_bloom_result bloom;
    size_t bloom_capacity;
    struct lsim_bloom_state *bloom_state; /* kernel mode: the kernel and render buffers, kept for the next
                                           * frame (pipeline/kernel_frame.c) */
} lsim_frame_workspace;

/* Size the workspace for a frame of `beams` x `slots` echoes whose points fill `fields` (a
 * LSIM_FIELD_BIT mask): echo arrays no field needs are freed and left NULL. */
lsim_status lsim_frame_workspace_reserve(lsim_context *ctx, lsim_frame_workspace *ws, size_t beams, int slots,
                                         size_t objects, int threads, uint32_t fields);
void lsim_frame_workspace_free(lsim_frame_workspace *ws);
lsim_status lsim_frame_bloom_reserve(lsim_context *ctx, lsim_frame_workspace *ws, size_t beams);
/* Free the kernel mode's state (ws->bloom_state); lsim_frame_workspace_free calls it. */
void lsim_frame_bloom_free(lsim_frame_workspace *ws);

/* A pose as the floats rays are made with: rotation m (row-major) and origin o. */
static inline void lsim_pose_floats(const lsim_pose *p, float m[3][3], float o[3])
{
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            m[i][j] = (float)p->r.m[i][j];
    o[0] = (float)p->t.x;
    o[1] = (float)p->t.y;
    o[2] = (float)p->t.z;
}

/* Ray generation: `count` beams from frame beam `begin`, each expanded into the sub-rays of
 * `subrays`, placed at the sensor's pose (world), accepting hits in [0, range_max]. Ray
 * b * subrays->count + s. */
void lsim_rays_generate(const lsim_sensor *sensor, const lsim_subrays *subrays, size_t begin, size_t count,
                        float range_max, lsim_rays *rays);

/* Kernel mode: render the sensor's field of view through the scene's engine and find each beam's
 * nearest echo with the blooming model (pipeline/kernel_frame.c); fills ws->bloom. */
lsim_status lsim_frame_bloom(lsim_scene *scene, const lsim_engine *engine, const lsim_sensor *sensor,
                             const lsim_optics *optics, double threshold, int threads, lsim_frame_workspace *ws);

/* Emit the echoes (or one miss per beam without echoes, with keep_misses) as points in the
 * requested frame, filling the columns of `fields` (the workspace holds the echo arrays they need).
 * `points` must have capacity >= beams x slots. */
void lsim_points_emit(const lsim_sensor *sensor, const lsim_frame_workspace *ws,
                      const lsim_scan_options *options, uint32_t fields, lsim_points *points, int threads);

/* The two halves of lsim_points_emit, for writing a frame slice by slice: the prefix sum of the
 * slices' point counts (ws->chunk_points[c] becomes the first point of slice c; returns the
 * frame's point count), then the points of slices [first_chunk, end_chunk) into `points` from
 * its index 0 (points->count = their number; capacity must hold them). */
size_t lsim_points_emit_offsets(const lsim_sensor *sensor, const lsim_frame_workspace *ws,
                                const lsim_scan_options *options);
void lsim_points_emit_range(const lsim_sensor *sensor, const lsim_frame_workspace *ws,
                            const lsim_scan_options *options, uint32_t fields, lsim_points *points, int threads,
                            size_t first_chunk, size_t end_chunk);
/* Run one frame into `points` (capacity >= beam count x max returns), filling stats except
 * load/write. */
lsim_status lsim_frame_run(lsim_scene *scene, const lsim_sensor *sensor, const lsim_scan_options *options,
                           lsim_frame_workspace *ws, lsim_points *points);

/* Points per write slice of lsim_scene_scan_write (22 MB with every field). */
#define LSIM_WRITE_SLICE_POINTS ((size_t)1 << 18)
/* lsim_scene_scan_write with write slices of about `slice_points` points (at least one frame
 * slice's worth): the tests force small slices. */
lsim_status lsim_scan_write_sliced(lsim_scene *scene, const lsim_sensor *sensor, const lsim_scan_options *options,
                                   const char *path, lsim_format format, size_t slice_points,
                                   lsim_scan_stats *out_stats);
/* The same for `frames` successive frames into one file (lsim_scene_scan_write_frames). */
#define LSIM_MAX_FRAMES_PER_FILE 100000u
lsim_status lsim_scan_write_frames_sliced(lsim_scene *scene, const lsim_sensor *sensor,
                                          const lsim_scan_options *options, unsigned frames, const char *path,
                                          lsim_format format, size_t slice_points, lsim_scan_stats *out_stats);
/* The same, calling report(user, frames_done) after each write slice: frames_done counts the frames
 * written, a fraction while one is part-written (lidarsim scan --frames N draws its progress from
 * it). report may be NULL. */
typedef void (*lsim_frames_report_fn)(void *user, double frames_done);
lsim_status lsim_scan_write_frames_report(lsim_scene *scene, const lsim_sensor *sensor,
                                          const lsim_scan_options *options, unsigned frames, const char *path,
                                          lsim_format format, size_t slice_points, lsim_scan_stats *out_stats,
                                          lsim_frames_report_fn report, void *user);
/* lsim_scan_write_frames_report for a pcap (LSIM_FORMAT_PCAP, pipeline/scan_pcap.c): each frame
 * scanned whole, then written as the sensor's packets; report after each frame. */
lsim_status lsim_scan_write_pcap(lsim_scene *scene, const lsim_sensor *sensor, const lsim_scan_options *options,
                                 unsigned frames, const char *path, lsim_scan_stats *out_stats,
                                 lsim_frames_report_fn report, void *user);
/* Number of threads an options struct asks for (0 -> all cores). */
int lsim_threads_resolve(int requested);

/* Points a frame of this sensor can produce (beams x max returns). */
size_t lsim_frame_point_capacity(const lsim_sensor *sensor);

#endif
