/*  gw_answers.c - the answers a client gets (see gw_answers.h). */
#include "gw_answers.h"

#include "gateway_internal.h"
#include "gw_cap.h"
#include "gw_sync.h"
#include "common/bus/sim_trust.h"
#include "gw_translate.h"
#include "common/base/sim_log.h"
#include "common/bus/sim_udp.h"
#include "common/bus/sim_service.h"
#include "ssl_simulation_control.pb-c.h"
#include "ssl_simulation_robot_control.pb-c.h"
#include "ssl_simulation_synchronous.pb-c.h"

/* Every answer leaves here. */
static void
s_send (gw_service_t *self, gw_port_kind_t port, const struct sockaddr_in *to, size_t len)
{
    sim_udp_send (self->fds[port], self->buf, len, to);
}

/* The errors-only answer of `errors` (gw_cap_errors_size's message) into
   self->buf; its size. */
static size_t
s_pack_errors (gw_service_t *self, gw_port_kind_t port, bool sync, const sim_errors_t *errors)
{
    RobotControlResponse rr = ROBOT_CONTROL_RESPONSE__INIT;
    rr.n_errors = errors->count;
    rr.errors = (SimulatorError **) errors->ptrs;
    if (sync) {
        SimulationSyncResponse r = SIMULATION_SYNC_RESPONSE__INIT;
        r.robot_control_response = &rr;
        return simulation_sync_response__pack (&r, self->buf);
    }
    if (port == GW_PORT_CONTROL) {
        SimulatorResponse r = SIMULATOR_RESPONSE__INIT;
        r.n_errors = errors->count;
        r.errors = (SimulatorError **) errors->ptrs;
        return simulator_response__pack (&r, self->buf);
    }
    return robot_control_response__pack (&rr, self->buf);
}

/* An answer of len bytes to an untrusted source, over its cap: its errors
   and a notice that names the setting, cut to the cap (gw_cap), instead;
   nothing when not even an error's code fits. */
static void
s_send_cut (gw_service_t *self, gw_port_kind_t port, const struct sockaddr_in *to, bool sync,
            SimulatorError **errors, size_t n, size_t len, size_t cap)
{
    sim_errors_t *cut = &self->cut_errors;
    sim_errors_init (cut);
    sim_errors_add_wire (cut, errors, n < SIM_ERRORS_MAX ? n : SIM_ERRORS_MAX - 1);
    sim_errors_add (cut, "UNTRUSTED",
                    "a %zu-byte answer cut to %zu (%dx the request) for a source not in [network] "
                    "trusted_sources",
                    len, cap, SIM_TRUST_RATIO);
    if (self->answers_cut++ == 0) {
        char addr[32];
        sim_warn ("answers to sources not on loopback, in [tournament] or in [network] trusted_sources are "
                  "cut to %dx their request's bytes (the first: %s)",
                  SIM_TRUST_RATIO, sim_udp_addr_str (to, addr, sizeof addr));
    }
    if (gw_cap_errors (cut, port, sync, cap) < 0) {
        self->answers_withheld++;
        return;
    }
    s_send (self, port, to, s_pack_errors (self, port, sync, cut));
}

/* The errors-only answer of `errors`, within cap. */
static void
s_answer_errors (gw_service_t *self, gw_port_kind_t port, const struct sockaddr_in *to, bool sync,
                 const sim_errors_t *errors, size_t cap)
{
    size_t len = gw_cap_errors_size (errors, port, sync);
    if (len > cap)
        s_send_cut (self, port, to, sync, (SimulatorError **) errors->ptrs, errors->count, len, cap);
    else if (len > GW_DATAGRAM_MAX)
        sim_warn ("%s reply of %zu bytes does not fit a datagram; dropped", gw_port_name (port), len);
    else
        s_send (self, port, to, s_pack_errors (self, port, sync, errors));
}

/* Physics' answer `msg` to a plain request, whose errors are errors[n],
   within cap. */
static void
s_send_packed (gw_service_t *self, gw_port_kind_t port, const struct sockaddr_in *to,
               const ProtobufCMessage *msg, SimulatorError **errors, size_t n, size_t cap)
{
    size_t len = protobuf_c_message_get_packed_size (msg);
    if (len > cap) {
        s_send_cut (self, port, to, false, errors, n, len, cap);
        return;
    }
    if (len > GW_DATAGRAM_MAX) {
        sim_warn ("%s reply of %zu bytes does not fit a datagram; dropped", gw_port_name (port), len);
        return;
    }
    protobuf_c_message_pack (msg, self->buf);
    s_send (self, port, to, len);
}

void
gw_answer_errors (gw_service_t *self, gw_port_kind_t port, const struct sockaddr_in *to, bool sync,
                  const sim_errors_t *errors)
{
    self->stats[port].refused++;
    s_answer_errors (self, port, to, sync, errors, self->rx_cap);
}

void
gw_answer_unreadable (gw_service_t *self, gw_port_kind_t port, const struct sockaddr_in *from)
{
    self->unreadable++;
    sim_errors_t errors;
    sim_errors_init (&errors);
    gw_translate_unreadable (port, &errors);
    gw_answer_errors (self, port, from, false, &errors);
}

void
gw_answer_refused (gw_service_t *self, gw_port_kind_t port, const struct sockaddr_in *from)
{
    self->sync_refused++;
    sim_errors_t errors;
    sim_errors_init (&errors);
    sim_errors_add (&errors, "REFUSED",
                    "the simulator runs in %s mode and [network] sync_takeover is off: "
                    "no sync steps",
                    self->cfg.run.mode == SIM_MODE_FAST ? "fast" : "realtime");
    gw_answer_errors (self, port, from, true, &errors);
}

void
gw_answer_plain (gw_service_t *self, const gw_request_t *p, const Simbus__Reply *reply)
{
    if (p->kind == GW_REQ_COMMAND) {
        SimulatorResponse r = SIMULATOR_RESPONSE__INIT;
        r.n_errors = reply->n_errors;
        r.errors = reply->errors;
        s_send_packed (self, p->port, &p->from, &r.base, r.errors, r.n_errors, p->answer_cap);
    } else if (!p->first
               && gw_loss_draw (&self->loss, self->cfg.sim.seed, self->sim_time_ns, p->port,
                                self->cfg.realism.robot_response_loss)) {
        self->lost_responses++;
        self->stats[p->port].lost++;
    } else {
        RobotControlResponse r = ROBOT_CONTROL_RESPONSE__INIT;
        r.n_errors = reply->n_robot_errors;
        r.errors = reply->robot_errors;
        r.n_feedback = reply->n_feedback;
        r.feedback = reply->feedback;
        s_send_packed (self, p->port, &p->from, &r.base, r.errors, r.n_errors, p->answer_cap);
    }
}

void
gw_answer_unavailable (gw_service_t *self, const gw_request_t *p)
{
    self->unavailable++;
    if (self->unavailable == 1)
        sim_warn ("%s did not answer a request within %.1f s; answered UNAVAILABLE",
                  sim_service_names[SIM_SERVICE_PHYSICS], GW_PLAIN_TTL_US / 1e6);
    sim_errors_t errors;
    sim_errors_init (&errors);
    sim_errors_add (&errors, "UNAVAILABLE",
                    "the simulator did not answer within %.1f s; the request may or may not be applied",
                    GW_PLAIN_TTL_US / 1e6);
    self->stats[p->port].refused++;
    s_answer_errors (self, p->port, &p->from, false, &errors, p->answer_cap);
}

void
gw_answer_sync (gw_service_t *self, gw_request_t *p)
{
    size_t len = 0, left_out = 0;
    if (gw_sync_answer (p, &self->answer_errors, self->buf, SIM_UDP_MAX, &len, &left_out) == 0) {
        if (len > p->answer_cap)
            s_send_cut (self, p->port, &p->from, true, self->answer_errors.ptrs, self->answer_errors.count,
                        len, p->answer_cap);
        else
            s_send (self, p->port, &p->from, len);
        self->sync_answers++;
    }
    self->frames_dropped += left_out;
    gw_pending_release (self->pending, p);
}
