#define _XOPEN_SOURCE 700 /* realpath */
#include "scene/mesh_fs.h"

#include "core/file_id.h"
#include "core/file_open.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The importer's file system (mesh_fs.h). A reference that does not exist in the folder is just
 * not found (assimp probes names that may not exist, e.g. an OBJ's fallback .mtl). */

static int has_dotdot(const char *p)
{
    for (const char *c = p; (c = strstr(c, "..")) != NULL; c += 2)
        if ((c == p || c[-1] == '/') && (c[2] == '\0' || c[2] == '/'))
            return 1;
    return 0;
}

/* 1 if the existing file `path` resolves to a place outside the folder fs->real_dir. */
static int leads_out(const lsim_mesh_fs *fs, const char *path)
{
    char real[PATH_MAX];
    if (!realpath(path, real))
        return 0; /* not there: not found when opened */
    const size_t r = strlen(fs->real_dir);
    return strncmp(real, fs->real_dir, r) != 0 || (real[r] != '/' && !(r == 1 && fs->real_dir[0] == '/'));
}

/* NULL if `name` may be read, else why not (*shown: the reference as the mesh wrote it). assimp
 * joins a reference to the mesh's folder: "DIR/" + "../x.bin", "DIR/" + "/etc/passwd". */
static const char *outside_folder(const lsim_mesh_fs *fs, const char *name, const char **shown)
{
    const size_t n = strlen(fs->dir);
    const int under = n > 0 && strncmp(name, fs->dir, n) == 0 && (name[n] == '/' || fs->dir[n - 1] == '/');
    const char *rest = under && name[n] == '/' ? name + n + 1 : under ? name + n : name;
    *shown = rest;
    if (has_dotdot(rest))
        return "a path with '..', outside the mesh's folder";
    if (rest[0] == '/' && (!under || leads_out(fs, rest))) /* an absolute reference */
        return "an absolute path outside the mesh's folder";
    if (leads_out(fs, name))
        return "a link (or path) that leads outside the mesh's folder";
    return NULL;
}

/* An open file: lsim_file_open's bounded stream (which has no descriptor) and its size. */
typedef struct fs_file {
    FILE *stream;
    uint64_t size;
} fs_file;

static FILE *stream_of(struct aiFile *f) { return ((fs_file *)(void *)f->UserData)->stream; }

static size_t fs_read(struct aiFile *f, char *buf, size_t size, size_t count)
{
    return size && count ? fread(buf, size, count, stream_of(f)) : 0;
}

static size_t fs_write(struct aiFile *f, const char *buf, size_t size, size_t count)
{
    (void)f, (void)buf, (void)size, (void)count;
    return 0; /* an import writes nothing */
}

static size_t fs_tell(struct aiFile *f)
{
    long at = ftell(stream_of(f));
    return at < 0 ? 0 : (size_t)at;
}

static size_t fs_size(struct aiFile *f) { return (size_t)((fs_file *)(void *)f->UserData)->size; }

static enum aiReturn fs_seek(struct aiFile *f, size_t offset, enum aiOrigin origin)
{
    const int whence = origin == aiOrigin_CUR ? SEEK_CUR : origin == aiOrigin_END ? SEEK_END : SEEK_SET;
    return fseeko(stream_of(f), (off_t)offset, whence) == 0 ? aiReturn_SUCCESS : aiReturn_FAILURE;
}

static void fs_flush(struct aiFile *f) { (void)f; }

static struct aiFile *fs_open(struct aiFileIO *io, const char *name, const char *mode)
{
    lsim_mesh_fs *fs = (lsim_mesh_fs *)(void *)io->UserData;
    if (!name || !mode || strchr(mode, 'w') || strchr(mode, 'a') || strchr(mode, '+'))
        return NULL;
    if (strcmp(name, fs->mesh) != 0) {
        const char *shown = name, *why = outside_folder(fs, name, &shown);
        if (why) {
            if (!fs->refused[0]) {
                snprintf(fs->refused, sizeof fs->refused, "%s", shown);
                fs->why = why;
            }
            return NULL;
        }
    }
    fs_file *file = calloc(1, sizeof *file);
    struct aiFile *f = file ? calloc(1, sizeof *f) : NULL;
    if (!f || lsim_file_open(fs->ctx, name, LSIM_INPUT_MESH, &file->stream, &file->size) != LSIM_OK) {
        free(file);
        free(f);
        return NULL; /* missing: assimp says so, or goes on without it */
    }
    f->ReadProc = fs_read;
    f->WriteProc = fs_write;
    f->TellProc = fs_tell;
    f->FileSizeProc = fs_size;
    f->SeekProc = fs_seek;
    f->FlushProc = fs_flush;
    f->UserData = (aiUserData)(void *)file;
    return f;
}

static void fs_close(struct aiFileIO *io, struct aiFile *f)
{
    (void)io;
    if (!f)
        return;
    fs_file *file = (fs_file *)(void *)f->UserData;
    fclose(file->stream);
    free(file);
    free(f);
}

int lsim_mesh_fs_init(lsim_mesh_fs *fs, lsim_context *ctx, const char *path, struct aiFileIO *io)
{
    memset(fs, 0, sizeof *fs);
    fs->ctx = ctx;
    fs->mesh = path;
    lsim_file_folder(path, fs->dir, sizeof fs->dir);
    if (!strchr(path, '/'))
        fs->dir[0] = '\0'; /* names as written, relative to the current folder */
    io->OpenProc = fs_open;
    io->CloseProc = fs_close;
    io->UserData = (aiUserData)(void *)fs;
    return realpath(fs->dir[0] ? fs->dir : ".", fs->real_dir) ? 0 : -1;
}
