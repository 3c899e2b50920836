/*  vw_referee.c - the referee multicast into the pages' status
    (vw_referee.h). */
#include "vw_referee.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/base/sim_log.h"
#include "common/bus/sim_route.h"
#include "common/bus/sim_udp.h"

static void
s_on_referee (void *arg)
{
    vw_service_t *self = arg;
    struct sockaddr_in from;
    ssize_t n;
    while ((n = sim_udp_recv (self->referee_fd, self->referee_buf, SIM_UDP_MAX, &from)) >= 0) {
        if (!self->watching)
            continue;
        sim_referee_t r;
        if (sim_referee_decode (self->referee_buf, (size_t) n, &r)) {
            self->referee_bad++;
            if (self->referee_bad == 1)
                sim_warn ("a packet on the referee address is not a Referee message (more are counted)");
            continue;
        }
        self->referee = r;
        self->referee_us = zclock_usecs ();
    }
}

int
vw_referee_open (vw_service_t *self)
{
    self->referee_fd = -1;
    self->referee_buf = malloc (SIM_UDP_MAX);
    if (!self->referee_buf)
        return -1;
    sim_route_t route;
    if (sim_route_referee (&self->own, &route) == 0 && !IN_MULTICAST (ntohl (route.addr.sin_addr.s_addr))) {
        /* a unicast datagram reaches one socket of those bound to its
           port: listening would take the packets from the program they
           were sent to (vision's --record, a team's software) */
        sim_info ("the referee address %s is not a multicast group: the page shows no game state",
                  self->own.network.referee_addr);
        return 0;
    }
    if ((self->referee_fd = sim_route_listen (&route)) >= 0)
        return sim_loop_add_fd (self->loop, "referee", self->referee_fd, s_on_referee, self);
    sim_warn ("cannot listen to the referee at %s: the page shows no game state",
              self->own.network.referee_addr);
    return 0;
}

void
vw_referee_close (vw_service_t *self)
{
    if (self->referee_fd >= 0)
        close (self->referee_fd);
    self->referee_fd = -1;
    free (self->referee_buf);
    self->referee_buf = NULL;
}

void
vw_referee_status (vw_service_t *self, int64_t now_us)
{
    vw_status_t *st = &self->hub->status;
    /* a log's referee is as old as the log's time says, not the wall's */
    st->has_referee = self->referee_us && (self->player || now_us - self->referee_us < VW_REFEREE_FRESH_US);
    if (st->has_referee) {
        st->referee = self->referee;
        st->referee_age_s = (double) (now_us - self->referee_us) / 1e6;
    }
}
