/*  sim_udp.c - IPv4 UDP sockets for the service edges. */
#include "sim_udp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/base/sim_log.h"

int
sim_udp_parse_addr (const char *hostport, struct sockaddr_in *out)
{
    if (!hostport)
        return -1;
    const char *colon = strrchr (hostport, ':');
    if (!colon || colon == hostport || colon[1] == '\0')
        return -1;
    char host[256];
    size_t hlen = (size_t) (colon - hostport);
    if (hlen >= sizeof host)
        return -1;
    memcpy (host, hostport, hlen);
    host[hlen] = '\0';
    char *end;
    long port = strtol (colon + 1, &end, 10);
    if (*end || port < 0 || port > 65535)
        return -1;
    struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_DGRAM };
    struct addrinfo *res = NULL;
    if (getaddrinfo (host, NULL, &hints, &res) || !res)
        return -1;
    memcpy (out, res->ai_addr, sizeof *out);
    out->sin_port = htons ((uint16_t) port);
    freeaddrinfo (res);
    return 0;
}

static int
s_nonblocking (int fd)
{
    int flags = fcntl (fd, F_GETFL, 0);
    return flags < 0 ? -1 : fcntl (fd, F_SETFL, flags | O_NONBLOCK);
}

int
sim_udp_bind (const char *bind_address, int port)
{
    int fd = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons ((uint16_t) port) };
    if (!bind_address || !*bind_address)
        bind_address = "0.0.0.0";
    /* a burst of commands from many robots must not overflow the queue */
    int rcvbuf = 4 << 20;
    setsockopt (fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    if (inet_pton (AF_INET, bind_address, &addr.sin_addr) != 1
        || bind (fd, (struct sockaddr *) &addr, sizeof addr) || s_nonblocking (fd)) {
        int saved = errno;
        close (fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int
sim_udp_listen (const struct sockaddr_in *addr, const char *iface)
{
    int fd = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    int on = 1;
    int rcvbuf = 4 << 20; /* a recorder must not lose a burst of camera frames */
    setsockopt (fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    setsockopt (fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    bool group = IN_MULTICAST (ntohl (addr->sin_addr.s_addr));
    /* bound to the group address, the socket gets that group's datagrams
       only, not those of another group on the same port */
    int rc = bind (fd, (const struct sockaddr *) addr, sizeof *addr);
    if (rc == 0 && group) {
        struct ip_mreq mreq = { .imr_multiaddr = addr->sin_addr };
        mreq.imr_interface.s_addr = htonl (INADDR_ANY);
        bool chosen = iface && *iface;
        if (chosen && inet_pton (AF_INET, iface, &mreq.imr_interface) != 1) {
            errno = EINVAL;
            rc = -1;
        }
        /* only this socket's memberships bring it datagrams, not another
           program's join of the group on another interface (Linux's
           default): --localhost's listeners hear loopback only */
        int off = 0;
        if (rc == 0)
            rc = setsockopt (fd, IPPROTO_IP, IP_MULTICAST_ALL, &off, sizeof off);
        if (rc == 0)
            rc = setsockopt (fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mreq, sizeof mreq);
        if (rc && !chosen && errno == ENODEV) {
            /* no route to the group (a host or container with only lo):
               the loopback interface is the only way anything reaches us */
            mreq.imr_interface.s_addr = htonl (INADDR_LOOPBACK);
            rc = setsockopt (fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mreq, sizeof mreq);
            if (rc == 0) {
                char a[64];
                sim_info ("no network interface routes %s: joined it on the loopback interface",
                          sim_udp_addr_str (addr, a, sizeof a));
            }
        }
    }
    if (rc || s_nonblocking (fd)) {
        int saved = errno;
        close (fd);
        errno = saved;
        return -1;
    }
    return fd;
}

bool
sim_udp_routable (const struct sockaddr_in *addr)
{
    int fd = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return true; /* cannot tell: let the sends say */
    /* a UDP connect only looks the route up: nothing is sent */
    bool ok = connect (fd, (const struct sockaddr *) addr, sizeof *addr) == 0 || errno != ENETUNREACH;
    close (fd);
    return ok;
}

int
sim_udp_local_port (int fd)
{
    struct sockaddr_in addr;
    socklen_t len = sizeof addr;
    if (getsockname (fd, (struct sockaddr *) &addr, &len))
        return -1;
    return ntohs (addr.sin_port);
}

int
sim_udp_sender (const char *iface, int ttl)
{
    int fd = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    unsigned char mttl = (unsigned char) (ttl < 0 ? 1 : ttl > 255 ? 255 : ttl);
    unsigned char loop = 1;
    setsockopt (fd, IPPROTO_IP, IP_MULTICAST_TTL, &mttl, sizeof mttl);
    setsockopt (fd, IPPROTO_IP, IP_MULTICAST_LOOP, &loop, sizeof loop);
    int sndbuf = 4 << 20;
    setsockopt (fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
    if (iface && *iface) {
        struct in_addr ifaddr;
        if (inet_pton (AF_INET, iface, &ifaddr) != 1
            || setsockopt (fd, IPPROTO_IP, IP_MULTICAST_IF, &ifaddr, sizeof ifaddr)) {
            sim_warn ("multicast interface %s not usable, using the default", iface);
        }
    }
    if (s_nonblocking (fd)) {
        close (fd);
        return -1;
    }
    return fd;
}

int
sim_udp_keep_local (int fd)
{
    struct sockaddr_in lo = { .sin_family = AF_INET, .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
    if (bind (fd, (const struct sockaddr *) &lo, sizeof lo) == 0)
        return 0;
    sim_warn ("cannot bind a sending socket to 127.0.0.1: %s", strerror (errno));
    return -1;
}

int
sim_udp_local_sender (struct in_addr group)
{
    int fd = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    unsigned char ttl = 0, loop = 1;
    struct in_addr lo = { htonl (INADDR_LOOPBACK) };
    struct ip_mreq mreq = { .imr_multiaddr = group, .imr_interface = lo };
    int sndbuf = 4 << 20;
    setsockopt (fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
    if (setsockopt (fd, IPPROTO_IP, IP_MULTICAST_TTL, &ttl, sizeof ttl)
        || setsockopt (fd, IPPROTO_IP, IP_MULTICAST_LOOP, &loop, sizeof loop)
        || setsockopt (fd, IPPROTO_IP, IP_MULTICAST_IF, &lo, sizeof lo)
        || setsockopt (fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mreq, sizeof mreq) || s_nonblocking (fd)
        || sim_udp_keep_local (fd)) {
        char g[INET_ADDRSTRLEN] = "?";
        inet_ntop (AF_INET, &group, g, sizeof g);
        sim_warn ("cannot multicast to %s through the loopback interface: %s", g, strerror (errno));
        close (fd);
        return -1;
    }
    return fd;
}

ssize_t
sim_udp_recv (int fd, void *buf, size_t cap, struct sockaddr_in *from)
{
    socklen_t len = sizeof *from;
    ssize_t n = recvfrom (fd, buf, cap, MSG_TRUNC, (struct sockaddr *) from, &len);
    return n;
}

int
sim_udp_send (int fd, const void *buf, size_t len, const struct sockaddr_in *to)
{
    ssize_t n = sendto (fd, buf, len, 0, (const struct sockaddr *) to, sizeof *to);
    if (n < 0) {
        char a[64];
        sim_debug ("send to %s failed: %s", sim_udp_addr_str (to, a, sizeof a), strerror (errno));
        return -1;
    }
    return 0;
}

const char *
sim_udp_addr_str (const struct sockaddr_in *addr, char *buf, size_t len)
{
    char ip[INET_ADDRSTRLEN] = "?";
    inet_ntop (AF_INET, &addr->sin_addr, ip, sizeof ip);
    snprintf (buf, len, "%s:%u", ip, ntohs (addr->sin_port));
    return buf;
}
