/* Beam divergence and blooming (pbr paper §II): Alg. 1 (beam iteration) = Alg. 2 (range
 * stacking) beam by beam; a retroreflective patch blooms (more with a brighter patch or a higher
 * halo) while a Lambertian patch of the same shape does not; closed forms with a delta kernel;
 * kernel orientation; rows that share their pixels (the kernel mode's two scales); kernel files
 * (separable and 2-D, round trips, every malformed kind named by file:line, random garbage); the
 * dim-slice skip never changes a result. */
#include "harness.h"
#include "files.h"

#include "lidarsim.h"
#include "optics/blooming.h"

#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


/* ------------------------------------------------------------------ helpers */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static double rnd(void) /* deterministic uniform [0, 1) */
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

typedef struct img {
    int U, V;
    float *I, *R;
} img;

static img img_make(int U, int V)
{
    img m = {U, V, calloc((size_t)U * V, sizeof(float)), calloc((size_t)U * V, sizeof(float))};
    if (!m.I || !m.R)
        exit(1);
    return m;
}

static void img_free(img *m)
{
    free(m->I);
    free(m->R);
}

static void img_rect(img *m, int u0, int u1, int v0, int v1, float intensity, float range)
{
    for (int v = v0; v <= v1; ++v)
        for (int u = u0; u <= u1; ++u) {
            m->I[(size_t)v * m->U + u] = intensity;
            m->R[(size_t)v * m->U + u] = range;
        }
}

static lsim_bloom_image img_view(const img *m, double step)
{
    lsim_bloom_image im = {m->U, m->V, 0.0, 0.0, step, m->I, m->R, NULL, 0};
    return im;
}

typedef struct beams {
    size_t n;
    float *u, *v, *r1, *p1, *r2, *p2;
} beams;

static beams beams_alloc(size_t n)
{
    beams b = {n, malloc(n * 4), malloc(n * 4), malloc(n * 4), malloc(n * 4), malloc(n * 4), malloc(n * 4)};
    if (!b.u || !b.v || !b.r1 || !b.p1 || !b.r2 || !b.p2)
        exit(1);
    return b;
}

static void beams_free(beams *b)
{
    free(b->u);
    free(b->v);
    free(b->r1);
    free(b->p1);
    free(b->r2);
    free(b->p2);
}

/* One beam per pixel of the image. */
static beams beams_every_pixel(const img *m)
{
    beams b = beams_alloc((size_t)m->U * m->V);
    for (int v = 0; v < m->V; ++v)
        for (int u = 0; u < m->U; ++u) {
            b.u[(size_t)v * m->U + u] = (float)u;
            b.v[(size_t)v * m->U + u] = (float)v;
        }
    return b;
}

/* Run both algorithms; count beams where they differ (slice or power beyond 1e-5 relative). */
static size_t run_both(lsim_context *ctx, const lsim_bloom_image *im, const lsim_kernel *k,
                       const lsim_bloom_params *par, beams *b, lsim_bloom_stats *s2)
{
    REQUIRE_OK(ctx, lsim_bloom_nearest(ctx, LSIM_BLOOM_BEAM_ITERATION, im, k, par, b->n, b->u, b->v, b->r1, b->p1));
    REQUIRE_OK(ctx, lsim_bloom_nearest_stats(ctx, LSIM_BLOOM_RANGE_STACKING, im, k, par, b->n, b->u, b->v, b->r2,
                                             b->p2, s2));
    size_t bad = 0;
    for (size_t i = 0; i < b->n; ++i) {
        double rel = b->p1[i] == b->p2[i] ? 0.0 : fabs((double)b->p1[i] - b->p2[i]) / fabs((double)b->p1[i]);
        if (b->r1[i] != b->r2[i] || !(rel <= 1e-5)) {
            if (bad < 5)
                fprintf(stderr, "beam %zu at (%g, %g): alg1 %g m %g, alg2 %g m %g\n", i, b->u[i], b->v[i], b->r1[i],
                        b->p1[i], b->r2[i], b->p2[i]);
            ++bad;
        }
    }
    return bad;
}



/* ------------------------------------------------------------------ scenes */

#define WALL_RANGE 50.0f
#define PATCH_RANGE 30.0f
#define WALL_I 1e-3f
#define THRESHOLD 6e-4
/* the patch: 20 x 10 px in the middle of a 400 x 100 image at 0.05 deg */
#define PU0 190
#define PU1 209
#define PV0 45
#define PV1 54

static img wall_with_patch(float patch_intensity)
{
    img m = img_make(400, 100);
    for (int v = 0; v < m.V; ++v)
        for (int u = 0; u < m.U; ++u) {
            m.I[(size_t)v * m.U + u] = WALL_I * (float)(0.9 + 0.2 * rnd()); /* textured Lambertian wall */
            m.R[(size_t)v * m.U + u] = WALL_RANGE + (float)(0.1 * rnd());
        }
    img_rect(&m, PU0, PU1, PV0, PV1, patch_intensity, PATCH_RANGE);
    return m;
}

static lsim_bloom_params params_default(int threads)
{
    lsim_bloom_params p = {0.5, 100.0, THRESHOLD, threads, 0};
    return p;
}

/* ------------------------------------------------------------------ (a) Alg. 1 = Alg. 2 */

static void test_algorithms_agree(lsim_context *ctx)
{
    img m = wall_with_patch(1.0f);
    /* more structure: a nearer Lambertian box, a sloping ground, sky, a dim far object */
    img_rect(&m, 50, 80, 20, 60, 2e-3f, 20.0f);
    for (int v = 0; v < 20; ++v)
        for (int u = 0; u < m.U; ++u) {
            m.I[(size_t)v * m.U + u] = (float)(3e-3 * (0.5 + rnd()));
            m.R[(size_t)v * m.U + u] = (float)(8.0 + 1.9 * v + 0.3 * rnd());
        }
    img_rect(&m, 0, 399, 90, 99, 0.0f, 0.0f);
    img_rect(&m, 300, 340, 60, 80, 1e-5f, 95.0f);
    img_rect(&m, 360, 365, 70, 72, 1e-2f, 101.0f); /* beyond max_range: ignored by both */
    const lsim_bloom_image im = img_view(&m, 0.05);
    lsim_kernel k;
    REQUIRE_OK(ctx, lsim_kernel_parametric(ctx, 0.15, 1e-3, 1.0, 0.05, &k));
    CHECK(k.half_u == 20 && k.half_v == 20);
    lsim_bloom_params par = params_default(2);
    beams b = beams_every_pixel(&m);
    lsim_bloom_stats st;
    CHECK(run_both(ctx, &im, &k, &par, &b, &st) == 0);
    CHECK(st.slices_total == 201);
    CHECK(st.slices_processed > 0 && st.slices_processed < st.slices_occupied);
    size_t echoes = 0;
    for (size_t i = 0; i < b.n; ++i)
        echoes += b.p1[i] > 0.0f;
    CHECK(echoes == st.echoes && echoes > b.n / 2);
    /* thread count does not change the result */
    float *r3 = malloc(b.n * 4), *p3 = malloc(b.n * 4);
    for (int threads = 1; threads <= 3; threads += 2) {
        par.threads = threads;
        for (int alg = 1; alg <= 2; ++alg) {
            REQUIRE_OK(ctx, lsim_bloom_nearest(ctx, (lsim_bloom_algorithm)alg, &im, &k, &par, b.n, b.u, b.v, r3, p3));
            CHECK(memcmp(r3, alg == 1 ? b.r1 : b.r2, b.n * 4) == 0);
            CHECK(memcmp(p3, alg == 1 ? b.p1 : b.p2, b.n * 4) == 0);
        }
    }
    free(r3);
    free(p3);
    beams_free(&b);

    /* beams between pixels, near and outside the border, and non-finite */
    beams c = beams_alloc(4000);
    for (size_t i = 0; i < 3990; ++i) {
        c.u[i] = (float)(-40.0 + 480.0 * rnd());
        c.v[i] = (float)(-30.0 + 160.0 * rnd());
    }
    const float odd_u[10] = {NAN, INFINITY, -INFINITY, 1e30f, -1e30f, 10.5f, 10.49f, -20.4f, -20.6f, 419.4f};
    for (size_t i = 0; i < 10; ++i) {
        c.u[3990 + i] = odd_u[i];
        c.v[3990 + i] = 50.0f;
    }
    par.threads = 2;
    CHECK(run_both(ctx, &im, &k, &par, &c, &st) == 0);
    for (size_t i = 3990; i < 3995; ++i)
        CHECK(c.r1[i] == 0.0f && c.p1[i] == 0.0f);
    CHECK(c.r1[3995] > 0.0f && c.r1[3996] > 0.0f); /* 10.5 -> pixel 11, 10.49 -> 10: both on the wall */
    CHECK(c.p1[3997] == 0.0f); /* -20.4 -> -20: only the kernel's faint edge touches column 0 */
    CHECK(c.r1[3998] == 0.0f && c.p1[3998] == 0.0f); /* -20.6 -> -21: window misses the image */
    CHECK(c.r1[3999] == 0.0f);                       /* 419.4 -> 419: window misses the image */
    beams_free(&c);

    /* an asymmetric kernel from a file, random ranges over many slices */
    const char *path = scratch_write_text("asym.kernel", "separable\nstep_deg: 0.05\n"
                                                 "h: 0.01 0.02 0.05 0.3 1 0.2 0.1 0.001 0.0001\n"
                                                 "v: 0.003 0.5 1 0.05 0.2\n");
    lsim_kernel ka;
    REQUIRE_OK(ctx, lsim_kernel_read(ctx, path, &ka));
    remove(path);
    img n = img_make(120, 70);
    for (size_t p = 0; p < (size_t)n.U * n.V; ++p) {
        double x = rnd();
        n.I[p] = x < 0.1 ? 0.0f : (float)(x < 0.97 ? 1e-3 * rnd() : 0.5 * rnd());
        n.R[p] = (float)(120.0 * rnd() - 10.0); /* some negative: no target */
    }
    const lsim_bloom_image imn = img_view(&n, 0.05);
    beams d = beams_every_pixel(&n);
    lsim_bloom_params pn = {0.25, 100.0, 2e-4, 2, 0};
    CHECK(run_both(ctx, &imn, &ka, &pn, &d, &st) == 0);
    CHECK(st.slices_occupied > 350);
    pn.keep_dim_slices = 1;
    CHECK(run_both(ctx, &imn, &ka, &pn, &d, &st) == 0);
    CHECK(st.slices_processed == st.slices_occupied);
    beams_free(&d);
    img_free(&n);
    lsim_kernel_free(&ka);
    lsim_kernel_free(&k);
    img_free(&m);
}

/* ------------------------------------------------------------------ (a') rows that share pixels */

/* An image whose rows share their pixels in runs of 1..6 (the kernel mode's coarse halo rows): both
 * algorithms agree on it, on 1 and 3 threads alike, and give what they give on the same image with
 * every row stored (each run's row repeated), to rounding; a malformed row map is refused. */
static void test_shared_rows(lsim_context *ctx)
{
    const int U = 160, V = 90;
    int32_t row[90];
    int stored = 0;
    for (int r = 0; r < V;) {
        const int len = 1 + (int)(6.0 * rnd());
        for (int i = 0; i < len && r < V; ++i)
            row[r++] = stored;
        ++stored;
    }
    img s = img_make(U, stored), full = img_make(U, V);
    img_rect(&full, 0, U - 1, 0, V - 1, 0.0f, 0.0f);
    for (size_t p = 0; p < (size_t)U * (size_t)stored; ++p) {
        const double x = rnd();
        s.I[p] = x < 0.15 ? 0.0f : (float)(x < 0.97 ? 1e-3 * rnd() : 0.5 * rnd());
        s.R[p] = (float)(20.0 + 60.0 * rnd());
    }
    for (int r = 0; r < V; ++r) {
        memcpy(full.I + (size_t)r * U, s.I + (size_t)row[r] * U, (size_t)U * sizeof(float));
        memcpy(full.R + (size_t)r * U, s.R + (size_t)row[r] * U, (size_t)U * sizeof(float));
    }
    lsim_bloom_image im = img_view(&s, 0.05);
    im.height = V;
    im.row = row;
    im.stored_rows = stored;
    const lsim_bloom_image imf = img_view(&full, 0.05);
    lsim_kernel k;
    REQUIRE_OK(ctx, lsim_kernel_parametric(ctx, 0.15, 1e-3, 1.0, 0.05, &k));
    lsim_bloom_params par = {0.5, 100.0, 2e-4, 2, 0};
    beams b = beams_alloc(3000);
    for (size_t i = 0; i < b.n; ++i) {
        b.u[i] = (float)(-25.0 + 210.0 * rnd());
        b.v[i] = (float)(-25.0 + 140.0 * rnd());
    }
    lsim_bloom_stats st;
    CHECK(run_both(ctx, &im, &k, &par, &b, &st) == 0);
    CHECK(st.echoes > b.n / 4);
    beams c = beams_alloc(b.n);
    memcpy(c.u, b.u, b.n * 4);
    memcpy(c.v, b.v, b.n * 4);
    CHECK(run_both(ctx, &imf, &k, &par, &c, NULL) == 0);
    size_t differ = 0;
    for (size_t i = 0; i < b.n; ++i)
        differ += b.r2[i] != c.r2[i] || fabs((double)b.p2[i] - c.p2[i]) > 1e-5 * fabs((double)c.p2[i]);
    printf("shared rows: %d rows in %d stored; %zu echoes; %zu beams differ from the full image\n", V, stored,
           st.echoes, differ);
    CHECK(differ == 0);
    float *r3 = malloc(b.n * 4), *p3 = malloc(b.n * 4);
    for (int threads = 1; threads <= 3; threads += 2) {
        par.threads = threads;
        for (int alg = 1; alg <= 2; ++alg) {
            REQUIRE_OK(ctx, lsim_bloom_nearest(ctx, (lsim_bloom_algorithm)alg, &im, &k, &par, b.n, b.u, b.v, r3, p3));
            CHECK(memcmp(r3, alg == 1 ? b.r1 : b.r2, b.n * 4) == 0);
            CHECK(memcmp(p3, alg == 1 ? b.p1 : b.p2, b.n * 4) == 0);
        }
    }
    free(r3);
    free(p3);
    /* malformed maps: a skipped stored row, a wrong count, a start past 0 */
    int32_t bad[90];
    memcpy(bad, row, sizeof bad);
    bad[V - 1] = row[V - 1] + 1;
    im.row = bad;
    CHECK(lsim_bloom_nearest(ctx, LSIM_BLOOM_BEAM_ITERATION, &im, &k, &par, 1, b.u, b.v, b.r1, b.p1) ==
          LSIM_ERR_INVALID_ARGUMENT);
    im.row = row;
    im.stored_rows = stored + 1;
    CHECK(lsim_bloom_nearest(ctx, LSIM_BLOOM_RANGE_STACKING, &im, &k, &par, 1, b.u, b.v, b.r1, b.p1) ==
          LSIM_ERR_INVALID_ARGUMENT);
    im.stored_rows = stored;
    memcpy(bad, row, sizeof bad);
    bad[0] = 1;
    im.row = bad;
    CHECK(lsim_bloom_nearest(ctx, LSIM_BLOOM_RANGE_STACKING, &im, &k, &par, 1, b.u, b.v, b.r1, b.p1) ==
          LSIM_ERR_INVALID_ARGUMENT);
    beams_free(&b);
    beams_free(&c);
    lsim_kernel_free(&k);
    img_free(&s);
    img_free(&full);
}

/* ------------------------------------------------------------------ (b) blooming */

/* Beams (one per pixel) outside the patch that report the patch's range; the farthest one's
 * distance to the patch in pixels (Chebyshev) into *reach. */
static size_t bloomed_beams(lsim_context *ctx, float patch_intensity, double halo_level, int *reach)
{
    img m = wall_with_patch(patch_intensity);
    const lsim_bloom_image im = img_view(&m, 0.05);
    lsim_kernel k;
    REQUIRE_OK(ctx, lsim_kernel_parametric(ctx, 0.15, halo_level, 1.0, 0.05, &k));
    lsim_bloom_params par = params_default(2);
    beams b = beams_every_pixel(&m);
    lsim_bloom_stats st;
    CHECK(run_both(ctx, &im, &k, &par, &b, &st) == 0);
    const float patch_r = (float)((floor(PATCH_RANGE / 0.5) + 0.5) * 0.5);
    size_t count = 0, inside = 0;
    *reach = 0;
    for (int v = 0; v < m.V; ++v)
        for (int u = 0; u < m.U; ++u) {
            const size_t i = (size_t)v * m.U + u;
            const int in = u >= PU0 && u <= PU1 && v >= PV0 && v <= PV1;
            if (b.r1[i] != patch_r)
                continue;
            if (in) {
                ++inside;
                continue;
            }
            ++count;
            int du = u < PU0 ? PU0 - u : u > PU1 ? u - PU1 : 0, dv = v < PV0 ? PV0 - v : v > PV1 ? v - PV1 : 0;
            int d = du > dv ? du : dv;
            if (d > *reach)
                *reach = d;
        }
    CHECK(inside > 0); /* the patch itself is seen */
    beams_free(&b);
    lsim_kernel_free(&k);
    img_free(&m);
    return count;
}

static void test_blooming(lsim_context *ctx)
{
    int reach_base, reach_bright, reach_halo, reach_lamb;
    const size_t base = bloomed_beams(ctx, 1.0f, 1e-3, &reach_base);       /* 1000 x the wall */
    const size_t bright = bloomed_beams(ctx, 10.0f, 1e-3, &reach_bright);  /* brighter sign */
    const size_t halo = bloomed_beams(ctx, 1.0f, 1e-2, &reach_halo);       /* wider halo */
    const size_t lamb = bloomed_beams(ctx, WALL_I, 1e-2, &reach_lamb);     /* Lambertian sign */
    printf("bloomed beams: base %zu (reach %d px), brighter %zu (%d px), higher halo %zu (%d px), lambertian %zu\n",
           base, reach_base, bright, reach_bright, halo, reach_halo, lamb);
    CHECK(base > 0);
    CHECK(reach_base >= 2); /* beyond the pixel next to the contour */
    CHECK(bright > base && reach_bright > reach_base);
    CHECK(halo > base && reach_halo > reach_base);
    CHECK(reach_bright > 6); /* well outside the core (FWHM 3 px): the halo blooms */
    CHECK(lamb == 0);
}

/* ------------------------------------------------------------------ (c) closed forms */

static void test_delta_and_orientation(lsim_context *ctx)
{
    img m = img_make(9, 7);
    const float I0 = 0.37f;
    m.I[3 * 9 + 4] = I0;
    m.R[3 * 9 + 4] = 12.3f;
    const lsim_bloom_image im = img_view(&m, 0.1);
    float hk = 1.0f, vk = 1.0f;
    const lsim_kernel delta = {0, 0, 0.1, &hk, &vk};
    lsim_bloom_params par = {0.5, 50.0, 0.1, 1, 0};
    const float bu[4] = {4.0f, 3.0f, 4.0f, 4.2f}, bv[4] = {3.0f, 3.0f, 4.0f, 2.8f};
    float r[4], p[4];
    for (int alg = 1; alg <= 2; ++alg) {
        REQUIRE_OK(ctx, lsim_bloom_nearest(ctx, (lsim_bloom_algorithm)alg, &im, &delta, &par, 4, bu, bv, r, p));
        CHECK(p[0] == I0);                 /* xi = the pixel's intensity */
        CHECK_NEAR(r[0], 12.25, 1e-6);     /* centre of slice floor(12.3 / 0.5) = 24 */
        CHECK(p[1] == 0.0f && r[1] == 0.0f);
        CHECK(p[2] == 0.0f && r[2] == 0.0f);
        CHECK(p[3] == I0);                 /* rounded to the pixel */
    }
    /* exactly at the threshold: an echo (xi >= threshold); just below: none (and the slice is skipped) */
    par.threshold = I0;
    lsim_bloom_stats st;
    for (int alg = 1; alg <= 2; ++alg) {
        REQUIRE_OK(ctx, lsim_bloom_nearest_stats(ctx, (lsim_bloom_algorithm)alg, &im, &delta, &par, 1, bu, bv, r, p,
                                                 &st));
        CHECK(p[0] == I0);
        if (alg == 2)
            CHECK(st.slices_processed == 1);
    }
    par.threshold = nextafter((double)I0, 1.0); /* within the skip bound's rounding margin: processed */
    for (int alg = 1; alg <= 2; ++alg) {
        REQUIRE_OK(ctx, lsim_bloom_nearest_stats(ctx, (lsim_bloom_algorithm)alg, &im, &delta, &par, 1, bu, bv, r, p,
                                                 &st));
        CHECK(p[0] == 0.0f && r[0] == 0.0f);
        if (alg == 2)
            CHECK(st.slices_processed == 1 && st.slices_occupied == 1);
    }
    par.threshold = (double)I0 * (1.0 + 1e-6); /* beyond it: skipped */
    for (int alg = 1; alg <= 2; ++alg) {
        REQUIRE_OK(ctx, lsim_bloom_nearest_stats(ctx, (lsim_bloom_algorithm)alg, &im, &delta, &par, 1, bu, bv, r, p,
                                                 &st));
        CHECK(p[0] == 0.0f && r[0] == 0.0f);
        if (alg == 2)
            CHECK(st.slices_processed == 0 && st.slices_occupied == 1);
    }

    /* orientation: weight of pixel offset (m, n) from the beam is h[m + half_u] v[n + half_v] */
    float h3[5] = {0.01f, 0.02f, 0.5f, 0.03f, 0.04f}, v3[3] = {0.1f, 0.6f, 0.2f};
    const lsim_kernel asym = {2, 1, 0.1, h3, v3};
    par.threshold = 1e-9;
    /* beam (2, 4): pixel (4, 3) is at offset m = +2, n = -1 */
    const float cu[2] = {2.0f, 5.0f}, cv[2] = {4.0f, 3.0f};
    for (int alg = 1; alg <= 2; ++alg) {
        REQUIRE_OK(ctx, lsim_bloom_nearest(ctx, (lsim_bloom_algorithm)alg, &im, &asym, &par, 2, cu, cv, r, p));
        CHECK(p[0] == (float)((double)I0 * h3[4] * v3[0]));
        CHECK(p[1] == (float)((double)I0 * h3[1] * v3[1])); /* beam (5, 3): m = -1, n = 0 */
    }
    img_free(&m);
}

/* ------------------------------------------------------------------ (d) kernels */

static void test_parametric(lsim_context *ctx)
{
    lsim_kernel k;
    REQUIRE_OK(ctx, lsim_kernel_parametric(ctx, 0.2, 1e-4, 3.0, 0.05, &k));
    CHECK(k.half_u == 60 && k.half_v == 60 && k.step_deg == 0.05);
    double sh = 0.0, sv = 0.0;
    for (int i = 0; i <= 120; ++i) {
        sh += k.h[i];
        sv += k.v[i];
        CHECK(k.h[i] == k.h[120 - i]);
        CHECK(k.h[i] > 0.0f && k.h[i] <= k.h[60]);
    }
    CHECK_NEAR(sh, 1.0, 1e-5);
    CHECK_NEAR(sv, 1.0, 1e-5);
    /* at the halo extent: 1e-2 of the halo level (relative to the core's peak) */
    CHECK_NEAR(k.h[0] / k.h[60], 1e-6, 1e-8);
    /* core: half maximum at FWHM / 2 = 0.1 deg = 2 samples */
    CHECK_NEAR(k.h[62] / k.h[60], 0.5, 1e-3);
    lsim_kernel_free(&k);
    CHECK(k.h == NULL && k.v == NULL);
    lsim_kernel_free(&k); /* twice is harmless */
    /* an extent of exactly K steps gives K */
    REQUIRE_OK(ctx, lsim_kernel_parametric(ctx, 0.25, 1e-4, 34 * (133.0 / 4096), 133.0 / 4096, &k));
    CHECK(k.half_u == 34);
    lsim_kernel_free(&k);
    CHECK(lsim_kernel_parametric(ctx, 0.0, 1e-4, 3.0, 0.05, &k) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_kernel_parametric(ctx, 0.2, -1e-4, 3.0, 0.05, &k) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_kernel_parametric(ctx, 0.2, 1e-4, NAN, 0.05, &k) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_kernel_parametric(ctx, 0.2, 1e-4, 3.0, 0.0, &k) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_kernel_parametric(ctx, 0.2, 1e-4, 300.0, 1e-4, &k) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(k.h == NULL);
}

static void expect_kernel_error(lsim_context *ctx, const char *name, const char *text, size_t size, int line,
                                const char *what)
{
    const char *path = scratch_write(name, text, size);
    lsim_kernel k;
    lsim_status st = lsim_kernel_read(ctx, path, &k);
    const char *msg = lsim_context_last_error(ctx);
    char where[128];
    snprintf(where, sizeof where, "%s:%d:", name, line);
    if (st != LSIM_ERR_PARSE || !strstr(msg, where) || !strstr(msg, what))
        fprintf(stderr, "%s: status %d, message '%s' (want %s ... %s)\n", name, (int)st, msg, where, what);
    CHECK(st == LSIM_ERR_PARSE);
    CHECK(strstr(msg, where) != NULL);
    CHECK(strstr(msg, what) != NULL);
    CHECK(k.h == NULL && k.v == NULL);
    remove(path);
}
#define EXPECT_KERNEL_ERROR(ctx, name, text, line, what) \
    expect_kernel_error(ctx, name, text, sizeof text - 1, line, what)

static void test_kernel_files(lsim_context *ctx)
{
    lsim_kernel k;
    /* separable, with comments, blank lines, commas, CRLF */
    const char *path = scratch_write_text("sep.kernel", "# measured, cf. pbr §III-B\n\nseparable\r\n"
                                                "step_deg: 0.01   # per sample\n"
                                                "h: 0.25 0.5, 0.25\r\n"
                                                "v: 1e-3 0.1 0.8 0.1 1e-3\n");
    REQUIRE_OK(ctx, lsim_kernel_read(ctx, path, &k));
    CHECK(k.half_u == 1 && k.half_v == 2 && k.step_deg == 0.01);
    CHECK(k.h[0] == 0.25f && k.h[1] == 0.5f && k.h[2] == 0.25f);
    CHECK(k.v[0] == 1e-3f && k.v[2] == 0.8f && k.v[4] == 1e-3f);
    lsim_kernel_free(&k);
    remove(path);
    /* without the keyword, v before h */
    path = scratch_write_text("sep2.kernel", "v: 1\nh: 0 1 0\nstep_deg: 0.5\n");
    REQUIRE_OK(ctx, lsim_kernel_read(ctx, path, &k));
    CHECK(k.half_u == 1 && k.half_v == 0 && k.v[0] == 1.0f && k.h[1] == 1.0f);
    lsim_kernel_free(&k);
    remove(path);

    /* 2-D rank-1 array: its h and v come back up to scale, and h v^T reproduces it */
    const double h0[5] = {1, 2, 4, 2, 1}, v0[3] = {0.5, 3, 1};
    char text[1024];
    int len = snprintf(text, sizeof text, "step_deg: 0.02\n");
    for (int n = 0; n < 3; ++n) {
        for (int m = 0; m < 5; ++m)
            len += snprintf(text + len, sizeof text - (size_t)len, "%s%.17g", m ? " " : "", v0[n] * h0[m]);
        len += snprintf(text + len, sizeof text - (size_t)len, "\n");
    }
    path = scratch_write_text("rank1.kernel", text);
    REQUIRE_OK(ctx, lsim_kernel_read(ctx, path, &k));
    remove(path);
    CHECK(k.half_u == 2 && k.half_v == 1 && k.step_deg == 0.02);
    for (int n = 0; n < 3; ++n)
        for (int m = 0; m < 5; ++m) {
            CHECK_NEAR((double)k.h[m] * k.v[n], v0[n] * h0[m], 1e-6 * v0[n] * h0[m]);
            CHECK_NEAR(k.h[m] / k.h[2], h0[m] / h0[2], 1e-6);
        }
    for (int n = 0; n < 3; ++n)
        CHECK_NEAR(k.v[n] / k.v[1], v0[n] / v0[1], 1e-6);
    lsim_kernel_free(&k);
    /* a non-rank-1 array keeps its total weight */
    path = scratch_write_text("full.kernel", "step_deg: 0.1\n0 1 0\n1 4 1\n0 1 0\n");
    REQUIRE_OK(ctx, lsim_kernel_read(ctx, path, &k));
    remove(path);
    double sh = k.h[0] + k.h[1] + k.h[2], sv = k.v[0] + k.v[1] + k.v[2];
    CHECK_NEAR(sh * sv, 8.0, 1e-5);
    CHECK(k.h[0] == k.h[2] && k.v[0] == k.v[2] && k.h[1] > k.h[0]);
    lsim_kernel_free(&k);

    /* every kind of malformed file names file:line */
    EXPECT_KERNEL_ERROR(ctx, "num.kernel", "step_deg: 0.1\nh: 1 2 x\nv: 1\n", 2, "h: value 3 is not a number");
    EXPECT_KERNEL_ERROR(ctx, "num2.kernel", "step_deg: 0.1\nh: 1\nv: 1 2e 1\n", 3, "not a number");
    EXPECT_KERNEL_ERROR(ctx, "even.kernel", "step_deg: 0.1\nh: 1 2\nv: 1\n", 2, "odd size");
    EXPECT_KERNEL_ERROR(ctx, "even_v.kernel", "step_deg: 0.1\nh: 1\n\n# c\nv: 1 2 3 4\n", 5, "odd size");
    EXPECT_KERNEL_ERROR(ctx, "neg.kernel", "step_deg: 0.1\nh: 1\nv: 1 -2 1\n", 3, "negative weight");
    EXPECT_KERNEL_ERROR(ctx, "nan.kernel", "step_deg: 0.1\nh: nan\nv: 1\n", 2, "not finite");
    EXPECT_KERNEL_ERROR(ctx, "inf.kernel", "step_deg: 0.1\nh: 1 inf 1\nv: 1\n", 2, "not finite");
    EXPECT_KERNEL_ERROR(ctx, "huge.kernel", "step_deg: 0.1\nh: 1 1e999 1\nv: 1\n", 2, "not finite");
    EXPECT_KERNEL_ERROR(ctx, "nostep.kernel", "h: 1\nv: 1\n", 3, "step_deg");
    EXPECT_KERNEL_ERROR(ctx, "badstep.kernel", "step_deg: -0.1\nh: 1\nv: 1\n", 1, "step_deg");
    EXPECT_KERNEL_ERROR(ctx, "twostep.kernel", "step_deg: 0.1 0.2\nh: 1\nv: 1\n", 1, "step_deg");
    EXPECT_KERNEL_ERROR(ctx, "dupstep.kernel", "step_deg: 0.1\nh: 1\nstep_deg: 0.1\nv: 1\n", 3, "twice");
    EXPECT_KERNEL_ERROR(ctx, "duph.kernel", "step_deg: 0.1\nh: 1\nh: 1\nv: 1\n", 3, "twice");
    EXPECT_KERNEL_ERROR(ctx, "nov.kernel", "separable\nstep_deg: 0.1\nh: 1\n", 4, "'v:'");
    EXPECT_KERNEL_ERROR(ctx, "zero.kernel", "step_deg: 0.1\nh: 0 0 0\nv: 1\n", 2, "positive weight");
    EXPECT_KERNEL_ERROR(ctx, "zero2d.kernel", "step_deg: 0.1\n0 0 0\n", 2, "positive weight");
    EXPECT_KERNEL_ERROR(ctx, "empty_h.kernel", "step_deg: 0.1\nh:\nv: 1\n", 2, "no values");
    EXPECT_KERNEL_ERROR(ctx, "key.kernel", "step_deg: 0.1\nw: 1\n", 2, "unknown key");
    EXPECT_KERNEL_ERROR(ctx, "rows_even.kernel", "step_deg: 0.1\n1 2 1\n2 4 2\n", 3, "odd height");
    EXPECT_KERNEL_ERROR(ctx, "cols_even.kernel", "step_deg: 0.1\n1 2\n", 2, "odd width");
    EXPECT_KERNEL_ERROR(ctx, "ragged.kernel", "step_deg: 0.1\n1 2 1\n2 4\n1 2 1\n", 3, "first row");
    EXPECT_KERNEL_ERROR(ctx, "neg2d.kernel", "step_deg: 0.1\n1 2 1\n2 -4 2\n1 2 1\n", 3, "negative");
    EXPECT_KERNEL_ERROR(ctx, "mixed.kernel", "step_deg: 0.1\nh: 1\n1 2 1\n", 3, "separable");
    EXPECT_KERNEL_ERROR(ctx, "mixed2.kernel", "step_deg: 0.1\n1 2 1\nv: 1\n", 3, "mixed");
    EXPECT_KERNEL_ERROR(ctx, "empty.kernel", "", 1, "step_deg");
    EXPECT_KERNEL_ERROR(ctx, "comments.kernel", "# nothing\nstep_deg: 1\n", 3, "no kernel weights");
    EXPECT_KERNEL_ERROR(ctx, "nul.kernel", "step_deg: 0.1\nh: 1\0 2\nv: 1\n", 2, "NUL");
    /* a missing file is an I/O error naming the path */
    char missing[128];
    snprintf(missing, sizeof missing, "%s/does_not_exist.kernel", scratch_dir);
    CHECK(lsim_kernel_read(ctx, missing, &k) == LSIM_ERR_IO);
    CHECK(strstr(lsim_context_last_error(ctx), "does_not_exist.kernel") != NULL);
    CHECK(lsim_kernel_read(ctx, NULL, &k) == LSIM_ERR_INVALID_ARGUMENT);

    /* random separable kernels round-trip exactly (weights printed with 9 digits) */
    for (int trial = 0; trial < 50; ++trial) {
        const int nh = 1 + 2 * (int)(rnd() * 40), nv = 1 + 2 * (int)(rnd() * 40);
        float wh[81], wv[81];
        static char big[4096];
        int at = snprintf(big, sizeof big, "# trial %d\nstep_deg: %.9g\nh:", trial, 0.001 + rnd());
        for (int i = 0; i < nh; ++i)
            at += snprintf(big + at, sizeof big - (size_t)at, " %.9g", (double)(wh[i] = (float)(rnd() + 1e-6)));
        at += snprintf(big + at, sizeof big - (size_t)at, "\n\nv:");
        for (int i = 0; i < nv; ++i)
            at += snprintf(big + at, sizeof big - (size_t)at, ",%.9g", (double)(wv[i] = (float)(rnd() * 1e-3)));
        snprintf(big + at, sizeof big - (size_t)at, "\n");
        path = scratch_write_text("roundtrip.kernel", big);
        REQUIRE_OK(ctx, lsim_kernel_read(ctx, path, &k));
        CHECK(k.half_u == nh / 2 && k.half_v == nv / 2);
        CHECK(memcmp(k.h, wh, (size_t)nh * sizeof(float)) == 0);
        CHECK(memcmp(k.v, wv, (size_t)nv * sizeof(float)) == 0);
        lsim_kernel_free(&k);
    }
    remove(path);

    /* random garbage never crashes; whatever it reads is a valid kernel */
    static const char alphabet[] = "0123456789 .,-+eE:#\n\r\thvstep_deg:separable nan inf x\0\xff";
    char buf[600];
    int ok = 0;
    for (int trial = 0; trial < 400; ++trial) {
        size_t n = (size_t)(rnd() * sizeof buf);
        if (trial % 4 == 0) { /* near-valid prefixes with random tails */
            size_t pre = (size_t)snprintf(buf, sizeof buf, "step_deg: 0.1\nh: 1 2 1\nv: ");
            for (size_t i = pre; i < n; ++i)
                buf[i] = alphabet[(size_t)(rnd() * (sizeof alphabet - 1))];
            if (n < pre)
                n = pre;
        } else {
            for (size_t i = 0; i < n; ++i)
                buf[i] = trial % 4 == 1 ? (char)(rnd() * 256.0) : alphabet[(size_t)(rnd() * (sizeof alphabet - 1))];
        }
        path = scratch_write("garbage.kernel", buf, n);
        lsim_status st = lsim_kernel_read(ctx, path, &k);
        if (st == LSIM_OK) {
            ++ok;
            CHECK(k.h && k.v && k.half_u >= 0 && k.half_v >= 0 && k.step_deg > 0.0);
            lsim_kernel_free(&k);
        } else {
            CHECK(st == LSIM_ERR_PARSE && strstr(lsim_context_last_error(ctx), "garbage.kernel:") != NULL);
            CHECK(k.h == NULL && k.v == NULL);
        }
    }
    remove(path);
    printf("garbage kernel files: %d of 400 happened to be valid\n", ok);
}

/* ------------------------------------------------------------------ (e) dim-slice skip */

static void test_skip(lsim_context *ctx)
{
    img m = wall_with_patch(1.0f);
    /* dim objects that can never reach the threshold: nearer than the wall and the patch, large */
    img_rect(&m, 100, 160, 10, 80, 1e-4f, 20.0f);
    img_rect(&m, 250, 330, 5, 40, 5.9e-4f, 10.0f); /* just below the threshold, full kernel weight */
    const lsim_bloom_image im = img_view(&m, 0.05);
    lsim_kernel k;
    REQUIRE_OK(ctx, lsim_kernel_parametric(ctx, 0.15, 1e-3, 1.0, 0.05, &k));
    lsim_bloom_params par = params_default(2);
    beams b = beams_every_pixel(&m);
    lsim_bloom_stats skip, all;
    CHECK(run_both(ctx, &im, &k, &par, &b, &skip) == 0);
    float *r = malloc(b.n * 4), *p = malloc(b.n * 4);
    par.keep_dim_slices = 1;
    REQUIRE_OK(ctx, lsim_bloom_nearest_stats(ctx, LSIM_BLOOM_RANGE_STACKING, &im, &k, &par, b.n, b.u, b.v, r, p, &all));
    CHECK(memcmp(r, b.r2, b.n * 4) == 0);
    CHECK(memcmp(p, b.p2, b.n * 4) == 0);
    printf("skip: %zu of %zu occupied slices processed (%zu without skipping)\n", skip.slices_processed,
           skip.slices_occupied, all.slices_processed);
    CHECK(skip.slices_occupied == all.slices_occupied);
    CHECK(all.slices_processed == all.slices_occupied);
    CHECK(skip.slices_processed + 2 == all.slices_processed); /* the two dim slices */
    /* no beam reports the dim objects' ranges */
    for (size_t i = 0; i < b.n; ++i)
        CHECK(b.r1[i] != 20.25f && b.r1[i] != 10.25f);
    /* a brightened object is processed and seen */
    par.keep_dim_slices = 0;
    img_rect(&m, 250, 330, 5, 40, 7e-4f, 10.0f);
    CHECK(run_both(ctx, &im, &k, &par, &b, &skip) == 0);
    CHECK(skip.slices_processed + 1 == all.slices_processed);
    CHECK(b.r1[20 * 400 + 290] == 10.25f);
    free(r);
    free(p);
    beams_free(&b);
    lsim_kernel_free(&k);
    img_free(&m);
}

/* ------------------------------------------------------------------ argument checks */

static void test_arguments(lsim_context *ctx)
{
    img m = img_make(10, 10);
    lsim_bloom_image im = img_view(&m, 0.1);
    float hk = 1.0f, vk = 1.0f;
    lsim_kernel k = {0, 0, 0.1, &hk, &vk};
    lsim_bloom_params par = {0.5, 50.0, 0.1, 1, 0};
    float u = 1, v = 1, r, p;
    CHECK(lsim_bloom_nearest(ctx, LSIM_BLOOM_BEAM_ITERATION, &im, &k, &par, 1, &u, &v, &r, &p) == LSIM_OK);
    CHECK(lsim_bloom_nearest(ctx, (lsim_bloom_algorithm)3, &im, &k, &par, 1, &u, &v, &r, &p) ==
          LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_bloom_nearest(ctx, LSIM_BLOOM_RANGE_STACKING, NULL, &k, &par, 1, &u, &v, &r, &p) ==
          LSIM_ERR_INVALID_ARGUMENT);
    CHECK(lsim_bloom_nearest(ctx, LSIM_BLOOM_RANGE_STACKING, &im, &k, &par, 1, NULL, &v, &r, &p) ==
          LSIM_ERR_INVALID_ARGUMENT);
    im.step_deg = 0.2;
    CHECK(lsim_bloom_nearest(ctx, LSIM_BLOOM_RANGE_STACKING, &im, &k, &par, 1, &u, &v, &r, &p) ==
          LSIM_ERR_INVALID_ARGUMENT);
    CHECK(strstr(lsim_context_last_error(ctx), "pitch") != NULL);
    im.step_deg = 0.1;
    par.threshold = 0.0;
    CHECK(lsim_bloom_nearest(ctx, LSIM_BLOOM_RANGE_STACKING, &im, &k, &par, 1, &u, &v, &r, &p) ==
          LSIM_ERR_INVALID_ARGUMENT);
    par.threshold = 0.1;
    par.range_bin = 1e-9;
    CHECK(lsim_bloom_nearest(ctx, LSIM_BLOOM_RANGE_STACKING, &im, &k, &par, 1, &u, &v, &r, &p) ==
          LSIM_ERR_INVALID_ARGUMENT);
    par.range_bin = 0.5;
    hk = -1.0f;
    CHECK(lsim_bloom_nearest(ctx, LSIM_BLOOM_BEAM_ITERATION, &im, &k, &par, 1, &u, &v, &r, &p) ==
          LSIM_ERR_INVALID_ARGUMENT);
    hk = 1.0f;
    im.width = 0;
    CHECK(lsim_bloom_nearest(ctx, LSIM_BLOOM_BEAM_ITERATION, &im, &k, &par, 1, &u, &v, &r, &p) ==
          LSIM_ERR_INVALID_ARGUMENT);
    im.width = 10;
    CHECK(lsim_bloom_nearest(ctx, LSIM_BLOOM_BEAM_ITERATION, &im, &k, &par, 0, NULL, NULL, NULL, NULL) == LSIM_OK);
    img_free(&m);
}

int main(void)
{
    scratch_make("blooming");
    lsim_context *ctx = NULL;
    if (lsim_context_create(&ctx) != LSIM_OK)
        return 1;
    test_algorithms_agree(ctx);
    test_shared_rows(ctx);
    test_blooming(ctx);
    test_delta_and_orientation(ctx);
    test_parametric(ctx);
    test_kernel_files(ctx);
    test_skip(ctx);
    test_arguments(ctx);
    lsim_context_destroy(ctx);
    scratch_remove();
    return lsim_test_summary("test_blooming");
}
