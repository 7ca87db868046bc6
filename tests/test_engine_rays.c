/* Rays that are not finite never reach Embree (which has aborted on NaN rays): the engine
 * reports them as misses, and finite rays beside them are traced as usual. */
#include "harness.h"

#include "geometry/engine.h"
#include "scene/scene.h"

#include "lidarsim.h"

int main(void)
{
    lsim_context *ctx;
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    lsim_scene *scene;
    REQUIRE_OK(ctx, lsim_scene_create(ctx, &scene));
    lsim_object_desc desc;
    lsim_object_desc_init(&desc);
    const double size[3] = {10, 10, 10};
    REQUIRE_OK(ctx, lsim_scene_add_box(scene, size, &desc)); /* walls at +-5 m */
    lsim_engine *engine;
    REQUIRE_OK(ctx, lsim_engine_build(scene, &engine));

    enum { N = 6 };
    float ox[N] = {0, NAN, 0, 0, INFINITY, 0}, oy[N] = {0}, oz[N] = {0};
    float dx[N] = {1, 1, NAN, 0, 1, 1}, dy[N] = {0, 0, 0, 0, 0, 0}, dz[N] = {0, 0, 0, 0, 0, 0};
    float t[N], ngx[N], ngy[N], ngz[N];
    uint32_t object[N], primitive[N];
    lsim_rays rays = {N, ox, oy, oz, dx, dy, dz};
    lsim_hits hits = {t, object, primitive, ngx, ngy, ngz};
    lsim_engine_trace(engine, &rays, N, 0.0f, INFINITY, &hits);
    CHECK_NEAR(t[0], 5.0, 1e-5); /* finite: the wall at 5 m */
    CHECK(object[0] == 0);
    for (int i = 1; i <= 4; ++i) /* NaN origin, NaN direction, zero direction, infinite origin */
        CHECK(object[i] == LSIM_NO_HIT && isinf(t[i]));
    CHECK_NEAR(t[5], 5.0, 1e-5);

    /* the same through the single-ray and shadow-ray calls; tfar NaN too */
    const float org[3] = {0, 0, 0}, dir[3] = {1, 0, 0}, bad[3] = {NAN, 0, 0};
    float tt, ng[3];
    uint32_t obj;
    CHECK(lsim_engine_trace1(engine, org, dir, 0.0f, INFINITY, &tt, &obj, ng) == 1);
    CHECK_NEAR(tt, 5.0, 1e-5);
    CHECK(lsim_engine_trace1(engine, org, bad, 0.0f, INFINITY, &tt, &obj, ng) == 0);
    CHECK(lsim_engine_trace1(engine, org, dir, 0.0f, NAN, &tt, &obj, ng) == 0);
    CHECK(lsim_engine_occluded(engine, org, dir, 0.0f, 100.0f) == 1);
    CHECK(lsim_engine_occluded(engine, bad, dir, 0.0f, 100.0f) == 0);

    lsim_engine_destroy(engine);
    lsim_scene_destroy(scene);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_engine_rays");
}
