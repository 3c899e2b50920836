/*  sim_trust.h - which sources get a full answer (docs/protocol.md,
    "Amplification"): the gateway's answers and the grSim port's
    Robots_Status both obey it.

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

    Any other source gets answers of at most SIM_TRUST_RATIO times its
    request's bytes (gw_answers cuts the rest). Feedback that follows a
    request for a while (the grSim port's Robots_Status, sent to the
    sender of a team's commands after every frame) draws on a budget
    instead (sim_trust_budget_t): each request from the peer earns the
    same cap, each message sent spends its bytes, so all a peer is ever
    sent stays within SIM_TRUST_RATIO times all it sent.

    Pure: no socket, no clock, no log.
*/
#ifndef SIM_TRUST_H_INCLUDED
#define SIM_TRUST_H_INCLUDED

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/config/sim_config.h"

#define SIM_TRUST_RATIO 3 /* an untrusted source's answer: at most this times its request's bytes */

typedef struct sim_trust_t sim_trust_t;

/* The trusted addresses of cfg ([network] trusted_sources, and the
   [tournament] lists when tournament mode is on). NULL with the reason in
   why when a list does not parse, or out of memory. */
sim_trust_t *sim_trust_new (const sim_config_t *cfg, char *why, size_t whylen);

/* Free it; nulls *self_p. Safe twice. */
void sim_trust_destroy (sim_trust_t **self_p);

/* Whether `from` gets full answers. */
bool sim_trust_full (const sim_trust_t *self, const struct sockaddr_in *from);

/* The largest answer `from` may get to a request of request_len bytes:
   SIZE_MAX when trusted, else SIM_TRUST_RATIO * request_len. */
size_t sim_trust_cap (const sim_trust_t *self, const struct sockaddr_in *from, size_t request_len);

/* What an untrusted peer may still be sent (zero it to start: nothing). */
typedef struct {
    size_t credit; /* bytes; SIZE_MAX once a trusted peer's request came */
} sim_trust_budget_t;

/* A request of request_len bytes came from `from`, the budget's peer:
   its cap (sim_trust_cap) is added, up to SIZE_MAX. */
void sim_trust_earn (sim_trust_budget_t *budget, const sim_trust_t *self, const struct sockaddr_in *from,
                     size_t request_len);

/* Whether a message of len bytes may go to the budget's peer; when it
   may, its bytes are spent (a trusted peer's SIZE_MAX stays). */
bool sim_trust_spend (sim_trust_budget_t *budget, size_t len);

#endif
