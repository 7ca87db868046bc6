/* Contained mesh import: assimp in a forked child, arrays back through a pipe (mesh_import.h). */
#include "scene/mesh_import.h"

#include "core/clock.h"
#include "core/context.h"
#include "scene/mesh_check.h"
#include "scene/mesh_fs.h"
#include "scene/mesh_join.h"

#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define LSIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LSIM_ASAN 1
#endif
#endif

#define IMPORT_MAGIC 0x4c53494du /* "LSIM" */
#define IMPORT_MSG 480

typedef struct {
    uint32_t magic;
    int32_t status; /* lsim_status of the import */
    uint64_t vertex_count, triangle_count;
    char message[IMPORT_MSG];
} import_header;

/* ------------------------------------------------------------------ child */

static int write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static void child_fail(int fd, lsim_status status, const char *fmt, ...) __attribute__((format(printf, 3, 4), noreturn));
static void child_fail(int fd, lsim_status status, const char *fmt, ...)
{
    import_header h;
    memset(&h, 0, sizeof h);
    h.magic = IMPORT_MAGIC;
    h.status = status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(h.message, sizeof h.message, fmt, ap);
    va_end(ap);
    write_all(fd, &h, sizeof h);
    _exit(0);
}

/* A mesh that holds triangles (SortByPType puts points and lines in meshes of their own). */
static int usable(const struct aiMesh *mesh)
{
    return mesh && (mesh->mPrimitiveTypes & aiPrimitiveType_TRIANGLE) && mesh->mVertices && mesh->mFaces;
}

/* Buffered 32-bit words into the pipe; the child exits on a write error (the parent is gone). */
typedef struct {
    int fd;
    size_t used;
    uint32_t word[4096];
} pipe_out;

static void flush(pipe_out *o)
{
    if (o->used && write_all(o->fd, o->word, o->used * sizeof o->word[0]))
        _exit(1);
    o->used = 0;
}

static void put_word(pipe_out *o, uint32_t w)
{
    o->word[o->used++] = w;
    if (o->used == sizeof o->word / sizeof o->word[0])
        flush(o);
}

static void put_float(pipe_out *o, float f)
{
    uint32_t w;
    memcpy(&w, &f, sizeof w);
    put_word(o, w);
}

/* Runs in the child: import, check, stream back; never returns. assimp's own messages are not
 * passed on: they may quote the bytes of the file (or of a file it refers to). */
static void child_import(lsim_context *ctx, const char *path, int fd, double seconds, double memory)
    __attribute__((noreturn));
static void child_import(lsim_context *ctx, const char *path, int fd, double seconds, double memory)
{
    /* default actions for fatal signals: the parent tells a crash from the exit status,
     * and no handler of the parent's (a sanitizer's, a fuzzer's) runs in the child */
    const int fatal[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGXCPU, SIGPIPE};
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; ++i)
        signal(fatal[i], SIG_DFL);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    struct rlimit cpu = {(rlim_t)seconds + 2, (rlim_t)seconds + 3};
    setrlimit(RLIMIT_CPU, &cpu);
#ifndef LSIM_ASAN /* AddressSanitizer reserves terabytes of address space: no RLIMIT_AS there */
    struct rlimit as = {(rlim_t)memory, (rlim_t)memory};
    setrlimit(RLIMIT_AS, &as);
#else
    (void)memory;
#endif
    lsim_mesh_fs fs; /* lives as long as the child (this function never returns) */
    struct aiFileIO io;
    if (lsim_mesh_fs_init(&fs, ctx, path, &io) != 0)
        child_fail(fd, LSIM_ERR_IO, "could not be loaded: its folder cannot be resolved: %s", strerror(errno));
    const struct aiScene *ai = aiImportFileEx(
        path, aiProcess_Triangulate | aiProcess_PreTransformVertices | aiProcess_SortByPType, &io);
    if (fs.refused[0])
        child_fail(fd, LSIM_ERR_PARSE,
                   "refers to '%s', %s ('%s'); a mesh may read only files in its own folder: copy the file there "
                   "and refer to it by its name",
                   fs.refused, fs.why, fs.dir[0] ? fs.dir : ".");
    if (!ai && strstr(aiGetErrorString(), "bad_alloc"))
        child_fail(fd, LSIM_ERR_OUT_OF_MEMORY,
                   "could not be loaded: the importer (assimp) ran out of its memory limit (%.0f MB in all); "
                   "raise it (lsim_context_set_import_limits, lidarsim --import-memory MB) or check the file",
                   memory / 1e6);
    if (!ai)
        child_fail(fd, LSIM_ERR_PARSE,
                   "could not be loaded: the importer (assimp) refused it as malformed, of a format it does not "
                   "read (OBJ, PLY, STL, glTF, FBX, ...), or missing a file it refers to (its own message is not "
                   "shown: it may quote the file); check it in a mesh viewer or re-export it");
    for (unsigned m = 0; m < ai->mNumMeshes; ++m) {
        const struct aiMesh *mesh = ai->mMeshes[m];
        if (!usable(mesh))
            continue;
        for (unsigned f = 0; f < mesh->mNumFaces; ++f) /* every index, before joining reads them */
            for (unsigned k = 0; k < mesh->mFaces[f].mNumIndices; ++k)
                if (mesh->mFaces[f].mIndices[k] >= mesh->mNumVertices)
                    child_fail(fd, LSIM_ERR_PARSE, "face %u of mesh %u names vertex %u, but that mesh has %u vertices",
                               f, m, mesh->mFaces[f].mIndices[k], mesh->mNumVertices);
    }
    joined_mesh *joined = calloc(ai->mNumMeshes ? ai->mNumMeshes : 1, sizeof *joined);
    if (!joined)
        child_fail(fd, LSIM_ERR_OUT_OF_MEMORY, "could not be loaded: out of memory joining its vertices");
    uint64_t vertices = 0;
    for (unsigned m = 0; m < ai->mNumMeshes; ++m)
        vertices += usable(ai->mMeshes[m]) ? ai->mMeshes[m]->mNumVertices : 0;
    int by_assimp = 0;
    for (unsigned m = 0; m < ai->mNumMeshes && !by_assimp; ++m) {
        if (!usable(ai->mMeshes[m]))
            continue;
        int r = lsim_mesh_join(ai->mMeshes[m], &joined[m], vertices <= JOIN_NEAR_CHECK_MAX);
        if (r < 0)
            child_fail(fd, LSIM_ERR_OUT_OF_MEMORY,
                       "could not be loaded: the importer ran out of its memory limit (%.0f MB in all) joining "
                       "vertices; raise it (lsim_context_set_import_limits, lidarsim --import-memory MB)",
                       memory / 1e6);
        by_assimp = r > 0;
    }
    if (by_assimp) {
        for (unsigned m = 0; m < ai->mNumMeshes; ++m)
            lsim_mesh_joined_free(&joined[m]);
        ai = aiApplyPostProcessing(ai, aiProcess_JoinIdenticalVertices);
        if (!ai)
            child_fail(fd, LSIM_ERR_PARSE, "could not be loaded: the importer (assimp) failed joining its vertices");
    }
    uint64_t nv = 0, nt = 0;
    for (unsigned m = 0; m < ai->mNumMeshes; ++m) {
        const struct aiMesh *mesh = ai->mMeshes[m];
        if (!usable(mesh))
            continue;
        for (unsigned f = 0; f < mesh->mNumFaces; ++f) {
            const struct aiFace *face = &mesh->mFaces[f];
            if (face->mNumIndices != 3)
                continue;
            for (int k = 0; k < 3; ++k)
                if (face->mIndices[k] >= mesh->mNumVertices)
                    child_fail(fd, LSIM_ERR_PARSE, "face %u of mesh %u names vertex %u, but that mesh has %u vertices",
                               f, m, face->mIndices[k], mesh->mNumVertices);
            ++nt;
        }
        nv += by_assimp ? mesh->mNumVertices : joined[m].count;
    }
    if (nt == 0)
        child_fail(fd, LSIM_ERR_PARSE, "has no triangles (points or lines only?)");
    if (nv > LSIM_MESH_MAX_ELEMENTS || nt > LSIM_MESH_MAX_ELEMENTS)
        child_fail(fd, LSIM_ERR_PARSE, "has %llu vertices and %llu triangles; at most %llu of each are supported",
                   (unsigned long long)nv, (unsigned long long)nt, LSIM_MESH_MAX_ELEMENTS);
    import_header h;
    memset(&h, 0, sizeof h);
    h.magic = IMPORT_MAGIC;
    h.status = LSIM_OK;
    h.vertex_count = nv;
    h.triangle_count = nt;
    if (write_all(fd, &h, sizeof h))
        _exit(1);
    pipe_out out = {.fd = fd};
    for (unsigned m = 0; m < ai->mNumMeshes; ++m) { /* every vertex, then every triangle */
        const struct aiMesh *mesh = ai->mMeshes[m];
        if (!usable(mesh))
            continue;
        const unsigned count = by_assimp ? mesh->mNumVertices : joined[m].count;
        for (unsigned i = 0; i < count; ++i) {
            const struct aiVector3D *p = &mesh->mVertices[by_assimp ? i : joined[m].unique[i]];
            put_float(&out, p->x);
            put_float(&out, p->y);
            put_float(&out, p->z);
        }
    }
    uint32_t v0 = 0;
    for (unsigned m = 0; m < ai->mNumMeshes; ++m) {
        const struct aiMesh *mesh = ai->mMeshes[m];
        if (!usable(mesh))
            continue;
        for (unsigned f = 0; f < mesh->mNumFaces; ++f)
            if (mesh->mFaces[f].mNumIndices == 3)
                for (int k = 0; k < 3; ++k) {
                    const unsigned i = mesh->mFaces[f].mIndices[k];
                    put_word(&out, v0 + (by_assimp ? i : joined[m].remap[i]));
                }
        v0 += by_assimp ? mesh->mNumVertices : joined[m].count;
    }
    flush(&out);
    _exit(0); /* no atexit handlers, no stdio flush of the parent's buffers, no leak check */
}

/* ------------------------------------------------------------------ parent */

typedef struct {
    int data_fd, err_fd;
    double deadline_ms;
    char line[160], last[160]; /* the importer's stderr: the line being read, the last complete one */
    size_t line_len;
    int timed_out;
} import_io;

static void keep_stderr(import_io *io, const char *buf, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        unsigned char c = (unsigned char)buf[i];
        if (c == '\n') {
            if (io->line_len) {
                io->line[io->line_len] = '\0';
                memcpy(io->last, io->line, io->line_len + 1);
            }
            io->line_len = 0;
        } else if (io->line_len < sizeof io->line - 1 && c >= 32 && c < 127) {
            io->line[io->line_len++] = (char)c;
        }
    }
}

/* What the importer said last on stderr, when it is a failed assertion (code, not data); ""
 * otherwise: other lines (an exception's what(), a log line) may quote the file's bytes. */
static const char *importer_said(import_io *io)
{
    const char *said = io->last;
    if (io->line_len) {
        io->line[io->line_len] = '\0';
        said = io->line;
    }
    return strstr(said, "Assertion") && !strstr(said, "what()") ? said : "";
}

/* Read exactly n bytes of the data pipe (draining stderr meanwhile) before the deadline.
 * Returns 0, or -1 on end of file / error / time-out (io->timed_out set). */
static int read_exact(import_io *io, void *dst, size_t n)
{
    char *p = dst;
    while (n > 0) {
        double left = (io->deadline_ms - lsim_now_ms()) / 1e3;
        if (left <= 0) {
            io->timed_out = 1;
            return -1;
        }
        struct pollfd pf[2] = {{io->data_fd, POLLIN, 0}, {io->err_fd, POLLIN, 0}};
        int nfds = io->err_fd >= 0 ? 2 : 1;
        int r = poll(pf, (nfds_t)nfds, left > 1.0 ? 1000 : (int)(left * 1000) + 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (nfds == 2 && (pf[1].revents & (POLLIN | POLLHUP))) {
            char buf[512];
            ssize_t e = read(io->err_fd, buf, sizeof buf);
            if (e > 0)
                keep_stderr(io, buf, (size_t)e);
            else if (e == 0 || (e < 0 && errno != EINTR)) {
                close(io->err_fd);
                io->err_fd = -1;
            }
        }
        if (pf[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t got = read(io->data_fd, p, n);
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0)
                return -1;
            p += got;
            n -= (size_t)got;
        }
    }
    return 0;
}

static double import_seconds(const lsim_context *ctx, double file_bytes)
{
    return ctx->import_seconds > 0 ? ctx->import_seconds : 10.0 + file_bytes / 1e6;
}

/* The child's address-space limit: what the process maps now plus the import budget. */
static double import_memory(const lsim_context *ctx, double file_bytes)
{
    double budget = ctx->import_memory_bytes > 0 ? ctx->import_memory_bytes : 2147483648.0 + 32.0 * file_bytes;
    double mapped = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    if (f) {
        if (fscanf(f, "%lu", &pages) == 1)
            mapped = (double)pages * (double)sysconf(_SC_PAGESIZE);
        fclose(f);
    }
    return mapped + budget;
}

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV, a memory fault";
    case SIGBUS: return "SIGBUS";
    case SIGABRT: return "SIGABRT, a failed internal check";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGKILL: return "SIGKILL (out of memory?)";
    case SIGXCPU: return "SIGXCPU, its CPU-time limit";
    default: return "a signal";
    }
}

static int cloexec_pipe(int fds[2])
{
    if (pipe(fds) != 0)
        return -1;
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    return 0;
}

lsim_status lsim_mesh_import(lsim_context *ctx, const char *path, lsim_mesh_arrays *out)
{
    memset(out, 0, sizeof *out);
    struct stat info;
    double file_bytes = stat(path, &info) == 0 ? (double)info.st_size : 0;
    double seconds = import_seconds(ctx, file_bytes), memory = import_memory(ctx, file_bytes);
    int data[2], err[2];
    if (cloexec_pipe(data) != 0)
        return lsim_fail(ctx, LSIM_ERR_IO, "mesh '%s': cannot create a pipe for the importer: %s", path, strerror(errno));
    if (cloexec_pipe(err) != 0) {
        close(data[0]);
        close(data[1]);
        return lsim_fail(ctx, LSIM_ERR_IO, "mesh '%s': cannot create a pipe for the importer: %s", path, strerror(errno));
    }
    fflush(NULL); /* nothing buffered is written twice */
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(data[0]), close(data[1]), close(err[0]), close(err[1]);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "mesh '%s': cannot start the importer process: %s", path,
                         strerror(e));
    }
    if (pid == 0) {
        close(data[0]);
        close(err[0]);
        dup2(err[1], STDERR_FILENO);
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0)
            dup2(devnull, STDOUT_FILENO);
        child_import(ctx, path, data[1], seconds, memory);
    }
    close(data[1]);
    close(err[1]);
    import_io io = {.data_fd = data[0], .err_fd = err[0], .deadline_ms = lsim_now_ms() + 1e3 * seconds};
    import_header h;
    lsim_status st = LSIM_OK;
    int complete = 0;
    if (read_exact(&io, &h, sizeof h) == 0 && h.magic == IMPORT_MAGIC) {
        h.message[IMPORT_MSG - 1] = '\0';
        for (char *c = h.message; *c; ++c) /* the importer may quote the file's bytes */
            if ((unsigned char)*c < 32 || (unsigned char)*c > 126)
                *c = '?';
        if (h.status != LSIM_OK) {
            st = lsim_fail(ctx, (lsim_status)h.status, "mesh '%s' %s", path, h.message);
            complete = 1;
        } else if (h.vertex_count == 0 || h.triangle_count == 0 || h.vertex_count > LSIM_MESH_MAX_ELEMENTS ||
                   h.triangle_count > LSIM_MESH_MAX_ELEMENTS) {
            st = lsim_fail(ctx, LSIM_ERR_PARSE, "mesh '%s': the importer reported %llu vertices and %llu triangles",
                           path, (unsigned long long)h.vertex_count, (unsigned long long)h.triangle_count);
            complete = 1;
        } else {
            out->vertex_count = (size_t)h.vertex_count;
            out->triangle_count = (size_t)h.triangle_count;
            out->vertices = malloc(3 * out->vertex_count * sizeof(float));
            out->indices = malloc(3 * out->triangle_count * sizeof(uint32_t));
            if (!out->vertices || !out->indices) {
                st = lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory loading mesh '%s' (%zu triangles)", path,
                               out->triangle_count);
                complete = 1;
            } else if (read_exact(&io, out->vertices, 3 * out->vertex_count * sizeof(float)) == 0 &&
                       read_exact(&io, out->indices, 3 * out->triangle_count * sizeof(uint32_t)) == 0) {
                complete = 1;
                for (size_t i = 0; i < 3 * out->triangle_count; ++i)
                    if (out->indices[i] >= out->vertex_count) {
                        st = lsim_fail(ctx, LSIM_ERR_PARSE, "mesh '%s': triangle %zu names vertex %u of %zu", path,
                                       i / 3, out->indices[i], out->vertex_count);
                        break;
                    }
            }
        }
    }
    if (!complete || io.timed_out)
        kill(pid, SIGKILL);
    close(io.data_fd);
    if (io.err_fd >= 0)
        close(io.err_fd);
    int wstatus = 0;
    pid_t reaped;
    do
        reaped = waitpid(pid, &wstatus, 0);
    while (reaped < 0 && errno == EINTR);
    if (!complete) {
        const char *tail = importer_said(&io), *said = tail[0] ? "; the importer said: " : "";
        if (io.timed_out)
            st = lsim_fail(ctx, LSIM_ERR_PARSE,
                           "mesh '%s': the importer (assimp) did not finish within %.0f s and was stopped; the file is "
                           "probably malformed (e.g. a header claiming more data than the file holds). Re-export "
                           "it, or raise the limit (lsim_context_set_import_limits, lidarsim --import-timeout)%s%s",
                           path, seconds, said, tail);
        else if (reaped == pid && WIFSIGNALED(wstatus))
            st = lsim_fail(ctx, LSIM_ERR_PARSE,
                           "mesh '%s': the importer (assimp) crashed on this file (%s); the file is malformed or "
                           "truncated, or needs more than %.0f MB (raise with --import-memory): check it in a mesh "
                           "viewer or re-export it%s%s",
                           path, signal_name(WTERMSIG(wstatus)), memory / 1e6, said, tail);
        else
            st = lsim_fail(ctx, LSIM_ERR_PARSE,
                           "mesh '%s': the importer (assimp) stopped without returning the mesh (exit status %d); "
                           "the file is malformed or needs more than %.0f MB of memory%s%s",
                           path, reaped == pid && WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1, memory / 1e6, said,
                           tail);
    }
    if (st != LSIM_OK)
        lsim_mesh_arrays_free(out);
    return st;
}

void lsim_mesh_arrays_free(lsim_mesh_arrays *mesh)
{
    free(mesh->vertices);
    free(mesh->indices);
    memset(mesh, 0, sizeof *mesh);
}
