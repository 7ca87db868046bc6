/* A scene that uses one mesh file for several objects imports it once (mesh_cache.h) and
 * places each copy by its own transform: the cached, untransformed arrays are never moved. */
#include "files.h"
#include "harness.h"

#include "scene/scene.h"

#include "lidarsim.h"

#include <string.h>

int main(void)
{
    lsim_context *ctx;
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    scratch_make("mesh_cache");
    scratch_write_text("tri.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    const char *scene_path = scratch_write_text(
        "scene.yaml", "sensor: {type: planar, fov_deg: 90, steps: 8}\n"
                      "objects:\n"
                      "  - mesh: tri.obj\n    position: [10, 0, 0]\n"
                      "  - mesh: ./tri.obj\n    position: [0, 20, 0]\n    scale: 2\n"
                      "  - box: {size: [1, 1, 1]}\n    position: [0, 0, -50]\n"
                      "  - mesh: tri.obj\n    position: [0, 0, 30]\n    rotation: [0, 0, 90]\n");
    lsim_scene *scene;
    lsim_sensor *sensor;
    REQUIRE_OK(ctx, lsim_scene_load(ctx, scene_path, &scene, &sensor));
    CHECK(scene->object_count == 4);
    const lsim_object *a = &scene->objects[0], *b = &scene->objects[1], *c = &scene->objects[3];
    CHECK(a->triangle_count == 1 && b->triangle_count == 1 && c->triangle_count == 1);
    /* vertex 1 = (1, 0, 0) in the file */
    CHECK_NEAR(a->vertices[3], 11.0, 1e-6);
    CHECK_NEAR(a->vertices[4], 0.0, 1e-6);
    CHECK_NEAR(b->vertices[3], 2.0, 1e-6);
    CHECK_NEAR(b->vertices[4], 20.0, 1e-6);
    CHECK_NEAR(c->vertices[3], 0.0, 1e-6); /* yawed 90 deg: (1, 0, 0) -> (0, 1, 0) */
    CHECK_NEAR(c->vertices[4], 1.0, 1e-6);
    CHECK_NEAR(c->vertices[5], 30.0, 1e-6);
    CHECK(a->vertices != b->vertices && b->vertices != c->vertices); /* each object owns its copy */
    lsim_scene_destroy(scene);
    lsim_sensor_destroy(sensor);

    /* a bad file named twice fails at its first use, with the first object's line */
    scratch_write_text("bad.obj", "v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n");
    const char *bad = scratch_write_text("bad.yaml", "sensor: {type: planar, fov_deg: 90, steps: 8}\n"
                                                     "objects:\n  - mesh: bad.obj\n  - mesh: bad.obj\n");
    CHECK(lsim_scene_load(ctx, bad, &scene, &sensor) == LSIM_ERR_PARSE);
    CHECK(strstr(lsim_context_last_error(ctx), "bad.yaml:3:") != NULL);
    CHECK(strstr(lsim_context_last_error(ctx), "finite") != NULL);
    scratch_remove();
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_mesh_cache");
}
