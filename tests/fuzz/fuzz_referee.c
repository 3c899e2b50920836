/*  fuzz_referee.c - libFuzzer harness: one datagram on the referee
    multicast, which anyone on the field's network can send. It goes
    through sim_referee_decode, as the viewer's listener and the log
    player decode it, and what decodes goes on into the page's status
    message (vw_json_status), as a page would receive it.

    What must hold whatever the input: every string the decoder keeps is
    NUL-terminated within its field and well-formed UTF-8, the names of
    the stage and the commands are the league's or "UNKNOWN", a kept
    placement target is finite, at most SIM_REFEREE_CARDS cards are kept,
    and the status text is valid UTF-8 (a WebSocket text frame; a browser
    drops the connection over one bad byte) that parses back as JSON.
*/
#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_support.h"
#include "common/base/sim_utf8.h"
#include "common/logs/sim_referee.h"
#include "services/viewer/vw_json.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void
s_check_text (const char *what, const char *s, size_t cap)
{
    size_t n = strnlen (s, cap);
    if (n == cap || !sim_utf8_valid (s, n)) {
        fprintf (stderr, "fuzz_referee: %s is not a well-formed string within its %zu bytes\n", what, cap);
        abort ();
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    static vw_status_t st; /* large: not on the stack */
    sim_referee_t *r = &st.referee;
    if (sim_referee_decode (data, size, r) != 0)
        return 0;
    for (int t = 0; t < 2; t++) {
        s_check_text ("a team name", r->team[t].name, sizeof r->team[t].name);
        if (r->team[t].n_yellow_running < 0 || r->team[t].n_yellow_running > SIM_REFEREE_CARDS)
            abort ();
    }
    s_check_text ("the status message", r->status_message, sizeof r->status_message);
    if (r->has_placement && !(isfinite (r->placement_x) && isfinite (r->placement_y)))
        abort ();
    if (!sim_referee_stage_name (r->stage) || !sim_referee_command_name (r->command))
        abort ();
    st.has_referee = true;
    st.referee_age_s = 0.5;
    char *text = vw_json_status (&st);
    if (!text)
        return 0; /* out of memory: the page misses one status */
    if (!sim_utf8_valid (text, strlen (text))) {
        fprintf (stderr, "fuzz_referee: the status is not UTF-8: %s\n", text);
        abort ();
    }
    cJSON *back = cJSON_Parse (text);
    if (!back) {
        fprintf (stderr, "fuzz_referee: the status does not parse: %s\n", text);
        abort ();
    }
    cJSON_Delete (back);
    free (text);
    return 0;
}
