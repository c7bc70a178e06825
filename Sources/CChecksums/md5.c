/*
 * md5.c — MD5 message digest, written from RFC 1321 (section 3).
 */
#include "checksums.h"

#include <string.h>

/* T[i] = floor(2^32 * |sin(i + 1)|), RFC 1321 section 3.4. */
static const uint32_t T[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee,
    0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be,
    0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa,
    0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed,
    0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c,
    0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05,
    0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039,
    0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1,
    0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};

/* Per-round left-rotation amounts. */
static const unsigned char S[4][4] = {
    {7, 12, 17, 22}, {5, 9, 14, 20}, {4, 11, 16, 23}, {6, 10, 15, 21},
};

static inline uint32_t rotl(uint32_t x, unsigned n) {
    return (x << n) | (x >> (32 - n));
}

static inline uint32_t load32_le(const unsigned char *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static void md5_block(uint32_t state[4], const unsigned char block[64]) {
    uint32_t X[16];
    for (int i = 0; i < 16; i++)
        X[i] = load32_le(block + 4 * i);
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    for (int i = 0; i < 64; i++) {
        uint32_t f;
        int k;
        switch (i >> 4) {
        case 0: f = (b & c) | (~b & d); k = i; break;                  /* F */
        case 1: f = (b & d) | (c & ~d); k = (5 * i + 1) & 15; break;   /* G */
        case 2: f = b ^ c ^ d;          k = (3 * i + 5) & 15; break;   /* H */
        default: f = c ^ (b | ~d);      k = (7 * i) & 15; break;       /* I */
        }
        uint32_t tmp = d;
        d = c;
        c = b;
        b = b + rotl(a + f + T[i] + X[k], S[i >> 4][i & 3]);
        a = tmp;
    }
    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
}

void fbs_md5_init(fbs_md5_ctx *ctx) {
    ctx->state[0] = 0x67452301;
    ctx->state[1] = 0xefcdab89;
    ctx->state[2] = 0x98badcfe;
    ctx->state[3] = 0x10325476;
    ctx->length = 0;
    memset(ctx->buffer, 0, sizeof ctx->buffer);
}

void fbs_md5_update(fbs_md5_ctx *ctx, const void *data, size_t len) {
    const unsigned char *p = (const unsigned char *)data;
    size_t used = (size_t)(ctx->length & 63);
    ctx->length += len;
    if (used) {
        size_t take = 64 - used;
        if (take > len)
            take = len;
        memcpy(ctx->buffer + used, p, take);
        p += take;
        len -= take;
        if (used + take < 64)
            return;
        md5_block(ctx->state, ctx->buffer);
    }
    while (len >= 64) {
        md5_block(ctx->state, p);
        p += 64;
        len -= 64;
    }
    if (len)
        memcpy(ctx->buffer, p, len);
}

void fbs_md5_final(fbs_md5_ctx *ctx, unsigned char digest[16]) {
    uint64_t bits = ctx->length * 8;
    /* Pad with 0x80 then zeros to 56 mod 64, then the 64-bit little-endian bit length. */
    unsigned char pad[72];
    size_t used = (size_t)(ctx->length & 63);
    size_t padlen = (used < 56) ? 56 - used : 120 - used;
    memset(pad, 0, sizeof pad);
    pad[0] = 0x80;
    for (int i = 0; i < 8; i++)
        pad[padlen + i] = (unsigned char)(bits >> (8 * i));
    fbs_md5_update(ctx, pad, padlen + 8);
    for (int i = 0; i < 4; i++) {
        digest[4 * i + 0] = (unsigned char)(ctx->state[i]);
        digest[4 * i + 1] = (unsigned char)(ctx->state[i] >> 8);
        digest[4 * i + 2] = (unsigned char)(ctx->state[i] >> 16);
        digest[4 * i + 3] = (unsigned char)(ctx->state[i] >> 24);
    }
}
