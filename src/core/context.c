#include "core/context.h"
#include "core/file_inputs.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef LSIM_VERSION_STRING
#error "LSIM_VERSION_STRING (CMakeLists.txt: the project's VERSION) is not defined"
#endif

const char *lsim_version_string(void)
{
    return LSIM_VERSION_STRING;
}

const char *lsim_status_string(lsim_status status)
{
    switch (status) {
    case LSIM_OK: return "ok";
    case LSIM_ERR_INVALID_ARGUMENT: return "invalid argument";
    case LSIM_ERR_IO: return "i/o error";
    case LSIM_ERR_PARSE: return "parse error";
    case LSIM_ERR_OUT_OF_MEMORY: return "out of memory";
    case LSIM_ERR_ENGINE: return "ray-casting engine error";
    case LSIM_ERR_NOT_FOUND: return "not found";
    case LSIM_ERR_STATE: return "wrong state";
    }
    return "unknown status";
}

lsim_status lsim_context_create(lsim_context **out_ctx)
{
    if (!out_ctx)
        return LSIM_ERR_INVALID_ARGUMENT;
    lsim_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return LSIM_ERR_OUT_OF_MEMORY;
    *out_ctx = ctx;
    return LSIM_OK;
}

void lsim_context_destroy(lsim_context *ctx)
{
    if (ctx)
        lsim_file_inputs_free(ctx->inputs);
    free(ctx);
}

const char *lsim_context_last_error(const lsim_context *ctx) { return ctx ? ctx->last_error : ""; }

lsim_status lsim_context_last_status(const lsim_context *ctx) { return ctx ? ctx->last_status : LSIM_OK; }

lsim_status lsim_context_set_import_limits(lsim_context *ctx, double seconds, double memory_bytes)
{
    if (!ctx)
        return LSIM_ERR_INVALID_ARGUMENT;
    if (!(seconds >= 0 && seconds <= 86400))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "import time limit %g s is out of range; valid: 0 (automatic) or up to 86400 s", seconds);
    if (!(memory_bytes >= 0 && memory_bytes <= 1e15))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "import memory limit %g bytes is out of range; valid: 0 (automatic) or up to 1e15", memory_bytes);
    ctx->import_seconds = seconds;
    ctx->import_memory_bytes = memory_bytes;
    return LSIM_OK;
}

lsim_status lsim_fail(lsim_context *ctx, lsim_status status, const char *fmt, ...)
{
    if (!ctx)
        return status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->last_error, sizeof ctx->last_error, fmt, ap);
    va_end(ap);
    ctx->last_status = status;
    return status;
}
