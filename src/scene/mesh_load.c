/* Triangle meshes from files through assimp (OBJ, PLY, STL, glTF, ...). */
#include "scene/scene.h"

#include "core/context.h"

#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

lsim_status lsim_mesh_load(lsim_context *ctx, const char *path, const lsim_object_desc *desc, lsim_object *out)
{
    memset(out, 0, sizeof *out);
    const struct aiScene *ai = aiImportFile(path, aiProcess_Triangulate | aiProcess_JoinIdenticalVertices |
                                                      aiProcess_PreTransformVertices | aiProcess_SortByPType);
    if (!ai)
        return lsim_fail(ctx, LSIM_ERR_IO, "mesh '%s' could not be loaded: %s (formats: OBJ, PLY, STL, glTF, FBX, ...)",
                         path, aiGetErrorString());
    size_t nv = 0, nt = 0;
    for (unsigned m = 0; m < ai->mNumMeshes; ++m) {
        const struct aiMesh *mesh = ai->mMeshes[m];
        if (!(mesh->mPrimitiveTypes & aiPrimitiveType_TRIANGLE))
            continue;
        nv += mesh->mNumVertices;
        for (unsigned f = 0; f < mesh->mNumFaces; ++f)
            nt += mesh->mFaces[f].mNumIndices == 3;
    }
    if (nt == 0 || nv > UINT32_MAX) {
        aiReleaseImport(ai);
        return lsim_fail(ctx, LSIM_ERR_PARSE, "mesh '%s' has no triangles (points or lines only?)", path);
    }
    out->shape = LSIM_SHAPE_TRIANGLES;
    strcpy(out->kind, "mesh");
    out->vertices = malloc(3 * nv * sizeof(float));
    out->indices = malloc(3 * nt * sizeof(uint32_t));
    if (!out->vertices || !out->indices) {
        free(out->vertices);
        free(out->indices);
        aiReleaseImport(ai);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory loading mesh '%s' (%zu triangles)", path, nt);
    }
    size_t v0 = 0, t = 0;
    for (unsigned m = 0; m < ai->mNumMeshes; ++m) {
        const struct aiMesh *mesh = ai->mMeshes[m];
        if (!(mesh->mPrimitiveTypes & aiPrimitiveType_TRIANGLE))
            continue;
        for (unsigned i = 0; i < mesh->mNumVertices; ++i) {
            out->vertices[3 * (v0 + i)] = mesh->mVertices[i].x;
            out->vertices[3 * (v0 + i) + 1] = mesh->mVertices[i].y;
            out->vertices[3 * (v0 + i) + 2] = mesh->mVertices[i].z;
        }
        for (unsigned f = 0; f < mesh->mNumFaces; ++f) {
            const struct aiFace *face = &mesh->mFaces[f];
            if (face->mNumIndices != 3)
                continue;
            for (int k = 0; k < 3; ++k)
                out->indices[3 * t + k] = (uint32_t)(v0 + face->mIndices[k]);
            ++t;
        }
        v0 += mesh->mNumVertices;
    }
    aiReleaseImport(ai);
    out->vertex_count = nv;
    out->triangle_count = nt;
    for (size_t i = 0; i < 3 * nv; ++i) {
        if (!isfinite(out->vertices[i])) {
            free(out->vertices);
            free(out->indices);
            memset(out, 0, sizeof *out);
            return lsim_fail(ctx, LSIM_ERR_PARSE, "mesh '%s': vertex %zu has a non-finite coordinate", path, i / 3);
        }
    }
    lsim_transform_vertices(out->vertices, nv, desc);
    return LSIM_OK;
}

lsim_status lsim_scene_add_mesh(lsim_scene *scene, const char *path, const lsim_object_desc *desc)
{
    if (!scene || !path || !desc)
        return LSIM_ERR_INVALID_ARGUMENT;
    if (lsim_object_desc_validate(scene->ctx, desc) != LSIM_OK)
        return lsim_context_last_status(scene->ctx);
    lsim_object o;
    lsim_status st = lsim_mesh_load(scene->ctx, path, desc, &o);
    if (st != LSIM_OK)
        return st;
    return lsim_scene_take_object(scene, &o, desc);
}
