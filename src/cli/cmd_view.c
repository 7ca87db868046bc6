/* lidarsim view SCENE.yaml: a live OpenGL viewer of the scene, its sensor, beams and points, or
 * one frame of it as a PNG (--screenshot). This file parses the arguments into lsim_view_options;
 * lsim_view_run (include/lidarsim.h) does the rest. */
#include "args.h"
#include "commands.h"
#include "opts.h"

#include "lidarsim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void view_usage(FILE *out)
{
    fprintf(out,
            "usage: lidarsim view SCENE.yaml [options]\n\n"
            "A window (GLFW, OpenGL 3.3) showing the scene's triangles (coloured by label), the sensor\n"
            "(white marker, axes x red, y green, z blue), the beams as lines from the sensor to each hit\n"
            "(coloured by intensity) and the points. Keys move the sensor and re-scan the frame:\n"
            "  left drag orbit, right drag pan, scroll zoom\n"
            "  W/S forward/back, A/D left/right, Q/E up/down (0.5 m), Left/Right arrows yaw (5 deg)\n"
            "  Space beams on/off, L points by label/intensity, M scene by material/label, Esc quit\n\n"
            "  --screenshot FILE.png     render one frame off-screen into FILE.png and exit (no window shown)\n"
            "  --size WxH                window or screenshot size in pixels (default 1280x800; 16..8192)\n"
            "  --camera EX,EY,EZ,TX,TY,TZ  eye and target in the world (m); default: 35 m behind and above\n"
            "                            the sensor (60 deg up), looking at it\n"
            "  --sensor-position X,Y,Z   move the sensor there (world, m) before the first scan\n"
            "  --sensor-yaw DEG          turn the sensor to this yaw before the first scan\n"
            "  --beams N                 draw at most N beam lines (every k-th beam; default 5000; 0: none)\n"
            "  --no-beams                start with the beam lines off\n"
            "  --color intensity|label   colour the points by intensity (default) or label\n"
            "  --scene-color label|material  colour the scene's triangles by label (default) or material\n"
            "  --threads N               scan threads, 0 = all cores (default 0)\n"
            "  --quiet                   no key help and no line per scan\n\n"
            "Needs a display: run it on a desktop (DISPLAY set), or headless under a virtual X server:\n"
            "  xvfb-run -a -s \"-screen 0 1024x768x24\" lidarsim view SCENE.yaml --screenshot out.png\n"
            "  -h, --help  this help (on standard output);  --version  print the version\n");
}

/* "a,b,c,..." with exactly n finite numbers within +-1e7; 0 on success. */
static int parse_numbers(const char *s, int n, double *out)
{
    char buf[512];
    if (strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    /* split on every comma (strtok would skip empty fields: "1,,2" must be refused) */
    char *tok = buf;
    int k = 0;
    for (;;) {
        char *comma = strchr(tok, ',');
        if (comma)
            *comma = 0;
        if (k == n || lsim_arg_double(tok, -1e7, 1e7, &out[k]))
            return -1;
        ++k;
        if (!comma)
            break;
        tok = comma + 1;
    }
    return k == n ? 0 : -1;
}

static int parse_args(int argc, char **argv, lsim_view_options *o)
{
    lsim_view_options_init(o);
    static const struct option longopts[] = {
        LSIM_OPTS_COMMON,
        {"screenshot", required_argument, NULL, 0},
        {"size", required_argument, NULL, 0},
        {"camera", required_argument, NULL, 0},
        {"sensor-position", required_argument, NULL, 0},
        {"sensor-yaw", required_argument, NULL, 0},
        {"beams", required_argument, NULL, 0},
        {"color", required_argument, NULL, 0},
        {"scene-color", required_argument, NULL, 0},
        {"threads", required_argument, NULL, 0},
        {"no-beams", no_argument, NULL, 0},
        {"quiet", no_argument, NULL, 0},
        {0, 0, 0, 0}};
    lsim_opts g;
    lsim_opts_init(&g, "view", argc, argv, "h", longopts, view_usage);
    for (int c; (c = lsim_opts_next(&g)) != LSIM_OPT_END;) {
        if (c == LSIM_OPT_ERROR)
            return LSIM_EXIT_USAGE;
        if (c == LSIM_OPT_EXIT)
            return -1;
        /* getopt_long has matched the option and its value: dispatch on its full name */
        const char *opt = c == LSIM_OPT_ARG ? "" : g.name, *val = g.arg;
        long n;
        if (strcmp(opt, "--screenshot") == 0) {
            o->screenshot = val;
        } else if (strcmp(opt, "--size") == 0) {
            long w, h;
            if (lsim_arg_size(val, 16, 8192, &w, &h))
                return lsim_arg_invalid("view", opt, val, "WxH, each 16..8192 pixels (e.g. 640x480)");
            o->width = (int)w, o->height = (int)h;
        } else if (strcmp(opt, "--camera") == 0) {
            double c[6];
            if (parse_numbers(val, 6, c))
                return lsim_arg_invalid("view", opt, val, "eye_x,eye_y,eye_z,target_x,target_y,target_z (metres)");
            memcpy(o->eye, c, sizeof o->eye);
            memcpy(o->target, c + 3, sizeof o->target);
            o->has_camera = 1;
        } else if (strcmp(opt, "--sensor-position") == 0) {
            if (parse_numbers(val, 3, o->sensor_position))
                return lsim_arg_invalid("view", opt, val, "x,y,z in metres, each within +-1e7");
            o->has_sensor_position = 1;
        } else if (strcmp(opt, "--sensor-yaw") == 0) {
            if (lsim_arg_double(val, -3600, 3600, &o->sensor_yaw_deg))
                return lsim_arg_invalid("view", opt, val, "degrees within +-3600");
            o->has_sensor_yaw = 1;
        } else if (strcmp(opt, "--beams") == 0) {
            if (lsim_arg_long(val, 0, 100000000L, &o->max_beams))
                return lsim_arg_invalid("view", opt, val, "an integer 0..100000000");
        } else if (strcmp(opt, "--no-beams") == 0) {
            o->hide_beams = 1;
        } else if (strcmp(opt, "--color") == 0) {
            if (strcmp(val, "intensity") != 0 && strcmp(val, "label") != 0)
                return lsim_arg_invalid("view", opt, val, "intensity or label");
            o->colour_by_label = strcmp(val, "label") == 0;
        } else if (strcmp(opt, "--scene-color") == 0) {
            if (strcmp(val, "label") != 0 && strcmp(val, "material") != 0)
                return lsim_arg_invalid("view", opt, val, "label or material");
            o->colour_by_material = strcmp(val, "material") == 0;
        } else if (strcmp(opt, "--threads") == 0) {
            if (lsim_arg_long(val, 0, 1024, &n))
                return lsim_arg_invalid("view", opt, val, "an integer 0..1024 (0 = all cores)");
            o->threads = (int)n;
        } else if (strcmp(opt, "--quiet") == 0) {
            o->quiet = 1;
        } else if (!o->scene) {
            o->scene = val;
        } else {
            fprintf(stderr, "lidarsim view: unexpected argument '%s' (one scene only)\n", val);
            return LSIM_EXIT_USAGE;
        }
    }
    if (!o->scene) {
        fprintf(stderr, "lidarsim view: missing the scene (SCENE.yaml); see lidarsim view --help\n");
        return LSIM_EXIT_USAGE;
    }
    return LSIM_EXIT_OK;
}

int lsim_cmd_view(int argc, char **argv)
{
    lsim_view_options o;
    int rc = parse_args(argc, argv, &o);
    if (rc != LSIM_EXIT_OK)
        return rc < 0 ? LSIM_EXIT_OK : rc;
    lsim_context *ctx;
    if (lsim_context_create(&ctx) != LSIM_OK) {
        fprintf(stderr, "lidarsim view: out of memory\n");
        return LSIM_EXIT_FAILURE;
    }
    lsim_status st = lsim_view_run(ctx, &o);
    if (st != LSIM_OK)
        fprintf(stderr, "lidarsim view: %s\n", lsim_context_last_error(ctx));
    lsim_context_destroy(ctx);
    return st == LSIM_OK ? LSIM_EXIT_OK : LSIM_EXIT_FAILURE;
}
