/* The receiver's overlap (geometric form factor, near-field loss) of every echo: the fraction
 * xi(R) of an echo from range R that reaches the detector (docs/physics.md "Receiver overlap").
 * A biaxial lidar whose receiver is focused at infinity sees only part of a close target's echo
 * (Rasshofer et al. 2011; Hahner et al. 2021): real Ouster units see about (R / R_full)^2 of it
 * inside R_full (OS-2-128 ~30 m, OS-1-32 ~17 m). Two forms:
 *  - quadratic: xi = (R / R_full)^2 below R_full, 1 from there on. The defocus of a receiver
 *    focused at infinity: a target at R images f^2 / R behind the detector, a blur circle of
 *    diameter A f / R (A the aperture, f the focal length) of which a detector of width p collects
 *    (p R / (A f))^2 once the blur is wider than the detector, i.e. R < R_full = A f / p.
 *  - curve: measured points (R_i, xi_i), R ascending, xi non-decreasing in [0, 1], the last xi 1;
 *    linear between points, from (0, 0) to the first point, and 1 beyond the last.
 * `none` leaves every echo whole (the default for sensors that do not set it). Allocation-free. */
#ifndef LSIM_RECEIVER_OVERLAP_H
#define LSIM_RECEIVER_OVERLAP_H

#define LSIM_RX_OVERLAP_POINTS 32 /* = LSIM_OVERLAP_MAX_POINTS (sensor/sensor.h), checked where it is filled */

typedef enum lsim_overlap_kind {
    LSIM_OVERLAP_NONE = 0,
    LSIM_OVERLAP_QUADRATIC,
    LSIM_OVERLAP_CURVE
} lsim_overlap_kind;

typedef struct lsim_overlap {
    lsim_overlap_kind kind;
    float full;  /* quadratic: R_full, metres (> 0) */
    int count;   /* curve: points (1..LSIM_RX_OVERLAP_POINTS) */
    float r[LSIM_RX_OVERLAP_POINTS], f[LSIM_RX_OVERLAP_POINTS];
} lsim_overlap;

/* xi(range) in [0, 1]; 1 for `none`. */
static inline float lsim_overlap_at(const lsim_overlap *o, float range)
{
    if (o->kind == LSIM_OVERLAP_QUADRATIC) {
        if (!(range > 0.0f))
            return 0.0f;
        if (range >= o->full)
            return 1.0f;
        const float q = range / o->full;
        return q * q;
    }
    if (o->kind == LSIM_OVERLAP_CURVE) {
        if (!(range > 0.0f))
            return 0.0f;
        float r0 = 0.0f, f0 = 0.0f;
        for (int i = 0; i < o->count; ++i) {
            if (range < o->r[i])
                return f0 + (o->f[i] - f0) * (range - r0) / (o->r[i] - r0);
            r0 = o->r[i];
            f0 = o->f[i];
        }
        return 1.0f;
    }
    return 1.0f;
}

/* The range from which xi is 1 (0 for `none`): R_full, or the last point of a curve. */
static inline float lsim_overlap_full_range(const lsim_overlap *o)
{
    return o->kind == LSIM_OVERLAP_QUADRATIC ? o->full : o->kind == LSIM_OVERLAP_CURVE ? o->r[o->count - 1] : 0.0f;
}

#endif
