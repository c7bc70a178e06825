/*
 * checksums.h — CRC-32C (Castagnoli) and MD5 for the fbstorage Swift core.
 *
 * Every symbol here has hidden visibility: it is linked into libfbstorage.so but not
 * exported from it. The functions are pure and thread-safe (the CRC tables are built once,
 * under pthread_once).
 */
#ifndef FBS_CHECKSUMS_H
#define FBS_CHECKSUMS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FBS_CHECKSUMS_HIDDEN __attribute__((visibility("hidden")))

/* ---- CRC-32C ------------------------------------------------------------------------------
 * zlib-style running CRC: start with 0 and pass the previous result back in; the result after
 * the last update is the CRC of the concatenated data. fbs_crc32c_update(0, "", 0) == 0 and
 * the CRC of "hello world" is 3381945770 (0xc99465aa).
 *
 * fbs_crc32c_update uses SSE4.2 (three interleaved streams) when the CPU has it, unless the
 * environment variable FBS_CRC32C_FORCE_PORTABLE is set to a non-empty value other than "0"
 * when the first CRC is computed, or fbs_crc32c_force_portable(1) was called. */
FBS_CHECKSUMS_HIDDEN uint32_t fbs_crc32c_update(uint32_t crc, const void *data, size_t len);

/* The portable slicing-by-8 implementation, whatever the CPU. */
FBS_CHECKSUMS_HIDDEN uint32_t fbs_crc32c_update_portable(uint32_t crc, const void *data, size_t len);

/* The hardware implementation; falls back to the portable one when the CPU lacks it. */
FBS_CHECKSUMS_HIDDEN uint32_t fbs_crc32c_update_hardware(uint32_t crc, const void *data, size_t len);

/* 1 when the CPU supports the hardware implementation (regardless of forcing), else 0. */
FBS_CHECKSUMS_HIDDEN int fbs_crc32c_hardware_available(void);

/* 1 when fbs_crc32c_update currently uses the hardware implementation, else 0. */
FBS_CHECKSUMS_HIDDEN int fbs_crc32c_using_hardware(void);

/* force != 0: fbs_crc32c_update uses the portable implementation from now on;
 * force == 0: it uses the hardware one again when available. */
FBS_CHECKSUMS_HIDDEN void fbs_crc32c_force_portable(int force);

/* ---- MD5 (RFC 1321) ------------------------------------------------------------------------ */
typedef struct fbs_md5_ctx {
    uint32_t state[4];
    uint64_t length;          /* bytes hashed so far */
    unsigned char buffer[64]; /* pending partial block */
} fbs_md5_ctx;

FBS_CHECKSUMS_HIDDEN void fbs_md5_init(fbs_md5_ctx *ctx);
FBS_CHECKSUMS_HIDDEN void fbs_md5_update(fbs_md5_ctx *ctx, const void *data, size_t len);
/* Writes the 16-byte digest. The context must be re-initialised before reuse. */
FBS_CHECKSUMS_HIDDEN void fbs_md5_final(fbs_md5_ctx *ctx, unsigned char digest[16]);

#ifdef __cplusplus
}
#endif
#endif /* FBS_CHECKSUMS_H */
