/* Triangle meshes from files (OBJ, PLY, STL, glTF, ...): checked, imported in a contained
 * child process (mesh_import.h), checked again, then placed in the world. */
#include "scene/scene.h"

#include "core/context.h"
#include "scene/mesh_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

lsim_status lsim_mesh_read(lsim_context *ctx, const char *path, lsim_mesh_arrays *out)
{
    memset(out, 0, sizeof *out);
    lsim_status st = lsim_mesh_check(ctx, path);
    if (st != LSIM_OK)
        return st;
    st = lsim_mesh_import(ctx, path, out);
    if (st != LSIM_OK)
        return st;
    for (size_t i = 0; i < 3 * out->vertex_count; ++i) {
        if (!isfinite(out->vertices[i]) || fabsf(out->vertices[i]) > 1e7f) {
            st = lsim_fail(ctx, LSIM_ERR_PARSE,
                           "mesh '%s': vertex %zu has coordinate %g; coordinates must be finite and within "
                           "+-1e7 (check the file's units or re-export it)", path, i / 3, (double)out->vertices[i]);
            lsim_mesh_arrays_free(out);
            return st;
        }
    }
    return LSIM_OK;
}

lsim_status lsim_mesh_place(lsim_context *ctx, const char *path, const lsim_mesh_arrays *mesh,
                            const lsim_object_desc *desc, lsim_object *out)
{
    memset(out, 0, sizeof *out);
    /* one float more than the vertices: the Embree engine shares a mesh's vertex array instead of
     * copying it, and Embree reads the last vertex with a 16-byte load (embree_engine.c) */
    out->vertices = malloc((3 * mesh->vertex_count + 1) * sizeof(float));
    out->indices = malloc(3 * mesh->triangle_count * sizeof(uint32_t));
    if (!out->vertices || !out->indices) {
        free(out->vertices);
        free(out->indices);
        memset(out, 0, sizeof *out);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory placing mesh '%s' (%zu triangles)", path,
                         mesh->triangle_count);
    }
    memcpy(out->vertices, mesh->vertices, 3 * mesh->vertex_count * sizeof(float));
    out->vertices[3 * mesh->vertex_count] = 0.0f;
    memcpy(out->indices, mesh->indices, 3 * mesh->triangle_count * sizeof(uint32_t));
    out->shape = LSIM_SHAPE_TRIANGLES;
    strcpy(out->kind, "mesh");
    out->vertex_count = mesh->vertex_count;
    out->triangle_count = mesh->triangle_count;
    lsim_transform_vertices(out->vertices, mesh->vertex_count, desc);
    for (size_t i = 0; i < 3 * mesh->vertex_count; ++i) {
        if (!isfinite(out->vertices[i])) {
            lsim_status st = lsim_fail(ctx, LSIM_ERR_PARSE,
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

lsim_status lsim_mesh_load(lsim_context *ctx, const char *path, const lsim_object_desc *desc, lsim_object *out)
{
    memset(out, 0, sizeof *out);
    lsim_mesh_arrays mesh;
    lsim_status st = lsim_mesh_read(ctx, path, &mesh);
    if (st == LSIM_OK)
        st = lsim_mesh_place(ctx, path, &mesh, desc, out);
    lsim_mesh_arrays_free(&mesh);
    return st;
}

lsim_status lsim_scene_add_mesh(lsim_scene *scene, const char *path, const lsim_object_desc *desc)
{
    if (!scene || !path || !desc)
        return LSIM_ERR_INVALID_ARGUMENT;
    if (lsim_object_desc_validate(scene->ctx, desc) != LSIM_OK)
        return lsim_context_last_status(scene->ctx);
    lsim_mesh_arrays mesh;
    lsim_status st = lsim_mesh_read(scene->ctx, path, &mesh);
    char what[4200];
    snprintf(what, sizeof what, "mesh '%s'", path);
    if (st == LSIM_OK) /* before the placed copy is made */
        st = lsim_scene_check_room(scene, mesh.triangle_count, what);
    lsim_object o;
    if (st == LSIM_OK)
        st = lsim_mesh_place(scene->ctx, path, &mesh, desc, &o);
    lsim_mesh_arrays_free(&mesh);
    if (st != LSIM_OK)
        return st;
    return lsim_scene_take_object(scene, &o, desc);
}
