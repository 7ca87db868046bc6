/* Contained mesh import: assimp runs in a forked child process.
 *
 * assimp is a large C++ parser that lidarsim cannot fix; on malformed files it has crashed
 * (SIGSEGV, failed asserts that abort) and looped for minutes. So it never runs inside the
 * lidarsim process. The child imports the file, checks every face index against its mesh,
 * and streams the triangle soup back through a pipe:
 *     header (magic, status, vertex and triangle counts, message) | float xyz[nv] | uint32 idx[nt]
 * The parent reads it with a deadline, re-checks every index, and reaps the child. A crash,
 * an abort or running out of its memory limit becomes an error naming the file and the
 * signal (with the importer's last line of stderr); running past the time limit kills the
 * child and says how to raise the limit (lsim_context_set_import_limits).
 *
 * Why a fork and a pipe: the arrays' size is only known after import, so a pipe (which the
 * parent sizes from the header it has checked) is simpler than shared memory, and costs
 * about a millisecond per 10 MB of triangles; a fork needs no second executable to install.
 */
#ifndef LSIM_SCENE_MESH_IMPORT_H
#define LSIM_SCENE_MESH_IMPORT_H

#include "lidarsim.h"

#include <stddef.h>
#include <stdint.h>

typedef struct lsim_mesh_arrays {
    float *vertices;   /* xyz interleaved, vertex_count * 3 */
    uint32_t *indices; /* triangle_count * 3, each < vertex_count */
    size_t vertex_count, triangle_count;
} lsim_mesh_arrays;

/* Import `path` in a child process within the context's time and memory limits. */
lsim_status lsim_mesh_import(lsim_context *ctx, const char *path, lsim_mesh_arrays *out);
void lsim_mesh_arrays_free(lsim_mesh_arrays *mesh);

#endif
