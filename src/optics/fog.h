/* Fog: the soft-target (volume) part of the lidar channel, after Rasshofer et al. 2011 as applied
 * by Hahner et al., "Fog Simulation on Real LiDAR Point Clouds for 3D Object Detection in Adverse
 * Weather", ICCV 2021 (section 3; constants of the authors' code, github.com/MartinHahner/
 * LiDAR_fog_sim). The received power is the pulse convolved with the channel's impulse response
 * h_C(R) = h_hard(R) + h_soft(R); in lidarsim's intensity units (power / (P_t A_rx eta / pi), so a
 * Lambertian surface gives rho cos / R^2) the volume's part is
 *   h_soft(R) = pi beta xi(R) exp(-2 alpha R) / R^2          per metre of range, R < first surface
 * with beta the backscattering coefficient (1/(m sr)), alpha the extinction (1/m) and xi the
 * overlap of the transmitted beam and the receiver's field of view (geometric form factor),
 * Hahner's linear ramp: 0 up to R1 (overlap_start), 1 from R2 (overlap_full) on; or, when the
 * sensor sets the overlap of every echo (receiver/overlap.h), that one: the fog volume then
 * starts at LSIM_FOG_NEAR_START x its full range (the part before it holds that fraction of the
 * flat quadratic near field's integral) and R2 is its full range.
 *
 * lidarsim hands h_soft to the pulsed receiver as range segments, each a box contribution whose
 * amplitude is the exact integral of h_soft over the segment, centred on its centroid (the
 * receiver convolves each box with the pulse, so the waveform is sum_k box_k * pulse, which
 * approximates h_soft * pulse). The segments are fixed per frame (lsim_fog_setup); per beam only
 * the one that the first surface cuts is integrated again (lsim_fog_contributions: 4-point
 * Gauss-Legendre panels, split at R2; no allocation). At most LSIM_FOG_MAX_SEGMENTS segments: when
 * the cap is reached, the last one runs to the end of the fog (its integral stays exact; its box is
 * then wide). */
#ifndef LSIM_OPTICS_FOG_H
#define LSIM_OPTICS_FOG_H

#include "receiver/overlap.h"
#include "receiver/pulsed.h"

#define LSIM_FOG_MAX_SEGMENTS 32

/* The fog is left out where it cannot matter: from the range where the fog's own waveform (the
 * density times the pulse's area) falls below this fraction of the detection threshold, and
 * entirely when it never reaches it. */
#define LSIM_FOG_NEGLIGIBLE 0.01
/* With the overlap of every echo: the volume from this fraction of its full range on. */
#define LSIM_FOG_NEAR_START 0.01

typedef struct lsim_fog_segment {
    float lo, hi;    /* range interval, metres */
    float range;     /* centroid of h_soft over [lo, hi] */
    float amplitude; /* integral of h_soft over [lo, hi] (intensity units) */
} lsim_fog_segment;

typedef struct lsim_fog {
    double extinction;    /* alpha, 1/m */
    double backscatter;   /* beta, 1/(m sr); 0: no fog echoes */
    double overlap_start; /* R1: xi = 0 up to here, metres (> 0) */
    double overlap_full;  /* R2: xi = 1 from here on (>= R1) */
    lsim_overlap near;    /* the overlap of every echo; kind none: the ramp above */
    int count;            /* segments; 0: no fog volume */
    lsim_fog_segment segment[LSIM_FOG_MAX_SEGMENTS];
} lsim_fog;

typedef struct lsim_fog_params {
    double extinction, backscatter;
    double overlap_start, overlap_full;
    double range_max;      /* no fog beyond the sensor's range */
    double pulse_width_ns; /* the receiver's pulse (FWHM): how fine the segments must be */
    double threshold;      /* the receiver's detection threshold (intensity units) */
    const lsim_overlap *overlap; /* NULL or kind none: the ramp [overlap_start, overlap_full] */
} lsim_fog_params;

/* Segments of the fog volume for a frame. Deterministic: the same parameters give the same
 * segments. */
void lsim_fog_setup(lsim_fog *fog, const lsim_fog_params *params);

/* The overlap function xi(r): 0 for r <= start, linear up to full, 1 beyond (a step at start when
 * start == full). */
double lsim_fog_overlap(double start, double full, double r);

/* h_soft(r): the volume's impulse response, intensity units per metre of range. */
double lsim_fog_density(const lsim_fog *fog, double r);

/* Box contributions of the fog in front of `end` (the first surface, or the maximum range) into
 * out; returns how many (<= LSIM_FOG_MAX_SEGMENTS). Allocation-free. */
int lsim_fog_contributions(const lsim_fog *fog, float end, lsim_contribution *out);

#endif
