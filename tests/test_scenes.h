/* Scenes the C tests build again and again, through the public API: an empty scene with one
 * Lambertian material, an object description in one line, a box room around the sensor, a wall at a
 * known distance, and the mixed scene of the scan and stream tests. Every call ends the test on an
 * error (REQUIRE_OK), so a test reads as the geometry it sets up. */
#ifndef LSIM_TEST_SCENES_H
#define LSIM_TEST_SCENES_H

#include "harness.h"

#include "lidarsim.h"

#include <stdio.h>
#include <stdlib.h>

/* The path of an example of the source tree (e.g. "examples/street/street.yaml"), under
 * LSIM_SOURCE_DIR (or .. when unset). */
static inline void test_example_path(char *path, size_t size, const char *example)
{
    const char *src = getenv("LSIM_SOURCE_DIR");
    snprintf(path, size, "%s/%s", src ? src : "..", example);
}

/* That example loaded and committed; its sensor into *sensor unless sensor is NULL. */
static inline lsim_scene *test_example_scene(lsim_context *ctx, const char *example, lsim_sensor **sensor)
{
    char path[4096];
    test_example_path(path, sizeof path, example);
    lsim_scene *scene = NULL;
    REQUIRE_OK(ctx, lsim_scene_load(ctx, path, &scene, sensor));
    REQUIRE_OK(ctx, lsim_scene_commit(scene));
    return scene;
}

/* A new scene; with `material`, that name as a Lambertian material of `reflectance`. */
static inline lsim_scene *test_scene_new(lsim_context *ctx, const char *material, double reflectance)
{
    lsim_scene *scene;
    REQUIRE_OK(ctx, lsim_scene_create(ctx, &scene));
    if (material)
        REQUIRE_OK(ctx, lsim_scene_add_lambertian(scene, material, reflectance));
    return scene;
}

/* An object description: `material` and `label` (either NULL: none), centred at (x, y, z), not
 * turned; the caller sets anything else (rotation, velocity, name). */
static inline lsim_object_desc test_object(const char *material, const char *label, double x, double y, double z)
{
    lsim_object_desc d;
    lsim_object_desc_init(&d);
    d.material = material;
    d.label = label;
    d.position[0] = x;
    d.position[1] = y;
    d.position[2] = z;
    return d;
}

/* A new scene holding one box of sx x sy x sz metres centred at the origin: a sensor near the
 * origin is inside a closed room (every beam returns, the walls at +-sx/2, +-sy/2, +-sz/2). */
static inline lsim_scene *test_scene_room(lsim_context *ctx, double sx, double sy, double sz)
{
    lsim_scene *scene = test_scene_new(ctx, NULL, 0.0);
    const lsim_object_desc d = test_object(NULL, NULL, 0.0, 0.0, 0.0);
    const double size[3] = {sx, sy, sz};
    REQUIRE_OK(ctx, lsim_scene_add_box(scene, size, &d));
    return scene;
}

/* A plane of w x h metres of `material` (NULL: the default) centred `distance` metres along +x,
 * stood upright: its normal (+z) turned about y by ry_deg (-90: toward the sensor at the origin,
 * 90: away from it), then about z by rz_deg. */
static inline void test_scene_wall(lsim_context *ctx, lsim_scene *scene, const char *material, double distance,
                                   double w, double h, double ry_deg, double rz_deg)
{
    lsim_object_desc d = test_object(material, NULL, distance, 0.0, 0.0);
    d.rotation_deg[1] = ry_deg;
    d.rotation_deg[2] = rz_deg;
    const double size[2] = {w, h};
    REQUIRE_OK(ctx, lsim_scene_add_plane(scene, size, &d));
}

/* The point-file tests' scene: a 12 x 10 x 5 m room (label building) centred 2 m up, the sensor
 * inside it, and a 2 x 1 x 1 m car (label car) at (3, car_y, 0.5) on its floor. */
static inline lsim_scene *test_scene_room_and_car(lsim_context *ctx, double car_y)
{
    lsim_scene *scene = test_scene_new(ctx, NULL, 0.0);
    lsim_object_desc d = test_object(NULL, "building", 0.0, 0.0, 2.0);
    const double room[3] = {12.0, 10.0, 5.0}, car[3] = {2.0, 1.0, 1.0};
    REQUIRE_OK(ctx, lsim_scene_add_box(scene, room, &d));
    d = test_object(NULL, "car", 3.0, car_y, 0.5);
    REQUIRE_OK(ctx, lsim_scene_add_box(scene, car, &d));
    return scene;
}

/* `count` elevations from `lowest` degrees up, `step` apart (a rotating sensor's rings). */
static inline void test_elevations(double *out, int count, double lowest, double step)
{
    for (int i = 0; i < count; ++i)
        out[i] = lowest + step * i;
}

/* A scene that exercises most of the pipeline: a floor, a wall and a sphere, sub-rays and dual
 * returns (beams with two echoes), sunlight (false echoes of no surface), beams above the wall
 * (misses), a tilted pose; 16 rings x `columns` beams. */
static inline void mixed_scene_make(lsim_context *ctx, int columns, lsim_scene **out_scene, lsim_sensor **out_sensor)
{
    lsim_scene *scene = test_scene_new(ctx, "wall", 0.6);
    lsim_object_desc d = test_object("wall", "building", 0.0, 0.0, 0.0);
    const double floor_size[2] = {30.0, 30.0}, wall_size[2] = {30.0, 6.0};
    REQUIRE_OK(ctx, lsim_scene_add_plane(scene, floor_size, &d));
    d.position[0] = 8.0;
    d.position[2] = 3.0;
    d.rotation_deg[1] = 90.0;
    REQUIRE_OK(ctx, lsim_scene_add_plane(scene, wall_size, &d));
    d = test_object(NULL, "car", 4.0, 0.5, 1.5);
    REQUIRE_OK(ctx, lsim_scene_add_sphere(scene, 0.8, &d));
    const double sun[3] = {0.3, 0.2, 1.0};
    REQUIRE_OK(ctx, lsim_scene_set_ambient(scene, sun, 200.0));

    lsim_sensor *sensor;
    double elevations[16];
    test_elevations(elevations, 16, -25.0, 3.0); /* up to +20 deg: the upper beams pass above the wall */
    REQUIRE_OK(ctx, lsim_sensor_create_rotating(ctx, 16, elevations, columns, 10.0, &sensor));
    const double pos[3] = {0.0, 0.0, 1.5}, rpy[3] = {2.0, 3.0, 10.0};
    REQUIRE_OK(ctx, lsim_sensor_set_pose(sensor, pos, rpy));
    REQUIRE_OK(ctx, lsim_sensor_set_beam(sensor, 4.0, LSIM_BEAM_RAYS, 1));
    REQUIRE_OK(ctx, lsim_sensor_set_receiver(sensor, 6.0, LSIM_RETURNS_DUAL, 2));
    *out_scene = scene;
    *out_sensor = sensor;
}

#endif
