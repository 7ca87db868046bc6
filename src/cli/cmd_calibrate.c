/* lidarsim calibrate: calibrated noise from real scans of benchmark boards (docs/calibration.md).
 *   lidarsim calibrate CONFIG -o CALIBRATION.yaml            (data.config or YAML, several materials)
 *   lidarsim calibrate --scan FILE --name NAME --width W -o CALIBRATION.yaml   (one material) */
#include "calib/calib_config.h"
#include "calib/calibrate.h"
#include "calib/calibration.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "core/progress.h"
#include "cli/opts.h"
#include "core/text.h"
#include "core/vec.h"
#include "io/atomic_file.h"

#include "lidarsim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct calib_args {
    const char *config, *output, *scan, *name, *brdf, *sensor, *view;
    double width, distance, roughness, ior, bin_width, direction, window;
    int has_width, has_distance, has_roughness, has_ior, has_bin_width, has_direction, has_window;
    uint64_t seed;
    int json, quiet;
} calib_args;

static void calibrate_usage(FILE *out)
{
    fprintf(out,
            "usage: lidarsim calibrate CONFIG -o CALIBRATION.yaml [options]\n"
            "       lidarsim calibrate --scan FILE --name NAME --width W -o CALIBRATION.yaml [options]\n\n"
            "Finds each benchmark board in its scan (robust line fit), bins the beams by incidence angle,\n"
            "fits the material's BRDF to the bins and writes a calibration file (docs/calibration.md).\n"
            "CONFIG: the thesis's data.config (name,file,distance_m,width_m,ON|CT,roughness,fresnel) or YAML.\n\n"
            "  -o, --output FILE      calibration file to write (YAML); optional with --json\n"
            "  --bin-width DEG        incidence-angle bin width, 0.05..45 (default 2, or the YAML's bin_width_deg)\n"
            "  --sensor NAME          sensor recorded in the file (default: the YAML's sensor, else rplidar-a1)\n"
            "  --direction DEG        expected direction of the board centre, sensor frame (default 180)\n"
            "  --window DEG           half-width of the window searched for the board (default 80)\n"
            "  --seed N               seed of the RANSAC line search (default 0)\n"
            "  --view DIR             also draw each material's calibration view, DIR/NAME_view.png (the\n"
            "                         board and the beams on it, coloured by mean intensity x (1 - drop rate))\n"
            "  --json                 print a JSON summary on stdout instead of the text summary\n"
            "  --quiet                no text summary and no progress bar (drawn on a terminal when the\n"
            "                         materials take more than a second)\n"
            "one material (instead of CONFIG):\n"
            "  --scan FILE            scan: `range_m,intensity,angle_rad` lines or a ROS LaserScan text dump\n"
            "  --name NAME            material name (letters, digits, '_', '-', '.')\n"
            "  --width W              board width in metres\n"
            "  --distance D           hand-measured distance in metres (reported beside the fitted one)\n"
            "  --brdf B               oren-nayar | cook-torrance | lambertian (default oren-nayar)\n"
            "  --roughness R          starting roughness of the fit\n"
            "  --ior N                index of refraction (cook-torrance)\n"
            "  -h, --help  this help (on standard output);  --version  print the version\n");
}

static int bad(const char *opt, const char *value, const char *valid)
{
    return lsim_arg_invalid("calibrate", opt, value, valid);
}

static int parse_args(int argc, char **argv, calib_args *a)
{
    memset(a, 0, sizeof *a);
    static const struct option longopts[] = {
        LSIM_OPTS_COMMON,
        {"output", required_argument, NULL, 'o'},
        {"bin-width", required_argument, NULL, 0},
        {"sensor", required_argument, NULL, 0},
        {"direction", required_argument, NULL, 0},
        {"window", required_argument, NULL, 0},
        {"seed", required_argument, NULL, 0},
        {"view", required_argument, NULL, 0},
        {"scan", required_argument, NULL, 0},
        {"name", required_argument, NULL, 0},
        {"width", required_argument, NULL, 0},
        {"distance", required_argument, NULL, 0},
        {"brdf", required_argument, NULL, 0},
        {"roughness", required_argument, NULL, 0},
        {"ior", required_argument, NULL, 0},
        {"json", no_argument, NULL, 0},
        {"quiet", no_argument, NULL, 0},
        {0, 0, 0, 0}};
    lsim_opts g;
    lsim_opts_init(&g, "calibrate", argc, argv, "ho:", longopts, calibrate_usage);
    for (int c; (c = lsim_opts_next(&g)) != LSIM_OPT_END;) {
        if (c == LSIM_OPT_ERROR)
            return LSIM_EXIT_USAGE;
        if (c == LSIM_OPT_EXIT)
            return -1;
        /* getopt_long has matched the option and its value: dispatch on its full name */
        const char *opt = c == LSIM_OPT_ARG ? "" : g.name, *val = g.arg;
        if (strcmp(opt, "-o") == 0 || strcmp(opt, "--output") == 0) {
            a->output = val;
        } else if (strcmp(opt, "--bin-width") == 0) {
            if (lsim_arg_double(val, 0.05, 45.0, &a->bin_width))
                return bad("--bin-width", val, "degrees, 0.05..45");
            a->has_bin_width = 1;
        } else if (strcmp(opt, "--sensor") == 0) {
            if (!lsim_calib_name_valid(val))
                return bad("--sensor", val, "1 to 63 letters, digits, '_', '-', '.' (e.g. rplidar-a1)");
            a->sensor = val;
        } else if (strcmp(opt, "--direction") == 0) {
            if (lsim_arg_double(val, -720.0, 720.0, &a->direction))
                return bad("--direction", val, "degrees within +-720");
            a->has_direction = 1;
        } else if (strcmp(opt, "--window") == 0) {
            if (lsim_arg_double(val, 1e-3, 180.0, &a->window))
                return bad("--window", val, "degrees, (0, 180]");
            a->has_window = 1;
        } else if (strcmp(opt, "--seed") == 0) {
            if (lsim_arg_u64(val, &a->seed))
                return bad("--seed", val, "an integer 0..18446744073709551615");
        } else if (strcmp(opt, "--view") == 0) {
            if (!*val)
                return bad(opt, val, "a folder for the view PNGs");
            a->view = val;
        } else if (strcmp(opt, "--json") == 0) {
            a->json = 1;
        } else if (strcmp(opt, "--quiet") == 0) {
            a->quiet = 1;
        } else if (strcmp(opt, "--scan") == 0) {
            a->scan = val;
        } else if (strcmp(opt, "--name") == 0) {
            if (!lsim_calib_name_valid(val))
                return bad("--name", val, "1 to 63 letters, digits, '_', '-', '.'");
            a->name = val;
        } else if (strcmp(opt, "--width") == 0) {
            if (lsim_arg_double(val, 1e-6, 100.0, &a->width))
                return bad("--width", val, "the board width in metres, > 0 and <= 100");
            a->has_width = 1;
        } else if (strcmp(opt, "--distance") == 0) {
            if (lsim_arg_double(val, 0.0, 1000.0, &a->distance))
                return bad("--distance", val, "metres >= 0 (0 = not measured)");
            a->has_distance = 1;
        } else if (strcmp(opt, "--brdf") == 0) {
            lsim_brdf_kind kind;
            if (lsim_calib_brdf_parse(val, &kind))
                return bad("--brdf", val, "oren-nayar, cook-torrance or lambertian");
            a->brdf = val;
        } else if (strcmp(opt, "--roughness") == 0) {
            if (lsim_arg_double(val, 0.0, LSIM_PI / 2.0, &a->roughness))
                return bad("--roughness", val, "oren-nayar: [0, pi/2] radians; cook-torrance: (0, 1]");
            a->has_roughness = 1;
        } else if (strcmp(opt, "--ior") == 0) {
            if (lsim_arg_double(val, 1.0, 10.0, &a->ior))
                return bad("--ior", val, "an index of refraction in [1, 10]");
            a->has_ior = 1;
        } else if (!a->config) {
            a->config = val;
        } else {
            fprintf(stderr, "lidarsim calibrate: unexpected argument '%s' (one config file only)\n", val);
            return LSIM_EXIT_USAGE;
        }
    }
    int single = a->scan || a->name || a->has_width || a->has_distance || a->brdf || a->has_roughness || a->has_ior;
    if (a->config && single) {
        fprintf(stderr, "lidarsim calibrate: give either CONFIG or --scan/--name/--width (one material), not "
                "both\n");
        return LSIM_EXIT_USAGE;
    }
    if (!a->config && !single) {
        fprintf(stderr, "lidarsim calibrate: missing the config file (data.config or .yaml) or --scan FILE\n");
        calibrate_usage(stderr);
        return LSIM_EXIT_USAGE;
    }
    if (single && (!a->scan || !a->name || !a->has_width)) {
        fprintf(stderr, "lidarsim calibrate: one material needs --scan FILE, --name NAME and --width W (missing "
                "%s)\n", !a->scan ? "--scan" : !a->name ? "--name" : "--width");
        return LSIM_EXIT_USAGE;
    }
    if (!a->output && !a->json) {
        fprintf(stderr, "lidarsim calibrate: missing -o CALIBRATION.yaml (or --json for a summary only)\n");
        return LSIM_EXIT_USAGE;
    }
    return 0;
}

/* The one-material form as a config. */
static int single_config(const calib_args *a, lsim_calib_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    lsim_strlcpy(cfg->sensor, LSIM_CALIB_DEFAULT_SENSOR, sizeof cfg->sensor);
    cfg->inputs = calloc(1, sizeof *cfg->inputs);
    if (!cfg->inputs)
        return -1;
    lsim_calib_input *in = &cfg->inputs[0];
    lsim_calib_input_init(in);
    cfg->count = 1;
    lsim_strlcpy(in->name, a->name, sizeof in->name);
    in->width_m = a->width;
    in->distance_m = a->has_distance ? a->distance : 0.0;
    lsim_brdf_kind kind = LSIM_BRDF_OREN_NAYAR;
    if (a->brdf)
        lsim_calib_brdf_parse(a->brdf, &kind);
    lsim_brdf_defaults(&in->brdf, kind);
    if (a->has_roughness)
        in->brdf.roughness = a->roughness;
    if (a->has_ior)
        in->brdf.ior = a->ior;
    in->scan_path = lsim_strdup(a->scan);
    return in->scan_path ? 0 : -1;
}

/* Shortest exact %g, or null for NaN/inf. */
static const char *jnum(double v, char *buf, size_t size)
{
    if (!isfinite(v)) {
        snprintf(buf, size, "null");
        return buf;
    }
    for (int prec = 1; prec <= 17; ++prec) {
        snprintf(buf, size, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    if (v == 0.0)
        snprintf(buf, size, "0");
    return buf;
}

static void jstr(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

static void jbrdf(FILE *out, const lsim_brdf *b, const double *scale, const double *rms)
{
    char t[5][40];
    fprintf(out, "{\"type\": \"%s\", \"reflectance\": %s, \"roughness\": %s, \"ior\": %s, \"f0\": %s",
            lsim_brdf_kind_name(b->kind), jnum(b->reflectance, t[0], 40), jnum(b->roughness, t[1], 40),
            jnum(b->ior, t[2], 40), jnum(b->f0, t[3], 40));
    if (scale)
        fprintf(out, ", \"scale\": %s", jnum(*scale, t[4], 40));
    if (rms)
        fprintf(out, ", \"rms\": %s", jnum(*rms, t[4], 40));
    fputc('}', out);
}

static void print_json(FILE *out, const lsim_calibration *cal, const lsim_board_fit *fits, const char *output)
{
    char t[8][40];
    fprintf(out, "{\"sensor\": ");
    jstr(out, cal->sensor);
    fprintf(out, ", \"version\": %d, \"output\": ", cal->version);
    if (output)
        jstr(out, output);
    else
        fprintf(out, "null");
    fprintf(out, ", \"materials\": [");
    for (size_t i = 0; i < cal->count; ++i) {
        const lsim_calib_material *m = &cal->materials[i];
        const lsim_board_fit *f = &fits[i];
        fprintf(out, "%s\n  {\"name\": ", i ? "," : "");
        jstr(out, m->name);
        fprintf(out, ", \"source\": ");
        jstr(out, m->source);
        fprintf(out, ", \"fitted_distance_m\": %s, \"configured_distance_m\": %s, \"normal_angle_deg\": %s, "
                "\"board_width_m\": %s, \"configured_width_m\": %s, \"board_offset_m\": %s, \"band_m\": %s, "
                "\"sigma_m\": %s",
                jnum(m->fitted_distance_m, t[0], 40),
                m->configured_distance_m > 0.0 ? jnum(m->configured_distance_m, t[1], 40) : "null",
                jnum(m->normal_angle_rad / LSIM_DEG, t[2], 40), jnum(m->board_width_m, t[3], 40),
                jnum(m->configured_width_m, t[4], 40), jnum(m->board_offset_m, t[5], 40), jnum(m->band_m, t[6], 40),
                jnum(f->sigma_m, t[7], 40));
        fprintf(out, ", \"returns_span_m\": [%s, %s], \"clipped\": %s, \"board_returns\": %zu, \"outliers\": %zu, "
                "\"near_normal_count\": %zu, \"near_normal_median_m\": %s, \"revolutions\": %zu, "
                "\"beams_per_revolution\": %zu, \"bin_width_deg\": %s",
                jnum(f->run_min_m, t[0], 40), jnum(f->run_max_m, t[1], 40), f->clipped ? "true" : "false", f->inliers,
                m->outliers, f->near_normal_count, jnum(f->near_normal_median_m, t[2], 40), m->revolutions,
                m->beams_per_revolution, jnum(m->bin_width_deg, t[3], 40));
        fprintf(out, ", \"reach_m\": [%s, %s], \"range_resolution_m\": %s, \"brdf_fit\": \"%s\"",
                jnum(m->reach_min_m, t[0], 40), jnum(m->reach_max_m, t[1], 40), jnum(m->range_resolution_m, t[2], 40),
                m->brdf_shape_fitted ? "shape-and-scale" : "scale-only");
        fprintf(out, ",\n   \"brdf\": ");
        jbrdf(out, &m->brdf, &m->brdf_scale, &m->brdf_rms);
        fprintf(out, ", \"brdf_configured\": ");
        jbrdf(out, &m->brdf_configured, NULL, NULL);
        fprintf(out, ",\n   \"bins\": [");
        for (size_t k = 0; k < m->bin_count; ++k) {
            const lsim_calib_bin *b = &m->bins[k];
            fprintf(out, "%s\n    {\"angle_deg\": %s, \"n\": %zu, \"mean_intensity\": %s, \"std_intensity\": %s, "
                    "\"std_range_m\": %s, \"drop_rate\": %s, \"mean_range_m\": %s, \"noise_mean_m\": %s, "
                    "\"noise_std_m\": %s}", k ? "," : "", jnum(b->angle_deg, t[0], 40), b->n,
                    jnum(b->mean_intensity, t[1], 40), jnum(b->std_intensity, t[2], 40),
                    jnum(b->std_range_m, t[3], 40), jnum(b->drop_rate, t[4], 40), jnum(b->mean_range_m, t[5], 40),
                    jnum(b->noise_mean_m, t[6], 40), jnum(b->noise_std_m, t[7], 40));
        }
        fprintf(out, "]}");
    }
    fprintf(out, "]}\n");
}

static void print_summary(FILE *out, const lsim_calib_material *m, const lsim_board_fit *f)
{
    char configured[64] = "not measured";
    if (m->configured_distance_m > 0.0)
        snprintf(configured, sizeof configured, "configured %.3f m, %+.1f mm", m->configured_distance_m,
                 1000.0 * (m->fitted_distance_m - m->configured_distance_m));
    fprintf(out, "%s: board at %.4f m (%s), normal %.2f deg, %zu board returns (sigma %.2f mm, band %.1f mm), %zu "
            "outliers\n", m->name, m->fitted_distance_m, configured, m->normal_angle_rad / LSIM_DEG, f->inliers,
            1000.0 * f->sigma_m, 1000.0 * m->band_m, m->outliers);
    fprintf(out, "  extent %.3f m (configured width %.3f m, returns span %.3f m%s), %zu revolutions x %zu beams\n",
            m->board_width_m, m->configured_width_m, f->run_max_m - f->run_min_m, f->clipped ? ", clipped" : "",
            m->revolutions, m->beams_per_revolution);
    double dmin = 1.0, dmax = 0.0;
    for (size_t k = 0; k < m->bin_count; ++k) {
        dmin = fmin(dmin, m->bins[k].drop_rate);
        dmax = fmax(dmax, m->bins[k].drop_rate);
    }
    fprintf(out, "  %zu bins of %g deg, %.1f..%.1f deg, drop rate %.2f..%.2f\n", m->bin_count, m->bin_width_deg,
            m->bins[0].angle_deg, m->bins[m->bin_count - 1].angle_deg, dmin, dmax);
    if (m->reach_min_m > 0.0)
        fprintf(out, "  reach %.4f..%.4f m (nearest and farthest board returns)", m->reach_min_m, m->reach_max_m);
    if (m->range_resolution_m > 0.0)
        fprintf(out, "; ranges in %g mm steps: the bins hold the range error before the rounding\n",
                1000.0 * m->range_resolution_m);
    else if (m->reach_min_m > 0.0)
        fputc('\n', out);
    fprintf(out, "  brdf %s: ", lsim_brdf_kind_name(m->brdf.kind));
    if (!m->brdf_shape_fitted && m->brdf.kind != LSIM_BRDF_LAMBERTIAN)
        fprintf(out, "shape as described (every return has the same intensity, which cannot determine it): ");
    const double f0 = m->brdf.f0 >= 0.0 ? m->brdf.f0
                                         : ((m->brdf.ior - 1.0) / (m->brdf.ior + 1.0)) * ((m->brdf.ior - 1.0) / (m->brdf.ior + 1.0));
    if (m->brdf.kind == LSIM_BRDF_OREN_NAYAR)
        fprintf(out, "roughness %.4f rad (configured %.4f), ", m->brdf.roughness, m->brdf_configured.roughness);
    else if (m->brdf.kind == LSIM_BRDF_COOK_TORRANCE)
        fprintf(out, "roughness %.4f, f0 %.4f%s (configured roughness %.4f), ", m->brdf.roughness, f0,
                m->brdf.f0 >= 0.0 ? "" : " (from ior)", m->brdf_configured.roughness);
    fprintf(out, "scale %.4g, rms %.4g\n", m->brdf_scale, m->brdf_rms);
}

int lsim_cmd_calibrate(int argc, char **argv)
{
    calib_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? LSIM_EXIT_OK : rc;
    lsim_context *ctx = NULL;
    if (lsim_context_create(&ctx) != LSIM_OK) {
        fprintf(stderr, "lidarsim calibrate: out of memory\n");
        return LSIM_EXIT_FAILURE;
    }
    if (a.output && (rc = lsim_cli_check_writable(ctx, "calibrate", a.output, "the calibration")) != LSIM_EXIT_OK) {
        lsim_context_destroy(ctx);
        return rc;
    }
    struct stat info;
    if (a.view && stat(a.view, &info) == 0 && !S_ISDIR(info.st_mode)) {
        fprintf(stderr, "lidarsim calibrate: --view '%s' is a file, not a folder; give a folder for the view PNGs\n",
                a.view);
        lsim_context_destroy(ctx);
        return LSIM_EXIT_USAGE;
    }
    lsim_calib_config cfg;
    memset(&cfg, 0, sizeof cfg);
    if (a.config) {
        if (lsim_calib_config_read(ctx, a.config, &cfg) != LSIM_OK) {
            fprintf(stderr, "lidarsim calibrate: %s\n", lsim_context_last_error(ctx));
            lsim_context_destroy(ctx);
            return LSIM_EXIT_FAILURE;
        }
    } else if (single_config(&a, &cfg)) {
        fprintf(stderr, "lidarsim calibrate: out of memory\n");
        lsim_calib_config_free(&cfg);
        lsim_context_destroy(ctx);
        return LSIM_EXIT_FAILURE;
    }
    /* The calibration and the views are committed together (lsim_cli_outputs): the view folder is
     * made writable and every output named now, before any work; the calibration is written
     * beside its final name. On any failure none of them is left, nor the view folder when this
     * run created it. */
    lsim_cli_outputs outs;
    lsim_cli_outputs_init(&outs, ctx, "calibrate");
    char cal_path[4096] = "", (*view_path)[4096] = NULL;
    if (a.view) {
        rc = lsim_cli_outputs_folder(&outs, a.view, "view folder");
        view_path = rc == LSIM_EXIT_OK ? calloc(cfg.count ? cfg.count : 1, sizeof *view_path) : NULL;
        if (rc == LSIM_EXIT_OK && !view_path) {
            fprintf(stderr, "lidarsim calibrate: out of memory\n");
            rc = LSIM_EXIT_FAILURE;
        }
        for (size_t i = 0; rc == LSIM_EXIT_OK && i < cfg.count; ++i) {
            if (lsim_cli_outputs_add(&outs, cfg.inputs[i].name, "_view.png", view_path[i], sizeof view_path[i]) !=
                LSIM_OK) {
                fprintf(stderr, "lidarsim calibrate: %s\n", lsim_context_last_error(ctx));
                rc = LSIM_EXIT_FAILURE;
            }
        }
    }
    if (rc == LSIM_EXIT_OK && a.output) {
        if (a.view && lsim_cli_outputs_add_file(&outs, a.output, cal_path, sizeof cal_path) != LSIM_OK) {
            fprintf(stderr, "lidarsim calibrate: cannot write the calibration: %s\n", lsim_context_last_error(ctx));
            rc = LSIM_EXIT_FAILURE;
        } else if (!a.view) {
            lsim_strlcpy(cal_path, a.output, sizeof cal_path); /* one file: written atomically as it is */
        }
    }
    lsim_calib_options opt;
    lsim_calib_options_init(&opt);
    opt.bin_width_deg = a.has_bin_width ? a.bin_width
                      : cfg.bin_width_deg > 0.0 ? cfg.bin_width_deg : LSIM_CALIB_DEFAULT_BIN_WIDTH_DEG;
    opt.fit.seed = a.seed;
    lsim_calibration cal;
    memset(&cal, 0, sizeof cal);
    cal.version = LSIM_CALIB_VERSION;
    lsim_strlcpy(cal.sensor, a.sensor ? a.sensor : cfg.sensor, sizeof cal.sensor);
    cal.materials = calloc(cfg.count ? cfg.count : 1, sizeof *cal.materials);
    lsim_board_fit *fits = calloc(cfg.count ? cfg.count : 1, sizeof *fits);
    if (rc == LSIM_EXIT_OK && (!cal.materials || !fits)) {
        fprintf(stderr, "lidarsim calibrate: out of memory\n");
        rc = LSIM_EXIT_FAILURE;
    }
    lsim_progress bar; /* on a terminal, when the materials take more than a second */
    lsim_progress_start(&bar, a.quiet ? LSIM_PROGRESS_OFF : LSIM_PROGRESS_BAR, stderr, "calibrate", "materials",
                        (double)cfg.count, 1.0);
    for (size_t i = 0; rc == LSIM_EXIT_OK && i < cfg.count; ++i) {
        lsim_progress_update(&bar, (double)i);
        lsim_calib_input *in = &cfg.inputs[i];
        if (a.has_direction)
            in->direction_deg = a.direction;
        if (a.has_window)
            in->window_deg = a.window;
        if (lsim_calibrate_input(ctx, in, &opt, &cal.materials[i], &fits[i]) != LSIM_OK) {
            if (a.config)
                fprintf(stderr, "lidarsim calibrate: material %s (%s:%zu): %s\n", in->name, a.config, in->line,
                        lsim_context_last_error(ctx));
            else
                fprintf(stderr, "lidarsim calibrate: material %s: %s\n", in->name, lsim_context_last_error(ctx));
            rc = LSIM_EXIT_FAILURE;
            break;
        }
        cal.count = i + 1;
    }
    lsim_progress_finish(&bar, rc == LSIM_EXIT_OK);
    if (rc == LSIM_EXIT_OK && a.output && lsim_calibration_write(ctx, cal_path, &cal) != LSIM_OK) {
        fprintf(stderr, "lidarsim calibrate: cannot write the calibration: %s\n", lsim_context_last_error(ctx));
        rc = LSIM_EXIT_FAILURE;
    }
    for (size_t i = 0; rc == LSIM_EXIT_OK && a.view && i < cal.count; ++i) {
        if (lsim_cli_write_view(ctx, view_path[i], &cal.materials[i]) != LSIM_OK) {
            fprintf(stderr, "lidarsim calibrate: cannot draw the view of %s: %s\n", cal.materials[i].name,
                    lsim_context_last_error(ctx));
            rc = LSIM_EXIT_FAILURE;
        }
    }
    if (rc == LSIM_EXIT_OK && a.view && lsim_cli_outputs_commit(&outs) != LSIM_OK) {
        fprintf(stderr, "lidarsim calibrate: %s; nothing was written\n", lsim_context_last_error(ctx));
        rc = LSIM_EXIT_FAILURE;
    }
    lsim_cli_outputs_abort(&outs); /* after a failure: removes every temporary file; else nothing left */
    free(view_path);
    if (rc == LSIM_EXIT_OK) {
        if (a.json) {
            print_json(stdout, &cal, fits, a.output);
        } else if (!a.quiet) {
            for (size_t i = 0; i < cal.count; ++i)
                print_summary(stdout, &cal.materials[i], &fits[i]);
            if (a.output)
                printf("lidarsim: %zu material%s calibrated (sensor %s), wrote %s\n", cal.count,
                       cal.count == 1 ? "" : "s", cal.sensor, a.output);
        }
    }
    lsim_calibration_free(&cal);
    free(fits);
    lsim_calib_config_free(&cfg);
    lsim_context_destroy(ctx);
    return rc;
}
