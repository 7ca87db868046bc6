/* The generator's shared state: the parsed dataset config (dataset_config.c, dataset_library.c), read by the
 * layout (dataset_layout.c) and the trajectory and per-frame pose (dataset_pose.c). */
#ifndef LSIM_DATASET_DATASET_INTERNAL_H
#define LSIM_DATASET_DATASET_INTERNAL_H

#include "dataset/dataset.h"
#include "scene/mesh_import.h"
#include "scene/yaml_doc.h"

#include <stddef.h>
#include <stdint.h>

#define LSIM_DS_NAME_MAX 64
#define LSIM_DS_MAX_ENTRIES 256       /* library entries */
#define LSIM_DS_MAX_COUNT 10000       /* objects of one entry per sequence */
#define LSIM_DS_MAX_WAYPOINTS 4096   /* = the layout's path buffer */
#define LSIM_DS_PLACE_TRIES 2000      /* rejection-sampling tries per object */
#define LSIM_DS_CLEARANCE_M 0.2       /* gap kept between two placed footprints */
/* Caps on the work one sequence may take (checked at load, examples/dataset/README.md "Limits"). */
#define LSIM_DS_MAX_OBJECTS 10000     /* library objects per sequence: the sum of the entries' count maxima */
#define LSIM_DS_MAX_BLOCKS 2000       /* building blocks per row: length / (building_length + building_gap minima) */
#define LSIM_DS_MAX_TRIANGLES 20000000 /* mesh triangles per sequence: each mesh entry's triangles x its count maximum */
#define LSIM_DS_PLACE_BUDGET 500000000.0 /* footprint tests of one sequence's placement (a path leg counts 8) */

typedef enum lsim_ds_layout_kind { LSIM_DS_STREET = 0, LSIM_DS_SCATTER = 1 } lsim_ds_layout_kind;
typedef enum lsim_ds_traj_kind { LSIM_DS_STRAIGHT = 0, LSIM_DS_CIRCLE = 1, LSIM_DS_WAYPOINTS = 2 } lsim_ds_traj_kind;
/* Where an entry's objects stand. */
typedef enum lsim_ds_on { LSIM_DS_ON_ROAD = 0, LSIM_DS_ON_SIDEWALK, LSIM_DS_ON_GROUND, LSIM_DS_ON_ANYWHERE } lsim_ds_on;
typedef enum lsim_ds_shape { LSIM_DS_MESH = 0, LSIM_DS_BOX, LSIM_DS_SPHERE } lsim_ds_shape;

typedef struct lsim_ds_entry {
    lsim_ds_shape shape;
    char *mesh_path;            /* resolved (mesh only) */
    lsim_mesh_arrays mesh;      /* imported once at load (mesh only) */
    double box[3], radius;      /* box sizes / sphere radius (metres, before `length` scaling) */
    double rotation[3];         /* fixed orientation fix-up of the asset (roll, pitch, yaw deg) */
    char label[LSIM_DS_NAME_MAX];
    char material[LSIM_DS_NAME_MAX]; /* "" = the scene's default material */
    long count_lo, count_hi;
    double length[2];           /* 0, 0: scale 1 */
    lsim_ds_on on;
    double speed[2];            /* m/s */
    int yaw_aligned;            /* 1: yaw 0 or 180 (+-x); 0: uniform */
    /* Bounds of the shape at scale 1 after `rotation` (object frame, metres). */
    double bmin[3], bmax[3];
    double extent;              /* longest horizontal extent at scale 1 */
    int line;                   /* 1-based line of the entry in the config (messages) */
} lsim_ds_entry;

struct lsim_dataset {
    lsim_context *ctx;
    char *path, *text;
    size_t text_len;
    char dir[4096];
    lsim_yaml yaml;             /* kept: each sequence's sensor and materials are read from it */
    yaml_node_t *sensor_node, *materials_node;
    uint64_t seed;
    size_t frames, frames_per_sequence;
    lsim_format points_format;  /* `points_format`: PCD, PLY, LAS or CSV; LSIM_FORMAT_AUTO: none */
    double frame_period_s;
    double mount_position[3], mount_rotation[3]; /* the sensor section's position / rotation */
    /* layout */
    lsim_ds_layout_kind layout;
    double length, road_width, sidewalk_width, sidewalk_height, setback;
    double building_height[2], building_length[2], building_gap[2], building_depth;
    double extent[2];           /* scatter: ground size x, y */
    char mat_road[LSIM_DS_NAME_MAX], mat_sidewalk[LSIM_DS_NAME_MAX], mat_ground[LSIM_DS_NAME_MAX],
        mat_building[LSIM_DS_NAME_MAX];
    /* jitter (uniform +- per axis, per frame) */
    double jitter_position_m, jitter_rotation_deg;
    /* trajectory */
    lsim_ds_traj_kind traj;
    double speed, radius, center[2], offset, clearance;
    double (*waypoints)[2];
    size_t waypoint_count;
    /* library */
    lsim_ds_entry *entries;
    size_t entry_count;
};

/* ---- config readers shared by dataset_config.c and dataset_library.c ("KEY" in messages) */
/* A number or a [lo, hi] pair within [min, max] (lo <= hi); absent: out untouched. */
lsim_status lsim_ds_opt_range(lsim_yaml *y, yaml_node_t *map, const char *name, const char *key, double min,
                              double max, double out[2]);
/* A number within [min, max]; absent: out untouched. `open_min`: min itself is refused. */
lsim_status lsim_ds_opt_num(lsim_yaml *y, yaml_node_t *map, const char *name, const char *key, double min,
                            double max, int open_min, double *out);
/* A material name that `materials:` (read into the scratch scene `materials`) defines, or "default". */
lsim_status lsim_ds_opt_material(lsim_yaml *y, yaml_node_t *map, const char *name, const char *key,
                                 const lsim_scene *materials, char out[LSIM_DS_NAME_MAX]);
/* The `library:` list into ds->entries, then the load-time room check (dataset_library.c). */
lsim_status lsim_ds_read_library(lsim_yaml *y, lsim_dataset *ds, const lsim_scene *materials);

/* ---- random draws: (seed, sequence, key, draw) -> uniform in (0, 1) (core/rng.h) */
/* Keys: the domain in the top byte, then entry / object / frame numbers. */
#define LSIM_DS_KEY(domain, a, b) (((uint64_t)(domain) << 56) | ((uint64_t)(a) << 28) | (uint64_t)(b))
enum { LSIM_DS_RNG_BUILDING = 1, LSIM_DS_RNG_COUNT = 2, LSIM_DS_RNG_OBJECT = 3, LSIM_DS_RNG_TRAJ = 4,
       LSIM_DS_RNG_JITTER = 5 };
double lsim_ds_uniform(uint64_t seed, size_t sequence, uint64_t key, uint32_t draw);
/* lo + (hi - lo) u */
double lsim_ds_between(uint64_t seed, size_t sequence, uint64_t key, uint32_t draw, double lo, double hi);

/* ---- the sensor's path in a sequence (dataset_pose.c) */
/* Seconds of driving a sequence covers: frames_per_sequence frame periods (the last frame's sweep
 * included). */
double lsim_ds_drive_s(const lsim_dataset *ds);
/* The body's path as a polyline in the xy plane (the part a sequence drives, densely sampled for
 * a circle): up to `max` points into xy, count in *n. For the placement's clearance test. */
void lsim_ds_path_polyline(const lsim_dataset *ds, uint64_t seed, size_t sequence, double (*xy)[2], size_t max,
                           size_t *n);
/* Straight drives keep a band |y - offset| < clearance clear along the whole layout (1); the
 * others keep `clearance` from the polyline (0). */
int lsim_ds_path_is_band(const lsim_dataset *ds);
/* Put the sequence's trajectory on the sensor (keyframes) and its mount pose. */
lsim_status lsim_ds_set_trajectory(const lsim_dataset *ds, uint64_t seed, size_t sequence, lsim_sensor *sensor);
/* This frame's jitter of the mount: position (metres) and roll, pitch, yaw (degrees) offsets. */
void lsim_dataset_jitter(const lsim_dataset *ds, uint64_t seed, size_t sequence, size_t index, double dp[3],
                         double drpy[3]);

/* ---- layout (dataset_layout.c) */
/* The area (m^2) objects standing `on` may use, for the load-time feasibility check. */
double lsim_ds_region_area(const lsim_dataset *ds, lsim_ds_on on);
/* The narrowest free width (metres, across the road) of the region, for a single-object check. */
double lsim_ds_region_width(const lsim_dataset *ds, lsim_ds_on on);
const char *lsim_ds_on_name(lsim_ds_on on);

#endif
