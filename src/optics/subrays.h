/* Beam divergence sampled by sub-rays (the "rays" mode), in one of two layouts:
 * - rings (HELIOS++ does the same with 1 + 3 rings): the centre ray plus ring k = 1..rings of 6k
 *   rays at angle (k / rings) * divergence / 2 from the axis. Each sub-ray carries a share of the
 *   beam given by a Gaussian profile that falls to 1/e^2 at the divergence's half angle.
 * - line (the cw paper §III-C: the URG-04LX's beam as three rays, the central one and one each
 *   side): the centre ray plus `rings` rays each side along the beam's second side axis (v of
 *   lsim_subray_basis: horizontal for a level beam, i.e. along a planar scanner's scan), at
 *   (j / rings) * divergence / 2, j = -rings..rings, all of equal share (the paper sums the rays'
 *   waveforms unweighted). It samples the footprint where a planar scan meets depth edges.
 * Shares sum to 1. */
#ifndef LSIM_OPTICS_SUBRAYS_H
#define LSIM_OPTICS_SUBRAYS_H

#define LSIM_MAX_SUBRAYS (1 + 3 * 8 * 9) /* rings <= 8 */

#define LSIM_SUBRAYS_RINGS 0 /* layouts: lsim_beam_layout of lidarsim.h */
#define LSIM_SUBRAYS_LINE 1

typedef struct lsim_subrays {
    int count;
    float offset[LSIM_MAX_SUBRAYS][2]; /* tan of the deflection along the beam's two side axes */
    float weight[LSIM_MAX_SUBRAYS];
} lsim_subrays;

/* One centre ray of weight 1 when rings is 0 or divergence 0; layout LSIM_SUBRAYS_RINGS or _LINE. */
void lsim_subrays_make(lsim_subrays *s, double divergence_rad, int rings, int layout);

/* Direction of a sub-ray: normalize(d + a u + b v), with u, v unit vectors orthogonal to d. */
void lsim_subray_basis(const float d[3], float u[3], float v[3]);

#endif
