/* The report of lsim_compare: summary.json (every statistic, by ring and band), errors.png
 * (histogram of the range errors of beams both hit) and, matched by beam, range_images.png
 * (compare_image.c), written together through an output set. */
#include "compare/compare.h"
#include "core/context.h"
#include "output/output_set.h"
#include "pictures/plot_png.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void num(FILE *f, const char *key, double v, const char *sep)
{
    if (isfinite(v))
        fprintf(f, "\"%s\": %.9g%s", key, v, sep);
    else
        fprintf(f, "\"%s\": null%s", key, sep);
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; ++s) {
        const unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

static void errors_json(FILE *f, const char *key, const lsim_compare_errors *e)
{
    fprintf(f, "\"%s\": {\"count\": %llu, ", key, (unsigned long long)e->count);
    num(f, "median", e->median, ", ");
    num(f, "median_abs", e->median_abs, ", ");
    num(f, "mae", e->mean_abs, ", ");
    num(f, "rmse", e->rmse, ", ");
    num(f, "p95_abs", e->p95_abs, "}");
}

static void stats_json(FILE *f, const lsim_compare_stats *s)
{
    fprintf(f, "{\"both_hit\": %llu, \"real_only\": %llu, \"sim_only\": %llu, \"both_miss\": %llu, ",
            (unsigned long long)s->both_hit, (unsigned long long)s->real_only, (unsigned long long)s->sim_only,
            (unsigned long long)s->both_miss);
    num(f, "precision", s->precision, ", ");
    num(f, "recall", s->recall, ", ");
    num(f, "f1", s->f1, ", ");
    errors_json(f, "range_m", &s->range);
    fputs(", ", f);
    errors_json(f, "intensity", &s->intensity);
    fputs(", ", f);
    errors_json(f, "reflectivity", &s->reflectivity);
    if (isfinite(s->chamfer_m))
        fprintf(f, ", \"chamfer_m\": %.9g", s->chamfer_m);
    fputc('}', f);
}

static lsim_status write_json(const lsim_compare *c, const char *path, const char *real_name, const char *sim_name)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return lsim_fail(c->ctx, LSIM_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
    fputs("{\n  \"real\": ", f);
    json_string(f, real_name ? real_name : "real");
    fputs(",\n  \"sim\": ", f);
    json_string(f, sim_name ? sim_name : "sim");
    fprintf(f, ",\n  \"match\": \"%s\", \"rings\": %d, \"columns\": %d, \"tolerance_deg\": %.9g,\n  \"all\": ",
            c->match == LSIM_COMPARE_MATCH_BEAM ? "beam" : "direction", c->ring_count, c->columns, c->tolerance_deg);
    stats_json(f, &c->all);
    fputs(",\n  \"by_band\": [", f);
    for (int b = 0; b < LSIM_COMPARE_BANDS; ++b) {
        fprintf(f, "%s\n    {\"from_m\": %g, ", b ? "," : "", LSIM_COMPARE_BAND_EDGES[b]);
        num(f, "to_m", LSIM_COMPARE_BAND_EDGES[b + 1], ", \"stats\": ");
        stats_json(f, &c->band[b]);
        fputc('}', f);
    }
    fputs("\n  ],\n  \"by_ring\": [", f);
    for (int g = 0; g < c->ring_count; ++g) {
        fprintf(f, "%s\n    {\"ring\": %d, \"stats\": ", g ? "," : "", g);
        stats_json(f, &c->ring[g]);
        fputc('}', f);
    }
    fputs("\n  ]\n}\n", f);
    const int bad = ferror(f);
    if (fclose(f) || bad)
        return lsim_fail(c->ctx, LSIM_ERR_IO, "cannot write '%s': %s", path, strerror(errno ? errno : EIO));
    return LSIM_OK;
}

#define HIST_BINS 81

/* Histogram of sim - real range over the beams both hit, within +-(3 x p95 |dr|) (at least 1 cm). */
static lsim_status write_histogram(const lsim_compare *c, const char *path)
{
    const lsim_compare_beams *b = &c->beams;
    double half = isfinite(c->all.range.p95_abs) ? 3.0 * c->all.range.p95_abs : 0.0;
    half = half < 0.01 ? 0.01 : half;
    double x[HIST_BINS], y[HIST_BINS] = {0};
    const double w = 2.0 * half / HIST_BINS;
    for (int k = 0; k < HIST_BINS; ++k)
        x[k] = -half + (k + 0.5) * w;
    for (size_t i = 0; i < b->n; ++i) {
        const double d = b->sim_r[i] - b->real_r[i];
        if (isfinite(d) && fabs(d) <= half) {
            int k = (int)((d + half) / w);
            k = k >= HIST_BINS ? HIST_BINS - 1 : k;
            y[k] += 1.0;
        }
    }
    char title[160];
    snprintf(title, sizeof title, "range error sim - real, %llu beams both hit (median %.3g m, p95 |dr| %.3g m)",
             (unsigned long long)c->all.range.count, c->all.range.median, c->all.range.p95_abs);
    lsim_plot *p;
    lsim_status st = lsim_plot_create(c->ctx, 900, 600, title, "sim - real range (m)", "beams", &p);
    if (st != LSIM_OK)
        return st;
    st = lsim_plot_add_series(p, "beams per bin", x, y, HIST_BINS, LSIM_PLOT_LINE, NULL);
    if (st == LSIM_OK)
        st = lsim_plot_write(p, path);
    lsim_plot_destroy(p);
    return st;
}

lsim_status lsim_compare_write_report(const lsim_compare *c, const char *dir, const char *real_name,
                                      const char *sim_name)
{
    if (!c || !dir)
        return lsim_fail(c ? c->ctx : NULL, LSIM_ERR_INVALID_ARGUMENT, "lsim_compare_write_report: NULL %s",
                         !c ? "compare" : "folder");
    lsim_output_set o;
    lsim_output_set_init(&o, c->ctx, "compare");
    char json[4096], png[4096], img[4096];
    lsim_status st = lsim_output_set_folder(&o, dir, "report folder");
    if (st == LSIM_OK)
        st = lsim_output_set_add(&o, "summary", ".json", json, sizeof json);
    if (st == LSIM_OK)
        st = lsim_output_set_add(&o, "errors", ".png", png, sizeof png);
    if (st == LSIM_OK && c->match == LSIM_COMPARE_MATCH_BEAM)
        st = lsim_output_set_add(&o, "range_images", ".png", img, sizeof img);
    if (st == LSIM_OK)
        st = write_json(c, json, real_name, sim_name);
    if (st == LSIM_OK)
        st = write_histogram(c, png);
    if (st == LSIM_OK && c->match == LSIM_COMPARE_MATCH_BEAM)
        st = lsim_compare_write_image(c, img);
    if (st == LSIM_OK)
        return lsim_output_set_commit(&o);
    lsim_output_set_name_finals(&o);
    lsim_output_set_abort(&o);
    return st;
}
