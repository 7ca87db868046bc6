/* Plot renderer (pictures/plot_png.h): PNGs of the requested size, series drawn where their data are,
 * NaN points and empty series tolerated, degenerate ranges handled, bad arguments rejected,
 * no temporary files left. Set LSIM_KEEP_OUTPUT=1 to keep the images for a look. */
#include "files.h"
#include "harness.h"

#include "lidarsim.h"
#include "pictures/plot_png.h"

#include <dirent.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
static int same_rgb(const unsigned char a[3], const unsigned char b[3]) { return !memcmp(a, b, 3); }

/* Some pixel within +-r of (x, y) has colour rgb. */
static int colour_near(const lsim_canvas *c, double x, double y, int r, const unsigned char rgb[3])
{
    const int cx = (int)floor(x + 0.5), cy = (int)floor(y + 0.5);
    for (int j = -r; j <= r; ++j)
        for (int i = -r; i <= r; ++i) {
            unsigned char p[3];
            if (lsim_canvas_get(c, cx + i, cy + j, p) && same_rgb(p, rgb))
                return 1;
        }
    return 0;
}

static size_t count_colour(const lsim_canvas *c, const unsigned char rgb[3])
{
    size_t n = 0;
    for (int y = 0; y < c->height; ++y)
        for (int x = 0; x < c->width; ++x) {
            unsigned char p[3];
            lsim_canvas_get(c, x, y, p);
            n += same_rgb(p, rgb);
        }
    return n;
}

static const unsigned char RED[3] = {220, 20, 30};
static const unsigned char MAGENTA[3] = {200, 0, 200};
static const unsigned char GREEN[3] = {0, 150, 60};
static const unsigned char ORANGE[3] = {250, 140, 0};

/* Text through cairo's font: antialiased ink (grey levels between the colour and the background)
 * inside the box the metrics give; wider text for longer strings; malformed UTF-8 still draws. */
static void test_font(lsim_context *ctx)
{
    CHECK(lsim_canvas_text_width("", 1) == 0);
    const int w1 = lsim_canvas_text_width("ab", 1), w2 = lsim_canvas_text_width("ab", 2);
    CHECK(w1 >= 8 && w1 <= 16);                  /* two glyphs of a 9.6 px font */
    CHECK(w2 >= 2 * w1 - 2 && w2 <= 2 * w1 + 2);  /* scales linearly */
    CHECK(lsim_canvas_text_width("WWWW", 1) > lsim_canvas_text_width("iiii", 1)); /* proportional */
    CHECK(lsim_canvas_text_fit("a long line of text", 4, 60) < 4);
    lsim_canvas *c;
    REQUIRE_OK(ctx, lsim_canvas_create(ctx, 200, 60, NULL, &c));
    const unsigned char black[3] = {0, 0, 0};
    lsim_canvas_text(c, 10, 10, "Hg 45\xC2\xB0 \xE2\x82", 2, LSIM_ALIGN_LEFT, black); /* degree sign, cut euro */
    int dark = 0, grey = 0, outside = 0;
    for (int y = 0; y < 60; ++y)
        for (int x = 0; x < 200; ++x) {
            unsigned char p[3];
            lsim_canvas_get(c, x, y, p);
            CHECK(p[0] == p[1] && p[1] == p[2]); /* greyscale antialiasing, no colour fringes */
            const int inside = x >= 9 && y >= 6 && y < 10 + 14 + 8;
            if (p[0] < 80)
                dark += inside, outside += !inside;
            else if (p[0] < 230)
                grey += inside, outside += !inside;
        }
    CHECK(dark > 40);
    CHECK(grey > 20);  /* antialiased edges */
    CHECK(outside == 0);
    lsim_canvas_destroy(c);
}

static void test_canvas(lsim_context *ctx, const char *dir)
{
    lsim_canvas *c = NULL;
    CHECK(lsim_canvas_create(ctx, 0, 10, NULL, &c) == LSIM_ERR_INVALID_ARGUMENT && c == NULL);
    CHECK(lsim_canvas_create(ctx, 10, LSIM_CANVAS_MAX_SIDE + 1, NULL, &c) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_canvas_create(ctx, 10, 10, NULL, NULL) == LSIM_ERR_INVALID_ARGUMENT);
    REQUIRE_OK(ctx, lsim_canvas_create(ctx, 200, 100, NULL, &c));
    unsigned char p[3];
    CHECK(lsim_canvas_get(c, 5, 5, p) && p[0] == 255 && p[1] == 255 && p[2] == 255);
    CHECK(!lsim_canvas_get(c, 200, 5, p) && !lsim_canvas_get(c, -1, 5, p));

    /* horizontal line, 3 px thick, centred on row 50 */
    lsim_stroke st = {{RED[0], RED[1], RED[2]}, 3, 0, 0, 1.0};
    lsim_canvas_line(c, 10, 50, 190, 50, &st);
    CHECK(lsim_canvas_get(c, 100, 49, p) && same_rgb(p, RED));
    CHECK(lsim_canvas_get(c, 100, 51, p) && same_rgb(p, RED));
    CHECK(lsim_canvas_get(c, 100, 52, p) && !same_rgb(p, RED));
    CHECK(lsim_canvas_get(c, 9, 50, p) && !same_rgb(p, RED));
    /* far-away and non-finite ends: clipped, no hang */
    lsim_stroke g = {{GREEN[0], GREEN[1], GREEN[2]}, 2, 0, 0, 1.0};
    lsim_canvas_line(c, -1e300, 20, 1e300, 20, &g);
    CHECK(lsim_canvas_get(c, 0, 20, p) && same_rgb(p, GREEN));
    CHECK(lsim_canvas_get(c, 199, 20, p) && same_rgb(p, GREEN));
    lsim_canvas_line(c, NAN, 0, 100, 100, &g);
    lsim_canvas_line(c, 1e9, 1e9, 2e9, 2e9, &g);
    /* dashed: some gaps along the line */
    lsim_stroke dash = {{MAGENTA[0], MAGENTA[1], MAGENTA[2]}, 1, 4, 4, 1.0};
    lsim_canvas_line(c, 0, 80, 199, 80, &dash);
    int on = 0, off = 0;
    for (int x = 0; x < 200; ++x) {
        on += lsim_canvas_get(c, x, 80, p) && p[1] < 128;   /* mostly magenta (green channel low) */
        off += lsim_canvas_get(c, x, 80, p) && p[1] == 255; /* white gap */
    }
    CHECK(on >= 80 && on <= 120);
    CHECK(off >= 60);
    /* translucent: a blend of the colour and white */
    lsim_stroke half = {{0, 0, 0}, 1, 0, 0, 0.5};
    lsim_canvas_line(c, 0, 90, 199, 90, &half);
    CHECK(lsim_canvas_get(c, 100, 90, p) && p[0] >= 126 && p[0] <= 129);
    /* clip rectangle */
    lsim_canvas_clip(c, 0, 0, 50, 100);
    lsim_canvas_fill_rect(c, 0, 0, 200, 10, ORANGE);
    CHECK(lsim_canvas_get(c, 49, 5, p) && same_rgb(p, ORANGE));
    CHECK(lsim_canvas_get(c, 50, 5, p) && !same_rgb(p, ORANGE));
    lsim_canvas_clip_reset(c);
    /* markers and text */
    lsim_canvas_marker(c, 150, 70, LSIM_MARKER_CIRCLE, 9, RED);
    CHECK(lsim_canvas_get(c, 150, 70, p) && same_rgb(p, RED));
    CHECK(lsim_canvas_get(c, 150, 73, p) && same_rgb(p, RED));
    CHECK(lsim_canvas_get(c, 150, 76, p) && !same_rgb(p, RED) && p[1] > 200); /* outside the disc: white */
    lsim_canvas_marker(c, 120, 70, LSIM_MARKER_RING, 11, MAGENTA);
    CHECK(lsim_canvas_get(c, 120, 70, p) && !same_rgb(p, MAGENTA));
    CHECK(lsim_canvas_get(c, 125, 70, p) && p[1] < 60); /* on the ring: (mostly) magenta */
    const unsigned char black[3] = {0, 0, 0};
    /* a '|' is a tall, narrow bar; rotated, a '-' becomes a vertical bar */
    lsim_canvas_text(c, 60, 30, "|", 2, LSIM_ALIGN_LEFT, black);
    int bar_top = 100, bar_bottom = -1;
    for (int y = 20; y < 60; ++y)
        for (int x = 58; x < 75; ++x)
            if (lsim_canvas_get(c, x, y, p) && p[0] < 64) {
                bar_top = y < bar_top ? y : bar_top;
                bar_bottom = y > bar_bottom ? y : bar_bottom;
            }
    CHECK(bar_top <= 32 && bar_bottom - bar_top >= 14);
    lsim_canvas_text_vertical(c, 100, 30, "-", 2, black);
    int x_lo = 200, x_hi = -1, y_lo = 200, y_hi = -1;
    for (int y = 15; y < 45; ++y)
        for (int x = 95; x < 125; ++x)
            if (lsim_canvas_get(c, x, y, p) && p[0] < 64 && p[1] < 64) {
                x_lo = x < x_lo ? x : x_lo;
                x_hi = x > x_hi ? x : x_hi;
                y_lo = y < y_lo ? y : y_lo;
                y_hi = y > y_hi ? y : y_hi;
            }
    CHECK(x_hi >= x_lo && y_hi - y_lo >= 3 && y_hi - y_lo > x_hi - x_lo); /* taller than wide */

    char path[512];
    path_join(path, sizeof path, dir, "canvas.png");
    REQUIRE_OK(ctx, lsim_canvas_write_png(ctx, c, path));
    CHECK(png_has_size(path, 200, 100));
    CHECK(lsim_canvas_write_png(ctx, c, "") == LSIM_ERR_INVALID_ARGUMENT);
    lsim_canvas_destroy(c);
    lsim_canvas_destroy(NULL);
}

static void test_single(lsim_context *ctx, const char *dir)
{
    lsim_plot *p = NULL;
    REQUIRE_OK(ctx, lsim_plot_create(ctx, 800, 600, "Single panel \xC2\xB1 test", "incidence angle (\xC2\xB0)",
                                     "intensity", &p));
    const double x[5] = {0, 10, 20, 30, 40};
    const double yl[5] = {10, 30, 20, 40, 35};          /* red line */
    const double ym[5] = {5, 6, 7, 8, 9};               /* magenta squares */
    const double xn[5] = {0, 10, 20, NAN, 40};
    const double yn[5] = {50, NAN, 50, 50, 50};         /* green line: every segment has a NaN end */
    const double lo[5] = {4, 5, NAN, 7, 8}, hi[5] = {6, 7, 8, 9, 10};
    REQUIRE_OK(ctx, lsim_plot_add_series(p, "line", x, yl, 5, LSIM_PLOT_LINE, RED));
    REQUIRE_OK(ctx, lsim_plot_add_series_err(p, "squares", x, ym, lo, hi, 5, LSIM_PLOT_MARKERS, MAGENTA));
    REQUIRE_OK(ctx, lsim_plot_set_marker(p, LSIM_MARKER_SQUARE));
    REQUIRE_OK(ctx, lsim_plot_add_series(p, "with NaN", xn, yn, 5, LSIM_PLOT_LINE, GREEN));
    REQUIRE_OK(ctx, lsim_plot_add_series(p, "empty", NULL, NULL, 0, LSIM_PLOT_BOTH, NULL));
    REQUIRE_OK(ctx, lsim_plot_add_hline(p, 0.0));
    lsim_plot_set_legend(p, LSIM_LEGEND_TOP_LEFT);

    lsim_canvas *c;
    REQUIRE_OK(ctx, lsim_canvas_create(ctx, 800, 600, NULL, &c));
    REQUIRE_OK(ctx, lsim_plot_render(p, c));
    double px, py;
    /* squares at their data points */
    CHECK(lsim_plot_data_to_pixel(p, 0, 0, 30, 8, &px, &py));
    CHECK(px > 0 && px < 800 && py > 0 && py < 600);
    CHECK(colour_near(c, px, py, 0, MAGENTA));
    /* the red line through the midpoint of its 2nd segment (not covered by the legend at top left) */
    CHECK(lsim_plot_data_to_pixel(p, 0, 0, 25, 30, &px, &py));
    CHECK(colour_near(c, px, py, 1, RED));
    /* NaN breaks the green line: no segment from x = 0 to 20 (the point at x = 10 is NaN),
     * nor from 20 to 40 (x = 30 is NaN); so no green pixel at (10, 50) or (30, 50) */
    CHECK(lsim_plot_data_to_pixel(p, 0, 0, 10, 50, &px, &py));
    CHECK(!colour_near(c, px, py, 2, GREEN));
    CHECK(lsim_plot_data_to_pixel(p, 0, 0, 30, 50, &px, &py));
    CHECK(!colour_near(c, px, py, 2, GREEN));
    CHECK(count_colour(c, GREEN) > 0); /* the legend sample */
    /* error bar: the magenta bar at x = 40 spans 8..10 */
    CHECK(lsim_plot_data_to_pixel(p, 0, 0, 40, 9.9, &px, &py));
    CHECK(colour_near(c, px, py, 1, MAGENTA));
    /* a wrong-sized canvas is refused */
    lsim_canvas *small;
    REQUIRE_OK(ctx, lsim_canvas_create(ctx, 100, 100, NULL, &small));
    CHECK(lsim_plot_render(p, small) == LSIM_ERR_INVALID_ARGUMENT);
    lsim_canvas_destroy(small);
    lsim_canvas_destroy(c);

    char path[512];
    path_join(path, sizeof path, dir, "single.png");
    REQUIRE_OK(ctx, lsim_plot_write(p, path));
    CHECK(png_has_size(path, 800, 600));
    /* fixed ranges: points outside are clipped away, inside map linearly */
    REQUIRE_OK(ctx, lsim_plot_set_xrange(p, 0, 40));
    REQUIRE_OK(ctx, lsim_plot_set_yrange(p, 0, 100));
    double ax0, ay0, ax1, ay1;
    CHECK(lsim_plot_data_to_pixel(p, 0, 0, 0, 0, &ax0, &ay0));
    CHECK(lsim_plot_data_to_pixel(p, 0, 0, 40, 100, &ax1, &ay1));
    CHECK(ax1 > ax0 && ay1 < ay0);
    CHECK(lsim_plot_data_to_pixel(p, 0, 0, 20, 50, &px, &py));
    CHECK_NEAR(px, 0.5 * (ax0 + ax1), 1e-9);
    CHECK_NEAR(py, 0.5 * (ay0 + ay1), 1e-9);
    path_join(path, sizeof path, dir, "single_fixed.png");
    REQUIRE_OK(ctx, lsim_plot_write(p, path));
    CHECK(png_has_size(path, 800, 600));

    /* bad arguments */
    CHECK(lsim_plot_set_xrange(p, 1, 1) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_plot_set_yrange(p, NAN, 1) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_plot_set_yrange(p, 2, 1) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_plot_add_series(p, "bad", NULL, ym, 5, LSIM_PLOT_LINE, NULL) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_plot_add_series(p, "bad", x, ym, 5, (lsim_plot_style)0, NULL) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_plot_select(p, 0, 1) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_plot_add_hline(p, INFINITY) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_plot_write(p, "") == LSIM_ERR_INVALID_ARGUMENT);
    path_join(path, sizeof path, dir, "missing/plot.png");
    CHECK(lsim_plot_write(p, path) == LSIM_ERR_IO);
    for (int i = 0; i < LSIM_PLOT_MAX_SERIES; ++i)
        lsim_plot_add_series(p, NULL, x, ym, 5, LSIM_PLOT_LINE, NULL);
    CHECK(lsim_plot_add_series(p, "one too many", x, ym, 5, LSIM_PLOT_LINE, NULL) == LSIM_ERR_INVALID_ARGUMENT);
    lsim_plot_destroy(p);

    p = (lsim_plot *)1;
    CHECK(lsim_plot_create(ctx, 0, 600, "t", "x", "y", &p) == LSIM_ERR_INVALID_ARGUMENT && p == NULL);
    CHECK(lsim_plot_create(ctx, 800, 10, "t", "x", "y", &p) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_plot_create(ctx, 800, 600, "t", "x", "y", NULL) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_plot_grid(ctx, 800, 600, 0, 2, "t", &p) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_plot_grid(ctx, 800, 600, 20, 20, "t", &p) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_plot_grid(ctx, 200, 200, 4, 4, "t", &p) == LSIM_ERR_INVALID_ARGUMENT); /* 50 px panels */
    CHECK(lsim_plot_add_series(NULL, "x", x, ym, 5, LSIM_PLOT_LINE, NULL) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_plot_write(NULL, "x.png") == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(!lsim_plot_data_to_pixel(NULL, 0, 0, 1, 1, &px, &py));
    lsim_plot_destroy(NULL);
}

static void test_grid(lsim_context *ctx, const char *dir)
{
    lsim_plot *p;
    REQUIRE_OK(ctx, lsim_plot_grid(ctx, 1200, 900, 2, 2, "wood: simulated vs real", &p));
    double angle[30], real[30], sim[30], lo[30], hi[30], drop[30];
    for (int i = 0; i < 30; ++i) {
        angle[i] = 1.0 + 2.0 * i;
        real[i] = 47.0 * cos(angle[i] * 3.14159265358979 / 180.0);
        sim[i] = real[i] + ((i % 3) - 1) * 1.5;
        drop[i] = i < 20 ? 0.01 * i : 0.2 + 0.04 * (i - 20);
        lo[i] = drop[i] > 0.05 ? drop[i] - 0.05 : 0.0;
        hi[i] = drop[i] + 0.05;
    }
    real[7] = NAN; /* an empty real bin */
    REQUIRE_OK(ctx, lsim_plot_select(p, 0, 0));
    REQUIRE_OK(ctx, lsim_plot_set_labels(p, "mean intensity", "incidence angle (deg)", "intensity"));
    REQUIRE_OK(ctx, lsim_plot_add_series(p, "real", angle, real, 30, LSIM_PLOT_BOTH, RED));
    REQUIRE_OK(ctx, lsim_plot_add_series(p, "sim", angle, sim, 30, LSIM_PLOT_BOTH, NULL));
    REQUIRE_OK(ctx, lsim_plot_select(p, 0, 1));
    REQUIRE_OK(ctx, lsim_plot_set_labels(p, "drop rate", "incidence angle (deg)", "drop rate"));
    REQUIRE_OK(ctx, lsim_plot_add_series_err(p, "real (95% Wilson)", angle, drop, lo, hi, 30, LSIM_PLOT_MARKERS,
                                             MAGENTA));
    REQUIRE_OK(ctx, lsim_plot_set_yrange(p, 0.0, 1.0));
    /* (1, 0): degenerate data: one point and a constant series */
    const double one_x = 5.0, one_y = 3.0, cx[3] = {1, 2, 3}, cy[3] = {2, 2, 2};
    REQUIRE_OK(ctx, lsim_plot_select(p, 1, 0));
    REQUIRE_OK(ctx, lsim_plot_set_labels(p, "degenerate", "x", "y"));
    REQUIRE_OK(ctx, lsim_plot_add_series(p, "one point", &one_x, &one_y, 1, LSIM_PLOT_BOTH, ORANGE));
    REQUIRE_OK(ctx, lsim_plot_add_series(p, "constant", cx, cy, 3, LSIM_PLOT_LINE, GREEN));
    /* (1, 1): only NaN and empty series: "no data", default ranges */
    const double nx[2] = {NAN, 1.0}, ny[2] = {1.0, NAN};
    REQUIRE_OK(ctx, lsim_plot_select(p, 1, 1));
    REQUIRE_OK(ctx, lsim_plot_set_labels(p, "nothing to show", NULL, ""));
    REQUIRE_OK(ctx, lsim_plot_add_series(p, "all NaN", nx, ny, 2, LSIM_PLOT_BOTH, NULL));
    REQUIRE_OK(ctx, lsim_plot_add_series(p, "empty", NULL, NULL, 0, LSIM_PLOT_LINE, NULL));

    lsim_canvas *c;
    REQUIRE_OK(ctx, lsim_canvas_create(ctx, 1200, 900, NULL, &c));
    REQUIRE_OK(ctx, lsim_plot_render(p, c));
    double px, py;
    /* panel (0, 1): the marker of drop[25] = 0.40 at angle 51 */
    CHECK(lsim_plot_data_to_pixel(p, 0, 1, angle[25], drop[25], &px, &py));
    CHECK(px > 600 && py < 450);
    CHECK(colour_near(c, px, py, 0, MAGENTA));
    /* panel (1, 0): the single point and the constant line, inside the panel */
    CHECK(lsim_plot_data_to_pixel(p, 1, 0, one_x, one_y, &px, &py));
    CHECK(px > 0 && px < 600 && py > 450 && py < 900);
    CHECK(colour_near(c, px, py, 0, ORANGE));
    CHECK(lsim_plot_data_to_pixel(p, 1, 0, 2.0, 2.0, &px, &py));
    CHECK(px > 0 && px < 600 && py > 450 && py < 900);
    CHECK(colour_near(c, px, py, 1, GREEN));
    /* panel (1, 1): default range [0, 1] */
    CHECK(lsim_plot_data_to_pixel(p, 1, 1, 0.5, 0.5, &px, &py));
    CHECK(px > 600 && px < 1200 && py > 450 && py < 900);
    CHECK(!lsim_plot_data_to_pixel(p, 2, 0, 0.5, 0.5, &px, &py));
    lsim_canvas_destroy(c);

    char path[512];
    path_join(path, sizeof path, dir, "grid.png");
    REQUIRE_OK(ctx, lsim_plot_write(p, path));
    CHECK(png_has_size(path, 1200, 900));
    lsim_plot_destroy(p);

    /* small figures and many panels still render */
    REQUIRE_OK(ctx, lsim_plot_grid(ctx, 640, 480, 3, 4, NULL, &p));
    for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 4; ++k) {
            REQUIRE_OK(ctx, lsim_plot_select(p, r, k));
            REQUIRE_OK(ctx, lsim_plot_add_series(p, "s", angle, sim, 30, LSIM_PLOT_LINE, NULL));
        }
    path_join(path, sizeof path, dir, "small_grid.png");
    REQUIRE_OK(ctx, lsim_plot_write(p, path));
    CHECK(png_has_size(path, 640, 480));
    lsim_plot_destroy(p);

    /* extreme values: huge and tiny spans, far from zero */
    const double ex[3] = {1e9, 1e9 + 1e-3, 1e9 + 2e-3}, ey[3] = {-1e300, 0.0, 1e300};
    REQUIRE_OK(ctx, lsim_plot_create(ctx, 400, 300, "extremes", "x", "y", &p));
    REQUIRE_OK(ctx, lsim_plot_add_series(p, "e", ex, ey, 3, LSIM_PLOT_BOTH, NULL));
    CHECK(lsim_plot_data_to_pixel(p, 0, 0, ex[1], ey[1], &px, &py));
    CHECK(isfinite(px) && isfinite(py));
    path_join(path, sizeof path, dir, "extremes.png");
    REQUIRE_OK(ctx, lsim_plot_write(p, path));
    CHECK(png_has_size(path, 400, 300));
    lsim_plot_destroy(p);
}

int main(void)
{
    lsim_context *ctx;
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    char dir[] = "test_plot.XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_font(ctx);
    test_canvas(ctx, dir);
    test_single(ctx, dir);
    test_grid(ctx, dir);
    CHECK(count_entries(dir, ".tmp.") == 0);
    CHECK(count_entries(dir, NULL) == 6);
    const char *keep = getenv("LSIM_KEEP_OUTPUT");
    if (keep && *keep && strcmp(keep, "0"))
        printf("test_plot: images kept in %s\n", dir);
    else
        remove_tree(dir);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_plot");
}
