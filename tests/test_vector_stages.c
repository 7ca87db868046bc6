/* The per-beam stages that run in vectors give the scalar code's bits: the first Philox block of a
 * run of beams, AVX2 against the scalar generator (across a 2^32 carry of the beam counter too);
 * the facing normals of a slice against lsim_facing_normal (random normals, seen from either side,
 * degenerate and NaN ones); and a whole frame's points are the same on 1 and 2 threads. */
#include "harness.h"

#include "core/rng.h"
#include "core/rng_block.h"
#include "optics/path.h"
#include "optics/path_math.h"
#include "points/points.h"

#include <lidarsim.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int same_blocks(uint64_t seed, uint32_t frame, uint64_t first, size_t n, int vector)
{
    uint32_t *w = malloc(4 * n * sizeof *w);
    if (!w)
        return 0;
    lsim_rng_blocks b = {{w, w + n, w + 2 * n, w + 3 * n}};
    lsim_rng_first_blocks(seed, frame, first, n, &b, vector);
    int ok = 1;
    for (size_t j = 0; j < n; ++j) {
        const lsim_u32x4 r = lsim_rng_words(seed, frame, first + j, 0);
        for (int k = 0; k < 4; ++k)
            ok &= b.w[k][j] == r.v[k];
        /* the resumed stream goes on with draw 1, as the scalar stream does */
        lsim_rng_stream a = lsim_rng_stream_make(seed, frame, first + j);
        lsim_rng_stream c = lsim_rng_stream_resume(seed, frame, first + j, b.w[0][j], b.w[1][j], b.w[2][j], b.w[3][j]);
        for (int k = 0; k < 9; ++k)
            ok &= lsim_rng_stream_u32(&a) == lsim_rng_stream_u32(&c);
    }
    free(w);
    return ok;
}

static uint32_t bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

int main(void)
{
    printf("AVX2 Philox blocks on this CPU: %s\n", lsim_rng_blocks_vectorized() ? "yes" : "no (scalar only)");
    CHECK(same_blocks(42, 3, 0, 2048, 1));
    CHECK(same_blocks(42, 3, 0, 2048, 0));
    CHECK(same_blocks(0xDEADBEEFCAFEull, 7, 1000003, 1021, 1));        /* a tail of 5 past the last vector */
    CHECK(same_blocks(1, 0, 0xFFFFFFFFull - 12, 64, 1));               /* the beam counter's high word steps */
    CHECK(same_blocks(9, 0xFFFFFFFFu, 0xFFFFFFFFFFFFFF00ull, 200, 1)); /* near the top of 64 bits */

    /* facing normals: random geometric normals of random length, from random directions */
    enum { N = 4099 };
    static float ngx[N], ngy[N], ngz[N], dx[N], dy[N], dz[N], nx[N], ny[N], nz[N], ct[N];
    for (size_t i = 0; i < N; ++i) {
        const lsim_u32x4 r = lsim_rng_words(5, 0, i, 0), q = lsim_rng_words(5, 1, i, 0);
        ngx[i] = lsim_u32_to_open01f(r.v[0]) * 4.0f - 2.0f;
        ngy[i] = lsim_u32_to_open01f(r.v[1]) * 4.0f - 2.0f;
        ngz[i] = lsim_u32_to_open01f(r.v[2]) * 4.0f - 2.0f;
        float d[3] = {lsim_u32_to_open01f(q.v[0]) - 0.5f, lsim_u32_to_open01f(q.v[1]) - 0.5f,
                      lsim_u32_to_open01f(q.v[2]) - 0.5f};
        lsim_normalize3f(d);
        dx[i] = d[0];
        dy[i] = d[1];
        dz[i] = d[2];
    }
    ngx[0] = ngy[0] = ngz[0] = 0.0f; /* a miss: no normal */
    ngx[1] = NAN;                    /* NaN in, as lsim_facing_normal gives it */
    ngx[2] = -dx[2] * 3.0f;          /* head-on: cos 1 */
    ngy[2] = -dy[2] * 3.0f;
    ngz[2] = -dz[2] * 3.0f;
    lsim_facing_normals(ngx, ngy, ngz, dx, dy, dz, N, nx, ny, nz, ct);
    size_t differ = 0, behind = 0;
    for (size_t i = 0; i < N; ++i) {
        const float ng[3] = {ngx[i], ngy[i], ngz[i]}, dir[3] = {dx[i], dy[i], dz[i]};
        float n[3];
        const float c = lsim_facing_normal(ng, dir, n);
        differ += bits(c) != bits(ct[i]) || bits(n[0]) != bits(nx[i]) || bits(n[1]) != bits(ny[i]) ||
                  bits(n[2]) != bits(nz[i]);
        behind += (ngx[i] * dx[i] + ngy[i] * dy[i] + ngz[i] * dz[i]) > 0.0f;
    }
    printf("facing normals: %zu of %d differ from lsim_facing_normal (%zu seen from behind)\n", differ, N, behind);
    CHECK(differ == 0);
    CHECK(behind > N / 4 && behind < 3 * N / 4);
    CHECK(ct[0] == 0.0f && ct[2] == 1.0f);

    /* a whole frame, noise on: 1 and 2 threads give the same bytes (blocks cut differently) */
    lsim_context *ctx = NULL;
    lsim_scene *scene = NULL;
    lsim_sensor *sensor = NULL;
    lsim_points *p1 = NULL, *p2 = NULL;
    CHECK(lsim_context_create(&ctx) == LSIM_OK);
    CHECK(lsim_scene_create(ctx, &scene) == LSIM_OK);
    const float verts[] = {-20, -20, -3, 20, -20, -3, 20, 20, -3, -20, 20, -3, -20, 8, -3, 20, 8, -3, 20, 8, 9, -20, 8, 9};
    const uint32_t tris[] = {0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7};
    lsim_object_desc desc;
    lsim_object_desc_init(&desc);
    REQUIRE_OK(ctx, lsim_scene_add_triangles(scene, verts, 8, tris, 4, &desc));
    CHECK(lsim_scene_commit(scene) == LSIM_OK);
    CHECK(lsim_sensor_create_preset(ctx, "os1-64", &sensor) == LSIM_OK);
    lsim_scan_options o;
    lsim_scan_options_init(&o);
    o.seed = 11;
    o.threads = 1;
    CHECK(lsim_scene_scan(scene, sensor, &o, &p1) == LSIM_OK);
    o.threads = 2;
    CHECK(lsim_scene_scan(scene, sensor, &o, &p2) == LSIM_OK);
    const size_t n1 = p1 ? lsim_points_count(p1) : 0, n2 = p2 ? lsim_points_count(p2) : 1;
    printf("frame: %zu points on 1 thread, %zu on 2\n", n1, n2);
    CHECK(n1 > 10000 && n1 == n2);
    for (int f = 0; n1 == n2 && f < LSIM_FIELD_COUNT; ++f) {
        const void *a = lsim_points_column(p1, (lsim_field)f), *b = lsim_points_column(p2, (lsim_field)f);
        CHECK(a && b && memcmp(a, b, n1 * lsim_field_size((lsim_field)f)) == 0);
    }
    lsim_points_destroy(p1);
    lsim_points_destroy(p2);
    lsim_sensor_destroy(sensor);
    lsim_scene_destroy(scene);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_vector_stages");
}
