/* The files one run reads (core/file_inputs.h) and lsim_context_track_inputs /
 * lsim_context_check_output (lidarsim.h). */
#include "core/file_inputs.h"

#include "core/context.h"
#include "core/text.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PATH_KEPT 512 /* of each input's path, for the message */

typedef struct input {
    dev_t dev;
    ino_t ino;
    lsim_input_kind kind;
    char path[PATH_KEPT];
} input;

struct lsim_file_inputs {
    pthread_mutex_t lock; /* a run may load its files from several threads */
    input *item;
    size_t count, capacity;
};

void lsim_file_inputs_free(struct lsim_file_inputs *in)
{
    if (!in)
        return;
    pthread_mutex_destroy(&in->lock);
    free(in->item);
    free(in);
}

lsim_status lsim_context_track_inputs(lsim_context *ctx, int on)
{
    if (!ctx)
        return LSIM_ERR_INVALID_ARGUMENT;
    if (!on) {
        lsim_file_inputs_free(ctx->inputs);
        ctx->inputs = NULL;
        return LSIM_OK;
    }
    if (ctx->inputs)
        return LSIM_OK;
    struct lsim_file_inputs *in = calloc(1, sizeof *in);
    if (!in || pthread_mutex_init(&in->lock, NULL) != 0) {
        free(in);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory tracking the run's input files");
    }
    ctx->inputs = in;
    return LSIM_OK;
}

void lsim_file_inputs_add(lsim_context *ctx, dev_t dev, ino_t ino, lsim_input_kind kind, const char *path)
{
    struct lsim_file_inputs *in = ctx ? ctx->inputs : NULL;
    if (!in || kind == LSIM_INPUT_DATASET_STATE)
        return;
    pthread_mutex_lock(&in->lock);
    size_t i = 0;
    while (i < in->count && !(in->item[i].dev == dev && in->item[i].ino == ino))
        ++i;
    if (i == in->count) {
        if (in->count == in->capacity) {
            const size_t cap = in->capacity ? 2 * in->capacity : 16;
            input *more = realloc(in->item, cap * sizeof *more);
            if (!more) {
                pthread_mutex_unlock(&in->lock);
                return;
            }
            in->item = more;
            in->capacity = cap;
        }
        input *e = &in->item[in->count++];
        e->dev = dev;
        e->ino = ino;
        e->kind = kind;
        lsim_strlcpy(e->path, path, sizeof e->path);
    }
    pthread_mutex_unlock(&in->lock);
}

lsim_status lsim_file_inputs_check(lsim_context *ctx, const char *output)
{
    struct lsim_file_inputs *in = ctx ? ctx->inputs : NULL;
    struct stat sb;
    if (!in || !output || stat(output, &sb) != 0) /* a file not there yet is no input */
        return LSIM_OK;
    lsim_status st = LSIM_OK;
    pthread_mutex_lock(&in->lock);
    for (size_t i = 0; i < in->count; ++i)
        if (in->item[i].dev == sb.st_dev && in->item[i].ino == sb.st_ino) {
            const input *e = &in->item[i];
            const int same = strcmp(e->path, output) == 0;
            st = lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "the output %s is %s%s%s%s, an input of this run; "
                           "writing it would replace what is being read: give the output a name of its own",
                           output, same ? "the " : "the same file as the ", lsim_input_name(e->kind),
                           same ? "" : " ", same ? "" : e->path);
            break;
        }
    pthread_mutex_unlock(&in->lock);
    return st;
}

lsim_status lsim_context_check_output(lsim_context *ctx, const char *path)
{
    if (!ctx || !path)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_context_check_output: ctx and path must be given");
    return lsim_file_inputs_check(ctx, path);
}
