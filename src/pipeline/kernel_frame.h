/* Private to the kernel (blooming) mode of the frame: the state it keeps in the frame workspace
 * between frames (kernel_state.c) and the rendering of the angular image (kernel_frame.c). */
#ifndef LSIM_PIPELINE_KERNEL_FRAME_H
#define LSIM_PIPELINE_KERNEL_FRAME_H

#include "pipeline/frame.h"

#include "optics/blooming.h"

#define LSIM_BLOOM_MAX_PIXELS 60000000u
/* A tile is one batch of rays: rows of TILE_W neighbouring pixels (coherent packets). */
#define TILE_W 64
#define TILE_H 16
#define TILE_PX (TILE_W * TILE_H)
/* Pixels of a sector's image (every row x its columns) at most, unless one tile column's beams
 * need more: 4 Mi pixels, 32 bytes each here plus the blooming's 8-12 bytes. */
#define SECTOR_PIXELS ((size_t)1 << 20)

typedef struct kernel_key {
    char file[sizeof(((lsim_beam_spec *)0)->kernel_file)];
    double divergence_mrad, core_fwhm_deg, halo_level, halo_extent_deg;
    long long file_size, file_mtime_s, file_mtime_ns;
} kernel_key;

typedef struct sector {
    int32_t ta, tb; /* tile columns whose beams it holds: [ta, tb) */
    int32_t bx0, nb; /* its image: tile columns [bx0, bx0 + nb) */
} sector;

struct lsim_bloom_state {
    /* the kernel of the last frame and what it was made from */
    int kernel_ready;
    kernel_key key;
    lsim_kernel kernel;
    /* per beam */
    size_t beam_cap;
    double *azd;              /* azimuth (degrees) on the image's axis: unwrapped from the sweep's start when time matters */
    float *ug, *vg;           /* pixel coordinates in the global image, as the algorithms see them */
    int32_t *bu, *cu, *cv;    /* rounded: the blooming's floor(x + 0.5) (column) and lrintf (search) */
    uint32_t *order;          /* beams by home tile column */
    float *su, *sv, *srange, *spower; /* one sector's beams */
    /* per global column / row / tile column */
    size_t col_cap, row_cap, tcol_cap, tile_cap, sector_cap;
    double *ca, *sa, *ce, *se; /* cos and sin of the columns' azimuths and rows' elevations */
    int32_t *row_of;          /* per global row: the stored (rendered) row that stands for it (kernel_rows.c) */
    int32_t *row_run;         /* per stored row k: the global rows [row_run[k], row_run[k + 1]) it stands for */
    int32_t *stored_y;        /* per stored row: the global row rendered */
    uint8_t *row_mark;        /* per global row: scratch of the row plan */
    uint32_t *col_start;      /* [tc, tc + 1): beams of tile column tc in `order` */
    int32_t *need_lo, *need_hi; /* columns the windows of tile column tc's beams reach */
    uint8_t *covered;         /* per global tile column: some beam's window reaches it */
    float *tc_time;           /* per global tile column: when it is rendered (its beams' mean firing time) */
    float *tc_pose;           /* per global tile column: the sensor's pose then, origin (3) + rotation (9) */
    sector *sectors;
    uint32_t *jobs;           /* tiles of a sector to render or clear */
    /* a sector's image: stride x the stored rows, stride the widest sector's */
    size_t px_cap, bm_cap;
    float *intensity, *range, *cos_incidence, *nx, *ny, *nz;
    uint32_t *object;
    int32_t *slice;           /* floor(range / range_bin) where intensity > 0, else -1 */
    float *blockmax;          /* [row][tile column]: brightest pixel of the tile's row */
    lsim_bloom_workspace bloom; /* the blooming algorithms' buffers */
    /* per thread: one tile's rays and hits */
    int batches;
    lsim_rays *rays;
    lsim_hits *hits;
};

/* The rows of the global image (H rows) that the frame renders: every row within the kernel's
 * core of some beam's row, and one row in HALO_ROW_STEP elsewhere (the halo's rows), unless
 * `coarse_halo` is 0 or the kernel is too small to gain (then every row). Fills row_of, row_run
 * and stored_y; returns the number of stored rows. The beams are those of ug/vg with a window
 * (bu >= -half_u). kernel_rows.c. */
#define HALO_ROW_STEP 4
int lsim_bloom_plan_rows(struct lsim_bloom_state *s, const lsim_kernel *k, int height, size_t beams, int coarse_halo);
/* The core's half height in rows: the smallest R with v[n] <= KERNEL_CORE_LEVEL max(v) for |n| > R. */
#define KERNEL_CORE_LEVEL 1e-3
int lsim_kernel_core_half(const lsim_kernel *k);

/* The sensor's kernel: the cached one when its settings (and file) are unchanged. */
lsim_status lsim_bloom_state_kernel(lsim_context *ctx, struct lsim_bloom_state *s, const lsim_beam_spec *b);
/* Grow the per-beam, per-grid, per-image and per-thread buffers (they only grow); 0 when out of
 * memory (what was grown stays, and lsim_frame_bloom_free frees it). */
int lsim_bloom_state_beams(struct lsim_bloom_state *s, size_t n);
int lsim_bloom_state_grid(struct lsim_bloom_state *s, size_t cols, size_t rows, size_t tcols, size_t tiles);
int lsim_bloom_state_image(struct lsim_bloom_state *s, size_t px, size_t blocks);
int lsim_bloom_state_batches(struct lsim_bloom_state *s, int threads);

#endif
