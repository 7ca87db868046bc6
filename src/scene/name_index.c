/* Open addressing with linear probing, FNV-1a hashes, at most half full. */
#include "scene/name_index.h"

#include <stdlib.h>
#include <string.h>

static uint64_t hash_name(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; ++s)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static const char *name_at(lsim_name_array names, size_t i) { return names.base + i * names.stride; }

long lsim_name_index_find_counted(const lsim_name_index *ix, lsim_name_array names, const char *name,
                                  size_t *compares)
{
    if (!ix->capacity || !name[0])
        return -1;
    size_t mask = ix->capacity - 1, compared = 0;
    long found = -1;
    for (size_t at = (size_t)hash_name(name) & mask;; at = (at + 1) & mask) {
        uint32_t slot = ix->slots[at];
        if (!slot)
            break;
        if (slot - 1 < names.count && (++compared, strcmp(name_at(names, slot - 1), name) == 0)) {
            found = (long)(slot - 1);
            break;
        }
    }
    if (compares)
        *compares += compared;
    return found;
}

long lsim_name_index_find(const lsim_name_index *ix, lsim_name_array names, const char *name)
{
    return lsim_name_index_find_counted(ix, names, name, NULL);
}

static void place(uint32_t *slots, size_t capacity, lsim_name_array names, size_t i)
{
    if (!name_at(names, i)[0])
        return; /* unnamed: never looked up */
    size_t mask = capacity - 1;
    size_t at = (size_t)hash_name(name_at(names, i)) & mask;
    while (slots[at])
        at = (at + 1) & mask;
    slots[at] = (uint32_t)(i + 1);
}

int lsim_name_index_rebuild(lsim_name_index *ix, lsim_name_array names)
{
    if (names.count >= UINT32_MAX / 4)
        return 0;
    size_t capacity = 64;
    while (capacity < 2 * names.count + 2)
        capacity *= 2;
    uint32_t *slots = calloc(capacity, sizeof *slots);
    if (!slots)
        return 0;
    for (size_t i = 0; i < names.count; ++i)
        place(slots, capacity, names, i);
    free(ix->slots);
    ix->slots = slots;
    ix->capacity = capacity;
    ix->count = names.count;
    return 1;
}

int lsim_name_index_add_last(lsim_name_index *ix, lsim_name_array names)
{
    if (!names.count)
        return 1;
    if (2 * names.count + 2 > ix->capacity || ix->count + 1 != names.count)
        return lsim_name_index_rebuild(ix, names);
    place(ix->slots, ix->capacity, names, names.count - 1);
    ix->count = names.count;
    return 1;
}

void lsim_name_index_free(lsim_name_index *ix)
{
    free(ix->slots);
    memset(ix, 0, sizeof *ix);
}
