/*  notify.c - systemd's readiness notification, the protocol of
    sd_notify(3) without libsystemd: one datagram "READY=1" to the unix
    socket NOTIFY_SOCKET names (a name starting with '@' is in the
    abstract namespace). Units of Type=notify count as started only then,
    so vision's unit, ordered after the gateway's and legacy-grsim's,
    starts once the ports a team sends to are bound.
*/
#include "notify.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/base/sim_log.h"

void
launch_notify_ready (void)
{
    const char *name = getenv ("NOTIFY_SOCKET");
    if (!name || !*name)
        return;
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    size_t len = strlen (name);
    if ((name[0] != '/' && name[0] != '@') || len >= sizeof addr.sun_path) {
        sim_warn ("NOTIFY_SOCKET \"%s\" names no unix socket: systemd is not told this service is up", name);
        return;
    }
    memcpy (addr.sun_path, name, len);
    if (name[0] == '@')
        addr.sun_path[0] = '\0';
    static const char ready[] = "READY=1";
    int fd = socket (AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    socklen_t addr_len = (socklen_t) (offsetof (struct sockaddr_un, sun_path) + len);
    if (fd < 0 || sendto (fd, ready, sizeof ready - 1, 0, (const struct sockaddr *) &addr, addr_len) < 0)
        sim_warn ("could not tell systemd this service is up (NOTIFY_SOCKET %s): %s", name, strerror (errno));
    if (fd >= 0)
        close (fd);
}
