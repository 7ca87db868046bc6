/* Vertex joining of an imported mesh, in the importer child (scene/mesh_import.c). Private to
 * src/scene/. */
#ifndef LSIM_SCENE_MESH_JOIN_H
#define LSIM_SCENE_MESH_JOIN_H

#include <assimp/mesh.h>
#include <stdint.h>

/* Vertex joining in the child (assimp's aiProcess_JoinIdenticalVertices, done here because it is
 * most of assimp's time and memory on large meshes: 1.6 s and +330 MB of 2.4 s / 573 MB for a
 * 1M-triangle OBJ). Per mesh, the vertices used by a face, in order, each replaced by the first
 * earlier one at the same position (+0 and -0 alike, the first one's bits kept); unused vertices
 * are dropped. Normals and texture coordinates do not keep two vertices at one position apart
 * here, as they do in assimp: lidarsim reads only positions.
 *
 * assimp's step (5.2) looks each vertex up in a std::unordered_map keyed by its exact position
 * and joins it to an earlier vertex *in the same hash bucket* whose position is within 1e-5. So
 * it joins all numerically equal positions, as this does, and, by the chance of sharing a
 * bucket, some distinct positions within 1e-5 of each other. That chance is high in small
 * meshes (few buckets) and about (pairs within 1e-5) / (vertex count) in large ones. To give the
 * same triangles where it matters, a file of at most JOIN_NEAR_CHECK_MAX vertices that has two
 * distinct positions within 1e-5 (or a NaN or infinite coordinate) is joined by assimp itself.
 * In larger files such pairs are kept apart; assimp would have moved a vertex of such a pair by
 * at most 1e-5 (10 um in metres), rarely. */
#define JOIN_NEAR_CHECK_MAX 200000u

typedef struct joined_mesh {
    uint32_t *remap;  /* per mesh vertex: its joined index within the mesh (UINT32_MAX: unused) */
    uint32_t *unique; /* per joined vertex: the mesh vertex it is */
    uint32_t count;   /* joined vertices */
} joined_mesh;

/* Join one mesh's used vertices. Returns 0, 1 when assimp must join this mesh (see above), -1
 * when out of memory. check_near: look for distinct positions within assimp's joining distance. */
int lsim_mesh_join(const struct aiMesh *mesh, joined_mesh *j, int check_near);
void lsim_mesh_joined_free(joined_mesh *j);

#endif
