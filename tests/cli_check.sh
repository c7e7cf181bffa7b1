#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The mca command's conventions: one grammar for every subcommand (an
# unknown option is one line "mca SUB: ..." and exit 2 before any work,
# --help anywhere, options in any order), --version, `mca help CMD`, strict
# numbers (exit 2, one line, no traceback), output paths checked before a
# run, `--json -`, the JSON envelope, --timeout as a stall detector, and
# Ctrl-C leaving no partition or message queue behind.
# usage: cli_check.sh MCA TOPOLOGY_DIR
set -uo pipefail
mca="$1"; topos="$2"
src="$topos/../../.."
fail=0
# MCX_TEST_TIMEOUT_SCALE (> 0, fractional allowed), default 1: the factor on every ceiling.
scale=$(awk -v s="${MCX_TEST_TIMEOUT_SCALE:-1}" 'BEGIN { print (s + 0 > 0) ? s + 0 : 1 }')
# ceiling SECONDS: SECONDS scaled, whole (at least 1)
ceiling() { awk -v b="$1" -v s="$scale" 'BEGIN { v = int(b * s + 0.5); print v < 1 ? 1 : v }'; }
# poll SECONDS COMMAND...: until COMMAND succeeds or the scaled ceiling passes; its status
poll() {
  local end=$(( $(date +%s) + $(ceiling "$1") )); shift
  until "$@"; do [ "$(date +%s)" -ge "$end" ] && return 1; sleep 0.05; done
}
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }

# expect RC PATTERN -- COMMAND...: exit code, a line matching PATTERN, never a traceback
expect() {
  local want="$1" pat="$2"; shift 3
  local out rc
  out=$("$@" 2>&1); rc=$?
  if [ "$rc" -ne "$want" ] || ! grep -Eq -- "$pat" <<<"$out" || grep -q Traceback <<<"$out"; then
    bad "$* -> exit $rc (want $want), output: $(head -3 <<<"$out")"
  else
    ok "$* -> $rc"
  fi
}

expect 0 "^mca [0-9]" -- "$mca" --version
# every subcommand, as `mca help` lists them (tools/mca/main.c)
cmds=$("$mca" help | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p')
[ "$(wc -w <<<"$cmds")" -ge 11 ] && ok "mca help lists $(wc -w <<<"$cmds") subcommands" || bad "mca help lists: $cmds"
for c in $cmds; do
  expect 0 "usage: mca $c" -- "$mca" help "$c"
done

# One grammar. Each subcommand with arguments that would start its work (a
# run, a probe, a partition, a Python helper with its imports), then a bad
# option: the whole line is read first, so the only output is the one line
# naming the option, and the exit is 2. That output is the event; the
# ceiling only keeps a hung command from hanging the suite.
hc=$(ls "$src"/tests/hint/cases/*.c | head -1)
fx="$src/tests/fixtures"
work_args() {
  case "$1" in
    demo) echo "" ;;
    domains) echo "--watch 0.1 --count 1" ;;
    bench) echo "--smoke --no-progress" ;;
    stress) echo "--count 500 $topos/ring.json" ;;
    report) echo "$fx/sync_quick.json -o /dev/null" ;;
    coherence) echo "--quick" ;;
    model) echo "$fx/bench_small.json" ;;
    sync) echo "--quick" ;;
    sem) echo "--quick" ;;
    hint) echo "$hc" ;;
    bridge) echo "--bench --rounds 1" ;;
    *) echo "" ;;
  esac
}
# one_line RC PREFIX PATTERN -- COMMAND...: exit RC, one line on stderr starting
# with PREFIX and matching PATTERN, nothing on stdout, within the ceiling
one_line() {
  local want="$1" prefix="$2" pat="$3"; shift 4
  local err out rc
  err=$(mktemp); out=$(timeout "$(ceiling 120)" "$@" 2>"$err"); rc=$?
  local e; e=$(cat "$err"); rm -f "$err"
  if [ "$rc" -eq "$want" ] && [ -z "$out" ] && [ "$(wc -l <<<"$e")" -eq 1 ] && [[ "$e" == "$prefix"* ]] &&
     grep -Eq -- "$pat" <<<"$e"; then
    ok "$* -> $rc, one line"
  else
    bad "$* -> exit $rc (want $want), stdout: $(head -c 200 <<<"$out"), stderr: $(head -3 <<<"$e")"
  fi
}
for c in $cmds; do
  # shellcheck disable=SC2046 # the work arguments are words
  one_line 2 "mca $c: " "unknown option '--no-such-option'" -- "$mca" "$c" $(work_args "$c") --no-such-option
  one_line 2 "mca $c: " "unknown option '--no-such-option=1'" -- "$mca" "$c" --no-such-option=1 $(work_args "$c")
  # --help anywhere, after the arguments that would start the work
  expect 0 "usage: mca $c" -- "$mca" "$c" $(work_args "$c") --help
  expect 0 "usage: mca $c" -- "$mca" "$c" -h
done
# an option's value missing, an unexpected operand, a value given to a flag
for c in demo domains bench stress coherence model sync sem hint bridge report; do
  case "$c" in report) o=--output ;; *) o=--json ;; esac
  one_line 2 "mca $c: " "needs a value" -- "$mca" "$c" $(work_args "$c") "$o"
done
one_line 2 "mca demo: " "unexpected argument 'extra'" -- "$mca" demo extra
one_line 2 "mca domains: " "unexpected argument 'extra'" -- "$mca" domains extra
one_line 2 "mca bench: " "unexpected argument 'extra'" -- "$mca" bench --smoke extra
one_line 2 "mca sync: " "unexpected argument 'x.json'" -- "$mca" sync x.json
one_line 2 "mca stress: " "one TOPOLOGY.json at a time" -- "$mca" stress "$topos/ring.json" "$topos/ring.json"
one_line 2 "mca stress: " "expected a TOPOLOGY.json" -- "$mca" stress --count 5
one_line 2 "mca bench: " "--quick takes no value" -- "$mca" bench --quick=yes
one_line 2 "mca report: " "expected at least one RESULT.json" -- "$mca" report -o /dev/null
one_line 2 "mca model: " "expected BENCH.json" -- "$mca" model
one_line 2 "mca hint: " "expected FILE.c" -- "$mca" hint
one_line 2 "mca bridge: " "--count goes with --bench" -- "$mca" bridge --check x.json --count 100
# a topology file's problems name the command too
one_line 2 "mca stress: " "does_not_exist.json: No such file" -- "$mca" stress "$src/tests/topologies_bad/does_not_exist.json"
# --only that matches nothing: refused before the probes (no probe line, no table)
one_line 2 "mca bench: " "matches no cell" -- "$mca" bench --smoke --only zzz_nothing
# bench --instr anywhere among the options; its internal --driver is not shown
one_line 2 "mca bench: " "--count: expected a whole number" -- "$mca" bench --count 3x --instr
one_line 2 "mca bench: " "unknown option '--frob'" -- "$mca" bench --json /dev/null --instr --frob
h=$("$mca" bench --modes lockfree --instr --help 2>&1); rc=$?
if [ "$rc" -eq 0 ] && grep -q "usage: mca bench --instr" <<<"$h" && ! grep -q -- "--driver" <<<"$h"; then
  ok "mca bench --instr --help: no --driver"; else bad "mca bench --instr --help: exit $rc, $(head -2 <<<"$h")"; fi
h=$("$mca" model --help 2>&1)
grep -q -- "--driver\|--mca" <<<"$h" && bad "mca model --help shows an internal option" || ok "mca model --help: no internal option"

# options in any order, --opt=value: the same result
anyorder() { # anyorder CHECK -- COMMAND...: COMMAND's JSON on stdout passes the python CHECK
  local chk="$1"; shift 2
  if "$@" 2>/dev/null | python3 -c "import json, sys; d = json.load(sys.stdin); $chk"; then ok "$*"; else bad "$*"; fi
}
st='assert d["result"]["status"] == "ok" and d["routes"][0]["count"] == 500, d["result"]'
anyorder "$st" -- "$mca" stress "$topos/one_channel.json" --count 500 --json -
anyorder "$st" -- "$mca" stress --json=- --count=500 "$topos/one_channel.json"
md='assert d["schema"] == "mca-model/1" and d["cells"], d.keys()'
anyorder "$md" -- "$mca" model --json - "$fx/model_stream.json"
anyorder "$md" -- "$mca" model "$fx/model_stream.json" --json=-
dm='assert d["schema"] == "mca-demo/1" and len(d["runs"]) == 2 and len(d["runs"][0]["received"]) == 9, d'
anyorder "$dm" -- "$mca" demo --json -
anyorder 'assert d["schema"] == "mca-domains/1"' -- "$mca" domains --namespace=cli_check_none --json -
anyorder 'assert d["schema"] == "mca-domains/1"' -- "$mca" domains --json - --namespace cli_check_none
rep="${TMPDIR:-/tmp}/cli_check_$$.html"
for order in "-o $rep $fx/sync_quick.json" "$fx/sync_quick.json --output=$rep"; do
  rm -f "$rep"
  # shellcheck disable=SC2086
  if "$mca" report $order 2>/dev/null && grep -q "Plotly.newPlot" "$rep"; then ok "mca report $order"; else bad "mca report $order"; fi
done
rm -f "$rep"
expect 2 "unknown command" -- "$mca" help nosuch
expect 2 "unknown command" -- "$mca" nosuch

# every option of every subcommand's usage line is described in its --help
for c in $cmds; do
  h=$("$mca" help "$c")
  for o in $(grep -E '^(usage:|  +\[)' <<<"$h" | grep -oE -- '--[a-z][a-z-]*' | sort -u); do
    [ "$(grep -c -- "$o" <<<"$h")" -ge 2 ] || { bad "mca $c --help does not describe $o"; }
  done
done

# strict numbers
expect 2 "--repeat: expected a whole number" -- "$mca" bench --repeat 3x
expect 2 "--repeat: expected a whole number" -- "$mca" bench --repeat -5
expect 2 "--count: expected a whole number" -- "$mca" stress --count -5 "$topos/ring.json"
expect 2 "--count: expected a whole number" -- "$mca" stress --count 10k "$topos/ring.json"
expect 2 "--timeout: expected a number" -- "$mca" stress --timeout 0 "$topos/ring.json"
expect 2 "--reps: expected a whole number" -- "$mca" sync --reps 3x
expect 2 "--rounds: expected a whole number" -- "$mca" sem --rounds 0
expect 2 "--threads: expected" -- "$mca" sem --threads 3,x
expect 2 "--reps: expected a whole number" -- "$mca" coherence --reps 2.5
expect 2 "--sizes: expected a size" -- "$mca" coherence --sizes 32K,banana
expect 2 "--prio: expected a whole number from 1 to 99" -- "$mca" bench --prio 100
expect 2 "--cpus: expected online CPU numbers" -- "$mca" stress --cpus 0,99999 "$topos/ring.json"
expect 2 "--cpus: expected online CPU numbers" -- "$mca" sync --cpus x
expect 2 "--cpus: expected online CPU numbers" -- "$mca" sem --cpus -1
expect 2 "--cpus: expected two CPUs" -- "$mca" coherence --cpus 0
expect 2 "--exchanges: expected a whole number" -- "$mca" model --count --exchanges -5
expect 2 "--exchanges: expected a whole number" -- "$mca" model --count --exchanges 3x
expect 2 "--seed: expected a whole number" -- "$mca" model --seed 3x "$src/tests/fixtures/model_stream.json"
expect 2 "--count: expected a whole number" -- "$mca" bench --instr --count 3x
expect 2 "--count: expected a whole number" -- "$mca" bench --instr --count -5
# output paths are checked before the run starts (these would run for minutes)
for c in "bench --quick" "sync" "sem" "coherence"; do
  expect 2 "directory /nonexistent/dir does not exist" -- "$mca" $c --json /nonexistent/dir/out.json
done
expect 2 "does not exist" -- "$mca" stress --json /nonexistent/dir/out.json "$topos/ring.json"
expect 2 "does not exist" -- "$mca" model "$src/tests/fixtures/model_stream.json" --json /nonexistent/dir/out.json
expect 2 "does not exist" -- "$mca" hint --json /nonexistent/dir/out.json "$src/tests/hint/no_such.c"

# --json - : the JSON alone on stdout, with the envelope
envelope_cmds=("stress --count 500 $topos/one_channel.json" "domains" "model $src/tests/fixtures/model_stream.json" "demo")
# the bridge's measurement where nng was built (two bridges over ipc on this machine, a few seconds)
if "$mca" bridge --help | grep -q "Not built here"; then echo "skip mca bridge --bench --json - (no nng)"
else envelope_cmds+=("bridge --bench --rounds 2 --rtts 100 --count 1000"); fi
for c in "${envelope_cmds[@]}"; do
  if "$mca" $c --json - 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
for k in ("schema", "date", "command", "machine", "build"):
    assert k in d, k
assert d["command"].startswith("mca "), d["command"]
assert d["machine"]["cpus"] >= 1 and d["build"]["commit"], d
'; then ok "mca $c --json - : envelope on stdout"; else bad "mca $c --json -"; fi
done

# mca hint needs libclang's binding: exit 3 without it (then there is nothing to check)
hj=$("$mca" hint --json - "$hc" -- -I"$src/include" 2>/dev/null); hrc=$?
if [ "$hrc" -eq 3 ]; then echo "skip mca hint --json - (no libclang binding)"
elif python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["schema"] == "mca-hint/1" and d["command"].startswith("mca hint") and d["build"]["commit"], d
assert isinstance(d["findings"], list)
' "$hj"; then ok "mca hint --json - : JSON alone on stdout, with the envelope"; else bad "mca hint --json - (exit $hrc)"; fi

# --timeout is a stall detector: a healthy run longer than the timeout passes.
# The run must outlast the timeout to prove it: the count grows until it does.
stall_verdict=bad
stall=$(ceiling 1) # scaled: a loaded machine's pauses are no stall
for count in 200000 1500000 6000000 24000000 96000000; do
  v=$("$mca" stress --count $count --timeout "$stall" --json - "$topos/one_channel.json" 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
r = d["result"]
if r["status"] != "ok":
    print("bad", r)
elif r["elapsed_s"] > d["config"]["timeout_s"]:
    print("ok")
else:
    print("short")
' 2>&1)
  case "$v" in
    ok) stall_verdict=ok; break ;;
    short) continue ;;
    *) echo "$v"; break ;;
  esac
done
if [ "$stall_verdict" = ok ]; then ok "stress --timeout $stall: a healthy run longer than $stall s passes"; else bad "stress --timeout is not a stall detector"; fi

# Ctrl-C on a run with process nodes leaves no partition or queue behind
export MCX_NAMESPACE="cli_check_$$"
# What a killed earlier run left (its pid is gone), then ours at exit.
for f in /dev/shm/mcx-*-cli_check_* /dev/mqueue/mcx-*-cli_check_*; do
  [ -e "$f" ] || continue
  p=${f##*-cli_check_}; p=${p%%-*}
  kill -0 "$p" 2>/dev/null || rm -f "$f"
done
trap 'rm -f /dev/shm/mcx-*-"$MCX_NAMESPACE"-* /dev/mqueue/mcx-*-"$MCX_NAMESPACE"-* 2>/dev/null' EXIT
# the run's partition and its two process nodes exist
started() { ls /dev/shm | grep -q "$MCX_NAMESPACE" && [ "$(pgrep -P "$1" | wc -l)" -ge 2 ]; }
stopped() { ! kill -0 "$1" 2>/dev/null; }
sigint_transports="shm pmq"
if [ -n "${MCX_CLI_TSAN:-}" ]; then
  # ThreadSanitizer holds an asynchronous signal until the thread next enters
  # one of its intercepted calls: mca, blocked in a plain system call, never
  # sees the SIGINT there. The default build checks this part.
  echo "skip Ctrl-C checks: ThreadSanitizer build (signals are deferred)"
  sigint_transports=""
fi
for transport in $sigint_transports; do
  [ "$transport" = pmq ] && [ ! -d /dev/mqueue ] && { echo "skip pmq: no /dev/mqueue"; continue; }
  # "parent": the signal to mca alone (kill); "group": to mca and its nodes, as Ctrl-C in a terminal
  for target in parent group; do
    MCX_TRANSPORT=$transport setsid "$mca" stress --count 1000000000 "$topos/processes.json" >/dev/null 2>&1 &
    pid=$!
    poll 30 started "$pid" # event: the run is under way
    kids=$(pgrep -P "$pid")
    if [ "$target" = group ]; then kill -INT -- "-$pid"; else kill -INT "$pid"; fi
    # Bounded: a run that ignores the signal fails the check, not the suite.
    if ! poll 60 stopped "$pid"; then
      kill -KILL -- "-$pid" 2>/dev/null
      echo "mca stress did not stop within $(ceiling 60) s of SIGINT"
    fi
    wait "$pid"; rc=$?
    left=$(ls /dev/shm /dev/mqueue 2>/dev/null | grep "$MCX_NAMESPACE")
    alive=""
    for k in $kids; do kill -0 "$k" 2>/dev/null && alive="$alive $k"; done
    if [ "$rc" -eq 130 ] && [ -z "$left" ] && [ -z "$alive" ] && [ -n "$kids" ]; then
      ok "Ctrl-C ($transport, $target): exit 130, nothing left"
    else
      bad "Ctrl-C ($transport, $target): exit $rc, left: $left, children: '$kids', alive:$alive"
      "$mca" domains --clean --namespace "$MCX_NAMESPACE" >/dev/null
    fi
  done
done
exit $fail
