/* A scene that uses one mesh file for several objects imports it once (mesh_cache.h) and
 * places each copy by its own transform: the cached, untransformed arrays are never moved; the
 * first copy is the object's own, later static ones share one array placed by their pose. */
#include "files.h"
#include "harness.h"

#include "core/motion.h"
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
    /* later static copies are instances of an array shared per scale, in their own frame (scaled
     * only), placed by their pose */
    CHECK(a->share == NULL && b->share != NULL && c->share != NULL && b->share != c->share);
    CHECK(b->posed && b->motion && c->posed && c->motion);
    CHECK_NEAR(b->vertices[3], 2.0, 1e-6);
    CHECK_NEAR(b->vertices[4], 0.0, 1e-6);
    CHECK_NEAR(b->motion->position[1], 20.0, 1e-12);
    CHECK_NEAR(c->vertices[3], 1.0, 1e-6);
    CHECK_NEAR(c->vertices[4], 0.0, 1e-6);
    double pose[12];
    lsim_motion_pose_at(c->motion, 0.0, pose); /* row-major 3x4: yawed 90 deg, (1, 0, 0) -> (0, 1, 30) */
    CHECK_NEAR(pose[0] * 1.0 + pose[3], 0.0, 1e-6);
    CHECK_NEAR(pose[4] * 1.0 + pose[7], 1.0, 1e-6);
    CHECK_NEAR(pose[8] * 1.0 + pose[11], 30.0, 1e-6);
    CHECK(a->vertices != b->vertices && b->vertices != c->vertices);
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
