/* lsim_dataset_run's points_format (the point files themselves: tests/test_cli_dataset_points.py):
 * the config's `points_format` reaches the dataset's info, and the run refuses formats other
 * than PCD, PLY, LAS and CSV (and values outside lsim_format) before it writes anything. */
#include "files.h"
#include "harness.h"

#include "lidarsim.h"
#include "dataset/dataset.h"

#include <stdio.h>
#include <string.h>

/* lsim_dataset_run's points_format: formats other than PCD, PLY, LAS and CSV are refused before
 * anything is written; the config's points_format is read into the info. */
static void check_points_format_option(lsim_context *ctx)
{
    CHECK(text_written("ds_points.yaml", "points_format: las\nsensor: {type: planar, steps: 16, fov_deg: 90}\n"
                                         "layout: {kind: scatter}\n"));
    lsim_dataset *ds = NULL;
    REQUIRE_OK(ctx, lsim_dataset_load(ctx, "ds_points.yaml", &ds));
    lsim_dataset_info info;
    lsim_dataset_get_info(ds, &info);
    CHECK(info.points_format == LSIM_FORMAT_LAS);
    const lsim_format bad[] = {LSIM_FORMAT_PCD_ASCII, LSIM_FORMAT_KITTI, LSIM_FORMAT_MCAP, (lsim_format)99};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
        lsim_dataset_run_options o;
        lsim_dataset_run_options_init(&o);
        CHECK(o.points_format == LSIM_FORMAT_AUTO);
        o.points_format = bad[i];
        CHECK(lsim_dataset_run(ds, "ds_points_out", &o, NULL) == LSIM_ERR_INVALID_ARGUMENT);
        CHECK(strstr(lsim_context_last_error(ctx), "pcd, ply, las, csv") != NULL);
        FILE *f = fopen("ds_points_out/dataset.json", "r");
        CHECK(f == NULL);
        if (f)
            fclose(f);
    }
    lsim_dataset_destroy(ds);
}

int main(void)
{
    lsim_context *ctx;
    REQUIRE_OK(NULL, lsim_context_create(&ctx));
    check_points_format_option(ctx);
    lsim_context_destroy(ctx);
    return lsim_test_summary("test_dataset_points");
}
