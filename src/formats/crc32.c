/* CRC-32 of buffers and files (formats/crc32.h). */
#include "formats/crc32.h"

#include "core/file_open.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

void lsim_crc32_table(uint32_t table[256])
{
    for (uint32_t i = 0; i < 256; ++i) {
        uint32_t c = i;
        for (int k = 0; k < 8; ++k)
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
        table[i] = c;
    }
}

uint32_t lsim_crc32_update(const uint32_t table[256], uint32_t crc, const void *p, size_t n)
{
    const unsigned char *b = p;
    crc = ~crc;
    for (size_t i = 0; i < n; ++i)
        crc = table[(crc ^ b[i]) & 0xFFu] ^ (crc >> 8);
    return ~crc;
}

int lsim_crc32_file(const char *path, unsigned char *buf, size_t size, uint64_t *bytes, uint32_t *crc)
{
    *bytes = 0;
    *crc = 0;
    /* the one opener (core/file_open.h): a FIFO put in the file's place does not wait for a
     * writer, a device is not read, and no more than the bound of a frame file is read */
    int fd;
    const int err = lsim_file_open_errno(path, LSIM_INPUT_DATASET_FRAME, &fd, NULL);
    if (err)
        return err;
    const uint64_t bound = lsim_input_max_bytes(LSIM_INPUT_DATASET_FRAME);
    uint32_t table[256];
    lsim_crc32_table(table);
    uint32_t c = 0;
    uint64_t total = 0;
    for (;;) {
        const ssize_t n = read(fd, buf, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            const int err = errno;
            close(fd);
            return err;
        }
        if (n == 0)
            break;
        c = lsim_crc32_update(table, c, buf, (size_t)n);
        total += (uint64_t)n;
        if (total > bound) { /* it grew past the bound while read */
            close(fd);
            return EFBIG;
        }
    }
    close(fd);
    *bytes = total;
    *crc = c;
    return 0;
}
