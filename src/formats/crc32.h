/* CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320: the CRC of zlib, PNG and MCAP), and the size and
 * CRC of a file read back. The table is the caller's (256 entries, filled by lsim_crc32_table), so
 * that nothing global is kept. */
#ifndef LSIM_FORMATS_CRC32_H
#define LSIM_FORMATS_CRC32_H

#include <stddef.h>
#include <stdint.h>

void lsim_crc32_table(uint32_t table[256]);
/* The CRC of the bytes so far `crc` (0 at the start) extended by p[0..n): lsim_crc32_update(t, 0, p, n)
 * is the CRC of p[0..n), as zlib's crc32(0, p, n). */
uint32_t lsim_crc32_update(const uint32_t table[256], uint32_t crc, const void *p, size_t n);

/* The size and CRC-32 of the regular file `path`, read through `buf` (`size` bytes, > 0). Returns
 * 0, or an errno value: the open's or read's, EINVAL when `path` is not a regular file (a folder,
 * FIFO or device is not read). */
int lsim_crc32_file(const char *path, unsigned char *buf, size_t size, uint64_t *bytes, uint32_t *crc);

#endif
