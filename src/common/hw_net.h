/* hw_net.h - blocking TCP helpers shared by the worker, the proxy and tools.
 * hw_net.c on Linux; hw_net_win32.c (Winsock, the client's part only) on
 * Windows, where a SOCKET is kept in an int: Windows handles fit in 32 bits
 * (so that 32- and 64-bit processes can share them), and INVALID_SOCKET
 * becomes -1. */
#ifndef HW_NET_H
#define HW_NET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hw_os.h"

/* Listens on bind_addr:port (port 0 picks a free one, reported in *port_out). */
int hw_tcp_listen(const char *bind_addr, int port, int *fd_out, int *port_out);
/* Connects with a timeout; sets TCP_NODELAY. Returns 0 or -errno, or
 * HW_NET_EAI(getaddrinfo's code) when the name does not resolve: a name
 * that does not exist is not "No route to host". */
int hw_tcp_connect(const char *host, int port, int timeout_ms, int *fd_out);
#define HW_NET_EAI_BASE 100000
#define HW_NET_EAI(eai) (-HW_NET_EAI_BASE + (eai)) /* EAI_* are negative */
/* The text for a negative result of hw_tcp_connect/hw_tcp_listen
 * ("unknown host", "Connection refused", ...). */
const char *hw_net_strerror(int neg);
void hw_tcp_tune(int fd);
/* Reads exactly n bytes. 0 on success, -1 on EOF or error (errno set; 0 at EOF). */
int hw_read_full(int fd, void *buf, size_t n);
/* Writes all of iov. Modifies iov. 0 on success, -1 on error. */
int hw_writev_full(int fd, struct iovec *iov, int iovcnt);
int hw_write_full(int fd, const void *buf, size_t n);
/* Reads and throws away n bytes. */
int hw_discard(int fd, uint64_t n);
/* TCP_USER_TIMEOUT: a write that stays unacknowledged this long fails,
 * instead of blocking for the kernel's ~15 minutes of retransmissions. */
void hw_tcp_user_timeout(int fd, int ms);
/* 1 when every address host resolves to is a loopback address, 0 when one
 * is not, -1 when it does not resolve. */
int hw_addr_is_loopback(const char *host);
/* "address:port" of the connected peer, for log lines. */
void hw_peer_name(int fd, char *buf, size_t len);

/* Like recv(): -1 with errno (EAGAIN or ETIMEDOUT when the receive
 * timeout passed). */
ssize_t hw_sock_recv(int fd, void *buf, size_t n);
/* 1 when fd is readable within timeout_ms, 0 when not, -1 on error. */
int hw_sock_poll_in(int fd, int timeout_ms);
/* Receive timeout (SO_RCVTIMEO); 0 removes it. */
void hw_sock_set_rcvtimeo(int fd, int ms);
/* A blocked send fails (EAGAIN) after ms; 0 removes the limit. */
void hw_sock_set_sndtimeo(int fd, int ms);
/* Wakes threads blocked on fd (both directions), or only ends sending. */
void hw_sock_shutdown(int fd);
void hw_sock_shutdown_write(int fd);
void hw_sock_close(int fd);

#endif
