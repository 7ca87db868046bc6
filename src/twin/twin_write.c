/* The twin's files, together or not at all: scene.yaml, surface_NN.ply (one per reflectance level),
 * trajectory.csv, the unit's calibration copied, twin.json (twin.h). */
#include "twin/twin.h"
#include "core/context.h"
#include "core/file_open.h"
#include "output/output_set.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RHO_MIN 0.01
#define RHO_MAX 1.0

int lsim_twin_level_of(double rho, int levels)
{
    if (levels <= 1 || !isfinite(rho))
        return levels <= 1 ? 0 : lsim_twin_level_of(0.5, levels);
    rho = rho < RHO_MIN ? RHO_MIN : rho > RHO_MAX ? RHO_MAX : rho;
    return (int)lround(log(rho / RHO_MIN) / log(RHO_MAX / RHO_MIN) * (levels - 1));
}

double lsim_twin_level_rho(int level, int levels)
{
    return levels <= 1 ? 0.5 : RHO_MIN * pow(RHO_MAX / RHO_MIN, (double)level / (levels - 1));
}

/* A triangle's level: its vertices' mean reflectance (the baseline: level 0, the one material). */
int lsim_twin_triangle_level(const lsim_twin_run *run, const lsim_twin_frame *f, size_t t)
{
    if (run->opt->naive)
        return 0;
    double s = 0.0;
    int n = 0;
    for (int i = 0; i < 3; ++i) {
        const float r = f->rho[f->tri[3 * t + i]];
        if (isfinite(r))
            s += r, ++n;
    }
    return lsim_twin_level_of(n ? s / n : NAN, run->opt->reflectance_levels);
}

static void put_u32(unsigned char *b, uint32_t v)
{
    b[0] = (unsigned char)v, b[1] = (unsigned char)(v >> 8), b[2] = (unsigned char)(v >> 16), b[3] = (unsigned char)(v >> 24);
}

static void put_f32(unsigned char *b, float f)
{
    uint32_t v;
    memcpy(&v, &f, 4);
    put_u32(b, v);
}

/* surface of one level: binary little-endian PLY, the vertices its triangles use. remap: a slot per
 * cell of every frame (SIZE_MAX: not yet written), reset here. */
static int write_level(const lsim_twin_run *run, int level, const int *levels_of, const size_t *tri_base,
                       uint32_t *remap, const size_t *cell_base, const char *path, uint64_t *tris)
{
    size_t nv = 0, nt = 0;
    for (size_t fi = 0; fi < run->frames; ++fi) {
        const lsim_twin_frame *f = &run->frame[fi];
        for (size_t t = 0; t < f->triangles; ++t)
            if (levels_of[tri_base[fi] + t] == level) {
                ++nt;
                for (int i = 0; i < 3; ++i) {
                    uint32_t *m = &remap[cell_base[fi] + f->tri[3 * t + i]];
                    if (*m == UINT32_MAX)
                        *m = (uint32_t)nv++;
                }
            }
    }
    FILE *out = fopen(path, "wb");
    if (!out)
        return -1;
    /* Vertex 0 is a spare one that no face uses, whose first byte is a letter: assimp's PLY reader
     * skips white space (and NUL) after end_header even in a binary file, so binary data that began
     * with such a byte would be read shifted. */
    fprintf(out, "ply\nformat binary_little_endian 1.0\ncomment lidarsim twin: reflectance %.6g\n"
                 "element vertex %zu\nproperty float x\nproperty float y\nproperty float z\n"
                 "element face %zu\nproperty list uchar uint vertex_indices\nend_header\n",
            lsim_twin_level_rho(level, run->opt->reflectance_levels), nv + 1, nt);
    /* vertices in remap order */
    float *v = malloc((nv ? nv : 1) * 3 * sizeof *v);
    if (!v) {
        fclose(out);
        errno = ENOMEM;
        return -1;
    }
    for (size_t fi = 0; fi < run->frames; ++fi) {
        const lsim_twin_frame *f = &run->frame[fi];
        for (size_t k = 0; k < f->verts; ++k) {
            const uint32_t m = remap[cell_base[fi] + k];
            if (m != UINT32_MAX)
                memcpy(v + 3 * (size_t)m, f->p + 3 * k, 3 * sizeof *v);
        }
    }
    unsigned char buf[13];
    put_u32(buf, 0x3F800041u); /* 1.0000077f, first byte 'A' */
    memcpy(buf + 4, buf, 4);
    memcpy(buf + 8, buf, 4);
    int ok = fwrite(buf, 12, 1, out) == 1;
    for (size_t i = 0; i < nv && ok; ++i) {
        put_f32(buf, v[3 * i]), put_f32(buf + 4, v[3 * i + 1]), put_f32(buf + 8, v[3 * i + 2]);
        ok = fwrite(buf, 12, 1, out) == 1;
    }
    free(v);
    for (size_t fi = 0; fi < run->frames && ok; ++fi) {
        const lsim_twin_frame *f = &run->frame[fi];
        for (size_t t = 0; t < f->triangles && ok; ++t)
            if (levels_of[tri_base[fi] + t] == level) {
                buf[0] = 3;
                for (int i = 0; i < 3; ++i)
                    put_u32(buf + 1 + 4 * i, remap[cell_base[fi] + f->tri[3 * t + i]] + 1);
                ok = fwrite(buf, 13, 1, out) == 1;
            }
    }
    /* reset the slots this level used */
    for (size_t fi = 0; fi < run->frames; ++fi) {
        const lsim_twin_frame *f = &run->frame[fi];
        for (size_t t = 0; t < f->triangles; ++t)
            if (levels_of[tri_base[fi] + t] == level)
                for (int i = 0; i < 3; ++i)
                    remap[cell_base[fi] + f->tri[3 * t + i]] = UINT32_MAX;
    }
    *tris = nt;
    if (fclose(out) != 0 || !ok)
        return -1;
    return 0;
}

/* A double-quoted string of YAML or JSON: quotes and backslashes escaped, control bytes as \xNN
 * (YAML) or \u00NN (JSON). */
static void quoted(FILE *f, const char *s, int json)
{
    fputc('"', f);
    for (; *s; ++s) {
        const unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            fprintf(f, json ? "\\u%04x" : "\\x%02x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void drop_yaml(FILE *f, const lsim_twin_run *run)
{
    fputs("    drop:   # measured from the recording, frame against frame (twin.json)\n      range_m: [", f);
    for (int i = 0; i < LSIM_TWIN_DROP_R; ++i)
        fprintf(f, "%s%g", i ? ", " : "", LSIM_TWIN_DROP_RANGE[i]);
    fputs("]\n      incidence_deg: [", f);
    for (int i = 0; i < LSIM_TWIN_DROP_I; ++i)
        fprintf(f, "%s%g", i ? ", " : "", LSIM_TWIN_DROP_INC[i]);
    fputs("]\n      reflectance: [", f);
    for (int i = 0; i < LSIM_TWIN_DROP_F; ++i)
        fprintf(f, "%s%g", i ? ", " : "", LSIM_TWIN_DROP_REFL[i]);
    fputs("]\n      rate: [", f);
    for (int r = 0; r < LSIM_TWIN_DROP_R; ++r)
        for (int i = 0; i < LSIM_TWIN_DROP_I; ++i)
            for (int k = 0; k < LSIM_TWIN_DROP_F; ++k)
                fprintf(f, "%s%.4f", r || i || k ? ", " : "", run->drop_rate[r][i][k]);
    fputs("]\n", f);
}

static int write_scene(const lsim_twin_run *run, const char *path, const char *recording, const uint64_t *level_tris)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs("# A digital twin built by `lidarsim twin` (docs/twin.md) from the recording\n#   ", f);
    quoted(f, recording, 0);
    fputs("\n# frames", f);
    for (size_t i = 0; i < run->frames; ++i)
        fprintf(f, " %lld", (long long)run->frame[i].index);
    fprintf(f, ". Scan recorded frame k with --scan-time k * %.9g (the sensor rides the recorded path).\n",
            run->period);
    fputs("sensor:\n", f);
    if (run->calibration_ext)
        fprintf(f, "  calibration: sensor%s\n", run->calibration_ext);
    else {
        fputs("  preset: ", f);
        quoted(f, run->opt->sensor, 0);
        fputc('\n', f);
    }
    fputs("  trajectory: {file: trajectory.csv}\n", f);
    if (run->detection_reflectance > 0.0)
        fprintf(f, "  detection_reflectance: %.6g   # the recording's sensitivity, measured (twin.json)\n",
                run->detection_reflectance);
    if (run->drop_beams || isfinite(run->range_sigma))
        fputs("  noise:\n", f);
    if (isfinite(run->range_sigma))
        fprintf(f, "    range_sigma: %.4g   # the recording's, on flat patches within 20 m (twin.json)\n",
                run->range_sigma);
    if (run->drop_beams)
        drop_yaml(f, run);
    const int L = run->opt->naive ? 1 : run->opt->reflectance_levels;
    if (!run->opt->naive) {
        fputs("materials:   # Lambertian reflectances inverted from the recording\n", f);
        for (int l = 0; l < L; ++l)
            if (level_tris[l])
                fprintf(f, "  rho_%03d: {brdf: lambertian, reflectance: %.6g}\n", l, lsim_twin_level_rho(l, L));
    }
    fputs("objects:\n", f);
    for (int l = 0; l < L; ++l)
        if (level_tris[l]) {
            fprintf(f, "  - mesh: surface_%03d.ply\n", l);
            if (!run->opt->naive)
                fprintf(f, "    material: rho_%03d\n", l);
        }
    return fclose(f) == 0 ? 0 : -1;
}

static int write_trajectory(const lsim_twin_run *run, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs("# the recorded path: pose k at (k + pose_time) / rate, one key extrapolated at each end\nt,x,y,z,roll,pitch,yaw\n",
          f);
    for (size_t k = 0; k < run->keys; ++k)
        fprintf(f, "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", run->key_t[k], run->key_xyz[k][0], run->key_xyz[k][1],
                run->key_xyz[k][2], run->key_rpy[k][0], run->key_rpy[k][1], run->key_rpy[k][2]);
    return fclose(f) == 0 ? 0 : -1;
}

static int write_json(const lsim_twin_run *run, const char *path, const char *recording, const lsim_twin_stats *s,
                      const uint64_t *level_tris)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs("{\"recording\": ", f);
    quoted(f, recording, 1);
    fprintf(f, ",\n \"naive\": %s, \"pose_time\": %.9g, \"period_s\": %.9g, \"rings\": %d, \"columns\": %d,\n",
            run->opt->naive ? "true" : "false", run->opt->pose_time, run->period, run->rings, run->columns);
    fprintf(f, " \"shadow_angle_deg\": %.9g, \"points\": %llu, \"transient\": %llu, \"fused\": %llu, \"triangles\": %llu,\n",
            run->opt->shadow_angle_deg, (unsigned long long)s->points, (unsigned long long)s->transient,
            (unsigned long long)s->fused, (unsigned long long)s->triangles);
    fputs(" \"frames\": [", f);
    for (size_t i = 0; i < run->frames; ++i) {
        const lsim_twin_frame *fr = &run->frame[i];
        fprintf(f, "%s{\"frame\": %lld, \"points\": %llu, \"transient\": %llu, \"fused\": %llu, \"triangles\": %zu}",
                i ? ", " : "", (long long)fr->index, (unsigned long long)fr->points, (unsigned long long)fr->transient,
                (unsigned long long)fr->fused, fr->triangles);
    }
    fputs("],\n \"materials\": [", f);
    const int L = run->opt->naive ? 1 : run->opt->reflectance_levels;
    int first = 1;
    for (int l = 0; l < L; ++l)
        if (level_tris[l]) {
            fprintf(f, "%s{\"level\": %d, \"reflectance\": %.6g, \"triangles\": %llu}", first ? "" : ", ", l,
                    run->opt->naive ? 0.5 : lsim_twin_level_rho(l, L), (unsigned long long)level_tris[l]);
            first = 0;
        }
    fputs("],\n \"range_sigma_m\": ", f);
    if (isfinite(run->range_sigma))
        fprintf(f, "%.9g", run->range_sigma);
    else
        fputs("null", f);
    fprintf(f, ", \"noise_patches\": %llu,", (unsigned long long)run->noise_patches);
    fprintf(f, "\n \"detection_reflectance\": %.9g, \"threshold_beams\": %llu,\n \"drop\": {\"beams\": %llu, "
               "\"missed\": %llu",
            run->detection_reflectance, (unsigned long long)run->threshold_beams, (unsigned long long)run->drop_beams,
            (unsigned long long)run->drop_missed);
    if (run->drop_beams) {
        fputs(", \"bins\": [", f);
        first = 1;
        for (int r = 0; r < LSIM_TWIN_DROP_R; ++r)
            for (int i = 0; i < LSIM_TWIN_DROP_I; ++i)
                for (int k = 0; k < LSIM_TWIN_DROP_F; ++k)
                    if (run->drop_n[r][i][k]) {
                        fprintf(f, "%s\n   {\"range_m\": %g, \"incidence_deg\": %g, \"reflectance\": %g, \"beams\": %llu, "
                                   "\"rate\": %.6g}",
                                first ? "" : ",", LSIM_TWIN_DROP_RANGE[r], LSIM_TWIN_DROP_INC[i], LSIM_TWIN_DROP_REFL[k],
                                (unsigned long long)run->drop_n[r][i][k], run->drop_rate[r][i][k]);
                        first = 0;
                    }
        fputs("]", f);
    }
    fputs("}}\n", f);
    return fclose(f) == 0 ? 0 : -1;
}

static int copy_file(const char *data, size_t size, const char *path)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    const int ok = fwrite(data, 1, size, f) == size;
    return fclose(f) == 0 && ok ? 0 : -1;
}

lsim_status lsim_twin_write(lsim_twin_run *run, const char *dir, const char *recording, lsim_twin_stats *stats)
{
    lsim_context *ctx = run->ctx;
    const int L = run->opt->naive ? 1 : run->opt->reflectance_levels;
    size_t *tri_base = calloc(run->frames + 1, sizeof *tri_base), *cell_base = calloc(run->frames + 1, sizeof *cell_base);
    uint64_t *level_tris = calloc((size_t)L, sizeof *level_tris);
    int *levels_of = NULL;
    uint32_t *remap = NULL;
    char *calib = NULL;
    size_t calib_size = 0;
    lsim_status st = LSIM_OK;
    if (!tri_base || !cell_base || !level_tris) {
        st = lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "twin: out of memory");
        goto done;
    }
    for (size_t i = 0; i < run->frames; ++i) {
        tri_base[i + 1] = tri_base[i] + run->frame[i].triangles;
        cell_base[i + 1] = cell_base[i] + run->frame[i].verts;
    }
    if (cell_base[run->frames] >= UINT32_MAX) {
        st = lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "twin: %zu beams in all, more than a mesh indexes: build from "
                       "fewer frames", cell_base[run->frames]);
        goto done;
    }
    levels_of = malloc((tri_base[run->frames] + 1) * sizeof *levels_of);
    remap = malloc((cell_base[run->frames] + 1) * sizeof *remap);
    if (!levels_of || !remap) {
        st = lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "twin: out of memory (%zu triangles)", tri_base[run->frames]);
        goto done;
    }
    for (size_t i = 0; i < cell_base[run->frames]; ++i)
        remap[i] = UINT32_MAX;
    for (size_t fi = 0; fi < run->frames; ++fi)
        for (size_t t = 0; t < run->frame[fi].triangles; ++t) {
            const int l = lsim_twin_triangle_level(run, &run->frame[fi], t);
            levels_of[tri_base[fi] + t] = l;
            ++level_tris[l];
        }
    if (run->opt->calibration &&
        (st = lsim_file_read_all(ctx, run->opt->calibration, LSIM_INPUT_UNIT, &calib, &calib_size)) != LSIM_OK)
        goto done;

    lsim_output_set o;
    lsim_output_set_init(&o, ctx, "twin");
    char path[4096];
    if ((st = lsim_output_set_folder(&o, dir, "twin folder")) != LSIM_OK)
        goto done;
    stats->triangles = 0;
    stats->materials = 0;
    for (int l = 0; l < L && st == LSIM_OK; ++l) {
        if (!level_tris[l])
            continue;
        char name[32];
        snprintf(name, sizeof name, "surface_%03d", l);
        if ((st = lsim_output_set_add(&o, name, ".ply", path, sizeof path)) != LSIM_OK)
            break;
        uint64_t nt = 0;
        if (write_level(run, l, levels_of, tri_base, remap, cell_base, path, &nt) != 0)
            st = lsim_fail(ctx, LSIM_ERR_IO, "twin: cannot write %s/%s.ply: %s", dir, name, strerror(errno));
        stats->triangles += nt;
        ++stats->materials;
    }
    if (st == LSIM_OK && (st = lsim_output_set_add(&o, "trajectory", ".csv", path, sizeof path)) == LSIM_OK &&
        write_trajectory(run, path) != 0)
        st = lsim_fail(ctx, LSIM_ERR_IO, "twin: cannot write %s/trajectory.csv: %s", dir, strerror(errno));
    if (st == LSIM_OK && calib && (st = lsim_output_set_add(&o, "sensor", run->calibration_ext, path, sizeof path)) == LSIM_OK &&
        copy_file(calib, calib_size, path) != 0)
        st = lsim_fail(ctx, LSIM_ERR_IO, "twin: cannot write %s/sensor%s: %s", dir, run->calibration_ext, strerror(errno));
    if (st == LSIM_OK && (st = lsim_output_set_add(&o, "scene", ".yaml", path, sizeof path)) == LSIM_OK &&
        write_scene(run, path, recording, level_tris) != 0)
        st = lsim_fail(ctx, LSIM_ERR_IO, "twin: cannot write %s/scene.yaml: %s", dir, strerror(errno));
    if (st == LSIM_OK && (st = lsim_output_set_add(&o, "twin", ".json", path, sizeof path)) == LSIM_OK &&
        write_json(run, path, recording, stats, level_tris) != 0)
        st = lsim_fail(ctx, LSIM_ERR_IO, "twin: cannot write %s/twin.json: %s", dir, strerror(errno));
    if (st == LSIM_OK)
        st = lsim_output_set_commit(&o);
    else
        lsim_output_set_abort(&o);
done:
    free(calib);
    free(tri_base);
    free(cell_base);
    free(level_tris);
    free(levels_of);
    free(remap);
    return st;
}
