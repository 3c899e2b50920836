/*  gw_trust.h - which sources get a full answer (docs/protocol.md,
    "Amplification").

    UDP sources can be forged: a small request with a victim's address as
    its source would have the gateway send the victim a large answer (a
    sync step's frames: 33-65 KB for 5 bytes). Nothing a client sends can
    prove its address: repeating a request proves nothing, and the
    protocol has no field a client would echo. So trust comes from where
    the address is, never from what it sends:

    - loopback (127.0.0.0/8): Linux drops a datagram that arrives on any
      other interface with a loopback source (a "martian"), so such a
      source is a process on this host;
    - an address of [tournament] (when it is on): the match's machines;
    - an address of [network] trusted_sources: a lab's machines.

    Any other source gets answers of at most GW_UNTRUSTED_RATIO times its
    request's bytes (gw_answers cuts the rest).

    Pure: no socket, no clock, no log.
*/
#ifndef GW_TRUST_H_INCLUDED
#define GW_TRUST_H_INCLUDED

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/config/sim_config.h"

#define GW_UNTRUSTED_RATIO 3 /* an untrusted source's answer: at most this times its request's bytes */

typedef struct gw_trust_t gw_trust_t;

/* The trusted addresses of cfg ([network] trusted_sources, and the
   [tournament] lists when tournament mode is on). NULL with the reason in
   why when a list does not parse, or out of memory. */
gw_trust_t *gw_trust_new (const sim_config_t *cfg, char *why, size_t whylen);

/* Free it; nulls *self_p. Safe twice. */
void gw_trust_destroy (gw_trust_t **self_p);

/* Whether `from` gets full answers. */
bool gw_trust_full (const gw_trust_t *self, const struct sockaddr_in *from);

/* The largest answer `from` may get to a request of request_len bytes:
   SIZE_MAX when trusted, else GW_UNTRUSTED_RATIO * request_len. */
size_t gw_trust_cap (const gw_trust_t *self, const struct sockaddr_in *from, size_t request_len);

#endif
