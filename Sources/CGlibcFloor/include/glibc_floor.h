/* CGlibcFloor: definitions that keep libfbstorage.so off the newest glibc symbol versions, so
 * the wheel runs on glibc 2.34 (RHEL 9) and later; see hypotf.c. Nothing to call. */
#ifndef FBS_GLIBC_FLOOR_H
#define FBS_GLIBC_FLOOR_H
#endif
