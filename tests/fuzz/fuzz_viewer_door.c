/*  fuzz_viewer_door.c - libFuzzer harness: one HTTP request head at the
    viewer's door (services/viewer/vw_door.h), as civetweb hands it to
    the server's begin_request: the method, the path and query, the Host,
    Origin and Upgrade headers, decided by vw_door_admit for three doors
    (a viewer on loopback, one on every interface with a token, one in
    tournament mode); an admitted handshake then asks vw_door_may_act
    from the address of an extra `Remote:` line (the peer civetweb would
    report; 127.0.0.1 without one).

    The input is text: a request line, then `Name: value` lines. The
    harness only splits it into the strings civetweb would give (the
    first header of a name wins, as mg_get_header's); every decision is
    the door's. What must hold whatever the input: a refusal is 403 or
    405 with its sentence, a verdict with the token came with it in the
    query, and only a handshake holds one.
*/
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "fuzz_support.h"
#include "common/config/config.h"
#include "services/viewer/vw_door.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

#define FZ_DOORS 3
#define FZ_HEAD  8192 /* civetweb's default max_request_size is 16 KB */

static vw_door_t *s_doors[FZ_DOORS];
static char s_dir[] = "/tmp/fuzz-viewer-door-XXXXXX"; /* the doors' token and page address */

/* At exit: the doors (which remove viewer.url), the token, the folder. */
static void
s_doors_fini (void)
{
    for (int i = 0; i < FZ_DOORS; i++)
        vw_door_destroy (&s_doors[i]);
    char path[sizeof s_dir + 32];
    snprintf (path, sizeof path, "%s/%s", s_dir, VW_DOOR_FILE);
    unlink (path);
    rmdir (s_dir);
}

static void
s_doors_init (void)
{
    char *dir = mkdtemp (s_dir);
    if (!dir || atexit (s_doors_fini))
        abort ();
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    s_doors[0] = vw_door_new (&cfg, "127.0.0.1", 8080, NULL);
    s_doors[1] = vw_door_new (&cfg, "0.0.0.0", 8080, dir);
    cfg.tournament.enabled = true;
    snprintf (cfg.tournament.control, sizeof cfg.tournament.control, "127.0.0.1, 10.0.0.5");
    snprintf (cfg.tournament.blue, sizeof cfg.tournament.blue, "10.0.0.1");
    snprintf (cfg.tournament.yellow, sizeof cfg.tournament.yellow, "10.0.0.2");
    s_doors[2] = vw_door_new (&cfg, "127.0.0.1", 8080, dir);
    for (int i = 0; i < FZ_DOORS; i++)
        if (!s_doors[i])
            abort ();
}

/* `line` (NUL-terminated) as `Name: value`: the value when the name is
   `name`, else NULL. */
static char *
s_header (char *line, const char *name)
{
    size_t n = strlen (name);
    if (strncasecmp (line, name, n) != 0 || line[n] != ':')
        return NULL;
    char *v = line + n + 1;
    while (*v == ' ' || *v == '\t')
        v++;
    return v;
}

/* true when `query` holds the door's token as token=HEX (any case) */
static bool
s_query_has (const char *query, const char *token)
{
    size_t n = strlen (token);
    for (const char *p = query; p && (p = strstr (p, "token=")) != NULL; p += 6)
        if (strncasecmp (p + 6, token, n) == 0)
            return true;
    return false;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    static bool ready;
    if (!ready) {
        fz_init ();
        s_doors_init ();
        ready = true;
    }
    if (size >= FZ_HEAD)
        return 0;
    char head[FZ_HEAD];
    memcpy (head, data, size);
    head[size] = '\0';

    /* the request line: METHOD TARGET [VERSION] */
    char *rest = head, *line = strsep (&rest, "\n");
    char *method = strsep (&line, " "), *target = line ? strsep (&line, " ") : NULL;
    char *query = NULL;
    if (target && (query = strchr (target, '?')) != NULL)
        *query++ = '\0';
    char *host = NULL, *origin = NULL, *upgrade = NULL, *remote = NULL;
    while (rest) {
        line = strsep (&rest, "\n");
        line[strcspn (line, "\r")] = '\0';
        char *v;
        if (!host && (v = s_header (line, "Host")))
            host = v;
        else if (!origin && (v = s_header (line, "Origin")))
            origin = v;
        else if (!upgrade && (v = s_header (line, "Upgrade")))
            upgrade = v;
        else if (!remote && (v = s_header (line, "Remote")))
            remote = v;
    }

    for (int i = 0; i < FZ_DOORS; i++) {
        vw_door_t *door = s_doors[i];
        vw_door_verdict_t verdict;
        int status = vw_door_admit (door, method, target, query, host, origin, upgrade, &verdict);
        if (status != verdict.status || (status != 0 && status != 403 && status != 405)
            || (status != 0) != (verdict.why != NULL) || (verdict.has_token && !verdict.handshake))
            abort ();
        if (verdict.has_token && vw_door_needs_token (door) && !s_query_has (query, vw_door_token (door)))
            abort (); /* a token the query did not carry */
        if (!verdict.handshake)
            continue;
        char why[256] = "";
        int act = vw_door_may_act (door, remote ? remote : "127.0.0.1", verdict.has_token, why, sizeof why);
        if ((act != 0 && act != -1) || (act == -1 && !why[0]))
            abort ();
        if (act == 0 && vw_door_needs_token (door) && !verdict.has_token)
            abort (); /* an op without the token where one is needed */
    }
    return 0;
}
