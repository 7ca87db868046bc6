/* Column selection (lsim_scan_options.fields): a scan that fills only some point fields gives,
 * in those columns, exactly the values of a full scan (bit for bit, for every field alone and for
 * the masks the CLI uses, whatever the thread count); the other columns are absent (NULL); a
 * workspace reused across masks gives the same values; writers and PNGs that lack a column fail
 * naming it, and a KITTI-only scan writes the same files as a full one. */
#include "files.h"
#include "harness.h"
#include "test_scenes.h"

#include "lidarsim.h"
#include "pipeline/frame.h"
#include "points/points.h"

#include <string.h>



static lsim_points *scan(lsim_context *ctx, lsim_scene *scene, const lsim_sensor *sensor, uint32_t fields,
                         int threads, lsim_frame frame)
{
    lsim_scan_options opt;
    lsim_scan_options_init(&opt);
    opt.seed = 11;
    opt.threads = threads;
    opt.frame = frame;
    opt.keep_misses = 1;
    opt.fields = fields;
    lsim_points *p;
    REQUIRE_OK(ctx, lsim_scene_scan(scene, sensor, &opt, &p));
    return p;
}

/* Every column of `fields` equals the full scan's bit for bit, every other column is NULL. */
static int same_selected(const lsim_points *full, const lsim_points *part, uint32_t fields)
{
    size_t n = lsim_points_count(full);
    if (lsim_points_count(part) != n || lsim_points_fields(part) != fields)
        return 0;
    for (int f = 0; f < LSIM_FIELD_COUNT; ++f) {
        const void *a = lsim_points_column(full, (lsim_field)f), *b = lsim_points_column(part, (lsim_field)f);
        if (!(fields & LSIM_FIELD_BIT(f))) {
            if (b != NULL)
                return 0;
            continue;
        }
        if (!b || memcmp(a, b, n * lsim_field_size((lsim_field)f)) != 0) {
            fprintf(stderr, "field %s differs\n", lsim_field_name((lsim_field)f));
            return 0;
        }
    }
    return 1;
}

static void check_masks(lsim_context *ctx, lsim_scene *scene, const lsim_sensor *sensor, lsim_frame frame)
{
    lsim_points *full = scan(ctx, scene, sensor, 0, 2, frame);
    CHECK(lsim_points_fields(full) == LSIM_FIELDS_ALL);
    for (int f = 0; f < LSIM_FIELD_COUNT; ++f)
        CHECK(lsim_points_column(full, (lsim_field)f) != NULL);

    /* The data must exercise every path: misses, beams with two echoes, echoes of no surface. */
    const uint16_t *num = lsim_points_column(full, LSIM_FIELD_NUM_RETURNS);
    const uint32_t *label = lsim_points_column(full, LSIM_FIELD_LABEL);
    size_t n = lsim_points_count(full), misses = 0, doubles = 0, outliers = 0;
    for (size_t i = 0; i < n; ++i) {
        misses += num[i] == 0;
        doubles += num[i] == 2;
        outliers += label[i] == 1; /* SemanticKITTI's outlier: no surface */
    }
    printf("frame %d: %zu points, %zu misses, %zu in two-echo beams, %zu echoes of no surface\n", (int)frame, n,
           misses, doubles, outliers);
    CHECK(misses > 0 && doubles > 0 && outliers > 0);

    uint32_t masks[LSIM_FIELD_COUNT + 6];
    int count = 0;
    for (int f = 0; f < LSIM_FIELD_COUNT; ++f)
        masks[count++] = LSIM_FIELD_BIT(f); /* each field alone */
    masks[count++] = lsim_format_fields(LSIM_FORMAT_KITTI);
    masks[count++] = LSIM_BIRDSEYE_FIELDS;
    masks[count++] = LSIM_RANGE_IMAGE_FIELDS;
    masks[count++] = lsim_format_fields(LSIM_FORMAT_KITTI) | LSIM_BIRDSEYE_FIELDS | LSIM_RANGE_IMAGE_FIELDS;
    masks[count++] = LSIM_FIELDS_ALL & ~lsim_format_fields(LSIM_FORMAT_KITTI);
    masks[count++] = LSIM_FIELDS_ALL;
    for (int m = 0; m < count; ++m)
        for (int threads = 1; threads <= 3; threads += 2) {
            lsim_points *part = scan(ctx, scene, sensor, masks[m], threads, frame);
            int same = same_selected(full, part, masks[m]);
            if (!same)
                fprintf(stderr, "mask 0x%x, %d threads: columns differ from the full scan\n", masks[m], threads);
            CHECK(same);
            lsim_points_destroy(part);
        }
    lsim_points_destroy(full);
}

/* One workspace, frames with different masks: echo arrays freed and grown again. */
static void check_workspace_reuse(lsim_context *ctx, lsim_scene *scene, const lsim_sensor *sensor)
{
    lsim_points *ref = scan(ctx, scene, sensor, 0, 2, LSIM_FRAME_SENSOR);
    const uint32_t masks[] = {LSIM_FIELDS_ALL, lsim_format_fields(LSIM_FORMAT_KITTI), LSIM_RANGE_IMAGE_FIELDS,
                              LSIM_FIELDS_ALL, LSIM_FIELD_BIT(LSIM_FIELD_NX)};
    lsim_frame_workspace ws;
    memset(&ws, 0, sizeof ws);
    for (size_t k = 0; k < sizeof masks / sizeof masks[0]; ++k) {
        lsim_points *p;
        REQUIRE_OK(ctx, lsim_points_alloc_fields(ctx, lsim_frame_point_capacity(sensor), masks[k], &p));
        lsim_scan_options opt;
        lsim_scan_options_init(&opt);
        opt.seed = 11;
        opt.threads = 2;
        opt.keep_misses = 1;
        opt.fields = masks[k];
        REQUIRE_OK(ctx, lsim_points_set_labels(p, NULL, 0));
        REQUIRE_OK(ctx, lsim_frame_run(scene, sensor, &opt, &ws, p));
        CHECK(ws.echoes.range && ws.echoes.count);
        CHECK((ws.echoes.nx != NULL) == ((masks[k] & (LSIM_FIELD_BIT(LSIM_FIELD_NX))) != 0));
        CHECK((ws.echoes.epw != NULL) == ((masks[k] & LSIM_FIELD_BIT(LSIM_FIELD_EPW)) != 0));
        CHECK(same_selected(ref, p, masks[k]));
        lsim_points_destroy(p);
    }
    lsim_frame_workspace_free(&ws);
    lsim_points_destroy(ref);
}

static void check_writers(lsim_context *ctx, lsim_scene *scene, const lsim_sensor *sensor)
{
    scratch_make("columns");
    char full_bin[256], part_bin[256], path[256];
    path_join(full_bin, sizeof full_bin, scratch_dir, "full.bin");
    path_join(part_bin, sizeof part_bin, scratch_dir, "part.bin");
    lsim_points *full = scan(ctx, scene, sensor, 0, 2, LSIM_FRAME_SENSOR);
    lsim_points *kitti = scan(ctx, scene, sensor, lsim_format_fields(LSIM_FORMAT_KITTI), 2, LSIM_FRAME_SENSOR);
    REQUIRE_OK(ctx, lsim_points_write(full, full_bin, LSIM_FORMAT_AUTO));
    REQUIRE_OK(ctx, lsim_points_write(kitti, part_bin, LSIM_FORMAT_AUTO));
    CHECK(same_file(full_bin, part_bin));
    char a[256], b[256];
    path_join(a, sizeof a, scratch_dir, "full.label");
    path_join(b, sizeof b, scratch_dir, "part.label");
    CHECK(same_file(a, b));
    path_join(a, sizeof a, scratch_dir, "full.labels.yaml");
    path_join(b, sizeof b, scratch_dir, "part.labels.yaml");
    CHECK(same_file(a, b));

    /* Formats and images that need a column the scan did not fill: an error naming it, no file. */
    static const char *const names[] = {"x.pcd", "x.ply", "x.csv"};
    for (int i = 0; i < 3; ++i) {
        path_join(path, sizeof path, scratch_dir, names[i]);
        CHECK(lsim_points_write(kitti, path, LSIM_FORMAT_AUTO) == LSIM_ERR_INVALID_ARGUMENT);
        CHECK(message_has(ctx, "no 'range' column", NULL));
        CHECK(access(path, F_OK) != 0);
    }
    path_join(path, sizeof path, scratch_dir, "bev.png");
    CHECK(lsim_points_write_birdseye(kitti, path, 64, 20.0) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(message_has(ctx, "no 'intensity' column", NULL));
    CHECK(access(path, F_OK) != 0);
    path_join(path, sizeof path, scratch_dir, "range.png");
    CHECK(lsim_points_write_range_image(kitti, path, 2.0) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(message_has(ctx, "no 'range' column", NULL));
    CHECK(access(path, F_OK) != 0);
    path_join(path, sizeof path, scratch_dir, "only_xyz.bin");
    lsim_points *xyz = scan(ctx, scene, sensor, LSIM_FIELD_BIT(LSIM_FIELD_X) | LSIM_FIELD_BIT(LSIM_FIELD_Y) |
                                                    LSIM_FIELD_BIT(LSIM_FIELD_Z), 1, LSIM_FRAME_SENSOR);
    CHECK(lsim_points_write(xyz, path, LSIM_FORMAT_KITTI) == LSIM_ERR_INVALID_ARGUMENT);
    CHECK(message_has(ctx, "no 'reflectivity' column", NULL));
    CHECK(access(path, F_OK) != 0);
    lsim_points_destroy(xyz);

    /* The images' own masks are enough for them. */
    lsim_points *images = scan(ctx, scene, sensor, LSIM_BIRDSEYE_FIELDS | LSIM_RANGE_IMAGE_FIELDS, 2,
                               LSIM_FRAME_SENSOR);
    path_join(path, sizeof path, scratch_dir, "bev.png");
    REQUIRE_OK(ctx, lsim_points_write_birdseye(images, path, 64, 20.0));
    uint32_t bev_w = 0, bev_h = 0; /* a figure: the 64 cells scaled up to a plot >= 400 px, axes and bar around */
    CHECK(png_read_size(path, &bev_w, &bev_h) && bev_w > 448 && bev_h > 448);
    path_join(path, sizeof path, scratch_dir, "range.png");
    REQUIRE_OK(ctx, lsim_points_write_range_image(images, path, 2.0));
    CHECK(access(path, F_OK) == 0);
    lsim_points_destroy(images);

    lsim_points_destroy(kitti);
    lsim_points_destroy(full);
    scratch_remove();
}

int main(void)
{
    lsim_context *ctx;
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    lsim_scene *scene;
    lsim_sensor *sensor;
    mixed_scene_make(ctx, 240, &scene, &sensor);

    /* Defaults: every field; bits of no field are refused. */
    lsim_scan_options opt;
    lsim_scan_options_init(&opt);
    CHECK(opt.fields == 0);
    CHECK(LSIM_FIELDS_ALL == (1u << LSIM_FIELD_COUNT) - 1u);
    CHECK(lsim_format_fields(LSIM_FORMAT_PCD) == LSIM_FIELDS_ALL);
    CHECK(lsim_format_fields(LSIM_FORMAT_KITTI) ==
          (LSIM_FIELD_BIT(LSIM_FIELD_X) | LSIM_FIELD_BIT(LSIM_FIELD_Y) | LSIM_FIELD_BIT(LSIM_FIELD_Z) |
           LSIM_FIELD_BIT(LSIM_FIELD_REFLECTIVITY) | LSIM_FIELD_BIT(LSIM_FIELD_LABEL) |
           LSIM_FIELD_BIT(LSIM_FIELD_INSTANCE)));
    opt.fields = 1u << LSIM_FIELD_COUNT;
    lsim_points *bad = NULL;
    CHECK(lsim_scene_scan(scene, sensor, &opt, &bad) == LSIM_ERR_INVALID_ARGUMENT && bad == NULL);
    CHECK(message_has(ctx, "fields", NULL));
    CHECK(lsim_points_column(NULL, LSIM_FIELD_X) == NULL);
    CHECK(lsim_points_fields(NULL) == 0);

    check_masks(ctx, scene, sensor, LSIM_FRAME_SENSOR);
    check_masks(ctx, scene, sensor, LSIM_FRAME_WORLD);
    check_workspace_reuse(ctx, scene, sensor);
    check_writers(ctx, scene, sensor);

    lsim_sensor_destroy(sensor);
    lsim_scene_destroy(scene);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_columns");
}
