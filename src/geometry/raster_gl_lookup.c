/* The raster engine's per-beam lookup on the GL device (raster_gl.h, issue 27): views drawn into
 * layered textures that never leave the device, and a compute shader that answers each ray from
 * them, so a primary beam's only round trip is its ray in and its hit out.
 *
 * The shader is raster_engine.c's raster_hit (and raster_views.c's raster_view_pixel) in GLSL
 * double precision (core since OpenGL 4.0), written as the same operations in the same order:
 * every intermediate that the CPU computes in double is a `precise` double here (no fused
 * multiply-adds, no reassociation), the vertices are the same floats, the object poses the same
 * doubles (lsim_motion_pose_at at the view's time, computed on the CPU and uploaded). Hits are
 * rounded to float as the CPU rounds them. tests/test_raster_lookup.c compares the two beam by
 * beam.
 *
 * Buffers (shader storage): 1 rays in (8 floats a ray), 2 the view's frame (doubles), 3 the
 * objects' poses (12 doubles an object), 4 the object table (first index, base vertex, triangle
 * count, 4 uints an object), 5 the scene's vertex buffer and 6 its index buffer (the ones drawn:
 * bound again as storage), 7 hits out (8 words a ray). Textures: 0 range, 1 object id + 1,
 * 2 triangle. */
#include "geometry/raster_gl_internal.h"

#include "core/context.h"
#include "core/motion.h"
#include "scene/scene.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define LOCAL_SIZE 64
#define FRAME_DOUBLES 61 /* c 3, window 4, right 18, up 18, fwd 18 */
/* rays per dispatch: well within the 65,535 work groups every implementation allows */
#define DISPATCH_RAYS ((size_t)65535 * LOCAL_SIZE)

static const char *const lookup_source =
    "#version 430 core\n"
    "layout(local_size_x = 64) in;\n"
    "layout(std430, binding = 1) readonly buffer rays_in { float ray[]; };\n"
    "layout(std430, binding = 2) readonly buffer frame_in { double frame[]; };\n"
    "layout(std430, binding = 3) readonly buffer poses_in { double pose[]; };\n"
    "layout(std430, binding = 4) readonly buffer objects_in { uint object[]; };\n"
    "layout(std430, binding = 5) readonly buffer vertices_in { float vertex[]; };\n"
    "layout(std430, binding = 6) readonly buffer indices_in { uint index[]; };\n"
    "layout(std430, binding = 7) writeonly buffer hits_out { uint hit[]; };\n"
    "layout(binding = 0) uniform sampler2DArray range_image;\n"
    "layout(binding = 1) uniform usampler2DArray object_image;\n"
    "layout(binding = 2) uniform usampler2DArray primitive_image;\n"
    "uniform uint ray_count, width, height, faces, object_count, correction;\n"
    "const uint NO_HIT = 0xffffffffu, OUTSIDE = 0xfffffffeu;\n"
    /* a.b in the CPU's order: (a0 b0 + a1 b1) + a2 b2 */
    "double dot3(dvec3 a, dvec3 b) { precise double s = a.x * b.x + a.y * b.y + a.z * b.z; return s; }\n"
    "dvec3 axis(int base, int k) { return dvec3(frame[base + 3 * k], frame[base + 3 * k + 1], frame[base + 3 * k + 2]); }\n"
    /* raster_view_pixel: the texel of world direction w and its centre's unit direction */
    "bool pixel(dvec3 w, out dvec3 dir, out ivec3 at) {\n"
    "    int k = 0;\n"
    "    if (faces == 6u) {\n"
    "        int a = abs(w.x) >= abs(w.y) ? (abs(w.x) >= abs(w.z) ? 0 : 2) : (abs(w.y) >= abs(w.z) ? 1 : 2);\n"
    "        k = 2 * a + (w[a] < 0.0lf ? 1 : 0);\n"
    "    }\n"
    "    dvec3 rt = axis(7, k), u = axis(25, k), f = axis(43, k);\n"
    "    double x0 = frame[3], x1 = frame[4], y0 = frame[5], y1 = frame[6];\n"
    "    precise double fw = dot3(f, w);\n"
    "    precise double wl = sqrt(dot3(w, w));\n"
    "    if (!(fw > 1e-9lf * wl)) return false;\n"
    "    precise double x = dot3(rt, w) / fw;\n"
    "    precise double y = dot3(u, w) / fw;\n"
    "    precise double sx = (x1 - x0) / double(width);\n"
    "    precise double sy = (y1 - y0) / double(height);\n"
    "    precise double fi = floor((x - x0) / sx);\n"
    "    precise double fj = floor((y - y0) / sy);\n"
    "    uint i, j;\n"
    "    if (faces == 1u) {\n"
    "        if (!(fi >= 0.0lf && fi < double(width) && fj >= 0.0lf && fj < double(height))) return false;\n"
    "        i = uint(fi); j = uint(fj);\n"
    "    } else {\n"
    "        i = fi < 0.0lf ? 0u : (fi >= double(width) ? width - 1u : uint(fi));\n"
    "        j = fj < 0.0lf ? 0u : (fj >= double(height) ? height - 1u : uint(fj));\n"
    "    }\n"
    "    precise double px = x0 + (double(i) + 0.5lf) * sx;\n"
    "    precise double py = y0 + (double(j) + 0.5lf) * sy;\n"
    "    precise dvec3 d = dvec3(px * rt.x + py * u.x + f.x, px * rt.y + py * u.y + f.y, px * rt.z + py * u.z + f.z);\n"
    "    precise double n = sqrt(dot3(d, d));\n"
    "    if (n > 1e-12lf) d = dvec3(d.x / n, d.y / n, d.z / n);\n"
    "    dir = d;\n"
    "    at = ivec3(int(i), int(j), k);\n"
    "    return true;\n"
    "}\n"
    /* triangle_world: vertex k of triangle p of object o, world frame at the view's time */
    "dvec3 corner(uint o, uint p, uint k) {\n"
    "    uint v = index[object[4u * o] + 3u * p + k] + object[4u * o + 1u];\n"
    "    dvec3 q = dvec3(vertex[3u * v], vertex[3u * v + 1u], vertex[3u * v + 2u]);\n"
    "    if (object[4u * o + 3u] == 0u) return q;\n"
    "    uint b = 12u * o;\n"
    "    precise dvec3 r = dvec3(pose[b] * q.x + pose[b + 1u] * q.y + pose[b + 2u] * q.z + pose[b + 3u],\n"
    "                            pose[b + 4u] * q.x + pose[b + 5u] * q.y + pose[b + 6u] * q.z + pose[b + 7u],\n"
    "                            pose[b + 8u] * q.x + pose[b + 9u] * q.y + pose[b + 10u] * q.z + pose[b + 11u]);\n"
    "    return r;\n"
    "}\n"
    "void put(uint r, double t, double u, double v, dvec3 n, uint o, uint p) {\n"
    "    hit[8u * r] = floatBitsToUint(float(t));\n"
    "    hit[8u * r + 1u] = floatBitsToUint(float(u));\n"
    "    hit[8u * r + 2u] = floatBitsToUint(float(v));\n"
    "    hit[8u * r + 3u] = floatBitsToUint(float(n.x));\n"
    "    hit[8u * r + 4u] = floatBitsToUint(float(n.y));\n"
    "    hit[8u * r + 5u] = floatBitsToUint(float(n.z));\n"
    "    hit[8u * r + 6u] = o;\n"
    "    hit[8u * r + 7u] = p;\n"
    "}\n"
    "void main() {\n"
    "    uint r = gl_GlobalInvocationID.x;\n"
    "    if (r >= ray_count) return;\n"
    "    dvec3 o = dvec3(ray[8u * r], ray[8u * r + 1u], ray[8u * r + 2u]);\n"
    "    dvec3 d = dvec3(ray[8u * r + 3u], ray[8u * r + 4u], ray[8u * r + 5u]);\n"
    "    double tnear = double(ray[8u * r + 6u]), tfar = double(ray[8u * r + 7u]);\n"
    "    dvec3 c = dvec3(frame[0], frame[1], frame[2]);\n"
    "    dvec3 w = d, n = dvec3(0.0lf), ha = dvec3(0.0lf), hb = dvec3(0.0lf), hc = dvec3(0.0lf);\n"
    "    double t = 0.0lf;\n"
    "    bool got = false;\n"
    "    uint obj = 0u, prim = 0u;\n"
    "    for (int pass = 0; pass < 2; ++pass) {\n"
    "        dvec3 v;\n"
    "        ivec3 at;\n"
    "        if (!pixel(w, v, at)) {\n"
    "            if (pass == 0) { put(r, 0.0lf, 0.0lf, 0.0lf, dvec3(0.0lf), OUTSIDE, 0u); return; }\n"
    "            break;\n"
    "        }\n"
    "        uint id = texelFetch(object_image, at, 0).r;\n"
    "        float range = texelFetch(range_image, at, 0).r;\n"
    "        if (id == 0u || isinf(range) || isnan(range)) break;\n"
    "        uint po = id - 1u, pp = texelFetch(primitive_image, at, 0).r;\n"
    "        if (po >= object_count || pp >= object[4u * po + 2u]) break;\n"
    "        double rp = double(range);\n"
    "        dvec3 a = corner(po, pp, 0u), b = corner(po, pp, 1u), cc = corner(po, pp, 2u);\n"
    "        precise dvec3 e1 = dvec3(b.x - a.x, b.y - a.y, b.z - a.z);\n"
    "        precise dvec3 e2 = dvec3(cc.x - a.x, cc.y - a.y, cc.z - a.z);\n"
    "        precise dvec3 nn = dvec3(e1.y * e2.z - e1.z * e2.y, e1.z * e2.x - e1.x * e2.z, e1.x * e2.y - e1.y * e2.x);\n"
    "        precise double tt;\n"
    "        if (correction != 0u) {\n"
    "            precise dvec3 q = dvec3(c.x + rp * v.x - o.x, c.y + rp * v.y - o.y, c.z + rp * v.z - o.z);\n"
    "            precise double nd = dot3(nn, d);\n"
    "            precise double nl = sqrt(dot3(nn, nn));\n"
    "            if (!(abs(nd) > 1e-6lf * nl)) break;\n"
    "            tt = dot3(nn, q) / nd;\n"
    "        } else {\n"
    "            tt = rp;\n"
    "        }\n"
    "        t = tt; obj = po; prim = pp; n = nn; got = true; ha = a; hb = b; hc = cc;\n"
    "        if (pass == 0 && correction != 0u) {\n"
    "            precise dvec3 ww = dvec3(o.x + tt * d.x - c.x, o.y + tt * d.y - c.y, o.z + tt * d.z - c.z);\n"
    "            w = ww;\n"
    "        } else break;\n"
    "        if (!(dot3(w, w) > 1e-12lf)) break;\n"
    "    }\n"
    "    if (!got || !(t >= tnear && t <= tfar)) { put(r, 0.0lf, 0.0lf, 0.0lf, dvec3(0.0lf), NO_HIT, NO_HIT); return; }\n"
    /* barycentrics on the hit's triangle (the corners of the pass that gave the hit) */
    "    dvec3 a = ha, b = hb, cc = hc;\n"
    "    precise dvec3 e1 = dvec3(b.x - a.x, b.y - a.y, b.z - a.z);\n"
    "    precise dvec3 e2 = dvec3(cc.x - a.x, cc.y - a.y, cc.z - a.z);\n"
    "    precise dvec3 x = dvec3(o.x + t * d.x - a.x, o.y + t * d.y - a.y, o.z + t * d.z - a.z);\n"
    "    precise double d00 = dot3(e1, e1), d01 = dot3(e1, e2), d11 = dot3(e2, e2);\n"
    "    precise double d20 = dot3(x, e1), d21 = dot3(x, e2);\n"
    "    precise double den = d00 * d11 - d01 * d01;\n"
    "    precise double bu = den != 0.0lf ? (d11 * d20 - d01 * d21) / den : 0.0lf;\n"
    "    precise double bv = den != 0.0lf ? (d00 * d21 - d01 * d20) / den : 0.0lf;\n"
    "    put(r, t, bu, bv, n, obj, prim);\n"
    "}\n";

int lsim_raster_gl_can_look_up(const lsim_raster_gl *gl)
{
    return gl && gl->lookup_program != 0;
}

/* Compile and link a compute program; the failure carries the driver's log. */
static lsim_status build_compute(lsim_raster_gl *gl, const char *source, GLuint *out)
{
    GLuint cs = 0;
    lsim_status st = lsim_raster_gl_compile(gl, GL_COMPUTE_SHADER, "per-beam lookup (compute)", source, &cs);
    if (st != LSIM_OK)
        return st;
    GLuint p = gl->f.CreateProgram();
    gl->f.AttachShader(p, cs);
    gl->f.LinkProgram(p);
    gl->f.DeleteShader(cs);
    GLint ok = 0;
    gl->f.GetProgramiv(p, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[2048] = "";
        gl->f.GetProgramInfoLog(p, sizeof log, NULL, log);
        gl->f.DeleteProgram(p);
        return lsim_fail(gl->ctx, LSIM_ERR_ENGINE, "OpenGL rasterizer: the per-beam lookup (compute) program does not "
                         "link on %s: %s", gl->describe, log);
    }
    *out = p;
    return lsim_raster_gl_check(gl, "building a compute program");
}

lsim_status lsim_raster_gl_try_compute(lsim_raster_gl *gl, const char *source)
{
    if (!gl || !source)
        return lsim_fail(gl ? gl->ctx : NULL, LSIM_ERR_INVALID_ARGUMENT, "lsim_raster_gl_try_compute: NULL argument");
    lsim_status st = lsim_raster_gl_make_current(gl);
    GLuint p = 0;
    if (st == LSIM_OK)
        st = build_compute(gl, source, &p);
    if (p)
        gl->f.DeleteProgram(p);
    return st;
}

lsim_status lsim_raster_gl_lookup_init(lsim_raster_gl *gl)
{
    GLint major = 0, minor = 0;
    gl->f.GetIntegerv(GL_MAJOR_VERSION, &major);
    gl->f.GetIntegerv(GL_MINOR_VERSION, &minor);
    gl->pose_time = NAN;
    if (major < 4 || (major == 4 && minor < 3)) /* no compute shaders: the engine looks up on the CPU */
        return lsim_raster_gl_check(gl, "asking the OpenGL version");
    GLuint p = 0;
    lsim_status st = build_compute(gl, lookup_source, &p);
    if (st != LSIM_OK)
        return st;
    gl->lookup_program = p;
    gl->u_ray_count = gl->f.GetUniformLocation(p, "ray_count");
    gl->u_width = gl->f.GetUniformLocation(p, "width");
    gl->u_height = gl->f.GetUniformLocation(p, "height");
    gl->u_faces = gl->f.GetUniformLocation(p, "faces");
    gl->u_object_count = gl->f.GetUniformLocation(p, "object_count");
    gl->u_correction = gl->f.GetUniformLocation(p, "correction");
    GLuint b[5];
    gl->f.GenBuffers(5, b);
    gl->ray_buffer = b[0], gl->hit_buffer = b[1], gl->frame_buffer = b[2], gl->pose_buffer = b[3];
    gl->object_buffer = b[4];
    gl->f.GenFramebuffers(1, &gl->layer_fbo);
    gl->f.BindBuffer(GL_SHADER_STORAGE_BUFFER, gl->frame_buffer);
    gl->f.BufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)(FRAME_DOUBLES * sizeof(double)), NULL, GL_DYNAMIC_DRAW);
    gl->lookup_capacity = 0;
    return lsim_raster_gl_check(gl, "building the per-beam lookup (compute) program");
}

void lsim_raster_gl_lookup_release(lsim_raster_gl *gl)
{
    if (gl->lookup_program)
        gl->f.DeleteProgram(gl->lookup_program);
    GLuint b[5] = {gl->ray_buffer, gl->hit_buffer, gl->frame_buffer, gl->pose_buffer, gl->object_buffer};
    if (b[0])
        gl->f.DeleteBuffers(5, b);
    if (gl->layer_fbo)
        gl->f.DeleteFramebuffers(1, &gl->layer_fbo);
    if (gl->layer_depth)
        gl->f.DeleteRenderbuffers(1, &gl->layer_depth);
    gl->lookup_program = 0;
    gl->ray_buffer = gl->hit_buffer = gl->frame_buffer = gl->pose_buffer = gl->object_buffer = 0;
    gl->layer_fbo = gl->layer_depth = 0;
}

lsim_status lsim_raster_gl_lookup_set_scene(lsim_raster_gl *gl)
{
    if (!gl->lookup_program)
        return LSIM_OK;
    const size_t n = gl->object_count ? gl->object_count : 1;
    GLint max_block = 0;
    gl->f.GetIntegerv(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &max_block);
    size_t vertices = 0, triangles = 0;
    for (size_t d = 0; d < gl->draw_count; ++d) {
        triangles += gl->draws[d].triangle_count;
        vertices = (size_t)gl->draws[d].base_vertex + gl->scene->objects[gl->draws[d].object].vertex_count;
    }
    if ((double)vertices * 3 * sizeof(float) > (double)(uint32_t)max_block ||
        (double)triangles * 3 * sizeof(uint32_t) > (double)(uint32_t)max_block || n > (size_t)(uint32_t)max_block / 96) {
        /* the scene's buffers are larger than a storage block may be here: look up on the CPU */
        lsim_raster_gl_lookup_release(gl);
        return lsim_raster_gl_check(gl, "sizing the per-beam lookup's buffers");
    }
    uint32_t *table = calloc(n, 4 * sizeof *table);
    double *pose = calloc(n, 12 * sizeof *pose);
    if (!table || !pose) {
        free(table);
        free(pose);
        return lsim_fail(gl->ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for the per-beam lookup's object table");
    }
    gl->has_motion = 0;
    for (size_t d = 0; d < gl->draw_count; ++d) {
        const lsim_raster_draw *dr = &gl->draws[d];
        uint32_t *row = table + 4 * (size_t)dr->object;
        row[0] = (uint32_t)dr->first_index;
        row[1] = (uint32_t)dr->base_vertex;
        row[2] = (uint32_t)dr->triangle_count;
        row[3] = gl->scene->objects[dr->object].motion != NULL;
        gl->has_motion |= (int)row[3];
    }
    gl->f.BindBuffer(GL_SHADER_STORAGE_BUFFER, gl->object_buffer);
    gl->f.BufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)(n * 4 * sizeof *table), table, GL_STATIC_DRAW);
    gl->f.BindBuffer(GL_SHADER_STORAGE_BUFFER, gl->pose_buffer);
    gl->f.BufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)(n * 12 * sizeof *pose), pose, GL_DYNAMIC_DRAW);
    gl->pose_time = NAN;
    free(table);
    free(pose);
    return lsim_raster_gl_check(gl, "uploading the per-beam lookup's object table");
}

void lsim_raster_gl_target_free(lsim_raster_gl *gl, lsim_raster_gl_target *tg)
{
    GLuint tex[3] = {tg->range, tg->object, tg->primitive};
    if (gl && tex[0] && lsim_raster_gl_make_current(gl) == LSIM_OK)
        gl->f.DeleteTextures(3, tex);
    memset(tg, 0, sizeof *tg);
}

lsim_status lsim_raster_gl_target_make(lsim_raster_gl *gl, lsim_raster_gl_target *tg, uint32_t w, uint32_t h,
                                       uint32_t layers)
{
    if (tg->range && tg->width == w && tg->height == h && tg->layers == layers)
        return LSIM_OK;
    lsim_raster_gl_target_free(gl, tg);
    lsim_status st = lsim_raster_gl_make_current(gl);
    if (st != LSIM_OK)
        return st;
    GLuint tex[3];
    const GLenum format[3] = {GL_R32F, GL_R32UI, GL_R32UI};
    gl->f.GenTextures(3, tex);
    for (int i = 0; i < 3; ++i) {
        gl->f.BindTexture(GL_TEXTURE_2D_ARRAY, tex[i]);
        gl->f.TexStorage3D(GL_TEXTURE_2D_ARRAY, 1, format[i], (GLsizei)w, (GLsizei)h, (GLsizei)layers);
        gl->f.TexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        gl->f.TexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    }
    gl->f.BindTexture(GL_TEXTURE_2D_ARRAY, 0);
    tg->range = tex[0], tg->object = tex[1], tg->primitive = tex[2];
    tg->width = w, tg->height = h, tg->layers = layers;
    if ((st = lsim_raster_gl_check(gl, "allocating a view's textures")) != LSIM_OK)
        lsim_raster_gl_target_free(gl, tg);
    return st;
}

lsim_status lsim_raster_gl_render_layer(lsim_raster_gl *gl, const lsim_raster_view *view,
                                        const lsim_raster_gl_target *tg, uint32_t layer)
{
    lsim_status st = lsim_raster_gl_check_view(gl, view);
    if (st == LSIM_OK)
        st = lsim_raster_gl_make_current(gl);
    if (st != LSIM_OK)
        return st;
    if (!tg->range || view->width != tg->width || view->height != tg->height || layer >= tg->layers)
        return lsim_fail(gl->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "OpenGL rasterizer: a %ux%u view into layer %u of a %ux%ux%u target", view->width,
                         view->height, layer, tg->width, tg->height, tg->layers);
    const int bits = view->depth_bits == 16 ? 16 : 32;
    gl->f.BindFramebuffer(GL_FRAMEBUFFER, gl->layer_fbo);
    if (!gl->layer_depth || gl->layer_width != view->width || gl->layer_height != view->height ||
        gl->layer_depth_bits != bits) {
        if (!gl->layer_depth)
            gl->f.GenRenderbuffers(1, &gl->layer_depth);
        gl->f.BindRenderbuffer(GL_RENDERBUFFER, gl->layer_depth);
        gl->f.RenderbufferStorage(GL_RENDERBUFFER, bits == 16 ? GL_DEPTH_COMPONENT16 : GL_DEPTH_COMPONENT32F,
                                  (GLsizei)view->width, (GLsizei)view->height);
        gl->f.FramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, gl->layer_depth);
        gl->layer_width = view->width, gl->layer_height = view->height, gl->layer_depth_bits = bits;
        const GLenum draw[4] = {GL_COLOR_ATTACHMENT0, GL_NONE, GL_COLOR_ATTACHMENT2, GL_COLOR_ATTACHMENT3};
        gl->f.DrawBuffers(4, draw); /* no normal target: the lookup takes normals from the triangles */
    }
    gl->f.FramebufferTextureLayer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, tg->range, 0, (GLint)layer);
    gl->f.FramebufferTextureLayer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT2, tg->object, 0, (GLint)layer);
    gl->f.FramebufferTextureLayer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT3, tg->primitive, 0, (GLint)layer);
    if ((st = lsim_raster_gl_check(gl, "attaching a view's texture layer")) != LSIM_OK)
        return st;
    const GLenum complete = gl->f.CheckFramebufferStatus(GL_FRAMEBUFFER);
    if (complete != GL_FRAMEBUFFER_COMPLETE)
        return lsim_fail(gl->ctx, LSIM_ERR_ENGINE,
                         "OpenGL rasterizer: the %ux%u layered framebuffer (%d-bit depth, R32F, 2x R32UI texture "
                         "layers) is incomplete (status 0x%x) on %s",
                         view->width, view->height, bits, (unsigned)complete, gl->describe);
    float proj[16];
    lsim_raster_gl_draw(gl, view, proj);
    return lsim_raster_gl_check(gl, "drawing a view into its textures");
}

/* The objects' poses at time t into the pose buffer (only when some object moves and t changed). */
static void upload_poses(lsim_raster_gl *gl, double t)
{
    if (!gl->has_motion || gl->pose_time == t)
        return;
    const size_t n = gl->object_count;
    double pose[12];
    gl->f.BindBuffer(GL_SHADER_STORAGE_BUFFER, gl->pose_buffer);
    for (size_t d = 0; d < gl->draw_count; ++d) {
        const lsim_object *o = &gl->scene->objects[gl->draws[d].object];
        if (!o->motion || gl->draws[d].object >= n)
            continue;
        lsim_motion_pose_at(o->motion, t, pose);
        gl->f.BufferSubData(GL_SHADER_STORAGE_BUFFER, (GLintptr)(12 * sizeof pose[0] * gl->draws[d].object),
                            (GLsizeiptr)sizeof pose, pose);
    }
    gl->pose_time = t;
}

lsim_status lsim_raster_gl_look_up(lsim_raster_gl *gl, const lsim_raster_gl_target *tg,
                                   const lsim_raster_lookup_view *v, const float *rays, size_t n, uint32_t *hits)
{
    if (!gl || !tg || !v || (n && (!rays || !hits)))
        return lsim_fail(gl ? gl->ctx : NULL, LSIM_ERR_INVALID_ARGUMENT, "lsim_raster_gl_look_up: NULL argument");
    if (!gl->lookup_program)
        return lsim_fail(gl->ctx, LSIM_ERR_ENGINE,
                         "OpenGL rasterizer: this context (%s) has no per-beam lookup (compute shaders: OpenGL 4.3)",
                         gl->describe);
    if (!tg->range || tg->width != v->w || tg->height != v->h || tg->layers != (uint32_t)v->faces)
        return lsim_fail(gl->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "OpenGL rasterizer: a lookup in a %ux%ux%d view from a %ux%ux%u target", v->w, v->h, v->faces,
                         tg->width, tg->height, tg->layers);
    lsim_status st = lsim_raster_gl_make_current(gl);
    if (st != LSIM_OK || n == 0)
        return st;
    double frame[FRAME_DOUBLES] = {v->c[0], v->c[1], v->c[2], v->x0, v->x1, v->y0, v->y1};
    for (int k = 0; k < 6; ++k)
        for (int r = 0; r < 3; ++r) {
            frame[7 + 3 * k + r] = v->right[k][r];
            frame[25 + 3 * k + r] = v->up[k][r];
            frame[43 + 3 * k + r] = v->fwd[k][r];
        }
    gl->f.BindBuffer(GL_SHADER_STORAGE_BUFFER, gl->frame_buffer);
    gl->f.BufferSubData(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)sizeof frame, frame);
    upload_poses(gl, v->time);
    gl->f.UseProgram(gl->lookup_program);
    gl->f.Uniform1ui(gl->u_width, v->w);
    gl->f.Uniform1ui(gl->u_height, v->h);
    gl->f.Uniform1ui(gl->u_faces, (GLuint)v->faces);
    gl->f.Uniform1ui(gl->u_object_count, (GLuint)gl->object_count);
    gl->f.Uniform1ui(gl->u_correction, v->normal_correction ? 1u : 0u);
    const GLuint units[3] = {tg->range, tg->object, tg->primitive};
    for (int i = 0; i < 3; ++i) {
        gl->f.ActiveTexture(GL_TEXTURE0 + (GLenum)i);
        gl->f.BindTexture(GL_TEXTURE_2D_ARRAY, units[i]);
    }
    gl->f.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, gl->frame_buffer);
    gl->f.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 3, gl->pose_buffer);
    gl->f.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 4, gl->object_buffer);
    gl->f.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 5, gl->vertex_buffer);
    gl->f.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 6, gl->index_buffer);
    const size_t batch = n < DISPATCH_RAYS ? n : DISPATCH_RAYS;
    if (batch > gl->lookup_capacity) { /* storage once, reused by every later lookup */
        gl->f.BindBuffer(GL_SHADER_STORAGE_BUFFER, gl->ray_buffer);
        gl->f.BufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)(batch * LSIM_RASTER_LOOKUP_RAY * sizeof(float)), NULL,
                         GL_DYNAMIC_DRAW);
        gl->f.BindBuffer(GL_SHADER_STORAGE_BUFFER, gl->hit_buffer);
        gl->f.BufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)(batch * LSIM_RASTER_LOOKUP_HIT * sizeof(uint32_t)),
                         NULL, GL_DYNAMIC_READ);
        gl->lookup_capacity = batch;
    }
    gl->f.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, gl->ray_buffer);
    gl->f.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 7, gl->hit_buffer);
    for (size_t at = 0; at < n; at += DISPATCH_RAYS) {
        const size_t m = n - at < DISPATCH_RAYS ? n - at : DISPATCH_RAYS;
        gl->f.BindBuffer(GL_SHADER_STORAGE_BUFFER, gl->ray_buffer);
        gl->f.BufferSubData(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)(m * LSIM_RASTER_LOOKUP_RAY * sizeof(float)),
                            rays + at * LSIM_RASTER_LOOKUP_RAY);
        gl->f.Uniform1ui(gl->u_ray_count, (GLuint)m);
        gl->f.DispatchCompute((GLuint)((m + LOCAL_SIZE - 1) / LOCAL_SIZE), 1, 1);
        gl->f.MemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
        gl->f.BindBuffer(GL_SHADER_STORAGE_BUFFER, gl->hit_buffer);
        gl->f.GetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)(m * LSIM_RASTER_LOOKUP_HIT * sizeof(uint32_t)),
                               hits + at * LSIM_RASTER_LOOKUP_HIT);
    }
    for (int i = 0; i < 3; ++i) {
        gl->f.ActiveTexture(GL_TEXTURE0 + (GLenum)i);
        gl->f.BindTexture(GL_TEXTURE_2D_ARRAY, 0);
    }
    gl->f.ActiveTexture(GL_TEXTURE0);
    return lsim_raster_gl_check(gl, "the per-beam lookup (compute shader)");
}
