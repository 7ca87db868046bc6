/* lsim_dataset_build_sequence: one sequence's scene (ground, buildings, the library's objects
 * placed without overlaps by rejection sampling, moving actors) and its sensor on its drive.
 * Every draw is keyed by (seed, sequence, what, draw), so a sequence comes out the same alone. */
#include "dataset/dataset_internal.h"

#include "core/context.h"
#include "core/text.h"
#include "scene/scene.h"
#include "scene/scene_file.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DS_PI 3.14159265358979323846
#define DS_MAX_RECTS 8
#define DS_PATH_POINTS 4096

/* A horizontal strip objects may stand on: x0..x1, y0..y1 at surface height z. */
typedef struct ds_rect { double x0, x1, y0, y1, z; } ds_rect;
/* A placed footprint (swept over the sequence for moving actors). */
typedef struct ds_box { double x0, x1, y0, y1; } ds_box;

const char *lsim_ds_on_name(lsim_ds_on on)
{
    static const char *const names[] = {"road", "sidewalk", "ground", "anywhere"};
    return (unsigned)on < 4 ? names[on] : "?";
}

/* Add the strips y0..y1 minus the sensor's band (straight drives) to out. */
static void add_strip(const lsim_dataset *ds, double x0, double x1, double y0, double y1, double z, ds_rect *out,
                      size_t *n)
{
    double cut[2][2] = {{y0, y1}, {0, 0}};
    int parts = 1;
    if (lsim_ds_path_is_band(ds)) {
        double b0 = ds->offset - ds->clearance, b1 = ds->offset + ds->clearance;
        if (b1 > y0 && b0 < y1) { /* the band overlaps: keep what is left either side */
            parts = 0;
            if (b0 > y0)
                cut[parts][0] = y0, cut[parts][1] = b0, ++parts;
            if (b1 < y1)
                cut[parts][0] = b1, cut[parts][1] = y1, ++parts;
        }
    }
    for (int i = 0; i < parts && *n < DS_MAX_RECTS; ++i)
        if (cut[i][1] > cut[i][0] && x1 > x0)
            out[(*n)++] = (ds_rect){x0, x1, cut[i][0], cut[i][1], z};
}

/* The strips of a place. */
static size_t region_rects(const lsim_dataset *ds, lsim_ds_on on, ds_rect *out)
{
    size_t n = 0;
    if (ds->layout == LSIM_DS_SCATTER) {
        if (on == LSIM_DS_ON_GROUND || on == LSIM_DS_ON_ANYWHERE)
            add_strip(ds, -ds->extent[0] / 2, ds->extent[0] / 2, -ds->extent[1] / 2, ds->extent[1] / 2, 0.0, out, &n);
        return n;
    }
    const double hx = ds->length / 2, r = ds->road_width / 2, s = r + ds->sidewalk_width, g = s + ds->setback;
    if (on == LSIM_DS_ON_ROAD || on == LSIM_DS_ON_ANYWHERE)
        add_strip(ds, -hx, hx, -r, r, 0.0, out, &n);
    if (on == LSIM_DS_ON_SIDEWALK || on == LSIM_DS_ON_ANYWHERE) {
        add_strip(ds, -hx, hx, r, s, ds->sidewalk_height, out, &n);
        add_strip(ds, -hx, hx, -s, -r, ds->sidewalk_height, out, &n);
    }
    if (on == LSIM_DS_ON_GROUND || on == LSIM_DS_ON_ANYWHERE) {
        add_strip(ds, -hx, hx, s, g, 0.0, out, &n);
        add_strip(ds, -hx, hx, -g, -s, 0.0, out, &n);
    }
    return n;
}

double lsim_ds_region_area(const lsim_dataset *ds, lsim_ds_on on)
{
    ds_rect r[DS_MAX_RECTS];
    size_t n = region_rects(ds, on, r);
    double a = 0.0;
    for (size_t i = 0; i < n; ++i)
        a += (r[i].x1 - r[i].x0) * (r[i].y1 - r[i].y0);
    return a;
}

double lsim_ds_region_width(const lsim_dataset *ds, lsim_ds_on on)
{
    ds_rect r[DS_MAX_RECTS];
    size_t n = region_rects(ds, on, r);
    double w = 0.0;
    for (size_t i = 0; i < n; ++i)
        w = fmax(w, r[i].y1 - r[i].y0);
    return w;
}

/* ------------------------------------------------------------------ geometry tests */

static int boxes_overlap(const ds_box *a, const ds_box *b, double gap)
{
    return a->x0 < b->x1 + gap && b->x0 < a->x1 + gap && a->y0 < b->y1 + gap && b->y0 < a->y1 + gap;
}

static double point_box_dist(double px, double py, const ds_box *b)
{
    double dx = fmax(fmax(b->x0 - px, 0.0), px - b->x1), dy = fmax(fmax(b->y0 - py, 0.0), py - b->y1);
    return hypot(dx, dy);
}

static double point_segment_dist(double px, double py, const double a[2], const double b[2])
{
    double ux = b[0] - a[0], uy = b[1] - a[1], l2 = ux * ux + uy * uy;
    double f = l2 > 0 ? ((px - a[0]) * ux + (py - a[1]) * uy) / l2 : 0.0;
    f = fmin(1.0, fmax(0.0, f));
    return hypot(px - a[0] - f * ux, py - a[1] - f * uy);
}

/* 1 if segment a-b crosses the box (Liang-Barsky clipping). */
static int segment_hits_box(const double a[2], const double b[2], const ds_box *box)
{
    double t0 = 0.0, t1 = 1.0, d[2] = {b[0] - a[0], b[1] - a[1]};
    const double lo[2] = {box->x0, box->y0}, hi[2] = {box->x1, box->y1};
    for (int k = 0; k < 2; ++k) {
        if (d[k] == 0.0) {
            if (a[k] < lo[k] || a[k] > hi[k])
                return 0;
            continue;
        }
        double ta = (lo[k] - a[k]) / d[k], tb = (hi[k] - a[k]) / d[k];
        if (ta > tb) {
            double s = ta;
            ta = tb, tb = s;
        }
        t0 = fmax(t0, ta);
        t1 = fmin(t1, tb);
        if (t0 > t1)
            return 0;
    }
    return 1;
}

/* 1 if the box keeps `clearance` from every leg of the polyline. */
static int clear_of_path(const double (*xy)[2], size_t n, const ds_box *b, double clearance)
{
    for (size_t i = 0; i + 1 < n; ++i) {
        if (segment_hits_box(xy[i], xy[i + 1], b))
            return 0;
        double d = fmin(point_box_dist(xy[i][0], xy[i][1], b), point_box_dist(xy[i + 1][0], xy[i + 1][1], b));
        const double corners[4][2] = {{b->x0, b->y0}, {b->x1, b->y0}, {b->x0, b->y1}, {b->x1, b->y1}};
        for (int c = 0; c < 4; ++c)
            d = fmin(d, point_segment_dist(corners[c][0], corners[c][1], xy[i], xy[i + 1]));
        if (d < clearance)
            return 0;
    }
    if (n == 1 && point_box_dist(xy[0][0], xy[0][1], b) < clearance)
        return 0;
    return 1;
}

/* ------------------------------------------------------------------ the scene */

typedef struct ds_build {
    const lsim_dataset *ds;
    uint64_t seed;
    size_t sequence;
    lsim_scene *scene;
    ds_box *placed;
    size_t placed_count, placed_capacity;
    double (*path)[2];
    size_t path_count;
    double work; /* footprint tests so far, a path leg counting 8 (LSIM_DS_PLACE_BUDGET) */
} ds_build;

static lsim_status push_placed(ds_build *b, const ds_box *box)
{
    if (b->placed_count == b->placed_capacity) {
        size_t n = b->placed_capacity ? 2 * b->placed_capacity : 64;
        ds_box *p = realloc(b->placed, n * sizeof *p);
        if (!p)
            return lsim_fail(b->ds->ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory placing the objects of sequence %zu",
                             b->sequence);
        b->placed = p;
        b->placed_capacity = n;
    }
    b->placed[b->placed_count++] = *box;
    return LSIM_OK;
}

/* SemanticKITTI labels a moving vehicle or person apart ("moving-car" 252, ... "moving-other-vehicle"
 * 259): an object that moves takes its class's moving label where SemanticKITTI has one. */
static const char *moving_label(const char *label, const lsim_object_desc *d, char *buf, size_t size)
{
    static const char *const movable[] = {"car", "bicyclist", "person", "motorcyclist", "on-rails", "bus", "truck",
                                          "other-vehicle"};
    if (d->velocity[0] == 0.0 && d->velocity[1] == 0.0 && d->velocity[2] == 0.0)
        return label;
    for (size_t i = 0; i < sizeof movable / sizeof *movable; ++i)
        if (strcmp(label, movable[i]) == 0) {
            snprintf(buf, size, "moving-%s", label);
            return buf;
        }
    return label;
}

/* Every class the dataset can use, in a fixed order, before anything is placed: a name outside
 * SemanticKITTI gets its fresh id (100, 101, ...) by its place in the library, not by which
 * entries a sequence happens to place, so an id means the same class in every sequence and in the
 * root labels.yaml (written from sequence 0). */
static lsim_status register_labels(ds_build *b)
{
    static const char *const ground[] = {"road", "sidewalk", "terrain", "building"};
    lsim_label_map *map = &b->scene->labels;
    uint32_t id;
    lsim_status st = LSIM_OK;
    for (size_t i = 0; i < sizeof ground / sizeof *ground && st == LSIM_OK; ++i)
        st = lsim_label_map_resolve(b->ds->ctx, map, ground[i], &id);
    for (size_t i = 0; i < b->ds->entry_count && st == LSIM_OK; ++i) {
        const lsim_ds_entry *e = &b->ds->entries[i];
        st = lsim_label_map_resolve(b->ds->ctx, map, e->label, &id);
        lsim_object_desc moving;
        lsim_object_desc_init(&moving);
        moving.velocity[0] = 1.0;
        char name[80];
        const char *m = moving_label(e->label, &moving, name, sizeof name);
        if (st == LSIM_OK && m != e->label && e->speed[1] > 0.0)
            st = lsim_label_map_resolve(b->ds->ctx, map, m, &id);
    }
    return st;
}

static void desc_for(lsim_object_desc *d, const char *material, const char *label)
{
    lsim_object_desc_init(d);
    d->material = material[0] ? material : NULL;
    d->label = label;
}

/* Ground (road, sidewalks, terrain) and the building rows of a street; the ground of a scatter. */
static lsim_status add_ground(ds_build *b)
{
    const lsim_dataset *ds = b->ds;
    lsim_object_desc d;
    lsim_status st = LSIM_OK;
    if (ds->layout == LSIM_DS_SCATTER) {
        desc_for(&d, ds->mat_ground, "terrain");
        return lsim_scene_add_plane(b->scene, ds->extent, &d);
    }
    const double L = ds->length, r = ds->road_width / 2, s = r + ds->sidewalk_width, g = s + ds->setback;
    desc_for(&d, ds->mat_road, "road");
    const double road[2] = {L, ds->road_width};
    st = lsim_scene_add_plane(b->scene, road, &d);
    for (int side = -1; side <= 1 && st == LSIM_OK; side += 2) {
        if (ds->sidewalk_width > 0.0) {
            desc_for(&d, ds->mat_sidewalk, "sidewalk");
            d.position[1] = side * (r + s) / 2;
            if (ds->sidewalk_height > 0.0) {
                const double size[3] = {L, ds->sidewalk_width, ds->sidewalk_height};
                d.position[2] = ds->sidewalk_height / 2;
                st = lsim_scene_add_box(b->scene, size, &d);
            } else {
                const double size[2] = {L, ds->sidewalk_width};
                st = lsim_scene_add_plane(b->scene, size, &d);
            }
        }
        /* terrain from the sidewalk's edge to 10 m behind the buildings */
        const double width = ds->setback + ds->building_depth + 10.0;
        desc_for(&d, ds->mat_ground, "terrain");
        d.position[1] = side * (s + width / 2);
        const double size[2] = {L, width};
        if (st == LSIM_OK)
            st = lsim_scene_add_plane(b->scene, size, &d);
        /* building blocks along the row: random lengths, gaps and heights */
        if (ds->building_depth <= 0.0 || ds->building_height[1] <= 0.0)
            continue;
        double x = -L / 2;
        for (uint32_t k = 0; st == LSIM_OK && x < L / 2; ++k) {
            const uint64_t key = LSIM_DS_KEY(LSIM_DS_RNG_BUILDING, side > 0, k);
            double len = lsim_ds_between(b->seed, b->sequence, key, 0, ds->building_length[0], ds->building_length[1]);
            double gap = lsim_ds_between(b->seed, b->sequence, key, 1, ds->building_gap[0], ds->building_gap[1]);
            double h = lsim_ds_between(b->seed, b->sequence, key, 2, ds->building_height[0], ds->building_height[1]);
            if (k == 0) /* the row starts anywhere within its first gap */
                x += lsim_ds_between(b->seed, b->sequence, key, 3, 0.0, gap);
            double x1 = fmin(x + len, L / 2);
            ds_box box = {x, x1, side > 0 ? g : -g - ds->building_depth, side > 0 ? g + ds->building_depth : -g};
            if (x1 - x >= 1.0 && h > 0.0 &&
                (lsim_ds_path_is_band(ds) || clear_of_path((const double(*)[2])b->path, b->path_count, &box,
                                                           ds->clearance))) {
                desc_for(&d, ds->mat_building, "building");
                const double size[3] = {x1 - x, ds->building_depth, h};
                d.position[0] = (x + x1) / 2;
                d.position[1] = (box.y0 + box.y1) / 2;
                d.position[2] = h / 2;
                st = lsim_scene_add_box(b->scene, size, &d);
                if (st == LSIM_OK)
                    st = push_placed(b, &box);
            }
            x = x1 + gap;
        }
    }
    return st;
}

/* Where one object of entry `e` goes: the description (pose, scale, velocity) and its footprint
 * swept over the sequence. 0 if no spot was found, -1 if the sequence's placement budget is spent. */
static int find_spot(ds_build *b, const lsim_ds_entry *e, size_t ei, size_t j, const ds_rect *rects, size_t nr,
                     lsim_object_desc *d, double *scale, ds_box *out)
{
    const lsim_dataset *ds = b->ds;
    const uint64_t key = LSIM_DS_KEY(LSIM_DS_RNG_OBJECT, ei, j);
    const double speed = lsim_ds_between(b->seed, b->sequence, key, 0, e->speed[0], e->speed[1]);
    const int moving = speed > 0.0;
    const double T = lsim_ds_drive_s(ds);
    double area = 0.0;
    for (size_t i = 0; i < nr; ++i)
        area += (rects[i].x1 - rects[i].x0) * (rects[i].y1 - rects[i].y0);
    for (uint32_t tries = 0; tries < LSIM_DS_PLACE_TRIES; ++tries) {
        const uint32_t draw = 1 + 5 * tries;
        /* the size, drawn again each try: sizes that fit nowhere are passed over */
        const double s = e->length[1] > 0
                             ? lsim_ds_between(b->seed, b->sequence, key, draw + 4, e->length[0], e->length[1]) / e->extent
                             : 1.0;
        const double w = s * (e->bmax[0] - e->bmin[0]), dep = s * (e->bmax[1] - e->bmin[1]);
        const double cx = s * (e->bmax[0] + e->bmin[0]) / 2, cy = s * (e->bmax[1] + e->bmin[1]) / 2;
        /* a strip, by area */
        double pick = lsim_ds_uniform(b->seed, b->sequence, key, draw) * area;
        size_t ri = 0;
        while (ri + 1 < nr && pick > (rects[ri].x1 - rects[ri].x0) * (rects[ri].y1 - rects[ri].y0)) {
            pick -= (rects[ri].x1 - rects[ri].x0) * (rects[ri].y1 - rects[ri].y0);
            ++ri;
        }
        const ds_rect *r = &rects[ri];
        /* yaw: +-x on a street's road (and for every moving actor on a street), else uniform */
        double u = lsim_ds_uniform(b->seed, b->sequence, key, draw + 1), yaw;
        if (e->yaw_aligned || (moving && ds->layout == LSIM_DS_STREET))
            yaw = u < 0.5 ? 0.0 : 180.0;
        else
            yaw = 360.0 * u;
        const double c = cos(yaw * DS_PI / 180.0), sn = sin(yaw * DS_PI / 180.0);
        const double hx = fabs(c) * w / 2 + fabs(sn) * dep / 2, hy = fabs(sn) * w / 2 + fabs(c) * dep / 2;
        if (2 * hx > r->x1 - r->x0 || 2 * hy > r->y1 - r->y0)
            continue;
        const double x = lsim_ds_between(b->seed, b->sequence, key, draw + 2, r->x0 + hx, r->x1 - hx);
        const double y = lsim_ds_between(b->seed, b->sequence, key, draw + 3, r->y0 + hy, r->y1 - hy);
        const double vx = moving ? speed * c : 0.0, vy = moving ? speed * sn : 0.0;
        ds_box box = {x - hx + fmin(0.0, vx * T), x + hx + fmax(0.0, vx * T), y - hy + fmin(0.0, vy * T),
                      y + hy + fmax(0.0, vy * T)};
        if (box.x0 < r->x0 || box.x1 > r->x1 || box.y0 < r->y0 || box.y1 > r->y1)
            continue; /* a moving actor stays on its strip for the whole sequence */
        /* a path leg costs about 8 footprint tests (clip, 6 distances) */
        b->work += (double)b->placed_count + (lsim_ds_path_is_band(ds) ? 0.0 : 8.0 * (double)b->path_count);
        if (b->work > LSIM_DS_PLACE_BUDGET)
            return -1;
        int free_spot = 1;
        for (size_t k = 0; k < b->placed_count && free_spot; ++k)
            free_spot = !boxes_overlap(&box, &b->placed[k], LSIM_DS_CLEARANCE_M);
        if (free_spot && !lsim_ds_path_is_band(ds))
            free_spot = clear_of_path((const double(*)[2])b->path, b->path_count, &box, ds->clearance);
        if (!free_spot)
            continue;
        /* the footprint's centre at (x, y); the shape's bottom on the surface */
        lsim_object_desc_init(d);
        d->position[0] = x - (c * cx - sn * cy);
        d->position[1] = y - (sn * cx + c * cy);
        d->position[2] = r->z - s * e->bmin[2];
        d->rotation_deg[0] = e->rotation[0];
        d->rotation_deg[1] = e->rotation[1];
        d->rotation_deg[2] = e->rotation[2] + yaw;
        d->velocity[0] = vx;
        d->velocity[1] = vy;
        *scale = s;
        *out = box;
        return 1;
    }
    return 0;
}

static lsim_status place_entry(ds_build *b, size_t ei)
{
    const lsim_dataset *ds = b->ds;
    const lsim_ds_entry *e = &ds->entries[ei];
    const uint64_t ckey = LSIM_DS_KEY(LSIM_DS_RNG_COUNT, ei, 0);
    long count = e->count_lo + (long)floor(lsim_ds_uniform(b->seed, b->sequence, ckey, 0) *
                                           (double)(e->count_hi - e->count_lo + 1));
    if (count > e->count_hi)
        count = e->count_hi;
    ds_rect rects[DS_MAX_RECTS];
    size_t nr = region_rects(ds, e->on, rects);
    char moving[80];
    for (long j = 0; j < count; ++j) {
        lsim_object_desc d;
        double s;
        ds_box box;
        const int found = nr ? find_spot(b, e, ei, (size_t)j, rects, nr, &d, &s, &box) : 0;
        if (found < 0)
            return lsim_fail(ds->ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "%s:%d: library[%zu].count: sequence %zu (seed %llu): placing '%s' %ld of %ld took over "
                             "%.0e footprint tests (%zu objects placed); the layout is too crowded for the library: "
                             "lower the counts, shrink the objects (`length`) or enlarge the layout",
                             ds->path, e->line, ei, b->sequence, (unsigned long long)b->seed, e->label, j + 1, count,
                             LSIM_DS_PLACE_BUDGET, b->placed_count);
        if (!found)
            return lsim_fail(ds->ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "%s:%d: library[%zu].count: sequence %zu (seed %llu): could not place '%s' %ld of %ld "
                             "on the %s (%.0f m^2 free of the sensor's lane, %zu objects placed) without overlaps "
                             "after %d tries; lower its count, shrink it (`length`) or enlarge the layout",
                             ds->path, e->line, ei, b->sequence, (unsigned long long)b->seed, e->label, j + 1, count,
                             lsim_ds_on_name(e->on), lsim_ds_region_area(ds, e->on), b->placed_count,
                             LSIM_DS_PLACE_TRIES);
        d.material = e->material[0] ? e->material : NULL;
        d.label = moving_label(e->label, &d, moving, sizeof moving);
        lsim_status st;
        if (e->shape == LSIM_DS_MESH) {
            d.scale = s;
            st = lsim_scene_add_triangles(b->scene, e->mesh.vertices, e->mesh.vertex_count, e->mesh.indices,
                                          e->mesh.triangle_count, &d);
        } else if (e->shape == LSIM_DS_BOX) {
            const double size[3] = {s * e->box[0], s * e->box[1], s * e->box[2]};
            st = lsim_scene_add_box(b->scene, size, &d);
        } else {
            st = lsim_scene_add_sphere(b->scene, s * e->radius, &d);
        }
        if (st == LSIM_OK)
            st = push_placed(b, &box);
        if (st != LSIM_OK) {
            char msg[LSIM_ERROR_MAX];
            lsim_strlcpy(msg, lsim_context_last_error(ds->ctx), sizeof msg);
            return lsim_fail(ds->ctx, st, "%s:%d: library[%zu]: %s", ds->path, e->line, ei, msg);
        }
    }
    return LSIM_OK;
}

lsim_status lsim_dataset_build_sequence(const lsim_dataset *ds, uint64_t seed, size_t sequence, lsim_scene **scene,
                                        lsim_sensor **sensor)
{
    if (!ds || !scene || !sensor)
        return lsim_fail(ds ? ds->ctx : NULL, LSIM_ERR_INVALID_ARGUMENT,
                         "lsim_dataset_build_sequence: dataset, scene and sensor must not be NULL");
    *scene = NULL;
    *sensor = NULL;
    if (sequence > UINT32_MAX)
        return lsim_fail(ds->ctx, LSIM_ERR_INVALID_ARGUMENT, "%s: sequence %zu is beyond the last (%u)", ds->path,
                         sequence, UINT32_MAX);
    /* The kept document is only read (lsim_yaml wants a mutable handle for its messages). */
    lsim_yaml *y = (lsim_yaml *)&ds->yaml;
    ds_build b;
    memset(&b, 0, sizeof b);
    b.ds = ds;
    b.seed = seed;
    b.sequence = sequence;
    lsim_status st = lsim_scene_create(ds->ctx, &b.scene);
    if (st == LSIM_OK && ds->materials_node)
        st = lsim_scene_file_read_materials(y, ds->materials_node, ds->dir, b.scene);
    if (st == LSIM_OK && !lsim_ds_path_is_band(ds)) {
        b.path = malloc(DS_PATH_POINTS * sizeof *b.path);
        if (!b.path)
            st = lsim_fail(ds->ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory building sequence %zu", sequence);
        else
            lsim_ds_path_polyline(ds, seed, sequence, b.path, DS_PATH_POINTS, &b.path_count);
    }
    if (st == LSIM_OK)
        st = register_labels(&b);
    if (st == LSIM_OK)
        st = add_ground(&b);
    for (size_t i = 0; i < ds->entry_count && st == LSIM_OK; ++i)
        st = place_entry(&b, i);
    if (st == LSIM_OK)
        st = lsim_scene_file_read_sensor(y, ds->sensor_node, ds->dir, sensor);
    if (st == LSIM_OK)
        st = lsim_ds_set_trajectory(ds, seed, sequence, *sensor);
    free(b.placed);
    free(b.path);
    if (st != LSIM_OK) {
        lsim_sensor_destroy(*sensor);
        lsim_scene_destroy(b.scene);
        *sensor = NULL;
        return st;
    }
    *scene = b.scene;
    return LSIM_OK;
}
