/* Vertex joining of an imported mesh by exact position (scene/mesh_join.h). */
#include "scene/mesh_join.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


#define NEAR_DISTANCE 2e-5 /* per coordinate: above assimp's joining distance (1e-5) */
#define NEAR_CELL 1.28e-3  /* grid of the near-pair search; 64 x NEAR_DISTANCE */

static uint32_t coord_bits(float c)
{
    uint32_t w;
    c = c == 0.0f ? 0.0f : c; /* -0 -> +0 */
    memcpy(&w, &c, sizeof w);
    return w;
}

static uint64_t mix(uint64_t h, uint64_t w)
{
    h = (h ^ w) * 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 29);
}

static uint32_t position_hash(const struct aiVector3D *p)
{
    return (uint32_t)(mix(mix(mix(0x165667b19e3779f9ull, coord_bits(p->x)), coord_bits(p->y)), coord_bits(p->z)) >> 32);
}

/* The near-pair grid cell of a coordinate (clamped: coordinates that large fail lidarsim's range
 * check anyway). */
static int64_t near_cell(double c)
{
    const double f = floor(c / NEAR_CELL);
    return f > 0x1p52 ? (int64_t)0x1p52 : f < -0x1p52 ? -(int64_t)0x1p52 : (int64_t)f;
}

static uint64_t cell_hash(const int64_t k[3])
{
    return mix(mix(mix(0x27d4eb2f165667c5ull, (uint64_t)k[0]), (uint64_t)k[1]), (uint64_t)k[2]);
}

/* Whether two of the mesh's joined (distinct) positions are within NEAR_DISTANCE in every
 * coordinate: the positions go into cells of NEAR_CELL, and each looks in its own cell and in
 * the neighbours it is within NEAR_DISTANCE of. Returns 1 if so, 0 if not, -1 when out of memory. */
static int has_near_pair(const struct aiMesh *mesh, const joined_mesh *j)
{
    size_t cap = 16;
    while (cap < 2 * (size_t)j->count)
        cap *= 2;
    uint32_t *table = calloc(cap, sizeof *table); /* joined index + 1 by cell; 0 = empty */
    if (!table)
        return -1;
    for (uint32_t u = 0; u < j->count; ++u) {
        const struct aiVector3D *p = &mesh->mVertices[j->unique[u]];
        const int64_t k[3] = {near_cell(p->x), near_cell(p->y), near_cell(p->z)};
        size_t s = cell_hash(k) & (cap - 1);
        while (table[s])
            s = (s + 1) & (cap - 1);
        table[s] = u + 1;
    }
    int found = 0;
    for (uint32_t u = 0; u < j->count && !found; ++u) {
        const struct aiVector3D *p = &mesh->mVertices[j->unique[u]];
        const double c[3] = {p->x, p->y, p->z};
        int64_t k[3];
        int lo[3], hi[3]; /* neighbour cells to look in, per axis: -1..1 */
        for (int a = 0; a < 3; ++a) {
            k[a] = near_cell(c[a]);
            lo[a] = near_cell(c[a] - NEAR_DISTANCE) < k[a] ? -1 : 0;
            hi[a] = near_cell(c[a] + NEAR_DISTANCE) > k[a] ? 1 : 0;
        }
        for (int dx = lo[0]; dx <= hi[0] && !found; ++dx)
            for (int dy = lo[1]; dy <= hi[1] && !found; ++dy)
                for (int dz = lo[2]; dz <= hi[2] && !found; ++dz) {
                    const int64_t q[3] = {k[0] + dx, k[1] + dy, k[2] + dz};
                    for (size_t s = cell_hash(q) & (cap - 1); table[s]; s = (s + 1) & (cap - 1)) {
                        const uint32_t v = table[s] - 1;
                        const struct aiVector3D *o = &mesh->mVertices[j->unique[v]];
                        if (v != u && fabs((double)o->x - c[0]) <= NEAR_DISTANCE &&
                            fabs((double)o->y - c[1]) <= NEAR_DISTANCE && fabs((double)o->z - c[2]) <= NEAR_DISTANCE) {
                            found = 1;
                            break;
                        }
                    }
                }
    }
    free(table);
    return found;
}

int lsim_mesh_join(const struct aiMesh *mesh, joined_mesh *j, int check_near)
{
    const unsigned n = mesh->mNumVertices;
    memset(j, 0, sizeof *j);
    j->remap = malloc((n ? n : 1) * sizeof *j->remap);
    if (!j->remap)
        return -1;
    memset(j->remap, 0xff, (size_t)n * sizeof *j->remap);
    size_t used = 0;
    for (unsigned f = 0; f < mesh->mNumFaces; ++f)
        for (unsigned k = 0; k < mesh->mFaces[f].mNumIndices; ++k) {
            uint32_t *r = &j->remap[mesh->mFaces[f].mIndices[k]];
            if (*r == UINT32_MAX) {
                const struct aiVector3D *p = &mesh->mVertices[mesh->mFaces[f].mIndices[k]];
                if (!isfinite(p->x) || !isfinite(p->y) || !isfinite(p->z))
                    return 1;
                *r = 0; /* used */
                ++used;
            }
        }
    j->unique = malloc((used ? used : 1) * sizeof *j->unique);
    size_t cap = 1024; /* a power of two, kept over twice the joined count */
    uint32_t *table = calloc(cap, sizeof *table); /* joined index + 1; 0 = empty */
    if (!table || !j->unique) {
        free(table);
        return -1;
    }
    for (unsigned a = 0; a < n; ++a) {
        if (j->remap[a] == UINT32_MAX)
            continue;
        const struct aiVector3D *p = &mesh->mVertices[a];
        size_t slot = position_hash(p) & (cap - 1);
        for (;;) {
            if (table[slot] == 0)
                break;
            const struct aiVector3D *q = &mesh->mVertices[j->unique[table[slot] - 1]];
            if (q->x == p->x && q->y == p->y && q->z == p->z)
                break;
            slot = (slot + 1) & (cap - 1);
        }
        if (table[slot]) {
            j->remap[a] = table[slot] - 1;
            continue;
        }
        j->unique[j->count] = a;
        j->remap[a] = j->count++;
        table[slot] = j->count;
        if (2 * (size_t)j->count > cap) { /* grow: re-insert every joined vertex */
            free(table);
            cap *= 2;
            table = calloc(cap, sizeof *table);
            if (!table)
                return -1;
            for (uint32_t u = 0; u < j->count; ++u) {
                size_t s = position_hash(&mesh->mVertices[j->unique[u]]) & (cap - 1);
                while (table[s])
                    s = (s + 1) & (cap - 1);
                table[s] = u + 1;
            }
        }
    }
    free(table);
    return check_near ? has_near_pair(mesh, j) : 0;
}

void lsim_mesh_joined_free(joined_mesh *j)
{
    free(j->remap);
    free(j->unique);
    memset(j, 0, sizeof *j);
}

