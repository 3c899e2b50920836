/*  test_curve.c - common/bus/sim_curve: certificates written and loaded, every
    configuration error named by key and file, and on 127.0.0.1 a CURVE
    server that lets the allowed client in and refuses one without a key
    and one with a key it does not know. Waits are on socket events. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/bus/sim_curve.h"
#include "common/bus/sim_link.h"

typedef struct {
    char dir[64], allow[96], server[96], client[96], stranger[96];
    sim_bus_cfg_t bus;
} s_keys_t;

static void
s_path (char *buf, size_t len, const char *dir, const char *name)
{
    snprintf (buf, len, "%s/%s", dir, name);
}

/* A temporary directory with a server and a client certificate, the
   client's public one in allow/, and a stranger's nowhere. */
static void
s_keys (s_keys_t *k)
{
    memset (k, 0, sizeof *k);
    snprintf (k->dir, sizeof k->dir, "/tmp/test_curve.XXXXXX");
    cr_assert_not_null (mkdtemp (k->dir));
    s_path (k->allow, sizeof k->allow, k->dir, "allow");
    s_path (k->server, sizeof k->server, k->dir, "server.cert");
    s_path (k->client, sizeof k->client, k->dir, "allow/client.cert");
    s_path (k->stranger, sizeof k->stranger, k->dir, "stranger.cert");
    cr_assert_eq (mkdir (k->allow, 0700), 0);
    char err[256];
    cr_assert_eq (sim_curve_keygen (k->server, err, sizeof err), 0, "%s", err);
    cr_assert_eq (sim_curve_keygen (k->client, err, sizeof err), 0, "%s", err);
    cr_assert_eq (sim_curve_keygen (k->stranger, err, sizeof err), 0, "%s", err);
    /* keep the client's secret out of the allowed directory */
    char from[128], to[128];
    snprintf (from, sizeof from, "%s_secret", k->client);
    snprintf (to, sizeof to, "%s/client.cert_secret", k->dir);
    cr_assert_eq (rename (from, to), 0);
    s_path (k->client, sizeof k->client, k->dir, "client.cert");
    snprintf (from, sizeof from, "%s/allow/client.cert", k->dir);
    cr_assert_eq (link (from, k->client), 0);
    k->bus.curve = true;
    snprintf (k->bus.curve_allow, sizeof k->bus.curve_allow, "%s", k->allow);
    snprintf (k->bus.curve_cert, sizeof k->bus.curve_cert, "%s", k->server);
    snprintf (k->bus.curve_server, sizeof k->bus.curve_server, "%s", k->server);
}

static void
s_keys_remove (const s_keys_t *k)
{
    char cmd[128];
    snprintf (cmd, sizeof cmd, "rm -rf '%s'", k->dir);
    cr_expect_eq (system (cmd), 0);
}

Test (curve, keygen_writes_a_private_secret_and_never_overwrites)
{
    s_keys_t k;
    s_keys (&k);
    char secret[128], err[256];
    snprintf (secret, sizeof secret, "%s_secret", k.server);
    struct stat st;
    cr_assert_eq (stat (secret, &st), 0);
    cr_expect_eq (st.st_mode & 0777, 0600, "the secret is mode %o", st.st_mode & 0777);
    cr_assert_eq (stat (k.server, &st), 0);
    cr_expect_eq (st.st_mode & 0777, 0644, "the public certificate is mode %o", st.st_mode & 0777);
    zcert_t *cert = zcert_load (k.server);
    cr_assert_not_null (cert);
    zcert_destroy (&cert);
    cr_expect_eq (sim_curve_keygen (k.server, err, sizeof err), -1,
                  "an existing certificate was overwritten");
    cr_expect_not_null (strstr (err, "exists"), "%s", err);
    s_keys_remove (&k);
}

/* sim_curve_new must fail for `bus` and say `words` (a key, a file). */
static void
s_expect_refused (const sim_bus_cfg_t *bus, unsigned needs, const char *words, const char *words2)
{
    char err[512] = "";
    sim_curve_t *curve = sim_curve_new (bus, needs, "test", err, sizeof err);
    cr_expect_null (curve, "accepted, expected an error about %s", words);
    sim_curve_destroy (&curve);
    cr_expect_not_null (strstr (err, words), "'%s' does not name %s", err, words);
    if (words2)
        cr_expect_not_null (strstr (err, words2), "'%s' does not name %s", err, words2);
}

Test (curve, every_bad_key_file_is_refused_naming_the_key_and_the_file)
{
    s_keys_t k;
    s_keys (&k);
    sim_bus_cfg_t bus = k.bus;
    char secret[128];
    snprintf (secret, sizeof secret, "%s_secret", k.server);

    bus.curve_cert[0] = '\0';
    s_expect_refused (&bus, SIM_CURVE_PHYSICS, "curve_cert is empty", NULL);

    bus = k.bus;
    snprintf (bus.curve_cert, sizeof bus.curve_cert, "%s/missing.cert", k.dir);
    s_expect_refused (&bus, SIM_CURVE_PHYSICS, "curve_cert", "missing.cert_secret");

    /* a public certificate where ours (with its secret) should be */
    bus = k.bus;
    snprintf (bus.curve_cert, sizeof bus.curve_cert, "%s/allow/client.cert", k.dir);
    s_expect_refused (&bus, SIM_CURVE_PHYSICS, "curve_cert", "client.cert_secret");

    bus = k.bus;
    cr_assert_eq (chmod (secret, 0640), 0);
    s_expect_refused (&bus, SIM_CURVE_PHYSICS, "curve_cert", "open to other users");
    cr_assert_eq (chmod (secret, 0600), 0);

    bus = k.bus;
    char junk[128];
    snprintf (junk, sizeof junk, "%s/junk", k.dir);
    FILE *f = fopen (junk, "w");
    cr_assert_not_null (f);
    fputs ("this is not a certificate\n", f);
    fclose (f);
    snprintf (bus.curve_server, sizeof bus.curve_server, "%s", junk);
    s_expect_refused (&bus, SIM_CURVE_PHYSICS, "curve_server", "not a certificate");

    bus = k.bus;
    bus.curve_server[0] = '\0';
    /* not "keygen makes one": a server key is copied from the server's
       computer (or is physics' own curve_cert on physics' computer) */
    s_expect_refused (&bus, SIM_CURVE_PHYSICS, "curve_server is empty", "the server's public certificate");
    /* frames fall back to curve_server, so its name is the one missing */
    s_expect_refused (&bus, SIM_CURVE_VISION, "curve_server is empty", NULL);
    snprintf (bus.curve_frames_server, sizeof bus.curve_frames_server, "%s/nope.cert", k.dir);
    s_expect_refused (&bus, SIM_CURVE_VISION, "curve_frames_server", "nope.cert");

    bus = k.bus;
    bus.curve_allow[0] = '\0';
    s_expect_refused (&bus, SIM_CURVE_SERVE, "curve_allow is empty", NULL);
    snprintf (bus.curve_allow, sizeof bus.curve_allow, "%s", junk);
    s_expect_refused (&bus, SIM_CURVE_SERVE, "curve_allow", "is not a directory");

    /* what a role does not use is not asked for */
    bus = k.bus;
    bus.curve_server[0] = '\0';
    char err[512];
    sim_curve_t *curve = sim_curve_new (&bus, SIM_CURVE_SERVE, "test", err, sizeof err);
    cr_expect_not_null (curve, "a binder needs no server key: %s", err);
    sim_curve_destroy (&curve);
    sim_curve_destroy (&curve);
    s_keys_remove (&k);
}

Test (curve, a_link_with_a_bad_key_does_not_start_and_curve_off_changes_nothing)
{
    s_keys_t k;
    s_keys (&k);
    sim_config_t cfg;
    memset (&cfg, 0, sizeof cfg);
    cfg.bus = k.bus;
    snprintf (cfg.bus.cmd_connect, sizeof cfg.bus.cmd_connect, "tcp://127.0.0.1:9");
    snprintf (cfg.bus.world_connect, sizeof cfg.bus.world_connect, "tcp://127.0.0.1:9");
    snprintf (cfg.bus.frames_connect, sizeof cfg.bus.frames_connect, "tcp://127.0.0.1:9");
    snprintf (cfg.bus.curve_cert, sizeof cfg.bus.curve_cert, "%s/missing.cert", k.dir);
    sim_link_t *link = sim_link_new (&cfg, SIM_LINK_TOOL);
    cr_expect_null (link, "a tool link started without its certificate");
    sim_link_destroy (&link);
    cfg.bus.curve = false; /* the same files, but off: nothing is read */
    link = sim_link_new (&cfg, SIM_LINK_TOOL);
    cr_expect_not_null (link);
    sim_link_destroy (&link);
    /* on, with only ipc endpoints: nothing is read either */
    cfg.bus.curve = true;
    snprintf (cfg.bus.cmd_connect, sizeof cfg.bus.cmd_connect, "ipc://%s/cmd", k.dir);
    snprintf (cfg.bus.world_connect, sizeof cfg.bus.world_connect, "ipc://%s/world", k.dir);
    snprintf (cfg.bus.frames_connect, sizeof cfg.bus.frames_connect, "ipc://%s/frames", k.dir);
    link = sim_link_new (&cfg, SIM_LINK_TOOL);
    cr_expect_not_null (link);
    sim_link_destroy (&link);
    s_keys_remove (&k);
}

/* ---- on the wire -------------------------------------------------------- */

/* A SUB to `endpoint` with a monitor of its handshake; cert NULL: no CURVE. */
static zsock_t *
s_client (const char *endpoint, const char *cert_path, const char *server_path, zactor_t **monitor)
{
    zsock_t *sub = zsock_new (ZMQ_SUB);
    cr_assert_not_null (sub);
    *monitor = zactor_new (zmonitor, sub);
    zstr_sendx (*monitor, "LISTEN", "HANDSHAKE_SUCCEEDED", "HANDSHAKE_FAILED_PROTOCOL",
                "HANDSHAKE_FAILED_AUTH", NULL);
    zstr_sendx (*monitor, "START", NULL);
    zsock_wait (*monitor);
    if (cert_path) {
        zcert_t *cert = zcert_load (cert_path);
        zcert_t *server = zcert_load (server_path);
        cr_assert (cert && server);
        zcert_apply (cert, sub);
        zsock_set_curve_serverkey (sub, zcert_public_txt (server));
        zcert_destroy (&cert);
        zcert_destroy (&server);
    }
    zsock_set_subscribe (sub, "");
    cr_assert_eq (zsock_connect (sub, "%s", endpoint), 0);
    return sub;
}

/* The first handshake event the client's monitor reports, within 5 s. */
static char *
s_handshake (zactor_t *monitor)
{
    zsock_set_rcvtimeo (monitor, 5000);
    zmsg_t *msg = zmsg_recv (monitor);
    char *event = msg ? zmsg_popstr (msg) : NULL;
    zmsg_destroy (&msg);
    return event;
}

Test (curve, a_server_admits_the_allowed_key_and_refuses_no_key_and_a_stranger, .timeout = 30)
{
    s_keys_t k;
    s_keys (&k);
    char err[512];
    sim_curve_t *curve = sim_curve_new (&k.bus, SIM_CURVE_SERVE, "test", err, sizeof err);
    cr_assert_not_null (curve, "%s", err);
    zsock_t *pub = zsock_new (ZMQ_XPUB);
    cr_assert_eq (sim_curve_serve (curve, pub, "frames", "tcp://127.0.0.1:*"), 0);
    cr_assert_gt (zsock_bind (pub, "tcp://127.0.0.1:*"), 0);
    char endpoint[64];
    snprintf (endpoint, sizeof endpoint, "%s", zsock_endpoint (pub));

    zactor_t *m_ok, *m_none, *m_stranger;
    zsock_t *ok = s_client (endpoint, k.client, k.server, &m_ok);
    zsock_t *none = s_client (endpoint, NULL, NULL, &m_none);
    zsock_t *stranger = s_client (endpoint, k.stranger, k.server, &m_stranger);

    char *event = s_handshake (m_ok);
    cr_expect_str_eq (event ? event : "(none)", "HANDSHAKE_SUCCEEDED");
    zstr_free (&event);
    event = s_handshake (m_none);
    cr_expect_str_eq (event ? event : "(none)", "HANDSHAKE_FAILED_PROTOCOL");
    zstr_free (&event);
    event = s_handshake (m_stranger);
    cr_expect_str_eq (event ? event : "(none)", "HANDSHAKE_FAILED_AUTH");
    zstr_free (&event);

    /* the allowed subscriber's subscription arrives, then what is published */
    zsock_set_rcvtimeo (pub, 5000);
    zframe_t *sub = zframe_recv (pub);
    cr_expect_not_null (sub, "no subscription from the allowed client");
    zframe_destroy (&sub);
    zstr_send (pub, "hello");
    zsock_set_rcvtimeo (ok, 5000);
    char *got = zstr_recv (ok);
    cr_expect_str_eq (got ? got : "(nothing)", "hello");
    zstr_free (&got);
    zsock_set_rcvtimeo (none, 0);
    zsock_set_rcvtimeo (stranger, 0);
    cr_expect_null (zstr_recv (none));
    cr_expect_null (zstr_recv (stranger));

    zactor_destroy (&m_ok);
    zactor_destroy (&m_none);
    zactor_destroy (&m_stranger);
    zsock_destroy (&ok);
    zsock_destroy (&none);
    zsock_destroy (&stranger);
    zsock_destroy (&pub);
    sim_curve_destroy (&curve);
    s_keys_remove (&k);
}
