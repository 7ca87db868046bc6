/* lsim_points_render (include/lidarsim.h): a point buffer's columns as doubles, drawn by
 * pictures/view_png.h from the sensor's viewpoint (the points' viewpoint: PCD's VIEWPOINT read back). */
#include "core/context.h"
#include "core/motion.h"
#include "core/vec.h"
#include "pictures/view_png.h"
#include "points/points.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(LSIM_RENDER_MIN_SIDE == LSIM_VIEW_MIN_SIDE && LSIM_RENDER_MAX_SIDE == LSIM_VIEW_MAX_SIDE,
               "the public size limits are the view's");
_Static_assert((int)LSIM_RENDER_BEV == (int)LSIM_VIEW_BEV && (int)LSIM_RENDER_RANGE == (int)LSIM_VIEW_RANGE &&
               (int)LSIM_RENDER_PERSPECTIVE == (int)LSIM_VIEW_PERSPECTIVE, "the public views are the view's kinds");

#define DEFAULT_BEV_EXTENT_M 50.0

void lsim_render_options_init(lsim_render_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->view = LSIM_RENDER_BEV;
    o->color = LSIM_FIELD_INTENSITY;
    o->width = 1024;
    o->height = 768;
    o->extent_m = 0.0;
    o->title = NULL;
}

/* The colour bar's caption, with units. */
static const char *caption(lsim_field f)
{
    switch (f) {
    case LSIM_FIELD_INTENSITY: return "intensity (relative, log scale)";
    case LSIM_FIELD_REFLECTIVITY: return "reflectivity";
    case LSIM_FIELD_LABEL: return "semantic label";
    case LSIM_FIELD_RANGE: return "range (m)";
    case LSIM_FIELD_EPW: return "echo pulse width (m)";
    case LSIM_FIELD_POWER: return "power (W)";
    case LSIM_FIELD_TIME: return "time (s)";
    case LSIM_FIELD_AZIMUTH: return "azimuth (deg)";
    case LSIM_FIELD_ELEVATION: return "elevation (deg)";
    case LSIM_FIELD_INCIDENCE: return "incidence (deg)";
    case LSIM_FIELD_X: return "x (m)";
    case LSIM_FIELD_Y: return "y (m)";
    case LSIM_FIELD_Z: return "z (m)";
    default: return lsim_field_name(f);
    }
}

static const char *view_name(lsim_render_view v)
{
    return v == LSIM_RENDER_BEV ? "bird's-eye" : v == LSIM_RENDER_RANGE ? "range-image" : "perspective";
}

static double value_at(const lsim_points *p, lsim_field f, size_t i)
{
    switch (lsim_field_get_type(f)) {
    case LSIM_TYPE_U16: return ((const uint16_t *)p->column[f])[i];
    case LSIM_TYPE_U32: return ((const uint32_t *)p->column[f])[i];
    default: return ((const float *)p->column[f])[i];
    }
}

lsim_status lsim_points_render(const lsim_points *points, const char *png_path, const lsim_render_options *options,
                               lsim_render_layout *layout)
{
    if (!points)
        return lsim_fail(NULL, LSIM_ERR_INVALID_ARGUMENT, "lsim_points_render: points must not be NULL");
    lsim_context *ctx = points->ctx;
    lsim_render_options defaults;
    if (!options) {
        lsim_render_options_init(&defaults);
        options = &defaults;
    }
    if (!png_path || !*png_path)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_points_render: the output path is empty: give a file "
                         "name");
    if (options->view < LSIM_RENDER_BEV || options->view > LSIM_RENDER_PERSPECTIVE)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "render '%s': view %d is not an lsim_render_view (0 bird's-eye, "
                         "1 range, 2 perspective)", png_path, (int)options->view);
    const lsim_field color = options->color;
    if ((unsigned)color >= LSIM_FIELD_COUNT)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "render '%s': colour field %d is not an lsim_field (0..%d)",
                         png_path, (int)color, LSIM_FIELD_COUNT - 1);
    if (!(options->extent_m >= 0.0 && isfinite(options->extent_m)))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "render '%s': extent %g m is invalid; give a finite distance "
                         "> 0 in metres (0: the default)", png_path, options->extent_m);
    static const lsim_field need[3] = {LSIM_FIELD_X, LSIM_FIELD_Y, LSIM_FIELD_Z};
    for (int k = 0; k < 3; ++k)
        if (!points->column[need[k]])
            return lsim_fail(ctx, LSIM_ERR_NOT_FOUND, "render '%s': the points hold no '%s' field (x, y and z are "
                             "needed)", png_path, lsim_field_name(need[k]));
    if (!points->column[color])
        return lsim_fail(ctx, LSIM_ERR_NOT_FOUND, "render '%s': the points hold no '%s' field to colour them by; scan "
                         "or write them with it, or colour by another field", png_path, lsim_field_name(color));
    const size_t n = points->count;
    double *buf = malloc((n ? n : 1) * 4 * sizeof *buf);
    if (!buf)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory drawing %zu points; render fewer", n);
    double *x = buf, *y = buf + n, *z = buf + 2 * n, *v = buf + 3 * n;
    const float *px = points->column[LSIM_FIELD_X], *py = points->column[LSIM_FIELD_Y];
    const float *pz = points->column[LSIM_FIELD_Z];
    /* The sensor in the points' frame (PCD's VIEWPOINT; identity in the sensor frame): the
     * bird's-eye view centres on it, the others see from it, so the points go into its frame. */
    const double *vp = points->viewpoint;
    double qn = sqrt(vp[3] * vp[3] + vp[4] * vp[4] + vp[5] * vp[5] + vp[6] * vp[6]);
    if (!(qn > 0.0) || !isfinite(qn))
        qn = 1.0;
    const double q[4] = {vp[3] / qn, vp[4] / qn, vp[5] / qn, vp[6] / qn};
    const lsim_mat3 R = lsim_quat_to_mat3(q); /* sensor to points' frame */
    const lsim_vec3 t = lsim_v3(vp[0], vp[1], vp[2]);
    const int world = vp[0] != 0.0 || vp[1] != 0.0 || vp[2] != 0.0 || R.m[0][0] != 1.0 || R.m[1][1] != 1.0 ||
                      R.m[2][2] != 1.0;
    const int to_sensor = world && options->view != LSIM_RENDER_BEV;
    for (size_t i = 0; i < n; ++i) {
        x[i] = px[i];
        y[i] = py[i];
        z[i] = pz[i];
        if (to_sensor) {
            const lsim_vec3 s = lsim_mat3_tmul(&R, lsim_v3_sub(lsim_v3(x[i], y[i], z[i]), t));
            x[i] = s.x;
            y[i] = s.y;
            z[i] = s.z;
        }
        v[i] = value_at(points, color, i);
    }
    char title[256];
    if (!options->title)
        snprintf(title, sizeof title, "%s view, coloured by %s", view_name(options->view), lsim_field_name(color));
    double extent = options->extent_m;
    if (options->view == LSIM_RENDER_BEV && extent == 0.0)
        extent = DEFAULT_BEV_EXTENT_M;
    lsim_view_spec spec = {.count = n, .x = x, .y = y, .z = z, .value = v,
                           .value_is_label = color == LSIM_FIELD_LABEL, .value_label = caption(color),
                           .log_scale = color == LSIM_FIELD_INTENSITY, .kind = (lsim_view_kind)options->view,
                           .width = options->width, .height = options->height, .extent_m = extent,
                           .title = options->title ? options->title : title, .count_in_title = 1,
                           .centre_x = vp[0], .centre_y = vp[1], .world = world};
    lsim_view_layout L;
    lsim_status st = lsim_view_write_png(ctx, &spec, png_path, &L);
    free(buf);
    if (st == LSIM_OK && layout) {
        *layout = (lsim_render_layout){L.plot_x0, L.plot_y0, L.plot_x1, L.plot_y1, L.key_x0, L.key_y0, L.key_x1,
                                       L.key_y1, L.title_y0, L.title_y1, L.value_lo, L.value_hi, L.drawn, L.classes};
    }
    return st;
}
