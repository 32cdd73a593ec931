/*
 * client.h - internals of the proxy libamdhip64.
 *
 * One connection per process to a hip-worker. Application threads call in
 * concurrently: asynchronous work is appended to a coalescing write buffer
 * (one short lock, no round trip); synchronous calls register a waiter keyed
 * by request_id, flush, and wait. Whichever waiting thread finds the socket
 * unread becomes the reader and hands out replies to the others (leader and
 * followers), so a lone caller never pays a thread switch and no lock is
 * held across a round trip.
 */
#ifndef HW_CLIENT_H
#define HW_CLIENT_H

#include <pthread.h>
#include <stdint.h>

#include <hip/hip_runtime_api.h>
#if HIP_VERSION_MAJOR >= 6
#include <hip/hip_deprecated.h> /* hipDeviceProp_tR0000 */
#endif

#include "admission.h"
#include "export.h"
#include "handle_registry.h"
#include "hipr.h"
#include "hw_auth.h"
#include "hw_transport.h"
#include "hw_worker_list.h"
#include "replay_ring.h"

/* ---- connection ----------------------------------------------------------- */

/* A caller's tail too large for the ring, sent from its own memory; the
 * caller keeps it until the worker has executed request seq (it may have
 * to be sent again on a resumed connection). Lives on the caller's stack. */
struct hw_ext_tail {
    struct hw_ext_tail *next;
    uint64_t seq;
    const void *data;
    uint64_t len;
};

struct hw_conn {
    struct hw_transport tx;       /* plain TCP or TLS (TF_WORKER_TLS) */
    struct hw_admit admit;        /* waiting for the session (admission.h) */
    int setup_cut;                /* the last open_link failed on a connection cut, not a refusal */
    struct hw_worker_addr worker; /* the TF_WORKER_HOST entry in use */
    uint64_t session_id;
    int device_count;
    int runtime_version;
    int driver_version;
    char backend[64];
    struct hipr_devinfo *devs;
    hipDeviceProp_t *props;

    pthread_mutex_t wlock;   /* the ring, the counters below, socket writes */
    struct replay_ring ring; /* write buffer; while resumable also the replay buffer */
    unsigned wops;           /* frames since the last flush */
    int send_next;           /* the next post goes out at once (after a call) */
    uint32_t next_request_id;
    uint64_t requests_sent;  /* requests of the session so far (marks not counted) */
    uint64_t replies_acked;  /* the reply count last told the worker */
    uint64_t ack_asked_at;   /* requests_sent when an ACK was last asked for */
    struct hw_ext_tail *ext; /* large tails in flight from callers' memory */

    pthread_mutex_t rlock; /* waiters, the reader role, the link state */
    pthread_cond_t rcond;
    int reader_active;
    struct hw_waiter *waiters;
    int broken;          /* connection lost for good; every call fails */
    int down;            /* connection lost; resume.c is getting it back */
    uint32_t going_away; /* the worker said the session ends (HIPR_GOING_AWAY_*) */
    /* MIGRATE (docs/session-resume.md, "Planned migration"): the session
     * moved; resume.c resumes it at migrate_to as migrate_session. */
    int migrate_pending; /* under rlock */
    struct hw_worker_addr migrate_to;
    uint64_t migrate_session;
    unsigned gen;          /* bumped each time a resumed connection is installed */
    int async_error;       /* deferred error reported by the worker */
    uint64_t worker_done;  /* requests the worker says it executed (atomic) */
    uint64_t replies_read; /* reply frames read (atomic) */
    int ack_urgent;        /* a large reply arrived: acknowledge it now */
    int data_unacked;      /* a reply with data arrived since the last ACK */

    /* Session resume (resume.c): the worker agreed at connect; the token
     * proves a reconnection is ours; calls wait up to resume_ms. */
    int resumable;
    uint64_t resume_token;
    int resume_ms;
    uint64_t down_since_ms;
    char down_why[160];
    pthread_cond_t resume_cond; /* with rlock: wakes the resume thread */
    pthread_t resume_thread;
    int resume_running;

    /* Dead-peer detection (conn.c): the agreed interval (0: off), when
     * anything was last sent and received, and the heartbeat thread. */
    int heartbeat_ms;
    uint64_t last_send_ms, last_recv_ms;
    int closing; /* the process is exiting: no more noise */
    int opened;  /* the first link is set up: a failure from now on is said once */
    pthread_t hb_thread;
    int hb_running;
    /* Run by the heartbeat thread each interval, set by an API file above
     * (api_stream.c: the per-thread streams of ended threads), so that
     * conn.c never calls up into them. */
    void (*heartbeat_hook)(struct hw_conn *c);

    /* Shared host memory (host_region.c): the hand-over connection the
     * worker sends regions on, kept from TRANSPORT_SHM (-1: none); the lock
     * pairs each HOST_REGION ALLOC with the fd that follows it. */
    int shm_side_fd;
    int regions_off; /* the worker refused once: hipHostMalloc stays private */
    pthread_mutex_t region_lock;
};

/* A thread waiting for one reply. Body and tail land directly in the
 * caller's buffers (tail: e.g. the destination of a D2H copy). */
struct hw_waiter {
    struct hw_waiter *next;
    uint32_t request_id;
    uint64_t seq; /* its request's number: a reply proves the worker got this far */
    int done;
    int status;
    uint8_t *body;
    size_t body_cap;
    void *tail;
    uint64_t tail_cap;
    uint64_t tail_len;
};

/* The connection, connecting on first use. NULL when the worker cannot be
 * reached; *err then says what to return (hipErrorNotInitialized). */
struct hw_conn *hw_conn_get(hipError_t *err);

/* worker_list.c: connects c->tx to the first worker of TF_WORKER_HOST whose
 * link setup succeeds (in the listed order) and records it in c->worker.
 * open_link runs on the fresh plain connection (TLS, authentication, HELLO)
 * under TF_CONNECT_TIMEOUT_MS and says why it failed in why. Prints the one
 * line a user sees when no worker can be used. */
typedef hipError_t (*hw_open_link_fn)(struct hw_conn *c, const struct hw_worker_addr *w,
                                      int timeout_ms, char *why, size_t why_len);
hipError_t hw_connect_first_worker(struct hw_conn *c, hw_open_link_fn open_link);

/* Queues an asynchronous request (fire-and-forget). The tail is copied or
 * sent before return, so the caller may reuse it at once. */
hipError_t hw_post(struct hw_conn *c, uint16_t opcode, const void *fixed, size_t fixed_len,
                   const void *tail, uint64_t tail_len);

/* Sends a request and waits for its reply. body receives the reply's fixed
 * part (body_cap bytes), tail up to tail_cap bytes (*tail_len set). Returns
 * the worker's status, with any deferred error recorded on the side. */
hipError_t hw_call(struct hw_conn *c, uint16_t opcode, const void *fixed, size_t fixed_len,
                   const void *req_tail, uint64_t req_tail_len, void *body, size_t body_cap,
                   void *tail, uint64_t tail_cap, uint64_t *tail_len);

/* Requests sent with hw_call (each a round trip) and hw_post (api_stats.c). */
extern uint64_t hw_stat_round_trips;
extern uint64_t hw_stat_posted;

/* Sends what is buffered. */
hipError_t hw_flush(struct hw_conn *c);

/* Takes the deferred error the worker reported, if any (0 when none). */
hipError_t hw_take_async_error(struct hw_conn *c);

/* ---- the link layer (link.c, worker_list.c, admission.c, resume.c) --------- */
/* Below conn.c: nothing in these files calls conn.c or the API files
 * (docs/architecture.md, "Layers"; checked by client_layers). */

/* Heartbeats of silence before the worker is given up. */
#define HW_DEAD_AFTER 4
/* Reads TF_WORKER_TOKEN[_FILE], TF_WORKER_TLS, TF_WORKER_CA and
 * TF_WORKER_TLS_VERIFY for every later hw_link_secure. 0, or -1 with the
 * reason in why. */
int hw_link_security_from_env(char *why, size_t why_len);

/* The connection failed (gen: the link generation the caller used): a
 * resumable session is resumed, else every call fails from now on. */
void hw_link_lost(struct hw_conn *c, unsigned gen, const char *why);
/* Fails every waiter and every later call, with one line saying why. */
void hw_conn_fail(struct hw_conn *c, const char *line);
/* Sets up TLS (when asked for) and authentication on t, connected to w,
 * for `session` (0: a new one). 0, or -1 with why; *fatal set when trying
 * again cannot help (the token is refused). tr: as hw_link_authenticate's. */
int hw_link_secure(struct hw_transport *t, const struct hw_worker_addr *w, uint64_t session,
                   int timeout_ms, uint32_t *heartbeat_ms, struct hw_auth_transcript *tr, char *why,
                   size_t why_len, int *fatal);
/* resume.c: starts the thread that brings a lost connection back. */
int hw_resume_start(struct hw_conn *c);
/* Applies the heartbeat's timeouts to the current link. */
void hw_heartbeat_link(struct hw_conn *c);
/* The integer environment variable name in lo..hi, else dflt (saying so). */
int hw_env_int(const char *name, int dflt, int lo, int hi);

/* ---- the call layer (conn.c) ----------------------------------------------- */

/* Waits until the worker says it executed request seq (reading replies
 * meanwhile if nobody else does). 0, or -1 when the connection is gone. */
int hw_wait_worker(struct hw_conn *c, uint64_t seq);
/* shm_link.c: after HELLO, moves the session to the same-host rings when
 * TF_TRANSPORT allows and the worker offers them. 0 (on the rings or still
 * on TCP), or -1 with why (the connection failed, or TF_TRANSPORT=shm could
 * not be met). */
int hw_shm_negotiate(struct hw_conn *c, char *why, size_t why_len);

/* ---- the devices the application sees (visible_devices.c) -------------------- */

/* Narrows and orders c's devices by the *_VISIBLE_DEVICES variables of the
 * environment; called once the worker has described its devices. */
hipError_t hw_visible_devices_apply(struct hw_conn *c);
/* The worker's ordinal of application device dev, for every message that
 * names a device (and the default stream ids, which are ordinals); -1 for
 * a device the application cannot see. */
int hw_wire_device(int dev);

/* ---- per-thread state (HIP semantics: current device, last error) ------------ */

int hw_current_device(void);
void hw_set_current_device(int dev);
/* The calling thread's context stack (api_context.c), as device ordinals.
 * Each returns 0, or -1 when the stack is full (push) or empty. */
#define HW_CTX_STACK_MAX 256
int hw_ctx_push(int dev);
int hw_ctx_pop(int *dev);
int hw_ctx_top(int *dev);
/* api_device_config.c: what hipGetDeviceFlags reads (hipCtxCreate sets it). */
void hw_device_flags_set(int dev, unsigned flags);
/* hipDeviceReset: the device's flags and limits back to their defaults. */
void hw_device_config_reset(int dev);
/* Records err as the thread's last error (unless success) and returns it. */
hipError_t hw_ret(hipError_t err);

/* ---- handles ---------------------------------------------------------------- */

struct hw_stream {
    uint64_t id;
    int device;
    unsigned flags;
    int priority;
    int sync_policy; /* hipStreamSetAttribute's; 0 until set (hipSyncPolicyAuto) */
};

struct hw_event {
    uint64_t id;
    int device;
    unsigned flags;
};

struct hw_module {
    uint64_t id;
    int device;
    unsigned flags; /* HIPR_MODULE_* from the worker */
    /* Variables' ranges this module put in the allocation table, removed
     * when it is unloaded (their addresses are reused). */
    uint64_t *globals;
    size_t nglobals;
    /* For a fat binary with no code for the device: what it carries and
     * the fix, said on stderr at the first launch (owned; may be NULL). */
    char *no_binary_note;
    int note_said;
};

struct hw_function {
    uint64_t id;
    struct hw_module *module;
    struct hipr_function_rep info;
    char name[128];
    struct {
        uint32_t offset, size;
    } params[];
};

/* Application handles are checked against handle_registry.h before they
 * are read (docs/client.md, "Handle validation"). */

/* The wire id of a stream: NULL is the current device's legacy default
 * stream, hipStreamPerThread the calling thread's own stream on the current
 * device (created on first use). *dev gets the stream's device.
 * hipErrorContextIsDestroyed, outputs untouched, for a stream this proxy
 * did not create or already destroyed. */
hipError_t hw_stream_resolve(hipStream_t s, uint64_t *id, int *dev);
/* hipStreamCreateWithPriority's body: a stream on the current device,
 * registered (HW_HANDLE_STREAM). Records its error (hw_ret). */
hipError_t hw_stream_create(hipStream_t *out, unsigned flags, int priority);
/* hw_stream_resolve's verdict alone. */
hipError_t hw_stream_check(hipStream_t s);
/* Destroys on the worker the per-thread streams of threads that ended where
 * their exit could not (api_stream.c); cheap when there are none. */
void hw_release_ended_thread_streams(struct hw_conn *c);
/* A wire id no worker stream has: what hw_stream_wire_id gives for an
 * invalid stream, so that a caller which did not check gets the worker's
 * error instead of reading freed memory. */
#define HW_STREAM_NONE UINT64_MAX
/* hw_stream_resolve for callers that checked the stream already. */
uint64_t hw_stream_wire_id(hipStream_t s, int *dev);
/* The wire id (and device, when dev is not NULL) of an event this proxy
 * created and has not destroyed; hipErrorInvalidHandle otherwise. */
hipError_t hw_event_resolve(hipEvent_t e, uint64_t *id, int *dev);
uint64_t hw_new_handle_id(void);
int hw_function_known(const struct hw_function *f);
/* func as HIP's host-side function APIs take it: a registered kernel's host
 * stub (resolved on the current device) or a hipFunction_t handed out here;
 * hipErrorInvalidDeviceFunction otherwise. */
hipError_t hw_function_of(const void *func, const struct hw_function **out);

/* ---- modules and launches (api_module.c), shared by the module API and the
 * fat-binary registry; they return errors without recording them ---------- */

hipError_t hw_module_load(struct hw_conn *c, int device, const void *image, size_t size,
                          struct hw_module **out);
/* When image is a hipwire-cc fat binary and has no AMD code object for the
 * device: compiles its portable source on the worker for device and loads
 * the result into *out (fatbin_source.c); returns 1 with *err set. 0 when
 * the image is for hw_module_load as it is. */
/* The message for a fat binary whose code objects are all for other
 * devices than device (malloc'ed; NULL when out of memory). */
char *hw_fatbin_arch_note(struct hw_conn *c, int device, const void *image, size_t size);
int hw_fatbin_source_load(struct hw_conn *c, int device, const void *image, size_t size,
                          struct hw_module **out, hipError_t *err);
/* Unloads on the worker (fire-and-forget; not when c is NULL), forgets its
 * variables' ranges and frees m. */
hipError_t hw_module_release(struct hw_conn *c, struct hw_module *m);
/* A new function object (the caller owns it) with its parameter layout. */
hipError_t hw_module_function(struct hw_conn *c, struct hw_module *m, const char *name,
                              struct hw_function **out);
hipError_t hw_module_global(struct hw_conn *c, struct hw_module *m, const char *name, uint64_t *ptr,
                            uint64_t *size);
/* kernelParams (laid out by f's parameter table) or the extra buffer as one
 * argument blob of at most cap bytes, as hipModuleLaunchKernel takes them;
 * kernelParams are used when both are given. */
hipError_t hw_pack_kernel_args(const struct hw_function *f, void **kernelParams, void **extra,
                               uint8_t *out, size_t cap, size_t *len);
/* Packs the arguments and queues the launch; records errors (hw_ret).
 * An invalid stream is hipErrorContextIsDestroyed, an invalid event
 * hipErrorInvalidHandle. */
hipError_t hw_launch(const struct hw_function *f, const uint32_t grid[3], const uint32_t block[3],
                     unsigned shared, hipStream_t stream, void **kernelParams, void **extra,
                     hipEvent_t start, hipEvent_t stop, uint32_t flags);
/* hw_launch on a stream the caller resolved already (hw_stream_resolve):
 * sid is its wire id. */
hipError_t hw_launch_on(const struct hw_function *f, const uint32_t grid[3],
                        const uint32_t block[3], unsigned shared, hipStream_t stream, uint64_t sid,
                        void **kernelParams, void **extra, hipEvent_t start, hipEvent_t stop,
                        uint32_t flags);
void hw_fill_attributes(const struct hw_function *f, struct hipFuncAttributes *a);

/* ---- fat binaries (fatbin_registry.c) ---------------------------------------- */

/* Whether host_stub is a registered kernel's host function. */
int hw_fatbin_is_kernel(const void *host_stub);
/* The device name a kernel was registered with (the program's memory);
 * NULL when host_stub is not a registered kernel. */
const char *hw_fatbin_kernel_name(const void *host_stub);
/* The kernel behind host_stub on device dev: its fat binary is uploaded on
 * the first use on that device, the function resolved on its first use;
 * both are cached. hipErrorInvalidDeviceFunction when not registered. */
hipError_t hw_fatbin_function(const void *host_stub, int dev, const struct hw_function **out);
/* The device address and size of a registered variable (its host shadow)
 * on device dev. hipErrorInvalidSymbol when not registered. */
hipError_t hw_fatbin_global(const void *host_var, int dev, uint64_t *ptr, uint64_t *size);

/* ---- client allocation table (hipMemcpyDefault, pointer attributes) --------- */

/* One pointer attribute, written at the width AMD's runtime writes it; an
 * address hipwire did not hand out gets AMD's default value and an error
 * (api_memory.c; hipPointerGetAttribute, hipDrvPointerGetAttributes). */
hipError_t hw_pointer_attribute(void *data, hipPointer_attribute attr, const void *ptr);

/* HOST: hipHostMalloc memory (the client's); REGISTERED: the application's,
 * hipHostRegister'ed. Neither is reachable from the worker. */
enum hw_mem_kind { HW_MEM_DEVICE = 1, HW_MEM_HOST = 2, HW_MEM_REGISTERED = 3 };

struct hw_mem_range {
    uint64_t base, size;
    int device;
    enum hw_mem_kind kind;
    unsigned flags;
    uint64_t region; /* HW_MEM_HOST shared with the worker (host_region.c); 0: private */
};

/* Shared host memory (host_region.c): n bytes of client memory the worker
 * maps too, for hipHostMalloc, with its region id in *region; NULL when
 * the session cannot have it (not on shared memory, an older worker). */
void *hw_region_alloc(size_t n, uint64_t *region);
/* Unmaps it on both sides. */
void hw_region_free(void *p, size_t n, uint64_t region);
/* The region and offset holding [p, p + n), when all of it lies in one: 1. */
int hw_region_of(const void *p, uint64_t n, uint64_t *region, uint64_t *offset);

int hw_mem_add(const struct hw_mem_range *r);
int hw_mem_remove(uint64_t base, struct hw_mem_range *out);
/* The range holding ptr, copied to *out; 0 when found. */
int hw_mem_find(uint64_t ptr, struct hw_mem_range *out);
/* Base of some device allocation on dev; 1 when there is one. */
int hw_mem_first_of_device(int dev, uint64_t *base);
/* A client (pinned or registered) range overlapping [base, base+size), copied
 * to *out; 1 when there is one. */
int hw_mem_host_overlap(uint64_t base, uint64_t size, struct hw_mem_range *out);

/* ---- stream capture (capture.c; graph.h) ------------------------------------- */

struct hipGraphNode;

/* Captures in progress, read without a lock: calls pay one load when none. */
extern int hw_capture_count;
static inline int hw_capture_any(void)
{
    return __atomic_load_n(&hw_capture_count, __ATOMIC_ACQUIRE) != 0;
}
/* Work about to be queued on stream: 1 when the stream's capture recorded
 * it as node (the call then succeeds without sending anything), 0 when it
 * runs, -1 with *err when it is illegal while something captures. */
int hw_capture_record(hipStream_t stream, const struct hipGraphNode *node, hipError_t *err);
/* What HIP forbids during capture; each returns hipSuccess when allowed,
 * else the error, invalidating the captures concerned. */
hipError_t hw_capture_sync_call(void);                 /* hipMemcpy, hipMemset: synchronous calls */
hipError_t hw_capture_unsafe_call(void);               /* hipMalloc, hipFree: by capture mode */
hipError_t hw_capture_device_sync(void);               /* hipDeviceSynchronize */
hipError_t hw_capture_stream_sync(hipStream_t stream); /* synchronize or query a stream */
hipError_t hw_capture_event_use(hipEvent_t event, hipStream_t waiter); /* sync/query/wait */
/* A destroyed stream's capture ends with it. */
void hw_capture_stream_destroyed(hipStream_t stream);
/* The bodies of the copy and fill calls, which graph launches replay through. */
hipError_t hw_copy(void *dst, const void *src, size_t n, hipMemcpyKind kind, hipStream_t stream,
                   int sync);
hipError_t hw_fill(void *dst, uint32_t value, uint32_t elem, size_t count, hipStream_t stream,
                   int sync);
/* device_memory.c: hipMalloc on device dev (records its error, hw_ret). */
hipError_t hw_malloc_on(void **ptr, size_t size, int dev);
/* device_memory.c: hipFree's body (records its error); forget, when not
 * NULL, runs once ptr is known to be a device allocation, before the FREE
 * goes out (hipFree passes hw_pool_forget). */
hipError_t hw_device_free(void *ptr, void (*forget)(const void *base));
/* hipMallocAsync: from the current memory pool of device dev. */
hipError_t hw_pool_malloc(void **dev_ptr, size_t size, int device);
/* Drops a freed allocation from its pool's accounting, if a pool's. */
void hw_pool_forget(const void *base);
/* A fill of depth slices (slice bytes apart) of height rows (pitch bytes
 * apart) of count elements: hipMemset2D/3D, and hw_fill's one row. */
hipError_t hw_fill_box(void *dst, uint32_t value, uint32_t elem, size_t count, size_t pitch,
                       size_t height, size_t slice, size_t depth, hipStream_t stream, int sync);

/* ---- misc -------------------------------------------------------------------- */

/* Size of a code object image given only its address (ELF, clang offload
 * bundle, CUDA fatbin, PTX text). 0 when the format is unknown. */
size_t hw_image_size(const void *image);
/* The body of hipMemcpy2D/hipMemcpy2DAsync: sync also reports earlier
 * asynchronous errors once a D2H copy's data is here. */
hipError_t hw_copy_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                      size_t height, hipMemcpyKind kind, hipStream_t stream, int sync);
void hw_props_from_devinfo(const struct hipr_devinfo *d, hipDeviceProp_t *p);
/* The DEVICE_ATTRIBUTES part of hipDeviceProp_t. */
void hw_props_add_devattr(const struct hipr_devattr *e, hipDeviceProp_t *p);
#if HIP_VERSION_MAJOR >= 6
/* The pre-6.0 layout that hipGetDevicePropertiesR0000 returns. */
void hw_props_r0000_from_devinfo(const struct hipr_devinfo *d, const struct hipr_devattr *e,
                                 hipDeviceProp_tR0000 *p);
#endif
/* hipDeviceArch_t from DEVICE_ATTRIBUTES' arch bits. */
hipDeviceArch_t hw_device_arch(uint32_t bits);
/* device_attrs.c: device dev's DEVICE_ATTRIBUTES answer (asked of the worker once). */
hipError_t hw_device_attrs(struct hw_conn *c, int dev, struct hipr_devattr *out);
/* hipDeviceGetAttribute for a valid device; errors are not recorded. */
hipError_t hw_device_attribute(struct hw_conn *c, int dev, hipDeviceAttribute_t attr, int *value);

#endif
