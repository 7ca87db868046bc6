/* The raster engine's view cache stays within its memory bound (geometry/raster_views.h):
 * raster_views_trim frees the least recently used views -- those no longer valid first, never the
 * one about to be drawn -- until the others and the new view fit the budget; a view that alone
 * exceeds it keeps only itself. raster_view_bytes counts range + object + prim (12 bytes a
 * pixel), raster_view_bytes_needed a view's faces x w x h. */
#include "geometry/raster_views.h"
#include "harness.h"

#include <string.h>

enum { PX = 1000, BYTES = PX * 12 };

static void give(raster_view *v, unsigned long stamp, int valid)
{
    memset(v, 0, sizeof *v);
    v->range = calloc(PX, sizeof *v->range);
    v->object = calloc(PX, sizeof *v->object);
    v->prim = calloc(PX, sizeof *v->prim);
    v->capacity = PX;
    v->stamp = stamp;
    v->valid = valid;
}

static void free_all(raster_view *v, int n)
{
    for (int i = 0; i < n; ++i)
        raster_view_free(&v[i]);
}

int main(void)
{
    raster_view v[4];
    const unsigned long stamps[4] = {4, 1, 3, 2};

    /* sizes */
    give(&v[0], 1, 1);
    CHECK(raster_view_bytes(&v[0]) == BYTES);
    v[0].faces = 6, v[0].w = 100, v[0].h = 50;
    CHECK(raster_view_bytes_needed(&v[0]) == 6u * 100 * 50 * 12);
    /* once drawn: a buffer kept up to 4x its view (1000 >= 4 x 250), a new one beyond (249) */
    v[0].faces = 1, v[0].w = 250, v[0].h = 1;
    CHECK(raster_view_bytes_after(&v[0]) == BYTES);
    v[0].w = 249;
    CHECK(raster_view_bytes_after(&v[0]) == 249u * 12);
    v[0].w = 1001;
    CHECK(raster_view_bytes_after(&v[0]) == 1001u * 12);
    raster_view_free(&v[0]);
    CHECK(v[0].capacity == 0 && !v[0].range && !v[0].valid && raster_view_bytes(&v[0]) == 0);

    /* within budget: nothing freed */
    for (int i = 0; i < 4; ++i)
        give(&v[i], stamps[i], 1);
    CHECK(raster_views_trim(v, 4, &v[0], BYTES, 4 * BYTES) == 3 * BYTES);
    for (int i = 0; i < 4; ++i)
        CHECK(v[i].capacity == PX && v[i].valid);

    /* one over: the least recently used other (stamp 1) goes */
    CHECK(raster_views_trim(v, 4, &v[0], BYTES, 3 * BYTES) == 2 * BYTES);
    CHECK(v[1].capacity == 0 && !v[1].valid);
    CHECK(v[0].capacity == PX && v[2].capacity == PX && v[3].capacity == PX);
    free_all(v, 4);

    /* an invalid view goes before an older valid one */
    for (int i = 0; i < 4; ++i)
        give(&v[i], stamps[i], i != 2);
    CHECK(raster_views_trim(v, 4, &v[0], BYTES, 3 * BYTES) == 2 * BYTES);
    CHECK(v[2].capacity == 0 && v[1].capacity == PX && v[3].capacity == PX);
    free_all(v, 4);

    /* the kept view is never freed, even when it is the oldest; the others go oldest first */
    for (int i = 0; i < 4; ++i)
        give(&v[i], stamps[i], 1);
    CHECK(raster_views_trim(v, 4, &v[1], 0, 2 * BYTES) == 2 * BYTES);
    CHECK(v[1].capacity == PX && v[3].capacity == 0 && v[0].capacity == PX && v[2].capacity == PX);

    /* a view larger than the budget alone: every other is freed, it stays */
    CHECK(raster_views_trim(v, 4, &v[1], 10 * BYTES, 5 * BYTES) == 0);
    CHECK(v[1].capacity == PX && v[0].capacity == 0 && v[2].capacity == 0 && v[3].capacity == 0);
    free_all(v, 4);

    return lsim_test_summary("test_raster_cache");
}
