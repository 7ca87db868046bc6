/* Semantic label map: SemanticKITTI's class ids by default, overrides from the scene file,
 * and fresh ids (>= 100, not taken) for names SemanticKITTI does not have. */
#include "scene/scene.h"

#include "core/context.h"
#include "core/text.h"

#include <stdlib.h>
#include <string.h>

/* semantic-kitti.yaml, "labels:" (Behley et al., ICCV 2019). */
static const struct { uint32_t id; const char *name; } semantic_kitti[] = {
    {0, "unlabeled"}, {1, "outlier"}, {10, "car"}, {11, "bicycle"}, {13, "bus"},
    {15, "motorcycle"}, {16, "on-rails"}, {18, "truck"}, {20, "other-vehicle"},
    {30, "person"}, {31, "bicyclist"}, {32, "motorcyclist"}, {40, "road"}, {44, "parking"},
    {48, "sidewalk"}, {49, "other-ground"}, {50, "building"}, {51, "fence"},
    {52, "other-structure"}, {60, "lane-marking"}, {70, "vegetation"}, {71, "trunk"},
    {72, "terrain"}, {80, "pole"}, {81, "traffic-sign"}, {99, "other-object"},
    {252, "moving-car"}, {253, "moving-bicyclist"}, {254, "moving-person"},
    {255, "moving-motorcyclist"}, {256, "moving-on-rails"}, {257, "moving-bus"},
    {258, "moving-truck"}, {259, "moving-other-vehicle"},
};

static long find_name(const lsim_label_list *list, const char *name)
{
    for (size_t i = 0; i < list->count; ++i)
        if (strcmp(list->entries[i].name, name) == 0)
            return (long)i;
    return -1;
}

static long find_id(const lsim_label_list *list, uint32_t id)
{
    for (size_t i = 0; i < list->count; ++i)
        if (list->entries[i].id == id)
            return (long)i;
    return -1;
}

static lsim_status append(lsim_context *ctx, lsim_label_list *list, const char *name, uint32_t id)
{
    if (!name[0] || strlen(name) >= sizeof list->entries[0].name)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "label name '%s' must have 1 to %zu characters", name,
                         sizeof list->entries[0].name - 1);
    if (list->count == list->capacity) {
        size_t cap = list->capacity ? 2 * list->capacity : 64;
        lsim_label_entry *grown = realloc(list->entries, cap * sizeof *grown);
        if (!grown)
            return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory adding label '%s'", name);
        list->entries = grown;
        list->capacity = cap;
    }
    lsim_label_entry *e = &list->entries[list->count++];
    e->id = id;
    lsim_strlcpy(e->name, name, sizeof e->name);
    return LSIM_OK;
}

lsim_status lsim_label_map_init_defaults(lsim_context *ctx, lsim_label_map *map)
{
    memset(map, 0, sizeof *map);
    for (size_t i = 0; i < sizeof semantic_kitti / sizeof semantic_kitti[0]; ++i) {
        lsim_status st = append(ctx, &map->names, semantic_kitti[i].name, semantic_kitti[i].id);
        if (st != LSIM_OK)
            return st;
    }
    return LSIM_OK;
}

void lsim_label_map_free(lsim_label_map *map)
{
    free(map->names.entries);
    free(map->displaced.entries);
    memset(map, 0, sizeof *map);
}

lsim_status lsim_label_map_set(lsim_context *ctx, lsim_label_map *map, const char *name, uint32_t id)
{
    if (id > 0xFFFF)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "label '%s': id %u does not fit the 16 bits of a SemanticKITTI .label (use 0..65535)", name, id);
    lsim_label_list *names = &map->names;
    long owner = find_id(names, id);
    if (owner >= 0 && strcmp(names->entries[owner].name, name) != 0) {
        /* The user's name takes this id over; the previous owner can no longer be used. */
        lsim_status st = append(ctx, &map->displaced, names->entries[owner].name, id);
        if (st != LSIM_OK)
            return st;
        names->entries[owner] = names->entries[--names->count];
    }
    long at = find_name(names, name);
    if (at >= 0) {
        names->entries[at].id = id;
        return LSIM_OK;
    }
    return append(ctx, names, name, id);
}

lsim_status lsim_label_map_resolve(lsim_context *ctx, lsim_label_map *map, const char *name, uint32_t *id)
{
    long at = find_name(&map->names, name);
    if (at >= 0) {
        *id = map->names.entries[at].id;
        return LSIM_OK;
    }
    long gone = find_name(&map->displaced, name);
    if (gone >= 0) {
        uint32_t old = map->displaced.entries[gone].id;
        long owner = find_id(&map->names, old);
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "label '%s' has no id: its SemanticKITTI id %u was given to '%s' in `labels:`; "
                         "give '%s' an id of its own there", name, old,
                         owner >= 0 ? map->names.entries[owner].name : "another class", name);
    }
    uint32_t fresh = 100;
    while (find_id(&map->names, fresh) >= 0)
        ++fresh;
    if (fresh > 0xFFFF)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "too many label names: no free id for '%s'", name);
    lsim_status st = append(ctx, &map->names, name, fresh);
    if (st != LSIM_OK)
        return st;
    *id = fresh;
    return LSIM_OK;
}
