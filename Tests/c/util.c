/* util.c — random data, temp files, MD5, time. */
#define _GNU_SOURCE
#include "harness.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

extern char harness_tmpdir[256];

unsigned char *random_bytes(size_t n, unsigned seed) {
    unsigned char *b = malloc(n ? n : 1);
    uint64_t x = 0x9E3779B97F4A7C15ull ^ seed;
    for (size_t i = 0; i < n; i++) {   /* xorshift64* */
        x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
        b[i] = (unsigned char)((x * 0x2545F4914F6CDD1Dull) >> 56);
    }
    return b;
}

char *temp_path(const char *suffix) {
    static int counter;
    char *p = NULL;
    if (asprintf(&p, "%s/f-%d-%d%s", harness_tmpdir, (int)getpid(), counter++, suffix ? suffix : "") < 0)
        abort();
    return p;
}

char *temp_file_with(const void *bytes, size_t n, const char *suffix) {
    char *p = temp_path(suffix);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    REQUIRE(fd >= 0);
    const unsigned char *b = bytes;
    while (n) {
        ssize_t w = write(fd, b, n);
        REQUIRE(w > 0);
        b += w;
        n -= (size_t)w;
    }
    close(fd);
    return p;
}

unsigned char *read_file(const char *path, size_t *length) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) return NULL;
    struct stat st;
    if (fstat(fd, &st) != 0) { close(fd); return NULL; }
    size_t cap = (size_t)st.st_size + 1, n = 0;
    unsigned char *b = malloc(cap);
    for (;;) {
        if (n + 1 >= cap) b = realloc(b, cap *= 2);
        ssize_t r = read(fd, b + n, cap - n - 1);
        if (r <= 0) break;
        n += (size_t)r;
    }
    close(fd);
    b[n] = 0;
    if (length) *length = n;
    return b;
}

int bytes_equal(const void *a, size_t alen, const void *b, size_t blen) {
    return alen == blen && (alen == 0 || memcmp(a, b, alen) == 0);
}

double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {}
}

/* ---- MD5 (RFC 1321), small and slow enough for tests ----------------------------------- */
static const uint32_t K[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391};
static const int R[64] = {7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
                          5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20,
                          4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
                          6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21};

static void md5_block(uint32_t h[4], const unsigned char *p) {
    uint32_t w[16], a = h[0], b = h[1], c = h[2], d = h[3];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[i * 4] | (uint32_t)p[i * 4 + 1] << 8 | (uint32_t)p[i * 4 + 2] << 16 |
               (uint32_t)p[i * 4 + 3] << 24;
    for (int i = 0; i < 64; i++) {
        uint32_t f;
        int g;
        if (i < 16) { f = (b & c) | (~b & d); g = i; }
        else if (i < 32) { f = (d & b) | (~d & c); g = (5 * i + 1) % 16; }
        else if (i < 48) { f = b ^ c ^ d; g = (3 * i + 5) % 16; }
        else { f = c ^ (b | ~d); g = (7 * i) % 16; }
        uint32_t t = d;
        d = c;
        c = b;
        uint32_t x = a + f + K[i] + w[g];
        b = b + (x << R[i] | x >> (32 - R[i]));
        a = t;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d;
}

void md5_hex(const void *bytes, size_t n, char out[33]) {
    uint32_t h[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
    const unsigned char *p = bytes;
    size_t full = n / 64 * 64;
    for (size_t i = 0; i < full; i += 64) md5_block(h, p + i);
    unsigned char tail[128] = {0};
    size_t rest = n - full;
    if (rest) memcpy(tail, p + full, rest);
    tail[rest] = 0x80;
    size_t tail_len = rest < 56 ? 64 : 128;
    uint64_t bits = (uint64_t)n * 8;
    for (int i = 0; i < 8; i++) tail[tail_len - 8 + i] = (unsigned char)(bits >> (8 * i));
    for (size_t i = 0; i < tail_len; i += 64) md5_block(h, tail + i);
    for (int i = 0; i < 16; i++) sprintf(out + 2 * i, "%02x", (h[i / 4] >> (8 * (i % 4))) & 0xff);
}

const char *non_loopback_address(void) {
    static char buf[INET_ADDRSTRLEN];
    struct ifaddrs *all = NULL, *a;
    if (getifaddrs(&all) != 0) return NULL;
    const char *found = NULL;
    for (a = all; a && !found; a = a->ifa_next) {
        if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET) continue;
        struct in_addr in = ((struct sockaddr_in *)a->ifa_addr)->sin_addr;
        if ((ntohl(in.s_addr) >> 24) == 127) continue;
        found = inet_ntop(AF_INET, &in, buf, sizeof buf);
    }
    freeifaddrs(all);
    return found;
}
