/*  gw_tournament.h - tournament mode of the gateway (docs/protocol.md,
    "Tournament mode"): which source address may use which port.

    [tournament] lists the addresses of blue, yellow and control. When it
    is enabled, each port takes datagrams only from its own list: the blue
    port from blue's addresses, the yellow port from yellow's, the control
    port from control's; a sync request, on any port, only from a control
    address. An address may be in the control list and one team's list
    (a lab machine running a team and the game controller), never in both
    teams' lists. Addresses are IPs: the source port does not matter.

    Pure: no socket, no clock of its own (the refusal counter is told the
    time), no log. The gateway answers a refusal with a FORBIDDEN error and
    logs what gw_tournament_refused says is due.
*/
#ifndef GW_TOURNAMENT_H_INCLUDED
#define GW_TOURNAMENT_H_INCLUDED

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gw_port.h"
#include "common/config/sim_config.h"

/* A role per port, as bits: GW_TOURNAMENT_ROLE (GW_PORT_BLUE) = blue. */
#define GW_TOURNAMENT_ROLE(port) (1u << (port))

/* Refusals are logged at most once per this period (gw_tournament_refused). */
#define GW_TOURNAMENT_LOG_US 1000000

typedef enum {
    GW_TOURNAMENT_ALLOWED = 0,
    GW_TOURNAMENT_NOT_LISTED, /* the address is not in the port's list */
    GW_TOURNAMENT_OTHER_TEAM, /* a team's address on the other team's port */
    GW_TOURNAMENT_NO_SYNC,    /* a sync request from an address not in control's list */
} gw_tournament_verdict_t;

typedef struct gw_tournament_t gw_tournament_t;

/* The rules of `cfg` (copied; disabled rules allow everything). Returns
   NULL with the reason in why when a list does not parse, when an address
   is in both teams' lists, or when out of memory. */
gw_tournament_t *gw_tournament_new (const sim_tournament_cfg_t *cfg, char *why, size_t whylen);

/* Free the rules; nulls *self_p. Safe twice. */
void gw_tournament_destroy (gw_tournament_t **self_p);

/* Whether tournament mode is on. */
bool gw_tournament_enabled (const gw_tournament_t *self);

/* The roles (GW_TOURNAMENT_ROLE bits) of `from`'s address: every role
   when tournament mode is off, none for an address in no list. */
unsigned gw_tournament_roles (const gw_tournament_t *self, const struct sockaddr_in *from);

/* May a datagram from `from` use `port`; with sync, may it be a sync
   request there. GW_TOURNAMENT_ALLOWED, or why not. */
gw_tournament_verdict_t gw_tournament_check (const gw_tournament_t *self, gw_port_kind_t port,
                                             const struct sockaddr_in *from, bool sync);

/* The message of the FORBIDDEN error for a refusal, into buf (always
   NUL-terminated); returns buf. */
const char *gw_tournament_explain (gw_tournament_verdict_t verdict, gw_port_kind_t port,
                                   const struct sockaddr_in *from, char *buf, size_t size);

/* Count one refusal on `port` at now_us. Returns how many refusals to
   report in a log line now (this one and those since the last report),
   or 0 when the last report is less than GW_TOURNAMENT_LOG_US old. */
uint64_t gw_tournament_refused (gw_tournament_t *self, gw_port_kind_t port, int64_t now_us);

/* Refusals counted on `port` since the rules were made. */
uint64_t gw_tournament_refused_count (const gw_tournament_t *self, gw_port_kind_t port);

#endif
