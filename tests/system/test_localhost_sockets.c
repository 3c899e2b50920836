/*  test_localhost_sockets.c - with --localhost every socket of the
    simulator is bound to the loopback address (issue 24): the ports it
    listens on, and the ports it sends from, which a socket that was never
    bound gets on every interface at its first send. Read from /proc: each
    process of the run, its socket inodes, and their local addresses in the
    kernel's tables of IPv4 and IPv6 sockets.
*/
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/support/sim_fixture.h"
#include "tests/support/sim_test.h"

#define S_MAX_INODES 512

/* The processes of the run: the launcher and its children. */
static int
s_run_pids (pid_t launcher, pid_t *pids, int cap)
{
    int n = 0;
    pids[n++] = launcher;
    DIR *d = opendir ("/proc");
    cr_assert_not_null (d);
    struct dirent *e;
    while ((e = readdir (d)) && n < cap) {
        char *end;
        long pid = strtol (e->d_name, &end, 10);
        if (*end || pid <= 0)
            continue;
        char path[64], stat[512];
        snprintf (path, sizeof path, "/proc/%ld/stat", pid);
        FILE *f = fopen (path, "r");
        if (!f)
            continue;
        size_t len = fread (stat, 1, sizeof stat - 1, f);
        fclose (f);
        stat[len] = '\0';
        /* pid (comm) state ppid ...: comm may hold spaces, so from the last ')' */
        char *close = strrchr (stat, ')');
        int ppid = 0;
        if (close && sscanf (close + 1, " %*c %d", &ppid) == 1 && ppid == launcher)
            pids[n++] = (pid_t) pid;
    }
    closedir (d);
    return n;
}

/* The socket inodes open in `pid`, appended to inodes[*count]. */
static void
s_socket_inodes (pid_t pid, unsigned long *inodes, int *count)
{
    char dir[64];
    snprintf (dir, sizeof dir, "/proc/%d/fd", (int) pid);
    DIR *d = opendir (dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir (d)) && *count < S_MAX_INODES) {
        char path[320], target[64];
        snprintf (path, sizeof path, "%s/%s", dir, e->d_name);
        ssize_t len = readlink (path, target, sizeof target - 1);
        if (len <= 0)
            continue;
        target[len] = '\0';
        unsigned long inode;
        if (sscanf (target, "socket:[%lu]", &inode) == 1)
            inodes[(*count)++] = inode;
    }
    closedir (d);
}

/* Whether /proc/net/igmp lists the group `hex` (8 hex digits in the
   kernel's byte order) under the loopback interface. */
static bool
s_joined_on_lo (const char *hex)
{
    FILE *f = fopen ("/proc/net/igmp", "r");
    if (!f)
        return false;
    char line[256];
    bool on_lo = false, found = false;
    while (!found && fgets (line, sizeof line, f)) {
        char dev[32], group[16];
        if (line[0] != '\t' && sscanf (line, "%*d %31s", dev) == 1)
            on_lo = strcmp (dev, "lo") == 0;
        else if (sscanf (line, " %15s", group) == 1 && strncmp (group, hex, 8) == 0)
            found = on_lo;
    }
    fclose (f);
    return found;
}

/* Lines of /proc/net/TABLE whose inode is one of ours and whose local
   address is not loopback, written into bad (a list for the message).
   Returns how many of our sockets the table holds. */
static int
s_check_table (const char *table, const unsigned long *inodes, int count, char *bad, size_t cap)
{
    char path[64];
    snprintf (path, sizeof path, "/proc/net/%s", table);
    FILE *f = fopen (path, "r");
    if (!f)
        return 0;
    bool v6 = strchr (table, '6') != NULL;
    char line[512];
    int ours = 0;
    if (!fgets (line, sizeof line, f)) { /* the heading */
        fclose (f);
        return 0;
    }
    while (fgets (line, sizeof line, f)) {
        char local[64];
        unsigned long inode = 0;
        /* sl local remote st tx:rx tr:when retrnsmt uid timeout inode */
        if (sscanf (line, " %*s %63s %*s %*s %*s %*s %*s %*s %*s %lu", local, &inode) != 2)
            continue;
        bool mine = false;
        for (int i = 0; i < count && !mine; i++)
            mine = inodes[i] == inode;
        if (!mine)
            continue;
        ours++;
        /* 127.0.0.0/8 is "..7F" in the kernel's byte order; ::1 is
           00000000000000000000000001000000 */
        char *colon = strchr (local, ':');
        size_t alen = colon ? (size_t) (colon - local) : strlen (local);
        bool loopback = v6 ? strncmp (local, "00000000000000000000000001000000", alen) == 0 && alen == 32
                           : alen == 8 && strncmp (local + 6, "7F", 2) == 0;
        /* a listener bound to a group (224.0.0.0/4: "..E0" to "..EF"), the
           viewer's of the referee: it hears only what its own membership
           brings (IP_MULTICAST_ALL off, tests/unit/test_route.c), and
           --localhost joins on the loopback interface alone, which
           /proc/net/igmp must show */
        if (!loopback && !v6 && alen == 8 && local[6] == 'E')
            loopback = s_joined_on_lo (local);
        if (!loopback) {
            size_t used = strlen (bad);
            snprintf (bad + used, cap - used, "  %s %s (inode %lu)\n", table, local, inode);
        }
    }
    fclose (f);
    return ours;
}

/* The fixture's run is `ssl-sim run --localhost` with free ports: the
   ports are the only keys it sets (parallel tests), and they change no
   address. */
Test (localhost_sockets, every_socket_of_a_localhost_run_is_on_loopback, .timeout = 60)
{
    /* every service is up (its pid file is written once it has bound its
       ports; the viewer's too) and vision has sent (a socket never bound
       gets its port at its first send): the gateway's answer alone comes
       before the grSim port and the viewer are there */
    sim_fixture_t f;
    cr_assert_eq (
        sim_fixture_start (&f, NULL, NULL, SIM_FIXTURE_GATEWAY | SIM_FIXTURE_VISION | SIM_FIXTURE_SERVICES),
        0, "the simulator did not come up, or vision sent nothing");

    pid_t pids[16];
    int n = s_run_pids (f.proc.pid, pids, 16);
    cr_assert_geq (n, 5, "the launcher and its services: %d processes", n);
    unsigned long inodes[S_MAX_INODES];
    int count = 0;
    for (int i = 0; i < n; i++)
        s_socket_inodes (pids[i], inodes, &count);
    char bad[4096] = "";
    int seen = 0;
    static const char *const tables[] = { "udp", "tcp", "udp6", "tcp6" };
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
        seen += s_check_table (tables[t], inodes, count, bad, sizeof bad);
    cr_expect_eq (sim_fixture_stop (&f), 0);
    /* the gateway's three ports, the grSim port, vision's sender and the
       viewer at least */
    cr_expect_geq (seen, 6, "only %d IP sockets of the run found", seen);
    cr_expect_str_eq (bad, "", "sockets of a --localhost run open beyond loopback:\n%s", bad);
}
