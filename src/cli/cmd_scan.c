/* lidarsim scan SCENE.yaml -o OUT: one frame of the scene's sensor into a point cloud. */
#include "args.h"
#include "commands.h"
#include "opts.h"

#include "lidarsim.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

typedef struct scan_args {
    const char *scene, *output, *bev, *range_image;
    double range_image_ppd;
    double import_seconds, import_mb; /* mesh import limits (0: automatic) */
    lsim_format format;
    lsim_scan_options options;
    uint32_t fields; /* --fields: the columns of the point cloud (0: every field the format holds) */
    int stats, quiet;
    long frames; /* --frames: successive frames into one file (MCAP only when > 1) */
    int engine; /* --engine: -1 the scene file's (raycast by default), else an lsim_engine_kind */
    long bev_pixels;
    double bev_extent;
} scan_args;

static void scan_usage(FILE *out)
{
    fprintf(out,
            "usage: lidarsim scan SCENE.yaml -o OUT [options]\n\n"
            "  -o, --output FILE       point cloud to write (.pcd .ply .bin .csv .las .mcap), or the sensor's UDP\n"
            "                          packets (.pcap: Ouster, with X.json metadata beside X.pcap, or Velodyne\n"
            "                          VLP-16, HDL-32E, HDL-64E; docs/formats.md \"pcap out\"); '-' writes it to\n"
            "                          standard output and needs --format (not kitti or las); a device or\n"
            "                          FIFO is written straight through; a symlink's target is replaced\n"
            "  --format F              pcd | pcd-ascii | ply | kitti | csv | las | mcap | pcap (default: the\n"
            "                          extension; docs/points.md); las: LAS 1.4, mcap: ROS 2 PointCloud2 + /tf\n"
            "  --ouster-profile P      pcap of an Ouster sensor: its lidar profile RNG19_RFL8_SIG16_NIR16\n"
            "                          (default), RNG19_RFL8_SIG16_NIR16_DUAL, RNG15_RFL8_NIR8 or LEGACY\n"
            "  --frames N              scan N successive frames (scan time + k / rate, frame index + k) into\n"
            "                          one file: mcap or pcap only (default 1)\n"
            "  --seed N                noise seed (default 0)\n"
            "  --frame-index N         frame counter, part of the noise key (default 0)\n"
            "  --scan-time T           start of the frame on the scene clock, seconds (default 0): where the\n"
            "                          sensor's and objects' motions are at the first beam\n"
            "  --noise on|off          off: exact geometry and intensity (default on)\n"
            "  --threads N             worker threads, 0 = all cores (default 0)\n"
            "  --engine raycast|raster geometry engine, overriding the scene's `engine:` (default raycast:\n"
            "                          Embree); raster: OpenGL renders the primary rays (docs/raster-engine.md)\n"
            "  --frame sensor|world    coordinate frame of x, y, z and normals (default sensor)\n"
            "  --keep-misses           also write beams without a return (range 0, NaN coordinates)\n"
            "  --fields LIST           columns of a PCD, PLY, CSV, LAS or MCAP cloud, comma-separated (e.g.\n"
            "                          x,y,z,intensity,ring,time; default every field); the scan computes\n"
            "                          only those\n"
            "  --bev FILE.png          also write a bird's-eye figure coloured by intensity (axes in\n"
            "                          metres, a colour bar)\n"
            "  --bev-size PIXELS       its plot's cells a side, 16..8192 (default 1024; under 400 each\n"
            "                          cell is drawn as a square of several pixels)\n"
            "  --bev-extent M          half-width of the bird's-eye view in metres (default 50)\n"
            "  --range-image FILE.png  also write the points over azimuth x elevation, coloured by range\n"
            "                          (axes in degrees, a colour bar; a plot under 400 x 200 pixels is\n"
            "                          scaled up)\n"
            "  --range-image-ppd N     its cells per degree (default 10)\n"
            "  --import-timeout S      time limit for importing one mesh file (default 10 s + 1 s per MB)\n"
            "  --import-memory MB      memory the mesh importer may use (default 2048 + 32 x the file size)\n"
            "  --stats                 print one JSON line of timings on stderr\n"
            "  --quiet                 no summary line on stdout (on stderr when writing to '-') and no\n"
            "                          progress bar (drawn on a terminal for --frames N or a long frame)\n"
            "  -h, --help              this help;  --version  the version\n");
}

static int bad(const char *opt, const char *value, const char *valid)
{
    return lsim_arg_invalid("scan", opt, value, valid);
}

static int parse_args(int argc, char **argv, scan_args *a)
{
    memset(a, 0, sizeof *a);
    lsim_scan_options_init(&a->options);
    a->format = LSIM_FORMAT_AUTO;
    a->bev_pixels = 1024;
    a->bev_extent = 50.0;
    a->range_image_ppd = 10.0;
    a->engine = -1;
    a->frames = 1;
    enum { O_FORMAT = LSIM_OPT_LONG, O_FRAMES, O_SEED, O_FRAME_INDEX, O_SCAN_TIME, O_NOISE, O_ENGINE, O_THREADS,
           O_FRAME, O_KEEP_MISSES, O_FIELDS, O_BEV, O_BEV_SIZE, O_BEV_EXTENT, O_IMPORT_TIMEOUT, O_IMPORT_MEMORY,
           O_RANGE_IMAGE, O_RANGE_IMAGE_PPD, O_STATS, O_QUIET, O_OUSTER_PROFILE };
    static const struct option longopts[] = {
        LSIM_OPTS_COMMON,
        {"output", required_argument, NULL, 'o'},
        {"format", required_argument, NULL, O_FORMAT},
        {"frames", required_argument, NULL, O_FRAMES},
        {"seed", required_argument, NULL, O_SEED},
        {"frame-index", required_argument, NULL, O_FRAME_INDEX},
        {"scan-time", required_argument, NULL, O_SCAN_TIME},
        {"noise", required_argument, NULL, O_NOISE},
        {"engine", required_argument, NULL, O_ENGINE},
        {"threads", required_argument, NULL, O_THREADS},
        {"frame", required_argument, NULL, O_FRAME},
        {"keep-misses", no_argument, NULL, O_KEEP_MISSES},
        {"fields", required_argument, NULL, O_FIELDS},
        {"bev", required_argument, NULL, O_BEV},
        {"bev-size", required_argument, NULL, O_BEV_SIZE},
        {"bev-extent", required_argument, NULL, O_BEV_EXTENT},
        {"import-timeout", required_argument, NULL, O_IMPORT_TIMEOUT},
        {"import-memory", required_argument, NULL, O_IMPORT_MEMORY},
        {"range-image", required_argument, NULL, O_RANGE_IMAGE},
        {"range-image-ppd", required_argument, NULL, O_RANGE_IMAGE_PPD},
        {"stats", no_argument, NULL, O_STATS},
        {"quiet", no_argument, NULL, O_QUIET},
        {"ouster-profile", required_argument, NULL, O_OUSTER_PROFILE},
        {0, 0, 0, 0}};
    lsim_opts g;
    lsim_opts_init(&g, "scan", argc, argv, "ho:", longopts, scan_usage);
    for (int c; (c = lsim_opts_next(&g)) != LSIM_OPT_END;) {
        const char *val = g.arg;
        long v;
        switch (c) {
        case LSIM_OPT_ERROR:
            return LSIM_EXIT_USAGE;
        case LSIM_OPT_EXIT:
            return -1;
        case 'o':
            a->output = val;
            break;
        case O_FORMAT:
            if (lsim_format_parse(val, &a->format) != LSIM_OK)
                return bad("--format", val, "pcd, pcd-ascii, ply, kitti, csv, las, mcap or pcap");
            break;
        case O_FRAMES:
            if (lsim_arg_long(val, 1, 100000, &a->frames))
                return bad("--frames", val, "an integer 1..100000 (several frames need --format mcap)");
            break;
        case O_SEED:
            if (lsim_arg_u64(val, &a->options.seed))
                return bad("--seed", val, "an integer 0..18446744073709551615");
            break;
        case O_FRAME_INDEX:
            if (lsim_arg_long(val, 0, 4294967295L, &v))
                return bad("--frame-index", val, "an integer 0..4294967295");
            a->options.frame_index = (uint32_t)v;
            break;
        case O_SCAN_TIME:
            if (lsim_arg_double(val, -1e7, 1e7, &a->options.scan_time))
                return bad("--scan-time", val, "a number of seconds within +-1e7");
            break;
        case O_NOISE:
            if (strcmp(val, "on") != 0 && strcmp(val, "off") != 0)
                return bad("--noise", val, "on or off");
            a->options.noise = strcmp(val, "on") == 0;
            break;
        case O_ENGINE:
            if (strcmp(val, "raycast") == 0)
                a->engine = LSIM_ENGINE_EMBREE;
            else if (strcmp(val, "raster") == 0)
                a->engine = LSIM_ENGINE_RASTER;
            else
                return bad("--engine", val, "raycast or raster");
            break;
        case O_THREADS:
            if (lsim_arg_long(val, 0, 1024, &v))
                return bad("--threads", val, "an integer 0..1024 (0 = all cores)");
            a->options.threads = (int)v;
            break;
        case O_FRAME:
            if (strcmp(val, "sensor") != 0 && strcmp(val, "world") != 0)
                return bad("--frame", val, "sensor or world");
            a->options.frame = strcmp(val, "world") == 0 ? LSIM_FRAME_WORLD : LSIM_FRAME_SENSOR;
            break;
        case O_KEEP_MISSES:
            a->options.keep_misses = 1;
            break;
        case O_FIELDS:
            if (lsim_arg_fields("scan", val, &a->fields))
                return LSIM_EXIT_USAGE;
            break;
        case O_BEV:
            a->bev = val;
            break;
        case O_BEV_SIZE:
            if (lsim_arg_long(val, 16, 8192, &a->bev_pixels))
                return bad("--bev-size", val, "an integer 16..8192");
            break;
        case O_BEV_EXTENT:
            if (lsim_arg_double(val, 1e-3, 1e6, &a->bev_extent))
                return bad("--bev-extent", val, "a number of metres > 0");
            break;
        case O_IMPORT_TIMEOUT:
            if (lsim_arg_double(val, 0.01, 86400.0, &a->import_seconds))
                return bad("--import-timeout", val, "a number of seconds 0.01..86400");
            break;
        case O_IMPORT_MEMORY:
            if (lsim_arg_double(val, 1.0, 1e9, &a->import_mb))
                return bad("--import-memory", val, "a number of megabytes 1..1e9");
            break;
        case O_RANGE_IMAGE:
            a->range_image = val;
            break;
        case O_RANGE_IMAGE_PPD:
            if (lsim_arg_double(val, 0.5, 200.0, &a->range_image_ppd))
                return bad("--range-image-ppd", val, "pixels per degree, 0.5..200");
            break;
        case O_STATS:
            a->stats = 1;
            break;
        case O_QUIET:
            a->quiet = 1;
            break;
        case O_OUSTER_PROFILE:
            if (strcmp(val, "RNG19_RFL8_SIG16_NIR16") != 0 && strcmp(val, "RNG19_RFL8_SIG16_NIR16_DUAL") != 0 &&
                strcmp(val, "RNG15_RFL8_NIR8") != 0 && strcmp(val, "LEGACY") != 0)
                return bad("--ouster-profile", val,
                           "RNG19_RFL8_SIG16_NIR16, RNG19_RFL8_SIG16_NIR16_DUAL, RNG15_RFL8_NIR8 or LEGACY");
            a->options.packet_profile = val;
            break;
        default: /* LSIM_OPT_ARG */
            if (a->scene) {
                fprintf(stderr, "lidarsim scan: unexpected argument '%s' (one scene file only)\n", val);
                return LSIM_EXIT_USAGE;
            }
            a->scene = val;
        }
    }
    if (!a->scene || !a->output) {
        fprintf(stderr, "lidarsim scan: %s\n", !a->scene ? "missing the scene file (SCENE.yaml)" : "missing -o OUT");
        scan_usage(stderr);
        return LSIM_EXIT_USAGE;
    }
    return 0;
}

static int fail(lsim_context *ctx, const char *what)
{
    fprintf(stderr, "lidarsim scan: %s: %s\n", what, lsim_context_last_error(ctx));
    return LSIM_EXIT_FAILURE;
}

static int is_stdout(const char *path) { return path && strcmp(path, "-") == 0; }

/* Whether `path` can be written (lsim_path_check_writable: a missing or read-only directory is
 * reported before the scan; standard output, devices and FIFOs are not opened). */
static int check_writable(lsim_context *ctx, const char *path, const char *what)
{
    if (lsim_path_check_writable(ctx, path) != LSIM_OK) {
        fprintf(stderr, "lidarsim scan: cannot write %s: %s\n", what, lsim_context_last_error(ctx));
        return LSIM_EXIT_FAILURE;
    }
    return LSIM_EXIT_OK;
}

/* KITTI's .label or .labels.yaml beside a .bin path, into `out`; 0 when it does not fit. */
static int kitti_sibling(char *out, size_t size, const char *bin_path, const char *suffix)
{
    int n = snprintf(out, size, "%.*s%s", (int)(strlen(bin_path) - 4), bin_path, suffix);
    return n >= 0 && (size_t)n < size;
}

/* Output checks that need no scene, before the (possibly long) scan: the format, the KITTI name,
 * and whether each destination can be written, so that a missing or read-only directory is
 * reported at once and nothing is left. */
static int check_outputs(lsim_context *ctx, const scan_args *a, lsim_format *resolved)
{
    if (is_stdout(a->output) + is_stdout(a->bev) + is_stdout(a->range_image) > 1) {
        fprintf(stderr, "lidarsim scan: only one output can go to standard output ('-'); give the others file "
                "names\n");
        return LSIM_EXIT_USAGE;
    }
    /* the format, and whether it can go there (standard output, a FIFO, KITTI's .bin name) */
    if (lsim_points_check_output(ctx, a->output, a->format, resolved) != LSIM_OK) {
        fprintf(stderr, "lidarsim scan: %s\n", lsim_context_last_error(ctx));
        return LSIM_EXIT_USAGE;
    }
    if (a->frames > 1 && *resolved != LSIM_FORMAT_MCAP && *resolved != LSIM_FORMAT_PCAP) {
        fprintf(stderr, "lidarsim scan: --frames %ld: a %s file holds one frame; write MCAP (.mcap or --format mcap) "
                "or a pcap for several frames in one file, or run one scan per frame with --scan-time and "
                "--frame-index\n", a->frames, lsim_format_name(*resolved));
        return LSIM_EXIT_USAGE;
    }
    if (a->options.packet_profile && *resolved != LSIM_FORMAT_PCAP) {
        fprintf(stderr, "lidarsim scan: --ouster-profile applies to a pcap output (.pcap or --format pcap), not to "
                "a %s file\n", lsim_format_name(*resolved));
        return LSIM_EXIT_USAGE;
    }
    if (a->frames > 1 && (a->bev || a->range_image)) {
        fprintf(stderr, "lidarsim scan: --frames %ld cannot go with --bev or --range-image (one image per frame); "
                "scan the frame you want an image of on its own\n", a->frames);
        return LSIM_EXIT_USAGE;
    }
    int clash = a->bev && strcmp(a->bev, a->output) == 0;
    for (int i = 0; i < 2 && a->bev && !clash && *resolved == LSIM_FORMAT_KITTI; ++i) {
        char sibling[4096];
        clash = !kitti_sibling(sibling, sizeof sibling, a->output, i ? ".labels.yaml" : ".label") ||
                strcmp(sibling, a->bev) == 0;
    }
    if (clash) {
        fprintf(stderr, "lidarsim scan: --bev '%s' is one of the point cloud's output files; give the image its "
                "own name\n", a->bev);
        return LSIM_EXIT_USAGE;
    }
    int rc = check_writable(ctx, a->output, "the point cloud");
    if (rc == LSIM_EXIT_OK && a->bev)
        rc = check_writable(ctx, a->bev, "the bird's-eye image");
    if (rc == LSIM_EXIT_OK && a->range_image) {
        if (strcmp(a->range_image, a->output) == 0 || (a->bev && strcmp(a->range_image, a->bev) == 0)) {
            fprintf(stderr, "lidarsim scan: --range-image '%s' is another output's path; give it its own name\n",
                    a->range_image);
            return LSIM_EXIT_USAGE;
        }
        rc = check_writable(ctx, a->range_image, "the range image");
    }
    return rc;
}

/* A pcap with --bev or --range-image: the images first, then the pcap (and an Ouster's metadata
 * JSON), which needs the sensor; when the pcap fails, the images are removed again. */
static int write_pcap_last(lsim_context *ctx, const scan_args *a, const lsim_sensor *sensor, lsim_points *points)
{
    int rc = LSIM_EXIT_OK;
    if (a->bev && lsim_points_write_birdseye(points, a->bev, (int)a->bev_pixels, a->bev_extent) != LSIM_OK)
        return fail(ctx, "cannot write the bird's-eye image");
    if (a->range_image && lsim_points_write_range_image(points, a->range_image, a->range_image_ppd) != LSIM_OK)
        rc = fail(ctx, "cannot write the range image");
    else if (lsim_points_write_recording(points, sensor, a->output, a->options.packet_profile,
                                         a->options.frame_index) != LSIM_OK)
        rc = fail(ctx, "cannot write the pcap");
    if (rc != LSIM_EXIT_OK && a->bev)
        lsim_points_file_remove(ctx, a->bev, LSIM_FORMAT_AUTO);
    if (rc != LSIM_EXIT_OK && a->range_image && !is_stdout(a->range_image))
        lsim_points_file_remove(ctx, a->range_image, LSIM_FORMAT_AUTO);
    return rc;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

int lsim_cmd_scan(int argc, char **argv)
{
    scan_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? LSIM_EXIT_OK : rc;
    lsim_context *ctx = NULL;
    if (lsim_context_create(&ctx) != LSIM_OK) {
        fprintf(stderr, "lidarsim scan: out of memory\n");
        return LSIM_EXIT_FAILURE;
    }
    lsim_context_set_import_limits(ctx, a.import_seconds, a.import_mb * 1e6); /* ranges checked above */
    lsim_context_track_inputs(ctx, 1); /* no output may replace a file the scene reads */
    lsim_scene *scene = NULL;
    lsim_sensor *sensor = NULL;
    lsim_points *points = NULL;
    lsim_format format = LSIM_FORMAT_AUTO;
    rc = check_outputs(ctx, &a, &format);
    if (rc != LSIM_EXIT_OK) {
        lsim_context_destroy(ctx);
        return rc;
    }
    if (a.fields && format == LSIM_FORMAT_PCAP) {
        fprintf(stderr, "lidarsim scan: --fields does not apply to a pcap, which holds what the sensor's packets "
                        "hold; write .pcd, .ply or .csv to choose columns\n");
        lsim_context_destroy(ctx);
        return LSIM_EXIT_USAGE;
    }
    if (a.fields && format == LSIM_FORMAT_KITTI) { /* LAS and MCAP take --fields (x, y, z always) */
        fprintf(stderr, "lidarsim scan: --fields does not apply to a KITTI .bin, whose columns are fixed (x, y, z, "
                        "reflectivity; label and instance in the .label); write .pcd, .ply or .csv to choose columns\n");
        lsim_context_destroy(ctx);
        return LSIM_EXIT_USAGE;
    }
    /* Fill only the point fields the outputs write: a KITTI frame then needs far less memory. */
    const uint32_t columns = lsim_format_columns(format, a.fields);
    a.options.fields = columns | (a.bev ? LSIM_BIRDSEYE_FIELDS : 0u) | (a.range_image ? LSIM_RANGE_IMAGE_FIELDS : 0u);
    /* Without images, the cloud is streamed: points are emitted and written a slice at a time, so
     * no frame-sized point buffer is needed (the same bytes). The PNGs need every point at once,
     * so with --bev or --range-image the whole frame is scanned into a point buffer first. */
    const int streamed = !a.bev && !a.range_image;
    lsim_scan_stats stats = {0};
    size_t point_count = 0;
    if (lsim_scene_load(ctx, a.scene, &scene, &sensor) != LSIM_OK) {
        rc = fail(ctx, "cannot load the scene");
    } else if ((a.output && !is_stdout(a.output) && lsim_context_check_output(ctx, a.output) != LSIM_OK) ||
               (a.bev && !is_stdout(a.bev) && lsim_context_check_output(ctx, a.bev) != LSIM_OK) ||
               (a.range_image && !is_stdout(a.range_image) && lsim_context_check_output(ctx, a.range_image) != LSIM_OK)) {
        rc = fail(ctx, "refusing to overwrite an input"); /* before the work, not only when writing */
    } else if (a.engine >= 0 && lsim_scene_set_engine(scene, (lsim_engine_kind)a.engine) != LSIM_OK) {
        rc = fail(ctx, "cannot select the engine");
    } else if (streamed) {
        /* a bar on a terminal (stderr) when the frames take more than a second; --quiet: none */
        lsim_status st = lsim_scene_scan_write_progress(scene, sensor, &a.options, (unsigned)a.frames, a.output,
                                                        a.format, a.quiet ? LSIM_PROGRESS_OFF : LSIM_PROGRESS_BAR,
                                                        &stats);
        if (st != LSIM_OK) /* a frame that could not be computed, or an output that could not be written */
            rc = fail(ctx, format == LSIM_FORMAT_PCAP ? "cannot write the pcap"
                           : stats.rays ? "cannot write the point cloud" : "scan failed");
        point_count = stats.hits + (a.options.keep_misses ? stats.rays - stats.beams_returned : 0);
    } else if (lsim_scene_scan(scene, sensor, &a.options, &points) != LSIM_OK) {
        rc = fail(ctx, "scan failed");
    }
    if (rc == LSIM_EXIT_OK && !streamed) {
        lsim_points_get_stats(points, &stats);
        double t0 = now_ms();
        if (format == LSIM_FORMAT_PCAP)
            rc = write_pcap_last(ctx, &a, sensor, points);
        else if (lsim_points_write_fields(points, a.output, a.format, columns) != LSIM_OK)
            rc = fail(ctx, "cannot write the point cloud");
        else if (a.bev && lsim_points_write_birdseye(points, a.bev, (int)a.bev_pixels, a.bev_extent) != LSIM_OK) {
            rc = fail(ctx, "cannot write the bird's-eye image");
            lsim_points_file_remove(ctx, a.output, format); /* all or nothing */
        } else if (a.range_image && lsim_points_write_range_image(points, a.range_image, a.range_image_ppd) != LSIM_OK) {
            rc = fail(ctx, "cannot write the range image");
            lsim_points_file_remove(ctx, a.output, format);
            if (a.bev)
                lsim_points_file_remove(ctx, a.bev, LSIM_FORMAT_AUTO);
        }
        stats.write_ms = now_ms() - t0;
        stats.total_ms += stats.write_ms;
        point_count = lsim_points_count(points);
    }
    if (rc == LSIM_EXIT_OK && !a.quiet) {
        /* Keep standard output for the data when an output goes there. */
        FILE *summary = is_stdout(a.output) || is_stdout(a.bev) || is_stdout(a.range_image) ? stderr : stdout;
        fprintf(summary, "lidarsim: %s, %llu beams, %zu points (%.1f%% of beams returned), frame %.1f ms, total %.1f ms "
               "(load %.1f, build %.1f, write %.1f), wrote %s%s%s\n",
               lsim_sensor_name(sensor), (unsigned long long)stats.rays, point_count,
               stats.rays ? 100.0 * (double)stats.beams_returned / (double)stats.rays : 0.0,
               stats.trace_ms + stats.shade_ms + stats.noise_ms, stats.total_ms, stats.load_ms, stats.build_ms,
               stats.write_ms, is_stdout(a.output) ? "standard output" : a.output, a.bev ? " and " : "",
               a.bev ? (is_stdout(a.bev) ? "standard output" : a.bev) : "");
    }
    if (rc == LSIM_EXIT_OK && a.stats)
        fprintf(stderr,
                "{\"rays\": %llu, \"hits\": %llu, \"beams_returned\": %llu, \"load_ms\": %.3f, \"build_ms\": %.3f, "
                "\"trace_ms\": %.3f, \"shade_ms\": %.3f, \"noise_ms\": %.3f, \"write_ms\": %.3f, \"total_ms\": %.3f}\n",
                (unsigned long long)stats.rays, (unsigned long long)stats.hits,
                (unsigned long long)stats.beams_returned, stats.load_ms, stats.build_ms,
                stats.trace_ms, stats.shade_ms, stats.noise_ms, stats.write_ms, stats.total_ms);
    lsim_points_destroy(points);
    lsim_sensor_destroy(sensor);
    lsim_scene_destroy(scene);
    lsim_context_destroy(ctx);
    return rc;
}
