// A cache of Little CMS transforms from RGB profiles to sRGB.
//
// Making a transform (reading both profiles and precomputing the 8-bit tables) costs a few
// milliseconds, about what converting a 300-pixel thumbnail's pixels costs, and libvips'
// icc_transform makes one for every image. Photos from one kind of camera share one
// profile, so the transforms of the few most recent profiles are kept. A transform made
// with cmsFLAGS_NOCACHE may be used by several threads at once; one that is replaced while
// a conversion uses it is deleted when that conversion ends.
#include "color_transforms.h"

#include <lcms2.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { kept_profiles = 8 };

/// The two transforms of one profile, and the conversions using them.
typedef struct {
    cmsHTRANSFORM rgb;
    cmsHTRANSFORM rgba;
    int users;
    int replaced;
} transforms;

typedef struct {
    uint64_t hash;
    size_t length;
    unsigned char *bytes;
    transforms *kept;
    uint64_t last_use;
} profile_entry;

static profile_entry entries[kept_profiles];
static uint64_t uses;
static unsigned long made_count;
static pthread_mutex_t entries_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t fnv1a(const unsigned char *bytes, size_t length) {
    uint64_t hash = 1469598103934665603ULL;
    for (size_t i = 0; i < length; i++) hash = (hash ^ bytes[i]) * 1099511628211ULL;
    return hash;
}

static void delete_transforms(transforms *kept) {
    cmsDeleteTransform(kept->rgb);
    cmsDeleteTransform(kept->rgba);
    free(kept);
}

/// The transforms of an RGB profile, or NULL when it cannot be read as one.
static transforms *make_transforms(const void *profile, size_t length) {
    cmsHPROFILE input = cmsOpenProfileFromMem(profile, (cmsUInt32Number)length);
    if (!input) return NULL;
    if (cmsGetColorSpace(input) != cmsSigRgbData) {
        cmsCloseProfile(input);
        return NULL;
    }
    cmsHPROFILE output = cmsCreate_sRGBProfile();
    cmsHTRANSFORM rgb = cmsCreateTransform(input, TYPE_RGB_8, output, TYPE_RGB_8, INTENT_RELATIVE_COLORIMETRIC, cmsFLAGS_NOCACHE);
    cmsHTRANSFORM rgba = cmsCreateTransform(input, TYPE_RGBA_8, output, TYPE_RGBA_8, INTENT_RELATIVE_COLORIMETRIC,
                                            cmsFLAGS_NOCACHE | cmsFLAGS_COPY_ALPHA);
    cmsCloseProfile(input);
    cmsCloseProfile(output);
    transforms *made = rgb && rgba ? calloc(1, sizeof(transforms)) : NULL;
    if (!made) {
        if (rgb) cmsDeleteTransform(rgb);
        if (rgba) cmsDeleteTransform(rgba);
        return NULL;
    }
    made->rgb = rgb;
    made->rgba = rgba;
    made_count++;
    return made;
}

/// The kept transforms of the profile, made when it is new, with one more user; called
/// with the lock held.
static transforms *acquire(const unsigned char *profile, size_t length) {
    uint64_t hash = fnv1a(profile, length);
    profile_entry *oldest = &entries[0];
    for (int i = 0; i < kept_profiles; i++) {
        profile_entry *entry = &entries[i];
        if (entry->bytes && entry->hash == hash && entry->length == length && memcmp(entry->bytes, profile, length) == 0) {
            entry->last_use = ++uses;
            entry->kept->users++;
            return entry->kept;
        }
        if (!entry->bytes || (oldest->bytes && entry->last_use < oldest->last_use)) oldest = entry;
    }
    transforms *made = make_transforms(profile, length);
    unsigned char *copy = made ? malloc(length) : NULL;
    if (!copy) {
        if (made) delete_transforms(made);
        return NULL;
    }
    memcpy(copy, profile, length);
    if (oldest->bytes) {
        free(oldest->bytes);
        if (oldest->kept->users == 0) delete_transforms(oldest->kept);
        else oldest->kept->replaced = 1;
    }
    oldest->hash = hash;
    oldest->length = length;
    oldest->bytes = copy;
    oldest->kept = made;
    oldest->last_use = ++uses;
    made->users = 1;
    return made;
}

unsigned long wi_rgb8_transforms_made(void) {
    pthread_mutex_lock(&entries_lock);
    unsigned long made = made_count;
    pthread_mutex_unlock(&entries_lock);
    return made;
}

int wi_rgb8_to_srgb(const void *profile, size_t profile_length, unsigned char *pixels, size_t pixel_count, int bands) {
    if ((bands != 3 && bands != 4) || !profile || profile_length < 128) return -1;
    pthread_mutex_lock(&entries_lock);
    transforms *kept = acquire(profile, profile_length);
    pthread_mutex_unlock(&entries_lock);
    if (!kept) return -1;
    // In place: input and output share one layout.
    cmsDoTransform(bands == 4 ? kept->rgba : kept->rgb, pixels, pixels, (cmsUInt32Number)pixel_count);
    pthread_mutex_lock(&entries_lock);
    kept->users--;
    int finished = kept->replaced && kept->users == 0;
    pthread_mutex_unlock(&entries_lock);
    if (finished) delete_transforms(kept);
    return 0;
}
