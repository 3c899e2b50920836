/*  vw_door.c - who may come in through the viewer's HTTP port (vw_door.h). */
#include "vw_door.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/base/sim_log.h"
#include "common/config/config.h"

#define VW_DOOR_NAME_MAX 256

typedef enum { VW_LISTEN_LOOPBACK, VW_LISTEN_ANY, VW_LISTEN_ONE } vw_listen_t;

struct vw_door_t {
    vw_listen_t listen;
    char listen_host[VW_DOOR_NAME_MAX]; /* VW_LISTEN_ONE: the address, as configured */
    char machine[VW_DOOR_NAME_MAX];     /* gethostname, lower case; "" if unknown */
    int port;
    bool tournament;
    bool needs_token;
    uint32_t control[SIM_TOURNAMENT_ADDRS_MAX];
    int control_count;
    char token[VW_DOOR_TOKEN_LEN + 1];    /* "" when none is needed */
    char url_path[VW_DOOR_NAME_MAX + 32]; /* the page's address, written by vw_door_new */

    pthread_mutex_t lock; /* the refusal counter's */
    int64_t logged_us;
    uint64_t unlogged;
};

bool
vw_door_is_loopback (const char *host)
{
    struct in_addr a4;
    struct in6_addr a6;
    char bare[64];
    size_t n = strlen (host);
    if (n >= 2 && host[0] == '[' && host[n - 1] == ']' && n - 2 < sizeof bare) {
        memcpy (bare, host + 1, n - 2); /* [::1], as civetweb's listening_ports writes it */
        bare[n - 2] = '\0';
        host = bare;
    }
    if (strcasecmp (host, "localhost") == 0)
        return true;
    if (inet_pton (AF_INET, host, &a4) == 1)
        return (ntohl (a4.s_addr) >> 24) == 127;
    return inet_pton (AF_INET6, host, &a6) == 1 && IN6_IS_ADDR_LOOPBACK (&a6);
}

static bool
s_is_any (const char *host)
{
    return !host[0] || strcmp (host, "0.0.0.0") == 0 || strcmp (host, "::") == 0
        || strcmp (host, "[::]") == 0;
}

static bool
s_is_hex (const char *text, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (!isxdigit ((unsigned char) text[i]))
            return false;
    return true;
}

int
vw_door_read_token (const char *dir, char token[VW_DOOR_TOKEN_LEN + 1])
{
    char path[VW_DOOR_NAME_MAX + 32];
    snprintf (path, sizeof path, "%s/%s", dir, VW_DOOR_FILE);
    int fd = open (path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    char text[VW_DOOR_TOKEN_LEN + 2] = "";
    ssize_t n = fstat (fd, &st) == 0 ? read (fd, text, sizeof text - 1) : -1;
    close (fd);
    if (!S_ISREG (st.st_mode) || st.st_uid != getuid () || (st.st_mode & 077) != 0 || n < VW_DOOR_TOKEN_LEN
        || !s_is_hex (text, VW_DOOR_TOKEN_LEN))
        return -1;
    memcpy (token, text, VW_DOOR_TOKEN_LEN);
    token[VW_DOOR_TOKEN_LEN] = '\0';
    return 0;
}

/* The token of token_dir/viewer.token when that is a private regular file
   of ours holding one; else a new one written there. */
static int
s_keep_token (vw_door_t *self, const char *dir)
{
    if (vw_door_read_token (dir, self->token) == 0)
        return 0;
    char path[VW_DOOR_NAME_MAX + 32];
    snprintf (path, sizeof path, "%s/%s", dir, VW_DOOR_FILE);
    unlink (path); /* none, or not one this would have written: replaced */
    uint8_t raw[VW_DOOR_TOKEN_LEN / 2];
    if (getrandom (raw, sizeof raw, 0) != (ssize_t) sizeof raw) {
        sim_error ("viewer: no random bytes for the token (%s)", strerror (errno));
        return -1;
    }
    for (size_t i = 0; i < sizeof raw; i++)
        snprintf (self->token + 2 * i, 3, "%02x", raw[i]);
    int fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    bool written = fd >= 0 && fchmod (fd, 0600) == 0
                && write (fd, self->token, VW_DOOR_TOKEN_LEN) == VW_DOOR_TOKEN_LEN
                && write (fd, "\n", 1) == 1;
    if (fd >= 0)
        close (fd);
    if (!written) {
        sim_error ("viewer: cannot write the token to %s (%s)", path, strerror (errno));
        return -1;
    }
    return 0;
}

vw_door_t *
vw_door_new (const sim_config_t *cfg, const char *listen_host, int port, const char *token_dir)
{
    vw_door_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    pthread_mutex_init (&self->lock, NULL);
    self->port = port;
    self->listen = vw_door_is_loopback (listen_host) ? VW_LISTEN_LOOPBACK
                 : s_is_any (listen_host)            ? VW_LISTEN_ANY
                                                     : VW_LISTEN_ONE;
    snprintf (self->listen_host, sizeof self->listen_host, "%s", listen_host);
    if (gethostname (self->machine, sizeof self->machine - 1) != 0)
        self->machine[0] = '\0';
    for (char *c = self->machine; *c; c++)
        *c = (char) tolower ((unsigned char) *c);
    self->tournament = cfg->tournament.enabled;
    self->needs_token = vw_door_token_needed (cfg, listen_host);
    if (self->tournament) {
        char why[160];
        self->control_count = sim_config_addr_list (cfg->tournament.control, self->control,
                                                    SIM_TOURNAMENT_ADDRS_MAX, why, sizeof why);
        if (self->control_count < 0) {
            sim_error ("[tournament] control: %s", why);
            vw_door_destroy (&self);
            return NULL;
        }
    }
    if (vw_door_needs_token (self) && (!token_dir || s_keep_token (self, token_dir))) {
        if (!token_dir)
            sim_error ("viewer: no runtime directory to keep the token in");
        vw_door_destroy (&self);
        return NULL;
    }
    if (token_dir) {
        /* the address for `ssl-sim status`, which may not know [viewer] addr */
        char url[VW_DOOR_NAME_MAX + 128];
        vw_door_url (listen_host, port, self->token, url, sizeof url);
        snprintf (self->url_path, sizeof self->url_path, "%s/%s", token_dir, VW_DOOR_URL_FILE);
        unlink (self->url_path);
        int fd = open (self->url_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 || write (fd, url, strlen (url)) != (ssize_t) strlen (url))
            sim_warn ("viewer: cannot write %s (%s): `ssl-sim status` will not show the page's address",
                      self->url_path, strerror (errno));
        if (fd >= 0)
            close (fd);
    }
    return self;
}

void
vw_door_destroy (vw_door_t **self_p)
{
    vw_door_t *self = *self_p;
    if (!self)
        return;
    if (self->url_path[0])
        unlink (self->url_path);
    pthread_mutex_destroy (&self->lock);
    free (self);
    *self_p = NULL;
}

bool
vw_door_token_needed (const sim_config_t *cfg, const char *listen_host)
{
    return !vw_door_is_loopback (listen_host) || cfg->tournament.enabled;
}

bool
vw_door_needs_token (const vw_door_t *self)
{
    return self->needs_token;
}

const char *
vw_door_token (const vw_door_t *self)
{
    return self->token;
}

/* A Host header split into its name (brackets of an IPv6 literal taken
   off, lower case) and port (0 when it names none). -1 when it is not
   NAME[:PORT] or [V6][:PORT]. */
static int
s_split_host (const char *host, char *name, size_t len, int *port)
{
    const char *end, *rest;
    if (host[0] == '[') {
        end = strchr (host, ']');
        if (!end)
            return -1;
        host++;
        rest = end + 1;
    } else {
        end = strchr (host, ':');
        if (!end)
            end = host + strlen (host);
        rest = end;
    }
    size_t n = (size_t) (end - host);
    if (n == 0 || n >= len)
        return -1;
    for (size_t i = 0; i < n; i++)
        name[i] = (char) tolower ((unsigned char) host[i]);
    name[n] = '\0';
    if (!*rest) {
        *port = 0;
        return 0;
    }
    if (rest[0] != ':' || !rest[1] || strlen (rest + 1) > 5)
        return -1;
    for (const char *c = rest + 1; *c; c++)
        if (!isdigit ((unsigned char) *c))
            return -1;
    *port = atoi (rest + 1);
    return 0;
}

static bool
s_is_ip (const char *name)
{
    uint8_t buf[sizeof (struct in6_addr)];
    return inet_pton (AF_INET, name, buf) == 1 || inet_pton (AF_INET6, name, buf) == 1;
}

/* This machine's name, alone or with a domain after it. */
static bool
s_is_machine (const vw_door_t *self, const char *name)
{
    size_t n = strlen (self->machine);
    return n > 0 && strncmp (name, self->machine, n) == 0 && (name[n] == '\0' || name[n] == '.');
}

bool
vw_door_host_ok (const vw_door_t *self, const char *host)
{
    char name[VW_DOOR_NAME_MAX];
    int port;
    /* the name is what a rebinding changes; a Host without a port (some
       clients, civetweb's among them) is taken as this port */
    if (!host || s_split_host (host, name, sizeof name, &port) || (port != 0 && port != self->port))
        return false;
    switch (self->listen) {
    case VW_LISTEN_LOOPBACK:
        return vw_door_is_loopback (name);
    case VW_LISTEN_ANY:
        /* an IP literal cannot be rebound to another machine */
        return s_is_ip (name) || strcmp (name, "localhost") == 0 || s_is_machine (self, name);
    case VW_LISTEN_ONE:
    default:
        return strcasecmp (name, self->listen_host) == 0 || s_is_machine (self, name);
    }
}

bool
vw_door_origin_ok (const vw_door_t *self, const char *origin, const char *host)
{
    (void) self;
    if (!origin)
        return true; /* no browser: a browser always sends one with a handshake */
    static const char scheme[] = "http://";
    return host && strncasecmp (origin, scheme, sizeof scheme - 1) == 0
        && strcasecmp (origin + sizeof scheme - 1, host) == 0;
}

bool
vw_door_token_ok (const vw_door_t *self, const char *query)
{
    if (!vw_door_needs_token (self))
        return true;
    if (!query)
        return false;
    /* token=HEX among &-separated pairs */
    const char *p = query;
    while (p && *p) {
        if (strncmp (p, "token=", 6) == 0) {
            const char *v = p + 6;
            size_t n = strcspn (v, "&");
            if (n != VW_DOOR_TOKEN_LEN)
                return false;
            unsigned diff = 0;
            for (size_t i = 0; i < n; i++)
                diff |= (unsigned) (tolower ((unsigned char) v[i]) ^ self->token[i]);
            return diff == 0;
        }
        p = strchr (p, '&');
        if (p)
            p++;
    }
    return false;
}

int
vw_door_admit (const vw_door_t *self, const char *method, const char *path, const char *query,
               const char *host, const char *origin, const char *upgrade, vw_door_verdict_t *verdict)
{
    *verdict = (vw_door_verdict_t) { 0 };
    if (!vw_door_host_ok (self, host)) {
        verdict->status = 403;
        verdict->why = "this viewer is not served under that Host name";
    } else if (!method || (strcmp (method, "GET") != 0 && strcmp (method, "HEAD") != 0)) {
        verdict->status = 405;
        verdict->why = "the viewer takes GET and HEAD only (actions go over /ws)";
    } else if (!path || strcmp (path, "/ws") != 0 || !upgrade || strcasecmp (upgrade, "websocket") != 0)
        return 0; /* no handshake: nothing to act with, no page to count */
    else if (!vw_door_origin_ok (self, origin, host)) {
        verdict->status = 403;
        verdict->why = "a WebSocket from another site's page";
    } else {
        verdict->handshake = true;
        verdict->has_token = vw_door_token_ok (self, query);
    }
    return verdict->status;
}

int
vw_door_may_act (const vw_door_t *self, const char *remote_ip, bool has_token, char *why, size_t whylen)
{
    if (self->tournament) {
        struct in_addr a;
        bool listed = false;
        if (inet_pton (AF_INET, remote_ip, &a) == 1)
            for (int i = 0; i < self->control_count; i++)
                listed |= self->control[i] == a.s_addr;
        if (!listed) {
            snprintf (why, whylen, "tournament mode: the page at %.64s is not in [tournament] control",
                      remote_ip);
            return -1;
        }
        if (!has_token) {
            snprintf (why, whylen,
                      "tournament mode: the page's actions need the viewer's token (the address ssl-sim "
                      "printed at start, or `ssl-sim status`)");
            return -1;
        }
        return 0;
    }
    if (vw_door_needs_token (self) && !has_token) {
        snprintf (why, whylen,
                  "this viewer listens beyond this machine: its actions need the token (open the address "
                  "ssl-sim printed at start, or see `ssl-sim status`)");
        return -1;
    }
    return 0;
}

uint64_t
vw_door_refused (vw_door_t *self, int64_t now_us)
{
    pthread_mutex_lock (&self->lock);
    self->unlogged++;
    uint64_t report = 0;
    if (self->logged_us == 0 || now_us - self->logged_us >= VW_DOOR_LOG_US) {
        report = self->unlogged;
        self->unlogged = 0;
        self->logged_us = now_us;
    }
    pthread_mutex_unlock (&self->lock);
    return report;
}

void
vw_door_url (const char *listen_host, int port, const char *token, char *buf, size_t len)
{
    /* 0.0.0.0 is no address to browse to: this machine's name is */
    char name[VW_DOOR_NAME_MAX] = "";
    if (s_is_any (listen_host) && gethostname (name, sizeof name - 1) != 0)
        snprintf (name, sizeof name, "127.0.0.1");
    const char *host = s_is_any (listen_host) ? name : listen_host;
    bool v6 = strchr (host, ':') != NULL;
    snprintf (buf, len, "http://%s%.200s%s:%d/%s%s", v6 ? "[" : "", host, v6 ? "]" : "", port,
              token && token[0] ? "#token=" : "", token ? token : "");
}

int
vw_door_read_url (const char *dir, char *buf, size_t len)
{
    char path[VW_DOOR_NAME_MAX + 32];
    snprintf (path, sizeof path, "%s/%s", dir, VW_DOOR_URL_FILE);
    int fd = open (path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 || len == 0)
        return -1;
    ssize_t n = read (fd, buf, len - 1);
    close (fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    return strncmp (buf, "http://", 7) == 0 ? 0 : -1;
}
