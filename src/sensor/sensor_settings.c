/* Reading a sensor's range and noise settings back, and its range resolution (the public
 * lsim_sensor_get_range / lsim_sensor_get_noise / lsim_sensor_set_range_resolution). */
#include "sensor/sensor.h"

#include "core/context.h"

lsim_status lsim_sensor_set_range_resolution(lsim_sensor *sensor, double resolution_m)
{
    if (!sensor)
        return LSIM_ERR_INVALID_ARGUMENT;
    lsim_sensor_spec changed = sensor->spec; /* shares the beam arrays: only read by the check */
    changed.range_resolution = resolution_m;
    lsim_status st = lsim_sensor_spec_validate(sensor->ctx, &changed);
    if (st != LSIM_OK)
        return st;
    sensor->spec.range_resolution = resolution_m;
    return LSIM_OK;
}

lsim_status lsim_sensor_get_range(const lsim_sensor *sensor, double *min_m, double *max_m, double *resolution_m)
{
    if (!sensor)
        return LSIM_ERR_INVALID_ARGUMENT;
    if (min_m)
        *min_m = sensor->spec.range_min;
    if (max_m)
        *max_m = sensor->spec.range_max;
    if (resolution_m)
        *resolution_m = sensor->spec.range_resolution;
    return LSIM_OK;
}

lsim_status lsim_sensor_get_noise(const lsim_sensor *sensor, double *range_sigma_m, double *intensity_sigma,
                                  double *detection_reflectance)
{
    if (!sensor)
        return LSIM_ERR_INVALID_ARGUMENT;
    if (range_sigma_m)
        *range_sigma_m = sensor->spec.range_sigma;
    if (intensity_sigma)
        *intensity_sigma = sensor->spec.intensity_sigma;
    if (detection_reflectance)
        *detection_reflectance = sensor->spec.detection_reflectance;
    return LSIM_OK;
}
