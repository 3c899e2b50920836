/*  gw_sync.c - sync step size and answer assembly (see gw_sync.h). */
#include "gw_sync.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>

#include "gw_wire.h"
#include "common/base/sim_log.h"
#include "engine/world/sim_step.h"
#include "ssl_simulation_robot_control.pb-c.h"

/* field numbers of ssl_vision_wrapper.proto and ssl_simulation_synchronous.proto */
#define GW_WRAPPER_DETECTION       1
#define GW_SYNC_RESPONSE_DETECTION 1
#define GW_SYNC_RESPONSE_RCR       2

int64_t
gw_sync_substeps (const SimulationSyncRequest *req, double substep_s, char *why, size_t why_len)
{
    if (!req->has_sim_step)
        return 0;
    char reason[160] = "";
    int64_t n = sim_step_substeps ((double) req->sim_step, substep_s, reason, sizeof reason);
    if (n < 0 && why && why_len)
        snprintf (why, why_len, "sim_step %s", reason);
    return n;
}

int
gw_sync_answer (const gw_request_t *req, sim_errors_t *errors, uint8_t *buf, size_t cap, size_t *len,
                size_t *left_out)
{
    assert (cap >= GW_DATAGRAM_MAX);
    *left_out = 0;
    const Simbus__Reply *reply = req->reply;
    /* each packet's detection frame, spliced as it is: unpacking and
       packing them again was a good part of the answer's time */
    const uint8_t *detections[GW_SYNC_FRAMES];
    size_t lens[GW_SYNC_FRAMES];
    size_t n = 0;
    for (size_t i = 0; i < req->frame_count; i++)
        if (gw_wire_bytes_field (zchunk_data (req->frames[i]), zchunk_size (req->frames[i]),
                                 GW_WRAPPER_DETECTION, &detections[n], &lens[n]))
            n++;
    sim_errors_init (errors);
    if (reply) {
        sim_errors_add_wire (errors, reply->robot_errors, reply->n_robot_errors);
        sim_errors_add_wire (errors, reply->errors, reply->n_errors);
    }
    sim_errors_add_wire (errors, req->early->ptrs, req->early->count);
    RobotControlResponse rcr = ROBOT_CONTROL_RESPONSE__INIT;
    bool with_rcr = errors->count > 0 || req->team_robot_control;
    size_t rcr_len = 0;
    if (with_rcr) {
        rcr.n_errors = errors->count;
        rcr.errors = errors->ptrs;
        if (reply) {
            rcr.n_feedback = reply->n_feedback;
            rcr.feedback = reply->feedback;
        }
        rcr_len = robot_control_response__get_packed_size (&rcr);
    }
    /* a datagram holds about 90 frames of a full field: a longer step
       keeps its newest frames (docs/protocol.md) */
    size_t limit = GW_DATAGRAM_MAX;
    size_t total = with_rcr ? gw_wire_bytes_size (GW_SYNC_RESPONSE_RCR, rcr_len) : 0;
    size_t first = n;
    while (first > 0 && total + gw_wire_bytes_size (GW_SYNC_RESPONSE_DETECTION, lens[first - 1]) <= limit) {
        first--;
        total += gw_wire_bytes_size (GW_SYNC_RESPONSE_DETECTION, lens[first]);
    }
    if (total > GW_DATAGRAM_MAX) {
        sim_warn ("sync answer of %zu bytes does not fit a datagram; dropped", total);
        return -1;
    }
    if (first > 0) {
        *left_out = first;
        sim_warn ("sync step of %zu frames does not fit a datagram; the oldest %zu left out", n, first);
    }
    /* fields in number order, as protobuf-c packs them */
    size_t at = 0;
    for (size_t i = first; i < n; i++)
        at += gw_wire_put_bytes (buf + at, GW_SYNC_RESPONSE_DETECTION, detections[i], lens[i]);
    if (with_rcr) {
        uint8_t *packed = buf + at + gw_wire_bytes_size (GW_SYNC_RESPONSE_RCR, rcr_len) - rcr_len;
        robot_control_response__pack (&rcr, packed);
        at += gw_wire_put_bytes (buf + at, GW_SYNC_RESPONSE_RCR, packed, rcr_len);
    }
    *len = at;
    return 0;
}
