// plot.js - the last 30 s of real-time factor and command->vision latency,
// one sample per "status", on a small canvas (left axis RTF, right ms).

const WINDOW_S = 30;
const RTF_COLOUR = '#57c77a';
const LAT_COLOUR = '#e6a03b';

export class Plot {
    constructor (canvas) {
        this.canvas = canvas;
        this.samples = []; // {t: wall seconds, rtf, latency (ms or null)}
    }

    add (wallS, rtf, latencyMs) {
        this.samples.push({ t: wallS, rtf: Number.isFinite(rtf) ? rtf : null,
                            latency: Number.isFinite(latencyMs) ? latencyMs : null });
        while (this.samples.length && this.samples[0].t < wallS - WINDOW_S - 1)
            this.samples.shift();
    }

    // The series as drawn, for tests: {window_s, rtf: [{t, v}],
    // latency_ms: [{t, v}]}, t in wall seconds, gaps left out.
    model () {
        const series = (key) => this.samples.filter((s) => s[key] !== null).map((s) => ({ t: s.t, v: s[key] }));
        return { window_s: WINDOW_S, rtf: series('rtf'), latency_ms: series('latency') };
    }

    draw (nowS) {
        const c = this.canvas;
        const dpr = window.devicePixelRatio || 1;
        const w = c.clientWidth;
        const h = c.clientHeight;
        if (w === 0 || h === 0)
            return;
        if (c.width !== Math.round(w * dpr) || c.height !== Math.round(h * dpr)) {
            c.width = Math.round(w * dpr);
            c.height = Math.round(h * dpr);
        }
        const ctx = c.getContext('2d');
        ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
        ctx.clearRect(0, 0, w, h);

        const left = 30;
        const right = 36;
        const top = 8;
        const bottom = 16;
        const pw = w - left - right;
        const ph = h - top - bottom;
        const rtfAxis = axis(Math.max(1.5, ...this.samples.map((s) => s.rtf ?? 0)));
        const latAxis = axis(Math.max(20, ...this.samples.map((s) => s.latency ?? 0)));
        const rtfMax = rtfAxis.max;
        const latMax = latAxis.max;
        const xOf = (t) => left + pw * (1 - (nowS - t) / WINDOW_S);

        ctx.font = '10px system-ui, sans-serif';
        ctx.lineWidth = 1;
        // grid lines at the RTF axis's ticks; the latency axis is labelled
        // at the same heights
        for (let i = 0; i <= rtfAxis.ticks; i++) {
            const y = top + ph * (1 - i / rtfAxis.ticks);
            ctx.strokeStyle = 'rgba(255,255,255,0.07)';
            ctx.beginPath();
            ctx.moveTo(left, y);
            ctx.lineTo(left + pw, y);
            ctx.stroke();
            ctx.fillStyle = RTF_COLOUR;
            ctx.textAlign = 'right';
            ctx.textBaseline = 'middle';
            ctx.fillText(fmt(rtfAxis.step * i, rtfAxis.step), left - 4, y);
        }
        for (let i = 0; i <= latAxis.ticks; i++) {
            const y = top + ph * (1 - i / latAxis.ticks);
            ctx.fillStyle = LAT_COLOUR;
            ctx.textAlign = 'left';
            ctx.textBaseline = 'middle';
            ctx.fillText(fmt(latAxis.step * i, latAxis.step), left + pw + 4, y);
        }
        const one = top + ph * (1 - 1 / rtfMax);
        ctx.strokeStyle = 'rgba(87,199,122,0.35)';
        ctx.setLineDash([3, 3]);
        ctx.beginPath();
        ctx.moveTo(left, one);
        ctx.lineTo(left + pw, one);
        ctx.stroke();
        ctx.setLineDash([]);
        ctx.fillStyle = 'rgba(255,255,255,0.4)';
        ctx.textAlign = 'left';
        ctx.textBaseline = 'bottom';
        ctx.fillText('-30 s', left, h - 2);
        ctx.textAlign = 'right';
        ctx.fillText('now  ms', left + pw + right - 2, h - 2);

        ctx.save();
        ctx.beginPath();
        ctx.rect(left, top - 2, pw, ph + 4);
        ctx.clip();
        this.line(ctx, xOf, (s) => s.rtf, (v) => top + ph * (1 - v / rtfMax), RTF_COLOUR);
        this.line(ctx, xOf, (s) => s.latency, (v) => top + ph * (1 - v / latMax), LAT_COLOUR);
        ctx.restore();
    }

    line (ctx, xOf, value, yOf, colour) {
        ctx.strokeStyle = colour;
        ctx.lineWidth = 1.6;
        ctx.beginPath();
        let pen = false;
        for (const s of this.samples) {
            const v = value(s);
            if (v === null) {
                pen = false; // a gap where the value was not reported
                continue;
            }
            const x = xOf(s.t);
            const y = yOf(v);
            if (pen)
                ctx.lineTo(x, y);
            else
                ctx.moveTo(x, y);
            pen = true;
        }
        ctx.stroke();
    }
}

// An axis from 0 to at least v in 2 to 5 steps of 1, 2 or 5 times a power
// of ten: {max, step, ticks}
function axis (v) {
    const rough = v / 4;
    const p = Math.pow(10, Math.floor(Math.log10(rough)));
    const step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= rough);
    const ticks = Math.max(1, Math.ceil(v / step - 1e-9));
    return { max: ticks * step, step, ticks };
}

// a tick label with as many decimals as the step needs
function fmt (v, step) {
    const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
    return v.toFixed(decimals);
}
