/*  sim_step.h - how many substeps a step of given length is: the rule a
    SimulationSyncRequest's sim_step follows (docs/protocol.md) and
    libsslsim's sslsim_world_step follows too, so both accept and refuse
    the same steps.
*/
#ifndef SIM_STEP_H_INCLUDED
#define SIM_STEP_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

/* A step keeps physics busy until it ends, and every other client's
   request waits behind it (docs/protocol.md, "Fair sync"): 10 000
   substeps take 15-30 ms on a quiet two-core machine and stay well within
   the 0.5 s sync timeout at load 8; 60 000 did not. */
#define SIM_STEP_MAX_S 10.0 /* longest step accepted */
#define SIM_STEP_MAX_SUBSTEPS \
    10000 /* most substeps in one (10 s of 1 ms): a step's work is bounded whatever [sim] substep */

/* Substeps of substep_s seconds (rounded to whole ns) in `seconds`: 0 for
   0, -1 when it is not a whole number of substeps (within 1 ppm or 1 us),
   negative, not finite, longer than SIM_STEP_MAX_S or more than
   SIM_STEP_MAX_SUBSTEPS substeps, with the reason
   (starting with the step's length) in why[why_len] (may be NULL/0). */
int64_t sim_step_substeps (double seconds, double substep_s, char *why, size_t why_len);

#endif
