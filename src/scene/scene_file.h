/* Scene files (YAML): sensor, materials, labels, objects. */
#ifndef LSIM_SCENE_SCENE_FILE_H
#define LSIM_SCENE_SCENE_FILE_H

#include "scene/scene.h"
#include "scene/yaml_doc.h"

/* Resolve `name` relative to directory `dir` (absolute names are kept). -1 if too long. */
int lsim_scene_file_resolve(const char *dir, const char *name, char *out, size_t size);

/* Read the `sensor:` mapping into a new sensor (pose applied). */
lsim_status lsim_scene_file_read_sensor(lsim_yaml *y, yaml_node_t *map, const char *dir, lsim_sensor **out);

#endif
