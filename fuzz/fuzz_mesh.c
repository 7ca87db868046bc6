/* Mesh import through lidarsim's own wrapper (checks, contained assimp child, re-checks).
 * The first byte picks the format (extension), the rest is the file. */
#include "fuzz_common.h"

#include "core/context.h"
#include "scene/scene.h"

/* 1 if the message says the importer crashed, hung or died (not an error text of assimp's that
 * merely quotes such words from the file). */
static int contained(const char *msg, const char *path)
{
    char head[600];
    snprintf(head, sizeof head, "mesh '%s': the importer (assimp) ", path);
    size_t n = strlen(head);
    return strncmp(msg, head, n) == 0 &&
           (strncmp(msg + n, "crashed", 7) == 0 || strncmp(msg + n, "did not finish", 14) == 0 ||
            strncmp(msg + n, "stopped without", 15) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[] = {"m.ply", "m.stl", "m.obj", "m.off", "m.gltf", "m.glb"};
    if (size < 1)
        return 0;
    fuzz_scratch();
    const char *name = names[data[0] % (sizeof names / sizeof names[0])];
    fuzz_put(name, data + 1, size - 1);
    lsim_context *ctx;
    if (lsim_context_create(&ctx) != LSIM_OK)
        return 0;
    lsim_context_set_import_limits(ctx, 1, 512e6); /* hangs cost 1 s each */
    lsim_object_desc desc;
    lsim_object_desc_init(&desc);
    lsim_object o;
    lsim_status st = lsim_mesh_load(ctx, fuzz_path(name), &desc, &o);
    if (st == LSIM_OK) {
        for (size_t i = 0; i < 3 * o.triangle_count; ++i)
            if (o.indices[i] >= o.vertex_count)
                abort();
        free(o.vertices);
        free(o.indices);
    } else if (!lsim_context_last_error(ctx)[0]) {
        abort();
    } else if (getenv("FUZZ_CONTAINED_DIR") && contained(lsim_context_last_error(ctx), fuzz_path(name))) {
        /* the importer died or hung and lidarsim contained it: keep the input for the record */
        char path[600];
        snprintf(path, sizeof path, "%s/%s-%zu-%08x", getenv("FUZZ_CONTAINED_DIR"), name, size,
                 (unsigned)(size ? data[size / 2] * 2654435761u + size : 0));
        FILE *f = fopen(path, "wb");
        if (f) {
            fwrite(data + 1, 1, size - 1, f);
            fclose(f);
        }
    }
    lsim_context_destroy(ctx);
    return 0;
}
