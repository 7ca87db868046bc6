/* Semantic label map: SemanticKITTI's class ids by default, overrides from the scene file,
 * and fresh ids (>= 100, not taken) for names SemanticKITTI does not have. */
#include "scene/scene.h"

#include "core/context.h"
#include "core/text.h"

#include <stdint.h>
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

static lsim_name_array list_names(const lsim_label_list *list)
{
    return (lsim_name_array){list->entries ? list->entries[0].name : NULL, sizeof *list->entries, list->count};
}

/* Hashed: a scene may name tens of thousands of classes. */
static long find_name(const lsim_label_list *list, const char *name)
{
    return lsim_name_index_find(&list->index, list_names(list), name);
}

static int id_taken(const lsim_label_map *map, uint32_t id) { return (map->id_used[id >> 6] >> (id & 63)) & 1u; }

static void mark_id(lsim_label_map *map, uint32_t id, int taken)
{
    if (taken)
        map->id_used[id >> 6] |= 1ull << (id & 63);
    else
        map->id_used[id >> 6] &= ~(1ull << (id & 63));
}

/* The entry of `names` holding `id` (ids there are distinct), or -1; linear, so only for ids taken. */
static long find_id(const lsim_label_map *map, uint32_t id)
{
    if (id > 0xFFFF || !id_taken(map, id))
        return -1;
    for (size_t i = 0; i < map->names.count; ++i)
        if (map->names.entries[i].id == id)
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
    if (!lsim_name_index_add_last(&list->index, list_names(list))) {
        --list->count;
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory adding label '%s'", name);
    }
    return LSIM_OK;
}

lsim_status lsim_label_map_init_defaults(lsim_context *ctx, lsim_label_map *map)
{
    memset(map, 0, sizeof *map);
    map->fresh_from = 100;
    for (size_t i = 0; i < sizeof semantic_kitti / sizeof semantic_kitti[0]; ++i) {
        lsim_status st = append(ctx, &map->names, semantic_kitti[i].name, semantic_kitti[i].id);
        if (st != LSIM_OK)
            return st;
        mark_id(map, semantic_kitti[i].id, 1);
    }
    return LSIM_OK;
}

void lsim_label_map_free(lsim_label_map *map)
{
    free(map->names.entries);
    free(map->displaced.entries);
    lsim_name_index_free(&map->names.index);
    lsim_name_index_free(&map->displaced.index);
    memset(map, 0, sizeof *map);
}

lsim_status lsim_label_map_set(lsim_context *ctx, lsim_label_map *map, const char *name, uint32_t id)
{
    if (id > 0xFFFF)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "label '%s': id %u does not fit the 16 bits of a SemanticKITTI .label (use 0..65535)", name, id);
    lsim_label_list *names = &map->names;
    long owner = find_id(map, id);
    if (owner >= 0 && strcmp(names->entries[owner].name, name) != 0) {
        /* The user's name takes this id over; the previous owner can no longer be used. */
        lsim_status st = append(ctx, &map->displaced, names->entries[owner].name, id);
        if (st != LSIM_OK)
            return st;
        names->entries[owner] = names->entries[--names->count];
        if (!lsim_name_index_rebuild(&names->index, list_names(names)))
            return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory setting label '%s'", name);
    }
    map->fresh_from = 100; /* ids may have been freed */
    long at = find_name(names, name);
    if (at >= 0) {
        mark_id(map, names->entries[at].id, 0);
        names->entries[at].id = id;
        mark_id(map, id, 1);
        return LSIM_OK;
    }
    lsim_status st = append(ctx, names, name, id);
    if (st == LSIM_OK)
        mark_id(map, id, 1);
    return st;
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
        long owner = find_id(map, old);
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "label '%s' has no id: its SemanticKITTI id %u was given to '%s' in `labels:`; "
                         "give '%s' an id of its own there", name, old,
                         owner >= 0 ? map->names.entries[owner].name : "another class", name);
    }
    uint32_t fresh = map->fresh_from < 100 ? 100 : map->fresh_from;
    while (fresh <= 0xFFFF && id_taken(map, fresh))
        ++fresh;
    map->fresh_from = fresh;
    if (fresh > 0xFFFF)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "too many label names: no free id for '%s' (a SemanticKITTI .label holds 16-bit ids, so at "
                         "most 65436 names get automatic ids 100..65535); reuse class names across objects", name);
    lsim_status st = append(ctx, &map->names, name, fresh);
    if (st != LSIM_OK)
        return st;
    mark_id(map, fresh, 1);
    *id = fresh;
    return LSIM_OK;
}

int lsim_label_map_knows(const lsim_label_map *map, const char *name)
{
    return find_name(&map->names, name) >= 0 || find_name(&map->displaced, name) >= 0;
}

/* Edit distance (insertions, deletions, substitutions) of two names of < 64 characters. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), row[64];
    if (la >= 64 || lb >= 64)
        return SIZE_MAX;
    for (size_t j = 0; j <= lb; ++j)
        row[j] = j;
    for (size_t i = 1; i <= la; ++i) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; ++j) {
            const size_t up = row[j], sub = diag + (a[i - 1] != b[j - 1]);
            const size_t del = up + 1, ins = row[j - 1] + 1;
            row[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
            diag = up;
        }
    }
    return row[lb];
}

const char *lsim_label_map_closest(const lsim_label_map *map, const char *name)
{
    const char *best = NULL;
    size_t best_d = SIZE_MAX, len = strlen(name);
    const size_t limit = len / 3 > 2 ? len / 3 : 2; /* "buiding" -> "building": 1 */
    for (size_t i = 0; i < map->names.count; ++i) {
        const size_t d = edit_distance(name, map->names.entries[i].name);
        if (d < best_d) {
            best_d = d;
            best = map->names.entries[i].name;
        }
    }
    return best_d <= limit ? best : NULL;
}
