/* File helpers for tests: a scratch folder under /tmp for input files, text files written, path
 * joining, the repository's data files, counting and removing folder entries, whole files read and
 * compared, and checking a PNG's signature and size. */
#ifndef LSIM_TEST_FILES_H
#define LSIM_TEST_FILES_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* dir/name into out; a path that does not fit ends the test. */
static inline void path_join(char *out, size_t size, const char *dir, const char *name)
{
    int n = snprintf(out, size, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= size) {
        fprintf(stderr, "path too long: %s/%s\n", dir, name);
        exit(1);
    }
}

/* Write `text` to `path`: 1, or 0 after saying that it cannot (for CHECK(text_written(...))). */
static inline int text_written(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    int ok = f && fputs(text, f) >= 0;
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok)
        fprintf(stderr, "cannot write %s\n", path);
    return ok;
}

/* Write `text` to `path`; a file that cannot be written ends the test. */
static inline void write_text(const char *path, const char *text)
{
    if (!text_written(path, text))
        exit(1);
}

/* LSIM_DATA_DIR/rel into out: a file of the repository's data/ folder (tests/CMakeLists.txt sets
 * LSIM_DATA_DIR; by default ../../data). It ships with the repository, so a missing one fails the
 * test `test` (never a skip). */
static inline void data_file(char *out, size_t size, const char *test, const char *rel)
{
    const char *data = getenv("LSIM_DATA_DIR");
    path_join(out, size, data ? data : "../../data", rel);
    if (access(out, R_OK) != 0) {
        printf("%s: FAILED: %s not found (the repository's data/ folder; set LSIM_DATA_DIR to it)\n", test, out);
        exit(1);
    }
}

/* Number of entries in a folder (without . and ..), -1 if it cannot be read; with `needle`, only
 * names containing it (each is reported on stderr: the callers look for leftovers). */
static inline int count_entries(const char *dir, const char *needle)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (!needle || strstr(e->d_name, needle)) {
            if (needle)
                fprintf(stderr, "unexpected file %s/%s\n", dir, e->d_name);
            ++n;
        }
    }
    closedir(d);
    return n;
}

/* Remove a file, or a folder and everything below it. */
static inline void remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (d) {
            struct dirent *e;
            char child[4096];
            while ((e = readdir(d))) {
                if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                    continue;
                path_join(child, sizeof child, path, e->d_name);
                remove_tree(child);
            }
            closedir(d);
        }
        rmdir(path);
    } else {
        unlink(path);
    }
}

static inline uint32_t png_u32be(const unsigned char *b)
{
    return ((uint32_t)b[0] << 24) | ((uint32_t)b[1] << 16) | ((uint32_t)b[2] << 8) | b[3];
}

/* The PNG's width and height (signature and IHDR) into *w, *h; 0 when it is not a PNG. */
static inline int png_read_size(const char *path, uint32_t *w, uint32_t *h)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return 0;
    unsigned char head[24];
    size_t n = fread(head, 1, sizeof head, fp);
    fclose(fp);
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    if (n != sizeof head || memcmp(head, sig, 8) || memcmp(head + 12, "IHDR", 4))
        return 0;
    *w = png_u32be(head + 16);
    *h = png_u32be(head + 20);
    return 1;
}

/* The file is a PNG of width x height. */
static inline int png_has_size(const char *path, uint32_t width, uint32_t height)
{
    uint32_t w = 0, h = 0;
    return png_read_size(path, &w, &h) && w == width && h == height;
}

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
    path_join(path, sizeof path, scratch_dir, name);
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

/* Remove the scratch folder and all it holds. */
static inline void scratch_remove(void) { remove_tree(scratch_dir); }

/* A whole file in a malloc'd buffer, *size bytes; NULL if it cannot be read completely. */
static inline unsigned char *read_file_bytes(const char *path, size_t *size)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    unsigned char *buf = n >= 0 ? malloc(n > 0 ? (size_t)n : 1) : NULL;
    size_t got = buf ? fread(buf, 1, (size_t)n, fp) : 0;
    fclose(fp);
    if (!buf || got != (size_t)n) {
        free(buf);
        return NULL;
    }
    *size = (size_t)n;
    return buf;
}

/* 1 when the files at a and b both read completely and hold the same bytes; else 0, saying so. */
static inline int same_file(const char *a, const char *b)
{
    size_t na = 0, nb = 0;
    unsigned char *x = read_file_bytes(a, &na), *y = read_file_bytes(b, &nb);
    int same = x && y && na == nb && memcmp(x, y, na) == 0;
    if (!same)
        fprintf(stderr, "files differ: %s (%zu bytes) and %s (%zu bytes)\n", a, na, b, nb);
    free(x);
    free(y);
    return same;
}

#endif
