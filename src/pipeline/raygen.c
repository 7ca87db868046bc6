/* Ray generation: each beam (and its sub-rays) from the sensor's pose at the beam's time. A
 * sensor that does not move during the frame uses its pose at the frame start for every beam
 * (the exact arithmetic of a static scan); a moving one the pose at the frame start plus the
 * beam's time. Every ray carries its beam's time (seconds from the frame start), which places
 * moving objects in the engines. A beam with an origin of its own (a real unit's laser offsets)
 * starts there, in the sensor frame at its time. */
#include "pipeline/frame.h"

#include <math.h>

/* The common case: a static sensor, one ray a beam, beams from the sensor's origin. Every array is
 * contiguous and the loop has no branch, so it runs in vectors (8 lanes where the CPU has AVX2;
 * no FMA, so the same sums as the general loop below). */
__attribute__((target_clones("avx2", "default"))) static void rays_static(const float m[3][3], const float org[3],
                                                                        const lsim_beams *b, size_t begin,
                                                                        size_t count, float range_max,
                                                                        lsim_rays *rays)
{
    const float m00 = m[0][0], m01 = m[0][1], m02 = m[0][2], m10 = m[1][0], m11 = m[1][1], m12 = m[1][2];
    const float m20 = m[2][0], m21 = m[2][1], m22 = m[2][2], o0 = org[0], o1 = org[1], o2 = org[2];
    const float *restrict bx = b->dx + begin, *restrict by = b->dy + begin, *restrict bz = b->dz + begin;
    const float *restrict bt = b->time + begin;
    float *restrict ox = rays->ox, *restrict oy = rays->oy, *restrict oz = rays->oz;
    float *restrict dx = rays->dx, *restrict dy = rays->dy, *restrict dz = rays->dz;
    float *restrict time = rays->time, *restrict tnear = rays->tnear, *restrict tfar = rays->tfar;
    uint32_t *restrict mask = rays->mask;
    for (size_t i = 0; i < count; ++i) {
        const float x = bx[i], y = by[i], z = bz[i];
        ox[i] = o0;
        oy[i] = o1;
        oz[i] = o2;
        dx[i] = m00 * x + m01 * y + m02 * z;
        dy[i] = m10 * x + m11 * y + m12 * z;
        dz[i] = m20 * x + m21 * y + m22 * z;
        time[i] = bt[i];
        tnear[i] = 0.0f;
        tfar[i] = range_max;
        mask[i] = LSIM_RAY_MASK_ALL;
    }
}

void lsim_rays_generate(const lsim_sensor *sensor, const lsim_subrays *subrays, size_t begin, size_t count,
                        float range_max, lsim_rays *rays)
{
    const lsim_beams *b = &sensor->beams;
    float m[3][3], org[3];
    lsim_pose_floats(&sensor->pose, m, org);
    const int moves = sensor->frame_moves;
    const int s_count = subrays ? subrays->count : 1;
    rays->sensor = sensor;
    rays->pitch = 0.0;
    if (!moves && s_count == 1 && !b->ox) {
        rays_static(m, org, b, begin, count, range_max, rays);
        return;
    }
    float posed_at = NAN; /* the beam time of m and org (every channel of a column shares one) */
    for (size_t i = 0; i < count; ++i) {
        if (moves && !(b->time[begin + i] == posed_at)) {
            posed_at = b->time[begin + i];
            lsim_pose p = lsim_sensor_beam_pose(sensor, posed_at);
            lsim_pose_floats(&p, m, org);
        }
        float ox = org[0], oy = org[1], oz = org[2];
        if (b->ox) { /* the beam's own origin, turned and moved with the sensor */
            const float a = b->ox[begin + i], c = b->oy[begin + i], e = b->oz[begin + i];
            ox += m[0][0] * a + m[0][1] * c + m[0][2] * e;
            oy += m[1][0] * a + m[1][1] * c + m[1][2] * e;
            oz += m[2][0] * a + m[2][1] * c + m[2][2] * e;
        }
        float x = b->dx[begin + i], y = b->dy[begin + i], z = b->dz[begin + i];
        float d[3] = {m[0][0] * x + m[0][1] * y + m[0][2] * z, m[1][0] * x + m[1][1] * y + m[1][2] * z,
                      m[2][0] * x + m[2][1] * y + m[2][2] * z};
        size_t base = i * (size_t)s_count;
        rays->ox[base] = ox;
        rays->oy[base] = oy;
        rays->oz[base] = oz;
        rays->dx[base] = d[0];
        rays->dy[base] = d[1];
        rays->dz[base] = d[2];
        const float time = b->time[begin + i];
        for (int s = 0; s < s_count; ++s) {
            rays->time[base + s] = time;
            rays->tnear[base + s] = 0.0f;
            rays->tfar[base + s] = range_max;
            rays->mask[base + s] = LSIM_RAY_MASK_ALL;
        }
        if (s_count == 1)
            continue;
        float u[3], v[3];
        lsim_subray_basis(d, u, v);
        for (int s = 1; s < s_count; ++s) {
            float a = subrays->offset[s][0], c = subrays->offset[s][1];
            float e[3] = {d[0] + a * u[0] + c * v[0], d[1] + a * u[1] + c * v[1], d[2] + a * u[2] + c * v[2]};
            float inv = 1.0f / sqrtf(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
            rays->ox[base + s] = ox;
            rays->oy[base + s] = oy;
            rays->oz[base + s] = oz;
            rays->dx[base + s] = e[0] * inv;
            rays->dy[base + s] = e[1] * inv;
            rays->dz[base + s] = e[2] * inv;
        }
    }
}
