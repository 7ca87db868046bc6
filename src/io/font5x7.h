/* A 5x7 bitmap font for ASCII 32..126 (the classic HD44780-style glyphs), for text in PNGs
 * without a font library. Each glyph is 5 columns of bits: bit r (0 = top row) of column c is
 * set where the pixel (c, r) is ink. Text is laid out on a 6x8 cell (one blank column; the 8th row
 * holds only the descenders of g j p q y). */
#ifndef LSIM_IO_FONT5X7_H
#define LSIM_IO_FONT5X7_H

#include <stddef.h>

#define LSIM_FONT_GLYPH_W 5
#define LSIM_FONT_GLYPH_H 7
#define LSIM_FONT_CELL_W 6
#define LSIM_FONT_CELL_H 8

/* Glyphs beyond ASCII, as decoded from UTF-8 by lsim_font5x7_next. */
#define LSIM_GLYPH_DEGREE 0x80    /* U+00B0 degree sign */
#define LSIM_GLYPH_PLUSMINUS 0x81 /* U+00B1 */
#define LSIM_GLYPH_MU 0x82        /* U+03BC greek small mu */
#define LSIM_GLYPH_SIGMA 0x83     /* U+03C3 greek small sigma */
#define LSIM_GLYPH_THETA 0x84     /* U+03B8 greek small theta */

/* The 5 column bytes of glyph c (32..126 or an LSIM_GLYPH_*); anything else gives '?'. */
const unsigned char *lsim_font5x7_glyph(int c);

/* Decode the next character of a UTF-8 string and advance *s past it: its glyph code, or '?' for
 * a character the font lacks (one '?' per UTF-8 sequence, malformed bytes one each); 0 at the end. */
int lsim_font5x7_next(const char **s);

/* Number of glyphs lsim_font5x7_next yields for s (0 for NULL). */
size_t lsim_font5x7_length(const char *s);

/* 1 where pixel (col 0..4, row 0..7) of c's glyph is ink, otherwise 0 (also outside the cell). */
int lsim_font5x7_ink(int c, int col, int row);

#endif
