/* Rays that are not finite never reach an engine's tracer (Embree has aborted on NaN rays): every
 * engine reports them as misses, and finite rays beside them are traced as usual. Per-ray
 * tnear/tfar and masks are honoured. Run for each engine behind the seam. */
#include "harness.h"
#include "test_scenes.h"

#include "geometry/engine.h"
#include "scene/scene.h"

#include "lidarsim.h"

static void check_engine(lsim_context *ctx, lsim_scene *scene, const lsim_engine_ops *ops)
{
    lsim_engine *engine;
    REQUIRE_OK(ctx, lsim_engine_build(scene, ops, &engine));
    REQUIRE_OK(ctx, lsim_engine_set_frame_time(engine, ctx, 0.0, 0.1));
    enum { N = 9 };
    float ox[N] = {0, NAN, 0, 0, INFINITY, 0, 0, 0, 0}, oy[N] = {0}, oz[N] = {0};
    float dx[N] = {1, 1, NAN, 0, 1, 1, 1, 1, 1}, dy[N] = {0}, dz[N] = {0};
    float time[N] = {0}, tnear[N] = {0, 0, 0, 0, 0, 0, 6, 0, 0};
    float tfar[N] = {INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, 4, NAN};
    uint32_t mask[N] = {LSIM_RAY_MASK_ALL, LSIM_RAY_MASK_ALL, LSIM_RAY_MASK_ALL, LSIM_RAY_MASK_ALL,
                        LSIM_RAY_MASK_ALL, LSIM_RAY_MASK_ALL, LSIM_RAY_MASK_ALL, LSIM_RAY_MASK_ALL,
                        LSIM_RAY_MASK_ALL};
    float t[N], u[N], v[N], ngx[N], ngy[N], ngz[N];
    uint32_t object[N], primitive[N];
    uint8_t blocked[N];
    lsim_rays rays = {N, ox, oy, oz, dx, dy, dz, time, tnear, tfar, mask, 0, NULL, 0.0};
    lsim_hits hits = {t, object, primitive, u, v, ngx, ngy, ngz};
    lsim_engine_intersect(engine, &rays, N, &hits);
    CHECK_NEAR(t[0], 5.0, 1e-5); /* finite: the wall at 5 m */
    CHECK(object[0] == 0);
    CHECK(ngx[0] != 0.0f && ngy[0] == 0.0f && ngz[0] == 0.0f);
    CHECK(u[0] >= 0.0f && v[0] >= 0.0f && u[0] + v[0] <= 1.0f);
    for (int i = 1; i <= 4; ++i) /* NaN origin, NaN direction, zero direction, infinite origin */
        CHECK(object[i] == LSIM_NO_HIT && isinf(t[i]));
    CHECK_NEAR(t[5], 5.0, 1e-5);
    CHECK(object[6] == LSIM_NO_HIT); /* tnear beyond the wall: nothing (a closed box) */
    CHECK(object[7] == LSIM_NO_HIT); /* tfar before the wall */
    CHECK(object[8] == LSIM_NO_HIT); /* tfar NaN */
    lsim_engine_occluded(engine, &rays, N, blocked);
    CHECK(blocked[0] == 1 && blocked[5] == 1);
    for (int i = 1; i <= 4; ++i)
        CHECK(blocked[i] == 0);
    CHECK(blocked[6] == 0 && blocked[7] == 0 && blocked[8] == 0);
    lsim_engine_destroy(engine);
}

int main(void)
{
    lsim_context *ctx;
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    lsim_scene *scene = test_scene_room(ctx, 10, 10, 10); /* walls at +-5 m */
    check_engine(ctx, scene, &lsim_engine_embree);
    check_engine(ctx, scene, &lsim_engine_brute);
    lsim_scene_destroy(scene);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_engine_rays");
}
