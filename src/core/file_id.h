/* A file's identity (device and inode), so that two spellings of one path ("a.obj",
 * "./a.obj", a symlink) are recognised as one file; the path itself where stat fails. */
#ifndef LSIM_CORE_FILE_ID_H
#define LSIM_CORE_FILE_ID_H

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

typedef struct lsim_file_id {
    int known; /* stat succeeded */
    dev_t dev;
    ino_t ino;
} lsim_file_id;

static inline lsim_file_id lsim_file_id_of(const char *path)
{
    struct stat info;
    lsim_file_id id = {0, 0, 0};
    if (stat(path, &info) == 0) {
        id.known = 1;
        id.dev = info.st_dev;
        id.ino = info.st_ino;
    }
    return id;
}

/* 1 if (a, path_a) and (b, path_b) name the same file. */
static inline int lsim_file_id_same(const lsim_file_id *a, const char *path_a, const lsim_file_id *b,
                                    const char *path_b)
{
    return a->known && b->known ? a->dev == b->dev && a->ino == b->ino : strcmp(path_a, path_b) == 0;
}

/* 1 if the existing files `a` and `b` are one file (a path that does not exist yet is none). */
static inline int lsim_file_same_existing(const char *a, const char *b)
{
    const lsim_file_id x = lsim_file_id_of(a), y = lsim_file_id_of(b);
    return x.known && y.known && lsim_file_id_same(&x, a, &y, b);
}

/* The folder of `path` (its text up to the last '/', or "." for none) into buf. */
static inline void lsim_file_folder(const char *path, char *buf, size_t size)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) + (slash == path) : 0;
    if (!n || n >= size)
        snprintf(buf, size, "%s", n ? path : ".");
    else {
        memcpy(buf, path, n);
        buf[n] = '\0';
    }
}

/* 1 if writing `a` and writing `b` would write one regular file: both exist and are that file,
 * or neither exists yet and they name one name in one folder ("out.csv", "./out.csv"). Standard
 * output ("-"), devices and FIFOs are never one output (two writes to /dev/null are fine). */
static inline int lsim_file_same_output(const char *a, const char *b)
{
    if (strcmp(a, "-") == 0 || strcmp(b, "-") == 0)
        return 0;
    struct stat sa, sb;
    const int ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
    if (ea || eb)
        return ea && eb && S_ISREG(sa.st_mode) && S_ISREG(sb.st_mode) && sa.st_dev == sb.st_dev &&
               sa.st_ino == sb.st_ino;
    const char *na = strrchr(a, '/'), *nb = strrchr(b, '/');
    if (strcmp(na ? na + 1 : a, nb ? nb + 1 : b) != 0)
        return 0;
    char da[4096], db[4096];
    lsim_file_folder(a, da, sizeof da);
    lsim_file_folder(b, db, sizeof db);
    return lsim_file_same_existing(da, db);
}

#endif
