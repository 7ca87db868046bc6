/* Hostile meshes: garbage and truncated PLY/STL/OBJ/OFF, headers lying about counts, NaN/inf
 * vertices, out-of-range indices, an importer that runs out of time or memory. Each must give
 * a clear error naming the file (or a valid mesh), never a crash or a hang; valid files of
 * every format must come back exactly. */
#include "files.h"
#include "harness.h"

#include "core/context.h"
#include "scene/mesh_check.h"
#include "scene/scene.h"

#include "lidarsim.h"

#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static lsim_context *ctx;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Load `name` (already written); return the status, keep the mesh in *o when OK. */
static lsim_status load(const char *name, lsim_object *o)
{
    char path[512];
    path_join(path, sizeof path, scratch_dir, name);
    lsim_object_desc desc;
    lsim_object_desc_init(&desc);
    double t0 = now_s();
    lsim_status st = lsim_mesh_load(ctx, path, &desc, o);
    double dt = now_s() - t0;
    if (dt > lsim_test_time_limit(8.0))
        fprintf(stderr, "%s took %.1f s\n", name, dt);
    CHECK(dt < lsim_test_time_limit(8.0)); /* never a hang: the import limit below is 5 s */
    return st;
}

/* Expect a failure whose message names the file and contains `needle`. */
static void expect_error(const char *name, const char *needle)
{
    lsim_object o;
    lsim_status st = load(name, &o);
    CHECK(st != LSIM_OK);
    if (st == LSIM_OK) {
        fprintf(stderr, "%s: loaded, expected an error with '%s'\n", name, needle);
        free(o.vertices);
        free(o.indices);
        return;
    }
    const char *msg = lsim_context_last_error(ctx);
    int ok = strstr(msg, name) && strstr(msg, needle) && !strstr(msg, "SECRET"); /* never the file's text */
    if (!ok)
        fprintf(stderr, "%s: message '%s' lacks '%s'\n", name, msg, needle);
    CHECK(ok);
}

static const char ply_header_bin[] = "ply\nformat binary_little_endian 1.0\nelement vertex 4\n"
                                     "property float x\nproperty float y\nproperty float z\n"
                                     "element face 2\nproperty list uchar int vertex_indices\nend_header\n";

/* A valid binary PLY square (4 vertices, 2 triangles) into buf; returns its size. */
static size_t square_ply(uint8_t *buf)
{
    size_t n = strlen(ply_header_bin);
    memcpy(buf, ply_header_bin, n);
    const float v[12] = {0, 0, 0, 1, 0, 0, 1, 2, 0, 0, 2, 0.5f};
    memcpy(buf + n, v, sizeof v);
    n += sizeof v;
    const int f[2][3] = {{0, 1, 2}, {0, 2, 3}};
    for (int k = 0; k < 2; ++k) {
        buf[n++] = 3;
        memcpy(buf + n, f[k], sizeof f[k]);
        n += sizeof f[k];
    }
    return n;
}

static void valid_meshes(void)
{
    uint8_t buf[512];
    size_t n = square_ply(buf);
    scratch_write("square.ply", buf, n);
    lsim_object o;
    lsim_status st = load("square.ply", &o);
    CHECK(st == LSIM_OK);
    if (st == LSIM_OK) {
        CHECK(o.triangle_count == 2);
        CHECK(o.vertex_count == 4);
        double zmax = 0, ymax = 0;
        for (size_t i = 0; i < o.vertex_count; ++i) {
            ymax = fmax(ymax, o.vertices[3 * i + 1]);
            zmax = fmax(zmax, o.vertices[3 * i + 2]);
        }
        CHECK_NEAR(ymax, 2.0, 0);
        CHECK_NEAR(zmax, 0.5, 0);
        for (size_t i = 0; i < 3 * o.triangle_count; ++i)
            CHECK(o.indices[i] < o.vertex_count);
        free(o.vertices);
        free(o.indices);
    }
    scratch_write_text("tri.obj", "v 0 0 0\nv 3 0 0\nv 0 4 0\nf 1 2 3\n");
    st = load("tri.obj", &o);
    CHECK(st == LSIM_OK);
    if (st == LSIM_OK) {
        CHECK(o.triangle_count == 1 && o.vertex_count == 3);
        CHECK_NEAR(o.vertices[3], 3.0, 0);
        CHECK_NEAR(o.vertices[7], 4.0, 0);
        free(o.vertices);
        free(o.indices);
    }
    /* binary STL, one triangle */
    uint8_t stl[134];
    memset(stl, 0, sizeof stl);
    stl[80] = 1;
    const float tri[12] = {0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 2, 0};
    memcpy(stl + 84, tri, sizeof tri);
    scratch_write("tri.stl", stl, sizeof stl);
    st = load("tri.stl", &o);
    CHECK(st == LSIM_OK);
    if (st == LSIM_OK) {
        CHECK(o.triangle_count == 1);
        free(o.vertices);
        free(o.indices);
    }
}

static void hostile_ply(void)
{
    uint8_t buf[4096];
    size_t n = square_ply(buf);
    /* truncated in the face lists */
    scratch_write("truncated.ply", buf, n - 5);
    expect_error("truncated.ply", "runs past the end");
    /* truncated in the vertices (fixed-size records) */
    scratch_write("short_vertices.ply", buf, strlen(ply_header_bin) + 20);
    expect_error("short_vertices.ply", "claims 4 records");
    /* a face naming vertex 7 of 4 */
    uint8_t bad[512];
    memcpy(bad, buf, n);
    int seven = 7;
    memcpy(bad + n - 4, &seven, 4);
    scratch_write("bad_index.ply", bad, n);
    expect_error("bad_index.ply", "names vertex 7");
    /* a list length of 255 running past the end */
    memcpy(bad, buf, n);
    bad[strlen(ply_header_bin) + 48] = 255;
    scratch_write("bad_list.ply", bad, n);
    expect_error("bad_list.ply", "runs past the end");
    /* valid header, random bytes (this used to crash or spin in assimp) */
    memcpy(bad, ply_header_bin, strlen(ply_header_bin));
    uint32_t x = 12345;
    for (size_t i = strlen(ply_header_bin); i < 400; ++i) {
        x = x * 1664525u + 1013904223u;
        bad[i] = (uint8_t)(x >> 24);
    }
    scratch_write("garbage.ply", bad, 400);
    expect_error("garbage.ply", "PLY");
    /* headers lying about counts */
    scratch_write_text("huge.ply", "ply\nformat binary_little_endian 1.0\nelement vertex 1000000000\n"
                                   "property float x\nproperty float y\nproperty float z\nend_header\n");
    expect_error("huge.ply", "1000000000");
    scratch_write_text("claims.ply", "ply\nformat binary_little_endian 1.0\nelement vertex 100000\n"
                                     "property float x\nproperty float y\nproperty float z\nend_header\n0123");
    expect_error("claims.ply", "claims 100000 records");
    scratch_write_text("ascii_claims.ply", "ply\nformat ascii 1.0\nelement vertex 100000\nproperty float x\n"
                                           "property float y\nproperty float z\nend_header\n0 0 0\n");
    expect_error("ascii_claims.ply", "only 6 bytes follow");
    scratch_write_text("no_end.ply", "ply\nformat ascii 1.0\nelement vertex 3\n");
    expect_error("no_end.ply", "end_header");
    scratch_write_text("bad_type.ply", "ply\nformat ascii 1.0\nelement vertex 3\nproperty quaternion x\nend_header\n");
    /* the line and what was expected, never the file's own word (issue 23) */
    expect_error("bad_type.ply", ":4: the PLY property line names no known type; expected `property TYPE NAME`");
    scratch_write_text("bad_word.ply", "ply\nformat ascii 1.0\nSECRET-1234 x\nend_header\n");
    expect_error("bad_word.ply", ":3: not a PLY header line; expected `format`");
    scratch_write_text("bad_format.ply", "ply\nformat SECRET-1234 1.0\nend_header\n");
    expect_error("bad_format.ply", ":2: the PLY format line names no known format");
    scratch_write_text("not.ply", "solid nothing\n");
    expect_error("not.ply", "not a PLY file");
}

static void hostile_stl_off_obj(void)
{
    uint8_t stl[184];
    memset(stl, 0, sizeof stl);
    stl[80] = 0x00, stl[81] = 0xCA, stl[82] = 0x9A, stl[83] = 0x3B; /* 10^9 triangles */
    scratch_write("huge.stl", stl, sizeof stl);
    expect_error("huge.stl", "claims 1000000000 triangles");
    scratch_write("short.stl", stl, 40);
    expect_error("short.stl", "84-byte header");
    scratch_write_text("eight.off", "OFF\n1 1\n");
    expect_error("eight.off", "OFF");
    scratch_write_text("short.off", "OFF\n3 1 0");
    expect_error("short.off", "OFF");
    scratch_write_text("index.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 99\n");
    expect_error("index.obj", "index.obj");
    scratch_write_text("nan.obj", "v nan 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    expect_error("nan.obj", "finite");
    scratch_write_text("inf.obj", "v 0 0 0\nv inf 0 0\nv 0 1 0\nf 1 2 3\n");
    expect_error("inf.obj", "finite");
    scratch_write_text("far.obj", "v 0 0 0\nv 1e30 0 0\nv 0 1 0\nf 1 2 3\n");
    expect_error("far.obj", "within +-1e7");
    scratch_write_text("lines.obj", "v 0 0 0\nv 1 0 0\nl 1 2\n");
    expect_error("lines.obj", "no triangles");
    scratch_write_text("garbage.obj", "\x01\x02\x03 garbage \xff\xfe\n");
    expect_error("garbage.obj", "garbage.obj");
    scratch_write_text("empty.stl", "");
    expect_error("empty.stl", "empty");
    /* every truncation of a valid OBJ and ASCII STL: a clear error or a valid mesh, never more */
    static const char obj[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3\nf 2 4 3\n";
    static const char stl_text[] = "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n"
                              "vertex 0 1 0\nendloop\nendfacet\nendsolid t\n";
    const char *texts[2] = {obj, stl_text}, *names[2] = {"cut.obj", "cut.stl"};
    for (int f = 0; f < 2; ++f)
        for (size_t n = 1; n < strlen(texts[f]); n += 7) {
            scratch_write(names[f], texts[f], n);
            lsim_object o;
            if (load(names[f], &o) == LSIM_OK) {
                int ok = o.triangle_count >= 1 && o.triangle_count <= 2;
                for (size_t i = 0; i < 3 * o.triangle_count; ++i)
                    ok &= o.indices[i] < o.vertex_count;
                CHECK(ok);
                free(o.vertices);
                free(o.indices);
            } else {
                CHECK(strstr(lsim_context_last_error(ctx), names[f]) != NULL);
            }
        }
}

/* Inputs found by fuzzing that crash assimp itself (SIGSEGV in its OFF reader, a failed
 * assertion in its PLY reader) pass lidarsim's checks: the child process contains them. */
static void importer_crashes(void)
{
    const char *src = getenv("LSIM_SOURCE_DIR");
    if (!src) {
        fprintf(stderr, "LSIM_SOURCE_DIR is not set\n");
        CHECK(0);
        return;
    }
    const char *names[] = {"assimp_segv.off", "assimp_abort.ply", "assimp_abort.glb"};
    for (int i = 0; i < 3; ++i) {
        char path[1024];
        snprintf(path, sizeof path, "%s/tests/data/mesh/%s", src, names[i]);
        lsim_object_desc desc;
        lsim_object_desc_init(&desc);
        lsim_object o;
        CHECK(lsim_mesh_load(ctx, path, &desc, &o) == LSIM_ERR_PARSE);
        const char *msg = lsim_context_last_error(ctx);
        int ok = strstr(msg, names[i]) && strstr(msg, "importer (assimp) crashed");
        if (!ok)
            fprintf(stderr, "%s: %s\n", names[i], msg);
        CHECK(ok);
    }
    /* 159 bytes that keep assimp busy for minutes (found by fuzzing): stopped at the limit */
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/mesh/assimp_hang.gltf", src);
    REQUIRE_OK(ctx, lsim_context_set_import_limits(ctx, 1.0, 0));
    lsim_object_desc desc;
    lsim_object_desc_init(&desc);
    lsim_object o;
    double t0 = now_s();
    CHECK(lsim_mesh_load(ctx, path, &desc, &o) == LSIM_ERR_PARSE);
    double dt = now_s() - t0;
    CHECK(dt < lsim_test_time_limit(4.0)); /* stopped at the limit, not after assimp's minutes */
    CHECK(strstr(lsim_context_last_error(ctx), "did not finish within 1 s") != NULL);
    REQUIRE_OK(ctx, lsim_context_set_import_limits(ctx, 5, 0));
}

/* The containment itself: an importer over its time or memory limit is stopped, with a
 * message saying which limit and how to raise it. */
static void limits(void)
{
    /* a 200x200-cell grid OBJ: 80,000 triangles, a few MB */
    size_t cap = 8u << 20, n = 0;
    char *text = malloc(cap);
    if (!text)
        abort();
    const int g = 200;
    for (int j = 0; j <= g; ++j)
        for (int i = 0; i <= g; ++i)
            n += (size_t)snprintf(text + n, cap - n, "v %d %d %d\n", i, j, (i * j) % 7);
    for (int j = 0; j < g; ++j)
        for (int i = 0; i < g; ++i) {
            int a = j * (g + 1) + i + 1;
            n += (size_t)snprintf(text + n, cap - n, "f %d %d %d\nf %d %d %d\n", a, a + 1, a + g + 2, a, a + g + 2,
                                  a + g + 1);
        }
    scratch_write("grid.obj", text, n);
    free(text);
    lsim_object o;
    REQUIRE_OK(ctx, lsim_context_set_import_limits(ctx, 0.001, 0));
    expect_error("grid.obj", "did not finish within");
    CHECK(strstr(lsim_context_last_error(ctx), "--import-timeout") != NULL);
#if !defined(__SANITIZE_ADDRESS__)
    REQUIRE_OK(ctx, lsim_context_set_import_limits(ctx, 30, 1e6)); /* 1 MB: far too little */
    expect_error("grid.obj", "memory");
    CHECK(strstr(lsim_context_last_error(ctx), "--import-memory") != NULL);
#endif
    REQUIRE_OK(ctx, lsim_context_set_import_limits(ctx, 60, 0));
    lsim_status st = load("grid.obj", &o);
    CHECK(st == LSIM_OK);
    if (st == LSIM_OK) {
        CHECK(o.triangle_count == 2u * g * g);
        CHECK(o.vertex_count == (size_t)(g + 1) * (g + 1));
        free(o.vertices);
        free(o.indices);
    }
    CHECK(lsim_context_set_import_limits(ctx, -1, 0) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_context_set_import_limits(ctx, NAN, 0) == LSIM_ERR_INVALID_ARGUMENT);
    REQUIRE_OK(ctx, lsim_context_set_import_limits(ctx, 5, 0));
}

/* The checks alone, over bytes: every prefix of a valid binary PLY is refused, never read past. */
static void prefixes(void)
{
    uint8_t buf[512];
    size_t n = square_ply(buf);
    int refused = 0;
    for (size_t k = 0; k < n; ++k) {
        uint8_t *copy = malloc(k ? k : 1); /* exact size: ASan catches any overread */
        memcpy(copy, buf, k);
        refused += lsim_mesh_check_bytes(ctx, "prefix.ply", copy, k) != LSIM_OK;
        free(copy);
    }
    CHECK(refused == (int)n);
    CHECK(lsim_mesh_check_bytes(ctx, "whole.ply", buf, n) == LSIM_OK);
}

/* A FIFO (or a device) named as a mesh is refused at once: opening one for reading used to wait
 * for a writer forever (found by fuzz_dataset: a dataset config's `mesh:` may name any path). */
static void not_regular(void)
{
    char path[512];
    path_join(path, sizeof path, scratch_dir, "pipe.obj");
    CHECK(mkfifo(path, 0600) == 0);
    expect_error("pipe.obj", "not a regular file");
    lsim_object o;
    lsim_object_desc desc;
    lsim_object_desc_init(&desc);
    CHECK(lsim_mesh_load(ctx, "/dev/null", &desc, &o) != LSIM_OK);
    CHECK(strstr(lsim_context_last_error(ctx), "not a regular file") != NULL);
}

int main(void)
{
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    REQUIRE_OK(ctx, lsim_context_set_import_limits(ctx, 5, 0));
    scratch_make("mesh_hostile");
    valid_meshes();
    hostile_ply();
    hostile_stl_off_obj();
    limits();
    prefixes();
    not_regular();
    importer_crashes();
    scratch_remove();
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_mesh_hostile");
}
