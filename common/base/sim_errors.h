/*  sim_errors.h - a bounded list of SimulatorError messages (protocol.md §6)
    that the physics service, the gateway and their replies share. Messages
    read "<CODE>: <detail>". Storage is inside the struct: no allocation, and
    a flood of bad items cannot grow it past SIM_ERRORS_MAX (the rest are
    counted in `dropped`).
*/
#ifndef SIM_ERRORS_H_INCLUDED
#define SIM_ERRORS_H_INCLUDED

#include "ssl_simulation_error.pb-c.h"

#define SIM_ERRORS_MAX 64

typedef struct {
    size_t count;
    size_t dropped;
    SimulatorError items[SIM_ERRORS_MAX];
    SimulatorError *ptrs[SIM_ERRORS_MAX]; /* what a repeated field points at */
    char code[SIM_ERRORS_MAX][32];
    char message[SIM_ERRORS_MAX][384]; /* room for a list of choices (the realism presets) */
} sim_errors_t;

void sim_errors_init (sim_errors_t *self);
/* Add one error; `code` is a protocol.md §6 string. */
void sim_errors_add (sim_errors_t *self, const char *code, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));
/* Append copies of n wire errors (already "<CODE>: ..." formatted). */
void sim_errors_add_wire (sim_errors_t *self, SimulatorError **errors, size_t n);

#endif
