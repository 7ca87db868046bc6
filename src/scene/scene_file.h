/* Scene files (YAML): sensor, materials, labels, objects. */
#ifndef LSIM_SCENE_SCENE_FILE_H
#define LSIM_SCENE_SCENE_FILE_H

#include "scene/scene.h"
#include "scene/yaml_doc.h"

/* Resolve `name` relative to directory `dir` (absolute names are kept). -1 if too long. */
int lsim_scene_file_resolve(const char *dir, const char *name, char *out, size_t size);

/* Read the `sensor:` mapping into a new sensor (pose applied). */
lsim_status lsim_scene_file_read_sensor(lsim_yaml *y, yaml_node_t *map, const char *dir, lsim_sensor **out);

/* The `materials:` mapping (name: {brdf: ..., ...} or {calibration: FILE#name}) into `scene`
 * (calibration files relative to `dir`); also read by the dataset config (src/dataset). */
lsim_status lsim_scene_file_read_materials(lsim_yaml *y, yaml_node_t *map, const char *dir, lsim_scene *scene);

struct lsim_beam_spec;
struct lsim_receiver_spec;
/* The `beam:` and `receiver:` mappings of `sensor:` (scene/optics_yaml.c). */
lsim_status lsim_scene_file_read_beam(lsim_yaml *y, yaml_node_t *map, const char *dir, struct lsim_beam_spec *beam);
lsim_status lsim_scene_file_read_receiver(lsim_yaml *y, yaml_node_t *map, struct lsim_receiver_spec *rx);
/* Top-level max_bounces, atmosphere and ambient. */
lsim_status lsim_scene_file_read_environment(lsim_yaml *y, yaml_node_t *root, lsim_scene *scene);

#endif
