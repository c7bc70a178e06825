/* hypotf for the static Swift runtime's Glibc overlay: linked against glibc 2.35+, its call binds
 * to hypotf@GLIBC_2.35, the only symbol that raises the library's floor above 2.34 (auditwheel
 * would tag the wheel manylinux_2_35 and exclude RHEL 9). This definition takes the call instead
 * (local to the library: the version script exports fbs_* only). Float inputs squared and summed
 * in double neither overflow nor underflow, so the result is within an ulp of glibc's. */
#include <math.h>

float hypotf(float x, float y) {
    if (isinf(x) || isinf(y)) return INFINITY;   /* even when the other is NaN, as C requires */
    double dx = x, dy = y;
    return (float)sqrt(dx * dx + dy * dy);
}
