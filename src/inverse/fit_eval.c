/* The fit's loss and gradient (lsim_fit_evaluate).
 *
 * An evaluation places the sensor and the posed objects, sets the reflectances and the bias,
 * scans the scene (noise off, one row per beam) and walks every beam's path (fit_walk.c). The
 * range the scan reported is matched to that path: to its return vertex, or to the own return of
 * a mirror or glass surface along it (within 5 mm + 0.2 %); a beam whose report matches neither
 * is left out and counted (unmatched). The matched path is re-traced with dual numbers
 * (optics/path_dual.h) from the sensor's dual pose through the tangent planes of its vertices,
 * each moving with its object's dual pose, which gives the range's partial derivatives.
 * Loss = sum rho(r_sim - r_real) over beams where both have a return and the beam is not at a
 * silhouette: a ring neighbour (the previous or next beam of that ring) misses, met other surfaces
 * on its path, or lies more than 10 % nearer or farther; there a small change of the parameters
 * could make the beam see something else, where no derivative exists.
 * A beam of sub-rays (the CW receiver with beam.mode rays, e.g. the urg-04lx preset's three rays)
 * walks each ray, and its model is the receiver's mix of their returns (fit_mix.c): it is used
 * where that mix gives the scan's range, across depth edges too (a mixed pixel's derivative is its
 * rays' phasors'), and left out only where two of its rays meet faces of one object turned more
 * than 10 deg apart (a crease), or where its rays' or its ring neighbours' returns lie more than
 * c / (8 f) apart (a quarter turn of phase: beyond it a mix is no blend of the surfaces). */
#include "core/context.h"
#include "core/vec.h"
#include "inverse/fit.h"
#include "scene/scene.h"
#include "sensor/sensor.h"

#include <math.h>
#include <string.h>

#define C_LIGHT 299792458.0
#define PI 3.14159265358979323846

/* rho(e) and rho'(e) of the chosen loss. */
static double robust(const lsim_fit *f, double e, double *psi)
{
    const double s = f->loss_scale;
    switch (f->loss) {
    case LSIM_FIT_LOSS_HUBER:
        if (fabs(e) <= s) {
            *psi = 2.0 * e;
            return e * e;
        }
        *psi = e > 0.0 ? 2.0 * s : -2.0 * s;
        return 2.0 * s * fabs(e) - s * s;
    case LSIM_FIT_LOSS_CAUCHY: {
        const double u = e * e / (s * s);
        *psi = 2.0 * e / (1.0 + u);
        return s * s * log1p(u);
    }
    default:
        *psi = 2.0 * e;
        return e * e;
    }
}

/* 1 if beam i's ring neighbour j (may be out of range) leaves i at a silhouette or a crease: j
 * misses, met other surfaces, lies more than 10 % nearer or farther, or its path ends on a face
 * turned more than 10 deg from i's (an edge of a box: the range has a kink there, and a derivative
 * from one side only). */
static int breaks(const lsim_fit *f, const float *r, size_t i, long long j)
{
    if (j < 0 || (size_t)j >= f->beams || f->ring[j] != f->ring[i])
        return 0; /* the frame's edge, or the next ring (ring-major order): no neighbour to compare with */
    if (!(r[j] > 0.0f) || f->path[j].signature != f->path[i].signature ||
        fabsf(r[j] - r[i]) > (float)LSIM_FIT_SILHOUETTE_JUMP * r[i] || f->path[j].n != f->path[i].n ||
        f->path[i].n == 0)
        return 1;
    const double *ni = f->vertex[i * LSIM_FIT_MAX_VERTICES + (size_t)f->path[i].n - 1].normal;
    const double *nj = f->vertex[(size_t)j * LSIM_FIT_MAX_VERTICES + (size_t)f->path[j].n - 1].normal;
    return ni[0] * nj[0] + ni[1] * nj[1] + ni[2] * nj[2] < LSIM_FIT_CREASE_COS;
}

/* 1 if sub-ray beam i is left out. (a) A silhouette: one of its rays returns more than c / (8 f)
 * (a quarter turn of phase: 0.70 m at 53.2 MHz) nearer or farther than another of its rays or of
 * its ring neighbours' rays (a ray that meets nothing adds nothing, on the scan as in the mix, and
 * is not compared). Beyond that spread a mix is no
 * blend of the surfaces but can land anywhere, as steep as the amplitudes' ratio, and a ray next
 * to such an edge can cross it with the slightest change: no derivative, as for a single ray.
 * (b) A crease: two of its rays return from faces of one object turned more than 10 deg apart
 * (a room's corner: each ray's tangent plane runs on past the corner, where the ray will soon be
 * on the other face). Rays on different objects close behind each other (a post 0.4 m before a
 * wall: a mixed pixel) are the mix's to model: they stay, and so do their neighbours. */
static int sub_left_out(const lsim_fit *f, size_t i)
{
    const size_t S = (size_t)f->sub;
    const double *fq = f->sensor->spec.receiver.cw_freq_hz;
    const double spread = 299792458.0 / (8.0 * (fq[0] > fq[1] ? fq[0] : fq[1]));
    for (long long side = -1; side <= 1; ++side) {
        const long long j = (long long)i + side * (long long)f->stride;
        if (j < 0 || (size_t)j >= f->beams || f->ring[j] != f->ring[i])
            continue; /* the frame's edge, or the next ring: no neighbour */
        for (size_t s = 0; s < S; ++s)
            for (size_t t = 0; t < S; ++t) {
                const fit_path *a = &f->path[i * S + s], *b = &f->path[(size_t)j * S + t];
                if (a->returned && b->returned && fabs(a->range - b->range) > spread)
                    return 1;
            }
    }
    for (size_t s = 0; s < S; ++s)
        for (size_t t = s + 1; t < S; ++t) {
            const fit_path *a = &f->path[i * S + s], *b = &f->path[i * S + t];
            if (!a->returned || !b->returned || a->signature != b->signature || a->n != b->n)
                continue;
            const double *na = f->vertex[(i * S + s) * LSIM_FIT_MAX_VERTICES + (size_t)a->n - 1].normal;
            const double *nb = f->vertex[(i * S + t) * LSIM_FIT_MAX_VERTICES + (size_t)b->n - 1].normal;
            if (na[0] * nb[0] + na[1] * nb[1] + na[2] * nb[2] < LSIM_FIT_CREASE_COS)
                return 1;
        }
    return 0;
}

/* The vertex whose return the scan reported: the path's return, if the range matches it (CW:
 * within 0.5 mm + 1e-5 r; the receiver mixes every contribution of a beam into one phase, so a
 * range further off is a mix, whose derivative is not the path's; pulsed: 5 mm + 0.2 %); -1 if
 * not. A mirror's or glass's own (specular) return is never matched: it is a lobe near normal
 * incidence, mixed with the surface behind it or with the pane's other face. */
static int matched_vertex(const lsim_fit *f, size_t i, double r)
{
    const fit_path *p = &f->path[i];
    const double tol = f->sensor->spec.receiver.cw ? 5e-4 + 1e-5 * r : 0.005 + 0.002 * r;
    return p->returned && fabs(p->range - r) <= tol ? p->n - 1 : -1;
}

static lsim_status place(lsim_fit *f, lsim_dual q[][6])
{
    double pos[3], rpy[3];
    for (int a = 0; a < 3; ++a) {
        pos[a] = q[0][a].v;
        rpy[a] = q[0][3 + a].v / LSIM_DEG;
    }
    lsim_status st = lsim_sensor_set_pose(f->sensor, pos, rpy);
    for (int s = 0; st == LSIM_OK && s < f->object_count; ++s) {
        for (int a = 0; a < 3; ++a) {
            pos[a] = q[1 + s][a].v;
            rpy[a] = q[1 + s][3 + a].v / LSIM_DEG;
        }
        st = lsim_scene_set_object_pose(f->scene, f->scene->objects[f->objects[s].object].name, pos, rpy);
    }
    return st;
}

static lsim_dual_pose dual_pose(lsim_dual q[6])
{
    const lsim_dual3 t = {q[0], q[1], q[2]};
    return lsim_dual_pose_make(t, q[3], q[4], q[5]);
}

static int slot_of(const lsim_fit *f, uint32_t object)
{
    for (int s = 0; s < f->object_count; ++s)
        if (f->objects[s].object == object)
            return s;
    return -1;
}

static void make_duals(const lsim_fit *f, const double *params, fit_duals *D)
{
    lsim_fit_poses(f, params, D->q);
    D->sensor = dual_pose(D->q[0]);
    for (int s = 0; s < f->object_count; ++s) {
        D->obj[s] = dual_pose(D->q[1 + s]);
        const double pos[3] = {D->q[1 + s][0].v, D->q[1 + s][1].v, D->q[1 + s][2].v};
        const double rpy[3] = {D->q[1 + s][3].v / LSIM_DEG, D->q[1 + s][4].v / LSIM_DEG, D->q[1 + s][5].v / LSIM_DEG};
        D->objval[s] = lsim_pose_make(pos, rpy);
    }
    for (int k = 0; k < f->count; ++k) {
        if (f->param[k].kind != FIT_REFLECTANCE)
            continue;
        const double v = params[k] < 1e-4 ? 1e-4 : params[k] > 1.0 ? 1.0 : params[k];
        D->rho[k] = params[k] == v ? lsim_dual_var(v, k) : lsim_dual_const(v);
    }
    const lsim_receiver_spec *rx = &f->sensor->spec.receiver;
    for (int k = 0; k < 3; ++k) {
        D->bias[k] = rx->cw_bias[k];
        D->c[k] = lsim_dual_const(D->bias[k]);
    }
    for (int k = 0; k < f->count; ++k)
        if (f->param[k].kind == FIT_BIAS) {
            D->bias[f->param[k].which] = params[k];
            D->c[f->param[k].which] = lsim_dual_var(params[k], k);
        }
    D->shift = rx->cw ? C_LIGHT / (8.0 * PI) * (1.0 / rx->cw_freq_hz[0] + 1.0 / rx->cw_freq_hz[1]) : 0.0;
}

/* Beam i's path model at the duals D: its re-traced range (plus the offset that makes it the
 * scan's range where it was taken, plus the CW bias's shift) and amplitude (the scan's, varying as
 * rho cos / t^2 with the path and, when it is a parameter, the reflectance). 0 if the re-trace
 * fails. */
static int beam_model(const lsim_fit *f, const fit_duals *D, size_t i, lsim_dual *range, lsim_dual *amp,
                      lsim_path_dual *path)
{
    const fit_model *m = &f->model[i];
    const lsim_dual3 o = lsim_dual_pose_apply(&D->sensor, lsim_dual3_const(f->org + 3 * i));
    const lsim_dual3 d = lsim_dual_pose_rotate(&D->sensor, lsim_dual3_const(f->dir + 3 * i));
    const lsim_path_dual p = lsim_path_dual_trace(o, d, f->model_vertex + i * LSIM_FIT_MAX_VERTICES, m->n, D->obj);
    if (path)
        *path = p;
    if (!p.ok)
        return 0;
    *amp = lsim_dual_const(m->amp0);
    if (m->shape0 > 0.0) { /* rho cos / t^2, rho constant unless it is a parameter */
        const lsim_dual rho = m->refl >= 0 ? D->rho[m->refl] : lsim_dual_const(1.0);
        const lsim_dual shape = lsim_dual_div(lsim_dual_mul(rho, p.cos_incidence), lsim_dual_mul(p.range, p.range));
        *amp = lsim_dual_scale(shape, m->amp0 / m->shape0);
    }
    *range = lsim_dual_add(p.range, lsim_dual_const(m->offset));
    if (D->shift > 0.0) { /* + shift (c0 + c1 L + c2 L^2) */
        const lsim_dual b = lsim_dual_add(D->c[0], lsim_dual_add(lsim_dual_mul(D->c[1], *amp),
                                                                 lsim_dual_mul(D->c[2], lsim_dual_mul(*amp, *amp))));
        *range = lsim_dual_add(*range, lsim_dual_scale(b, D->shift));
    }
    return 1;
}

/* Beam i's terms of the loss and its gradient; its residual and Jacobian row kept if `keep`. */
static void beam_terms(lsim_fit *f, size_t i, lsim_dual range, lsim_dual amp, double *sum, double *range_sq,
                       double *g, int keep)
{
    const double e = range.v - (double)f->real[i], before = *sum;
    double psi;
    *sum += robust(f, e, &psi);
    *range_sq += e * e;
    for (int k = 0; k < f->count; ++k)
        g[k] += psi * range.d[k];
    if (keep) {
        for (int k = 0; k < f->count; ++k)
            f->jacobian[i * LSIM_FIT_MAX_PARAMS + (size_t)k] = range.d[k];
        f->residual[i] = (float)e;
    }
    if (f->real_amp && f->real_amp[i] > 0.0f && amp.v > 0.0) { /* weight x relative amplitude error^2 */
        const double ea = (amp.v - f->real_amp[i]) / f->real_amp[i];
        *sum += f->amp_weight * ea * ea;
        for (int k = 0; k < f->count; ++k)
            g[k] += 2.0 * f->amp_weight * ea * amp.d[k] / f->real_amp[i];
    }
    if (keep)
        f->beam_loss[i] = *sum - before;
}

int lsim_fit_take_vertices(lsim_fit *f, const fit_duals *D, size_t q, int k_ret)
{
    fit_model *m = &f->model[q];
    lsim_path_vertex *v = f->model_vertex + q * LSIM_FIT_MAX_VERTICES;
    for (int k = 0; k <= k_ret; ++k) {
        v[k] = f->vertex[q * LSIM_FIT_MAX_VERTICES + k];
        const int slot = slot_of(f, f->vertex_object[q * LSIM_FIT_MAX_VERTICES + k]);
        if (slot >= 0) {
            const lsim_pose *P = &D->objval[slot];
            const lsim_vec3 p = lsim_mat3_tmul(&P->r, lsim_v3(v[k].point[0] - P->t.x, v[k].point[1] - P->t.y,
                                                              v[k].point[2] - P->t.z));
            const lsim_vec3 n = lsim_mat3_tmul(&P->r, lsim_v3(v[k].normal[0], v[k].normal[1], v[k].normal[2]));
            v[k].point[0] = p.x, v[k].point[1] = p.y, v[k].point[2] = p.z;
            v[k].normal[0] = n.x, v[k].normal[1] = n.y, v[k].normal[2] = n.z;
        }
        v[k].pose = slot;
    }
    v[k_ret].kind = LSIM_VERTEX_RETURN;
    m->n = k_ret + 1;
    m->amp0 = 0.0;
    m->offset = 0.0;
    m->shape0 = 0.0;
    const uint32_t obj = f->vertex_object[q * LSIM_FIT_MAX_VERTICES + k_ret];
    m->refl = f->refl_of_material[f->scene->objects[obj].material];
    return 1;
}

/* Beam i's model from its walked path (up to vertex k_ret), taken at the duals D: posed objects'
 * vertices into their object's frame, the offset and amplitude shape at this point. */
static int take_model(lsim_fit *f, const fit_duals *D, size_t i, int k_ret, double r, double a)
{
    fit_model *m = &f->model[i];
    lsim_fit_take_vertices(f, D, i, k_ret);
    m->amp0 = a;
    lsim_dual range, amp;
    lsim_path_dual p;
    if (!beam_model(f, D, i, &range, &amp, &p))
        return 0;
    m->shape0 = (m->refl >= 0 ? D->rho[m->refl].v : 1.0) * p.cos_incidence.v / (p.range.v * p.range.v);
    m->offset = r - range.v; /* the model gives the scan's range here (within the match's tolerance anyway) */
    return 1;
}

static lsim_status evaluate(lsim_fit *f, const double *params, double *loss, double *gradient)
{
    lsim_status st = lsim_fit_check(f, params);
    if (st != LSIM_OK)
        return st;
    fit_duals D;
    make_duals(f, params, &D);
    st = place(f, D.q);
    for (int k = 0; st == LSIM_OK && k < f->count; ++k)
        if (f->param[k].kind == FIT_REFLECTANCE)
            f->scene->materials[f->param[k].which].brdf.reflectance = D.rho[k].v;
    const lsim_receiver_spec *rx = &f->sensor->spec.receiver;
    if (st == LSIM_OK && f->has_bias)
        st = lsim_sensor_set_cw_receiver(f->sensor, rx->cw_freq_hz, rx->cw_samples, rx->cw_periods, D.bias);
    if (st == LSIM_OK)
        st = lsim_scene_scan_into(f->scene, f->sensor, &f->opt, f->points);
    if (st != LSIM_OK)
        return st;
    if (lsim_points_count(f->points) != f->beams)
        return lsim_fail(f->ctx, LSIM_ERR_STATE, "fit: the scan did not give one row per beam");
    double sensor_pose[6];
    for (int a = 0; a < 6; ++a)
        sensor_pose[a] = D.q[0][a].v;
    st = lsim_fit_walk(f, sensor_pose);
    if (st != LSIM_OK)
        return st;
    ++f->evaluations;
    memcpy(f->params, params, (size_t)f->count * sizeof *params);
    const float *r = lsim_points_column(f->points, LSIM_FIELD_RANGE);
    const float *amp = lsim_points_column(f->points, LSIM_FIELD_INTENSITY);
    double sum = 0.0, range_sq = 0.0, g[LSIM_FIT_MAX_PARAMS] = {0};
    size_t used = 0, silhouettes = 0, bounced = 0, unmatched = 0;
    memset(f->beam_status, LSIM_FIT_BEAM_NONE, f->beams * sizeof *f->beam_status);
    memset(f->residual, 0, f->beams * sizeof *f->residual);
    memset(f->jacobian, 0, f->beams * LSIM_FIT_MAX_PARAMS * sizeof *f->jacobian);
    for (size_t i = 0; i < f->beams; ++i) {
        if (!(r[i] > 0.0f) || !(f->real[i] > 0.0f))
            continue;
        f->beam_status[i] = LSIM_FIT_BEAM_SILHOUETTE; /* until it is used or found unmatched */
        const double a = amp[i];
        if (f->sub > 1) { /* sub-rays: the model is their mix, which spans a depth edge; creases are left out */
            int through = 0;
            lsim_dual range, amp_d;
            if (!lsim_fit_mix_take(f, &D, i, r[i], a, &through)) {
                f->beam_status[i] = LSIM_FIT_BEAM_UNMATCHED;
                ++unmatched;
                continue;
            }
            if (sub_left_out(f, i)) {
                ++silhouettes;
                continue;
            }
            if (!lsim_fit_mix_model(f, &D, i, &range, &amp_d)) {
                ++silhouettes; /* grazing: no derivative */
                continue;
            }
            beam_terms(f, i, range, amp_d, &sum, &range_sq, g, 1);
            f->beam_status[i] = LSIM_FIT_BEAM_USED;
            bounced += through;
            ++used;
            continue;
        }
        const double b_now = D.shift * (D.bias[0] + D.bias[1] * a + D.bias[2] * a * a);
        const int k_ret = matched_vertex(f, i, (double)r[i] - b_now);
        if (k_ret < 0) {
            f->beam_status[i] = LSIM_FIT_BEAM_UNMATCHED;
            ++unmatched;
            continue;
        }
        const long long s = (long long)f->stride;
        if (breaks(f, r, i, (long long)i - s) || breaks(f, r, i, (long long)i + s)) {
            ++silhouettes;
            continue;
        }
        lsim_dual range, amp_d;
        if (!take_model(f, &D, i, k_ret, r[i], a) || !beam_model(f, &D, i, &range, &amp_d, NULL)) {
            ++silhouettes; /* grazing: no derivative */
            continue;
        }
        beam_terms(f, i, range, amp_d, &sum, &range_sq, g, 1);
        f->beam_status[i] = LSIM_FIT_BEAM_USED;
        bounced += k_ret > 0;
        ++used;
    }
    f->used = used;
    f->silhouettes = silhouettes;
    f->bounced = bounced;
    f->unmatched = unmatched;
    f->range_sq = range_sq;
    *loss = sum;
    if (gradient)
        memcpy(gradient, g, (size_t)f->count * sizeof *g);
    return LSIM_OK;
}

/* An evaluation holds the scene's lock from placing the sensor and objects to the end of the walk:
 * a scan of the scene in another thread comes before or after it, never between the poses, the
 * scan and the walk that must agree (and the engine it uses is not rebuilt under it). */
lsim_status lsim_fit_evaluate(lsim_fit *f, const double *params, double *loss, double *gradient)
{
    if (!f || !params || !loss)
        return LSIM_ERR_INVALID_ARGUMENT;
    lsim_scene_lock(f->scene);
    lsim_status st = evaluate(f, params, loss, gradient);
    lsim_scene_unlock(f->scene);
    return st;
}

lsim_status lsim_fit_model_loss(lsim_fit *f, const double *params, double *loss, double *gradient)
{
    lsim_status st = lsim_fit_check(f, params);
    if (st != LSIM_OK)
        return st;
    fit_duals D;
    make_duals(f, params, &D);
    double sum = 0.0, range_sq = 0.0, g[LSIM_FIT_MAX_PARAMS] = {0};
    lsim_scene_lock(f->scene); /* the scene's objects and materials, as lsim_fit_evaluate */
    for (size_t i = 0; i < f->beams; ++i) {
        lsim_dual range, amp;
        if (f->beam_status[i] == LSIM_FIT_BEAM_USED &&
            (f->sub > 1 ? lsim_fit_mix_model(f, &D, i, &range, &amp) : beam_model(f, &D, i, &range, &amp, NULL)))
            beam_terms(f, i, range, amp, &sum, &range_sq, g, 0);
    }
    lsim_scene_unlock(f->scene);
    *loss = sum;
    if (gradient)
        memcpy(gradient, g, (size_t)f->count * sizeof *g);
    return LSIM_OK;
}
