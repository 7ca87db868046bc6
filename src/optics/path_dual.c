/* A return's path re-traced with dual numbers (see path_dual.h). */
#include "optics/path_dual.h"

#include <math.h>

lsim_path_dual lsim_path_dual_trace(lsim_dual3 origin, lsim_dual3 direction, const lsim_path_vertex *v, int n,
                                    const lsim_dual_pose *poses)
{
    lsim_path_dual out;
    out.range = out.last_segment = out.cos_incidence = lsim_dual_const(0.0);
    out.ok = 0;
    lsim_dual3 o = origin, d = direction;
    lsim_dual total = lsim_dual_const(0.0);
    double medium = 1.0; /* refractive index where the ray now runs: glass counts ior x length */
    for (int i = 0; i < n; ++i) {
        lsim_dual3 p = lsim_dual3_const(v[i].point), nrm = lsim_dual3_const(v[i].normal);
        if (v[i].pose >= 0) { /* the surface moves with its object */
            p = lsim_dual_pose_apply(&poses[v[i].pose], p);
            nrm = lsim_dual_pose_rotate(&poses[v[i].pose], nrm);
        }
        /* the tangent plane: t = n . (p - o) / (n . d) */
        const lsim_dual nd = lsim_dual3_dot(nrm, d);
        if (!(fabs(nd.v) > 1e-12))
            return out;
        const lsim_dual t = lsim_dual_div(lsim_dual3_dot(nrm, lsim_dual3_sub(p, o)), nd);
        if (!(t.v > 0.0))
            return out;
        total = lsim_dual_add(total, lsim_dual_scale(t, medium));
        o = lsim_dual3_add(o, lsim_dual3_mul(d, t));
        /* the normal facing the incoming ray, and cos i = -d . n > 0 */
        if (nd.v > 0.0)
            nrm = lsim_dual3_mul(nrm, lsim_dual_const(-1.0));
        const lsim_dual cosi = lsim_dual_scale(lsim_dual3_dot(d, nrm), -1.0);
        switch (v[i].kind) {
        case LSIM_VERTEX_RETURN:
            out.range = total;
            out.last_segment = t;
            out.cos_incidence = cosi;
            out.ok = 1;
            return out;
        case LSIM_VERTEX_MIRROR: /* d' = d + 2 cos i n */
            d = lsim_dual3_add(d, lsim_dual3_mul(nrm, lsim_dual_scale(cosi, 2.0)));
            break;
        case LSIM_VERTEX_REFRACT: { /* entering against the stored normal: eta; leaving: 1 / eta */
            const double eta_v = nd.v < 0.0 ? v[i].eta : 1.0 / v[i].eta;
            const lsim_dual eta = lsim_dual_const(eta_v);
            /* cos t = sqrt(1 - eta^2 (1 - cos i^2)) */
            const lsim_dual k = lsim_dual_sub(lsim_dual_const(1.0),
                                              lsim_dual_scale(lsim_dual_sub(lsim_dual_const(1.0),
                                                                            lsim_dual_mul(cosi, cosi)),
                                                              eta_v * eta_v));
            if (!(k.v > 0.0))
                return out; /* total internal reflection: the path the tracer found is not this one */
            const lsim_dual cost = lsim_dual_sqrt(k);
            /* d' = eta d + (eta cos i - cos t) n */
            d = lsim_dual3_add(lsim_dual3_mul(d, eta),
                               lsim_dual3_mul(nrm, lsim_dual_sub(lsim_dual_mul(eta, cosi), cost)));
            medium = nd.v < 0.0 ? 1.0 / v[i].eta : 1.0;
            break;
        }
        }
    }
    return out; /* no return vertex */
}
