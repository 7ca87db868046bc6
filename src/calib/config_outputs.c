/* Outputs of calibrate and validate that would overwrite one of their inputs (calib_config.h). */
#include "calib/calib_config.h"

#include "core/context.h"
#include "core/file_id.h"
#include "output/output_set.h"

lsim_status lsim_calib_config_check_outputs(lsim_context *ctx, const lsim_calib_config *cfg, const char *config_path,
                                            const char *const *outputs, const char *const *what, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        if (!outputs[i])
            continue;
        if (config_path && lsim_file_same_output(outputs[i], config_path))
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "%s %s is the config file; give it a name of its own",
                             what[i], outputs[i]);
        for (size_t k = 0; cfg && k < cfg->count; ++k)
            if (cfg->inputs[k].scan_path && lsim_file_same_output(outputs[i], cfg->inputs[k].scan_path))
                return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "%s %s is the scan of material '%s'; give it a "
                                 "name of its own", what[i], outputs[i], cfg->inputs[k].name);
        for (size_t k = 0; k < i; ++k)
            if (outputs[k] && lsim_file_same_output(outputs[i], outputs[k]))
                return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "%s and %s are both %s; give each its own file",
                                 what[k], what[i], outputs[i]);
    }
    return LSIM_OK;
}

lsim_status lsim_calib_config_check_set(lsim_context *ctx, const lsim_calib_config *cfg, const char *config_path,
                                        const lsim_output_set *outs, const char *report_path)
{
    const char *same = report_path ? lsim_output_set_same(outs, report_path) : NULL;
    if (same)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "the report %s is also %s, another output; give it a name "
                         "of its own", report_path, same);
    const char *const what = "the output";
    for (size_t i = 0; i < outs->count; ++i) {
        const char *const out = outs->file[i].final;
        lsim_status st = lsim_calib_config_check_outputs(ctx, cfg, config_path, &out, &what, 1);
        if (st != LSIM_OK)
            return st;
    }
    return LSIM_OK;
}
