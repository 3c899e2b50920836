/*  sim_udp.h - the UDP helpers every service edge uses: bound servers,
    replies to the exact source of a datagram, and multicast senders with a
    chosen interface and TTL. Plain IPv4 sockets, non-blocking.
*/
#ifndef SIM_UDP_H_INCLUDED
#define SIM_UDP_H_INCLUDED

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Largest datagram accepted (protocol.md §1). */
#define SIM_UDP_MAX 65536

/* Parse "HOST:PORT" (hostnames resolved) into *out. 0, or -1. */
int sim_udp_parse_addr (const char *hostport, struct sockaddr_in *out);

/* Bind a non-blocking UDP server on bind_address:port (port 0 = ephemeral).
   Returns the fd, or -1 with errno set. */
int sim_udp_bind (const char *bind_address, int port);

/* A non-blocking receiver of what is sent to `addr`, as the league's
   recorder listens: a multicast group is joined (on interface `iface`,
   an IPv4 address; NULL or "" = the system's choice, and the loopback
   interface when no interface routes the group, as on a host or in a
   container with only lo) with the port shared (SO_REUSEADDR) with other
   listeners on the host; a unicast address is bound as it is. Returns
   the fd, or -1 with errno set. */
int sim_udp_listen (const struct sockaddr_in *addr, const char *iface);

/* Whether the host has a route to `addr` (false on a host or in a
   container with only lo, for a multicast group). Sends nothing. */
bool sim_udp_routable (const struct sockaddr_in *addr);

/* Port a socket is bound to, or -1. */
int sim_udp_local_port (int fd);

/* A non-blocking sender socket. For multicast destinations: TTL `ttl`,
   loopback on, outgoing interface `iface` (an IPv4 address; NULL or ""
   = the system's choice). Returns the fd, or -1. */
int sim_udp_sender (const char *iface, int ttl);

/* Bind sender `fd` to 127.0.0.1 (an ephemeral port), so the port it sends
   from is not open on every interface (--localhost: nothing of ours
   listens beyond this machine). 0, or -1 (logged). */
int sim_udp_keep_local (int fd);

/* A non-blocking sender for multicast to `group` that stays on this
   machine: outgoing interface the loopback (127.0.0.1), TTL 0, loopback
   on, and a membership of `group` on the loopback interface, without
   which the host drops the looped datagrams for programs that bound the
   port without joining (with it, each socket bound to the port, joined or
   not, gets one copy). Works without the MULTICAST flag on lo. Returns the
   fd, or -1 (logged). */
int sim_udp_local_sender (struct in_addr group);

/* Receive one datagram; *from gets its source. Returns its size, or -1
   when nothing is waiting. */
ssize_t sim_udp_recv (int fd, void *buf, size_t cap, struct sockaddr_in *from);

/* Send one datagram; returns 0 or -1 (a full buffer is dropped, logged at
   debug: UDP gives no delivery promise and a slow reader must not stall
   the simulation). */
int sim_udp_send (int fd, const void *buf, size_t len, const struct sockaddr_in *to);

/* "a.b.c.d:port" for logs, into buf. */
const char *sim_udp_addr_str (const struct sockaddr_in *addr, char *buf, size_t len);

#endif
