#include "pipeline/frame.h"

void lsim_rays_generate(const lsim_sensor *sensor, size_t begin, size_t count, lsim_rays *rays)
{
    const lsim_beams *b = &sensor->beams;
    const lsim_mat3 r = sensor->pose.r;
    const float ox = (float)sensor->pose.t.x, oy = (float)sensor->pose.t.y, oz = (float)sensor->pose.t.z;
    float m[3][3];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            m[i][j] = (float)r.m[i][j];
    for (size_t i = 0; i < count; ++i) {
        float x = b->dx[begin + i], y = b->dy[begin + i], z = b->dz[begin + i];
        rays->ox[i] = ox;
        rays->oy[i] = oy;
        rays->oz[i] = oz;
        rays->dx[i] = m[0][0] * x + m[0][1] * y + m[0][2] * z;
        rays->dy[i] = m[1][0] * x + m[1][1] * y + m[1][2] * z;
        rays->dz[i] = m[2][0] * x + m[2][1] * y + m[2][2] * z;
    }
}
