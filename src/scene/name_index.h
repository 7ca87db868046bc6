/* A hash index of the names of an array (materials, label names, object names): name -> array
 * index, so that lookups stay O(1) with tens of thousands of names. The array is not owned: each
 * call gives its current base, element size and count (name i is the string at base + i * stride).
 * Empty names ("", an unnamed object) are not indexed and never found. */
#ifndef LSIM_SCENE_NAME_INDEX_H
#define LSIM_SCENE_NAME_INDEX_H

#include <stddef.h>
#include <stdint.h>

typedef struct lsim_name_index {
    uint32_t *slots; /* 0: empty, else array index + 1 */
    size_t capacity; /* power of two (0: nothing indexed yet) */
    size_t count;
} lsim_name_index;

typedef struct lsim_name_array {
    const char *base; /* the first name */
    size_t stride;    /* bytes from one name to the next */
    size_t count;     /* names in the array */
} lsim_name_array;

/* Index of `name` in the array, or -1. */
long lsim_name_index_find(const lsim_name_index *ix, lsim_name_array names, const char *name);
/* The same, adding to *compares the number of names compared with `name` (the lookup's cost). */
long lsim_name_index_find_counted(const lsim_name_index *ix, lsim_name_array names, const char *name,
                                  size_t *compares);
/* Index the array's last name (names.count - 1), after it was appended; 0 when out of memory
 * (the index is then left as before). */
int lsim_name_index_add_last(lsim_name_index *ix, lsim_name_array names);
/* Index every name of the array afresh (after removals or reordering); 0 when out of memory. */
int lsim_name_index_rebuild(lsim_name_index *ix, lsim_name_array names);
void lsim_name_index_free(lsim_name_index *ix);

#endif
