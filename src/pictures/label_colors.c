#include "pictures/label_colors.h"

#include <stddef.h>

typedef struct label_entry {
    uint32_t id;
    const char *name;
    unsigned char rgb[3];
} label_entry;

/* SemanticKITTI's colours, except that the ones too dark to see on the plot background
 * (LSIM_VIEW_BACKGROUND, 32/255 grey) are mixed with white until their luminance contrast
 * against it reaches 3:1 (WCAG's ratio for graphics; test_label_colors checks every id): unlabeled
 * (black: grey 112), sidewalk (75,0,75), bus, motorcycle, on-rails, truck, other-vehicle,
 * motorcyclist, other-ground, trunk and their moving twins. On-rails and other-vehicle, pure
 * blue in SemanticKITTI, became azure rather than a lighter blue, which would match the bus. */
static const label_entry KITTI[] = {
    {0, "unlabeled", {112, 112, 112}},          {1, "outlier", {255, 0, 0}},
    {10, "car", {100, 150, 245}},         {11, "bicycle", {100, 230, 245}},
    {13, "bus", {102, 82, 250}},          {15, "motorcycle", {86, 109, 176}},
    {16, "on-rails", {0, 110, 255}},        {18, "truck", {126, 89, 200}},
    {20, "other-vehicle", {0, 110, 255}},   {30, "person", {255, 30, 30}},
    {31, "bicyclist", {255, 40, 200}},    {32, "motorcyclist", {173, 80, 126}},
    {40, "road", {255, 0, 255}},          {44, "parking", {255, 150, 255}},
    {48, "sidewalk", {142, 94, 142}},        {49, "other-ground", {193, 59, 116}},
    {50, "building", {255, 200, 0}},      {51, "fence", {255, 120, 50}},
    {52, "other-structure", {255, 150, 0}}, {60, "lane-marking", {150, 255, 170}},
    {70, "vegetation", {0, 175, 0}},      {71, "trunk", {158, 97, 48}},
    {72, "terrain", {150, 240, 80}},      {80, "pole", {255, 240, 150}},
    {81, "traffic-sign", {255, 0, 0}},    {99, "other-object", {50, 255, 255}},
    {252, "moving-car", {100, 150, 245}}, {253, "moving-bicyclist", {255, 40, 200}},
    {254, "moving-person", {255, 30, 30}}, {255, "moving-motorcyclist", {173, 80, 126}},
    {256, "moving-on-rails", {0, 110, 255}}, {257, "moving-bus", {102, 82, 250}},
    {258, "moving-truck", {126, 89, 200}}, {259, "moving-other-vehicle", {0, 110, 255}},
};

/* matplotlib's tab10, its brown (140,86,75) lightened to 3:1 as above. */
static const unsigned char TAB10[10][3] = {
    {31, 119, 180}, {255, 127, 14}, {44, 160, 44}, {214, 39, 40}, {148, 103, 189},
    {148, 98, 88}, {227, 119, 194}, {127, 127, 127}, {188, 189, 34}, {23, 190, 207},
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
