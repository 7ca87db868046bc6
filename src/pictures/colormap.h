/* Perceptual colormap (matplotlib's viridis, CC0), for images coloured by a scalar. */
#ifndef LSIM_PICTURES_COLORMAP_H
#define LSIM_PICTURES_COLORMAP_H

/* Colour of t in [0, 1] (clamped; NaN gives the colour of 0): dark purple -> teal -> yellow, RGB8. */
void lsim_colormap_viridis(double t, unsigned char rgb[3]);

#endif
