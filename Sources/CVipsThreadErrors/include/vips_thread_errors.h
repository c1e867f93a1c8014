#ifndef WEBIMAGE_VIPS_THREAD_ERRORS_H
#define WEBIMAGE_VIPS_THREAD_ERRORS_H

/// Whether libvips' error calls reach this module's definitions (vips_thread_errors.c says
/// why): 1 when the program exports them. Without it, libvips keeps one error buffer for
/// the whole process.
int webimage_vips_thread_errors_installed(void);

/// The libvips errors raised on this thread since the last take, as a string to free(),
/// and clears them; NULL when there are none.
char *webimage_vips_thread_errors_take(void);

/// How many libvips errors have been raised on this thread (frozen ones included).
long webimage_vips_thread_errors_raised(void);

#endif
