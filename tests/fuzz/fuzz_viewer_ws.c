/*  fuzz_viewer_ws.c - libFuzzer harness: one WebSocket text frame from a
    viewer page (docs/viewer.md "Page -> server"), through what the
    server's data handler does with it (services/viewer/vw_http.c
    s_ws_data): vw_json_parse_op, then for an op other than "next"
    vw_ops_encode with the context of a default run (the start formation
    on the field), and the datagram it makes on to the gateway's control
    port and a fresh physics (fz_datagram, as a team's datagram goes).
    The same bytes are also read as the gateway's answers to an op
    (vw_ops_decode, plain and sync), which the server reads from UDP.

    What must hold: a refused frame has its reason; an encoded op fits
    the buffer and is the protocol message its kind promises (a
    SimulationSyncRequest for "step", else a SimulatorCommand).
*/
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_support.h"
#include "common/config/config.h"
#include "services/viewer/vw_json.h"
#include "services/viewer/vw_ops.h"
#include "ssl_simulation_control.pb-c.h"
#include "ssl_simulation_synchronous.pb-c.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static vw_ops_ctx_t s_ctx;
static uint8_t s_buf[VW_OPS_DATAGRAM_MAX];

/* A default run's context, as the viewer keeps it (viewer.c): the
   configuration, the speed to resume at, the robots of the formation and
   one more beyond it (which "reset" takes off the field). */
static void
s_ctx_init (void)
{
    sim_config_defaults (&s_ctx.cfg);
    s_ctx.resume_speed = s_ctx.cfg.run.speed > 0 ? s_ctx.cfg.run.speed : 1.0;
    int n = 0;
    for (int team = 0; team < 2; team++)
        for (int id = 0; id <= s_ctx.cfg.sim.initial_robots_per_team && n < SIM_SNAPSHOT_MAX_ROBOTS; id++) {
            s_ctx.robots[n].team = team;
            s_ctx.robots[n].id = id;
            n++;
        }
    s_ctx.robot_count = n;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    static bool ready;
    if (!ready) {
        fz_init ();
        s_ctx_init ();
        ready = true;
    }
    char code[64], message[512];
    for (int sync = 0; sync < 2; sync++) {
        int rc = vw_ops_decode (data, size, sync, code, sizeof code, message, sizeof message);
        if (rc < -1 || rc > 1 || (rc == 1 && !code[0]))
            abort ();
    }

    vw_op_t op;
    char why[160] = "";
    if (vw_json_parse_op ((const char *) data, size, &op, why, sizeof why)) {
        if (!why[0])
            abort (); /* a refusal the page cannot read */
        return 0;
    }
    if (op.kind == VW_OP_NEXT)
        return 0;
    bool sync = false;
    why[0] = '\0';
    int len = vw_ops_encode (&op, &s_ctx, s_buf, sizeof s_buf, &sync, why, sizeof why);
    if (len < 0) {
        if (!why[0])
            abort ();
        return 0;
    }
    if ((size_t) len > sizeof s_buf || sync != (op.kind == VW_OP_STEP))
        abort ();
    if (sync) {
        SimulationSyncRequest *r = simulation_sync_request__unpack (NULL, (size_t) len, s_buf);
        if (!r)
            abort ();
        simulation_sync_request__free_unpacked (r, NULL);
    } else {
        SimulatorCommand *c = simulator_command__unpack (NULL, (size_t) len, s_buf);
        if (!c)
            abort ();
        simulator_command__free_unpacked (c, NULL);
    }
    fz_datagram (0, s_buf, (size_t) len);
    return 0;
}
