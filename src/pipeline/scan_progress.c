/* lsim_scene_scan_write_progress (include/lidarsim.h): the frames writer with a progress report on
 * standard error, drawn by core/progress.h from the writer's per-slice report. */
#include "core/context.h"
#include "core/progress.h"
#include "pipeline/frame.h"
#include "scene/scene.h"

#include <stdio.h>

static void report_frames(void *user, double frames_done) { lsim_progress_update(user, frames_done); }

lsim_status lsim_scene_scan_write_progress(lsim_scene *scene, const lsim_sensor *sensor,
                                           const lsim_scan_options *options, unsigned frames, const char *path,
                                           lsim_format format, lsim_progress_mode progress, lsim_scan_stats *out_stats)
{
    if (scene && (progress < LSIM_PROGRESS_OFF || progress > LSIM_PROGRESS_BAR))
        return lsim_fail(scene->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "lsim_scene_scan_write_progress: progress %d is not an lsim_progress_mode (0..3)", (int)progress);
    lsim_progress bar;
    lsim_progress_start(&bar, progress, stderr, "scan", "frames", (double)frames, 1.0);
    lsim_status st = lsim_scan_write_frames_report(scene, sensor, options, frames, path, format,
                                                   LSIM_WRITE_SLICE_POINTS, out_stats, report_frames, &bar);
    lsim_progress_finish(&bar, st == LSIM_OK);
    return st;
}
