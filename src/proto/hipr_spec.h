/*
 * hipr_spec.h - the single source of truth for the HIPR wire protocol.
 *
 * Everything on the wire is described here once: the opcode numbers, which
 * message each opcode carries each way, whether it expects a reply, and the
 * cap on its trailing variable-length data. The codecs (hipr_codec.c), the
 * worker's dispatch table and the size checks are expanded from these lists;
 * docs/protocol.md is their prose form.
 *
 * Rules: opcode numbers are pinned and append-only. A retired opcode keeps its
 * number, marked RESERVED in docs/protocol.md. Fields are appended to a
 * message only together with a protocol version bump.
 */
#ifndef HIPR_SPEC_H
#define HIPR_SPEC_H

/*
 * Field types. Every integer is little-endian on the wire. c256 is a fixed
 * 256-byte NUL-padded string, b16 and b32 fixed 16- and 32-byte blobs, f32 an IEEE-754
 * single sent as its u32 bit pattern.
 */

/* ---- messages: HIPR_MSG_<name>(F) lists F(type, field) in wire order ---- */

#define HIPR_MSG_REPLY_HDR(F) \
    F(i32, status)            \
    F(i32, async_status)

#define HIPR_MSG_HELLO_REQ(F) \
    F(u32, proto_min)         \
    F(u32, proto_max)         \
    F(u32, client_pid)        \
    F(u32, flags)             \
    F(u64, resume_token)

#define HIPR_MSG_HELLO_REP(F) \
    F(u64, session_id)        \
    F(u32, proto_version)     \
    F(u32, device_count)      \
    F(i32, runtime_version)   \
    F(i32, driver_version)    \
    F(u64, mem_limit)         \
    F(u32, worker_pid)        \
    F(u32, devinfo_size)      \
    F(c256, backend)

/* One device, as cached by the client; repeated device_count times in the
 * HELLO reply's tail. Maps onto hipDeviceProp_t and hipDeviceGetAttribute. */
#define HIPR_MSG_DEVINFO(F)                \
    F(c256, name)                          \
    F(c256, arch_name)                     \
    F(b16, uuid)                           \
    F(u64, total_global_mem)               \
    F(u64, shared_mem_per_block)           \
    F(u64, shared_mem_per_block_optin)     \
    F(u64, shared_mem_per_multiprocessor)  \
    F(u64, total_const_mem)                \
    F(u64, mem_pitch)                      \
    F(u64, texture_alignment)              \
    F(i32, regs_per_block)                 \
    F(i32, regs_per_multiprocessor)        \
    F(i32, warp_size)                      \
    F(i32, max_threads_per_block)          \
    F(i32, max_threads_dim_x)              \
    F(i32, max_threads_dim_y)              \
    F(i32, max_threads_dim_z)              \
    F(i32, max_grid_size_x)                \
    F(i32, max_grid_size_y)                \
    F(i32, max_grid_size_z)                \
    F(i32, clock_rate_khz)                 \
    F(i32, memory_clock_rate_khz)          \
    F(i32, memory_bus_width)               \
    F(i32, major)                          \
    F(i32, minor)                          \
    F(i32, multiprocessor_count)           \
    F(i32, l2_cache_size)                  \
    F(i32, max_threads_per_multiprocessor) \
    F(i32, compute_mode)                   \
    F(i32, concurrent_kernels)             \
    F(i32, pci_domain_id)                  \
    F(i32, pci_bus_id)                     \
    F(i32, pci_device_id)                  \
    F(i32, integrated)                     \
    F(i32, can_map_host_memory)            \
    F(i32, ecc_enabled)                    \
    F(i32, async_engine_count)             \
    F(i32, unified_addressing)             \
    F(i32, managed_memory)                 \
    F(i32, cooperative_launch)             \
    F(i32, is_multi_gpu_board)             \
    F(i32, stream_priority_low)            \
    F(i32, stream_priority_high)           \
    F(i32, gcn_arch)                       \
    F(u32, flags)

/* DEVICE_ATTRIBUTES' reply: what DEVINFO does not carry of one device, for
 * hipDeviceGetAttribute and hipDeviceProp_t (fetched by the client on first
 * use). Texture and surface limits in elements; 0 where the device has no
 * such limit or the backend cannot tell. arch: HIPR_ARCH_* bits, what the
 * device's kernels can do (hipDeviceArch_t). flags: none defined, 0. */
#define HIPR_MSG_DEVATTR(F)                       \
    F(i32, max_texture_1d)                        \
    F(i32, max_texture_1d_linear)                 \
    F(i32, max_texture_1d_mipmap)                 \
    F(i32, max_texture_1d_layered)                \
    F(i32, max_texture_2d_width)                  \
    F(i32, max_texture_2d_height)                 \
    F(i32, max_texture_2d_gather)                 \
    F(i32, max_texture_2d_layered)                \
    F(i32, max_texture_2d_linear)                 \
    F(i32, max_texture_2d_mipmap)                 \
    F(i32, max_texture_3d_width)                  \
    F(i32, max_texture_3d_height)                 \
    F(i32, max_texture_3d_depth)                  \
    F(i32, max_texture_3d_alt)                    \
    F(i32, max_texture_cubemap)                   \
    F(i32, max_texture_cubemap_layered)           \
    F(i32, max_surface_1d)                        \
    F(i32, max_surface_1d_layered)                \
    F(i32, max_surface_2d)                        \
    F(i32, max_surface_2d_layered)                \
    F(i32, max_surface_3d)                        \
    F(i32, max_surface_cubemap)                   \
    F(i32, max_surface_cubemap_layered)           \
    F(i32, surface_alignment)                     \
    F(i32, texture_pitch_alignment)               \
    F(i32, access_policy_max_window_size)         \
    F(i32, compute_preemption_supported)          \
    F(i32, global_l1_cache_supported)             \
    F(i32, local_l1_cache_supported)              \
    F(i32, kernel_exec_timeout)                   \
    F(i32, max_blocks_per_multiprocessor)         \
    F(i32, multi_gpu_board_group_id)              \
    F(i32, persisting_l2_cache_max_size)          \
    F(i32, reserved_shared_mem_per_block)         \
    F(i32, single_to_double_precision_perf_ratio) \
    F(i32, tcc_driver)                            \
    F(i32, asic_revision)                         \
    F(u32, arch)                                  \
    F(u32, flags)

#define HIPR_MSG_PING(F) F(u64, nonce)

/* Authentication (docs/protocol.md): session is 0 for a new session, else
 * the one the client will resume; it is covered by both proofs.
 * flags: HIPR_AUTH_BIND_CERT or 0. heartbeat_ms: the interval the client
 * proposes (0: no heartbeats). */
#define HIPR_MSG_AUTH_BEGIN_REQ(F) \
    F(b32, client_nonce)           \
    F(u64, session)                \
    F(u32, flags)                  \
    F(u32, heartbeat_ms)

/* requires: HIPR_AUTH_REQUIRES_*; link: HIPR_AUTH_LINK_* (what the worker
 * sees); heartbeat_ms: the interval both sides will use (0: none). */
#define HIPR_MSG_AUTH_BEGIN_REP(F) \
    F(b32, worker_nonce)           \
    F(u32, requires)               \
    F(u32, link)                   \
    F(u32, heartbeat_ms)           \
    F(u32, reserved)

/* Sent by either side after heartbeat_ms without sending anything: from the
 * client a NO_REPLY request, from the worker an unsolicited RESPONSE frame
 * with request_id 0. seq: requests sent (client) or executed (worker). */
#define HIPR_MSG_HEARTBEAT(F) \
    F(u64, seq)               \
    F(u32, interval_ms)       \
    F(u32, reserved)

/* Admission (docs/protocol.md, "Admission"): an unsolicited worker frame
 * (RESPONSE, request_id 0) between a HELLO carrying HIPR_HELLO_WAIT_OK and
 * its reply. state: HIPR_WAIT_QUEUED (position: the place in the
 * admission queue, 1 = next), HIPR_WAIT_STARTING (the device is starting) or
 * HIPR_WAIT_BUSY (the queue is full; the HELLO reply that follows refuses
 * the session: try again after retry_after_ms). interval_ms: the most the
 * worker lets pass between two of these frames while the client waits. */
#define HIPR_MSG_SESSION_WAIT(F) \
    F(u32, state)                \
    F(u32, position)             \
    F(u32, retry_after_ms)       \
    F(u32, interval_ms)

/* Session resume (docs/protocol.md, "Session resume"). RESUME_ENABLE, on the
 * connection that said HELLO (with a non-zero resume_token), turns resume on
 * for the session; grace_ms: how long the worker keeps it after a cut. */
#define HIPR_MSG_RESUME_ENABLE_REP(F) \
    F(u32, grace_ms)                  \
    F(u32, reserved)

/* Acknowledgement, not a request of the session. Client to worker (NO_REPLY,
 * request_id 0): count = replies the client has read; flags
 * HIPR_ACK_REQUEST asks for an ACK back. Worker to client (an unsolicited
 * RESPONSE frame, request_id 0): count = requests the worker has executed. */
#define HIPR_MSG_ACK(F) \
    F(u64, count)       \
    F(u32, flags)       \
    F(u32, reserved)

/* Worker to client, an unsolicited RESPONSE frame (request_id 0): the
 * session ends for a reason of the worker's (reason: HIPR_GOING_AWAY_*), so
 * the client must not wait to resume it. */
#define HIPR_MSG_GOING_AWAY(F) \
    F(u32, reason)             \
    F(u32, reserved)

/* The first frame of a resuming connection, in plain text before TLS: which
 * session process the connection is handed to. */
#define HIPR_MSG_SESSION_ROUTE(F) F(u64, session_id)

/* After AUTH_BEGIN on a routed connection (AUTH_BEGIN.session =
 * session_id): the counts say what each side has; proof is an HMAC keyed by
 * HELLO's resume_token over that connection's nonces (hw_auth.h), the
 * client's in the request and the worker's in the reply, so the token never
 * crosses the wire and a peer that is not the session cannot answer. */
#define HIPR_MSG_SESSION_RESUME_REQ(F) \
    F(u64, session_id)                 \
    F(u64, replies_received)           \
    F(u64, requests_sent)              \
    F(b32, proof)

#define HIPR_MSG_SESSION_RESUME_REP(F) \
    F(u64, requests_done)              \
    F(u64, replies_sent)               \
    F(u32, grace_ms)                   \
    F(u32, reserved)                   \
    F(b32, proof)

/* HMAC-SHA256 proof: the client's in the request, the worker's in the reply. */
#define HIPR_MSG_AUTH_PROOF(F) F(b32, proof)

#define HIPR_MSG_DEVICE(F) F(i32, device)

#define HIPR_MSG_MEM_INFO_REP(F) \
    F(u64, free)                 \
    F(u64, total)

#define HIPR_MSG_MALLOC_REQ(F) \
    F(i32, device)             \
    F(u32, flags)              \
    F(u64, size)

#define HIPR_MSG_PTR(F) F(u64, ptr)

#define HIPR_MSG_MEMCPY_H2D(F) \
    F(u64, dst)                \
    F(u64, stream)

#define HIPR_MSG_MEMCPY_D2H(F) \
    F(u64, src)                \
    F(u64, size)               \
    F(u64, stream)

#define HIPR_MSG_MEMCPY_D2D(F) \
    F(u64, dst)                \
    F(u64, src)                \
    F(u64, size)               \
    F(u64, stream)

#define HIPR_MSG_MEMCPY2D_H2D(F) \
    F(u64, dst)                  \
    F(u64, dpitch)               \
    F(u64, width)                \
    F(u64, height)               \
    F(u64, stream)

#define HIPR_MSG_MEMCPY2D_D2H(F) \
    F(u64, src)                  \
    F(u64, spitch)               \
    F(u64, width)                \
    F(u64, height)               \
    F(u64, stream)

#define HIPR_MSG_MEMCPY2D_D2D(F) \
    F(u64, dst)                  \
    F(u64, dpitch)               \
    F(u64, src)                  \
    F(u64, spitch)               \
    F(u64, width)                \
    F(u64, height)               \
    F(u64, stream)

#define HIPR_MSG_MEMSET(F) \
    F(u64, dst)            \
    F(u64, count)          \
    F(u64, stream)         \
    F(u32, value)          \
    F(u32, elem_size)

#define HIPR_MSG_STREAM_CREATE(F) \
    F(u64, stream)                \
    F(i32, device)                \
    F(u32, flags)                 \
    F(i32, priority)

#define HIPR_MSG_STREAM(F) F(u64, stream)

#define HIPR_MSG_STREAM_WAIT_EVENT(F) \
    F(u64, stream)                    \
    F(u64, event)                     \
    F(u32, flags)

/* STREAM_WRITE_VALUE and STREAM_WAIT_VALUE: a 4- or 8-byte word (width) of
 * device memory at ptr, in stream order. A write stores value; a wait holds
 * the stream until the word satisfies flags (HIPR_WAIT_VALUE_*) against
 * value under mask. mask is 0 in a write. */
#define HIPR_MSG_STREAM_VALUE(F) \
    F(u64, stream)               \
    F(u64, ptr)                  \
    F(u64, value)                \
    F(u64, mask)                 \
    F(u32, width)                \
    F(u32, flags)
#define HIPR_MSG_EVENT_CREATE(F) \
    F(u64, event)                \
    F(i32, device)               \
    F(u32, flags)

#define HIPR_MSG_EVENT(F) F(u64, event)

#define HIPR_MSG_EVENT_RECORD(F) \
    F(u64, event)                \
    F(u64, stream)

#define HIPR_MSG_EVENT_ELAPSED_REQ(F) \
    F(u64, start)                     \
    F(u64, stop)

#define HIPR_MSG_EVENT_ELAPSED_REP(F) F(f32, ms)

#define HIPR_MSG_MODULE_LOAD_REQ(F) \
    F(i32, device)                  \
    F(u32, flags)

#define HIPR_MSG_MODULE(F) F(u64, module)

/* MODULE_LOAD_EX's reply: flags are HIPR_MODULE_* (hipr.h). */
#define HIPR_MSG_MODULE_LOAD_REP(F) \
    F(u64, module)                  \
    F(u32, flags)

/* The tail of the reply is param_count (u32 offset, u32 size) pairs. */
#define HIPR_MSG_FUNCTION_REP(F)  \
    F(u64, function)              \
    F(u32, param_count)           \
    F(u32, args_size)             \
    F(i32, max_threads_per_block) \
    F(i32, num_regs)              \
    F(i32, shared_size_bytes)     \
    F(i32, const_size_bytes)      \
    F(i32, local_size_bytes)      \
    F(i32, max_dynamic_shared)    \
    F(i32, ptx_version)           \
    F(i32, binary_version)

#define HIPR_MSG_GLOBAL_REP(F) \
    F(u64, ptr)                \
    F(u64, size)

/* The tail is the kernel's argument buffer, laid out as the function's
 * parameter table says. Grid is in blocks. */
#define HIPR_MSG_LAUNCH(F) \
    F(u64, function)       \
    F(u64, stream)         \
    F(u64, start_event)    \
    F(u64, stop_event)     \
    F(u32, grid_x)         \
    F(u32, grid_y)         \
    F(u32, grid_z)         \
    F(u32, block_x)        \
    F(u32, block_y)        \
    F(u32, block_z)        \
    F(u32, shared_mem)     \
    F(u32, flags)

#define HIPR_MSG_SESSION_STATS_REP(F) \
    F(u64, bytes_in_use)              \
    F(u32, allocations)               \
    F(u32, streams)                   \
    F(u32, events)                    \
    F(u32, modules)

/* The tail is `sessions` HIPR_MSG_SESSION_ENTRY records. */
#define HIPR_MSG_WORKER_STATUS_REP(F) \
    F(u32, sessions)                  \
    F(u32, max_sessions)              \
    F(u64, bytes_in_use)              \
    F(u64, mem_limit)                 \
    F(u64, sessions_served)           \
    F(c256, backend)

/* state: HIPR_SESSION_ATTACHED, or HIPR_SESSION_DETACHED (its connection
 * broke; kept for --resume-grace for its client to resume). client_addr:
 * the client's IPv6 address (IPv4 as ::ffff:a.b.c.d), all zero if unknown. */
#define HIPR_MSG_SESSION_ENTRY(F) \
    F(u64, session_id)            \
    F(u32, pid)                   \
    F(u32, state)                 \
    F(u64, bytes_in_use)          \
    F(b16, client_addr)           \
    F(u32, client_port)           \
    F(u32, reserved)
#define HIPR_SESSION_ATTACHED 0u
#define HIPR_SESSION_DETACHED 1u
/* WORKER_INFO flags: a drain was asked; the worker admits no new session.
 * SHARED: its sessions share one device process and its device contexts
 * (hip-worker --isolation shared); clear: a process per session (older
 * workers, which send 0, are all that). */
#define HIPR_WORKER_DRAINING 1u
#define HIPR_WORKER_SHARED   2u

/* What a worker is, for `hipwire status`; answered in place of HELLO, like
 * WORKER_STATUS. The tail is device_count HIPR_MSG_DEVINFO records of
 * devinfo_size bytes each, as the worker's start-up probe found the devices.
 * flags (once reserved, so older workers send 0): HIPR_WORKER_DRAINING,
 * HIPR_WORKER_SHARED. */
#define HIPR_MSG_WORKER_INFO_REP(F) \
    F(c256, version)                \
    F(u32, proto_version)           \
    F(u32, device_count)            \
    F(u32, devinfo_size)            \
    F(u32, flags)                   \
    F(u64, uptime_ms)               \
    F(c256, backend)

/* `hipwire drain`; answered in place of HELLO, like WORKER_STATUS. The
 * worker admits no new session from then on (a HELLO is refused), lets the
 * live ones run to their end and exits when none is left; after timeout_s
 * (0: no limit) it ends those still running with GOING_AWAY reason DRAIN.
 * The reply: sessions live when it was asked, and the timeout in force (a
 * second drain changes nothing but reports the first one's). */
#define HIPR_MSG_WORKER_DRAIN(F) \
    F(u32, timeout_s)            \
    F(u32, sessions)

/* Same-host shared-memory transport (docs/protocol.md, "Shared-memory
 * transport"), asked right after HELLO, before RESUME_ENABLE. op: a
 * HIPR_SHM_* step. OFFER: boot_id is the client's host's, ring_size the ring
 * it would like (0: the worker's choice); the reply names the hand-over
 * socket (path), the nonce to present on it, the ring size and the worker's
 * boot_id. HANDOVER: the client has connected and sent the nonce; the worker
 * sends the region on the socket. COMMIT: the client has mapped it; both
 * sides use the rings once the reply is read. DECLINE: the client gives the
 * offer up. Refused (ENOTSUP) when the worker has it off or the hosts
 * differ. */
#define HIPR_MSG_TRANSPORT_SHM_REQ(F) \
    F(u32, op)                        \
    F(u32, reserved)                  \
    F(u64, ring_size)                 \
    F(b16, boot_id)

#define HIPR_MSG_TRANSPORT_SHM_REP(F) \
    F(u32, op)                        \
    F(u32, reserved)                  \
    F(u64, ring_size)                 \
    F(b16, boot_id)                   \
    F(b32, nonce)                     \
    F(c256, path)

/* Planned migration (docs/protocol.md, "Migration"). MIGRATE_STATE: one
 * piece of a session's state, sent by the source worker's session process on
 * a session it opened on the target with HELLO flag HIPR_HELLO_MIGRATE_IN;
 * kind is a HIPR_MIGRATE_* (hipr.h) and says which fields count. The reply's
 * session_id is the target session's (COMMIT: the session the client is
 * to resume). */
#define HIPR_MSG_MIGRATE_STATE_REQ(F) \
    F(u32, kind)                      \
    F(i32, device)                    \
    F(u64, handle)                    \
    F(u64, base)                      \
    F(u64, size)                      \
    F(u64, a)                         \
    F(u64, b)                         \
    F(u32, flags)                     \
    F(i32, priority)

#define HIPR_MSG_MIGRATE_STATE_REP(F) \
    F(u64, session_id)                \
    F(u64, value)

/* Worker to client, an unsolicited RESPONSE frame (request_id 0), the last
 * frame of the connection: the session now lives at host:port as
 * session_id; the client resumes it there (its resume token unchanged). */
#define HIPR_MSG_MIGRATE(F) \
    F(u64, session_id)      \
    F(u32, port)            \
    F(u32, reserved)        \
    F(c256, host)

/* `hipwire drain --to`; answered in place of HELLO, like WORKER_DRAIN: every
 * live session is moved to host:port, the host being the request's tail (at
 * most 255 bytes, no NUL). flags: none defined, 0. sessions: how many were
 * told to move. */
#define HIPR_MSG_WORKER_MIGRATE_REQ(F) \
    F(u32, port)                       \
    F(u32, flags)

#define HIPR_MSG_WORKER_MIGRATE_REP(F) \
    F(u32, sessions)                   \
    F(u32, reserved)
/* Zero-copy host memory on a shared-memory session (docs/protocol.md,
 * "Shared host memory"). HOST_REGION op ALLOC: the worker creates a sealed
 * memfd of `size` bytes (rounded up to a page), maps it, sends it on the
 * session's hand-over socket (the 8-byte id as the message) and replies with
 * its id and size; FREE: the worker drains the session's streams, unmaps
 * region `id` and forgets it. Refused (ENOTSUP) unless the session runs on
 * the shared-memory transport. */
#define HIPR_MSG_HOST_REGION_REQ(F) \
    F(u32, op)                      \
    F(u32, reserved)                \
    F(u64, id)                      \
    F(u64, size)

#define HIPR_MSG_HOST_REGION_REP(F) \
    F(u64, id)                      \
    F(u64, size)

/* A copy between bytes [offset, offset + size) of host region `region` and
 * device memory at dev, in stream order (H2D: no reply; D2H: the reply, with
 * no data, says the bytes are in the region). */
#define HIPR_MSG_MEMCPY_REGION(F) \
    F(u64, region)                \
    F(u64, offset)                \
    F(u64, dev)                   \
    F(u64, size)                  \
    F(u64, stream)

/* ---- runtime compilation (hiprtc; docs/hiprtc.md) ---- */

/* The worker's compiled-kernel cache (docs/hiprtc.md, "Cache"), for
 * `hipwire status`; answered in place of HELLO, like WORKER_STATUS.
 * enabled 0: the worker keeps none (the counts are 0). Counts are since the
 * worker started; entries and bytes are what the directory holds. */
#define HIPR_MSG_RTC_CACHE_STATS_REP(F) \
    F(u32, enabled)                     \
    F(u32, reserved)                    \
    F(u64, hits)                        \
    F(u64, misses)                      \
    F(u64, stores)                      \
    F(u64, evictions)                   \
    F(u64, damaged)                     \
    F(u64, entries)                     \
    F(u64, bytes)                       \
    F(u64, max_bytes)

/* The tail is NUL-terminated strings, in this order: the program name, the
 * source, header_count (include name, header text) pairs, option_count
 * options, name_count name expressions. flags: none defined, must be 0. */
#define HIPR_MSG_RTC_COMPILE_REQ(F) \
    F(i32, device)                  \
    F(u32, flags)                   \
    F(u32, header_count)            \
    F(u32, option_count)            \
    F(u32, name_count)

/* result is a hiprtcResult. The tail is code_size bytes of code object,
 * log_size bytes of log (no NUL), then name_count NUL-terminated lowered
 * names in the request's order, each empty when not found. */
#define HIPR_MSG_RTC_COMPILE_REP(F) \
    F(i32, result)                  \
    F(u32, name_count)              \
    F(u64, code_size)               \
    F(u64, log_size)

/* Every message type, as M(c_name, FIELDS). */
#define HIPR_MESSAGES(M)                                 \
    M(reply_hdr, HIPR_MSG_REPLY_HDR)                     \
    M(hello_req, HIPR_MSG_HELLO_REQ)                     \
    M(hello_rep, HIPR_MSG_HELLO_REP)                     \
    M(devinfo, HIPR_MSG_DEVINFO)                         \
    M(devattr, HIPR_MSG_DEVATTR)                         \
    M(ping, HIPR_MSG_PING)                               \
    M(auth_begin_req, HIPR_MSG_AUTH_BEGIN_REQ)           \
    M(auth_begin_rep, HIPR_MSG_AUTH_BEGIN_REP)           \
    M(auth_proof, HIPR_MSG_AUTH_PROOF)                   \
    M(heartbeat, HIPR_MSG_HEARTBEAT)                     \
    M(device, HIPR_MSG_DEVICE)                           \
    M(mem_info_rep, HIPR_MSG_MEM_INFO_REP)               \
    M(malloc_req, HIPR_MSG_MALLOC_REQ)                   \
    M(ptr, HIPR_MSG_PTR)                                 \
    M(memcpy_h2d, HIPR_MSG_MEMCPY_H2D)                   \
    M(memcpy_d2h, HIPR_MSG_MEMCPY_D2H)                   \
    M(memcpy_d2d, HIPR_MSG_MEMCPY_D2D)                   \
    M(memcpy2d_h2d, HIPR_MSG_MEMCPY2D_H2D)               \
    M(memcpy2d_d2h, HIPR_MSG_MEMCPY2D_D2H)               \
    M(memcpy2d_d2d, HIPR_MSG_MEMCPY2D_D2D)               \
    M(memset, HIPR_MSG_MEMSET)                           \
    M(stream_create, HIPR_MSG_STREAM_CREATE)             \
    M(stream, HIPR_MSG_STREAM)                           \
    M(stream_wait_event, HIPR_MSG_STREAM_WAIT_EVENT)     \
    M(stream_value, HIPR_MSG_STREAM_VALUE)               \
    M(event_create, HIPR_MSG_EVENT_CREATE)               \
    M(event, HIPR_MSG_EVENT)                             \
    M(event_record, HIPR_MSG_EVENT_RECORD)               \
    M(event_elapsed_req, HIPR_MSG_EVENT_ELAPSED_REQ)     \
    M(event_elapsed_rep, HIPR_MSG_EVENT_ELAPSED_REP)     \
    M(module_load_req, HIPR_MSG_MODULE_LOAD_REQ)         \
    M(module, HIPR_MSG_MODULE)                           \
    M(module_load_rep, HIPR_MSG_MODULE_LOAD_REP)         \
    M(function_rep, HIPR_MSG_FUNCTION_REP)               \
    M(global_rep, HIPR_MSG_GLOBAL_REP)                   \
    M(launch, HIPR_MSG_LAUNCH)                           \
    M(session_stats_rep, HIPR_MSG_SESSION_STATS_REP)     \
    M(worker_status_rep, HIPR_MSG_WORKER_STATUS_REP)     \
    M(session_entry, HIPR_MSG_SESSION_ENTRY)             \
    M(worker_info_rep, HIPR_MSG_WORKER_INFO_REP)         \
    M(rtc_compile_req, HIPR_MSG_RTC_COMPILE_REQ)         \
    M(rtc_compile_rep, HIPR_MSG_RTC_COMPILE_REP)         \
    M(rtc_cache_stats_rep, HIPR_MSG_RTC_CACHE_STATS_REP) \
    M(resume_enable_rep, HIPR_MSG_RESUME_ENABLE_REP)     \
    M(ack, HIPR_MSG_ACK)                                 \
    M(session_route, HIPR_MSG_SESSION_ROUTE)             \
    M(going_away, HIPR_MSG_GOING_AWAY)                   \
    M(session_resume_req, HIPR_MSG_SESSION_RESUME_REQ)   \
    M(session_resume_rep, HIPR_MSG_SESSION_RESUME_REP)   \
    M(session_wait, HIPR_MSG_SESSION_WAIT)               \
    M(worker_drain, HIPR_MSG_WORKER_DRAIN)               \
    M(transport_shm_req, HIPR_MSG_TRANSPORT_SHM_REQ)     \
    M(transport_shm_rep, HIPR_MSG_TRANSPORT_SHM_REP)     \
    M(migrate_state_req, HIPR_MSG_MIGRATE_STATE_REQ)     \
    M(migrate_state_rep, HIPR_MSG_MIGRATE_STATE_REP)     \
    M(migrate, HIPR_MSG_MIGRATE)                         \
    M(worker_migrate_req, HIPR_MSG_WORKER_MIGRATE_REQ)   \
    M(worker_migrate_rep, HIPR_MSG_WORKER_MIGRATE_REP)   \
    M(host_region_req, HIPR_MSG_HOST_REGION_REQ)         \
    M(host_region_rep, HIPR_MSG_HOST_REGION_REP)         \
    M(memcpy_region, HIPR_MSG_MEMCPY_REGION)

/* Caps on trailing data, in bytes. */
#define HIPR_KiB             (UINT64_C(1) << 10)
#define HIPR_MiB             (UINT64_C(1) << 20)
#define HIPR_CAP_NAME        (4 * HIPR_KiB)   /* symbol names */
#define HIPR_CAP_COPY_CHUNK  (64 * HIPR_MiB)  /* one H2D/D2H message */
#define HIPR_CAP_MODULE      (256 * HIPR_MiB) /* one code object image */
#define HIPR_CAP_KERNEL_ARGS (64 * HIPR_KiB)  /* one launch's arguments */
#define HIPR_CAP_DEVICES     64               /* devices in a HELLO reply */
#define HIPR_CAP_PARAMS      4096             /* parameters of a kernel */
#define HIPR_CAP_SESSIONS    1024             /* entries in a status reply */
#define HIPR_CAP_RTC_INPUT   (16 * HIPR_MiB)  /* source, headers, options, names */
#define HIPR_CAP_RTC_CODE    (64 * HIPR_MiB)  /* one compiled code object */
#define HIPR_CAP_RTC_LOG     (1 * HIPR_MiB)   /* one compile log */
/* one MIGRATE_STATE piece: a module image, or a kept reply (head and tail) */
#define HIPR_CAP_MIGRATE     (HIPR_CAP_MODULE + 64 * HIPR_KiB)
#define HIPR_CAP_RTC_HEADERS 256  /* headers of one program */
#define HIPR_CAP_RTC_OPTIONS 256  /* options of one compile */
#define HIPR_CAP_RTC_NAMES   1024 /* name expressions of one program */
#define HIPR_CAP_RTC_REPLY \
    (HIPR_CAP_RTC_CODE + HIPR_CAP_RTC_LOG + HIPR_CAP_RTC_NAMES * HIPR_CAP_NAME)

/* clang-format off: the opcode table is read as a table */
/*
 * Every opcode: X(NAME, number, request message, reply message,
 *                 request tail cap, reply tail cap, kind).
 * kind: SYNC - the client waits for a reply;
 *       ASYNC - sent with NO_REPLY, failures surface later as async_status.
 *
 * Retired: 0x000D, the first SESSION_RESUME, which sent the resume token in
 * clear text to whichever process answered the routed connection.
 */
#define HIPR_OPS(X)                                                                                \
    X(HELLO, 0x0001, hello_req, hello_rep, 256, HIPR_CAP_DEVICES * 1024, SYNC)                     \
    X(GOODBYE, 0x0002, empty, empty, 0, 0, SYNC)                                                   \
    X(PING, 0x0003, ping, ping, 0, 0, SYNC)                                                        \
    X(SESSION_STATS, 0x0004, empty, session_stats_rep, 0, 0, SYNC)                                 \
    X(WORKER_STATUS, 0x0005, empty, worker_status_rep, 0, HIPR_CAP_SESSIONS * 48, SYNC)            \
    X(AUTH_BEGIN, 0x0006, auth_begin_req, auth_begin_rep, 0, 0, SYNC)                              \
    X(AUTH_PROOF, 0x0007, auth_proof, auth_proof, 0, 0, SYNC)                                      \
    X(HEARTBEAT, 0x0008, heartbeat, heartbeat, 0, 0, ASYNC)                                        \
    X(RESUME_ENABLE, 0x0009, empty, resume_enable_rep, 0, 0, SYNC)                                 \
    X(ACK, 0x000A, ack, ack, 0, 0, ASYNC)                                                          \
    X(SESSION_ROUTE, 0x000B, session_route, empty, 0, 0, SYNC)                                     \
    X(WORKER_INFO, 0x000C, empty, worker_info_rep, 0, HIPR_CAP_DEVICES * 1024, SYNC)               \
    X(SESSION_RESUME, 0x000E, session_resume_req, session_resume_rep, 0, 0, SYNC)                  \
    X(GOING_AWAY, 0x000F, going_away, going_away, 0, 0, ASYNC)                                     \
    X(RTC_CACHE_STATS, 0x0010, empty, rtc_cache_stats_rep, 0, 0, SYNC)                             \
    X(SESSION_WAIT, 0x0011, session_wait, session_wait, 0, 0, ASYNC)                               \
    X(WORKER_DRAIN, 0x0012, worker_drain, worker_drain, 0, 0, SYNC)                                \
    X(TRANSPORT_SHM, 0x0013, transport_shm_req, transport_shm_rep, 0, 0, SYNC)                     \
    X(MIGRATE_STATE, 0x0020, migrate_state_req, migrate_state_rep, HIPR_CAP_MIGRATE, 0, SYNC)      \
    X(MIGRATE, 0x0021, migrate, migrate, 0, 0, ASYNC)                                              \
    X(WORKER_MIGRATE, 0x0022, worker_migrate_req, worker_migrate_rep, 255, 0, SYNC)                \
    X(HOST_REGION, 0x0030, host_region_req, host_region_rep, 0, 0, SYNC)                           \
    X(MEMCPY_REGION_H2D, 0x0031, memcpy_region, empty, 0, 0, ASYNC)                                \
    X(MEMCPY_REGION_D2H, 0x0032, memcpy_region, empty, 0, 0, SYNC)                                 \
    X(DEVICE_SYNCHRONIZE, 0x0101, device, empty, 0, 0, SYNC)                                       \
    X(DEVICE_RESET, 0x0102, device, empty, 0, 0, SYNC)                                             \
    X(MEM_GET_INFO, 0x0103, device, mem_info_rep, 0, 0, SYNC)                                      \
    X(DEVICE_ATTRIBUTES, 0x0104, device, devattr, 0, 0, SYNC)                                      \
    X(MALLOC, 0x0201, malloc_req, ptr, 0, 0, SYNC)                                                 \
    X(FREE, 0x0202, ptr, empty, 0, 0, ASYNC)                                                       \
    X(MEMCPY_H2D, 0x0210, memcpy_h2d, empty, HIPR_CAP_COPY_CHUNK, 0, ASYNC)                        \
    X(MEMCPY_D2H, 0x0211, memcpy_d2h, empty, 0, HIPR_CAP_COPY_CHUNK, SYNC)                         \
    X(MEMCPY_D2D, 0x0212, memcpy_d2d, empty, 0, 0, ASYNC)                                          \
    X(MEMCPY2D_H2D, 0x0213, memcpy2d_h2d, empty, HIPR_CAP_COPY_CHUNK, 0, ASYNC)                    \
    X(MEMCPY2D_D2H, 0x0214, memcpy2d_d2h, empty, 0, HIPR_CAP_COPY_CHUNK, SYNC)                     \
    X(MEMCPY2D_D2D, 0x0215, memcpy2d_d2d, empty, 0, 0, ASYNC)                                      \
    X(MEMSET, 0x0220, memset, empty, 0, 0, ASYNC)                                                  \
    X(STREAM_CREATE, 0x0301, stream_create, empty, 0, 0, ASYNC)                                    \
    X(STREAM_DESTROY, 0x0302, stream, empty, 0, 0, ASYNC)                                          \
    X(STREAM_SYNCHRONIZE, 0x0303, stream, empty, 0, 0, SYNC)                                       \
    X(STREAM_QUERY, 0x0304, stream, empty, 0, 0, SYNC)                                             \
    X(STREAM_WAIT_EVENT, 0x0305, stream_wait_event, empty, 0, 0, ASYNC)                            \
    X(STREAM_WRITE_VALUE, 0x0306, stream_value, empty, 0, 0, ASYNC)                                \
    X(STREAM_WAIT_VALUE, 0x0307, stream_value, empty, 0, 0, ASYNC)                                 \
    X(EVENT_CREATE, 0x0401, event_create, empty, 0, 0, ASYNC)                                      \
    X(EVENT_RECORD, 0x0402, event_record, empty, 0, 0, ASYNC)                                      \
    X(EVENT_SYNCHRONIZE, 0x0403, event, empty, 0, 0, SYNC)                                         \
    X(EVENT_QUERY, 0x0404, event, empty, 0, 0, SYNC)                                               \
    X(EVENT_ELAPSED, 0x0405, event_elapsed_req, event_elapsed_rep, 0, 0, SYNC)                     \
    X(EVENT_DESTROY, 0x0406, event, empty, 0, 0, ASYNC)                                            \
    X(MODULE_LOAD, 0x0501, module_load_req, module, HIPR_CAP_MODULE, 0, SYNC)                      \
    X(MODULE_GET_FUNCTION, 0x0502, module, function_rep, HIPR_CAP_NAME, HIPR_CAP_PARAMS * 8, SYNC) \
    X(MODULE_GET_GLOBAL, 0x0503, module, global_rep, HIPR_CAP_NAME, 0, SYNC)                       \
    X(MODULE_UNLOAD, 0x0504, module, empty, 0, 0, ASYNC)                                           \
    X(MODULE_LOAD_EX, 0x0505, module_load_req, module_load_rep, HIPR_CAP_MODULE, 0, SYNC)          \
    X(LAUNCH, 0x0510, launch, empty, HIPR_CAP_KERNEL_ARGS, 0, ASYNC)                               \
    X(RTC_COMPILE, 0x0601, rtc_compile_req, rtc_compile_rep, HIPR_CAP_RTC_INPUT,                   \
      HIPR_CAP_RTC_REPLY, SYNC)

/*
 * What the worker does with each opcode: X(NAME, where, cpu, cuda, hip, note).
 * where: SESSION   - a request of an open session (after HELLO);
 *        HANDSHAKE - a connection's opening requests (before or instead of
 *                    HELLO, or a routed connection's); inside a session they
 *                    are answered hipErrorInvalidValue;
 *        WORKER    - only the worker sends it; from a client it is answered
 *                    hipErrorInvalidValue;
 *        LINK      - taken by the request loop itself, never answered.
 * cpu, cuda, hip: the state on each backend:
 *        IMPLEMENTED - does what docs/protocol.md says (individual inputs
 *                      the note names may still be refused);
 *        STUB        - answered without doing the work;
 *        UNSUPPORTED - answered hipErrorNotSupported.
 * docs/protocol.md ("Opcode states") shows this table and unit_protocol_doc
 * compares the two; op_states, relay_op_states and gpu_op_states send every
 * opcode to a real worker and check the state it says.
 */
#define HIPR_OP_STATES(X)                                                                      \
    X(HELLO, HANDSHAKE, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED,                                 \
      "inside a session: hipErrorInvalidValue, and the session ends")                          \
    X(GOODBYE, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED,                                 \
      "drains, answers, ends the session")                                                     \
    X(PING, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "")                                \
    X(SESSION_STATS, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "")                       \
    X(WORKER_STATUS, HANDSHAKE, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "in place of HELLO")    \
    X(AUTH_BEGIN, HANDSHAKE, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "before HELLO")            \
    X(AUTH_PROOF, HANDSHAKE, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "before HELLO")            \
    X(HEARTBEAT, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "its arrival is the point")   \
    X(RESUME_ENABLE, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED,                           \
      "hipErrorNotSupported when the worker runs with --resume-grace=0 or HELLO had no token") \
    X(ACK, LINK, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "")                                    \
    X(SESSION_ROUTE, HANDSHAKE, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED,                         \
      "first request of a resuming connection")                                                \
    X(WORKER_INFO, HANDSHAKE, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "in place of HELLO")      \
    X(SESSION_RESUME, HANDSHAKE, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "after SESSION_ROUTE") \
    X(GOING_AWAY, WORKER, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "")                           \
    X(RTC_CACHE_STATS, HANDSHAKE, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "in place of HELLO")  \
    X(SESSION_WAIT, WORKER, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "")                         \
    X(WORKER_DRAIN, HANDSHAKE, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "in place of HELLO")     \
    X(TRANSPORT_SHM, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED,                           \
      "right after HELLO; hipErrorNotSupported with --no-shm or from another host")            \
    X(MIGRATE_STATE, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED,                           \
      "only in a session opened with HELLO flag MIGRATE_IN, else hipErrorInvalidValue; cuda, " \
      "hip: an allocation at a given address is hipErrorNotSupported")                         \
    X(MIGRATE, WORKER, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "")                              \
    X(WORKER_MIGRATE, HANDSHAKE, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "in place of HELLO")   \
    X(HOST_REGION, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED,                             \
      "hipErrorNotSupported unless the session runs on shared memory")                         \
    X(MEMCPY_REGION_H2D, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED,                       \
      "an unknown region or a range outside it: hipErrorInvalidValue")                         \
    X(MEMCPY_REGION_D2H, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED,                       \
      "an unknown region or a range outside it: hipErrorInvalidValue")                         \
    X(DEVICE_SYNCHRONIZE, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "")                  \
    X(DEVICE_RESET, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED,                            \
      "frees the session's memory on the device")                                              \
    X(MEM_GET_INFO, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "")                        \
    X(DEVICE_ATTRIBUTES, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "")                   \
    X(MALLOC, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "")                              \
    X(FREE, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "")                                \
    X(MEMCPY_H2D, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "")                          \
    X(MEMCPY_D2H, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "")                          \
    X(MEMCPY_D2D, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "")                          \
    X(MEMCPY2D_H2D, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "")                        \
    X(MEMCPY2D_D2H, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "")                        \
    X(MEMCPY2D_D2D, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "")                        \
    X(MEMSET, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "")                              \
    X(STREAM_CREATE, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "")                       \
    X(STREAM_DESTROY, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "")                      \
    X(STREAM_SYNCHRONIZE, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "")                  \
    X(STREAM_QUERY, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "")                        \
    X(STREAM_WAIT_EVENT, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "")                   \
    X(STREAM_WRITE_VALUE, SESSION, IMPLEMENTED, IMPLEMENTED, UNSUPPORTED,                      \
      "cuda: a driver without cuStreamWriteValue32/64 answers hipErrorNotSupported")           \
    X(STREAM_WAIT_VALUE, SESSION, IMPLEMENTED, IMPLEMENTED, UNSUPPORTED,                       \
      "cuda: a driver without cuStreamWaitValue32 answers hipErrorNotSupported")               \
    X(EVENT_CREATE, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "")                        \
    X(EVENT_RECORD, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "")                        \
    X(EVENT_SYNCHRONIZE, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "")                   \
    X(EVENT_QUERY, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "")                         \
    X(EVENT_ELAPSED, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "")                       \
    X(EVENT_DESTROY, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "")                       \
    X(MODULE_LOAD, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED,                             \
      "an AMD code object no device here runs loads as a foreign module")                      \
    X(MODULE_GET_FUNCTION, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED,                     \
      "cuda: a driver older than 12.4 (no cuFuncGetParamInfo) answers hipErrorNotSupported")   \
    X(MODULE_GET_GLOBAL, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "")                   \
    X(MODULE_UNLOAD, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "")                       \
    X(MODULE_LOAD_EX, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED, "")                      \
    X(LAUNCH, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED,                                  \
      "a foreign module's kernel: hipErrorNoBinaryForGpu; cooperative: hipErrorNotSupported "  \
      "on cpu, on hip unless relayed")                                                         \
    X(RTC_COMPILE, SESSION, IMPLEMENTED, IMPLEMENTED, IMPLEMENTED,                             \
      "cpu: host compiler; cuda: NVRTC; hip: the runtime's hiprtc")

/* clang-format on */

#endif /* HIPR_SPEC_H */
