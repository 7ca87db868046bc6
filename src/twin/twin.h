/* lidarsim twin: a scene rebuilt from a real recording (frames + poses), which lidarsim scans like
 * any other (docs/twin.md).
 *
 * A tool above the pipeline (rank 9, tests/test_layering.py): it reads the frames through the
 * public API, traces its own consistency rays with Embree, and writes the twin with output's output set.
 * Files: twin.c (the run), twin_input.c (frames, poses, the beam grid, deskewing), twin_mesh.c
 * (range-image triangles, moving objects, fusion of the frames), twin_drop.c (the measured ray
 * drop), twin_write.c (scene.yaml, meshes, trajectory, twin.json). */
#ifndef LSIM_TWIN_TWIN_H
#define LSIM_TWIN_TWIN_H

#include "lidarsim.h"

#include <stddef.h>
#include <stdint.h>

#define LSIM_TWIN_AZ_BINS 720 /* the azimuth -> firing time table, 0.5 degree bins */
#define LSIM_TWIN_DROP_R 7     /* drop table: range bins */
#define LSIM_TWIN_DROP_I 6     /* incidence bins */
#define LSIM_TWIN_DROP_F 5     /* reflectance bins */

/* One frame on its beam grid (rings x columns cells, structure of arrays; NaN range: no return). */
typedef struct lsim_twin_frame {
    int64_t index;        /* frame of the recording */
    double start;         /* its start on the scene clock, s */
    int rings, columns;
    int by_azimuth;       /* columns from the beams' azimuths (else from firing times) */
    double *phase;        /* each ring's column phase (rings) */
    size_t cells;
    float *range;         /* metres from the sensor origin at the cell's time (NaN: no return) */
    float *refl;          /* reflectivity as read (NaN: none) */
    float *intensity;     /* intensity as read (NaN: none) */
    float *time;          /* firing time within the frame, s */
    float *p;             /* world position, 3 per vertex: the cells', then 4 per splat */
    float *o;             /* world sensor origin at the cell's time, 3 per cell */
    float *n;             /* vertex normal, 3 per cell (0: none) */
    float *rho;           /* inverted reflectance per vertex (NaN: none) */
    size_t verts;         /* cells + 4 per splat: a return without a triangle, as a square facing its beam */
    uint32_t *splat_cell; /* the cell of each splat (splats entries) */
    size_t splats;
    uint8_t *state;       /* LSIM_TWIN_CELL_* */
    uint32_t *tri;        /* 3 cell indices per triangle */
    size_t triangles;
    double az_time[LSIM_TWIN_AZ_BINS]; /* firing time of each azimuth bin (sensor frame) */
    uint64_t points, transient, fused;
} lsim_twin_frame;

enum { LSIM_TWIN_CELL_EMPTY = 0, LSIM_TWIN_CELL_HIT = 1, LSIM_TWIN_CELL_TRANSIENT = 2 };

/* The recording's layout and the run's settings, shared by the steps. */
typedef struct lsim_twin_run {
    lsim_context *ctx;
    const lsim_twin_options *opt;
    lsim_sensor *sensor;  /* the recording's sensor, on the recorded trajectory */
    double period;        /* s per frame */
    int rings, columns;
    double ring_step;     /* mean elevation step between rings, radians */
    double *ring_el;      /* each ring's mean beam elevation, degrees (rings) */
    double origin_z, origin_radial; /* the beams' mean origin: height, distance from the axis (m) */
    double threshold;     /* the sensor's own detection threshold on the intensity scale */
    size_t poses;         /* poses given (one per frame of the recording) */
    double (*pose_xyz)[3], (*pose_rpy)[3]; /* per pose, world (the first frame's sensor frame) */
    size_t keys;          /* the trajectory's keys (the poses and one extrapolated at each end) */
    double *key_t, (*key_xyz)[3], (*key_rpy)[3];
    const char *calibration_ext; /* ".json", ".yaml" or ".xml": the copied calibration (NULL: a preset) */
    lsim_twin_frame *frame;
    size_t frames;
    /* the measured drop table (twin_drop.c); drop_beams 0: none */
    uint64_t drop_beams, drop_missed, threshold_beams;
    double detection_reflectance; /* the recording's sensitivity (0: the sensor's own) */
    double range_sigma;   /* the recording's range noise on strong echoes (NaN: not measured) */
    uint64_t noise_patches;
    double drop_rate[LSIM_TWIN_DROP_R][LSIM_TWIN_DROP_I][LSIM_TWIN_DROP_F];
    uint64_t drop_n[LSIM_TWIN_DROP_R][LSIM_TWIN_DROP_I][LSIM_TWIN_DROP_F];
} lsim_twin_run;

/* The drop table's bins (lower edges). */
extern const double LSIM_TWIN_DROP_RANGE[LSIM_TWIN_DROP_R], LSIM_TWIN_DROP_INC[LSIM_TWIN_DROP_I],
    LSIM_TWIN_DROP_REFL[LSIM_TWIN_DROP_F];

/* twin_input.c */
lsim_status lsim_twin_read_poses(lsim_twin_run *run, const char *path);
lsim_status lsim_twin_set_trajectory(lsim_twin_run *run);
lsim_status lsim_twin_frame_from_points(lsim_twin_run *run, const lsim_points *pts, int64_t index,
                                        lsim_twin_frame *f);
void lsim_twin_frame_free(lsim_twin_frame *f);
void lsim_twin_ring_phases(const float *value, const uint16_t *ring, const uint16_t *ret, size_t n, int rings,
                           double step, double *phase);
/* The sensor's origin and rotation (row-major 3x3) at time t on the scene clock. */
void lsim_twin_pose_at(const lsim_twin_run *run, double t, double origin[3], double rot[9]);

/* twin_mesh.c */
/* Triangles of a frame's grid: neighbouring cells with returns, not across a depth edge. */
lsim_status lsim_twin_triangulate(lsim_twin_run *run, lsim_twin_frame *f);
lsim_status lsim_twin_triangulate_at(lsim_twin_run *run, lsim_twin_frame *f, double shadow_angle_deg);
/* Moving objects out and the frames' surfaces averaged where they agree (Embree rays). */
lsim_status lsim_twin_fuse(lsim_twin_run *run);
/* Vertex normals and inverted reflectances. */
void lsim_twin_normals(lsim_twin_frame *f);
void lsim_twin_reflectance(const lsim_twin_run *run, lsim_twin_frame *f);

/* twin_drop.c: the ray drop, each frame against the others' surfaces, scanned by the sensor. */
lsim_status lsim_twin_measure_drop(lsim_twin_run *run);

/* twin_noise.c: the range noise on flat patches within 20 m (NaN: fewer than 200 patches). */
double lsim_twin_measure_noise(const lsim_twin_run *run, uint64_t *patches);

/* twin_write.c */
int lsim_twin_level_of(double rho, int levels);
/* Triangle t's level: its vertices' mean reflectance (the baseline: 0, its one material). */
int lsim_twin_triangle_level(const lsim_twin_run *run, const lsim_twin_frame *f, size_t t);
double lsim_twin_level_rho(int level, int levels);
lsim_status lsim_twin_write(lsim_twin_run *run, const char *dir, const char *recording, lsim_twin_stats *stats);

#endif
