/*  test_gw_cap.c - services/gateway/gw_cap.c: an errors-only answer cut
    to a cap (what an untrusted source gets, common/bus/sim_trust.h):
    messages first, then errors from the last, nothing when not even a
    code fits.
*/
#include <criterion/criterion.h>
#include <stddef.h>

#include "services/gateway/gw_cap.h"

Test (gw_cap, an_answer_is_cut_messages_first_then_errors_then_nothing)
{
    sim_errors_t e;
    sim_errors_init (&e);
    sim_errors_add (&e, "FORBIDDEN", "tournament mode: 10.0.0.9 is not in [tournament] control");
    sim_errors_add (&e, "UNTRUSTED", "a 120-byte answer cut");
    size_t full = gw_cap_errors_size (&e, GW_PORT_CONTROL, false);
    cr_expect_eq (gw_cap_errors (&e, GW_PORT_CONTROL, false, full), (ssize_t) full, "fits: untouched");
    cr_expect_eq (e.count, 2);
    /* 40 bytes: the last message goes first */
    ssize_t n = gw_cap_errors (&e, GW_PORT_CONTROL, false, 40);
    cr_expect (n > 0 && n <= 40, "%zd", n);
    cr_expect_str_eq (e.ptrs[0]->code, "FORBIDDEN");
    cr_expect_null (e.ptrs[1]->message);
    /* 15 bytes: one code alone (2 + 2 + 9 = 13 bytes) */
    n = gw_cap_errors (&e, GW_PORT_CONTROL, false, 15);
    cr_expect (n > 0 && n <= 15, "%zd", n);
    cr_expect_eq (e.count, 1);
    cr_expect_str_eq (e.ptrs[0]->code, "FORBIDDEN", "the first error is the one kept");
    /* 12 bytes: nothing is sent */
    cr_expect_eq (gw_cap_errors (&e, GW_PORT_CONTROL, false, 12), -1);
    /* a sync answer wraps them in its RobotControlResponse */
    sim_errors_init (&e);
    sim_errors_add (&e, "UNTRUSTED", "a 65000-byte answer cut to 15");
    n = gw_cap_errors (&e, GW_PORT_BLUE, true, 15);
    cr_expect (n > 0 && n <= 15, "%zd", n);
    sim_errors_init (&e);
    cr_expect_eq (gw_cap_errors (&e, GW_PORT_BLUE, false, 1000), -1, "no error: nothing to send");
}
