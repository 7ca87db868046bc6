/* The OpenGL rasterizer's scene and views (raster_gl.h). All triangles of the scene share one
 * vertex buffer and one index buffer; each object is one glDrawElementsBaseVertex with its own
 * pose and id. A per-triangle normal buffer (shader storage, indexed by the draw's first
 * triangle + gl_PrimitiveID) gives flat geometric normals with no duplicated vertices.
 * Targets: 32-bit float depth (16-bit for the ablation), R32F range, RGBA32F normal, R32UI
 * object id + 1 and R32UI triangle index; no multisampling, no blending. The depth buffer is read
 * back only for the ablation's depth_range (range by inverting the projection). */
#include "geometry/raster_gl_internal.h"

#include "core/context.h"
#include "core/motion.h"
#include "scene/scene.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define LSIM_RASTER_MAX_SIZE 16384u

void lsim_raster_gl_release_targets(lsim_raster_gl *gl)
{
    GLuint rbs[5] = {gl->rb_depth, gl->rb_range, gl->rb_normal, gl->rb_object, gl->rb_primitive};
    for (int i = 0; i < 5; ++i)
        if (rbs[i])
            gl->f.DeleteRenderbuffers(1, &rbs[i]);
    gl->rb_depth = gl->rb_range = gl->rb_normal = gl->rb_object = gl->rb_primitive = 0;
    gl->fb_width = gl->fb_height = 0;
    gl->fb_depth_bits = 0;
}

static const double identity_pose[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};

lsim_status lsim_raster_gl_set_scene(lsim_raster_gl *gl, const lsim_scene *scene)
{
    if (!gl || !scene)
        return lsim_fail(gl ? gl->ctx : NULL, LSIM_ERR_INVALID_ARGUMENT, "lsim_raster_gl_set_scene: NULL argument");
    size_t draws = 0, vertices = 0, triangles = 0;
    for (size_t i = 0; i < scene->object_count; ++i) {
        const lsim_object *o = &scene->objects[i];
        if (o->shape == LSIM_SHAPE_SPHERE || o->triangle_count == 0)
            continue; /* TODO: spheres (tessellate, or ray-cast in the fragment shader on a bounding box) */
        ++draws;
        vertices += o->vertex_count;
        triangles += o->triangle_count;
    }
    /* GL sizes: base vertex and the primitive id are 32-bit signed, index counts GLsizei */
    if (vertices > (size_t)INT32_MAX || triangles > (size_t)INT32_MAX / 3 ||
        vertices > SIZE_MAX / (3 * sizeof(float)) || triangles > SIZE_MAX / (3 * sizeof(float)))
        return lsim_fail(gl->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "OpenGL rasterizer: the scene has %zu vertices and %zu triangles; at most %d of each",
                         vertices, triangles, INT32_MAX / 3);
    lsim_status st = lsim_raster_gl_make_current(gl);
    if (st != LSIM_OK)
        return st;
    GLint max_block = 0;
    gl->f.GetIntegerv(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &max_block);
    if ((double)triangles * 3 * sizeof(float) > (double)(uint32_t)max_block)
        return lsim_fail(gl->ctx, LSIM_ERR_ENGINE,
                         "OpenGL rasterizer: %zu triangles need a %zu-byte normal buffer; this OpenGL (%s) allows "
                         "shader storage blocks of %d bytes",
                         triangles, triangles * 3 * sizeof(float), gl->describe, (int)max_block);
    lsim_raster_draw *list = calloc(draws ? draws : 1, sizeof *list);
    float *normals = malloc((triangles ? triangles : 1) * 3 * sizeof(float));
    if (!list || !normals) {
        free(list);
        free(normals);
        return lsim_fail(gl->ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory uploading %zu triangles to OpenGL", triangles);
    }
    free(gl->draws);
    gl->draws = list;
    gl->draw_count = draws;
    gl->object_count = scene->object_count;
    gl->scene = scene;

    GLuint buffers[3] = {gl->vertex_buffer, gl->index_buffer, gl->normal_buffer};
    if (!gl->vertex_buffer)
        gl->f.GenBuffers(3, buffers);
    gl->vertex_buffer = buffers[0];
    gl->index_buffer = buffers[1];
    gl->normal_buffer = buffers[2];
    gl->f.BindVertexArray(gl->vao);
    gl->f.BindBuffer(GL_ARRAY_BUFFER, gl->vertex_buffer);
    gl->f.BufferData(GL_ARRAY_BUFFER, (GLsizeiptr)((vertices ? vertices : 1) * 3 * sizeof(float)), NULL,
                     GL_STATIC_DRAW);
    gl->f.BindBuffer(GL_ELEMENT_ARRAY_BUFFER, gl->index_buffer); /* recorded in the vertex array */
    gl->f.BufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)((triangles ? triangles : 1) * 3 * sizeof(uint32_t)), NULL,
                     GL_STATIC_DRAW);
    size_t d = 0, v0 = 0, t0 = 0;
    for (size_t i = 0; i < scene->object_count; ++i) {
        const lsim_object *o = &scene->objects[i];
        if (o->shape == LSIM_SHAPE_SPHERE || o->triangle_count == 0)
            continue;
        lsim_raster_draw *dr = &list[d++];
        dr->object = (uint32_t)i;
        dr->first_index = 3 * t0;
        dr->triangle_count = o->triangle_count;
        dr->base_vertex = (int32_t)v0;
        dr->first_triangle = (uint32_t)t0;
        memcpy(dr->model, identity_pose, sizeof identity_pose);
        if (o->motion) { /* own frame: its pose at the scene clock's 0 until told otherwise */
            double pose[12];
            lsim_motion_pose_at(o->motion, 0.0, pose);
            for (int k = 0; k < 12; ++k)
                dr->model[k] = pose[k];
        }
        gl->f.BufferSubData(GL_ARRAY_BUFFER, (GLintptr)(v0 * 3 * sizeof(float)),
                            (GLsizeiptr)(o->vertex_count * 3 * sizeof(float)), o->vertices);
        gl->f.BufferSubData(GL_ELEMENT_ARRAY_BUFFER, (GLintptr)(t0 * 3 * sizeof(uint32_t)),
                            (GLsizeiptr)(o->triangle_count * 3 * sizeof(uint32_t)), o->indices);
        for (size_t k = 0; k < o->triangle_count; ++k) {
            const uint32_t *ix = &o->indices[3 * k];
            const float *a = &o->vertices[3 * ix[0]], *b = &o->vertices[3 * ix[1]], *c = &o->vertices[3 * ix[2]];
            double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
            double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
            double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
            double s = len > 0.0 ? 1.0 / len : 0.0; /* degenerate: no normal (it covers no pixel anyway) */
            for (int a3 = 0; a3 < 3; ++a3)
                normals[3 * (t0 + k) + (size_t)a3] = (float)(n[a3] * s);
        }
        v0 += o->vertex_count;
        t0 += o->triangle_count;
    }
    gl->f.EnableVertexAttribArray(0);
    gl->f.VertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 3 * sizeof(float), (const void *)0);
    gl->f.BindVertexArray(0);
    gl->f.BindBuffer(GL_SHADER_STORAGE_BUFFER, gl->normal_buffer);
    gl->f.BufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)((triangles ? triangles : 1) * 3 * sizeof(float)),
                     normals, GL_STATIC_DRAW);
    free(normals);
    st = lsim_raster_gl_check(gl, "uploading the scene's triangles");
    return st == LSIM_OK ? lsim_raster_gl_lookup_set_scene(gl) : st;
}

lsim_status lsim_raster_gl_set_object_pose(lsim_raster_gl *gl, size_t object, const double pose[12])
{
    if (!gl || !pose)
        return lsim_fail(gl ? gl->ctx : NULL, LSIM_ERR_INVALID_ARGUMENT, "lsim_raster_gl_set_object_pose: NULL argument");
    for (int k = 0; k < 12; ++k)
        if (!isfinite(pose[k]))
            return lsim_fail(gl->ctx, LSIM_ERR_INVALID_ARGUMENT, "OpenGL rasterizer: object %zu's pose is not finite",
                             object);
    for (size_t d = 0; d < gl->draw_count; ++d)
        if (gl->draws[d].object == object) {
            for (int k = 0; k < 12; ++k)
                gl->draws[d].model[k] = pose[k];
            return LSIM_OK;
        }
    return lsim_fail(gl->ctx, LSIM_ERR_INVALID_ARGUMENT,
                     "OpenGL rasterizer: object %zu is not a drawn triangle object (the scene has %zu objects)", object,
                     gl->object_count);
}

lsim_status lsim_raster_gl_set_time(lsim_raster_gl *gl, double t)
{
    if (!gl || !isfinite(t))
        return lsim_fail(gl ? gl->ctx : NULL, LSIM_ERR_INVALID_ARGUMENT, "lsim_raster_gl_set_time: no handle or time %g",
                         t);
    for (size_t d = 0; d < gl->draw_count && gl->scene; ++d) {
        const lsim_object *o = &gl->scene->objects[gl->draws[d].object];
        if (!o->motion)
            continue;
        double pose[12];
        lsim_motion_pose_at(o->motion, t, pose);
        for (int k = 0; k < 12; ++k)
            gl->draws[d].model[k] = pose[k];
    }
    return LSIM_OK;
}

/* (Re)allocate the targets for a size and depth format. */
static lsim_status ensure_targets(lsim_raster_gl *gl, uint32_t w, uint32_t h, int depth_bits)
{
    if (gl->fb_width == w && gl->fb_height == h && gl->fb_depth_bits == depth_bits)
        return LSIM_OK;
    lsim_raster_gl_release_targets(gl);
    GLuint rb[5];
    gl->f.GenRenderbuffers(5, rb);
    const GLenum formats[5] = {depth_bits == 16 ? GL_DEPTH_COMPONENT16 : GL_DEPTH_COMPONENT32F, GL_R32F, GL_RGBA32F,
                               GL_R32UI, GL_R32UI};
    const GLenum attach[5] = {GL_DEPTH_ATTACHMENT, GL_COLOR_ATTACHMENT0, GL_COLOR_ATTACHMENT1, GL_COLOR_ATTACHMENT2,
                              GL_COLOR_ATTACHMENT3};
    gl->f.BindFramebuffer(GL_FRAMEBUFFER, gl->fbo);
    for (int i = 0; i < 5; ++i) {
        gl->f.BindRenderbuffer(GL_RENDERBUFFER, rb[i]);
        gl->f.RenderbufferStorage(GL_RENDERBUFFER, formats[i], (GLsizei)w, (GLsizei)h); /* no samples */
        gl->f.FramebufferRenderbuffer(GL_FRAMEBUFFER, attach[i], GL_RENDERBUFFER, rb[i]);
    }
    gl->rb_depth = rb[0];
    gl->rb_range = rb[1];
    gl->rb_normal = rb[2];
    gl->rb_object = rb[3];
    gl->rb_primitive = rb[4];
    const GLenum draw[4] = {GL_COLOR_ATTACHMENT0, GL_COLOR_ATTACHMENT1, GL_COLOR_ATTACHMENT2, GL_COLOR_ATTACHMENT3};
    gl->f.DrawBuffers(4, draw);
    lsim_status st = lsim_raster_gl_check(gl, "allocating the render targets");
    if (st != LSIM_OK)
        return st;
    GLenum complete = gl->f.CheckFramebufferStatus(GL_FRAMEBUFFER);
    if (complete != GL_FRAMEBUFFER_COMPLETE)
        return lsim_fail(gl->ctx, LSIM_ERR_ENGINE,
                         "OpenGL rasterizer: the %ux%u framebuffer (%d-bit depth, R32F, RGBA32F, 2x R32UI) is "
                         "incomplete (status 0x%x) on %s",
                         w, h, depth_bits, (unsigned)complete, gl->describe);
    gl->fb_width = w;
    gl->fb_height = h;
    gl->fb_depth_bits = depth_bits;
    return LSIM_OK;
}

lsim_status lsim_raster_gl_check_view(lsim_raster_gl *gl, const lsim_raster_view *v)
{
    int finite = 1;
    for (int k = 0; k < 3; ++k)
        finite &= isfinite(v->origin[k]);
    for (int k = 0; k < 9; ++k)
        finite &= isfinite(v->rotation[k]);
    finite &= isfinite(v->left) && isfinite(v->right) && isfinite(v->bottom) && isfinite(v->top);
    if (!finite || !(v->left < v->right) || !(v->bottom < v->top))
        return lsim_fail(gl->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "OpenGL rasterizer: view frustum left %g right %g bottom %g top %g (tangents, left < right, "
                         "bottom < top) or its pose is not finite",
                         v->left, v->right, v->bottom, v->top);
    if (!(v->near_m > 0.0) || !(v->far_m > v->near_m) || !isfinite(v->far_m))
        return lsim_fail(gl->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "OpenGL rasterizer: view near %g m, far %g m: need 0 < near < far, finite", v->near_m,
                         v->far_m);
    if (v->width < 1 || v->height < 1 || v->width > LSIM_RASTER_MAX_SIZE || v->height > LSIM_RASTER_MAX_SIZE)
        return lsim_fail(gl->ctx, LSIM_ERR_INVALID_ARGUMENT, "OpenGL rasterizer: view of %ux%u pixels: 1..%u each",
                         v->width, v->height, LSIM_RASTER_MAX_SIZE);
    if (v->depth_bits != 0 && v->depth_bits != 16 && v->depth_bits != 32)
        return lsim_fail(gl->ctx, LSIM_ERR_INVALID_ARGUMENT, "OpenGL rasterizer: depth_bits %d: 16 or 32 (0: 32)",
                         v->depth_bits);
    return LSIM_OK;
}

void lsim_raster_gl_draw(lsim_raster_gl *gl, const lsim_raster_view *view, float proj[16])
{
    const uint32_t w = view->width, h = view->height;
    /* glFrustum (the raster paper's eq. 3) with the edges at the near plane = tangents x near */
    double n = view->near_m, f = view->far_m, l = view->left, r = view->right, b = view->bottom, t = view->top;
    memset(proj, 0, 16 * sizeof *proj); /* column-major */
    proj[0] = (float)(2.0 / (r - l));
    proj[5] = (float)(2.0 / (t - b));
    proj[8] = (float)((r + l) / (r - l));
    proj[9] = (float)((t + b) / (t - b));
    proj[10] = (float)(-(f + n) / (f - n));
    proj[11] = -1.0f;
    proj[14] = (float)(-2.0 * f * n / (f - n));

    gl->f.Viewport(0, 0, (GLsizei)w, (GLsizei)h);
    gl->f.Disable(GL_BLEND);
    gl->f.Disable(GL_MULTISAMPLE);
    gl->f.Disable(GL_CULL_FACE); /* both sides, as the ray casters */
    gl->f.Enable(GL_DEPTH_TEST);
    gl->f.DepthFunc(GL_LESS);
    gl->f.DepthMask(GL_TRUE);
    const float inf[4] = {INFINITY, 0, 0, 0}, zero[4] = {0, 0, 0, 0}, one = 1.0f;
    const GLuint nothing[4] = {0, 0, 0, 0};
    gl->f.ClearBufferfv(GL_COLOR, 0, inf);
    gl->f.ClearBufferfv(GL_COLOR, 1, zero);
    gl->f.ClearBufferuiv(GL_COLOR, 2, nothing);
    gl->f.ClearBufferuiv(GL_COLOR, 3, nothing);
    gl->f.ClearBufferfv(GL_DEPTH, 0, &one);

    gl->f.UseProgram(gl->program);
    gl->f.BindVertexArray(gl->vao);
    gl->f.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, gl->normal_buffer);
    gl->f.UniformMatrix4fv(gl->u_projection, 1, GL_FALSE, proj);
    const double *rc = view->rotation, *o = view->origin;
    for (size_t d = 0; d < gl->draw_count; ++d) {
        const lsim_raster_draw *dr = &gl->draws[d];
        const double *m = dr->model;
        /* view_model = [Rc^T | -Rc^T o] [Rm | pm] = [Rc^T Rm | Rc^T (pm - o)], in double */
        float vm[16] = {0};
        for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < 3; ++j) {
                double s = 0.0;
                for (int k = 0; k < 3; ++k)
                    s += rc[3 * k + i] * m[4 * k + j];
                vm[4 * j + i] = (float)s;
            }
            double s = 0.0;
            for (int k = 0; k < 3; ++k)
                s += rc[3 * k + i] * (m[4 * k + 3] - o[k]);
            vm[12 + i] = (float)s;
        }
        vm[15] = 1.0f;
        const float nm[9] = {(float)m[0], (float)m[1], (float)m[2], (float)m[4], (float)m[5],
                            (float)m[6], (float)m[8], (float)m[9], (float)m[10]}; /* row-major */
        gl->f.UniformMatrix4fv(gl->u_view_model, 1, GL_FALSE, vm);
        gl->f.UniformMatrix3fv(gl->u_normal_model, 1, GL_TRUE, nm);
        gl->f.Uniform1ui(gl->u_object, dr->object + 1u);
        gl->f.Uniform1ui(gl->u_first_triangle, dr->first_triangle);
        gl->f.DrawElementsBaseVertex(GL_TRIANGLES, (GLsizei)(3 * dr->triangle_count), GL_UNSIGNED_INT,
                                     (const void *)(uintptr_t)(dr->first_index * sizeof(uint32_t)), dr->base_vertex);
    }
    gl->f.BindVertexArray(0);
}

lsim_status lsim_raster_gl_render_view(lsim_raster_gl *gl, const lsim_raster_view *view, const lsim_raster_image *out)
{
    if (!gl || !view || !out)
        return lsim_fail(gl ? gl->ctx : NULL, LSIM_ERR_INVALID_ARGUMENT, "lsim_raster_gl_render_view: NULL argument");
    lsim_status st = lsim_raster_gl_check_view(gl, view);
    if (st == LSIM_OK)
        st = lsim_raster_gl_make_current(gl);
    if (st != LSIM_OK)
        return st;
    uint32_t w = view->width, h = view->height;
    if ((st = ensure_targets(gl, w, h, view->depth_bits == 16 ? 16 : 32)) != LSIM_OK)
        return st;
    const double l = view->left, r = view->right, b = view->bottom, t = view->top;
    float proj[16];
    gl->f.BindFramebuffer(GL_FRAMEBUFFER, gl->fbo);
    lsim_raster_gl_draw(gl, view, proj);
    if ((st = lsim_raster_gl_check(gl, "drawing a view")) != LSIM_OK)
        return st;

    gl->f.PixelStorei(GL_PACK_ALIGNMENT, 1);
    if (out->range) {
        gl->f.ReadBuffer(GL_COLOR_ATTACHMENT0);
        gl->f.ReadPixels(0, 0, (GLsizei)w, (GLsizei)h, GL_RED, GL_FLOAT, out->range);
    }
    if (out->normal) {
        gl->f.ReadBuffer(GL_COLOR_ATTACHMENT1);
        gl->f.ReadPixels(0, 0, (GLsizei)w, (GLsizei)h, GL_RGB, GL_FLOAT, out->normal);
    }
    if (out->object) {
        gl->f.ReadBuffer(GL_COLOR_ATTACHMENT2);
        gl->f.ReadPixels(0, 0, (GLsizei)w, (GLsizei)h, GL_RED_INTEGER, GL_UNSIGNED_INT, out->object);
    }
    if (out->primitive) {
        gl->f.ReadBuffer(GL_COLOR_ATTACHMENT3);
        gl->f.ReadPixels(0, 0, (GLsizei)w, (GLsizei)h, GL_RED_INTEGER, GL_UNSIGNED_INT, out->primitive);
    }
    if (out->depth_range) { /* the ablation: range from the depth buffer, inverting the projection */
        float *d = out->depth_range;
        gl->f.ReadPixels(0, 0, (GLsizei)w, (GLsizei)h, GL_DEPTH_COMPONENT, GL_FLOAT, d);
        const double p10 = proj[10], p14 = proj[14]; /* the float terms the view was drawn with */
        for (uint32_t j = 0; j < h; ++j) {
            const double y = b + (j + 0.5) * (t - b) / h;
            for (uint32_t i = 0; i < w; ++i) {
                const double x = l + (i + 0.5) * (r - l) / w;
                float *px = &d[(size_t)j * w + i];
                const double z_ndc = 2.0 * (double)*px - 1.0;
                *px = *px >= 1.0f ? INFINITY : (float)(p14 / (z_ndc + p10) * sqrt(1.0 + x * x + y * y));
            }
        }
    }
    return lsim_raster_gl_check(gl, "reading a view back");
}
