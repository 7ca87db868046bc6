/* Bounded string helpers. */
#ifndef LSIM_CORE_TEXT_H
#define LSIM_CORE_TEXT_H

#include <stddef.h>

/* Copy with truncation, always NUL-terminated. */
void lsim_strlcpy(char *dst, const char *src, size_t size);
/* Duplicate a string (NULL on allocation failure). */
char *lsim_strdup(const char *s);
/* Case-sensitive suffix test. */
int lsim_ends_with(const char *s, const char *suffix);
/* 1 if the file name in path (after its last '/') ends with ext, ignoring case, and has more than
 * ext itself (".pcd" alone is no PCD file). */
int lsim_has_extension(const char *path, const char *ext);
/* Strip leading and trailing white space (isspace) in place; returns the first kept character. */
char *lsim_trim(char *s);
/* Cut `s` in place at every `sep`; the first `max` pieces, trimmed, go to fields. Returns the
 * number of pieces (which may exceed max). */
size_t lsim_split_fields(char *s, char sep, char **fields, size_t max);
/* All of `s` (spaces around it allowed) as a double; "inf" and "nan" accepted, an underflow to a
 * denormal too, an overflowing finite-looking number not. 0 on success, -1 otherwise. */
int lsim_parse_double(const char *s, double *out);

#endif
