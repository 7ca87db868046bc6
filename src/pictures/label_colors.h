/* SemanticKITTI's colour map (semantic-kitti.yaml's color_map, given there as BGR; here RGB) and
 * class names, for pictures coloured by semantic label; its darkest colours are lightened to a 3:1
 * luminance contrast against the plot background (label_colors.c). */
#ifndef LSIM_PICTURES_LABEL_COLORS_H
#define LSIM_PICTURES_LABEL_COLORS_H

#include <stdint.h>

/* Colour and name of semantic id `id`: 1 for a SemanticKITTI class; 0 for any other id, which
 * gets a colour of matplotlib's tab10 palette (by id) and the name NULL. */
int lsim_label_color(uint32_t id, unsigned char rgb[3], const char **name);

#endif
