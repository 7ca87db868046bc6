/* BRDFs of lidarsim's materials, evaluated in backscatter (a monostatic sensor: the light returns
 * along the incoming direction, so h = omega and n.h = cos(theta), v.h = 1) and, for checks such
 * as energy conservation, for general directions. Units: sr^-1. Angles in radians.
 * DESIGN.md §2 gives the forms:
 *   lambertian      rho / pi
 *   oren-nayar      thesis eq. 4.6, backscatter: (rho/pi) (C1 + C2 sin(theta) tan(theta)),
 *                   C1 = 1 - 0.5 s^2/(s^2+0.33), C2 = 0.45 s^2/(s^2+0.09), s = roughness (radians)
 *                   (the thesis writes the received intensity with one more cos(theta) factor,
 *                   which the range equation supplies)
 *   cook-torrance   GGX D (alpha = roughness^2), Smith-Schlick G (k = (r+1)^2/8), Schlick F with
 *                   the 5th power (F0 from ior or f0, metallic mixes F0 toward the reflectance),
 *                   specular D G F / (4 cos^2) plus a diffuse lobe (1 - F) (1 - metallic) rho / pi
 *   retroreflector  peak * exp(-theta^2 / (2 falloff^2)) at zero observation angle (peak 100-1000)
 *   mirror, glass   specular: a narrow GGX lobe (LSIM_SPECULAR_ROUGHNESS) times the Fresnel
 *                   reflectance (mirror: reflectance; glass: exact dielectric Fresnel for ior);
 *                   the tracer also follows their reflected and refracted rays (Whitted). */
#ifndef LSIM_OPTICS_BRDF_H
#define LSIM_OPTICS_BRDF_H

#include "lidarsim.h"

typedef enum lsim_brdf_kind {
    LSIM_BRDF_LAMBERTIAN = 0,
    LSIM_BRDF_OREN_NAYAR,
    LSIM_BRDF_COOK_TORRANCE,
    LSIM_BRDF_RETROREFLECTOR,
    LSIM_BRDF_MIRROR,
    LSIM_BRDF_GLASS
} lsim_brdf_kind;

/* Roughness of the specular lobe of mirror and glass surfaces (GGX alpha = this squared). */
#define LSIM_SPECULAR_ROUGHNESS 0.05
/* Retroreflector: Gaussian width (standard deviation, degrees) of the observation-angle lobe
 * (angle between wi and wo) used by lsim_brdf_eval; backscatter is observation angle 0. */
#define LSIM_RETRO_OBSERVATION_DEG 0.5

typedef struct lsim_brdf {
    lsim_brdf_kind kind;
    double reflectance;   /* lambertian / oren-nayar / cook-torrance diffuse albedo; mirror reflectance */
    double roughness;     /* oren-nayar sigma (radians); cook-torrance roughness r in (0, 1] */
    double ior;           /* cook-torrance (if f0 < 0) and glass: index of refraction >= 1 */
    double f0;            /* cook-torrance: normal-incidence Fresnel reflectance, < 0 = from ior */
    double metallic;      /* cook-torrance: 0 dielectric .. 1 metal */
    double peak;          /* retroreflector: peak BRDF at normal incidence, sr^-1 */
    double falloff_deg;   /* retroreflector: angular width of the fall-off (degrees) */
    double transmittance; /* glass: one-way internal transmittance of a pass, 0..1 */
} lsim_brdf;

/* Defaults for a kind (reflectance 0.5 (mirror 0.9), roughness 0.3, ior 1.5, f0 -1, metallic 0,
 * peak 300, falloff 20, transmittance 0.9); every field is set whatever the kind. */
void lsim_brdf_defaults(lsim_brdf *brdf, lsim_brdf_kind kind);
/* Name <-> kind: "lambertian", "oren-nayar", "cook-torrance", "retroreflector", "mirror", "glass". */
const char *lsim_brdf_kind_name(lsim_brdf_kind kind);
int lsim_brdf_kind_parse(const char *name, lsim_brdf_kind *out); /* 0 on success */
/* Check the parameters the kind uses (others are ignored); LSIM_ERR_INVALID_ARGUMENT with
 * "materials.NAME.KEY: value V is invalid; must be ..." ("materials.sign.peak: ..."). Ranges:
 * reflectance, metallic, transmittance [0, 1]; roughness: oren-nayar [0, pi/2], cook-torrance
 * (0, 1]; ior [1, 10]; f0 < 0 (from ior) or [0, 1]; peak [0, 1e5]; falloff_deg (0, 90]. */
lsim_status lsim_brdf_validate(lsim_context *ctx, const lsim_brdf *brdf, const char *material);

/* f_r in backscatter at incidence cos(theta) in [0, 1]. 0 for cos <= 0 (or NaN); finite for
 * every cos > 0 (Cook-Torrance, mirror and glass tend to D(0) F / (4 k^2) at grazing incidence;
 * Oren-Nayar's tan(theta) is capped at cos < 1e-6, where f_r cos(theta) stays finite). Glass uses
 * the exact Fresnel reflectance at the incidence angle, lsim_fresnel_dielectric(cos, ior). */
double lsim_brdf_backscatter(const lsim_brdf *brdf, double cos_theta);
/* f_r for unit directions wi (towards the light), wo (towards the viewer) and normal n; 0 when
 * either is below the surface. lsim_brdf_eval(b, w, w, n) = lsim_brdf_backscatter(b, n.w) (to
 * rounding) for every kind except glass, whose eval takes Fresnel at the microfacet angle v.h
 * (1 in backscatter) rather than at theta; the two differ by < 1e-6 relative wherever the
 * glass lobe is above 1e-3 of its peak.
 *   oren-nayar      qualitative model (rho/pi) (A + B max(0, cos(phi_i - phi_o)) sin(alpha)
 *                   tan(beta)), alpha = max(theta_i, theta_o), beta = min, A = C1, B = C2
 *   cook-torrance   D(n.h) G1(n.wi) G1(n.wo) F(v.h) / (4 n.wi n.wo) + (1 - F(v.h)) (1 - m) rho/pi,
 *                   h = normalize(wi + wo), F Schlick with the effective F0
 *   retroreflector  peak exp(-theta_i^2 / (2 falloff^2)) exp(-obs^2 / (2 w^2)), obs = angle
 *                   between wi and wo, w = LSIM_RETRO_OBSERVATION_DEG
 *   mirror, glass   D G / (4 n.wi n.wo) with LSIM_SPECULAR_ROUGHNESS, times the reflectance
 *                   (mirror) or lsim_fresnel_dielectric(v.h, ior) (glass) */
double lsim_brdf_eval(const lsim_brdf *brdf, const double wi[3], const double wo[3], const double n[3]);

/* Fresnel reflectance of an unpolarised ray from a medium of index 1 into index `ior` (exact:
 * the mean of the s and p reflectances). cos_i is clamped to [0, 1]; 1 at grazing incidence.
 * A relative index below 1 (leaving glass: pass 1/ior) gives 1 beyond total internal reflection. */
double lsim_fresnel_dielectric(double cos_i, double ior);
/* Schlick's approximation F0 + (1 - F0)(1 - cos)^5. */
double lsim_fresnel_schlick(double cos_i, double f0);

#endif
