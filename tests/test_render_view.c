/* The point view's title (pictures/view_png.h) counts the points in view, not all of them: a 90-degree
 * perspective of four points, one behind the sensor and one 71 degrees to its left, says "2 of 4
 * points in view" (the title `lidarsim render` drew said "(4 points)"); the bird's-eye view of the
 * same points at a 15 m half width has three in view. */
#include "harness.h"

#include "pictures/view_png.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
    lsim_context *ctx;
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    const double x[4] = {10.0, 10.0, -5.0, 10.0}, y[4] = {0.0, 1.0, 0.0, 30.0}, z[4] = {0.0, 0.5, 0.0, 0.0};
    const double v[4] = {1.0, 2.0, 3.0, 4.0};
    char path[64];
    snprintf(path, sizeof path, "test_render_view.%ld.png", (long)getpid());
    lsim_view_spec spec = {.count = 4, .x = x, .y = y, .z = z, .value = v, .value_label = "range (m)",
                           .kind = LSIM_VIEW_PERSPECTIVE, .width = 400, .height = 300, .extent_m = 0.0,
                           .title = "p.pcd: perspective view", .count_in_title = 1};
    lsim_view_layout L;
    REQUIRE_OK(ctx, lsim_view_write_png(ctx, &spec, path, &L));
    CHECK(L.drawn == 2);
    CHECK(strcmp(L.title, "p.pcd: perspective view (2 of 4 points in view)") == 0);
    printf("perspective title: %s\n", L.title);
    spec.kind = LSIM_VIEW_BEV;
    spec.extent_m = 15.0;
    REQUIRE_OK(ctx, lsim_view_write_png(ctx, &spec, path, &L));
    CHECK(L.drawn == 3);
    CHECK(strstr(L.title, "(3 of 4 points in view)") != NULL);
    /* centred on (30, 20): none of them is within 15 m */
    spec.centre_x = 30.0;
    spec.centre_y = 20.0;
    REQUIRE_OK(ctx, lsim_view_write_png(ctx, &spec, path, &L));
    CHECK(L.drawn == 0 && strstr(L.title, "(0 of 4 points in view)") != NULL);
    /* no counts asked: the title as given */
    spec.count_in_title = 0;
    REQUIRE_OK(ctx, lsim_view_write_png(ctx, &spec, path, &L));
    CHECK(strcmp(L.title, "p.pcd: perspective view") == 0);
    CHECK(unlink(path) == 0);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_render_view");
}
