/*  sim_tournament.h - tournament mode (docs/protocol.md, "Tournament
    mode"): which source address may use which port, on every port that
    moves robots (the gateway's three, and the grSim port, where a packet's
    commands need its team's role and its replacement the control role).

    [tournament] lists the addresses of blue, yellow and control. When it
    is enabled, each port takes datagrams only from its own list: the blue
    port from blue's addresses, the yellow port from yellow's, the control
    port from control's; a sync request, on any port, only from a control
    address. An address may be in the control list and one team's list
    (a lab machine running a team and the game controller), never in both
    teams' lists. Addresses are IPs: the source port does not matter.

    Pure: no socket, no clock of its own (the refusal counter is told the
    time), no log. The gateway answers a refusal with a FORBIDDEN error,
    legacy-grsim (which answers nothing) drops it; both log what
    sim_tournament_refused says is due.
*/
#ifndef SIM_TOURNAMENT_H_INCLUDED
#define SIM_TOURNAMENT_H_INCLUDED

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/config/sim_config.h"

/* The roles of tournament mode, one per gateway port (gw_port.h numbers
   its ports alike): the match's operator, and each team. */
typedef enum { SIM_ROLE_CONTROL = 0, SIM_ROLE_BLUE = 1, SIM_ROLE_YELLOW = 2 } sim_role_t;

/* "control", "blue" or "yellow" (static storage): the role's list in
   [tournament] and the gateway port it uses. */
static inline const char *
sim_role_name (sim_role_t role)
{
    return role == SIM_ROLE_CONTROL ? "control" : role == SIM_ROLE_BLUE ? "blue" : "yellow";
}

/* A role per port, as bits: SIM_TOURNAMENT_ROLE (SIM_ROLE_BLUE) = blue. */
#define SIM_TOURNAMENT_ROLE(port) (1u << (port))

/* Refusals are logged at most once per this period (sim_tournament_refused). */
#define SIM_TOURNAMENT_LOG_US 1000000

typedef enum {
    SIM_TOURNAMENT_ALLOWED = 0,
    SIM_TOURNAMENT_NOT_LISTED, /* the address is not in the port's list */
    SIM_TOURNAMENT_OTHER_TEAM, /* a team's address on the other team's port */
    SIM_TOURNAMENT_NO_SYNC,    /* a sync request from an address not in control's list */
} sim_tournament_verdict_t;

typedef struct sim_tournament_t sim_tournament_t;

/* The rules of `cfg` (copied; disabled rules allow everything). Returns
   NULL with the reason in why when a list does not parse, when an address
   is in both teams' lists, or when out of memory. */
sim_tournament_t *sim_tournament_new (const sim_tournament_cfg_t *cfg, char *why, size_t whylen);

/* Free the rules; nulls *self_p. Safe twice. */
void sim_tournament_destroy (sim_tournament_t **self_p);

/* Whether tournament mode is on. */
bool sim_tournament_enabled (const sim_tournament_t *self);

/* The roles (SIM_TOURNAMENT_ROLE bits) of `from`'s address: every role
   when tournament mode is off, none for an address in no list. */
unsigned sim_tournament_roles (const sim_tournament_t *self, const struct sockaddr_in *from);

/* May a datagram from `from` use `port`; with sync, may it be a sync
   request there. SIM_TOURNAMENT_ALLOWED, or why not. */
sim_tournament_verdict_t sim_tournament_check (const sim_tournament_t *self, sim_role_t port,
                                               const struct sockaddr_in *from, bool sync);

/* The message of the FORBIDDEN error for a refusal, into buf (always
   NUL-terminated); returns buf. */
const char *sim_tournament_explain (sim_tournament_verdict_t verdict, sim_role_t port,
                                    const struct sockaddr_in *from, char *buf, size_t size);

/* Count one refusal on `port` at now_us. Returns how many refusals to
   report in a log line now (this one and those since the last report),
   or 0 when the last report is less than SIM_TOURNAMENT_LOG_US old. */
uint64_t sim_tournament_refused (sim_tournament_t *self, sim_role_t port, int64_t now_us);

/* Refusals counted on `port` since the rules were made. */
uint64_t sim_tournament_refused_count (const sim_tournament_t *self, sim_role_t port);

#endif
