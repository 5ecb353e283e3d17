// C shims for restored. Every exported symbol is prefixed `c_restored_`.
#ifndef C_RESTORED_SUPPORT_H
#define C_RESTORED_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Computes CRC-32C (Castagnoli, reflected polynomial 0x82F63B78) of `length`
/// bytes at `data`, continuing from `crc`.
///
/// Pass 0 to start a new checksum and the previous result to continue one, so
/// `crc32c(crc32c(0, a, n), b, m)` equals the checksum of `a` followed by `b`.
/// The initial value and final XOR (0xFFFFFFFF) are applied internally.
/// Uses the SSE4.2 `crc32` instruction when the CPU has it, a table-driven
/// slicing-by-8 implementation otherwise. Thread-safe.
uint32_t c_restored_crc32c(uint32_t crc, const void *data, size_t length);

/// Same result as `c_restored_crc32c`, always computed by the portable
/// slicing-by-8 tables (never the SSE4.2 instruction). For tests and benchmarks.
uint32_t c_restored_crc32c_portable(uint32_t crc, const void *data, size_t length);

/// Names the calling thread (`prctl(PR_SET_NAME)`, at most 15 bytes kept),
/// as `ps -T` and `/proc/PID/task/TID/comm` show it. Returns 0 or an errno.
int c_restored_name_current_thread(const char *name);

/// Returns the free pages of every heap arena to the system
/// (`malloc_trim(0)`); 1 when some memory was released, 0 otherwise.
int c_restored_trim_heap(void);

#ifdef __cplusplus
}
#endif

#endif // C_RESTORED_SUPPORT_H
