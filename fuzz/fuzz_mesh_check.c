/* The mesh checks alone (PLY/STL/OFF headers and binary PLY walk), in process under ASan:
 * the full import path (fuzz_mesh) forks per input and runs without ASan for speed, so its
 * in-process part gets this harness too. The first byte picks the extension. */
#include "fuzz_common.h"

#include "scene/mesh_check.h"

#include "lidarsim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[] = {"m.ply", "m.stl", "m.obj", "m.off", "m.gltf", "m.glb"};
    if (size < 1)
        return 0;
    lsim_context *ctx;
    if (lsim_context_create(&ctx) != LSIM_OK)
        return 0;
    /* an exact-size copy, so that any read past the end is caught */
    uint8_t *copy = malloc(size - 1 ? size - 1 : 1);
    if (copy) {
        memcpy(copy, data + 1, size - 1);
        lsim_status st = lsim_mesh_check_bytes(ctx, names[data[0] % 6], copy, size - 1);
        if (st != LSIM_OK && !lsim_context_last_error(ctx)[0])
            abort();
        free(copy);
    }
    lsim_context_destroy(ctx);
    return 0;
}
