/*  vw_hub.c - the viewer's shared state (vw_hub.h). */
#include "vw_hub.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

vw_hub_t *
vw_hub_new (void)
{
    vw_hub_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->wake[0] = self->wake[1] = -1;
    self->ops_fd = -1;
    if (pthread_mutex_init (&self->lock, NULL)) {
        free (self);
        return NULL;
    }
    if (pthread_mutex_init (&self->ops_lock, NULL)) {
        pthread_mutex_destroy (&self->lock);
        free (self);
        return NULL;
    }
    /* non-blocking both ways: a full pipe already means "wake up" */
    if (pipe2 (self->wake, O_CLOEXEC | O_NONBLOCK)) {
        vw_hub_destroy (&self);
        return NULL;
    }
    return self;
}

void
vw_hub_destroy (vw_hub_t **self_p)
{
    vw_hub_t *self = *self_p;
    if (!self)
        return;
    for (int i = 0; i < 2; i++)
        if (self->wake[i] >= 0)
            close (self->wake[i]);
    if (self->ops_fd >= 0)
        close (self->ops_fd);
    free (self->hello);
    free (self->geometry);
    free (self->marks);
    pthread_mutex_destroy (&self->lock);
    pthread_mutex_destroy (&self->ops_lock);
    free (self);
    *self_p = NULL;
}

int
vw_hub_take_player_ops (vw_hub_t *self, vw_op_t ops[VW_PLAYER_OPS])
{
    pthread_mutex_lock (&self->lock);
    int n = self->n_player_ops;
    for (int i = 0; i < n; i++)
        ops[i] = self->player_ops[i];
    self->n_player_ops = 0;
    pthread_mutex_unlock (&self->lock);
    return n;
}

bool
vw_hub_answer_close (vw_hub_t *self, const struct mg_connection *conn)
{
    bool answer = false;
    pthread_mutex_lock (&self->lock);
    for (int i = 0; i < VW_CLIENTS_MAX; i++) {
        vw_client_t *c = &self->clients[i];
        if (c->conn == conn) {
            answer = !c->closed;
            c->closed = true;
        }
    }
    pthread_mutex_unlock (&self->lock);
    return answer;
}

void
vw_hub_wake (vw_hub_t *self)
{
    char byte = 1;
    if (write (self->wake[1], &byte, 1) < 0) {
        /* full: the loop has a wake-up waiting already */
    }
}

void
vw_hub_alive (const vw_hub_t *self, int64_t now_us, bool alive[VW_SERVICES])
{
    for (int i = 0; i < VW_SERVICES; i++)
        alive[i] = self->heard_us[i] && now_us - self->heard_us[i] < VW_ALIVE_US;
    alive[VW_SERVICES - 1] = true; /* this one answers */
}
