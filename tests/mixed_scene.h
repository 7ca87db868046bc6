/* A scene for scan tests that exercises most of the pipeline: a floor, a wall and a sphere,
 * sub-rays and dual returns (beams with two echoes), sunlight (false echoes of no surface), beams
 * above the wall (misses), a tilted pose; 16 rings x `columns` beams. */
#ifndef LSIM_TEST_MIXED_SCENE_H
#define LSIM_TEST_MIXED_SCENE_H

#include "harness.h"

#include "lidarsim.h"

static inline void mixed_scene_make(lsim_context *ctx, int columns, lsim_scene **out_scene, lsim_sensor **out_sensor)
{
    lsim_scene *scene;
    REQUIRE_OK(ctx, lsim_scene_create(ctx, &scene));
    REQUIRE_OK(ctx, lsim_scene_add_lambertian(scene, "wall", 0.6));
    lsim_object_desc d;
    lsim_object_desc_init(&d);
    d.material = "wall";
    d.label = "building";
    const double floor_size[2] = {30.0, 30.0}, wall_size[2] = {30.0, 6.0};
    REQUIRE_OK(ctx, lsim_scene_add_plane(scene, floor_size, &d));
    d.position[0] = 8.0;
    d.position[2] = 3.0;
    d.rotation_deg[1] = 90.0;
    REQUIRE_OK(ctx, lsim_scene_add_plane(scene, wall_size, &d));
    lsim_object_desc_init(&d);
    d.position[0] = 4.0;
    d.position[1] = 0.5;
    d.position[2] = 1.5;
    d.label = "car";
    REQUIRE_OK(ctx, lsim_scene_add_sphere(scene, 0.8, &d));
    const double sun[3] = {0.3, 0.2, 1.0};
    REQUIRE_OK(ctx, lsim_scene_set_ambient(scene, sun, 200.0));

    lsim_sensor *sensor;
    double elevations[16];
    for (int i = 0; i < 16; ++i)
        elevations[i] = -25.0 + 3.0 * i; /* up to +20 deg: the upper beams pass above the wall */
    REQUIRE_OK(ctx, lsim_sensor_create_rotating(ctx, 16, elevations, columns, 10.0, &sensor));
    const double pos[3] = {0.0, 0.0, 1.5}, rpy[3] = {2.0, 3.0, 10.0};
    REQUIRE_OK(ctx, lsim_sensor_set_pose(sensor, pos, rpy));
    REQUIRE_OK(ctx, lsim_sensor_set_beam(sensor, 4.0, LSIM_BEAM_RAYS, 1));
    REQUIRE_OK(ctx, lsim_sensor_set_receiver(sensor, 6.0, LSIM_RETURNS_DUAL, 2));
    *out_scene = scene;
    *out_sensor = sensor;
}

#endif
