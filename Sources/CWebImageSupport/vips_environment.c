/* RTLD_DEFAULT is a GNU extension. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>

/* libvips' install prefix, written into the environment before main.
 *
 * The first vips_init of a process stores the prefix it guessed in the environment
 * (setenv("VIPSHOME")) unless the variable is already set. WebImage starts libvips on
 * whichever thread first needs a codec, when the process has many threads, and glibc's
 * setenv may move the array that a concurrent reader of the environment is walking:
 * getenv, or Foundation's Process.run copying the environment for a child, then reads
 * freed memory and may crash.
 *
 * This constructor asks libvips for the same guess while the process has one thread, so
 * that vips_init finds VIPSHOME set and leaves the environment alone. The function is
 * found with dlsym, so a program that links this code without libvips does nothing. */
__attribute__((constructor)) static void webimage_vips_prefix_before_threads(void) {
    if (getenv("VIPSHOME") != NULL) return;
    const char *(*guess_prefix)(const char *, const char *) =
        (const char *(*)(const char *, const char *))dlsym(RTLD_DEFAULT, "vips_guess_prefix");
    /* "webimage" is the program name WebImage's own vips_init passes (VIPS_INIT). */
    if (guess_prefix != NULL) guess_prefix("webimage", "VIPSHOME");
}
