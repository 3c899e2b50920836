/*  notify.h - telling systemd that a service is up (a unit of
    Type=notify, scripts/systemd/).
*/
#ifndef LAUNCH_NOTIFY_H_INCLUDED
#define LAUNCH_NOTIFY_H_INCLUDED

/* In a service started by systemd with Type=notify (NOTIFY_SOCKET set):
   send READY=1, so that systemd counts the unit as started and starts
   the units ordered after it. Call once, when the service serves (its
   actor started: ports bound). Without NOTIFY_SOCKET it does nothing; a
   failure to send is logged, and the service goes on. */
void launch_notify_ready (void);

#endif
