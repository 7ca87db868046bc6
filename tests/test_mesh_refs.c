/* The files a mesh refers to (a glTF's buffers, an OBJ's mtllib) must lie in the mesh's own
 * folder, and no message quotes another file's bytes (issue 23: a glTF whose buffer URI was
 * /etc/passwd loaded as 149 triangles; an OBJ `mtllib /etc/shadow` error quoted that file). */
#include "files.h"
#include "harness.h"

#include "scene/scene.h"

#include "lidarsim.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static lsim_context *ctx;

/* A glTF of one triangle whose buffer is `uri` (36 bytes: three float xyz). */
static void write_gltf(const char *name, const char *uri)
{
    char text[1024];
    snprintf(text, sizeof text,
             "{\"asset\": {\"version\": \"2.0\"}, \"scene\": 0, \"scenes\": [{\"nodes\": [0]}],"
             " \"nodes\": [{\"mesh\": 0}], \"meshes\": [{\"primitives\": [{\"attributes\": {\"POSITION\": 0}}]}],"
             " \"buffers\": [{\"uri\": \"%s\", \"byteLength\": 36}],"
             " \"bufferViews\": [{\"buffer\": 0, \"byteOffset\": 0, \"byteLength\": 36}],"
             " \"accessors\": [{\"bufferView\": 0, \"componentType\": 5126, \"count\": 3, \"type\": \"VEC3\","
             " \"min\": [0, 0, 0], \"max\": [1, 1, 0]}]}\n",
             uri);
    scratch_write_text(name, text);
}

static const float triangle[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};

/* Load `path`; 1 if it loaded (one triangle). */
static int load(const char *path, lsim_status *status)
{
    lsim_object_desc desc;
    lsim_object_desc_init(&desc);
    lsim_object o;
    *status = lsim_mesh_load(ctx, path, &desc, &o);
    if (*status != LSIM_OK)
        return 0;
    int one = o.triangle_count == 1 && o.vertex_count == 3;
    free(o.vertices);
    free(o.indices);
    return one;
}

static void expect_refused(const char *path, const char *reference, const char *secret)
{
    lsim_status st;
    int loaded = load(path, &st);
    const char *msg = lsim_context_last_error(ctx);
    int ok = !loaded && st == LSIM_ERR_PARSE && strstr(msg, "refers to") && strstr(msg, reference) &&
             strstr(msg, "own folder") && (!secret || !strstr(msg, secret));
    if (!ok)
        fprintf(stderr, "%s: status %d: %s\n", path, (int)st, loaded ? "loaded" : msg);
    CHECK(ok);
}

int main(void)
{
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    scratch_make("mesh_refs");
    char dir[4096], path[4096], other[4096];
    snprintf(dir, sizeof dir, "%s", scratch_dir);
    path_join(path, sizeof path, dir, "meshes");
    CHECK(mkdir(path, 0700) == 0);
    char meshes[4096];
    snprintf(meshes, sizeof meshes, "%s", path);

    /* a buffer beside the mesh, and one in the folder above it (a valid buffer: only its place is wrong) */
    scratch_write("meshes/tri.bin", triangle, sizeof triangle);
    scratch_write("outside.bin", triangle, sizeof triangle);
    /* a "secret" file outside the mesh's folder, read as an .mtl it would be quoted */
    const char *secret = "root:SECRET-9f3a:19000:0:99999:7:::";
    char secret_text[256];
    snprintf(secret_text, sizeof secret_text, "%s\nnewmtl %s\nKd 1 1 1\n", secret, secret);
    snprintf(other, sizeof other, "%s", scratch_write_text("shadow", secret_text));

    /* the good ones still load: a glTF with its .bin beside it, an OBJ with its .mtl */
    write_gltf("meshes/good.gltf", "tri.bin");
    scratch_write_text("meshes/good.mtl", "newmtl red\nKd 1 0 0\n");
    scratch_write_text("meshes/good.obj", "mtllib good.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl red\nf 1 2 3\n");
    lsim_status st;
    path_join(path, sizeof path, meshes, "good.gltf");
    CHECK(load(path, &st));
    path_join(path, sizeof path, meshes, "good.obj");
    CHECK(load(path, &st));

    /* a glTF buffer that is /etc/passwd, or ../outside.bin: refused (it loaded as triangles) */
    write_gltf("meshes/passwd.gltf", "/etc/passwd");
    path_join(path, sizeof path, meshes, "passwd.gltf");
    expect_refused(path, "/etc/passwd", NULL);
    write_gltf("meshes/up.gltf", "../outside.bin");
    path_join(path, sizeof path, meshes, "up.gltf");
    expect_refused(path, "../outside.bin", NULL);
    /* a link beside the mesh that leads out */
    char link[4096];
    path_join(link, sizeof link, meshes, "linked.bin");
    path_join(path, sizeof path, dir, "outside.bin");
    CHECK(symlink(path, link) == 0);
    write_gltf("meshes/link.gltf", "linked.bin");
    path_join(path, sizeof path, meshes, "link.gltf");
    expect_refused(path, "linked.bin", NULL);

    /* an OBJ naming the secret file as its mtllib, absolute or by ..: refused, never quoted */
    char obj[4096 + 128];
    snprintf(obj, sizeof obj, "mtllib %s\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", other);
    scratch_write_text("meshes/shadow.obj", obj);
    path_join(path, sizeof path, meshes, "shadow.obj");
    expect_refused(path, other, "SECRET-9f3a");
    scratch_write_text("meshes/shadow_up.obj", "mtllib ../shadow\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    path_join(path, sizeof path, meshes, "shadow_up.obj");
    expect_refused(path, "../shadow", "SECRET-9f3a");

    /* the mesh named from its own folder (the current one): /etc/passwd is still refused */
    char cwd[4096];
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    CHECK(chdir(meshes) == 0);
    expect_refused("passwd.gltf", "/etc/passwd", NULL);
    CHECK(load("good.gltf", &st));
    CHECK(chdir(cwd) == 0);

    /* a file that is not a mesh at all: assimp's message (which may quote it) is not passed on */
    scratch_write_text("meshes/notes.obj", "SECRET-77c1 is not a mesh\nf 9 9 9\n");
    path_join(path, sizeof path, meshes, "notes.obj");
    CHECK(!load(path, &st));
    CHECK(strstr(lsim_context_last_error(ctx), "SECRET-77c1") == NULL);
    CHECK(strstr(lsim_context_last_error(ctx), "notes.obj") != NULL);

    scratch_remove();
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_mesh_refs");
}
