/* Opening a file named inside another file (a pattern, kernel, trajectory or calibration file a
 * scene or config names): only a regular file is read. The open does not block (O_NONBLOCK), so a
 * FIFO or a device named there is refused at once instead of hanging the load until a writer
 * comes; a folder is refused too. Top-level inputs given on the command line keep plain fopen. */
#ifndef LSIM_CORE_FILE_OPEN_H
#define LSIM_CORE_FILE_OPEN_H

#include <stdio.h>

/* NULL and *out open on success; otherwise why not (for "PATH: cannot open ...: <why>"). */
const char *lsim_fopen_regular(const char *path, const char *mode, FILE **out);

#endif
