/* A continuous-wave beam of sub-rays in the fit (cw paper §III-C and §IV: the URG-04LX's beam as
 * three rays, fitted through their mix).
 *
 * The receiver (receiver/cw.h) adds every return j of a beam as a phasor a_j exp(i psi_jk) at each
 * modulation frequency f_k, psi_jk = 4 pi f_k R_j / c + b(a_j) with the bias b(L) = c0 + c1 L +
 * c2 L^2, and reads the range from the sum's phase: R_k = c arg(P_k) / (4 pi f_k) (plus whole half
 * wavelengths), R = (R_1 + R_2) / 2, amplitude (|P_1| + |P_2|) / 2. Here each sub-ray's walked
 * path is its return: R_j(theta) its re-traced optical length (dual numbers, optics/path_dual.h)
 * and a_j(theta) its amplitude as the optics gives it where the model was taken,
 * w_j T_j^2 pi f_r(cos) cos / R_j^2 exp(-2 alpha air) (w the sub-ray's share, T its mirrors' and
 * glass's one-way throughput), varying as rho cos / R^2 with the path (and the reflectance when it
 * is a parameter), as a single-ray beam's does in fit_eval.c. The phasor sums are duals, so
 * d arg(P_k) = (Re dIm - Im dRe) / |P_k|^2 carries every sub-ray's share of the mixed phase and
 * amplitude into the range's gradient: a sub-ray on a near post pulls the range toward the post in
 * proportion to its amplitude, and the gradient sees that pull move as the pose moves.
 *
 * Where the model is taken the mix must give the scan's range (within 0.5 mm + 1e-5 r, as a
 * single ray's path must); the scan's amplitude over the mix's (amp_scale, 1 when the optics is as
 * modelled here) scales the amplitudes the bias and the intensity term see, and the scan's range
 * minus the mix's (offset) is kept, as for a single ray. A sub-ray that meets nothing adds nothing,
 * on the scan and here. Sub-ray directions are the scan's (optics/subrays.h: offsets along
 * lsim_subray_basis of the beam's world direction), built from the dual pose, so their turn with
 * roll and pitch is in the derivative too. The bias sees each return's amplitude over its share
 * (L_j / w_j, receiver/cw.h), as the receiver does. */
#include "core/context.h"
#include "inverse/fit.h"
#include "optics/brdf.h"
#include "scene/scene.h"

#include <math.h>

#define C_LIGHT 299792458.0
#define PI 3.14159265358979323846

static lsim_dual3 cross(lsim_dual3 a, lsim_dual3 b)
{
    const lsim_dual3 r = {lsim_dual_sub(lsim_dual_mul(a.y, b.z), lsim_dual_mul(a.z, b.y)),
                          lsim_dual_sub(lsim_dual_mul(a.z, b.x), lsim_dual_mul(a.x, b.z)),
                          lsim_dual_sub(lsim_dual_mul(a.x, b.y), lsim_dual_mul(a.y, b.x))};
    return r;
}

/* Ray q's world direction at D: its beam's, turned by the sensor's dual pose, then offset along the
 * side axes of lsim_subray_basis (optics/subrays.c) of that direction, as the scan's rays are. */
static lsim_dual3 ray_direction(const lsim_fit *f, const fit_duals *D, size_t q)
{
    const size_t i = q / (size_t)f->sub;
    const int s = (int)(q % (size_t)f->sub);
    const lsim_dual3 d = lsim_dual_pose_rotate(&D->sensor, lsim_dual3_const(f->dir + 3 * i));
    if (s == 0)
        return d;
    const double axis[3] = {fabs(d.z.v) > 0.9 ? 1.0 : 0.0, 0.0, fabs(d.z.v) > 0.9 ? 0.0 : 1.0};
    const lsim_dual3 a = lsim_dual3_const(axis);
    const lsim_dual3 u = lsim_dual3_normalize(lsim_dual3_sub(a, lsim_dual3_mul(d, lsim_dual3_dot(a, d))));
    const lsim_dual3 v = cross(d, u);
    const lsim_dual3 e = lsim_dual3_add(d, lsim_dual3_add(lsim_dual3_mul(u, lsim_dual_const(f->subrays.offset[s][0])),
                                                          lsim_dual3_mul(v, lsim_dual_const(f->subrays.offset[s][1]))));
    return lsim_dual3_normalize(e);
}

/* Ray q's re-traced range and amplitude (before amp_scale) at D. */
static int ray_model(const lsim_fit *f, const fit_duals *D, size_t q, lsim_dual *range, lsim_dual *amp,
                     lsim_path_dual *path)
{
    const fit_model *m = &f->model[q];
    const size_t i = q / (size_t)f->sub;
    const lsim_dual3 o = lsim_dual_pose_apply(&D->sensor, lsim_dual3_const(f->org + 3 * i));
    const lsim_dual3 d = ray_direction(f, D, q);
    const lsim_path_dual p = lsim_path_dual_trace(o, d, f->model_vertex + q * LSIM_FIT_MAX_VERTICES, m->n, D->obj);
    if (path)
        *path = p;
    if (!p.ok || !(p.range.v > 0.0))
        return 0;
    *range = p.range;
    *amp = lsim_dual_const(m->amp0);
    if (m->shape0 > 0.0) {
        const lsim_dual rho = m->refl >= 0 ? D->rho[m->refl] : lsim_dual_const(1.0);
        const lsim_dual shape = lsim_dual_div(lsim_dual_mul(rho, p.cos_incidence), lsim_dual_mul(p.range, p.range));
        *amp = lsim_dual_scale(shape, m->amp0 / m->shape0);
    }
    return 1;
}

/* The mix of beam i's sub-rays at D with amplitude scale `scale`, unwrapped to `ref`: range (no
 * offset) and amplitude. 0 if no sub-ray returns or a re-trace fails. */
static int mix(const lsim_fit *f, const fit_duals *D, size_t i, double scale, double ref, lsim_dual *range,
               lsim_dual *amp)
{
    const double *freq = f->sensor->spec.receiver.cw_freq_hz;
    lsim_dual re[2] = {lsim_dual_const(0.0), lsim_dual_const(0.0)}, im[2] = {re[0], re[0]};
    int any = 0;
    for (int s = 0; s < f->sub; ++s) {
        const size_t q = i * (size_t)f->sub + (size_t)s;
        if (f->model[q].n == 0)
            continue;
        lsim_dual r, a;
        if (!ray_model(f, D, q, &r, &a, NULL))
            return 0;
        a = lsim_dual_scale(a, scale);
        const lsim_dual l = lsim_dual_scale(a, f->bias_gain); /* the radiance the bias sees (receiver/cw.h) */
        const lsim_dual b = lsim_dual_add(D->c[0], lsim_dual_add(lsim_dual_mul(D->c[1], l),
                                                                 lsim_dual_mul(D->c[2], lsim_dual_mul(l, l))));
        for (int k = 0; k < 2; ++k) {
            const lsim_dual psi = lsim_dual_add(lsim_dual_scale(r, 4.0 * PI * freq[k] / C_LIGHT), b);
            re[k] = lsim_dual_add(re[k], lsim_dual_mul(a, lsim_dual_chain(psi, cos(psi.v), -sin(psi.v))));
            im[k] = lsim_dual_add(im[k], lsim_dual_mul(a, lsim_dual_chain(psi, sin(psi.v), cos(psi.v))));
        }
        any = 1;
    }
    if (!any)
        return 0;
    *range = lsim_dual_const(0.0);
    *amp = lsim_dual_const(0.0);
    for (int k = 0; k < 2; ++k) {
        const double m2 = re[k].v * re[k].v + im[k].v * im[k].v;
        if (!(m2 > 0.0))
            return 0;
        lsim_dual phase = lsim_dual_const(atan2(im[k].v, re[k].v)); /* d atan2(Im, Re) */
        for (int j = 0; j < LSIM_DUAL_N; ++j)
            phase.d[j] = (re[k].v * im[k].d[j] - im[k].v * re[k].d[j]) / m2;
        const double half = C_LIGHT / (2.0 * freq[k]);
        lsim_dual fine = lsim_dual_scale(phase, C_LIGHT / (4.0 * PI * freq[k]));
        fine.v += half * round((ref - fine.v) / half); /* the whole half wavelengths: a constant */
        *range = lsim_dual_add(*range, lsim_dual_scale(fine, 0.5));
        const double mag = sqrt(m2);
        lsim_dual mag_d = lsim_dual_const(mag);
        for (int j = 0; j < LSIM_DUAL_N; ++j)
            mag_d.d[j] = (re[k].v * re[k].d[j] + im[k].v * im[k].d[j]) / mag;
        *amp = lsim_dual_add(*amp, lsim_dual_scale(mag_d, 0.5));
    }
    return 1;
}

int lsim_fit_mix_take(lsim_fit *f, const fit_duals *D, size_t i, double r, double a, int *bounced)
{
    const lsim_scene *scene = f->scene;
    *bounced = 0;
    for (int s = 0; s < f->sub; ++s) {
        const size_t q = i * (size_t)f->sub + (size_t)s;
        const fit_path *p = &f->path[q];
        fit_model *m = &f->model[q];
        m->n = 0;
        if (!p->returned)
            continue;
        lsim_fit_take_vertices(f, D, q, p->n - 1);
        lsim_dual range, amp;
        lsim_path_dual path;
        if (!ray_model(f, D, q, &range, &amp, &path))
            return 0;
        const double cos_t = path.cos_incidence.v, t = path.range.v;
        const uint32_t obj = f->vertex_object[q * LSIM_FIT_MAX_VERTICES + (size_t)p->n - 1];
        const double fr = lsim_brdf_backscatter(&scene->materials[scene->objects[obj].material].brdf, cos_t);
        double a0 = f->subrays.weight[s] * p->throughput2 * PI * fr * cos_t / (t * t);
        if (scene->extinction > 0.0)
            a0 *= exp(-2.0 * scene->extinction * p->air);
        if (!(a0 > 0.0) || !isfinite(a0)) {
            m->n = 0; /* the optics drops it too */
            continue;
        }
        m->amp0 = a0;
        m->shape0 = (m->refl >= 0 ? D->rho[m->refl].v : 1.0) * cos_t / (t * t);
        *bounced |= p->bounced;
    }
    fit_model *head = &f->model[i * (size_t)f->sub];
    head->ref = r;
    head->amp_scale = 1.0;
    head->offset = 0.0;
    lsim_dual range, amp;
    for (int pass = 0; pass < 2; ++pass) { /* the scale moves the bias's phase, which moves the amplitude */
        if (!mix(f, D, i, head->amp_scale, r, &range, &amp) || !(amp.v > 0.0))
            return 0;
        if (a > 0.0)
            head->amp_scale *= a / amp.v;
    }
    if (!mix(f, D, i, head->amp_scale, r, &range, &amp) || !(fabs(range.v - r) <= 5e-4 + 1e-5 * r))
        return 0;
    head->offset = r - range.v;
    return 1;
}

int lsim_fit_mix_model(const lsim_fit *f, const fit_duals *D, size_t i, lsim_dual *range, lsim_dual *amp)
{
    const fit_model *head = &f->model[i * (size_t)f->sub];
    if (!mix(f, D, i, head->amp_scale, head->ref, range, amp))
        return 0;
    range->v += head->offset;
    return 1;
}
