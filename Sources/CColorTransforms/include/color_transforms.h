#ifndef WEBIMAGE_COLOR_TRANSFORMS_H
#define WEBIMAGE_COLOR_TRANSFORMS_H

#include <stddef.h>

/// Converts `pixel_count` 8-bit pixels of `bands` samples (3: RGB, 4: RGB and alpha, the
/// alpha copied) in place from the RGB ICC profile of `profile_length` bytes at `profile`
/// to sRGB, relative colorimetric, as a browser shows such an image. The colour engine's
/// transform is made once per profile and kept (a few of the most recent profiles), so an
/// image pays for its pixels only. Returns 0 on success, -1 when the profile cannot be read
/// as an RGB profile or `bands` is neither 3 nor 4: the caller then converts another way.
int wi_rgb8_to_srgb(const void *profile, size_t profile_length, unsigned char *pixels, size_t pixel_count, int bands);

/// How many transforms `wi_rgb8_to_srgb` has made in this process: one a profile while it
/// stays among the most recent.
unsigned long wi_rgb8_transforms_made(void);

#endif
