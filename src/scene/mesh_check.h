/* Cheap checks of a mesh file before a third-party importer (assimp) sees it.
 *
 * assimp trusts what a file's header says: a binary PLY whose face lists run past the end of
 * the file makes it read wild memory, a header claiming 10^9 vertices makes it allocate for
 * them. These checks read the file once, in linear time and constant memory, and refuse what
 * cannot be a valid mesh with a message naming the file, the element and the byte offset:
 *   - PLY (ascii and binary): a well-formed header; every element's records fit in the file;
 *     binary files are walked record by record (list lengths included) and every face's
 *     vertex indices must name an existing vertex;
 *   - STL: a binary STL's triangle count must match the file size;
 *   - OFF: the vertex and face counts must fit in the file.
 * Other formats (OBJ, glTF, FBX, ...) pass here; their indices are checked after import
 * (mesh_import.c). Whatever passes is still imported in a contained child process.
 */
#ifndef LSIM_SCENE_MESH_CHECK_H
#define LSIM_SCENE_MESH_CHECK_H

#include "lidarsim.h"

#include <stddef.h>
#include <stdint.h>

/* Most triangles or vertices a mesh may have (each array stays addressable by uint32). */
#define LSIM_MESH_MAX_ELEMENTS 500000000ull

/* Check `path` as described above (format from the file's content, then its extension).
 * Returns LSIM_OK, or LSIM_ERR_PARSE / LSIM_ERR_IO with the reason in ctx. */
lsim_status lsim_mesh_check(lsim_context *ctx, const char *path);

/* The same checks over bytes in memory (for tests and fuzzing); `name` is used in messages
 * and its extension picks STL/OFF when the content alone cannot. */
lsim_status lsim_mesh_check_bytes(lsim_context *ctx, const char *name, const uint8_t *data, size_t size);

#endif
