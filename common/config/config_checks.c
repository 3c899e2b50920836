/*  config_checks.c - the checks of string keys (sim_cfg_check_fn,
    config_table.h): a log level, HOST:PORT, an IPv4 address, a preset
    name, a list of IPv4 addresses. The tables of config_keys.c name them;
    the loader and sim_config_set run them, so a value is refused with the
    same words wherever it comes from.
*/
#include "config_parts.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "common/base/sim_log.h"

int
sim_cfg_check_log_level (const char *value, char *why, size_t whylen)
{
    if (sim_log_level_parse (value) >= 0)
        return 0;
    sim_cfg_err (why, whylen, "'%s' is not one of error | warn | info | debug | trace | filter", value);
    return -1;
}

int
sim_cfg_check_addr (const char *value, char *why, size_t whylen)
{
    const char *colon = strrchr (value, ':');
    long port = 0;
    if (!colon || colon == value || !sim_cfg_parse_long (colon + 1, &port) || port < 1 || port > 65535) {
        sim_cfg_err (why, whylen, "'%s' is not HOST:PORT (port 1..65535)", value);
        return -1;
    }
    return 0;
}

int
sim_cfg_check_ipv4 (const char *value, char *why, size_t whylen)
{
    struct in_addr addr;
    if (value[0] == '\0' || inet_pton (AF_INET, value, &addr) == 1)
        return 0;
    sim_cfg_err (why, whylen, "'%s' is not an IPv4 address (a.b.c.d, or empty)", value);
    return -1;
}

int
sim_cfg_check_ball_preset (const char *value, char *why, size_t whylen)
{
    sim_ball_cfg_t ball;
    if (value[0] == '\0' || sim_config_ball_preset (value, &ball) == 0)
        return 0;
    sim_cfg_err (why, whylen, "unknown ball preset '%s' (choices: %s)", value, sim_config_ball_names ());
    return -1;
}

int
sim_cfg_check_limits_preset (const char *value, char *why, size_t whylen)
{
    sim_limits_t limits;
    if (value[0] == '\0' || sim_config_limits_preset (value, &limits) == 0)
        return 0;
    sim_cfg_err (why, whylen, "unknown robot limits preset '%s' (choices: %s)", value,
                 sim_config_limits_names ());
    return -1;
}

int
sim_config_addr_list (const char *text, uint32_t *out, int max, char *why, size_t whylen)
{
    int count = 0;
    const char *p = text;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p == '\0')
        return 0;
    for (;;) {
        /* one item: up to the next comma, blanks trimmed */
        const char *end = strchr (p, ',');
        size_t len = end ? (size_t) (end - p) : strlen (p);
        while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
            len--;
        char item[INET_ADDRSTRLEN];
        struct in_addr addr;
        if (len == 0) {
            sim_cfg_err (why, whylen, "'%s' has an empty item (IPv4 addresses separated by commas)", text);
            return -1;
        }
        if (len < sizeof item) {
            memcpy (item, p, len);
            item[len] = '\0';
        }
        if (len >= sizeof item || inet_pton (AF_INET, item, &addr) != 1) {
            sim_cfg_err (why, whylen, "'%.*s' is not an IPv4 address (a.b.c.d)", (int) len, p);
            return -1;
        }
        if (count == max) {
            sim_cfg_err (why, whylen, "more than %d addresses", max);
            return -1;
        }
        if (out)
            out[count] = addr.s_addr;
        count++;
        if (!end)
            return count;
        p = end + 1;
        while (*p == ' ' || *p == '\t')
            p++;
    }
}

int
sim_cfg_check_addr_list (const char *value, char *why, size_t whylen)
{
    return sim_config_addr_list (value, NULL, SIM_TOURNAMENT_ADDRS_MAX, why, whylen) < 0 ? -1 : 0;
}

int
sim_cfg_check_trusted_list (const char *value, char *why, size_t whylen)
{
    return sim_config_addr_list (value, NULL, SIM_TRUSTED_ADDRS_MAX, why, whylen) < 0 ? -1 : 0;
}
