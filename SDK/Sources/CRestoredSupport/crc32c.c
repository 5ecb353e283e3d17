// CRC-32C (Castagnoli) with a hardware path (SSE4.2) and a portable
// slicing-by-8 fallback. The choice and the tables are set up once, on first
// use, under pthread_once.
#include "c_restored_support.h"

#include <pthread.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <nmmintrin.h>
#endif

#define C_RESTORED_CRC32C_POLY 0x82F63B78u

static uint32_t crc32c_table[8][256];
static int crc32c_use_hardware;
static pthread_once_t crc32c_once = PTHREAD_ONCE_INIT;

static void crc32c_initialize(void) {
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t crc = n;
        for (int k = 0; k < 8; k++) {
            crc = (crc & 1) ? (crc >> 1) ^ C_RESTORED_CRC32C_POLY : crc >> 1;
        }
        crc32c_table[0][n] = crc;
    }
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t crc = crc32c_table[0][n];
        for (int k = 1; k < 8; k++) {
            crc = crc32c_table[0][crc & 0xFF] ^ (crc >> 8);
            crc32c_table[k][n] = crc;
        }
    }
#if defined(__x86_64__)
    unsigned int eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid(1, &eax, &ebx, &ecx, &edx)) {
        crc32c_use_hardware = (ecx & bit_SSE4_2) != 0;
    }
#endif
}

static uint32_t crc32c_software(uint32_t crc, const unsigned char *p, size_t length) {
    while (length > 0 && ((uintptr_t)p & 7) != 0) {
        crc = crc32c_table[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8);
        length--;
    }
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        word = __builtin_bswap64(word);
#endif
        word ^= crc;
        crc = crc32c_table[7][word & 0xFF] ^
              crc32c_table[6][(word >> 8) & 0xFF] ^
              crc32c_table[5][(word >> 16) & 0xFF] ^
              crc32c_table[4][(word >> 24) & 0xFF] ^
              crc32c_table[3][(word >> 32) & 0xFF] ^
              crc32c_table[2][(word >> 40) & 0xFF] ^
              crc32c_table[1][(word >> 48) & 0xFF] ^
              crc32c_table[0][word >> 56];
        p += 8;
        length -= 8;
    }
    while (length > 0) {
        crc = crc32c_table[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8);
        length--;
    }
    return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2")))
static uint32_t crc32c_hardware(uint32_t crc, const unsigned char *p, size_t length) {
    while (length > 0 && ((uintptr_t)p & 7) != 0) {
        crc = _mm_crc32_u8(crc, *p++);
        length--;
    }
    uint64_t crc64 = crc;
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        crc64 = _mm_crc32_u64(crc64, word);
        p += 8;
        length -= 8;
    }
    crc = (uint32_t)crc64;
    while (length > 0) {
        crc = _mm_crc32_u8(crc, *p++);
        length--;
    }
    return crc;
}
#endif

uint32_t c_restored_crc32c(uint32_t crc, const void *data, size_t length) {
    pthread_once(&crc32c_once, crc32c_initialize);
    if (data == NULL || length == 0) {
        return crc;
    }
    const unsigned char *p = (const unsigned char *)data;
    uint32_t state = ~crc;
#if defined(__x86_64__)
    if (crc32c_use_hardware) {
        return ~crc32c_hardware(state, p, length);
    }
#endif
    return ~crc32c_software(state, p, length);
}

uint32_t c_restored_crc32c_portable(uint32_t crc, const void *data, size_t length) {
    pthread_once(&crc32c_once, crc32c_initialize);
    if (data == NULL || length == 0) {
        return crc;
    }
    return ~crc32c_software(~crc, (const unsigned char *)data, length);
}
