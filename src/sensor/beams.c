/* The beams of one frame: float structure-of-arrays the scan reads, built from the spec. */
#include "sensor/beam.h"

#include "core/context.h"
#include "core/vec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void lsim_beams_free(lsim_beams *beams)
{
    if (!beams)
        return;
    free(beams->azimuth);
    free(beams->elevation);
    free(beams->time);
    free(beams->ring);
    free(beams->dx);
    free(beams->dy);
    free(beams->dz);
    free(beams->ox);
    free(beams->oy);
    free(beams->oz);
    memset(beams, 0, sizeof *beams);
}

static lsim_status beams_alloc(lsim_context *ctx, size_t count, int origins, lsim_beams *beams)
{
    memset(beams, 0, sizeof *beams);
    size_t n = count ? count : 1;
    beams->azimuth = malloc(n * sizeof(float));
    beams->elevation = malloc(n * sizeof(float));
    beams->time = malloc(n * sizeof(float));
    beams->ring = malloc(n * sizeof(uint16_t));
    beams->dx = malloc(n * sizeof(float));
    beams->dy = malloc(n * sizeof(float));
    beams->dz = malloc(n * sizeof(float));
    if (origins) {
        beams->ox = malloc(n * sizeof(float));
        beams->oy = malloc(n * sizeof(float));
        beams->oz = malloc(n * sizeof(float));
    }
    if (!beams->azimuth || !beams->elevation || !beams->time || !beams->ring || !beams->dx ||
        !beams->dy || !beams->dz || (origins && (!beams->ox || !beams->oy || !beams->oz))) {
        lsim_beams_free(beams);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory allocating %zu beams", count);
    }
    beams->count = count;
    return LSIM_OK;
}

lsim_status lsim_beams_generate(lsim_context *ctx, const lsim_sensor_spec *spec, lsim_beams *beams)
{
    if (!spec || !beams)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_beams_generate: spec and beams must not be NULL");
    lsim_status st = lsim_sensor_spec_validate(ctx, spec);
    if (st != LSIM_OK)
        return st;
    size_t count = lsim_sensor_spec_beam_count(spec);
    const int origins = spec->kind == LSIM_SENSOR_ROTATING && spec->channel_origin_m;
    st = beams_alloc(ctx, count, origins, beams);
    if (st != LSIM_OK)
        return st;
    long long n = (long long)count;
#pragma omp parallel for schedule(static) if (n > 65536)
    for (long long i = 0; i < n; ++i) {
        lsim_beam b;
        lsim_beam_at(spec, (size_t)i, &b);
        beams->azimuth[i] = (float)(b.azimuth_deg * LSIM_DEG);
        beams->elevation[i] = (float)(b.elevation_deg * LSIM_DEG);
        beams->time[i] = (float)b.time_s;
        beams->ring[i] = b.ring;
        beams->dx[i] = (float)b.dir[0];
        beams->dy[i] = (float)b.dir[1];
        beams->dz[i] = (float)b.dir[2];
        if (origins) {
            beams->ox[i] = (float)b.origin[0];
            beams->oy[i] = (float)b.origin[1];
            beams->oz[i] = (float)b.origin[2];
        }
    }
    /* Rays are made from these directions, the pose and the sub-ray offsets (all validated):
     * no NaN or zero direction may reach a geometry engine (Embree aborts on some). The digest of
     * the table is taken on the way. */
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < count; ++i) {
        const float v[7] = {beams->dx[i], beams->dy[i], beams->dz[i], beams->time[i], origins ? beams->ox[i] : 0.0f,
                            origins ? beams->oy[i] : 0.0f, origins ? beams->oz[i] : 0.0f};
        for (int k = 0; k < 7; ++k) {
            uint32_t bits;
            memcpy(&bits, &v[k], sizeof bits);
            h = (h ^ bits) * 1099511628211ull;
        }
        float q = beams->dx[i] * beams->dx[i] + beams->dy[i] * beams->dy[i] + beams->dz[i] * beams->dz[i];
        if (!(fabsf(q - 1.0f) < 1e-3f)) {
            lsim_status st = lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                                       "beam %zu: its direction (%g, %g, %g) is not a finite unit vector; check the "
                                       "sensor's pattern (angles must be finite degrees)", i, (double)beams->dx[i],
                                       (double)beams->dy[i], (double)beams->dz[i]);
            lsim_beams_free(beams);
            return st;
        }
    }
    beams->digest = h;
    return LSIM_OK;
}
