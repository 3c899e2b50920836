#!/usr/bin/env bash
# make-corpus.sh - (re)write the seed corpora of tests/fuzz/corpus from the
# messages below: protobuf text format encoded by protoc, issue 11's hex
# reproducers, and two of the shipped configuration files. Run from the
# repository root after changing a seed; the output is committed.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=tests/fuzz/corpus
protos=(-Iproto -I/usr/include)

# enc TYPE PROTO_FILE HARNESS NAME  (text format on stdin)
enc() { mkdir -p "$out/$3"; protoc "${protos[@]}" --encode="$1" "$2" >"$out/$3/$4"; }
# esc TYPE PROTO_FILE: text format on stdin, encoded, as a text-format
# string literal (for an Any's value: protoc expands an Any only for the
# types the file imports)
esc() { protoc "${protos[@]}" --encode="$1" "$2" | od -An -v -to1 | tr -s ' \n' ' ' | sed 's/ $//; s/ \([0-7]*\)/\\\1/g'; }
# hex HARNESS NAME HEX
hex() { mkdir -p "$out/$1"; printf '%s' "$3" | xxd -r -p >"$out/$1/$2"; }

rm -rf "$out"

# ---- control port: SimulatorCommand and SimulationSyncRequest ------------
C=ssl_simulation_control.proto; S=ssl_simulation_synchronous.proto
spec=$(esc sslsim.RobotSpecErForce ssl_simulation_custom_erforce_robot_spec.proto <<<'shoot_radius: 0.067 dribbler_width: 0.07')
realism=$(esc RealismConfigErForce ssl_simulation_custom_erforce_realism.proto \
          <<<'stddev_ball_p: 0.002 robot_command_loss: 0.1 vision_delay: 30000000')
enc SimulatorCommand $C udp_control teleport <<'T'
control { teleport_ball { x: 1 y: -0.5 z: 0 vx: 2 vy: 0 roll: true }
          teleport_robot { id { id: 3 team: BLUE } x: -1 y: 1 orientation: 1.57 present: true }
          teleport_robot { id { id: 7 team: YELLOW } present: false }
          simulation_speed: 2 }
T
enc SimulatorCommand $C udp_control config <<T
config { geometry { field { field_length: 9000 field_width: 6000 goal_width: 1000 goal_depth: 180
                            boundary_width: 300 penalty_area_depth: 1000 penalty_area_width: 2000
                            field_lines { name: "LeftPenaltyStretch" p1 { x: -3500 y: -1000 }
                                          p2 { x: -3500 y: 1000 } thickness: 10 }
                            field_arcs { name: "CenterCircle" center { x: 0 y: 0 } radius: 500
                                         a1: 0 a2: 6.28 thickness: 10 } }
                    calib { camera_id: 0 focal_length: 400 principal_point_x: 300 principal_point_y: 300
                            distortion: 0 q0: 0 q1: 0 q2: 0 q3: 1 tx: 0 ty: 0 tz: 4000
                            derived_camera_world_tx: -2250 derived_camera_world_ty: 0
                            derived_camera_world_tz: 4000 } }
         robot_specs { id { id: 0 team: BLUE } radius: 0.09 height: 0.15 mass: 2.2
                       max_linear_kick_speed: 6.5 center_to_dribbler: 0.07
                       limits { acc_speedup_absolute_max: 4 vel_absolute_max: 3 }
                       wheel_angles { front_right: 0.5 back_right: 2.3 back_left: 3.9 front_left: 5.7 }
                       custom { type_url: "type.googleapis.com/sslsim.RobotSpecErForce" value: "$spec" } }
         realism_config { custom { type_url: "type.googleapis.com/RealismConfigErForce" value: "$realism" } }
         vision_port: 10020 }
T
enc SimulationSyncRequest $S udp_control sync <<'T'
sim_step: 0.016 simulator_command { control { teleport_ball { x: 0 y: 0 } } }
T
hex udp_control field0-key 800000
# what the fuzzers found (fixed): a camera below the floor in a geometry
# command, and vision_port 0
hex udp_control camera-z-negative 125d0a5b0a0f08a84610f02e18e80720b40128ac0212480800150000c8431d0000964325000096432d0000000035000000003d0000000045000000004d0000803f55000000005d000000006500007a456d0000000075000000007d00007ac5
hex udp_control vision-port-0 12022000

# ---- team ports: RobotControl and SimulationSyncRequest ------------------
R=ssl_simulation_robot_control.proto
enc RobotControl $R udp_team local <<'T'
robot_commands { id: 0 move_command { local_velocity { forward: 1 left: 0.2 angular: 0.5 } }
                 kick_speed: 4 kick_angle: 30 dribbler_speed: 500 }
robot_commands { id: 1 move_command { global_velocity { x: -1 y: 1 angular: 0 } } }
robot_commands { id: 2 move_command { wheel_velocity { front_right: 1 back_right: 1 back_left: -1
                                                      front_left: -1 } } }
robot_commands { id: 300 }
T
enc SimulationSyncRequest $S udp_team sync <<'T'
sim_step: 0.004
robot_control { robot_commands { id: 0 move_command { local_velocity { forward: 2 left: 0 angular: 0 } } } }
T
hex udp_team field0-in-sync 0a050802800000

# ---- legacy grSim port ---------------------------------------------------
G=grSim_Packet.proto
enc grSim_Packet $G grsim commands <<'T'
commands { timestamp: 0 isteamyellow: true
           robot_commands { id: 1 kickspeedx: 3 kickspeedz: 1 veltangent: 1 velnormal: 0 velangular: 1
                            spinner: true wheelsspeed: false }
           robot_commands { id: 2 kickspeedx: 0 kickspeedz: 0 veltangent: 0 velnormal: 0 velangular: 0
                            spinner: false wheelsspeed: true wheel1: 10 wheel2: 10 wheel3: -10 wheel4: -10 } }
T
enc grSim_Packet $G grsim replacement <<'T'
replacement { ball { x: 0.5 y: 0.5 vx: 1 vy: 0 }
              robots { x: -2 y: 0 dir: 90 id: 4 yellowteam: false turnon: true }
              robots { x: 2 y: 0 dir: 0 id: 5 yellowteam: true turnon: false } }
T
# a proto3 sender's commands: zeros left out (no timestamp, isteamyellow, ...)
hex grsim proto3-commands 0a091a070803250000803f

# ---- bus envelopes and lane datagrams ------------------------------------
B=bus/sim_bus.proto
benc() { enc simbus.Envelope $B bus "$1"; }
benc request <<'T'
version: 2 request { id: 1 sync: true step_id: 1 substeps: 4
  simulator_command { control { teleport_ball { x: 1 y: 1 } } }
  team_control { team: 1 control { robot_commands { id: 0 move_command { local_velocity {
      forward: 1 left: 0 angular: 0 } } } } } }
T
benc snapshot <<'T'
version: 2 snapshot { time_ns: 16000000 step_id: 3
  ball { x: 0 y: 0 z: 0.0215 vx: 1 vy: 0 vz: 0 spin_x: 0 spin_y: 0 }
  robot_team: [0, 1] robot_id: [0, 15] robot_x: [-1, 1] robot_y: [0, 0] robot_orientation: [0, 3.14]
  robot_vx: [0, 0] robot_vy: [0, 0] robot_omega: [0, 0] robot_ball_contact: [false, true]
  robot_radius: [0.09, 0.09] robot_height: [0.15, 0.15] }
T
benc events <<'T'
version: 2 events { events { kind: KICK time_ns: 5 team: 0 id: 3 speed: 5 elevation: 0 }
                    events { kind: ROBOT_COLLISION time_ns: 6 team: 0 id: 1 other_team: 1 other_id: 2 } }
T
benc config <<EOF2
version: 2 config { serial: 2 rig_generation: 1 ini: "[sim]\nseed = 7\n[run]\nmode = sync\n[camera 0]\nx = 0\ny = 0\nz = 4\n" }
EOF2
benc reply <<'T'
version: 2 reply { id: 3 time_ns: 16000000 errors { code: "UNSUPPORTED" message: "UNSUPPORTED: x" }
                   feedback { id: 0 dribbler_ball_contact: true } }
T
benc frames-done <<'T'
version: 2 frames_done { step_id: 3 time_ns: 16000000
  wrapper: "\n\x16\x08\x01\x11\x00\x00\x00\x00\x00\x00\xf0\x3f\x19\x00\x00\x00\x00\x00\x00\xf0\x3f\x20\x00"
  reply { id: 3 time_ns: 16000000 } }
T
# lane datagrams: records of (topic length, topic, 4-byte little-endian size, envelope)
mkdir -p "$out/lane"
lane_record() { # TOPIC FILE
    local n; n=$(stat -c %s "$2")
    printf "\\x$(printf %02x ${#1})%s" "$1"
    printf "\\x$(printf %02x $((n & 255)))\\x$(printf %02x $(((n >> 8) & 255)))\\x$(printf %02x $(((n >> 16) & 255)))\\x00"
    cat "$2"
}
lane_record Q "$out/bus/request" >"$out/lane/request"
{ lane_record S "$out/bus/snapshot"; lane_record E "$out/bus/events"; } >"$out/lane/snapshot-events"
lane_record C "$out/bus/config" >"$out/lane/config"
hex lane second-reply 01520800000008025204080628000152080000000802520408062800
# the same two replies for the harness's pending sync request (id 3)
hex lane second-sync-reply 01520800000008025204080328000152080000000802520408032800

# ---- the referee multicast: the game controller's Referee ----------------
R=ssl_gc_referee_message.proto
enc Referee $R referee placement <<'T'
packet_timestamp: 1700000000000000 stage: NORMAL_SECOND_HALF stage_time_left: -3000000
command: BALL_PLACEMENT_YELLOW command_counter: 42 command_timestamp: 1699999999000000
yellow { name: "ER-Force" score: 1 red_cards: 1 yellow_card_times: [20000000, 95000000]
         yellow_cards: 3 timeouts: 4 timeout_time: 300000000 goalkeeper: 0 }
blue { name: "TIGERs Mannheim" score: 3 red_cards: 0 yellow_cards: 0 timeouts: 2
       timeout_time: 150000000 goalkeeper: 1 }
designated_position { x: 1500 y: -250 } blue_team_on_positive_half: true
next_command: DIRECT_FREE_YELLOW current_action_time_remaining: 25000000
status_message: "placing"
T
# a name cut inside a character, stray bytes, a target that is no number
enc Referee $R referee hostile <<'T'
packet_timestamp: 1 stage: PENALTY_SHOOTOUT command: HALT command_counter: 7 command_timestamp: 2
yellow { name: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\303\274-team"
         score: 0 red_cards: 0 yellow_cards: 0 timeouts: 0 timeout_time: 0 goalkeeper: 0 }
blue { name: "bad\377\300\257name\355\240\200" score: 0 red_cards: 0 yellow_cards: 0
       timeouts: 0 timeout_time: 0 goalkeeper: 0 }
designated_position { x: nan y: inf }
status_message: "\"quoted\" \\ and \001 control"
T

# ---- the viewer: request heads at the door, WebSocket frames ---------------
# (a `Remote:` line is the harness's: the page's address)
mkdir -p "$out/viewer_door" "$out/viewer_ws"
vd() { printf "$2" >"$out/viewer_door/$1"; }
vd page 'GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n'
vd metrics-localhost 'GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n'
vd ws-own-origin 'GET /ws HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nOrigin: http://127.0.0.1:8080\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nRemote: 127.0.0.1\r\n\r\n'
vd ws-token 'GET /ws?v=1&token=00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff HTTP/1.1\r\nHost: [::1]:8080\r\nUpgrade: WebSocket\r\nRemote: 10.0.0.5\r\n\r\n'
# issue 24's attacks: another site's page, a rebound name, a POST
vd ws-evil-origin 'GET /ws HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nOrigin: http://evil.example\r\nUpgrade: websocket\r\n\r\n'
vd rebinding 'GET /metrics HTTP/1.1\r\nHost: attacker.example:8080\r\n\r\n'
vd post 'POST /ws HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n'
vw() { printf '%s' "$2" >"$out/viewer_ws/$1"; }
vw next '{"op":"next"}'
vw teleport-ball '{"op":"teleport_ball","id":1,"x":1.5,"y":-0.5,"z":0.1,"vx":2,"vy":0,"vz":1}'
vw teleport-robot '{"op":"teleport_robot","id":2,"team":"yellow","robot":4,"x":-1,"y":1,"o":1.57}'
vw remove-robot '{"op":"teleport_robot","id":3,"team":"blue","robot":7,"present":false}'
vw reset '{"op":"reset","id":4}'
vw pause '{"op":"pause","id":5}'
vw resume '{"op":"resume","id":6}'
vw speed '{"op":"speed","id":7,"value":2.5}'
vw step '{"op":"step","id":8}'
vw realism '{"op":"realism","id":9,"preset":"realistic"}'
vw cameras '{"op":"cameras","id":10,"count":4}'
vw bad-op '{"op":"fly","id":11}'
# the gateway's answers, which the server reads: an error, and a sync answer's error
enc SimulatorResponse $C viewer_ws answer-error <<'T'
errors { code: "CREATE_NOPOS_ROBOT" message: "robot 4 of yellow needs x and y" }
T
enc SimulationSyncResponse $S viewer_ws answer-sync <<'T'
robot_control_response { errors { code: "REFUSED" message: "sync_takeover is off" } }
T
# found by the fuzzer (fixed): an error code that begins with NUL bytes
hex viewer_ws answer-nul-code 0a350a120000003754455f4e4f50226f70223a2273746570222c2269642034206f662079656c6c6f77206e65656473207820656e642079

# ---- INI configuration and command lines ---------------------------------
mkdir -p "$out/config" "$out/cli"
cp configs/ssl-sim.ini "$out/config/ssl-sim.ini"
printf '[sim]\nseed = 3\nsubstep = 0.002\n[camera 1]\nx = 1\ny = 2\nz = 3\n[outage 0]\nstart = 1\nduration = 2\n[blue.limits]\nvel_absolute_max = 2\n[nosuch]\nkey = 1\n' \
    >"$out/config/sections.ini"
printf '[sim]\nsubstep = 1.5\n' >"$out/config/substep-above-1s.ini" # found by the fuzzer (fixed)
printf -- '--mode\nsync\n--seed\n42\n--cameras\n4\n--speed=2.5\n--localhost' >"$out/cli/flags"
printf -- '--step-ms\n0.5\n--realism\nnone\n--seed\nrandom\n--port-offset\n100' >"$out/cli/presets"
# ---- league log files and journals (play, replay) --------------------------
# header; a vision record (time 1, 3 bytes); a referee record; an index
hex logfile plain 53534c5f4c4f475f46494c4500000001000000000000000100000004000000030a0b0c0000000000000002000000030000000142000000000000000000000006000000170000000000000010000000000000002f494e4445584544
# the same records with an index that holds (as sim_logfile's writer ends
# a log: sim_logindex accepts it), and with its second offset one byte off
hex logfile indexed 53534c5f4c4f475f46494c4500000001000000000000000100000004000000030a0b0c00000000000000020000000300000001420000000000000000000000060000001f00000000000000100000000000000023000000000000002f494e4445584544
hex logfile indexed-bad-offset 53534c5f4c4f475f46494c4500000001000000000000000100000004000000030a0b0c00000000000000020000000300000001420000000000000000000000060000001f00000000000000100000000000000024000000000000002f494e4445584544
# the same header and vision record, cut inside the message
hex logfile truncated 53534c5f4c4f475f46494c4500000001000000000000000100000004000000030a0b
# a size field no message can have
hex logfile corrupt-size 53534c5f4c4f475f46494c45000000010000000000000001000000047fffffff0a0b0c
# gzip of the plain seed; the same cut before its gzip trailer (a writer
# killed after a flush point); two members (a writer that appended) with
# bytes after them that are no member (ignored, as zlib's gzread does)
mkdir -p "$out/logfile"; gzip -9 -n -c "$out/logfile/plain" >"$out/logfile/plain.gz"
head -c -8 "$out/logfile/plain.gz" >"$out/logfile/torn.gz"
{ gzip -9 -n -c "$out/logfile/plain"
  printf '%s' 0000000000000003000000040000000142 | xxd -r -p | gzip -9 -n -c
  printf 'tail'; } >"$out/logfile/members.gz"
# journals (docs/journal.md; integers little-endian). The fuzzing build
# takes a seal of 0 (phys_journal.c), so the seeds carry 0 and the fuzzer
# reaches the records behind the checksums.
le() { local v; v=$(printf "%0$(($2 * 2))x" "$1"); printf '%s' "$v" | fold -w2 | tac | tr -d '\n'; }
asc() { printf '%s' "$1" | xxd -p | tr -d '\n'; }
# rec KIND SEQ FRAME TIME_NS PAYLOAD_HEX
rec() { printf '%s' "$(le $((48 + ${#5} / 2)) 4)$(le "$1" 2)0000$(le "$2" 8)$(le "$3" 8)$(le "$4" 8)$(le 1700000000000000 8)$5$(le 0 8)"; }
jkey='ssl-sim journal'
jhead="$(asc SSLSIMJL)$(le 1 4)$(le ${#jkey} 4)$(le 0 8)$(le 0 8)$(le 0 8)$(le 1000000 8)$(asc "$jkey")$(le 0 8)"
req=$(protoc "${protos[@]}" --encode=simbus.Request bus/sim_bus.proto <<'T' | xxd -p | tr -d '\n'
id: 1 substeps: 5 source: "control port, 127.0.0.1:40000"
simulator_command { control { teleport_ball { x: 1 y: -0.5 } } }
T
)
team=$(protoc "${protos[@]}" --encode=simbus.Request bus/sim_bus.proto <<'T' | xxd -p | tr -d '\n'
id: 2 team_control { team: 1 control { robot_commands { id: 0 kick_speed: 3 } } }
T
)
journal="$jhead$(rec 3 0 0 0 "$(asc $'[sim]\nseed = 7\n')")$(rec 4 0 10 10000000 "$(asc 'control port')")"
journal="$journal$(rec 1 0 10 10000000 "$req")$(rec 1 1 20 20000000 "$team")$(rec 2 2 120 120000000 '')"
hex logfile journal "$journal"
# the same cut inside its last record, and with a seal that is wrong
hex logfile journal-torn "${journal:0:$((${#journal} - 20))}"
hex logfile journal-bad-seal "${journal:0:$((${#journal} - 2))}01"

# ---- libsslsim's detection decoder: SSL_WrapperPacket ---------------------
W=ssl_vision_wrapper.proto
frame='frame_number: 42 t_capture: 1700000000.5 t_sent: 1700000000.52 camera_id: 1
       balls { confidence: 0.9 area: 120 x: 100 y: -200 z: 21.5 pixel_x: 300 pixel_y: 200 }
       balls { confidence: 0.3 x: 1500 y: 800 pixel_x: 10 pixel_y: 20 }
       robots_yellow { confidence: 0.95 robot_id: 3 x: -1000 y: 500 orientation: 1.5 pixel_x: 100
                       pixel_y: 120 height: 150 }
       robots_blue { confidence: 0.9 robot_id: 0 x: 2000 y: -300 orientation: -0.5 pixel_x: 400 pixel_y: 50
                     height: 150 }
       robots_blue { confidence: 0.8 robot_id: 200 x: 0 y: 0 pixel_x: 0 pixel_y: 0 }'
geometry='field { field_length: 12000 field_width: 9000 goal_width: 1800 goal_depth: 180 boundary_width: 300
                field_lines { name: "TopTouchLine" p1 { x: -6000 y: 4500 } p2 { x: 6000 y: 4500 } thickness: 10 } }
        calib { camera_id: 0 focal_length: 400 principal_point_x: 300 principal_point_y: 300 distortion: 0
                q0: 0 q1: 0 q2: 0 q3: 1 tx: 0 ty: 0 tz: 4000 }'
enc SSL_WrapperPacket $W detection frame <<<"detection { $frame } source: SSL_SOURCE_VISION_PROCESSOR"
enc SSL_WrapperPacket $W detection frame-geometry <<<"detection { $frame } geometry { $geometry }"
enc SSL_WrapperPacket $W detection geometry <<<"geometry { $geometry }"
# what the fuzzer found (fixed): a key of six varint bytes, which the fast
# reader took and protobuf-c refuses
hex detection key-six-bytes 8185e7fff8002a18001818e21804

# ---- libsslsim's checkpoint files: edits of a real one (fuzz_checkpoint.c) --
hex checkpoint as-saved 00                        # the file as saved, sealed again
hex checkpoint cut 01e80300                       # cut to 1000 bytes
hex checkpoint format 0008000003ffffffff          # the header's format word
hex checkpoint unsealed 021000000000              # a changed byte, the old seal kept
hex checkpoint image 000000c0077fffffffffffffff   # eight bytes deep in the world image

echo "corpus: $(find "$out" -type f | wc -l) seeds in $out"
