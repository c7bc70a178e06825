/*
 * crc32c.c — CRC-32C (Castagnoli, reflected polynomial 0x82f63b78).
 *
 * Two implementations:
 *  - portable slicing-by-8 (eight 256-entry tables, 8 bytes per step);
 *  - x86-64 SSE4.2 `crc32` instruction on three interleaved streams, whose partial CRCs
 *    are combined with "append N zero bytes" operator tables (the method of Mark Adler's
 *    crc32c.c). The instruction has a 3-cycle latency and 1-cycle throughput, so three
 *    independent streams keep the unit busy.
 * The hardware path is chosen at run time with __builtin_cpu_supports("sse4.2").
 */
#include "checksums.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <nmmintrin.h>
#define FBS_HAVE_X86_CRC 1
#else
#define FBS_HAVE_X86_CRC 0
#endif

#define POLY 0x82f63b78u

/* Stream lengths of the interleaved hardware loop. Powers of two (required by zeros_op). */
#define LONG_BLOCK 8192
#define SHORT_BLOCK 256

static uint32_t table[8][256];           /* slicing-by-8 tables */
static uint32_t long_shift[4][256];      /* append LONG_BLOCK zero bytes */
static uint32_t short_shift[4][256];     /* append SHORT_BLOCK zero bytes */
static int hw_available;                 /* CPU has SSE4.2 */
static atomic_int use_hw;                /* fbs_crc32c_update dispatches to hardware */
static pthread_once_t init_once = PTHREAD_ONCE_INIT;

/* ---- GF(2) helpers for the zero-append operators ------------------------------------------ */

static uint32_t gf2_matrix_times(const uint32_t *mat, uint32_t vec) {
    uint32_t sum = 0;
    while (vec) {
        if (vec & 1)
            sum ^= *mat;
        vec >>= 1;
        mat++;
    }
    return sum;
}

static void gf2_matrix_square(uint32_t *square, const uint32_t *mat) {
    for (int n = 0; n < 32; n++)
        square[n] = gf2_matrix_times(mat, mat[n]);
}

/* The operator (32x32 GF(2) matrix) that appends len zero bytes to a CRC; len a power of 2. */
static void zeros_op(uint32_t *even, size_t len) {
    uint32_t odd[32];
    odd[0] = POLY; /* one zero bit */
    uint32_t row = 1;
    for (int n = 1; n < 32; n++) {
        odd[n] = row;
        row <<= 1;
    }
    gf2_matrix_square(even, odd); /* two zero bits */
    gf2_matrix_square(odd, even); /* four zero bits */
    /* The first square gives one zero byte in even, the next two in odd, and so on. */
    do {
        gf2_matrix_square(even, odd);
        len >>= 1;
        if (len == 0)
            return;
        gf2_matrix_square(odd, even);
        len >>= 1;
    } while (len);
    memcpy(even, odd, sizeof odd);
}

/* Byte-wise lookup tables for the operator, so that applying it costs four lookups. */
static void zeros_tables(uint32_t zeros[4][256], size_t len) {
    uint32_t op[32];
    zeros_op(op, len);
    for (uint32_t n = 0; n < 256; n++) {
        zeros[0][n] = gf2_matrix_times(op, n);
        zeros[1][n] = gf2_matrix_times(op, n << 8);
        zeros[2][n] = gf2_matrix_times(op, n << 16);
        zeros[3][n] = gf2_matrix_times(op, n << 24);
    }
}

static inline uint32_t shift_crc(uint32_t zeros[4][256], uint32_t crc) {
    return zeros[0][crc & 0xff] ^ zeros[1][(crc >> 8) & 0xff] ^ zeros[2][(crc >> 16) & 0xff] ^
           zeros[3][crc >> 24];
}

static void init_tables(void) {
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t crc = n;
        for (int k = 0; k < 8; k++)
            crc = (crc & 1) ? (crc >> 1) ^ POLY : crc >> 1;
        table[0][n] = crc;
    }
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t crc = table[0][n];
        for (int k = 1; k < 8; k++) {
            crc = table[0][crc & 0xff] ^ (crc >> 8);
            table[k][n] = crc;
        }
    }
#if FBS_HAVE_X86_CRC
    __builtin_cpu_init();
    hw_available = __builtin_cpu_supports("sse4.2") ? 1 : 0;
    if (hw_available) {
        zeros_tables(long_shift, LONG_BLOCK);
        zeros_tables(short_shift, SHORT_BLOCK);
    }
#else
    hw_available = 0;
#endif
    const char *force = getenv("FBS_CRC32C_FORCE_PORTABLE");
    int forced = force != NULL && force[0] != '\0' && strcmp(force, "0") != 0;
    atomic_store(&use_hw, hw_available && !forced);
}

static inline void ensure_init(void) {
    pthread_once(&init_once, init_tables);
}

/* ---- portable: slicing-by-8 ----------------------------------------------------------------- */

static inline uint64_t load64_le(const unsigned char *p) {
    uint64_t w;
    memcpy(&w, p, sizeof w);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    return w;
}

static uint32_t crc32c_portable(uint32_t crc_in, const unsigned char *next, size_t len) {
    uint64_t crc = crc_in ^ 0xffffffffu;
    while (len && ((uintptr_t)next & 7) != 0) {
        crc = table[0][(crc ^ *next++) & 0xff] ^ (crc >> 8);
        len--;
    }
    while (len >= 8) {
        crc ^= load64_le(next);
        crc = table[7][crc & 0xff] ^ table[6][(crc >> 8) & 0xff] ^ table[5][(crc >> 16) & 0xff] ^
              table[4][(crc >> 24) & 0xff] ^ table[3][(crc >> 32) & 0xff] ^
              table[2][(crc >> 40) & 0xff] ^ table[1][(crc >> 48) & 0xff] ^ table[0][crc >> 56];
        next += 8;
        len -= 8;
    }
    while (len) {
        crc = table[0][(crc ^ *next++) & 0xff] ^ (crc >> 8);
        len--;
    }
    return (uint32_t)crc ^ 0xffffffffu;
}

/* ---- hardware: SSE4.2, three interleaved streams --------------------------------------------- */

#if FBS_HAVE_X86_CRC
static inline uint64_t load64(const unsigned char *p) {
    uint64_t w;
    memcpy(&w, p, sizeof w);
    return w;
}

/* While 3 * block bytes remain: CRC three consecutive blocks as independent streams, then
 * combine them by shifting each partial CRC over the following block and XOR-ing. */
#define INTERLEAVED_ROUNDS(block, shift_table)                                                \
    while (len >= 3 * (size_t)(block)) {                                                      \
        uint64_t crc1 = 0, crc2 = 0;                                                          \
        const unsigned char *end = next + (block);                                            \
        do {                                                                                  \
            crc0 = _mm_crc32_u64(crc0, load64(next));                                         \
            crc1 = _mm_crc32_u64(crc1, load64(next + (block)));                               \
            crc2 = _mm_crc32_u64(crc2, load64(next + 2 * (block)));                           \
            next += 8;                                                                        \
        } while (next < end);                                                                 \
        crc0 = shift_crc(shift_table, (uint32_t)crc0) ^ (uint32_t)crc1;                       \
        crc0 = shift_crc(shift_table, (uint32_t)crc0) ^ (uint32_t)crc2;                       \
        next += 2 * (block);                                                                  \
        len -= 3 * (size_t)(block);                                                           \
    }

__attribute__((target("sse4.2")))
static uint32_t crc32c_sse42(uint32_t crc_in, const unsigned char *next, size_t len) {
    uint64_t crc0 = crc_in ^ 0xffffffffu;
    while (len && ((uintptr_t)next & 7) != 0) {
        crc0 = _mm_crc32_u8((uint32_t)crc0, *next++);
        len--;
    }
    INTERLEAVED_ROUNDS(LONG_BLOCK, long_shift)
    INTERLEAVED_ROUNDS(SHORT_BLOCK, short_shift)
    while (len >= 8) {
        crc0 = _mm_crc32_u64(crc0, load64(next));
        next += 8;
        len -= 8;
    }
    while (len) {
        crc0 = _mm_crc32_u8((uint32_t)crc0, *next++);
        len--;
    }
    return (uint32_t)crc0 ^ 0xffffffffu;
}
#endif

/* ---- public entry points ----------------------------------------------------------------- */

uint32_t fbs_crc32c_update_portable(uint32_t crc, const void *data, size_t len) {
    if (len == 0)
        return crc;
    ensure_init();
    return crc32c_portable(crc, (const unsigned char *)data, len);
}

uint32_t fbs_crc32c_update_hardware(uint32_t crc, const void *data, size_t len) {
    if (len == 0)
        return crc;
    ensure_init();
#if FBS_HAVE_X86_CRC
    if (hw_available)
        return crc32c_sse42(crc, (const unsigned char *)data, len);
#endif
    return crc32c_portable(crc, (const unsigned char *)data, len);
}

uint32_t fbs_crc32c_update(uint32_t crc, const void *data, size_t len) {
    if (len == 0)
        return crc;
    ensure_init();
#if FBS_HAVE_X86_CRC
    if (atomic_load_explicit(&use_hw, memory_order_relaxed))
        return crc32c_sse42(crc, (const unsigned char *)data, len);
#endif
    return crc32c_portable(crc, (const unsigned char *)data, len);
}

int fbs_crc32c_hardware_available(void) {
    ensure_init();
    return hw_available;
}

int fbs_crc32c_using_hardware(void) {
    ensure_init();
    return atomic_load(&use_hw);
}

void fbs_crc32c_force_portable(int force) {
    ensure_init();
    atomic_store(&use_hw, hw_available && !force);
}
