/* lsim_fopen_regular (core/file_open.h). */
#include "core/file_open.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *lsim_fopen_regular(const char *path, const char *mode, FILE **out)
{
    *out = NULL;
    const int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return strerror(errno);
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        const int e = errno;
        close(fd);
        return strerror(e);
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        return S_ISDIR(sb.st_mode) ? "it is a folder, not a file"
                                   : "it is not a regular file (a FIFO, socket or device); give a file";
    }
    const int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0 || !(*out = fdopen(fd, mode))) {
        const int e = errno;
        close(fd);
        return strerror(e);
    }
    return NULL;
}
