#include "io/label_colors.h"

#include <stddef.h>

typedef struct label_entry {
    uint32_t id;
    const char *name;
    unsigned char rgb[3];
} label_entry;

static const label_entry KITTI[] = {
    {0, "unlabeled", {0, 0, 0}},          {1, "outlier", {255, 0, 0}},
    {10, "car", {100, 150, 245}},         {11, "bicycle", {100, 230, 245}},
    {13, "bus", {100, 80, 250}},          {15, "motorcycle", {30, 60, 150}},
    {16, "on-rails", {0, 0, 255}},        {18, "truck", {80, 30, 180}},
    {20, "other-vehicle", {0, 0, 255}},   {30, "person", {255, 30, 30}},
    {31, "bicyclist", {255, 40, 200}},    {32, "motorcyclist", {150, 30, 90}},
    {40, "road", {255, 0, 255}},          {44, "parking", {255, 150, 255}},
    {48, "sidewalk", {75, 0, 75}},        {49, "other-ground", {175, 0, 75}},
    {50, "building", {255, 200, 0}},      {51, "fence", {255, 120, 50}},
    {52, "other-structure", {255, 150, 0}}, {60, "lane-marking", {150, 255, 170}},
    {70, "vegetation", {0, 175, 0}},      {71, "trunk", {135, 60, 0}},
    {72, "terrain", {150, 240, 80}},      {80, "pole", {255, 240, 150}},
    {81, "traffic-sign", {255, 0, 0}},    {99, "other-object", {50, 255, 255}},
    {252, "moving-car", {100, 150, 245}}, {253, "moving-bicyclist", {255, 40, 200}},
    {254, "moving-person", {255, 30, 30}}, {255, "moving-motorcyclist", {150, 30, 90}},
    {256, "moving-on-rails", {0, 0, 255}}, {257, "moving-bus", {100, 80, 250}},
    {258, "moving-truck", {80, 30, 180}}, {259, "moving-other-vehicle", {0, 0, 255}},
};

static const unsigned char TAB10[10][3] = {
    {31, 119, 180}, {255, 127, 14}, {44, 160, 44}, {214, 39, 40}, {148, 103, 189},
    {140, 86, 75}, {227, 119, 194}, {127, 127, 127}, {188, 189, 34}, {23, 190, 207},
};

int lsim_label_color(uint32_t id, unsigned char rgb[3], const char **name)
{
    for (size_t i = 0; i < sizeof KITTI / sizeof KITTI[0]; ++i)
        if (KITTI[i].id == id) {
            rgb[0] = KITTI[i].rgb[0];
            rgb[1] = KITTI[i].rgb[1];
            rgb[2] = KITTI[i].rgb[2];
            if (name)
                *name = KITTI[i].name;
            return 1;
        }
    const unsigned char *c = TAB10[id % 10];
    rgb[0] = c[0];
    rgb[1] = c[1];
    rgb[2] = c[2];
    if (name)
        *name = NULL;
    return 0;
}
