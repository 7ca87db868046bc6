/* A scratch folder for tests that write input files: made under /tmp, removed at the end. */
#ifndef LSIM_TEST_SCRATCH_H
#define LSIM_TEST_SCRATCH_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char scratch_dir[64];

/* Make /tmp/lsim_TAG_XXXXXX; exits on failure. */
static inline void scratch_make(const char *tag)
{
    snprintf(scratch_dir, sizeof scratch_dir, "/tmp/lsim_%s_XXXXXX", tag);
    if (!mkdtemp(scratch_dir)) {
        perror("mkdtemp");
        exit(1);
    }
}

/* Write `size` bytes to scratch_dir/name; returns the path (a static buffer, valid until the next
 * call). Exits if the file cannot be made. */
static inline const char *scratch_write(const char *name, const void *data, size_t size)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", scratch_dir, name);
    FILE *fp = fopen(path, "wb");
    if (!fp) {
        perror(path);
        exit(1);
    }
    fwrite(data, 1, size, fp);
    fclose(fp);
    return path;
}

static inline const char *scratch_write_text(const char *name, const char *text)
{
    return scratch_write(name, text, strlen(text));
}

/* Remove the folder and all it holds. */
static inline void scratch_remove(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", scratch_dir);
}

#endif
