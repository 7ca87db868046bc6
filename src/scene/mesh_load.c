/* Triangle meshes from files (OBJ, PLY, STL, glTF, ...): checked, imported in a contained
 * child process (mesh_import.h), then checked again before they join the scene. */
#include "scene/scene.h"

#include "core/context.h"
#include "scene/mesh_check.h"
#include "scene/mesh_import.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

lsim_status lsim_mesh_load(lsim_context *ctx, const char *path, const lsim_object_desc *desc, lsim_object *out)
{
    memset(out, 0, sizeof *out);
    lsim_status st = lsim_mesh_check(ctx, path);
    if (st != LSIM_OK)
        return st;
    lsim_mesh_arrays mesh;
    st = lsim_mesh_import(ctx, path, &mesh);
    if (st != LSIM_OK)
        return st;
    for (size_t i = 0; i < 3 * mesh.vertex_count; ++i) {
        if (!isfinite(mesh.vertices[i]) || fabsf(mesh.vertices[i]) > 1e7f) {
            st = lsim_fail(ctx, LSIM_ERR_PARSE,
                           "mesh '%s': vertex %zu has coordinate %g; coordinates must be finite and within "
                           "+-1e7 (check the file's units or re-export it)", path, i / 3, (double)mesh.vertices[i]);
            free(mesh.vertices);
            free(mesh.indices);
            return st;
        }
    }
    out->shape = LSIM_SHAPE_TRIANGLES;
    strcpy(out->kind, "mesh");
    out->vertices = mesh.vertices;
    out->indices = mesh.indices;
    out->vertex_count = mesh.vertex_count;
    out->triangle_count = mesh.triangle_count;
    lsim_transform_vertices(out->vertices, mesh.vertex_count, desc);
    for (size_t i = 0; i < 3 * mesh.vertex_count; ++i) {
        if (!isfinite(out->vertices[i])) {
            st = lsim_fail(ctx, LSIM_ERR_PARSE,
                           "mesh '%s': vertex %zu is not finite after the object's scale and rotation "
                           "(scale too large?)", path, i / 3);
            free(out->vertices);
            free(out->indices);
            memset(out, 0, sizeof *out);
            return st;
        }
    }
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
