/* lsim_scene_scan_write* into a pcap (LSIM_FORMAT_PCAP): each frame scanned whole into one point
 * buffer (the packets need every beam of a column together), then written as the sensor's packets
 * (recording/pcap_write.h). Frames take the scene's lock one at a time (lsim_scene_scan_into). */
#include "pipeline/frame.h"

#include "core/clock.h"
#include "core/context.h"
#include "formats/writers.h"
#include "points/points.h"
#include "recording/pcap_write.h"
#include "scene/scene.h"

#include <math.h>

lsim_status lsim_scan_write_pcap(lsim_scene *scene, const lsim_sensor *sensor, const lsim_scan_options *options,
                                 unsigned frames, const char *path, lsim_scan_stats *out_stats,
                                 lsim_frames_report_fn report, void *user)
{
    lsim_context *ctx = scene->ctx;
    if (frames < 1 || frames > LSIM_MAX_FRAMES_PER_FILE)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "cannot write '%s': %u frames; give 1..%u", path, frames,
                         (unsigned)LSIM_MAX_FRAMES_PER_FILE);
    if (frames > 1 && !(sensor->spec.rate_hz > 0.0 && isfinite(sensor->spec.rate_hz)))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "cannot scan %u frames: the sensor's rate %g Hz gives no "
                         "frame period; set the sensor's rate_hz", frames, sensor->spec.rate_hz);
    lsim_recording_writer w; /* checks the sensor before the (possibly long) frames */
    lsim_status st = lsim_recording_begin(&w, ctx, sensor, path, options->packet_profile);
    lsim_points *points = NULL;
    if (st == LSIM_OK)
        st = lsim_points_create(ctx, &points);
    lsim_scan_stats sum = {0};
    for (unsigned k = 0; st == LSIM_OK && k < frames; ++k) {
        lsim_scan_options o = *options;
        o.scan_time = options->scan_time + (double)k / (frames > 1 ? sensor->spec.rate_hz : 1.0);
        o.frame_index = options->frame_index + k;
        o.fields = LSIM_PCAP_FIELDS;
        st = lsim_scene_scan_into(scene, sensor, &o, points);
        if (st != LSIM_OK)
            break;
        lsim_scan_stats stats;
        lsim_points_get_stats(points, &stats);
        const double t0 = lsim_now_ms();
        st = lsim_recording_frame(&w, points, o.frame_index, o.scan_time);
        stats.write_ms = lsim_now_ms() - t0;
        stats.total_ms += stats.write_ms;
        if (k == 0) {
            sum = stats;
        } else { /* the scene's load and build count once */
            sum.rays += stats.rays;
            sum.hits += stats.hits;
            sum.beams_returned += stats.beams_returned;
            sum.trace_ms += stats.trace_ms;
            sum.shade_ms += stats.shade_ms;
            sum.noise_ms += stats.noise_ms;
            sum.write_ms += stats.write_ms;
            sum.total_ms += stats.total_ms - stats.load_ms - stats.build_ms;
        }
        if (out_stats)
            *out_stats = sum;
        if (report && st == LSIM_OK)
            report(user, (double)(k + 1));
    }
    lsim_points_destroy(points);
    st = lsim_recording_finish(&w, st);
    if (st != LSIM_OK && out_stats && out_stats->rays)
        out_stats->write_ms = 0.0;
    return st;
}
