/* Views of the raster engine and the sensor layouts they are fitted to (raster_views.h). */
#include "geometry/raster_views.h"

#include "sensor/sensor.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PAIR_SAMPLES 4096   /* beams sampled for the finest spacing */
#define PAIR_NEXT 256       /* each against the next this many beams */
#define DEFAULT_PITCH (0.05 * 3.14159265358979323846 / 180.0)
#define MAX_GROUPS 100000
#define WIDE_COS 0.42261826174069944 /* cos 65 deg: a sector holds beams up to 65 deg off its axis */
#define MARGIN_RAD (3.0 * 3.14159265358979323846 / 180.0)
#define MIN_SIDE 16u

/* Cube face k: looks along fwd[k] with up[k]; right = fwd x up. */
static const double face_fwd[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
static const double face_up[6][3] = {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {1, 0, 0}, {1, 0, 0}};

static void cross(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static double dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static int normalise(double v[3])
{
    double n = sqrt(dot(v, v));
    if (!(n > 1e-12))
        return 0;
    for (int k = 0; k < 3; ++k)
        v[k] /= n;
    return 1;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The beams' angular spacing: for about PAIR_SAMPLES beams spread over the list, the nearest of
 * the next PAIR_NEXT beams (a spinning unit's next column of the same laser is `channels` beams
 * on; directions closer than 1e-4 rad are the same direction); the first quartile of those
 * distances. A grid (rotating, camera) gives its finest step; a scattered pattern (a rosette,
 * whose curve crosses itself) its typical spacing rather than the closest crossing. */
static double beam_spacing(const lsim_beams *b)
{
    const size_t n = b->count, every = n > PAIR_SAMPLES ? n / PAIR_SAMPLES : 1;
    double *near = malloc((n / every + 1) * sizeof *near);
    if (!near)
        return DEFAULT_PITCH;
    size_t m = 0;
    for (size_t i = 0; i < n; i += every) {
        double best = INFINITY;
        for (size_t j = i + 1, k = 0; j < n && k < PAIR_NEXT; ++j, ++k) {
            const double a[3] = {b->dx[i], b->dy[i], b->dz[i]}, c[3] = {b->dx[j], b->dy[j], b->dz[j]};
            if (dot(a, c) <= 0.0)
                continue;
            double x[3];
            cross(a, c, x);
            const double s2 = dot(x, x);
            if (s2 > 1e-8 && s2 < best)
                best = s2;
        }
        if (isfinite(best))
            near[m++] = best;
    }
    double q = DEFAULT_PITCH;
    if (m) {
        qsort(near, m, sizeof *near, cmp_double);
        q = asin(sqrt(near[m / 4]));
    }
    free(near);
    return q;
}

static double beam_time(const lsim_beams *b, size_t i)
{
    const double t = b->time ? b->time[i] : 0.0;
    return isfinite(t) && t > 0.0 ? t : 0.0;
}

/* A group's axes from its beams' summed direction s[0..2], time s[3] and count s[4]. */
static void group_start(raster_group *G, const double *s, double fallback_time)
{
    G->time = s[4] > 0.0 ? s[3] / s[4] : fallback_time;
    double f[3] = {s[0], s[1], s[2]};
    G->wide = !(s[4] > 0.0) || sqrt(dot(f, f)) < 1e-3 * s[4] || !normalise(f);
    double up[3] = {0, 0, 1};
    if (fabs(f[2]) > 0.9) {
        up[0] = 1.0;
        up[2] = 0.0;
    }
    const double fu = dot(f, up);
    for (int k = 0; k < 3; ++k)
        up[k] -= fu * f[k];
    normalise(up);
    memcpy(G->fwd, f, sizeof f);
    memcpy(G->up, up, sizeof up);
    cross(f, up, G->right);
    G->x0 = G->y0 = INFINITY;
    G->x1 = G->y1 = -INFINITY;
}

/* Widen G's window to beam direction d (or mark it wide). */
static void group_add(raster_group *G, const double d[3])
{
    if (G->wide)
        return;
    const double fd = dot(G->fwd, d);
    if (!(fd > WIDE_COS * sqrt(dot(d, d)))) {
        G->wide = 1;
        return;
    }
    const double x = dot(G->right, d) / fd, y = dot(G->up, d) / fd;
    G->x0 = x < G->x0 ? x : G->x0;
    G->x1 = x > G->x1 ? x : G->x1;
    G->y0 = y < G->y0 ? y : G->y0;
    G->y1 = y > G->y1 ? y : G->y1;
}

/* The margin around the beams: beam divergence, kernel windows, the sensor turning. */
static void group_finish(raster_group *G)
{
    if (G->wide)
        return;
    G->x0 -= MARGIN_RAD * (1.0 + G->x0 * G->x0);
    G->x1 += MARGIN_RAD * (1.0 + G->x1 * G->x1);
    G->y0 -= MARGIN_RAD * (1.0 + G->y0 * G->y0);
    G->y1 += MARGIN_RAD * (1.0 + G->y1 * G->y1);
}

int raster_layout_make(raster_layout *L, const lsim_sensor *sensor, double pitch_hint, double oversample,
                      double group_ms)
{
    const lsim_beams *b = &sensor->beams;
    const size_t n = b->count;
    raster_layout_free(L);
    const double spacing = beam_spacing(b);
    L->pitch = (pitch_hint > 0.0 && pitch_hint < spacing ? pitch_hint : spacing) / oversample;
    double tmax = 0.0;
    for (size_t i = 0; i < n; ++i)
        tmax = beam_time(b, i) > tmax ? beam_time(b, i) : tmax;
    L->group_s = group_ms * 1e-3;
    if (tmax / L->group_s > MAX_GROUPS)
        L->group_s = tmax / MAX_GROUPS;
    L->groups = (size_t)floor(tmax / L->group_s) + 1;
    L->group = calloc(L->groups, sizeof *L->group);
    double *sum = calloc((L->groups + 1) * 5, sizeof *sum); /* direction, time, count; the last: all */
    if (!L->group || !sum) {
        free(sum);
        raster_layout_free(L);
        return -1;
    }
    double *all = sum + 5 * L->groups;
    for (size_t i = 0; i < n; ++i) {
        double *s = sum + 5 * raster_layout_group_of(L, (float)beam_time(b, i));
        const double v[5] = {b->dx[i], b->dy[i], b->dz[i], beam_time(b, i), 1.0};
        for (int k = 0; k < 5; ++k) {
            s[k] += v[k];
            all[k] += v[k];
        }
    }
    for (size_t g = 0; g < L->groups; ++g)
        group_start(&L->group[g], sum + 5 * g, ((double)g + 0.5) * L->group_s);
    group_start(&L->all, all, 0.0);
    for (size_t i = 0; i < n; ++i) {
        const double d[3] = {b->dx[i], b->dy[i], b->dz[i]};
        group_add(&L->group[raster_layout_group_of(L, (float)beam_time(b, i))], d);
        group_add(&L->all, d);
    }
    for (size_t g = 0; g < L->groups; ++g)
        group_finish(&L->group[g]);
    group_finish(&L->all);
    free(sum);
    return 0;
}

void raster_layout_free(raster_layout *L)
{
    free(L->group);
    L->group = NULL;
    L->groups = 0;
}

size_t raster_layout_group_of(const raster_layout *L, float time)
{
    const double g = floor((double)time / L->group_s);
    return g >= 0.0 ? (g < (double)L->groups ? (size_t)g : L->groups - 1) : 0;
}

uint32_t raster_view_side(double span, double pitch)
{
    double n = ceil(span / pitch);
    if (!(n <= RASTER_MAX_SIDE))
        n = RASTER_MAX_SIDE;
    return n < MIN_SIDE ? MIN_SIDE : (uint32_t)n;
}

void raster_view_set_cube(raster_view *v, uint32_t n)
{
    v->faces = 6;
    for (int k = 0; k < 6; ++k) {
        memcpy(v->fwd[k], face_fwd[k], sizeof v->fwd[k]);
        memcpy(v->up[k], face_up[k], sizeof v->up[k]);
        cross(face_fwd[k], face_up[k], v->right[k]);
    }
    v->x0 = v->y0 = -1.0;
    v->x1 = v->y1 = 1.0;
    v->w = v->h = n;
}

static void turn(const double rot[9], const double a[3], double out[3])
{
    for (int r = 0; r < 3; ++r)
        out[r] = rot[3 * r] * a[0] + rot[3 * r + 1] * a[1] + rot[3 * r + 2] * a[2];
}

void raster_view_set_sector(raster_view *v, const raster_group *g, const double rot[9], double pitch)
{
    v->faces = 1;
    turn(rot, g->fwd, v->fwd[0]);
    turn(rot, g->up, v->up[0]);
    turn(rot, g->right, v->right[0]);
    v->x0 = g->x0;
    v->x1 = g->x1;
    v->y0 = g->y0;
    v->y1 = g->y1;
    v->w = raster_view_side(g->x1 - g->x0, pitch);
    v->h = raster_view_side(g->y1 - g->y0, pitch);
}

/* A view of px pixels in a buffer of `capacity`: a new buffer when it grows, or to give back most
 * of one four times larger; else the buffer is kept. */
static int reallocates(size_t px, size_t capacity) { return px > capacity || px < capacity / 4; }

static void face_view(const raster_view *v, int k, int depth_bits, double near_m, lsim_raster_view *rv)
{
    const lsim_raster_view base = {{v->c[0], v->c[1], v->c[2]}, {0}, v->x0, v->x1, v->y0, v->y1, v->w, v->h,
                                   near_m, v->far_m, depth_bits};
    *rv = base;
    for (int r = 0; r < 3; ++r) {
        rv->rotation[3 * r + 0] = v->right[k][r];
        rv->rotation[3 * r + 1] = v->up[k][r];
        rv->rotation[3 * r + 2] = -v->fwd[k][r];
    }
}

static void free_pixels(raster_view *v)
{
    free(v->range);
    free(v->object);
    free(v->prim);
    v->range = NULL;
    v->object = v->prim = NULL;
}

static lsim_status render_on_gl(lsim_raster_gl *gl, raster_view *v, int depth_bits, double near_m)
{
    free_pixels(v);
    v->gl = gl;
    lsim_status st = lsim_raster_gl_target_make(gl, &v->target, v->w, v->h, (uint32_t)v->faces);
    v->capacity = v->target.range ? (size_t)v->faces * v->w * v->h : 0;
    for (int k = 0; k < v->faces && st == LSIM_OK; ++k) {
        lsim_raster_view rv;
        face_view(v, k, depth_bits, near_m, &rv);
        st = lsim_raster_gl_render_layer(gl, &rv, &v->target, (uint32_t)k);
    }
    return st;
}

lsim_status raster_view_render(lsim_raster_gl *gl, raster_view *v, int depth_bits, double near_m, int on_gl)
{
    if (on_gl)
        return render_on_gl(gl, v, depth_bits, near_m);
    const size_t face = (size_t)v->w * v->h, px = (size_t)v->faces * face;
    if (reallocates(px, v->capacity)) {
        free_pixels(v);
        v->range = malloc(px * sizeof *v->range);
        v->object = malloc(px * sizeof *v->object);
        v->prim = malloc(px * sizeof *v->prim);
        v->capacity = px;
        if (!v->range || !v->object || !v->prim) {
            raster_view_free(v);
            return LSIM_ERR_OUT_OF_MEMORY;
        }
    }
    lsim_status st = LSIM_OK;
    for (int k = 0; k < v->faces && st == LSIM_OK; ++k) {
        lsim_raster_view rv;
        face_view(v, k, depth_bits, near_m, &rv);
        const size_t off = (size_t)k * face;
        lsim_raster_image img = {v->range + off, NULL, v->object + off, v->prim + off, NULL};
        st = lsim_raster_gl_render_view(gl, &rv, &img);
    }
    return st;
}

void raster_view_frame(const raster_view *v, int normal_correction, lsim_raster_lookup_view *out)
{
    memset(out, 0, sizeof *out);
    memcpy(out->c, v->c, sizeof out->c);
    memcpy(out->right, v->right, sizeof out->right);
    memcpy(out->up, v->up, sizeof out->up);
    memcpy(out->fwd, v->fwd, sizeof out->fwd);
    out->x0 = v->x0, out->x1 = v->x1, out->y0 = v->y0, out->y1 = v->y1;
    out->w = v->w, out->h = v->h;
    out->faces = v->faces;
    out->time = v->time;
    out->normal_correction = normal_correction;
}

void raster_view_free(raster_view *v)
{
    free_pixels(v);
    if (v->target.range)
        lsim_raster_gl_target_free(v->gl, &v->target);
    memset(v, 0, sizeof *v);
}

enum { RASTER_PIXEL_BYTES = sizeof(float) + 2 * sizeof(uint32_t) }; /* range, object, prim */

size_t raster_view_bytes(const raster_view *v) { return v->capacity * RASTER_PIXEL_BYTES; }

size_t raster_view_bytes_needed(const raster_view *v)
{
    return (size_t)v->faces * v->w * v->h * RASTER_PIXEL_BYTES;
}

size_t raster_view_bytes_after(const raster_view *v)
{
    const size_t px = (size_t)v->faces * v->w * v->h;
    if (v->target.range) /* textures: made for the exact size */
        return px * RASTER_PIXEL_BYTES;
    return (reallocates(px, v->capacity) ? px : v->capacity) * RASTER_PIXEL_BYTES;
}

size_t raster_views_trim(raster_view *view, int n, const raster_view *keep, size_t need, size_t budget)
{
    while (1) {
        size_t held = 0;
        raster_view *oldest = NULL;
        for (int i = 0; i < n; ++i) {
            if (&view[i] == keep || !view[i].capacity)
                continue;
            held += raster_view_bytes(&view[i]);
            if (!oldest || !view[i].valid || (oldest->valid && view[i].stamp < oldest->stamp))
                oldest = &view[i];
        }
        if (!oldest || held + need <= budget)
            return held;
        raster_view_free(oldest); /* invalid afterwards: it is rendered again when asked for */
    }
}

size_t raster_view_pixel(const raster_view *v, const double w[3], double dir[3])
{
    int k = 0;
    if (v->faces == 6) {
        const int a = fabs(w[0]) >= fabs(w[1]) ? (fabs(w[0]) >= fabs(w[2]) ? 0 : 2) : (fabs(w[1]) >= fabs(w[2]) ? 1 : 2);
        k = 2 * a + (w[a] < 0.0);
    }
    const double *f = v->fwd[k], *u = v->up[k], *rt = v->right[k];
    const double fw = dot(f, w);
    if (!(fw > 1e-9 * sqrt(dot(w, w))))
        return RASTER_NO_PIXEL;
    const double x = dot(rt, w) / fw, y = dot(u, w) / fw;
    const double sx = (v->x1 - v->x0) / v->w, sy = (v->y1 - v->y0) / v->h;
    const double fi = floor((x - v->x0) / sx), fj = floor((y - v->y0) / sy);
    uint32_t i, j;
    if (v->faces == 1) {
        if (!(fi >= 0.0 && fi < v->w && fj >= 0.0 && fj < v->h))
            return RASTER_NO_PIXEL;
        i = (uint32_t)fi;
        j = (uint32_t)fj;
    } else { /* a cube holds every direction: clamp the edges' rounding */
        i = fi < 0.0 ? 0 : fi >= v->w ? v->w - 1 : (uint32_t)fi;
        j = fj < 0.0 ? 0 : fj >= v->h ? v->h - 1 : (uint32_t)fj;
    }
    const double px = v->x0 + (i + 0.5) * sx, py = v->y0 + (j + 0.5) * sy;
    for (int r = 0; r < 3; ++r)
        dir[r] = px * rt[r] + py * u[r] + f[r];
    normalise(dir);
    return (size_t)k * v->w * v->h + (size_t)j * v->w + i;
}
