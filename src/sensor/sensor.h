/* Sensors: the beam pattern of one frame, the pose, range limits and noise settings. */
#ifndef LSIM_SENSOR_SENSOR_H
#define LSIM_SENSOR_SENSOR_H

#include "lidarsim.h"
#include "core/vec.h"

#include <stddef.h>
#include <stdint.h>

/* Limits every path that builds a spec checks against (API, scene file, pattern file, validation). */
#define LSIM_SENSOR_MAX_CHANNELS 1024        /* rotating: channels 1..1024 */
#define LSIM_SENSOR_MAX_STEPS 10000000       /* rotating columns, planar steps: 1..1e7 */
#define LSIM_SENSOR_MAX_PIXELS_SIDE 16384    /* camera width, height: 1..16384 */
#define LSIM_SENSOR_MAX_BEAMS 100000000      /* beams per frame (rosette points, pattern rows): up to 1e8 */
#define LSIM_SENSOR_MAX_BEAM_TIME_S 86400.0  /* a pattern beam's time within its frame: 0..one day */
#define LSIM_SENSOR_MIN_RATE_HZ 1e-3         /* frames per second */
#define LSIM_SENSOR_MAX_RATE_HZ 1e6
#define LSIM_SENSOR_MAX_RANGE_M 1e6          /* range max (min >= 0) */
#define LSIM_SENSOR_MAX_POSITION_M 1e7       /* |position component| (Embree aborts near 1e19) */
/* Default overlap of beam and receiver field, metres (spec.c says where the numbers come from). */
#define LSIM_OVERLAP_START_DEFAULT 1.666
#define LSIM_OVERLAP_FULL_DEFAULT 7.635
#define LSIM_OVERLAP_MAX_M 1000.0
/* Points of a measured receiver overlap curve (receiver.overlap: [[R, f], ...]). */
#define LSIM_OVERLAP_MAX_POINTS 32

/* A measured ray-drop table (scene key sensor.noise.drop; noise/drop_table.h applies it): the
 * probability that the real sensor returns nothing where the simulation has an echo, binned by the
 * echo's reported range, its incidence angle and the hit material's reflectance. Each axis holds
 * 1..LSIM_DROP_MAX_EDGES lower bin edges, ascending, the first 0 (the last bin is open-ended);
 * rate holds n_range x n_incidence x n_reflectance probabilities in [0, 1], range-major:
 * rate[(i_range * n_incidence + i_incidence) * n_reflectance + i_reflectance]. n_range == 0: no
 * table (rate NULL). */
#define LSIM_DROP_MAX_EDGES 64
typedef struct lsim_drop_table {
    int n_range, n_incidence, n_reflectance;
    double range_m[LSIM_DROP_MAX_EDGES];       /* metres, >= 0 */
    double incidence_deg[LSIM_DROP_MAX_EDGES]; /* degrees, [0, 90) */
    double reflectance[LSIM_DROP_MAX_EDGES];   /* >= 0 */
    double *rate;                              /* owned */
} lsim_drop_table;

/* Default rosette prism rotation rates (Hz), Livox-style: opposite signs, ratio the golden ratio,
 * so the curve never closes within a frame. The Mid-40's exact motor speeds are not published;
 * these cover its 38.4 deg FOV densely in 0.1 s. Every spec starts from them
 * (lsim_sensor_spec_defaults), the livox-mid40 preset included. */
extern const double lsim_sensor_default_prism_hz[2];

typedef enum lsim_sensor_kind {
    LSIM_SENSOR_ROTATING = 0, /* multi-channel spinning lidar */
    LSIM_SENSOR_PLANAR,       /* 2-D scanner in the sensor's xy plane */
    LSIM_SENSOR_CAMERA,       /* ToF camera, pinhole, one beam per pixel */
    LSIM_SENSOR_PATTERN,      /* explicit beam table (file or arrays) */
    LSIM_SENSOR_ROSETTE       /* non-repetitive rosette (Livox risley prisms) */
} lsim_sensor_kind;

/* Beam divergence (DESIGN.md §2): single ray, concentric sub-rays, or a kernel (blooming). */
typedef struct lsim_beam_spec {
    double divergence_mrad;   /* full angle at 1/e^2 of the beam; footprint = R * divergence */
    lsim_beam_mode mode;
    int rings;                /* rays mode: rings around the centre ray (ring k has 6k rays); line: rays each side */
    int layout;               /* rays mode: lsim_beam_layout (rings, or a line along the scan: optics/subrays.h) */
    double core_fwhm_deg;     /* kernel mode, parametric: Gaussian core FWHM (0: the divergence) */
    double halo_level;        /* kernel mode: halo level relative to the core's peak */
    double halo_extent_deg;   /* kernel mode: angular extent of the halo */
    char kernel_file[1024];   /* kernel mode: kernel file ("" = parametric), resolved path */
    int fine_halo;            /* kernel mode: 1 renders the halo's rows at the kernel's pitch too (a reference;
                               * 0: coarser, pipeline/kernel_rows.c) */
    int algorithm;            /* kernel mode: 1 beam iteration, 2 range stacking */
    double range_bin;         /* kernel mode: range bin of the blooming model, metres */
} lsim_beam_spec;

/* The receiver (pulsed, or continuous-wave: receiver/cw.h) and the constants of the range
 * equation that give watts. */
typedef struct lsim_receiver_spec {
    int cw;                   /* 0: pulsed; 1: continuous-wave (phase-shift) */
    double cw_freq_hz[2];     /* CW: modulation frequencies, distinct, 1 kHz..10 GHz */
    int cw_samples;           /* CW: samples per frequency, 4..256 */
    int cw_periods;           /* CW: periods the samples span, 1..10000 */
    double cw_bias[3];        /* CW: phase bias c0 + c1 L + c2 L^2 (rad; L intensity units) */
    double pulse_width_ns;    /* FWHM of the pulse */
    lsim_returns_mode mode;
    int max_returns;          /* 1..16 (dual needs 2) */
    double peak_power_w;      /* P_t */
    double aperture_m2;       /* A_rx */
    double efficiency;        /* eta_sys */
    double overlap_m[2];      /* overlap of beam and receiver field (fog): 0 up to [0], 1 from [1] on */
    /* The overlap of every echo (receiver/overlap.h; surfaces, fog and ambient light alike; it then
     * replaces overlap_m for fog): (R / overlap_full_m)^2 below overlap_full_m when > 0, or the
     * curve of overlap_points points (R m, factor) when > 0; neither: no near-field loss. */
    double overlap_full_m;
    int overlap_points;
    double overlap_curve[LSIM_OVERLAP_MAX_POINTS][2];
    /* Threshold rise with ambient light: T = T0 sqrt(1 + B / B_ref), B_ref the background of a
     * white Lambertian surface facing a sun of this in-band irradiance (W/m^2); 0: no rise. */
    double ambient_ref_w_m2;
} lsim_receiver_spec;

/* Plain description of a sensor, filled from a preset, the API or a scene file.
 * Angles in degrees, as a user writes them. */
typedef struct lsim_sensor_spec {
    lsim_sensor_kind kind;
    char name[64];
    /* rotating */
    int channels;
    double *elevations_deg;   /* owned, `channels` values, ring i = elevations_deg[i] */
    int columns;              /* firings per revolution */
    /* Rotating, per channel in ring order (each array owned, NULL = zero for every channel): the
     * head turns `spin` (+1 counter-clockwise seen from above, -1 clockwise as Velodyne and
     * Ouster heads do) from `azimuth_start_deg` at the frame start. Channel k fires
     * channel_time_s[k] after its column starts, at the head's azimuth at that instant plus
     * channel_azimuth_deg[k], from channel_origin_m[3k..3k+2]: the beam's origin in the sensor
     * frame when the head is at azimuth 0, turning with the head. */
    double *channel_azimuth_deg;
    double *channel_time_s;
    double *channel_origin_m;
    int spin;                 /* +1 (default) or -1 */
    double azimuth_start_deg; /* head azimuth of column 0 */
    /* > 0: columns fire at this rate whatever the spin rate (Velodyne: fixed in hardware), so
     * columns = floor(firing_rate_hz / rate_hz) and column c starts at c / firing_rate_hz. */
    double firing_rate_hz;
    /* 1: an Ouster unit; columns x rate_hz must be one of its lidar modes (512, 1024 or 2048
     * columns at 10 or 20 Hz; not 2048 at 20 Hz). */
    int ouster_modes;
    /* planar */
    double fov_deg;
    int steps;
    /* camera */
    int width, height;
    double hfov_deg, vfov_deg;
    /* rosette */
    int rosette_points;       /* beams per frame */
    double rosette_fov_deg;   /* full circular field of view */
    double rosette_hz[2];     /* prism rotation rates, Hz (finite, non-zero, distinct); scene key prism_hz */
    /* pattern */
    size_t pattern_count;
    double *pattern_azimuth_deg, *pattern_elevation_deg, *pattern_time_s; /* owned */
    uint16_t *pattern_ring;                                               /* owned */
    /* common */
    double rate_hz;           /* frames per second */
    double range_min, range_max;
    double range_sigma;       /* metres, Gaussian along the ray (the SNR model: of a strong return) */
    /* SNR model: range sigma of an echo just at the detection threshold (metres, >= range_sigma):
     * sigma(A) = sqrt(range_sigma^2 + (range_sigma_weak^2 - range_sigma^2) (T / A)^2). 0: the pulse's
     * timing jitter sqrt2 sigma_pulse / snr_at_threshold instead (README "Noise"). */
    double range_sigma_weak;
    int noise_snr;            /* 1: range noise and drop-outs from the echo's SNR (README "Noise") */
    double snr_at_threshold;  /* SNR model: signal / noise of an echo just at the detection threshold */
    double intensity_sigma;   /* relative std of intensity */
    double detection_reflectance; /* Lambertian reflectance detected just at range_max */
    double range_resolution;  /* metres: measured ranges are multiples of it (0: continuous) */
    lsim_drop_table drop;     /* measured ray drop (n_range 0: none); rate owned like the arrays above */
    lsim_beam_spec beam;
    lsim_receiver_spec receiver;
    double baseline[3];       /* receiver offset from the emitter, sensor frame, metres */
} lsim_sensor_spec;

/* The beams of one frame, structure of arrays, in the sensor frame, in firing (time) order:
 * rotating column-major (every channel of column 0, then column 1, ...; ring = channel, and the
 * presets list elevations ascending so ring 0 is the lowest beam); planar by step; camera
 * row-major from the top-left pixel (ring = row); rosette by time; pattern in table order. */
typedef struct lsim_beams {
    size_t count;
    float *azimuth;   /* radians, atan2(y, x) of the direction */
    float *elevation; /* radians */
    float *time;      /* seconds from the start of the frame */
    uint16_t *ring;
    float *dx, *dy, *dz; /* unit direction */
    float *ox, *oy, *oz; /* origin of the beam in the sensor frame; NULL: every beam starts at 0 */
    /* FNV-1a of every beam's direction, time and origin bits: two beam tables with the same digest
     * and count are the same pattern (the raster engine keys its layouts on it, not on addresses
     * that a later sensor may reuse). */
    uint64_t digest;
} lsim_beams;

struct lsim_sensor {
    lsim_context *ctx;
    lsim_sensor_spec spec;
    lsim_beams beams;
    lsim_pose pose; /* sensor -> world (at t = 0 with rates; the mount on the trajectory with keys) */
    double position[3], rotation_deg[3];
    /* Motion on the scene's clock (owned; NULL: the sensor stays at `pose`). Constant rates: from
     * position / rotation_deg at t = 0 (kept in step by lsim_sensor_set_pose). Keyframes: the
     * trajectory's body pose, with the sensor mounted on that body at `pose`. */
    struct lsim_motion *motion;
    /* Only in the pipeline's per-frame copy (pipeline/scan.c): the frame's start on the scene
     * clock, and 1 if the pose changes during the frame (rays then start from the pose at each
     * beam's own time). `pose` is then the pose at the frame start. */
    double frame_start;
    int frame_moves;
    const struct lsim_sensor *frame_of; /* per-frame copy: the sensor it copies (motion and mount) */
};

/* Pose of the sensor (sensor -> world) at time t on the scene clock. */
lsim_pose lsim_sensor_pose_at(const lsim_sensor *sensor, double t);
/* In a frame's copy: the pose at a beam's time within the frame (frame_start + time). */
static inline lsim_pose lsim_sensor_beam_pose(const lsim_sensor *frame, double time)
{
    return lsim_sensor_pose_at(frame->frame_of ? frame->frame_of : frame, frame->frame_start + time);
}
/* Where the receiver (offset by the spec's baseline from the emitter) is in the world when the
 * sensor is at `pose`, as floats. */
static inline void lsim_sensor_receiver_at(const lsim_sensor *sensor, const lsim_pose *pose, float out[3])
{
    const double *b = sensor->spec.baseline;
    const lsim_vec3 w = lsim_v3_add(pose->t, lsim_mat3_mul(&pose->r, lsim_v3(b[0], b[1], b[2])));
    out[0] = (float)w.x;
    out[1] = (float)w.y;
    out[2] = (float)w.z;
}
/* 1 if the sensor has a motion that changes its pose. */
int lsim_sensor_moves(const lsim_sensor *sensor);

/* "rotating", "planar", "camera", "pattern", "rosette" (static), or "unknown". */
const char *lsim_sensor_kind_name(lsim_sensor_kind kind);
/* Number of beams per frame the spec describes (0 for an unknown kind). */
size_t lsim_sensor_spec_beam_count(const lsim_sensor_spec *spec);

/* The range noise a spec gives (sensor_describe.c; what the scan does, pipeline/frame_setup.c):
 * the detection threshold T = detection_reflectance / range_max^2 (intensity units); a
 * continuous-wave receiver's noise on each sample, T sqrt(N / 2) / snr_at_threshold (an echo at
 * the threshold measured at that SNR), and the range std it gives one return of `amplitude`:
 * phase std sample_noise sqrt(2 / N) / amplitude at each frequency, c / (4 pi f) of range each,
 * the two ranges averaged; a pulsed receiver's range std for an echo of peak `amplitude`: the SNR
 * model's sqrt(range_sigma^2 + (jitter T / (snr_at_threshold amplitude))^2) with jitter sqrt2
 * sigma_pulse, or snr_at_threshold sqrt(range_sigma_weak^2 - range_sigma^2) when range_sigma_weak
 * is set (so an echo at T has range_sigma_weak), or range_sigma with the constant model. */
double lsim_sensor_threshold(const lsim_sensor_spec *spec);
double lsim_sensor_cw_sample_noise(const lsim_sensor_spec *spec);
double lsim_sensor_range_sigma_at(const lsim_sensor_spec *spec, double amplitude);

/* A preset's radiometry (preset_radiometry.c): detection threshold from the datasheet reach,
 * receiver overlap, range sigma of strong and weak echoes, threshold rise with ambient light; a
 * name not in its table leaves the spec as it is. Called by lsim_sensor_spec_from_preset. */
void lsim_sensor_preset_radiometry(const char *name, lsim_sensor_spec *spec);
/* The reaches that table states (datasheet, or a real unit where noted): the range at which a
 * Lambertian target of 10 % / 80 % reflectance is detected half the time; 0 if `name` is not in it. */
int lsim_sensor_preset_reach(const char *name, double *reach10_m, double *reach80_m);

/* Defaults every spec starts from (no beams; rosette_hz = lsim_sensor_default_prism_hz). */
void lsim_sensor_spec_defaults(lsim_sensor_spec *spec);
/* Where a preset's figures come from (presets.c; docs/presets.md): its geometry (beams, timing),
 * range (limits, precision) or optics (divergence, pulse, receiver); NULL for no such preset. */
typedef enum lsim_preset_source { LSIM_SOURCE_GEOMETRY, LSIM_SOURCE_RANGE, LSIM_SOURCE_OPTICS } lsim_preset_source;
const char *lsim_sensor_preset_source(const char *name, lsim_preset_source group);
/* Fill `spec` from a built-in preset; LSIM_ERR_NOT_FOUND (with the valid names) if unknown. */
lsim_status lsim_sensor_spec_from_preset(lsim_context *ctx, const char *name, lsim_sensor_spec *spec);
/* Deep copy / free the owned arrays of a spec. */
lsim_status lsim_sensor_spec_copy(lsim_context *ctx, const lsim_sensor_spec *src, lsim_sensor_spec *dst);
void lsim_sensor_spec_free(lsim_sensor_spec *spec);
/* Check every value of a spec; the message names the offending key. */
lsim_status lsim_sensor_spec_validate(lsim_context *ctx, const lsim_sensor_spec *spec);
/* The checks shared by lsim_sensor_spec_validate and the lsim_sensor_set_* setters (same messages):
 * range 0 <= min < max <= LSIM_SENSOR_MAX_RANGE_M; noise sigmas finite >= 0, reflectance in (0, 1];
 * position components finite within +-LSIM_SENSOR_MAX_POSITION_M, rotation finite. */
lsim_status lsim_sensor_check_range(lsim_context *ctx, double min_m, double max_m);
lsim_status lsim_sensor_check_noise(lsim_context *ctx, double range_sigma_m, double intensity_sigma,
                                    double detection_reflectance);
lsim_status lsim_sensor_check_pose(lsim_context *ctx, const double position[3], const double rpy_deg[3]);

/* Duplicate n elements of `size` bytes into a new malloc'd block (*out = NULL for a NULL source).
 * Returns 0 on allocation failure or size overflow, 1 otherwise. */
int lsim_sensor_dup_array(const void *src, size_t n, size_t size, void **out);

/* For a spec with a fixed firing rate, the columns a revolution at spec->rate_hz holds
 * (floor(firing_rate_hz / rate_hz), at least 1); else spec->columns. */
int lsim_sensor_spec_columns_at_rate(const lsim_sensor_spec *spec);

/* Read a real unit's calibration file into a rotating spec (README "Real units"): an Ouster
 * sensor metadata JSON, a Velodyne per-laser table as JSON (lasers: [{laser_id, vert_correction,
 * rot_correction, vert_offset_correction, horiz_offset_correction, ...}]), the ROS
 * velodyne_pointcloud YAML of the same fields, or a VeloView XML (db.xml). The format is told
 * from the content. Velodyne tables get their model's firing timing (told by the laser count and
 * elevations: 16 VLP-16, 32 HDL-32E or VLP-32C, 64 HDL-64E, 128 VLS-128). Errors name the file, line (or JSON path) and value. */
lsim_status lsim_sensor_calibration_read(lsim_context *ctx, const char *path, lsim_sensor_spec *spec);

/* Read a beam table CSV (header naming azimuth_deg, elevation_deg[, time_s, ring]) into spec. */
lsim_status lsim_pattern_file_read(lsim_context *ctx, const char *path, lsim_sensor_spec *spec);

/* Generate the beams of one frame from a validated spec. */
lsim_status lsim_beams_generate(lsim_context *ctx, const lsim_sensor_spec *spec, lsim_beams *beams);
void lsim_beams_free(lsim_beams *beams);

/* Create a sensor handle that takes ownership of `spec` (validated, beams generated).
 * On success and on failure alike the owned arrays move out of `spec` (it is left as
 * lsim_sensor_spec_defaults), so the caller never frees them. */
lsim_status lsim_sensor_create_from_spec(lsim_context *ctx, lsim_sensor_spec *spec, lsim_sensor **out);

#endif
