/*  sim_errors.c - bounded SimulatorError list. */
#include "sim_errors.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void
sim_errors_init (sim_errors_t *self)
{
    self->count = 0;
    self->dropped = 0;
}

static SimulatorError *
s_slot (sim_errors_t *self)
{
    if (self->count >= SIM_ERRORS_MAX) {
        self->dropped++;
        return NULL;
    }
    size_t i = self->count++;
    SimulatorError *e = &self->items[i];
    simulator_error__init (e);
    e->code = self->code[i];
    e->message = self->message[i];
    self->ptrs[i] = e;
    return e;
}

void
sim_errors_add (sim_errors_t *self, const char *code, const char *fmt, ...)
{
    SimulatorError *e = s_slot (self);
    if (!e)
        return;
    snprintf (e->code, sizeof self->code[0], "%s", code);
    int n = snprintf (e->message, sizeof self->message[0], "%s: ", code);
    va_list args;
    va_start (args, fmt);
    if (n > 0 && (size_t) n < sizeof self->message[0])
        vsnprintf (e->message + n, sizeof self->message[0] - (size_t) n, fmt, args);
    va_end (args);
}

void
sim_errors_add_wire (sim_errors_t *self, SimulatorError **errors, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        SimulatorError *e = s_slot (self);
        if (!e)
            return;
        snprintf (e->code, sizeof self->code[0], "%s", errors[i]->code ? errors[i]->code : "");
        snprintf (e->message, sizeof self->message[0], "%s", errors[i]->message ? errors[i]->message : "");
    }
}
