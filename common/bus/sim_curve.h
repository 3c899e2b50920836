/*  sim_curve.h - CURVE security of the tcp bus (issue 11): certificates
    in files, one authenticator per process, refusals logged.

    With [bus] curve = true every tcp socket of a link is encrypted and
    authenticated: a bound socket is a CURVE server that accepts only the
    public certificates found in curve_allow (czmq's zauth, reading the
    directory again whenever it changes); a connecting socket shows its own
    certificate (curve_cert) and checks the server's key (curve_server for
    physics' cmd and world, curve_frames_server for vision's frames). ipc
    and inproc endpoints never use it: the private runtime directory
    guards them. Certificates are czmq's zcert_save files: FILE holds the
    public key, FILE_secret both keys.

    libzmq asks one ZAP handler per process (an inproc name in czmq's one
    context), so the authenticator and the thread that logs refused peers
    are shared by every link of a process, counted, and stopped with the
    last one; the same thread logs the handshakes a server refused to a
    link's connecting sockets. That shared state, behind a mutex, is the
    only process-wide state here, it follows from libzmq's, and it lives in
    sim_curve_guard.c.
*/
#ifndef SIM_CURVE_H_INCLUDED
#define SIM_CURVE_H_INCLUDED

#include <czmq.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/config/sim_config.h"

/* The security of one link. */
typedef struct sim_curve_t sim_curve_t;

/* What a link's tcp sockets need (flags combine). */
enum {
    SIM_CURVE_SERVE = 1 << 0,   /* it binds: curve_allow, and the shared authenticator */
    SIM_CURVE_PHYSICS = 1 << 1, /* it connects to physics (cmd or world): curve_server */
    SIM_CURVE_VISION = 1 << 2,  /* it connects to vision (frames): curve_frames_server */
};

/* True for an endpoint CURVE applies to (tcp://). */
bool sim_curve_applies (const char *endpoint);

/* The security for `needs` (SIM_CURVE_*; 0 makes an object that does
   nothing), loading curve_cert and the server keys needs names, and
   starting or joining the authenticator for SIM_CURVE_SERVE; `service`
   names the refusals' log lines (borrowed, static). NULL with the reason
   in err, naming the [bus] key and the file: a file that is missing,
   unreadable, not a certificate, a secret readable by others, or a key
   left empty. */
sim_curve_t *sim_curve_new (const sim_bus_cfg_t *bus, unsigned needs, const char *service, char *err,
                            size_t len);

/* Leave the authenticator (the last link stops it); nulls *self_p. Safe
   on NULL and twice. Destroy the sockets it secured first. */
void sim_curve_destroy (sim_curve_t **self_p);

/* Make `sock` a CURVE server, before it binds `endpoint`, and log the
   peers it refuses (`name`: which socket, borrowed, static). Returns 0,
   or -1 (logged) when the socket cannot be watched. */
int sim_curve_serve (sim_curve_t *self, zsock_t *sock, const char *name, const char *endpoint);

/* Make `sock` a CURVE client of physics (of_vision false) or vision,
   before it connects. */
void sim_curve_client (sim_curve_t *self, zsock_t *sock, bool of_vision);

/* Log, in this process's log, each handshake of the client `sock` (made
   by sim_curve_client) that its server refuses, saying which [bus] file to
   check on which host (at most five lines per window, as for a bound
   socket's refusals), and one line once it is admitted after a refusal:
   the service itself says why it hears nothing, not only the server's
   log on another host. `name`: which socket. Returns 0, or -1 (logged)
   when it cannot be watched. */
int sim_curve_watch_client (sim_curve_t *self, zsock_t *sock, bool of_vision, const char *name,
                            const char *endpoint);

/* Write a new certificate pair: `path` (public) and `path`_secret (mode
   0600). Refuses to overwrite either. Returns 0, or -1 with the reason in
   err. */
int sim_curve_keygen (const char *path, char *err, size_t len);

#endif
