/*  phys_answer.h - one request, from the bus, a held one or a replay
    script: journaled before anything of it can be seen, applied
    (phys_journal_apply: the function the restart replay calls too), its
    substeps run, and answered: a plain request with a Reply to its sender,
    a sync step with the step's mark to vision, which hands the Reply on
    with the step's frames (protocol.md §8).
*/
#ifndef PHYS_ANSWER_H_INCLUDED
#define PHYS_ANSWER_H_INCLUDED

#include "physics_internal.h"

/* Handle req, which came `from` (NULL: a replayed input, which nobody
   waits for) packed in the bus Envelope wire[wire_len] (NULL: none), which
   the journals take instead of packing req again. */
void phys_answer_request (phys_service_t *self, const Simbus__Request *req, const sim_link_from_t *from,
                          const void *wire, size_t wire_len);

#endif
