/* BRDFs of lidarsim's materials: defaults, names, validation, backscatter and general evaluation.
 * Forms and conventions: optics/brdf.h and DESIGN.md §2. Pure functions, no state. */
#include "optics/brdf.h"

#include "core/context.h"
#include "core/vec.h"

#include <math.h>
#include <string.h>

/* Oren–Nayar's tan(theta) diverges at grazing incidence; its cosine is floored here so that
 * f_r stays finite (the range equation's cos(theta) factor makes the product tend to a finite
 * value anyway). Only cos(theta) < 1e-6, i.e. theta within 0.2 arc-seconds of 90 deg, is
 * affected. */
#define LSIM_BRDF_TAN_COS_MIN 1e-6

static const char *const kind_names[] = {
    [LSIM_BRDF_LAMBERTIAN] = "lambertian",     [LSIM_BRDF_OREN_NAYAR] = "oren-nayar",
    [LSIM_BRDF_COOK_TORRANCE] = "cook-torrance", [LSIM_BRDF_RETROREFLECTOR] = "retroreflector",
    [LSIM_BRDF_MIRROR] = "mirror",             [LSIM_BRDF_GLASS] = "glass",
};
#define LSIM_BRDF_KIND_COUNT ((int)(sizeof kind_names / sizeof kind_names[0]))

/* ------------------------------------------------------------------------------------------- */
/* Names, defaults, validation                                                                 */

const char *lsim_brdf_kind_name(lsim_brdf_kind kind)
{
    if ((int)kind < 0 || (int)kind >= LSIM_BRDF_KIND_COUNT)
        return "unknown";
    return kind_names[kind];
}

int lsim_brdf_kind_parse(const char *name, lsim_brdf_kind *out)
{
    if (!name)
        return -1;
    for (int k = 0; k < LSIM_BRDF_KIND_COUNT; ++k) {
        if (strcmp(name, kind_names[k]) == 0) {
            if (out)
                *out = (lsim_brdf_kind)k;
            return 0;
        }
    }
    return -1;
}

void lsim_brdf_defaults(lsim_brdf *brdf, lsim_brdf_kind kind)
{
    if (!brdf)
        return;
    brdf->kind = kind;
    brdf->reflectance = kind == LSIM_BRDF_MIRROR ? 0.9 : 0.5;
    brdf->roughness = 0.3;
    brdf->ior = 1.5;
    brdf->f0 = -1.0;
    brdf->metallic = 0.0;
    brdf->peak = 300.0;
    brdf->falloff_deg = 20.0;
    brdf->transmittance = 0.9;
}

/* True when lo <= v <= hi (false for NaN). */
static int in_closed(double v, double lo, double hi) { return v >= lo && v <= hi; }

static lsim_status bad(lsim_context *ctx, const char *material, const char *key, double value,
                       const char *must)
{
    return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "materials.%s.%s: value %g is invalid; must be %s",
                     material, key, value, must);
}

lsim_status lsim_brdf_validate(lsim_context *ctx, const lsim_brdf *brdf, const char *material)
{
    if (!material)
        material = "(unnamed)";
    if (!brdf)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "materials.%s: no BRDF given", material);
    switch (brdf->kind) {
    case LSIM_BRDF_LAMBERTIAN:
    case LSIM_BRDF_MIRROR:
        if (!in_closed(brdf->reflectance, 0.0, 1.0))
            return bad(ctx, material, "reflectance", brdf->reflectance, "in [0, 1]");
        return LSIM_OK;
    case LSIM_BRDF_OREN_NAYAR:
        if (!in_closed(brdf->reflectance, 0.0, 1.0))
            return bad(ctx, material, "reflectance", brdf->reflectance, "in [0, 1]");
        if (!in_closed(brdf->roughness, 0.0, LSIM_PI / 2.0))
            return bad(ctx, material, "roughness", brdf->roughness,
                       "in [0, pi/2] (the facet slope deviation sigma, in radians)");
        return LSIM_OK;
    case LSIM_BRDF_COOK_TORRANCE:
        if (!in_closed(brdf->reflectance, 0.0, 1.0))
            return bad(ctx, material, "reflectance", brdf->reflectance, "in [0, 1]");
        if (!(brdf->roughness > 0.0 && brdf->roughness <= 1.0))
            return bad(ctx, material, "roughness", brdf->roughness, "in (0, 1]");
        if (!in_closed(brdf->ior, 1.0, 10.0))
            return bad(ctx, material, "ior", brdf->ior, ">= 1 (and at most 10)");
        if (!(brdf->f0 < 0.0 || in_closed(brdf->f0, 0.0, 1.0)))
            return bad(ctx, material, "f0", brdf->f0, "in [0, 1] (or negative to derive it from ior)");
        if (!in_closed(brdf->metallic, 0.0, 1.0))
            return bad(ctx, material, "metallic", brdf->metallic, "in [0, 1]");
        return LSIM_OK;
    case LSIM_BRDF_RETROREFLECTOR:
        if (!in_closed(brdf->peak, 0.0, 1e5))
            return bad(ctx, material, "peak", brdf->peak,
                       "in [0, 100000] sr^-1 (retroreflective sheeting is typically 100-1000)");
        if (!(brdf->falloff_deg > 0.0 && brdf->falloff_deg <= 90.0))
            return bad(ctx, material, "falloff_deg", brdf->falloff_deg, "in (0, 90] degrees");
        return LSIM_OK;
    case LSIM_BRDF_GLASS:
        if (!in_closed(brdf->ior, 1.0, 10.0))
            return bad(ctx, material, "ior", brdf->ior, ">= 1 (and at most 10)");
        if (!in_closed(brdf->transmittance, 0.0, 1.0))
            return bad(ctx, material, "transmittance", brdf->transmittance, "in [0, 1]");
        return LSIM_OK;
    }
    return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                     "materials.%s.brdf: unknown BRDF kind %d; valid: lambertian, oren-nayar, "
                     "cook-torrance, retroreflector, mirror, glass",
                     material, (int)brdf->kind);
}

/* ------------------------------------------------------------------------------------------- */
/* Building blocks                                                                             */

static double clamp01(double x) { return x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x); }

/* Oren–Nayar's A (= C1) and B (= C2) for facet slope deviation sigma (radians). */
static void oren_nayar_ab(double sigma, double *a, double *b)
{
    double s2 = sigma * sigma;
    *a = 1.0 - 0.5 * s2 / (s2 + 0.33);
    *b = 0.45 * s2 / (s2 + 0.09);
}

/* GGX normal distribution at n.h = c, alpha = roughness^2. */
static double ggx_d(double c, double roughness)
{
    double a2 = roughness * roughness;
    a2 *= a2;
    double t = c * c * (a2 - 1.0) + 1.0;
    return a2 / (LSIM_PI * t * t);
}

/* Smith–Schlick's G1(c) / c = 1 / (c (1 - k) + k), k = (r + 1)^2 / 8: with it the Cook–Torrance
 * ratio G / (4 n.wi n.wo) has no 0/0 at grazing incidence. */
static double g1_over_cos(double c, double roughness)
{
    double k = (roughness + 1.0) * (roughness + 1.0) / 8.0;
    return 1.0 / (c * (1.0 - k) + k);
}

/* Microfacet lobe D(n.h) G(wi, wo) / (4 n.wi n.wo), without Fresnel. */
static double microfacet_lobe(double n_h, double n_wi, double n_wo, double roughness)
{
    return ggx_d(n_h, roughness) * g1_over_cos(n_wi, roughness) * g1_over_cos(n_wo, roughness) / 4.0;
}

/* Cook–Torrance's effective normal-incidence Fresnel reflectance: F0 from f0 (or from ior when
 * f0 < 0), mixed toward the reflectance by `metallic`. */
static double cook_torrance_f0(const lsim_brdf *b)
{
    double f0 = b->f0;
    if (f0 < 0.0) {
        double r = (b->ior - 1.0) / (b->ior + 1.0);
        f0 = r * r;
    }
    return f0 * (1.0 - b->metallic) + b->reflectance * b->metallic;
}

static double retro_falloff_rad(const lsim_brdf *b)
{
    double f = b->falloff_deg * LSIM_DEG;
    return f > 1e-12 ? f : 1e-12;
}

/* ------------------------------------------------------------------------------------------- */
/* Backscatter                                                                                  */

double lsim_brdf_backscatter(const lsim_brdf *brdf, double cos_theta)
{
    if (!brdf || !(cos_theta > 0.0))
        return 0.0;
    double c = cos_theta > 1.0 ? 1.0 : cos_theta;
    switch (brdf->kind) {
    case LSIM_BRDF_LAMBERTIAN:
        return brdf->reflectance / LSIM_PI;
    case LSIM_BRDF_OREN_NAYAR: {
        double a, b;
        oren_nayar_ab(brdf->roughness, &a, &b);
        double ct = c > LSIM_BRDF_TAN_COS_MIN ? c : LSIM_BRDF_TAN_COS_MIN;
        double sin_tan = (1.0 - c * c) / ct; /* sin(theta) tan(theta) */
        return brdf->reflectance / LSIM_PI * (a + b * sin_tan);
    }
    case LSIM_BRDF_COOK_TORRANCE: {
        double f = cook_torrance_f0(brdf); /* Schlick at v.h = 1 */
        double spec = microfacet_lobe(c, c, c, brdf->roughness) * f;
        double diffuse = (1.0 - f) * (1.0 - brdf->metallic) * brdf->reflectance / LSIM_PI;
        return spec + diffuse;
    }
    case LSIM_BRDF_RETROREFLECTOR: {
        double theta = acos(c);
        double w = retro_falloff_rad(brdf);
        return brdf->peak * exp(-theta * theta / (2.0 * w * w));
    }
    case LSIM_BRDF_MIRROR:
        return brdf->reflectance * microfacet_lobe(c, c, c, LSIM_SPECULAR_ROUGHNESS);
    case LSIM_BRDF_GLASS:
        return lsim_fresnel_dielectric(c, brdf->ior) * microfacet_lobe(c, c, c, LSIM_SPECULAR_ROUGHNESS);
    }
    return 0.0;
}

/* ------------------------------------------------------------------------------------------- */
/* General directions                                                                           */

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* cos(phi_i - phi_o): the cosine between the projections of wi and wo on the tangent plane
 * (0 when either is along the normal, where the azimuth is undefined and the term vanishes). */
static double cos_azimuth_difference(const double wi[3], const double wo[3], const double n[3],
                                     double n_wi, double n_wo)
{
    double ti[3], to[3];
    for (int k = 0; k < 3; ++k) {
        ti[k] = wi[k] - n_wi * n[k];
        to[k] = wo[k] - n_wo * n[k];
    }
    double li = dot3(ti, ti), lo = dot3(to, to);
    if (!(li > 1e-24 && lo > 1e-24))
        return 0.0;
    double c = dot3(ti, to) / sqrt(li * lo);
    return c > 1.0 ? 1.0 : (c < -1.0 ? -1.0 : c);
}

double lsim_brdf_eval(const lsim_brdf *brdf, const double wi[3], const double wo[3], const double n[3])
{
    if (!brdf || !wi || !wo || !n)
        return 0.0;
    double n_wi = dot3(n, wi), n_wo = dot3(n, wo);
    if (!(n_wi > 0.0 && n_wo > 0.0))
        return 0.0;
    n_wi = n_wi > 1.0 ? 1.0 : n_wi;
    n_wo = n_wo > 1.0 ? 1.0 : n_wo;
    switch (brdf->kind) {
    case LSIM_BRDF_LAMBERTIAN:
        return brdf->reflectance / LSIM_PI;
    case LSIM_BRDF_OREN_NAYAR: {
        /* Qualitative model: (rho/pi) (A + B max(0, cos(phi_i - phi_o)) sin(alpha) tan(beta)),
         * alpha = max(theta_i, theta_o), beta = min(theta_i, theta_o). */
        double a, b;
        oren_nayar_ab(brdf->roughness, &a, &b);
        double cphi = cos_azimuth_difference(wi, wo, n, n_wi, n_wo);
        double term = 0.0;
        if (cphi > 0.0) {
            double sin_i = sqrt(fmax(0.0, 1.0 - n_wi * n_wi));
            double sin_o = sqrt(fmax(0.0, 1.0 - n_wo * n_wo));
            double sin_alpha, tan_beta;
            if (n_wi < n_wo) { /* theta_i > theta_o: alpha = theta_i, beta = theta_o */
                sin_alpha = sin_i;
                tan_beta = sin_o / (n_wo > LSIM_BRDF_TAN_COS_MIN ? n_wo : LSIM_BRDF_TAN_COS_MIN);
            } else {
                sin_alpha = sin_o;
                tan_beta = sin_i / (n_wi > LSIM_BRDF_TAN_COS_MIN ? n_wi : LSIM_BRDF_TAN_COS_MIN);
            }
            term = cphi * sin_alpha * tan_beta;
        }
        return brdf->reflectance / LSIM_PI * (a + b * term);
    }
    case LSIM_BRDF_RETROREFLECTOR: {
        double theta_i = acos(n_wi);
        double d[3] = {wi[0] - wo[0], wi[1] - wo[1], wi[2] - wo[2]};
        double half = 0.5 * sqrt(dot3(d, d));
        double obs = 2.0 * asin(half > 1.0 ? 1.0 : half); /* angle between wi and wo */
        double w = retro_falloff_rad(brdf);
        double wobs = LSIM_RETRO_OBSERVATION_DEG * LSIM_DEG;
        return brdf->peak * exp(-theta_i * theta_i / (2.0 * w * w)) * exp(-obs * obs / (2.0 * wobs * wobs));
    }
    case LSIM_BRDF_COOK_TORRANCE:
    case LSIM_BRDF_MIRROR:
    case LSIM_BRDF_GLASS:
        break;
    default:
        return 0.0;
    }

    /* Microfacet kinds: half vector h = normalize(wi + wo) (never zero: both are above n). */
    double h[3] = {wi[0] + wo[0], wi[1] + wo[1], wi[2] + wo[2]};
    double hl = sqrt(dot3(h, h));
    for (int k = 0; k < 3; ++k)
        h[k] /= hl;
    double n_h = clamp01(dot3(n, h));
    double v_h = clamp01(dot3(wo, h));
    if (brdf->kind == LSIM_BRDF_COOK_TORRANCE) {
        double f = lsim_fresnel_schlick(v_h, cook_torrance_f0(brdf));
        double spec = microfacet_lobe(n_h, n_wi, n_wo, brdf->roughness) * f;
        double diffuse = (1.0 - f) * (1.0 - brdf->metallic) * brdf->reflectance / LSIM_PI;
        return spec + diffuse;
    }
    double lobe = microfacet_lobe(n_h, n_wi, n_wo, LSIM_SPECULAR_ROUGHNESS);
    if (brdf->kind == LSIM_BRDF_MIRROR)
        return brdf->reflectance * lobe;
    return lsim_fresnel_dielectric(v_h, brdf->ior) * lobe;
}
