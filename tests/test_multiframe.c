/* Multi-frame use: a scene built once, then many frames with new poses and seeds through
 * lsim_scene_scan_into. Each frame equals a fresh lsim_scene_scan of the same settings, byte for
 * byte, and once the sensor has run a frame, a further frame allocates nothing: the library's
 * malloc/calloc/realloc calls are counted (the test is linked with -Wl,--wrap=..., see
 * tests/CMakeLists.txt; shared libraries such as Embree and libgomp are not counted). */
#define _GNU_SOURCE
#include "harness.h"
#include "test_scenes.h"

#include "lidarsim.h"

#include <stdint.h>
#include <string.h>

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
static long allocations;
void *__wrap_malloc(size_t size)
{
    __atomic_add_fetch(&allocations, 1, __ATOMIC_RELAXED);
    return __real_malloc(size);
}
void *__wrap_calloc(size_t n, size_t size)
{
    __atomic_add_fetch(&allocations, 1, __ATOMIC_RELAXED);
    return __real_calloc(n, size);
}
void *__wrap_realloc(void *p, size_t size)
{
    __atomic_add_fetch(&allocations, 1, __ATOMIC_RELAXED);
    return __real_realloc(p, size);
}

/* 1 if every column the two buffers share holds the same bytes and the counts agree. */
static int same_points(const lsim_points *a, const lsim_points *b)
{
    if (lsim_points_count(a) != lsim_points_count(b) || lsim_points_count(a) == 0)
        return 0;
    for (int f = 0; f < LSIM_FIELD_COUNT; ++f) {
        const void *x = lsim_points_column(a, (lsim_field)f), *y = lsim_points_column(b, (lsim_field)f);
        if (!x || !y)
            continue;
        size_t bytes = lsim_points_count(a) * (lsim_field_get_type((lsim_field)f) == LSIM_TYPE_U16 ? 2 : 4);
        if (memcmp(x, y, bytes) != 0) {
            fprintf(stderr, "field %s differs\n", lsim_field_name((lsim_field)f));
            return 0;
        }
    }
    return 1;
}

int main(void)
{
    lsim_context *ctx;
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    lsim_scene *scene = test_scene_room(ctx, 30, 20, 8);
    const double crate[3] = {1, 1, 1};
    const lsim_object_desc car = test_object(NULL, "car", 4, 0, 0);
    REQUIRE_OK(ctx, lsim_scene_add_box(scene, crate, &car));
    lsim_sensor *sensor;
    REQUIRE_OK(ctx, lsim_sensor_create_preset(ctx, "vlp16", &sensor));

    lsim_points *reused;
    REQUIRE_OK(ctx, lsim_points_create(ctx, &reused));
    lsim_scan_options opt;
    lsim_scan_options_init(&opt);
    opt.threads = 2;
    long steady = -1;
    for (int k = 0; k < 5; ++k) {
        const double pos[3] = {0.5 * k, -0.3 * k, 0.2 * k}, rpy[3] = {0, 2.0 * k, 15.0 * k};
        REQUIRE_OK(ctx, lsim_sensor_set_pose(sensor, pos, rpy));
        opt.seed = 100 + (uint64_t)k;
        opt.frame_index = (uint32_t)k;
        long before = __atomic_load_n(&allocations, __ATOMIC_SEQ_CST);
        REQUIRE_OK(ctx, lsim_scene_scan_into(scene, sensor, &opt, reused));
        long used = __atomic_load_n(&allocations, __ATOMIC_SEQ_CST) - before;
        if (k == 0) /* the first frame sizes the workspace and buffer (and proves the counter works) */
            CHECK(used > 10);
        if (k >= 2) /* frames 0 and 1 may grow the buffers; from then on nothing */
            steady = used > steady ? used : steady;
        lsim_points *fresh;
        REQUIRE_OK(ctx, lsim_scene_scan(scene, sensor, &opt, &fresh));
        CHECK(same_points(reused, fresh));
        CHECK(lsim_points_count(reused) > 20000); /* a VLP-16 inside a closed room: nearly every beam */
        lsim_points_destroy(fresh);
    }
    CHECK(steady == 0);
    if (steady != 0)
        fprintf(stderr, "a steady-state frame made %ld allocations\n", steady);

    /* fewer fields, then all again: the buffer follows the request */
    opt.fields = LSIM_FIELD_BIT(LSIM_FIELD_X) | LSIM_FIELD_BIT(LSIM_FIELD_Y) | LSIM_FIELD_BIT(LSIM_FIELD_Z);
    REQUIRE_OK(ctx, lsim_scene_scan_into(scene, sensor, &opt, reused));
    CHECK(lsim_points_column(reused, LSIM_FIELD_X) != NULL);
    CHECK(lsim_points_column(reused, LSIM_FIELD_INTENSITY) == NULL);
    opt.fields = 0;
    REQUIRE_OK(ctx, lsim_scene_scan_into(scene, sensor, &opt, reused));
    CHECK(lsim_points_column(reused, LSIM_FIELD_INTENSITY) != NULL);

    /* bad input leaves an empty buffer and a message */
    opt.threads = -1;
    CHECK(lsim_scene_scan_into(scene, sensor, &opt, reused) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "threads") != NULL);
    CHECK(lsim_scene_scan_into(scene, sensor, NULL, NULL) == LSIM_ERR_INVALID_ARGUMENT);

    lsim_points_destroy(reused);
    lsim_sensor_destroy(sensor);
    lsim_scene_destroy(scene);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_multiframe");
}
