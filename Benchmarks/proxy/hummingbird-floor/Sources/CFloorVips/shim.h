// The proxy's libvips calls and the file work of a cold variant (../../../proxy_sequence.h:
// setup_libvips_as_webimage, variant_with_files), for the cold route of the floor.
#ifndef HUMMINGBIRD_FLOOR_VIPS_H
#define HUMMINGBIRD_FLOOR_VIPS_H

#include "../../../proxy_sequence.h"

#endif
