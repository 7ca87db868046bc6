/* A scene's materials: described by their BRDF, measured (a calibration's per-angle statistics) or
 * Lambertian by reflectance; names hashed (name_index.h), so lookups are O(1). */
#include "scene/scene.h"

#include "core/context.h"
#include "core/text.h"
#include "calib/calibration.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static lsim_name_array material_names(const lsim_scene *scene)
{
    return (lsim_name_array){scene->materials ? scene->materials[0].name : NULL, sizeof *scene->materials,
                             scene->material_count};
}

/* Hashed (name_index.h): O(1), so 30k materials and the objects naming them load in linear time. */
long lsim_scene_find_material(const lsim_scene *scene, const char *name)
{
    return lsim_name_index_find(&scene->material_index, material_names(scene), name);
}

static const lsim_brdf_kind brdf_of_type[] = {
    [LSIM_MATERIAL_LAMBERTIAN] = LSIM_BRDF_LAMBERTIAN, [LSIM_MATERIAL_OREN_NAYAR] = LSIM_BRDF_OREN_NAYAR,
    [LSIM_MATERIAL_COOK_TORRANCE] = LSIM_BRDF_COOK_TORRANCE, [LSIM_MATERIAL_RETROREFLECTOR] = LSIM_BRDF_RETROREFLECTOR,
    [LSIM_MATERIAL_MIRROR] = LSIM_BRDF_MIRROR, [LSIM_MATERIAL_GLASS] = LSIM_BRDF_GLASS,
};

void lsim_material_desc_init(lsim_material_desc *desc, lsim_material_type type)
{
    lsim_brdf b;
    lsim_brdf_defaults(&b, (unsigned)type <= LSIM_MATERIAL_GLASS ? brdf_of_type[type] : LSIM_BRDF_LAMBERTIAN);
    desc->type = type;
    desc->reflectance = b.reflectance;
    desc->roughness = b.roughness;
    desc->ior = b.ior;
    desc->f0 = b.f0;
    desc->metallic = b.metallic;
    desc->peak = b.peak;
    desc->falloff_deg = b.falloff_deg;
    desc->transmittance = b.transmittance;
}

static lsim_status add_material(lsim_scene *scene, const char *name, const lsim_material_desc *desc)
{
    if (!name[0] || strlen(name) >= LSIM_NAME_MAX)
        return lsim_fail(scene->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "material name '%s' must have 1 to %d characters", name, LSIM_NAME_MAX - 1);
    if ((unsigned)desc->type > LSIM_MATERIAL_GLASS)
        return lsim_fail(scene->ctx, LSIM_ERR_INVALID_ARGUMENT, "materials.%s: unknown material type %d", name,
                         (int)desc->type);
    lsim_brdf brdf = {
        .kind = brdf_of_type[desc->type], .reflectance = desc->reflectance, .roughness = desc->roughness,
        .ior = desc->ior, .f0 = desc->f0, .metallic = desc->metallic, .peak = desc->peak,
        .falloff_deg = desc->falloff_deg, .transmittance = desc->transmittance,
    };
    lsim_status st = lsim_brdf_validate(scene->ctx, &brdf, name);
    if (st != LSIM_OK)
        return st;
    long existing = lsim_scene_find_material(scene, name);
    lsim_material *m;
    if (existing >= 0) {
        m = &scene->materials[existing];
    } else {
        if (scene->material_count == scene->material_capacity) {
            size_t cap = scene->material_capacity ? 2 * scene->material_capacity : 8;
            lsim_material *grown = realloc(scene->materials, cap * sizeof *grown);
            if (!grown)
                return lsim_fail(scene->ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory adding material '%s'", name);
            scene->materials = grown;
            scene->material_capacity = cap;
        }
        m = &scene->materials[scene->material_count++];
        memset(m, 0, sizeof *m);
        lsim_strlcpy(m->name, name, sizeof m->name);
        if (!lsim_name_index_add_last(&scene->material_index, material_names(scene))) {
            --scene->material_count;
            return lsim_fail(scene->ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory adding material '%s'", name);
        }
    }
    m->brdf = brdf;
    if (m->calibration) { /* redefined as a plain material */
        lsim_calib_material_free(m->calibration);
        free(m->calibration);
        m->calibration = NULL;
    }
    return LSIM_OK;
}

lsim_status lsim_scene_add_material(lsim_scene *scene, const char *name, const lsim_material_desc *desc)
{
    if (!scene || !name || !desc)
        return LSIM_ERR_INVALID_ARGUMENT;
    lsim_scene_lock(scene); /* the materials array may move under a frame of another thread */
    lsim_status st = add_material(scene, name, desc);
    lsim_scene_unlock(scene);
    return st;
}

lsim_status lsim_scene_add_calibration(lsim_scene *scene, const char *name, const lsim_calib_material *measured)
{
    lsim_context *ctx = scene->ctx;
    lsim_calib_material *copy = calloc(1, sizeof *copy);
    if (!copy)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for calibrated material '%s'", name);
    lsim_status st = lsim_calib_material_copy(ctx, measured, copy);
    if (st == LSIM_OK) {
        lsim_material_desc desc;
        lsim_material_desc_init(&desc, LSIM_MATERIAL_LAMBERTIAN);
        desc.reflectance = 1.0;
        st = lsim_scene_add_material(scene, name, &desc);
    }
    if (st != LSIM_OK) {
        lsim_calib_material_free(copy);
        free(copy);
        return st;
    }
    /* The slot is a white Lambertian for the physics (so the receiver always detects it): its
     * drop-outs, range noise and intensity come from the calibration (noise/calibrated.h). */
    lsim_scene_lock(scene);
    scene->materials[lsim_scene_find_material(scene, name)].calibration = copy;
    lsim_scene_unlock(scene);
    return LSIM_OK;
}

lsim_status lsim_scene_add_calibrated_material(lsim_scene *scene, const char *name, const char *calibration_file,
                                               const char *calibrated_name)
{
    if (!scene || !name || !calibration_file || !calibrated_name)
        return LSIM_ERR_INVALID_ARGUMENT;
    lsim_context *ctx = scene->ctx;
    lsim_calibration cal;
    lsim_status st = lsim_calibration_read(ctx, calibration_file, &cal);
    if (st != LSIM_OK)
        return st;
    const lsim_calib_material *found = lsim_calibration_find(&cal, calibrated_name);
    if (!found) {
        char names[512] = "";
        for (size_t i = 0; i < cal.count; ++i) {
            if (i)
                strncat(names, ", ", sizeof names - strlen(names) - 1);
            strncat(names, cal.materials[i].name, sizeof names - strlen(names) - 1);
        }
        st = lsim_fail(ctx, LSIM_ERR_NOT_FOUND, "%s has no material '%s'; it has: %s", calibration_file,
                       calibrated_name, names);
    } else {
        st = lsim_scene_add_calibration(scene, name, found);
    }
    lsim_calibration_free(&cal);
    return st;
}

lsim_status lsim_scene_add_lambertian(lsim_scene *scene, const char *name, double reflectance)
{
    lsim_material_desc desc;
    lsim_material_desc_init(&desc, LSIM_MATERIAL_LAMBERTIAN);
    desc.reflectance = reflectance;
    return lsim_scene_add_material(scene, name, &desc);
}
