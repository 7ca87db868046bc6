/* lidarsim render POINTS -o PNG: a picture of a point file lidarsim wrote, read with
 * lsim_points_read and drawn by lsim_points_render. */
#include "args.h"
#include "commands.h"
#include "opts.h"

#include "lidarsim.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct render_args {
    const char *points, *output, *view, *color;
    long width, height;
    double extent;
    int have_extent;
    const char *metadata; /* a recording's calibration (--metadata) */
    long frame;
    int partial, recording;
} render_args;

static const char *const VIEWS[] = {"bev", "range", "perspective"};
static const char *const COLORS[] = {"intensity", "label", "range", "epw", "reflectivity"};
static const lsim_field COLOR_FIELDS[] = {LSIM_FIELD_INTENSITY, LSIM_FIELD_LABEL, LSIM_FIELD_RANGE, LSIM_FIELD_EPW,
                                          LSIM_FIELD_REFLECTIVITY};
#define N_COLORS 5

static void render_usage(FILE *out)
{
    fprintf(out,
            "usage: lidarsim render POINTS -o PNG [options]\n\n"
            "Draw a point file (CSV with a header, PCD, PLY, LAS or a KITTI .bin: x, y, z and\n"
            "the colouring field) as a PNG with a title, axes in metres or degrees, and a colour bar with\n"
            "units (or, coloured by label, a legend of the SemanticKITTI classes present); the title says\n"
            "how many points are in view. A world-frame PCD is drawn from its sensor (its VIEWPOINT): the\n"
            "bird's-eye view centred on it, the others from its pose. A dataset frame\n"
            "(DIR/velodyne/NNNNNN.bin) takes its labels from DIR/labels/NNNNNN.label.\n\n"
            "  -o, --output PNG         the picture (written atomically)\n"
            "  --view bev|range|perspective\n"
            "                           bird's-eye (x up, y left; default), range image (azimuth,\n"
            "                           elevation) or a 90-degree perspective view from the sensor along +x\n"
            "  --color intensity|label|range|epw|reflectivity\n"
            "                           the field that colours the points (default intensity, on a log\n"
            "                           scale, or reflectivity where the file has no intensity, as LAS;\n"
            "                           the others linear); the file must hold it:\n"
            "                           `lidarsim scan SCENE -o P.pcd --fields x,y,z,epw`\n"
            "  --size WxH               picture size in pixels, 200..8192 each (default 1024x768)\n"
            "  --extent M               bev: half width in metres (default 50); range, perspective:\n"
            "                           leave out points farther than M metres (default: none)\n"
            "Recordings (a pcap of an Ouster's or a Velodyne's packets; docs/formats.md):\n"
            "  --metadata FILE          the unit's calibration: an Ouster's metadata JSON, a Velodyne's\n"
            "                           laser table (JSON, ROS YAML, VeloView XML); a Velodyne recording\n"
            "                           without one is read with its model's built-in table\n"
            "  --frame N                the frame to draw, from 0 (default 0): complete frames only\n"
            "  --partial                count incomplete frames too (a recording's first and last)\n"
            "  -h, --help  this help (on standard output);  --version  print the version\n");
}

static int pick(const char *opt, const char *val, const char *const *names, int n, const char *valid)
{
    for (int i = 0; i < n; ++i)
        if (strcmp(val, names[i]) == 0)
            return i;
    lsim_arg_invalid("render", opt, val, valid);
    return -1;
}

static int parse_args(int argc, char **argv, render_args *a)
{
    memset(a, 0, sizeof *a);
    a->view = "bev";
    a->color = NULL; /* intensity, else reflectivity */
    a->width = 1024;
    a->height = 768;
    a->extent = 50.0;
    static const struct option longopts[] = {
        LSIM_OPTS_COMMON,
        {"output", required_argument, NULL, 'o'},
        {"view", required_argument, NULL, 0},
        {"color", required_argument, NULL, 0},
        {"size", required_argument, NULL, 0},
        {"extent", required_argument, NULL, 0},
        {"metadata", required_argument, NULL, 0},
        {"frame", required_argument, NULL, 0},
        {"partial", no_argument, NULL, 0},
        {0, 0, 0, 0}};
    lsim_opts g;
    lsim_opts_init(&g, "render", argc, argv, "ho:", longopts, render_usage);
    for (int c; (c = lsim_opts_next(&g)) != LSIM_OPT_END;) {
        if (c == LSIM_OPT_ERROR)
            return LSIM_EXIT_USAGE;
        if (c == LSIM_OPT_EXIT)
            return -1;
        /* getopt_long has matched the option and its value: dispatch on its full name */
        const char *opt = c == LSIM_OPT_ARG ? "" : g.name, *val = g.arg;
        if (c != LSIM_OPT_ARG) { /* every other option takes a value */
            if (!strcmp(opt, "--partial")) {
                a->partial = a->recording = 1;
            } else if (!strcmp(opt, "--metadata")) {
                a->metadata = val;
                a->recording = 1;
            } else if (!strcmp(opt, "--frame")) {
                if (lsim_arg_long(val, 0, 1000000000L, &a->frame))
                    return lsim_arg_invalid("render", opt, val, "a frame number from 0");
                a->recording = 1;
            } else if (!strcmp(opt, "-o") || !strcmp(opt, "--output")) {
                a->output = val;
            } else if (!strcmp(opt, "--view")) {
                if (pick(opt, val, VIEWS, 3, "bev, range or perspective") < 0)
                    return LSIM_EXIT_USAGE;
                a->view = val;
            } else if (!strcmp(opt, "--color")) {
                if (pick(opt, val, COLORS, N_COLORS, "intensity, label, range, epw or reflectivity") < 0)
                    return LSIM_EXIT_USAGE;
                a->color = val;
            } else if (!strcmp(opt, "--size")) {
                if (lsim_arg_size(val, LSIM_RENDER_MIN_SIDE, LSIM_RENDER_MAX_SIDE, &a->width, &a->height))
                    return lsim_arg_invalid("render", opt, val, "WIDTHxHEIGHT, each 200..8192 pixels (e.g. 1024x768)");
            } else if (lsim_arg_double(val, 1e-3, 1e6, &a->extent)) {
                return lsim_arg_invalid("render", opt, val, "a number of metres > 0");
            } else {
                a->have_extent = 1;
            }
        } else if (!a->points) {
            a->points = val;
        } else {
            fprintf(stderr, "lidarsim render: unexpected argument '%s' (one point file only)\n", val);
            return LSIM_EXIT_USAGE;
        }
    }
    if (!a->points || !a->output) {
        fprintf(stderr, "lidarsim render: %s is missing\n", !a->points ? "the point file (POINTS)" : "-o PNG");
        render_usage(stderr);
        return LSIM_EXIT_USAGE;
    }
    return LSIM_EXIT_OK;
}

int lsim_cmd_render(int argc, char **argv)
{
    render_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? LSIM_EXIT_OK : rc;
    lsim_context *ctx;
    if (lsim_context_create(&ctx) != LSIM_OK) {
        fprintf(stderr, "lidarsim render: out of memory\n");
        return LSIM_EXIT_FAILURE;
    }
    lsim_context_track_inputs(ctx, 1); /* the picture may not replace the point file (or its .label) */
    const int view = pick("--view", a.view, VIEWS, 3, "");
    int color = a.color ? pick("--color", a.color, COLORS, N_COLORS, "") : 0;
    lsim_points *points = NULL;
    const uint32_t fields = LSIM_FIELD_BIT(LSIM_FIELD_X) | LSIM_FIELD_BIT(LSIM_FIELD_Y) |
                            LSIM_FIELD_BIT(LSIM_FIELD_Z) | LSIM_FIELD_BIT(COLOR_FIELDS[color]) |
                            (a.color ? 0u : LSIM_FIELD_BIT(LSIM_FIELD_REFLECTIVITY));
    lsim_recording_options ro;
    lsim_recording_options_init(&ro);
    ro.frame = a.frame;
    ro.partial = a.partial;
    ro.fields = fields;
    const size_t len = strlen(a.points);
    const int recording = a.recording || (len > 5 && !strcmp(a.points + len - 5, ".pcap")) ||
                          (len > 7 && !strcmp(a.points + len - 7, ".pcapng"));
    if ((recording ? lsim_points_read_recording(ctx, a.points, a.metadata, &ro, &points)
                   : lsim_points_read(ctx, a.points, fields, &points)) != LSIM_OK ||
        lsim_context_check_output(ctx, a.output) != LSIM_OK) {
        fprintf(stderr, "lidarsim render: %s\n", lsim_context_last_error(ctx));
        lsim_context_destroy(ctx);
        return LSIM_EXIT_FAILURE;
    }
    if (!a.color && !lsim_points_column(points, LSIM_FIELD_INTENSITY) &&
        lsim_points_column(points, LSIM_FIELD_REFLECTIVITY))
        color = N_COLORS - 1; /* a LAS file: its intensity is the reflectivity */
    a.color = COLORS[color];
    const lsim_field field = COLOR_FIELDS[color];
    if (!lsim_points_column(points, field)) {
        fprintf(stderr, "lidarsim render: '%s' has no '%s' field, which --color %s needs; write the points with it "
                "(`lidarsim scan SCENE -o POINTS --fields x,y,z,%s`, or without --fields: every field) or "
                "choose another --color\n", a.points, a.color, a.color, a.color);
        lsim_points_destroy(points);
        lsim_context_destroy(ctx);
        return LSIM_EXIT_FAILURE;
    }
    const size_t count = lsim_points_count(points);
    char title[512];
    const char *base = strrchr(a.points, '/');
    snprintf(title, sizeof title, "%.300s: %s view, coloured by %s", base ? base + 1 : a.points,
             view == 0 ? "bird's-eye" : view == 1 ? "range-image" : "perspective", a.color); /* + drawn of count */
    lsim_render_options o;
    lsim_render_options_init(&o);
    o.view = (lsim_render_view)view;
    o.color = field;
    o.width = (int)a.width;
    o.height = (int)a.height;
    o.extent_m = view == 0 || a.have_extent ? a.extent : 0.0;
    o.title = title;
    lsim_render_layout L;
    lsim_status st = lsim_points_render(points, a.output, &o, &L);
    lsim_points_destroy(points);
    if (st != LSIM_OK) {
        fprintf(stderr, "lidarsim render: %s\n", lsim_context_last_error(ctx));
        lsim_context_destroy(ctx);
        return LSIM_EXIT_FAILURE;
    }
    printf("lidarsim render: wrote %s (%ldx%ld, %s view, colour %s): %zu of %zu points drawn; plot %d,%d,%d,%d; "
           "key %d,%d,%d,%d; title %d,%d",
           a.output, a.width, a.height, a.view, a.color, L.drawn, count, L.plot_x0, L.plot_y0, L.plot_x1,
           L.plot_y1, L.key_x0, L.key_y0, L.key_x1, L.key_y1, L.title_y0, L.title_y1);
    if (color == 1)
        printf("; %d classes\n", L.classes);
    else
        printf("; colour bar %g..%g\n", L.value_lo, L.value_hi);
    lsim_context_destroy(ctx);
    return LSIM_EXIT_OK;
}
