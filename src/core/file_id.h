/* A file's identity (device and inode), so that two spellings of one path ("a.obj",
 * "./a.obj", a symlink) are recognised as one file; the path itself where stat fails. */
#ifndef LSIM_CORE_FILE_ID_H
#define LSIM_CORE_FILE_ID_H

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

#endif
