/*  sim_curve_guard.h - the one CURVE guard of a process, shared by every
    link's sim_curve_t (sim_curve.h): czmq's authenticator (zauth), which
    answers libzmq's ZAP requests for the bound sockets, and a thread that
    watches sockets' handshakes and logs each refusal, a few a window:
    the peers a bound socket refuses, and for a connecting socket the
    server that refused it with the [bus] key and file to check. libzmq
    has one ZAP handler per context and czmq one context per process, so
    both are per process, counted, and stopped with their last user.
*/
#ifndef SIM_CURVE_GUARD_H_INCLUDED
#define SIM_CURVE_GUARD_H_INCLUDED

#include <czmq.h>
#include <stdbool.h>
#include <stddef.h>

/* Take one more reference on the guard, starting it, and with `allow`
   (the curve_allow directory) on the authenticator too, started first (a
   CURVE server without a ZAP handler would let every client in). NULL
   `allow`: the guard alone, for a link that only connects. `service`
   (static) names the guard's log lines. Returns 0, or -1 with the reason
   in err. */
int sim_curve_guard_join (const char *allow, const char *service, char *err, size_t len);

/* Give back what sim_curve_guard_join took (`auth`: with `allow`). */
void sim_curve_guard_leave (bool auth);

/* Have the guard watch `sock`'s handshakes (`events`, ZMQ_EVENT_*): the
   bus socket `name` at `endpoint`; for a connecting socket `server`
   ("physics", "vision"), `cert` (its curve_cert), `key` and `key_file`
   (the [bus] key naming the server's certificate, and its file), all
   NULL for a bound one. Needs a reference (sim_curve_guard_join).
   Returns 0 or -1. */
int sim_curve_guard_watch (zsock_t *sock, int events, const char *name, const char *endpoint,
                           const char *server, const char *cert, const char *key, const char *key_file);

#endif
