/* The C API's header, which this target compiles its constants from (SwiftPM wants a C target's
 * public headers inside the target). */
#include "../../../include/fbstorage.h"
