/* The files the mesh importer (assimp, in its child process) may read: the mesh, and what it
 * refers to (a glTF's buffers and images, an OBJ's mtllib) when that lies in the mesh's own
 * folder. assimp gets this file system through aiImportFileEx; every file opens through
 * lsim_file_open (regular files only, the mesh bound). A reference with a `..` component, an
 * absolute path outside the folder, or a link that resolves outside it is refused and remembered
 * (`refused`, `why`): the import then fails, even where assimp would go on without the file. */
#ifndef LSIM_SCENE_MESH_FS_H
#define LSIM_SCENE_MESH_FS_H

#include "lidarsim.h"

#include <assimp/cfileio.h>
#include <limits.h>

typedef struct lsim_mesh_fs {
    lsim_context *ctx;
    const char *mesh;        /* the mesh's path as given */
    char dir[PATH_MAX];      /* its folder as written ("" for the current one) */
    char real_dir[PATH_MAX]; /* the folder resolved */
    char refused[PATH_MAX];  /* the first reference refused, as the mesh wrote it ("" if none) */
    const char *why;         /* why it was refused */
} lsim_mesh_fs;

/* Set up fs for the mesh `path` and point io (for aiImportFileEx) at it. 0, or -1 (errno set) if
 * the mesh's folder cannot be resolved. fs must outlive the import. */
int lsim_mesh_fs_init(lsim_mesh_fs *fs, lsim_context *ctx, const char *path, struct aiFileIO *io);

#endif
