/* Private to the frame loop: what every slice of one frame shares (set up once per frame), and
 * the per-slice stages. scan.c runs the frame; frame_setup.c prepares it; slice.c traces a slice
 * and follows its paths (optics); measure.c turns a beam's contributions into echoes (receiver,
 * noise). */
#ifndef LSIM_PIPELINE_FRAME_SETUP_H
#define LSIM_PIPELINE_FRAME_SETUP_H

#include "pipeline/frame.h"
#include "noise/noise.h"
#include "receiver/cw.h"
#include "receiver/overlap.h"

typedef struct lsim_frame_setup {
    const lsim_sensor *sensor;
    const lsim_engine *engine; /* the scene's (frame_cache.h), set by the frame after the setup */
    lsim_optics optics;
    lsim_subrays subrays;
    lsim_receiver receiver;
    int cw;               /* continuous-wave receiver (cw below) instead of the pulsed one */
    lsim_cw_receiver cw_receiver;
    lsim_fog fog;
    lsim_noise_model noise_model;
    const lsim_surfaces *surfaces;
    float range_resolution;
    float merge_tolerance; /* contributions of one surface closer than this may merge (sigma / 2) */
    lsim_overlap overlap;  /* of every echo and the background (none: as before, fog keeps its ramp) */
    float ambient_ref;     /* background (intensity units) that lifts the threshold by sqrt2; 0: no rise */
    double threshold;
    const lsim_drop_table *drop; /* the sensor's measured ray drop; NULL: none, or noise off */
    int noise, kernel;
    uint64_t seed;
    uint32_t frame;
} lsim_frame_setup;

/* Per-object surface data of the scene into ws->surfaces. */
void lsim_frame_fill_surfaces(const lsim_scene *scene, lsim_frame_workspace *ws);
/* Everything one frame's slices share. */
/* The overlap of every echo from the spec's receiver (receiver/overlap.h). */
void lsim_overlap_make(lsim_overlap *o, const lsim_receiver_spec *r);
void lsim_frame_setup_make(lsim_frame_setup *f, lsim_scene *scene, const lsim_sensor *sensor,
                           const lsim_scan_options *options, lsim_frame_workspace *ws);
/* The beams [lo, hi) of one slice: rays, trace, optics, receiver, noise; returns its echoes. */
size_t lsim_frame_slice_run(const lsim_frame_setup *f, lsim_frame_workspace *ws, lsim_frame_scratch *s, size_t lo,
                            size_t hi, double *trace_ms, double *shade_ms, double *noise_ms);
/* Merge contributions of one surface closer in range than tol; keep the cap strongest. */
int lsim_contributions_merge_close(lsim_contribution *c, int n, float tol);
int lsim_contributions_keep_strongest(lsim_contribution *c, int n, int cap);
/* Receiver, noise and gating of one beam into the frame's echo buffer; returns echoes kept. `rng`: the
 * first block of the beam's stream, word k in rng->w[k][at] (lsim_rng_first_blocks), or NULL to draw it. */
size_t lsim_frame_measure_beam(const lsim_frame_setup *f, lsim_echo_buffer *out, size_t beam, lsim_contribution *c,
                               int n, float background, const lsim_rng_blocks *rng, size_t at);
/* The same for a beam with one contribution and no background light (the common case, leaner). */
size_t lsim_frame_measure_single(const lsim_frame_setup *f, lsim_echo_buffer *out, size_t beam,
                                 lsim_contribution *c, const lsim_rng_blocks *blocks, size_t at);

#endif
