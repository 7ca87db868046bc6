/* The reports of lsim_calibrate_run (calib/calibrate_run.c): the JSON summary (`lidarsim calibrate
 * --json`) and the per-material text summary, printed as the command always did. */
#include "calib/calibrate_report.h"

#include "core/vec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void lsim_calibrate_print_json(FILE *out, const lsim_calibration *cal, const lsim_board_fit *fits, const char *output)
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
                    "\"noise_std_m\": %s", k ? "," : "", jnum(b->angle_deg, t[0], 40), b->n,
                    jnum(b->mean_intensity, t[1], 40), jnum(b->std_intensity, t[2], 40),
                    jnum(b->std_range_m, t[3], 40), jnum(b->drop_rate, t[4], 40), jnum(b->mean_range_m, t[5], 40),
                    jnum(b->noise_mean_m, t[6], 40), jnum(b->noise_std_m, t[7], 40));
            if (b->has_drop_halves) /* the drop rates below and from the bin's centre */
                fprintf(out, ", \"drop_halves\": [%s, %s]", jnum(b->drop_halves[0], t[0], 40),
                        jnum(b->drop_halves[1], t[1], 40));
            fprintf(out, "}");
        }
        fprintf(out, "]}");
    }
    fprintf(out, "]}\n");
}

void lsim_calibrate_print_summary(FILE *out, const lsim_calib_material *m, const lsim_board_fit *f)
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
