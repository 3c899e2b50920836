/*  test_edge.c - the hardened edge of issue 11 against a real ssl-sim on
    127.0.0.1: a burst of the hex reproducers that used to get no answer
    from one source, which used to starve every other client, and
    --localhost keeping the protocol ports on the loopback interface. That
    each reproducer is answered is tests/service/test_gateway_service.c's
    (unknown_field_zero, field_zero_every_time).
*/
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/sim_fixture.h"
#include "ssl_simulation_control.pb-c.h"

static const char *const SYNC_ARGS[] = { "--mode", "sync", "--realism", "none", NULL };

/* Send `hex` (two digits a byte) to 127.0.0.1:port from fd. */
static void
s_send_hex (int fd, int port, const char *hex)
{
    uint8_t bytes[64];
    size_t n = strlen (hex) / 2;
    cr_assert_leq (n, sizeof bytes);
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        cr_assert_eq (sscanf (hex + 2 * i, "%2x", &v), 1);
        bytes[i] = (uint8_t) v;
    }
    cr_assert_eq (sim_test_send_raw (fd, port, bytes, n), 0);
}

/* Regression: 1 100 datagrams `80 00 00` in a burst held all 1 024 pending
   slots for 2 s, and a client on another source got 0 of 10 answers. */
Test (edge, a_burst_from_one_source_starves_no_other, .timeout = 60)
{
    sim_fixture_t f;
    cr_assert_eq (sim_fixture_start (&f, SYNC_ARGS, NULL, SIM_FIXTURE_GATEWAY), 0, "ssl-sim did not come up");
    for (int i = 0; i < 1100; i++)
        s_send_hex (f.fd, f.proc.control_port, "800000");
    int client = sim_fixture_socket (&f, 0);
    cr_assert_geq (client, 0);
    uint8_t buf[65536];
    SimulatorCommand empty = SIMULATOR_COMMAND__INIT;
    int answered = 0;
    for (int i = 0; i < 10; i++)
        answered += sim_test_call (client, f.proc.control_port, &empty.base, buf, sizeof buf, 1000) >= 0;
    cr_expect_eq (answered, 10, "the other client got %d of 10 answers", answered);
    /* the burst's own answers: never more than one each */
    int burst = sim_test_drain (f.fd);
    cr_expect_leq (burst, 1100, "%d answers to 1100 datagrams", burst);
    cr_expect_eq (sim_fixture_stop (&f), 0);
}

/* The local address /proc/net/udp lists for UDP port `port` (host
   order), or -1 when no socket is bound to it. */
static int64_t
s_bound_address (int port)
{
    FILE *file = fopen ("/proc/net/udp", "r");
    cr_assert_not_null (file, "no /proc/net/udp");
    char line[512];
    int64_t found = -1;
    while (fgets (line, sizeof line, file)) {
        unsigned slot, addr, lport;
        if (sscanf (line, " %u: %8x:%4x", &slot, &addr, &lport) == 3 && (int) lport == port)
            found = (int64_t) ntohl (addr);
    }
    fclose (file);
    return found;
}

/* Regression: --localhost sent vision to 127.0.0.1 but bound the
   protocol ports on every interface, whatever bind_address said. */
Test (edge, localhost_binds_every_protocol_port_to_loopback, .timeout = 60)
{
    sim_fixture_t f;
    /* sim_proc_start passes --localhost; bind_address asks for all */
    const char *ini = "[network]\nbind_address = 0.0.0.0\nlegacy_bind_address = 0.0.0.0\n";
    cr_assert_eq (sim_fixture_start (&f, SYNC_ARGS, ini, SIM_FIXTURE_GATEWAY | SIM_FIXTURE_SERVICES), 0,
                  "ssl-sim did not come up");
    const int ports[4] = { f.proc.control_port, f.proc.blue_port, f.proc.yellow_port, f.proc.legacy_port };
    const char *names[4] = { "control", "blue", "yellow", "legacy" };
    for (int i = 0; i < 4; i++)
        cr_expect_eq (s_bound_address (ports[i]), INADDR_LOOPBACK, "the %s port %d is bound to %llx",
                      names[i], ports[i], (long long) s_bound_address (ports[i]));
    cr_expect_eq (sim_fixture_stop (&f), 0);
}
