/* The raster engine (LSIM_ENGINE_RASTER, src/geometry/raster_engine.c) against Embree ray casting.
 *
 * Every preset on the demo street (examples/street/street.yaml: boxes, planes, spheres, meshes):
 * every beam's centre ray is traced by both engines in the frame's slices of 2048 beams (primary
 * batches with the frame's sensor, as src/pipeline/slice.c sends them) with and without the
 * normal correction, and compared beam by beam:
 *   - silhouette beams: a beam whose ray-cast neighbour in azimuth (same ring) or in ring (the
 *     nearest azimuth of the rings above and below) differs in object, in hit/miss, or in range
 *     by more than 10 % (the rosette's scattered beams: any beam within 0.3 deg whose object or
 *     hit/miss differs); they are excluded from the statistics below (and counted);
 *   - hit agreement: beams outside silhouettes that both engines hit or both miss (>= 99.5 %);
 *   - |delta range| over beams hit by both outside silhouettes: median < 1 mm, p99 < 1 cm;
 *   - labels: identical on >= 99.5 % of the beams hit by both outside silhouettes.
 * The ablation (the pixel's range taken along the ray, no normal correction) must be clearly
 * worse. Then motion (examples/motion: a driving sensor and moving cars): views per 1 ms group
 * against one view per frame (the ablation). Then whole frames through lsim_scene_scan with each
 * engine (times printed). EGL must be there, as for test_raster_gl. */
#include "harness.h"
#include "test_scenes.h"

#include "geometry/engine.h"
#include "optics/subrays.h"
#include "pipeline/frame.h"
#include "scene/scene.h"
#include "sensor/sensor.h"

#include "lidarsim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


enum { SLICE = 2048 };

typedef struct trace {
    float *t;
    uint32_t *object;
} trace;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

/* Every beam's centre ray through `engine`, in primary slices. */
static void trace_all(const lsim_sensor *framed, const lsim_engine *engine, size_t n, trace *out)
{
    lsim_subrays sub;
    lsim_subrays_make(&sub, 0.0, 0, LSIM_SUBRAYS_RINGS);
    lsim_rays rays;
    lsim_hits hits;
    if (lsim_rays_alloc(&rays, SLICE) || lsim_hits_alloc(&hits, SLICE))
        abort();
    for (size_t lo = 0; lo < n; lo += SLICE) {
        size_t m = n - lo < SLICE ? n - lo : SLICE;
        lsim_rays_generate(framed, &sub, lo, m, (float)framed->spec.range_max, &rays);
        rays.primary = 1;
        lsim_engine_intersect(engine, &rays, m, &hits);
        for (size_t i = 0; i < m; ++i) {
            out->t[lo + i] = hits.object[i] == LSIM_NO_HIT ? INFINITY : hits.t[i];
            out->object[lo + i] = hits.object[i];
        }
    }
    lsim_rays_free(&rays);
    lsim_hits_free(&hits);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int cmp_index_by_key(const void *a, const void *b, void *keys);

/* qsort_r is a GNU extension: sort indices by a key array through a file-scope pointer instead */
static const double *g_keys;
static int cmp_index(const void *a, const void *b)
{
    double x = g_keys[*(const size_t *)a], y = g_keys[*(const size_t *)b];
    return (x > y) - (x < y);
}
static int cmp_index_by_key(const void *a, const void *b, void *keys)
{
    (void)keys;
    return cmp_index(a, b);
}

static int differs(const trace *ref, size_t a, size_t b)
{
    if (ref->object[a] != ref->object[b])
        return 1;
    if (ref->object[a] == LSIM_NO_HIT)
        return 0;
    return fabsf(ref->t[a] - ref->t[b]) > 0.1f * ref->t[a];
}

/* silhouette[i] = 1 where a neighbour in azimuth or ring differs (see the top). */
static void silhouettes(const lsim_sensor *sensor, const trace *ref, size_t n, uint8_t *sil)
{
    double *az = malloc(n * sizeof *az), *el = malloc(n * sizeof *el), *ringkey = malloc(n * sizeof *ringkey);
    uint16_t *ring = malloc(n * sizeof *ring);
    size_t *order = malloc(n * sizeof *order);
    if (!az || !el || !ring || !order || !ringkey)
        abort();
    lsim_sensor_get_beams(sensor, az, el, NULL, ring);
    /* rings ordered by their mean elevation */
    uint16_t rings = 0;
    for (size_t i = 0; i < n; ++i)
        rings = ring[i] + 1 > rings ? (uint16_t)(ring[i] + 1) : rings;
    double *mean_el = calloc(rings, sizeof *mean_el), *cnt = calloc(rings, sizeof *cnt);
    for (size_t i = 0; i < n; ++i) {
        mean_el[ring[i]] += el[i];
        cnt[ring[i]] += 1.0;
    }
    for (uint16_t r = 0; r < rings; ++r)
        mean_el[r] = cnt[r] > 0 ? mean_el[r] / cnt[r] : 1e9;
    /* sort beams by (ring's elevation rank, azimuth) */
    double *rank = calloc(rings, sizeof *rank);
    for (uint16_t r = 0; r < rings; ++r)
        for (uint16_t k = 0; k < rings; ++k)
            rank[r] += mean_el[k] < mean_el[r] || (mean_el[k] == mean_el[r] && k < r);
    for (size_t i = 0; i < n; ++i) {
        double a = fmod(az[i] + 720.0, 360.0);
        ringkey[i] = rank[ring[i]] * 1000.0 + a;
        order[i] = i;
    }
    free(rank);
    (void)cmp_index_by_key;
    g_keys = ringkey;
    qsort(order, n, sizeof *order, cmp_index);
    memset(sil, 0, n);
    /* runs of one ring */
    size_t *start = malloc((n + 1) * sizeof *start);
    size_t runs = 0;
    for (size_t k = 0; k < n; ++k)
        if (k == 0 || ring[order[k]] != ring[order[k - 1]])
            start[runs++] = k;
    start[runs] = n;
    const int scattered = rings == 1 && sensor->spec.kind == LSIM_SENSOR_ROSETTE;
    for (size_t r = 0; r < runs && !scattered; ++r) {
        size_t a = start[r], b = start[r + 1];
        for (size_t k = a; k < b; ++k) {
            size_t i = order[k];
            if (k + 1 < b && differs(ref, i, order[k + 1]))
                sil[i] = sil[order[k + 1]] = 1;
            /* the next ring up: nearest azimuth */
            if (r + 1 < runs) {
                size_t lo = start[r + 1], hi = start[r + 2];
                double ai = fmod(az[i] + 720.0, 360.0);
                size_t best = lo;
                double bd = 1e9;
                /* binary search for the azimuth */
                size_t l = lo, h = hi;
                while (l < h) {
                    size_t mid = (l + h) / 2;
                    if (fmod(az[order[mid]] + 720.0, 360.0) < ai)
                        l = mid + 1;
                    else
                        h = mid;
                }
                for (size_t c = l > lo ? l - 1 : lo; c <= l && c < hi; ++c) {
                    double dd = fabs(fmod(az[order[c]] + 720.0, 360.0) - ai);
                    if (dd < bd) {
                        bd = dd;
                        best = c;
                    }
                }
                if (differs(ref, i, order[best]))
                    sil[i] = sil[order[best]] = 1;
            }
        }
    }
    if (scattered) { /* scattered beams: neighbours within 0.3 deg */
        const double cell = 0.3;
        for (size_t i = 0; i < n; ++i)
            for (size_t j = i + 1; j < n; ++j) {
                const double da = fabs(az[i] - az[j]), de = fabs(el[i] - el[j]);
                /* object or hit/miss changes only: the ground at grazing incidence changes range
                 * by more than 10 % between scattered neighbours without any edge */
                if (da <= cell && de <= cell && ref->object[i] != ref->object[j])
                    sil[i] = sil[j] = 1;
            }
    }
    free(az);
    free(el);
    free(ringkey);
    free(ring);
    free(order);
    free(mean_el);
    free(cnt);
    free(start);
}

typedef struct stats {
    double hit_share, median, p99, label_share;
    size_t compared, silhouette;
} stats;

static stats compare(const lsim_scene *scene, const trace *ref, const trace *got, const uint8_t *sil, size_t n)
{
    stats s = {0};
    double *d = malloc(n * sizeof *d);
    size_t agree = 0, outside = 0, both = 0, labels = 0;
    for (size_t i = 0; i < n; ++i) {
        if (sil[i]) {
            ++s.silhouette;
            continue;
        }
        ++outside;
        int hr = ref->object[i] != LSIM_NO_HIT, hg = got->object[i] != LSIM_NO_HIT;
        agree += hr == hg;
        if (hr && hg) {
            d[both++] = fabs((double)ref->t[i] - (double)got->t[i]);
            labels += scene->objects[ref->object[i]].label == scene->objects[got->object[i]].label;
        }
    }
    qsort(d, both, sizeof *d, cmp_double);
    s.hit_share = outside ? (double)agree / (double)outside : 0.0;
    s.median = both ? d[both / 2] : INFINITY;
    s.p99 = both ? d[(size_t)(0.99 * (double)(both - 1))] : INFINITY;
    s.label_share = both ? (double)labels / (double)both : 0.0;
    s.compared = both;
    free(d);
    return s;
}

static void check_preset(lsim_context *ctx, lsim_scene *scene, const char *preset, const double pos[3],
                         const lsim_engine *embree, const lsim_engine *raster, const lsim_engine *plain)
{
    lsim_sensor *sensor = NULL;
    REQUIRE_OK(ctx, lsim_sensor_create_preset(ctx, preset, &sensor));
    const double rpy[3] = {0, 0, 0};
    REQUIRE_OK(ctx, lsim_sensor_set_pose(sensor, pos, rpy));
    lsim_sensor framed = *sensor;
    framed.frame_start = 0.0;
    framed.pose = lsim_sensor_pose_at(sensor, 0.0);
    framed.frame_moves = 0;
    framed.frame_of = sensor;
    const size_t n = lsim_sensor_beam_count(sensor);
    trace tr[3];
    for (int k = 0; k < 3; ++k) {
        tr[k].t = malloc(n * sizeof(float));
        tr[k].object = malloc(n * sizeof(uint32_t));
    }
    uint8_t *sil = malloc(n);
    double t0 = now_ms();
    trace_all(&framed, embree, n, &tr[0]);
    double t1 = now_ms();
    trace_all(&framed, raster, n, &tr[1]);
    double t2 = now_ms();
    trace_all(&framed, plain, n, &tr[2]);
    silhouettes(sensor, &tr[0], n, sil);
    stats a = compare(scene, &tr[0], &tr[1], sil, n), b = compare(scene, &tr[0], &tr[2], sil, n);
    printf("%-9s %6zu beams, %5zu at silhouettes (%.1f %%); trace embree %.1f ms, raster %.1f ms\n", preset, n,
           a.silhouette, 100.0 * (double)a.silhouette / (double)n, t1 - t0, t2 - t1);
    printf("  corrected: hit agreement %.3f %%, %zu hit by both: median |dr| %.3g mm, p99 %.3g mm, labels %.3f %%\n",
           100.0 * a.hit_share, a.compared, 1e3 * a.median, 1e3 * a.p99, 100.0 * a.label_share);
    printf("  ablation : hit agreement %.3f %%, %zu hit by both: median |dr| %.3g mm, p99 %.3g mm, labels %.3f %%\n",
           100.0 * b.hit_share, b.compared, 1e3 * b.median, 1e3 * b.p99, 100.0 * b.label_share);
    uint8_t *none = calloc(n, 1);
    stats all = compare(scene, &tr[0], &tr[1], none, n);
    printf("  all beams, silhouettes included: hit agreement %.3f %%, median |dr| %.3g mm, p99 %.3g mm, labels %.3f %%\n",
           100.0 * all.hit_share, 1e3 * all.median, 1e3 * all.p99, 100.0 * all.label_share);
    free(none);
    CHECK(a.compared >= (n < 4000 ? n / 4 : 1000)); /* enough beams hit by both outside silhouettes */
    CHECK(n - a.silhouette > n / 4);
    CHECK(a.hit_share >= 0.995);
    CHECK(a.median < 1e-3);
    CHECK(a.p99 < 1e-2);
    CHECK(a.label_share >= 0.995);
    /* the correction matters: the ablation's error is clearly larger */
    CHECK(b.median > 3.0 * a.median + 1e-4);
    CHECK(b.p99 > 3.0 * a.p99);
    for (int k = 0; k < 3; ++k) {
        free(tr[k].t);
        free(tr[k].object);
    }
    free(sil);
    lsim_sensor_destroy(sensor);
}

/* Motion (examples/motion: the sensor drives at about 10 m/s, cars at 15 and 5 m/s and a
 * cyclist move): every beam from the sensor's pose at its time, objects at that time. The raster
 * engine draws a view per group_ms of firing at the group's mean time: beams on moving objects
 * may be off by up to speed x group_ms; with one view for the whole 100 ms frame (the ablation)
 * the motion distortion is lost and those beams are off by decimetres. */
static void check_motion(lsim_context *ctx, const char *example)
{
    lsim_sensor *sensor = NULL;
    lsim_scene *scene = test_example_scene(ctx, example, &sensor);
    lsim_engine *embree = NULL, *grouped = NULL, *whole = NULL;
    REQUIRE_OK(ctx, lsim_engine_build(scene, &lsim_engine_embree, &embree));
    lsim_raster_options ro;
    lsim_raster_options_init(&ro);
    REQUIRE_OK(ctx, lsim_engine_build(scene, &lsim_engine_raster, &grouped));
    ro.group_ms = 1000.0; /* the ablation: one view for the frame */
    REQUIRE_OK(ctx, lsim_scene_set_raster_options(scene, &ro));
    REQUIRE_OK(ctx, lsim_engine_build(scene, &lsim_engine_raster, &whole));
    const double start = 0.3; /* the oncoming car is close then */
    lsim_engine *engines[3] = {embree, grouped, whole};
    for (int k = 0; k < 3; ++k)
        REQUIRE_OK(ctx, lsim_engine_set_frame_time(engines[k], ctx, start, 0.1));
    lsim_sensor framed = *sensor;
    framed.frame_start = start;
    framed.pose = lsim_sensor_pose_at(sensor, start);
    framed.frame_moves = 1;
    framed.frame_of = sensor;
    const size_t n = lsim_sensor_beam_count(sensor);
    trace tr[3];
    for (int k = 0; k < 3; ++k) {
        tr[k].t = malloc(n * sizeof(float));
        tr[k].object = malloc(n * sizeof(uint32_t));
        trace_all(&framed, engines[k], n, &tr[k]);
    }
    uint8_t *sil = malloc(n);
    silhouettes(sensor, &tr[0], n, sil);
    stats a = compare(scene, &tr[0], &tr[1], sil, n), b = compare(scene, &tr[0], &tr[2], sil, n);
    /* beams on moving objects, outside silhouettes, hit by both: the largest error */
    double worst[2] = {0, 0}, p99[2] = {0, 0};
    double *dm[2] = {malloc(n * sizeof(double)), malloc(n * sizeof(double))};
    size_t moving = 0, nm[2] = {0, 0};
    for (size_t i = 0; i < n; ++i) {
        if (sil[i] || tr[0].object[i] == LSIM_NO_HIT || !scene->objects[tr[0].object[i]].motion)
            continue;
        ++moving;
        for (int k = 0; k < 2; ++k)
            if (tr[k + 1].object[i] != LSIM_NO_HIT) {
                double d = fabs((double)tr[0].t[i] - (double)tr[k + 1].t[i]);
                worst[k] = d > worst[k] ? d : worst[k];
                dm[k][nm[k]++] = d;
            }
    }
    for (int k = 0; k < 2; ++k) {
        qsort(dm[k], nm[k], sizeof(double), cmp_double);
        p99[k] = nm[k] ? dm[k][(size_t)(0.99 * (double)(nm[k] - 1))] : INFINITY;
        free(dm[k]);
    }
    printf("motion (vlp16 driving, frame at %.1f s): %zu beams on moving objects\n", start, moving);
    printf("  1 ms groups : hit agreement %.3f %%, median |dr| %.3g mm, p99 %.3g mm, labels %.3f %%, "
           "on moving objects p99 %.3g mm, worst %.3g mm\n",
           100.0 * a.hit_share, 1e3 * a.median, 1e3 * a.p99, 100.0 * a.label_share, 1e3 * p99[0], 1e3 * worst[0]);
    printf("  one view    : hit agreement %.3f %%, median |dr| %.3g mm, p99 %.3g mm, labels %.3f %%, "
           "on moving objects p99 %.3g mm, worst %.3g mm\n",
           100.0 * b.hit_share, 1e3 * b.median, 1e3 * b.p99, 100.0 * b.label_share, 1e3 * p99[1], 1e3 * worst[1]);
    CHECK(moving > 200);
    CHECK(a.hit_share >= 0.995);
    CHECK(a.median < 1e-3);
    CHECK(a.p99 < 1e-2);
    CHECK(a.label_share >= 0.995);
    /* the fastest object moves 15 mm in 1 ms; along an oblique ray the range error is larger */
    CHECK(p99[0] <= 0.015);
    CHECK(worst[0] <= 0.05);
    CHECK(p99[1] > 10.0 * p99[0] && p99[1] > 0.1);
    for (int k = 0; k < 3; ++k) {
        free(tr[k].t);
        free(tr[k].object);
        lsim_engine_destroy(engines[k]);
    }
    free(sil);
    lsim_sensor_destroy(sensor);
    lsim_scene_destroy(scene);
}

/* Frames of the file's sensor through lsim_scene_scan with one engine: hits and per-frame times. */
static void scan_frames(lsim_context *ctx, const char *example, lsim_engine_kind kind, uint64_t *hits)
{
    char path[4096];
    test_example_path(path, sizeof path, example);
    lsim_scene *scene = NULL;
    lsim_sensor *sensor = NULL;
    REQUIRE_OK(ctx, lsim_scene_load(ctx, path, &scene, &sensor));
    REQUIRE_OK(ctx, lsim_scene_set_engine(scene, kind));
    lsim_scan_options opt;
    lsim_scan_options_init(&opt);
    opt.noise = 0;
    printf("%s frames (vlp16, street):", kind == LSIM_ENGINE_RASTER ? "raster " : "raycast");
    for (int f = 0; f < 3; ++f) {
        lsim_points *pts = NULL;
        double t0 = now_ms();
        REQUIRE_OK(ctx, lsim_scene_scan(scene, sensor, &opt, &pts));
        double t1 = now_ms();
        lsim_scan_stats st;
        lsim_points_get_stats(pts, &st);
        printf(" %.1f ms (trace %.1f, build %.1f)", t1 - t0, st.trace_ms, st.build_ms);
        *hits = st.hits;
        lsim_points_destroy(pts);
    }
    printf(", %llu points\n", (unsigned long long)*hits);
    lsim_sensor_destroy(sensor);
    lsim_scene_destroy(scene);
}

int main(void)
{
    lsim_context *ctx = NULL;
    REQUIRE_OK(ctx, lsim_context_create(&ctx));
    lsim_scene *scene = test_example_scene(ctx, "examples/street/street.yaml", NULL);
    lsim_engine *embree = NULL, *raster = NULL, *plain = NULL;
    REQUIRE_OK(ctx, lsim_engine_build(scene, &lsim_engine_embree, &embree));
    lsim_status st = lsim_engine_build(scene, &lsim_engine_raster, &raster);
    if (st != LSIM_OK) {
        fprintf(stderr, "test_raster_engine: FAILED: no raster engine: %s\n", lsim_context_last_error(ctx));
        return 1;
    }
    lsim_raster_options ro;
    lsim_raster_options_init(&ro);
    ro.normal_correction = 0; /* the ablation: no normal correction */
    REQUIRE_OK(ctx, lsim_scene_set_raster_options(scene, &ro));
    REQUIRE_OK(ctx, lsim_engine_build(scene, &lsim_engine_raster, &plain));
    lsim_raster_options_init(&ro);
    REQUIRE_OK(ctx, lsim_scene_set_raster_options(scene, &ro));
    lsim_engine *engines[3] = {embree, raster, plain};
    for (int k = 0; k < 3; ++k)
        REQUIRE_OK(ctx, lsim_engine_set_frame_time(engines[k], ctx, 0.0, 0.1));
    /* the file's sensor position; the 5.6 m planar scanner 1 m up beside the parked car */
    const char *presets[] = {"vlp16", "hdl32e", "hdl64e", "os1-64", "os1-128", "rplidar-a1", "urg-04lx",
                             "livox-mid40", "kinect-v2"};
    const double at[9][3] = {{0, 0, 1.8}, {0, 0, 1.8}, {0, 0, 1.8}, {0, 0, 1.8}, {0, 0, 1.8},
                             {-4, 0, 1.0}, {-4, 0, 1.0}, {0, 0, 1.8}, {-4, 0, 1.0}};
    for (size_t p = 0; p < sizeof presets / sizeof *presets; ++p)
        check_preset(ctx, scene, presets[p], at[p], embree, raster, plain);
    for (int k = 0; k < 3; ++k)
        lsim_engine_destroy(engines[k]);
    lsim_scene_destroy(scene);

    check_motion(ctx, "examples/motion/motion.yaml");

    uint64_t hits_raycast = 0, hits_raster = 0;
    scan_frames(ctx, "examples/street/street.yaml", LSIM_ENGINE_EMBREE, &hits_raycast);
    scan_frames(ctx, "examples/street/street.yaml", LSIM_ENGINE_RASTER, &hits_raster);
    CHECK(fabs((double)hits_raster - (double)hits_raycast) <= 0.005 * (double)hits_raycast);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_raster_engine");
}
