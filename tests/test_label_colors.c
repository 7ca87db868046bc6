/* Label colours (pictures/label_colors.h) stand out on the picture's plot background: every semantic id
 * of 0..65535 (SemanticKITTI's classes and the tab10 colours of the others) has a WCAG luminance
 * contrast ratio of at least 3:1 against LSIM_VIEW_BACKGROUND. Before, SemanticKITTI's sidewalk
 * (75, 0, 75) had 1.09:1, unlabeled (black) 1.28:1 and eleven more classes less than 3:1. */
#include "harness.h"

#include "pictures/label_colors.h"
#include "pictures/view_png.h"

#include <math.h>
#include <string.h>

/* WCAG 2 relative luminance of an sRGB colour. */
static double luminance(const unsigned char rgb[3])
{
    double l[3];
    for (int k = 0; k < 3; ++k) {
        const double c = rgb[k] / 255.0;
        l[k] = c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
    }
    return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2];
}

static double contrast(const unsigned char a[3], const unsigned char b[3])
{
    const double la = luminance(a), lb = luminance(b);
    return (fmax(la, lb) + 0.05) / (fmin(la, lb) + 0.05);
}

int main(void)
{
    const unsigned char bg[3] = {LSIM_VIEW_BACKGROUND_R, LSIM_VIEW_BACKGROUND_G, LSIM_VIEW_BACKGROUND_B};
    /* the formula against WCAG's own figures: black on white 21:1, and the grey background's */
    const unsigned char black[3] = {0, 0, 0}, white[3] = {255, 255, 255};
    CHECK_NEAR(contrast(black, white), 21.0, 1e-9);
    CHECK_NEAR(luminance(bg), 0.014444, 1e-5);
    double worst = 1e9;
    uint32_t worst_id = 0;
    int named = 0, low = 0;
    for (uint32_t id = 0; id <= 65535; ++id) {
        unsigned char rgb[3];
        const char *name = NULL;
        named += lsim_label_color(id, rgb, &name);
        const double r = contrast(rgb, bg);
        if (r < 3.0 && low++ < 20)
            fprintf(stderr, "label %u (%s): rgb %u,%u,%u has contrast %.2f:1 against the background\n", id,
                    name ? name : "tab10", rgb[0], rgb[1], rgb[2], r);
        if (r < worst) {
            worst = r;
            worst_id = id;
        }
    }
    CHECK(low == 0);
    CHECK(named == 34); /* SemanticKITTI's classes, moving ones included */
    printf("test_label_colors: lowest contrast %.2f:1 (label %u)\n", worst, worst_id);
    /* the sidewalk is still purple (red = blue > green), and not the road's magenta */
    unsigned char side[3], road[3];
    const char *name = NULL;
    CHECK(lsim_label_color(48, side, &name) == 1 && name && strcmp(name, "sidewalk") == 0);
    CHECK(lsim_label_color(40, road, NULL) == 1);
    CHECK(side[0] == side[2] && side[0] > side[1] + 30);
    CHECK(memcmp(side, road, 3) != 0);
    return lsim_test_summary("test_label_colors");
}
