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
 * could make the beam see something else, where no derivative exists. */
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

/* 1 if beam i's ring neighbour j (may be out of range) leaves i at a silhouette. */
static int breaks(const lsim_fit *f, const float *r, size_t i, long long j)
{
    if (j < 0 || (size_t)j >= f->beams)
        return 0; /* the frame's edge: no neighbour to compare with */
    return !(r[j] > 0.0f) || f->path[j].signature != f->path[i].signature ||
           fabsf(r[j] - r[i]) > (float)LSIM_FIT_SILHOUETTE_JUMP * r[i];
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

lsim_status lsim_fit_evaluate(lsim_fit *f, const double *params, double *loss, double *gradient)
{
    if (!f || !params || !loss)
        return LSIM_ERR_INVALID_ARGUMENT;
    lsim_dual q[1 + LSIM_FIT_MAX_OBJECTS][6];
    lsim_fit_poses(f, params, q);
    lsim_status st = place(f, q);
    lsim_dual rho[LSIM_FIT_MAX_PARAMS], c[3];
    for (int k = 0; k < f->count; ++k) { /* the reflectances, kept physical */
        if (f->param[k].kind != FIT_REFLECTANCE)
            continue;
        const double v = params[k] < 1e-4 ? 1e-4 : params[k] > 1.0 ? 1.0 : params[k];
        rho[k] = params[k] == v ? lsim_dual_var(v, k) : lsim_dual_const(v);
        f->scene->materials[f->param[k].which].brdf.reflectance = v;
    }
    const lsim_receiver_spec *rx = &f->sensor->spec.receiver;
    double bias[3];
    for (int k = 0; k < 3; ++k) {
        bias[k] = rx->cw_bias[k];
        c[k] = lsim_dual_const(bias[k]);
    }
    for (int k = 0; k < f->count; ++k)
        if (f->param[k].kind == FIT_BIAS) {
            bias[f->param[k].which] = params[k];
            c[f->param[k].which] = lsim_dual_var(params[k], k);
        }
    if (st == LSIM_OK && f->has_bias)
        st = lsim_sensor_set_cw_receiver(f->sensor, rx->cw_freq_hz, rx->cw_samples, rx->cw_periods, bias);
    /* a CW range: the geometry plus the bias's phase as range, c b(L) / (4 pi f), both frequencies averaged */
    const double shift = rx->cw ? C_LIGHT / (8.0 * PI) * (1.0 / rx->cw_freq_hz[0] + 1.0 / rx->cw_freq_hz[1]) : 0.0;
    if (st == LSIM_OK)
        st = lsim_scene_scan_into(f->scene, f->sensor, &f->opt, f->points);
    if (st != LSIM_OK)
        return st;
    if (lsim_points_count(f->points) != f->beams)
        return lsim_fail(f->ctx, LSIM_ERR_STATE, "fit: the scan did not give one row per beam");
    double sensor_pose[6];
    for (int a = 0; a < 6; ++a)
        sensor_pose[a] = q[0][a].v;
    st = lsim_fit_walk(f, sensor_pose);
    if (st != LSIM_OK)
        return st;
    ++f->evaluations;
    memcpy(f->params, params, (size_t)f->count * sizeof *params);
    const float *r = lsim_points_column(f->points, LSIM_FIELD_RANGE);
    const float *amp = lsim_points_column(f->points, LSIM_FIELD_INTENSITY);
    const lsim_dual_pose sensor = dual_pose(q[0]);
    lsim_dual_pose objpose[LSIM_FIT_MAX_OBJECTS];
    lsim_pose objval[LSIM_FIT_MAX_OBJECTS];
    for (int s = 0; s < f->object_count; ++s) {
        objpose[s] = dual_pose(q[1 + s]);
        const double pos[3] = {q[1 + s][0].v, q[1 + s][1].v, q[1 + s][2].v};
        const double rpy[3] = {q[1 + s][3].v / LSIM_DEG, q[1 + s][4].v / LSIM_DEG, q[1 + s][5].v / LSIM_DEG};
        objval[s] = lsim_pose_make(pos, rpy);
    }
    double sum = 0.0, range_sq = 0.0, g[LSIM_FIT_MAX_PARAMS] = {0};
    size_t used = 0, silhouettes = 0, bounced = 0, unmatched = 0;
    lsim_path_vertex v[LSIM_FIT_MAX_VERTICES];
    memset(f->beam_status, LSIM_FIT_BEAM_NONE, f->beams * sizeof *f->beam_status);
    memset(f->residual, 0, f->beams * sizeof *f->residual);
    memset(f->jacobian, 0, f->beams * LSIM_FIT_MAX_PARAMS * sizeof *f->jacobian);
    for (size_t i = 0; i < f->beams; ++i) {
        if (!(r[i] > 0.0f) || !(f->real[i] > 0.0f))
            continue;
        f->beam_status[i] = LSIM_FIT_BEAM_SILHOUETTE; /* until it is used or found unmatched */
        const double a = amp[i];
        const double b_now = shift > 0.0 ? shift * (bias[0] + bias[1] * a + bias[2] * a * a) : 0.0;
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
        for (int k = 0; k <= k_ret; ++k) { /* the path up to its return, posed vertices in their object's frame */
            v[k] = f->vertex[i * LSIM_FIT_MAX_VERTICES + k];
            const int slot = slot_of(f, f->vertex_object[i * LSIM_FIT_MAX_VERTICES + k]);
            if (slot >= 0) {
                const lsim_pose *P = &objval[slot];
                const lsim_vec3 p = lsim_mat3_tmul(&P->r, lsim_v3(v[k].point[0] - P->t.x, v[k].point[1] - P->t.y,
                                                                  v[k].point[2] - P->t.z));
                const lsim_vec3 n = lsim_mat3_tmul(&P->r, lsim_v3(v[k].normal[0], v[k].normal[1], v[k].normal[2]));
                v[k].point[0] = p.x, v[k].point[1] = p.y, v[k].point[2] = p.z;
                v[k].normal[0] = n.x, v[k].normal[1] = n.y, v[k].normal[2] = n.z;
            }
            v[k].pose = slot;
        }
        v[k_ret].kind = LSIM_VERTEX_RETURN;
        const lsim_dual3 o = lsim_dual_pose_apply(&sensor, lsim_dual3_const(f->org + 3 * i));
        const lsim_dual3 d = lsim_dual_pose_rotate(&sensor, lsim_dual3_const(f->dir + 3 * i));
        const lsim_path_dual p = lsim_path_dual_trace(o, d, v, k_ret + 1, objpose);
        if (!p.ok) {
            ++silhouettes; /* grazing: no derivative */
            continue;
        }
        /* the amplitude: rho cos / t^2 for a Lambertian surface whose reflectance is a parameter,
         * else the scan's own value (no derivative) */
        const uint32_t obj = f->vertex_object[i * LSIM_FIT_MAX_VERTICES + k_ret];
        const int rk = f->refl_of_material[f->scene->objects[obj].material];
        lsim_dual amp_d = lsim_dual_const(a);
        if (rk >= 0) {
            const lsim_dual model = lsim_dual_div(lsim_dual_mul(rho[rk], p.cos_incidence),
                                                  lsim_dual_mul(p.range, p.range));
            amp_d = lsim_dual_scale(model, model.v > 0.0 ? a / model.v : 0.0);
        }
        lsim_dual range = p.range;
        if (rx->cw) { /* + shift (c0 + c1 L + c2 L^2) */
            const lsim_dual b = lsim_dual_add(c[0], lsim_dual_add(lsim_dual_mul(c[1], amp_d),
                                                                  lsim_dual_mul(c[2], lsim_dual_mul(amp_d, amp_d))));
            range = lsim_dual_add(range, lsim_dual_scale(b, shift));
        }
        const double e = (double)r[i] - (double)f->real[i];
        double psi;
        sum += robust(f, e, &psi);
        range_sq += e * e;
        for (int k = 0; k < f->count; ++k) {
            g[k] += psi * range.d[k];
            f->jacobian[i * LSIM_FIT_MAX_PARAMS + (size_t)k] = range.d[k];
        }
        f->beam_status[i] = LSIM_FIT_BEAM_USED;
        f->residual[i] = (float)e;
        if (f->real_amp && f->real_amp[i] > 0.0f && a > 0.0) { /* weight x relative amplitude error^2 */
            const double ea = (a - f->real_amp[i]) / f->real_amp[i];
            sum += f->amp_weight * ea * ea;
            for (int k = 0; k < f->count; ++k)
                g[k] += 2.0 * f->amp_weight * ea * amp_d.d[k] / f->real_amp[i];
        }
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
