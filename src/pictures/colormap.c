#include "pictures/colormap.h"

#include <stddef.h>

/* viridis sampled at entries 0, 16, ..., 240, 255 of matplotlib's 256-entry table (CC0), RGB8. */
static const struct {
    unsigned char index, r, g, b;
} viridis[] = {
    {0, 68, 1, 84},      {16, 72, 24, 106},   {32, 71, 45, 123},   {48, 66, 64, 134},
    {64, 59, 82, 139},   {80, 51, 99, 141},   {96, 44, 114, 142},  {112, 38, 130, 142},
    {128, 33, 145, 140}, {144, 31, 160, 136}, {160, 40, 174, 128}, {176, 63, 188, 115},
    {192, 94, 201, 98},  {208, 132, 212, 75}, {224, 173, 220, 48}, {240, 216, 226, 25},
    {255, 253, 231, 37},
};

static unsigned char lerp8(unsigned char a, unsigned char b, double w)
{
    return (unsigned char)((double)a + ((double)b - (double)a) * w + 0.5);
}

void lsim_colormap_viridis(double t, unsigned char rgb[3])
{
    if (!(t > 0.0))
        t = 0.0;
    if (t > 1.0)
        t = 1.0;
    double x = t * 255.0;
    size_t k = 0;
    const size_t last = sizeof viridis / sizeof viridis[0] - 1;
    while (k + 1 < last && x > viridis[k + 1].index)
        ++k;
    double w = (x - viridis[k].index) / (double)(viridis[k + 1].index - viridis[k].index);
    rgb[0] = lerp8(viridis[k].r, viridis[k + 1].r, w);
    rgb[1] = lerp8(viridis[k].g, viridis[k + 1].g, w);
    rgb[2] = lerp8(viridis[k].b, viridis[k + 1].b, w);
}
