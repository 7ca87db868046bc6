/* Fog (atmospheric backscatter) as a distributed return: the volume between the sensor and the
 * first surface scatters light back with the lidar equation's impulse response
 *   h(r) = pi beta exp(-2 alpha r) / r^2    (intensity units per metre of range)
 * which lidarsim splits into range segments, each a box contribution of amplitude h(r_k) w_k
 * (the receiver convolves it with the pulse). Dense fog near the sensor gives a false echo. */
#ifndef LSIM_OPTICS_FOG_H
#define LSIM_OPTICS_FOG_H

#include "receiver/pulsed.h"

#define LSIM_FOG_MAX_SEGMENTS 12

typedef struct lsim_fog {
    float extinction;  /* alpha, 1/m */
    float backscatter; /* beta, 1/(m sr); 0: no fog echoes */
    float range_min;   /* start of the volume (the receiver's blind zone ends here) */
} lsim_fog;

void lsim_fog_setup(lsim_fog *fog, double extinction, double backscatter, double range_min, double pulse_width_ns);
/* Segments of the fog in front of `end` (first surface or max range); returns how many were
 * written to out (<= LSIM_FOG_MAX_SEGMENTS). */
int lsim_fog_contributions(const lsim_fog *fog, float end, lsim_contribution *out);

#endif
