// conn.js - the page's WebSocket to the viewer service: reconnects by
// itself, asks for one "world" at a time ({"op":"next"} once on open, then
// after each "world" arrived, but at most once per animation frame, so the
// page is sent at most one world per frame it draws and a slow page is
// never sent a queue; a hidden page draws no frames and so asks for
// nothing), and
// numbers every other op so its "result" can be matched to it.

const RESULT_TIMEOUT_MS = 10000;

export class Conn {
    // url: ws://HOST:PORT/ws; handlers: {message(msg), state(up, text),
    // result(result, request)} - result gets every answer, timeouts included
    constructor (url, handlers) {
        this.url = url;
        this.handlers = handlers;
        this.ws = null;
        this.nextId = 1;
        this.pending = new Map(); // id -> {request, resolve, timer}
        this.retryMs = 500;
        this.owesNext = false; // a world arrived since the last ask
        this.frames = 0;       // animation frames so far (frameTick)
        this.askedFrame = -1;  // the frame of the last ask
        this.open();
    }

    open () {
        const ws = new WebSocket(this.url);
        this.ws = ws;
        ws.onopen = () => {
            this.retryMs = 500;
            this.owesNext = false;
            this.handlers.state(true, 'connected');
            this.sendRaw({ op: 'next' });
        };
        ws.onmessage = (ev) => {
            let msg;
            try {
                msg = JSON.parse(ev.data);
            } catch (err) {
                console.warn('viewer: not JSON', err);
                return;
            }
            if (!msg || typeof msg !== 'object')
                return;
            if (msg.type === 'result')
                this.settle(msg);
            else
                this.handlers.message(msg);
            // the next world is asked for only after this one arrived: at
            // once, unless this frame asked already (then at the next one)
            if (msg.type === 'world') {
                this.owesNext = true;
                if (this.askedFrame < this.frames)
                    this.askNext();
            }
        };
        ws.onclose = () => {
            if (this.ws !== ws)
                return;
            this.ws = null;
            // requests in flight on the old socket will get no answer
            for (const id of [...this.pending.keys()])
                this.settle({ type: 'result', id, ok: false, code: 'UNAVAILABLE',
                              message: 'connection to the viewer lost' });
            this.handlers.state(false, 'reconnecting');
            setTimeout(() => this.open(), this.retryMs);
            this.retryMs = Math.min(this.retryMs * 2, 5000);
        };
        ws.onerror = () => { /* onclose follows and retries */ };
    }

    // Called from the page's requestAnimationFrame loop: asks for the next
    // world when the last one has arrived. Asking when a world arrives
    // instead would fetch every snapshot the simulator publishes (73 a
    // second and more) for a page that draws 60, or fewer when busy.
    frameTick () {
        this.frames++;
        this.askNext();
    }

    askNext () {
        if (this.owesNext && this.sendRaw({ op: 'next' })) {
            this.owesNext = false;
            this.askedFrame = this.frames;
        }
    }

    sendRaw (obj) {
        if (this.ws && this.ws.readyState === WebSocket.OPEN) {
            this.ws.send(JSON.stringify(obj));
            return true;
        }
        return false;
    }

    // Send {op, ...fields, id}; resolves with its "result" (a local
    // UNAVAILABLE one when not connected or unanswered in time).
    request (op, fields = {}) {
        const id = this.nextId++;
        const request = { op, id, ...fields };
        return new Promise((resolve) => {
            const timer = setTimeout(() => this.settle({ type: 'result', id, ok: false, code: 'UNAVAILABLE',
                                                         message: `no answer to ${op} in ${RESULT_TIMEOUT_MS / 1000} s` }),
                                     RESULT_TIMEOUT_MS);
            this.pending.set(id, { request, resolve, timer });
            if (!this.sendRaw(request))
                this.settle({ type: 'result', id, ok: false, code: 'UNAVAILABLE',
                              message: 'not connected to the viewer' });
        });
    }

    settle (result) {
        const entry = this.pending.get(result.id);
        if (!entry) {
            // an answer after its timeout, or to a request of another page
            this.handlers.result(result, null);
            return;
        }
        this.pending.delete(result.id);
        clearTimeout(entry.timer);
        this.handlers.result(result, entry.request);
        entry.resolve(result);
    }
}
