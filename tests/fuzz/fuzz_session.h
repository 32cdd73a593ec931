/*
 * fuzz_session.h - the worker's request path driven in-process from bytes.
 *
 * Input format: byte 0 is a mode byte; bit 0 set means "the harness sends a
 * valid HELLO first", so mutations spend their time in the request loop
 * instead of dying at the handshake. The remaining bytes are the client's
 * byte stream, sent to a real session (session_main on one end of a
 * socketpair, CPU backend, 2 devices, 1 MiB memory limit) frame by frame.
 *
 * Pointers: a u64 in the first 64 bytes of a payload whose top 24 bits are
 * FUZZ_PTR_TAG names "allocation k plus offset": bits 32..34 pick k (the
 * k-th successful MALLOC the input made), bits 0..31 the offset. The harness
 * rewrites it to the real device address, so inputs reach the copy paths
 * with live pointers although the addresses differ from run to run.
 */
#ifndef HIPWIRE_FUZZ_SESSION_H
#define HIPWIRE_FUZZ_SESSION_H

#include <stddef.h>
#include <stdint.h>

#define FUZZ_MODE_AUTO_HELLO 0x1u
#define FUZZ_PTR_TAG         UINT64_C(0xA110C0)
#define FUZZ_PTR(k, off)     ((FUZZ_PTR_TAG << 40) | ((uint64_t)(k) << 32) | (uint32_t)(off))
#define FUZZ_MAX_INPUT       (1u << 20)

/* Runs one input through the decoders and a real session. Returns 0; a
 * worker misbehaviour (malformed reply, hang) aborts. */
int fuzz_session_run(const uint8_t *data, size_t size);

/* The seed corpus: valid frame sequences covering every opcode. */
size_t fuzz_seed_count(void);
/* Writes seed i into out (cap bytes); returns its length, 0 if it does not fit. */
size_t fuzz_seed_build(size_t i, uint8_t *out, size_t cap);

#endif
