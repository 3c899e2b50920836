#!/usr/bin/python3
"""soak_teams.py - a match-length session as SSL teams run it: both teams,
a game controller, a vision reader and a monitor against one
`ssl-sim run --localhost` at the defaults (realtime, Division A, 11 v 11,
realistic vision), for MINUTES of wall time (12).

    /usr/bin/python3 bench/soak_teams.py [BUILD] [--minutes M] [--port-offset N] [--out FILE]

Blue commands all 11 robots at 100 Hz, yellow at 60 Hz (robot 0 sideways
+-1 m/s in 0.5 s steps, the others turning), both open loop; a game
controller sends Referee packets at 10 Hz to the referee group on
loopback; a vision reader logs every detection packet (arrival, camera,
frame number, t_capture, t_sent, robot 0 of each team); a monitor reads
/metrics, /healthz and every ssl-sim process's RSS, descriptors and CPU
every 2 s. Events, in seconds from the start, scaled to the run's
length: blue stops 5 s at 1/6 of it; yellow restarts with a new source
port at 0.28; blue floods at 1 kHz for 60 s at 0.42; blue restarts at
0.62; yellow stops 5 s at 0.69; yellow floods at 1 kHz for 30 s at 0.83.

Reports per camera the rate (by packets and by frame numbers), frames
lost, arrival - t_capture and arrival - t_sent per minute (drift), per
team the commands sent and answered against the gateway's counters,
command-to-motion latency per minute (first vision packet where robot 0
moved 20 mm after a 0 -> +-1 m/s step: vision delay, frame wait and the
robot's acceleration), and each process's resident memory, descriptors
and CPU at start and end. Writes bench/results/soak-teams.txt (or --out)
and prints it. Needs protoc and python3-protobuf (docs/team-client.md).
A measurement, not a test: the machine's load shows in it.
"""
import json, os, select, socket, subprocess, sys, tempfile, time, urllib.request, math, collections

PROTOS = os.environ.get("SOAK_PROTOS")
if PROTOS:
    sys.path.insert(0, PROTOS)
    from ssl_simulation_robot_control_pb2 import RobotControl
    from ssl_simulation_robot_feedback_pb2 import RobotControlResponse
    from ssl_vision_wrapper_pb2 import SSL_WrapperPacket
    from ssl_gc_referee_message_pb2 import Referee


def team(name, offset, t0, duration, out, events):
    port = (10301 if name == "blue" else 10302) + offset
    rate = 100.0
    stops, floods, restarts = [], [], []
    for e in events:
        p = e.split(":")
        if p[0] == "stop":
            stops.append((float(p[1]), float(p[1]) + float(p[2])))
        elif p[0] == "flood":
            floods.append((float(p[1]), float(p[1]) + float(p[2]), float(p[3])))
        elif p[0] == "restart":
            restarts.append(float(p[1]))
        elif p[0] == "rate":
            rate = float(p[1])

    def mk():
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("127.0.0.1", 0))
        s.setblocking(False)
        return s

    sock = mk()
    f = open(out, "w")
    f.write(json.dumps({"ev": "sock", "t": time.time(), "port": sock.getsockname()[1]}) + "\n")
    sec = {"sent": 0, "ans": 0, "fb": 0, "err": {}}
    sec_start = int(time.time())
    prev_v0 = None
    nxt = time.time()
    end = t0 + duration
    restarts = sorted(restarts)

    def flush(now_s):
        nonlocal sec, sec_start
        f.write(json.dumps({"ev": "sec", "t": sec_start, **sec}) + "\n")
        sec = {"sent": 0, "ans": 0, "fb": 0, "err": {}}
        sec_start = now_s

    while True:
        now = time.time()
        if now >= end:
            break
        el = now - t0
        if restarts and el >= restarts[0]:
            restarts.pop(0)
            sock.close()
            sock = mk()
            f.write(json.dumps({"ev": "sock", "t": now, "port": sock.getsockname()[1]}) + "\n")
        period = 1.0 / rate
        stopped = any(a <= el < b for a, b in stops)
        for a, b, hz in floods:
            if a <= el < b:
                period = 1.0 / hz
        # wait until next tick, reading answers
        while True:
            now = time.time()
            if int(now) != sec_start:
                flush(int(now))
            wait = nxt - now
            r, _, _ = select.select([sock], [], [], max(0.0, wait))
            if r:
                while True:
                    try:
                        data = sock.recv(65536)
                    except BlockingIOError:
                        break
                    a = RobotControlResponse.FromString(data)
                    sec["ans"] += 1
                    sec["fb"] += len(a.feedback)
                    for e in a.errors:
                        k = str(e.code)
                        sec["err"][k] = sec["err"].get(k, 0) + 1
            if wait <= 0:
                break
        now = time.time()
        nxt += period
        if nxt < now - 0.05:  # fell behind badly: do not burst
            nxt = now
        if stopped:
            continue
        el = now - t0
        ph = el % 2.0
        v0 = 1.0 if ph < 0.5 else (0.0 if ph < 1.0 else (-1.0 if ph < 1.5 else 0.0))
        rc = RobotControl()
        for rid in range(11):
            c = rc.robot_commands.add(id=rid)
            m = c.move_command.local_velocity
            if rid == 0:
                m.forward, m.left, m.angular = 0.0, v0, 0.0
            else:
                m.forward, m.left = 0.0, 0.0
                m.angular = 1.0 if int(el) % 2 == 0 else -1.0
        sock.sendto(rc.SerializeToString(), ("127.0.0.1", port))
        sec["sent"] += 1
        if v0 != prev_v0:
            f.write(json.dumps({"ev": "edge", "t": now, "v": v0, "prev": prev_v0}) + "\n")
            prev_v0 = v0
    flush(int(time.time()))
    f.close()


def vision(offset, duration, out):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.bind(("127.0.0.1", 10020 + offset))
    s.settimeout(1.0)
    f = open(out, "w")
    end = time.time() + duration
    while time.time() < end:
        try:
            data = s.recv(65536)
        except socket.timeout:
            f.write("timeout %.6f\n" % time.time())
            continue
        now = time.time()
        p = SSL_WrapperPacket.FromString(data)
        if not p.HasField("detection"):
            f.write("geom %.6f\n" % now)
            continue
        d = p.detection
        b0 = y0 = None
        for r in d.robots_blue:
            if r.robot_id == 0:
                b0 = (r.x, r.y)
        for r in d.robots_yellow:
            if r.robot_id == 0:
                y0 = (r.x, r.y)
        f.write("det %.6f %d %d %.6f %.6f %d %d %s %s\n" % (
            now, d.camera_id, d.frame_number, d.t_capture, d.t_sent,
            len(d.robots_blue), len(d.robots_yellow),
            "%.1f,%.1f" % b0 if b0 else "-", "%.1f,%.1f" % y0 if y0 else "-"))
    f.close()


def referee(offset, duration, out):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton("127.0.0.1"))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 1)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 1)
    dst = ("224.5.23.1", 10003 + offset)
    cmds = [Referee.HALT, Referee.STOP, Referee.PREPARE_KICKOFF_BLUE, Referee.NORMAL_START,
            Referee.FORCE_START, Referee.STOP, Referee.BALL_PLACEMENT_YELLOW, Referee.DIRECT_FREE_YELLOW]
    start = time.time()
    counter = 0
    ci = 0
    last_change = start
    score = [0, 0]
    n = 0
    f = open(out, "w")
    while time.time() - start < duration:
        now = time.time()
        if now - last_change > 15:
            ci = (ci + 1) % len(cmds)
            counter += 1
            last_change = now
            if ci == 2:
                score[counter % 2] += 1
        r = Referee()
        r.packet_timestamp = int(now * 1e6)
        r.stage = Referee.NORMAL_FIRST_HALF
        r.stage_time_left = int((300 - (now - start)) * 1e6)
        r.command = cmds[ci]
        r.command_counter = counter
        r.command_timestamp = int(last_change * 1e6)
        for t, sc, nm in ((r.yellow, score[1], "Soak Yellow"), (r.blue, score[0], "Soak Blue")):
            t.name, t.score, t.red_cards, t.yellow_cards = nm, sc, 0, 0
            t.timeouts, t.timeout_time, t.goalkeeper = 4, 300000000, 0
        if cmds[ci] == Referee.BALL_PLACEMENT_YELLOW:
            r.designated_position.x, r.designated_position.y = 1000.0, -500.0
        s.sendto(r.SerializeToString(), dst)
        n += 1
        time.sleep(0.1)
    f.write(json.dumps({"sent": n, "counter": counter}) + "\n")
    f.close()


def children(pid):
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                st = open("/proc/%s/stat" % d).read()
                ppid = int(st.rsplit(")", 1)[1].split()[1])
            except Exception:
                continue
            if ppid == pid:
                out.append(int(d))
    return out


def proc_info(pid):
    try:
        st = open("/proc/%d/stat" % pid).read()
        name = open("/proc/%d/cmdline" % pid).read().split("\0")
        fields = st.rsplit(")", 1)[1].split()
        ut, stt = int(fields[11]), int(fields[12])
        rss = 0
        for line in open("/proc/%d/status" % pid):
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
        nfd = len(os.listdir("/proc/%d/fd" % pid))
        return {"pid": pid, "cmd": " ".join(name[:3]), "cpu_s": (ut + stt) / os.sysconf("SC_CLK_TCK"),
                "rss_kib": rss, "fds": nfd}
    except Exception as e:
        return {"pid": pid, "err": str(e)}


def http(port, path):
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path))
    t = time.time()
    try:
        with urllib.request.urlopen(req, timeout=3) as r:
            return r.status, r.read().decode(), time.time() - t
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(), time.time() - t
    except Exception as e:
        return -1, str(e), time.time() - t


def monitor(offset, runpid, duration, out):
    port = 8082 + offset
    f = open(out, "w")
    end = time.time() + duration
    while time.time() < end:
        now = time.time()
        pids = [runpid] + children(runpid)
        procs = [proc_info(p) for p in pids]
        hs, hb, hdt = http(port, "/healthz")
        ms, mb, mdt = http(port, "/metrics")
        metrics = {}
        for line in mb.splitlines():
            if line.startswith("ssl_sim_"):
                k, _, v = line.rpartition(" ")
                metrics[k] = v
        f.write(json.dumps({"t": now, "procs": procs, "healthz": [hs, hb.strip()[:200], round(hdt, 4)],
                            "metrics_status": ms, "metrics_dt": round(mdt, 4), "m": metrics}) + "\n")
        f.flush()
        time.sleep(max(0, 2.0 - (time.time() - now)))
    f.close()




def analyze(D, T0, WIN, out):
    def print(*a):
        out.append(' '.join(str(x) for x in a))


    def pct(xs, p):
        if not xs:
            return float("nan")
        xs = sorted(xs)
        return xs[min(len(xs) - 1, int(math.ceil(p / 100.0 * len(xs))) - 1)]


    # vision
    dets = []  # (arr, cam, frame, tcap, tsent, b0, y0)
    timeouts = 0
    for line in open(D + "/vision.txt"):
        p = line.split()
        if p[0] == "timeout":
            timeouts += 1
            continue
        if p[0] != "det":
            continue
        arr, cam, fr, tc, ts = float(p[1]), int(p[2]), int(p[3]), float(p[4]), float(p[5])
        b0 = tuple(map(float, p[8].split(","))) if p[8] != "-" else None
        y0 = tuple(map(float, p[9].split(","))) if p[9] != "-" else None
        dets.append((arr, cam, fr, tc, ts, b0, y0))
    print("vision: %d detection packets, %d 1-s timeouts" % (len(dets), timeouts))
    cams = sorted(set(d[1] for d in dets))
    for c in cams:
        ds = [d for d in dets if d[1] == c]
        span = ds[-1][0] - ds[0][0]
        gaps = [b[0] - a[0] for a, b in zip(ds, ds[1:])]
        fgaps = [b[2] - a[2] for a, b in zip(ds, ds[1:])]
        tcgaps = [b[3] - a[3] for a, b in zip(ds, ds[1:])]
        print(" cam %d: %d pkts over %.1f s = %.3f Hz; frame span %d (%.3f Hz by frame no); "
              "arrival gap p50 %.1f p99 %.1f max %.1f ms; frame-number skips %d (lost %d); tcap back %d; max tcap gap %.1f ms" % (
                  c, len(ds), span, (len(ds) - 1) / span, ds[-1][2] - ds[0][2], (ds[-1][2] - ds[0][2]) / span,
                  pct(gaps, 50) * 1e3, pct(gaps, 99) * 1e3, max(gaps) * 1e3,
                  sum(1 for g in fgaps if g != 1), sum(g - 1 for g in fgaps if g > 1),
                  sum(1 for g in tcgaps if g <= 0), max(tcgaps) * 1e3))
        # per-window rate and drift
        print("   win   rate_Hz  minrate1s  arr-tcap p50/p99/max ms  arr-tsent p50/max ms  tsent<tcap  arr<tsent")
        w0 = ds[0][0]
        t = w0
        while t < ds[-1][0]:
            w = [d for d in ds if t <= d[0] < t + WIN]
            if len(w) > 2:
                secs = collections.Counter(int(d[0] - w0) for d in w)
                full = [secs[k] for k in secs if min(secs) < k < max(secs)]
                lag = [(d[0] - d[3]) * 1e3 for d in w]
                lag2 = [(d[0] - d[4]) * 1e3 for d in w]
                print("   %4.0f  %7.3f  %5s  %7.1f %7.1f %7.1f   %7.2f %7.2f  %d  %d" % (
                    t - T0, len(w) / WIN if t + WIN <= ds[-1][0] else float("nan"), min(full) if full else "-",
                    pct(lag, 50), pct(lag, 99), max(lag), pct(lag2, 50), max(lag2),
                    sum(1 for d in w if d[4] < d[3]), sum(1 for d in w if d[0] < d[4])))
            t += WIN

    # teams
    for team, idx in (("blue", 5), ("yellow", 6)):
        ev = [json.loads(l) for l in open(D + "/%s.jsonl" % team)]
        secs = [e for e in ev if e["ev"] == "sec"]
        sent = sum(e["sent"] for e in secs)
        ans = sum(e["ans"] for e in secs)
        fb = sum(e["fb"] for e in secs)
        err = collections.Counter()
        for e in secs:
            err.update(e["err"])
        print("%s: sent %d answered %d (%.2f%%) feedback %d errors %s socks %s" % (
            team, sent, ans, 100.0 * ans / max(sent, 1), fb, dict(err), [e["port"] for e in ev if e["ev"] == "sock"]))
        # seconds with answered < sent*0.9 (outside stops)
        bad = [(e["t"] - int(T0), e["sent"], e["ans"]) for e in secs if e["sent"] > 10 and e["ans"] < 0.9 * e["sent"]]
        print("  seconds with <90%% answered: %d %s" % (len(bad), bad[:20]))
        # latency: onset edges 0 -> +-1
        edges = [e for e in ev if e["ev"] == "edge" and e["prev"] == 0.0 and e["v"] != 0.0]
        obs = [(d[0], d[1], d[idx]) for d in dets if d[idx] is not None]
        lat = []
        j = 0
        for e in edges:
            ts = e["t"]
            while j < len(obs) and obs[j][0] < ts:
                j += 1
            base = {}
            k = j - 1
            while k >= 0 and len(base) < len(cams) and obs[k][0] > ts - 0.2:
                base.setdefault(obs[k][1], obs[k][2])
                k -= 1
            onset = None
            k = j
            while k < len(obs) and obs[k][0] < ts + 1.0:
                a, c, pos = obs[k]
                if c in base and math.hypot(pos[0] - base[c][0], pos[1] - base[c][1]) > 20.0:
                    onset = a
                    break
                k += 1
            lat.append((ts - T0, (onset - ts) * 1e3 if onset else None))
        print("  motion onset (20 mm) latency by window: t p50 p99 max n missing")
        t = 0
        while t < max(l[0] for l in lat) + 1:
            w = [l[1] for l in lat if t <= l[0] < t + WIN and l[1] is not None]
            miss = sum(1 for l in lat if t <= l[0] < t + WIN and l[1] is None)
            if w or miss:
                print("   %4.0f  %6.1f %6.1f %6.1f  %3d %d" % (t, pct(w, 50), pct(w, 99), max(w) if w else float("nan"), len(w), miss))
            t += WIN
        allv = [l[1] for l in lat if l[1] is not None]
        print("  all: p50 %.1f p99 %.1f max %.1f n %d" % (pct(allv, 50), pct(allv, 99), max(allv) if allv else float("nan"), len(allv)))

    # monitor
    mon = [json.loads(l) for l in open(D + "/monitor.jsonl")]
    print("monitor: %d samples" % len(mon))
    first, last = next((m for m in mon if m["t"] >= T0 + 30), mon[0]), mon[-1]  # warm: 30 s in
    for a in first["procs"]:
        b = next((x for x in last["procs"] if x.get("pid") == a.get("pid")), {})
        print(" %-50s rss %6s -> %6s KiB  fds %s -> %s  cpu %.1f -> %.1f s" % (
            a.get("cmd"), a.get("rss_kib"), b.get("rss_kib"), a.get("fds"), b.get("fds"), a.get("cpu_s", 0), b.get("cpu_s", 0)))
    hz = collections.Counter((m["healthz"][0], m["healthz"][1]) for m in mon)
    print(" healthz:", dict(hz), "max dt %.3f" % max(m["healthz"][2] for m in mon))
    print(" metrics max dt %.3f, statuses %s" % (max(m["metrics_dt"] for m in mon), collections.Counter(m["metrics_status"] for m in mon)))
    lm = last["m"]
    for k in sorted(lm):
        if any(s in k for s in ("received_total", "refused_total", "lost_total", "packets_sent_total", "latency_seconds_", "restarts", "sim_time")):
            print("  ", k, lm[k])


def orchestrate(build, minutes, off, out_file):
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    work = tempfile.mkdtemp(prefix="soak-teams-")
    protos = os.path.join(work, "protos")
    os.mkdir(protos)
    subprocess.check_call(["protoc", "-I", os.path.join(top, "proto"), "--python_out=" + protos]
                          + [os.path.join(top, "proto", f) for f in os.listdir(os.path.join(top, "proto"))
                             if f.endswith(".proto")])
    env = dict(os.environ, SOAK_PROTOS=protos, XDG_RUNTIME_DIR=tempfile.mkdtemp(prefix="soak-run-"))
    dur = minutes * 60.0
    me = [sys.executable, os.path.abspath(__file__)]
    log = open(os.path.join(work, "sim.log"), "w")
    # --localhost: nothing leaves the machine; the offset keeps it off a
    # simulator already running on the default ports
    sim = subprocess.Popen([os.path.join(build, "bin", "ssl-sim"), "run", "--localhost", "--port-offset", str(off)],
                           stdout=log, stderr=subprocess.STDOUT, env=env)
    W = lambda n: os.path.join(work, n)
    procs = [subprocess.Popen(me + ["vision", str(off), str(dur + 20), W("vision.txt")], env=env),
             subprocess.Popen(me + ["monitor", str(off), str(sim.pid), str(dur + 25), W("monitor.jsonl")], env=env)]
    time.sleep(3)
    t0 = time.time()
    ev = lambda f: "%.0f" % (f * dur)
    teams = [subprocess.Popen(me + ["referee", str(off), str(dur), W("referee.json")], env=env),
             subprocess.Popen(me + ["team", "blue", str(off), repr(t0), str(dur), W("blue.jsonl"), "rate:100",
                                    "stop:%s:5" % ev(1 / 6), "flood:%s:60:1000" % ev(0.42),
                                    "restart:%s" % ev(0.62)], env=env),
             subprocess.Popen(me + ["team", "yellow", str(off), repr(t0), str(dur), W("yellow.jsonl"), "rate:60",
                                    "restart:%s" % ev(0.28), "stop:%s:5" % ev(0.69),
                                    "flood:%s:30:1000" % ev(0.83)], env=env)]
    for p in teams + procs:
        p.wait()
    sim.send_signal(2)
    sim.wait(timeout=10)
    out = ["soak-teams: ssl-sim run --localhost (defaults), %.0f min; blue 100 Hz, yellow 60 Hz, 11 robots each; "
           "referee 10 Hz; load average %.1f at the end; files in %s" % (minutes, os.getloadavg()[0], work)]
    analyze(work, t0, 60.0, out)
    text = "\n".join(out) + "\n"
    with open(out_file, "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    a = sys.argv[1:]
    if a and a[0] == "team":
        team(a[1], int(a[2]), float(a[3]), float(a[4]), a[5], a[6:])
    elif a and a[0] == "vision":
        vision(int(a[1]), float(a[2]), a[3])
    elif a and a[0] == "referee":
        referee(int(a[1]), float(a[2]), a[3])
    elif a and a[0] == "monitor":
        monitor(int(a[1]), int(a[2]), float(a[3]), a[4])
    else:
        build, minutes, off, out_file = "build", 12.0, 4500, None
        i = 0
        while i < len(a):
            if a[i] == "--minutes":
                minutes = float(a[i + 1]); i += 2
            elif a[i] == "--port-offset":
                off = int(a[i + 1]); i += 2
            elif a[i] == "--out":
                out_file = a[i + 1]; i += 2
            elif a[i] in ("-h", "--help") or a[i].startswith("-"):
                sys.stdout.write(__doc__)
                sys.exit(0 if a[i] in ("-h", "--help") else 2)
            else:
                build = a[i]; i += 1
        top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        orchestrate(os.path.abspath(build), minutes, off, out_file or os.path.join(top, "bench", "results", "soak-teams.txt"))
