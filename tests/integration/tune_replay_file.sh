#!/usr/bin/env bash
# harness tune --replay FILE: a strategy over a recorded landscape of any
# kernel (tests/data/kt/: a Kernel Tuner cache whole, cut off and gzipped,
# T4 results, a CSV; tests/data/landscape-*.csv) with no device and no
# database: the human and --json output (the JSON parses, its fields are
# there and within = best/optimum - 1), --budget as a percentage, one seed
# one answer, and every kind of bad input exiting 2 with the file (and
# line) named. HARNESS_DB names a file that must never appear: nothing here
# may open, create or write a database. Prints "ok - ..." / "not ok - ...".
set -u
cd "$(dirname "$0")/../.."
source tests/lib.sh
test_dir tune_replay_file
export HARNESS_DB=$T/never.db
H=bin/harness
K=tests/data/kt
# json FILE EXPR: EXPR (Python, the object as j) on FILE's JSON; true when it holds.
json() { python3 -c "import json, sys; j = json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1" 2>/dev/null; }

# ---- human output ----
$H tune --replay $K/cache-complete.json --strategy exhaustive >"$T/ex.out" 2>"$T/ex.err"
rc=$?
check "an exhaustive replay of a Kernel Tuner cache exits 0 (got $rc)" [ $rc -eq 0 ]
check "it names the file, format, kernel, device, points and failures" \
    grep -q "^tune --replay $K/cache-complete.json: Kernel Tuner cache of matmul_kernel on NVIDIA A100-PCIE-40GB: 64 points (6 failed), 5 parameters$" "$T/ex.out"
check "it lists the parameters' kinds" \
    grep -q '^parameters   block_size_x ordered 16..64 (3), block_size_y ordered 1..4 (3), use_shared switch (2), layout categorical (2), unroll switch (2)$' "$T/ex.out"
check "it says strategy, seed and budget, and evaluates all 64 points, failures too" \
    bash -c "grep -q '^strategy     exhaustive, seed 1, budget 64 (every point)$' '$T/ex.out' && grep -q '^evaluations  64 of 64 points$' '$T/ex.out'"
check "it finds the optimum, 1.35 ms at 32x4 shared row unrolled, and says how far the best is from it" \
    bash -c "grep -q '^best         1.3500 ms  block_size_x=32 block_size_y=4 use_shared=true layout=row unroll=1$' '$T/ex.out' &&
             grep -q '^optimum      1.3500 ms  block_size_x=32 ' '$T/ex.out' && grep -q '^within       +0.00% of the optimum' '$T/ex.out'"
$H tune --replay=$K/cache-complete.json --strategy random --budget 6 --seed 2 >"$T/eq.out" 2>&1
rc=$?
check "--replay=FILE works as --replay FILE (got $rc)" bash -c "[ $rc -eq 0 ] && grep -q '^evaluations  6 of 64 points$' '$T/eq.out'"

# ---- --json ----
$H tune --replay $K/cache-complete.json --strategy anneal --budget 20 --seed 5 --json >"$T/a.json" 2>"$T/a.err"
rc=$?
check "--json exits 0 (got $rc) and prints only JSON" python3 -c 'import json,sys; json.load(sys.stdin)' <"$T/a.json"
check "the JSON is one object on one line" bash -c "[ \$(wc -l <'$T/a.json') -eq 1 ]"
check "it has strategy, seed, budget, evaluations, best, best_config, optimum and within" \
    json "$T/a.json" "j['strategy'] == 'anneal' and j['seed'] == 5 and j['budget'] == 20 and 0 < j['evaluations'] <= 20
                     and j['best'] > 0 and isinstance(j['best_config'], dict) and j['optimum'] == 0.00135 and 'within' in j"
check "within is best / optimum - 1 ($(python3 -c "import json; j = json.load(open('$T/a.json')); print(j['best'], j['optimum'], j['within'])" 2>&1))" \
    json "$T/a.json" "abs(j['within'] - (j['best'] / j['optimum'] - 1)) < 1e-12 and j['within'] >= 0"
check "best_config's values are typed as in the file (numbers, booleans, strings)" \
    json "$T/a.json" "type(j['best_config']['block_size_x']) is int and type(j['best_config']['use_shared']) is bool
                     and type(j['best_config']['layout']) is str and sorted(j['best_config']) == sorted(['block_size_x', 'block_size_y', 'use_shared', 'layout', 'unroll'])"
$H tune --replay $K/cache-complete.json --strategy exhaustive --json >"$T/ex.json" 2>/dev/null
check "an exhaustive --json: the best is the optimum, within 0" \
    json "$T/ex.json" "j['best'] == j['optimum'] == 0.00135 and j['within'] == 0 and j['evaluations'] == 64 and j['points'] == 64 and j['failed'] == 6
                      and j['best_config'] == {'block_size_x': 32, 'block_size_y': 4, 'use_shared': True, 'layout': 'row', 'unroll': 1}"

# ---- --budget as a percentage ----
$H tune --replay $K/cache-complete.json --strategy random --budget 10% --json >"$T/pct.json" 2>/dev/null
rc=$?
check "--budget 10% of 64 points is 7 evaluations (exit $rc)" json "$T/pct.json" "j['budget'] == 7 and j['evaluations'] == 7"
$H tune --replay $K/cache-complete.json --strategy random --budget 10% >"$T/pct.out" 2>/dev/null
check "the human output says the percentage" grep -q '^strategy     random, seed 1, budget 7 (10% of 64 points)$' "$T/pct.out"
$H tune --replay $K/cache-complete.json --strategy forest --budget 100% --json >"$T/all.json" 2>/dev/null
check "--budget 100% is the whole space, and finds the optimum" json "$T/all.json" "j['budget'] == 64 and j['within'] == 0"

# ---- one seed, one answer ----
for s in 1 2; do
    $H tune --replay $K/cache-complete.json --strategy genetic --budget 12 --seed 9 --json >"$T/seed$s.json" 2>/dev/null
done
check "the same seed twice: the same JSON" cmp -s "$T/seed1.json" "$T/seed2.json"
for s in 1 2; do
    $H tune --replay tests/data/landscape-h200-cuda.csv --input 128x128 --strategy forest --budget 10% --seed 4 >"$T/f$s.out" 2>&1
done
check "the same seed twice on a measured landscape: the same output" \
    bash -c "cmp -s '$T/f1.out' '$T/f2.out' && grep -q '^evaluations  9 of 87 points$' '$T/f1.out'"

# ---- every format ----
$H tune --replay $K/cache-cut.json --strategy exhaustive --json >"$T/cut.json" 2>"$T/cut.err"
rc=$?
check "a cache cut off by a stopped run is read (exit $rc), as the whole one" \
    bash -c "[ $rc -eq 0 ] && python3 -c 'import json,sys; a, b = (json.load(open(f)) for f in sys.argv[1:]); sys.exit(any(a[k] != b[k] for k in (\"points\", \"failed\", \"optimum\", \"optimum_config\")))' '$T/cut.json' '$T/ex.json'"
check "... and says so on stderr" grep -q "note: $K/cache-cut.json: a Kernel Tuner cache cut off before its closing" "$T/cut.err"
$H tune --replay $K/cache-complete.json.gz --strategy exhaustive --json 2>/dev/null | sed 's/\.json\.gz"/.json"/' >"$T/gz.json"
check "the gzipped cache reads as the plain one" cmp -s "$T/gz.json" "$T/ex.json"
$H tune --replay $K/t4-kernel-tuner.json --strategy exhaustive --json >"$T/t4.json" 2>/dev/null
check "Kernel Tuner's T4 output: the same landscape" \
    json "$T/t4.json" "j['format'] == 'T4 results' and j['points'] == 64 and j['failed'] == 6 and j['optimum'] == 0.00135"
$H tune --replay $K/t4-harness.json --input gen-64x64 --strategy exhaustive --json >"$T/t4h.json" 2>/dev/null
check "a harness T4 export, one input picked: its points in seconds" \
    json "$T/t4h.json" "j['points'] == 18 and j['landscape'] == 'input gen-64x64' and j['device'] == 'openmp' and abs(j['optimum'] - 0.00312) < 1e-12"
$H tune --replay $K/landscape.csv --strategy exhaustive --json >"$T/csv.json" 2>/dev/null
check "a CSV with time_ms: the optimum in seconds, 3 failed rows kept" \
    json "$T/csv.json" "j['format'] == 'CSV' and j['points'] == 16 and j['failed'] == 3 and j['optimum'] == 0.00135"
$H tune --replay tests/data/landscape-h200-cuda.csv --strategy random --budget 5 >/dev/null 2>"$T/amb.err"
rc=$?
check "a CSV of two inputs without --input: exit 2 (got $rc), the choices listed" \
    bash -c "[ $rc -eq 2 ] && grep -q 'holds 2 landscapes; choose one with --input' '$T/amb.err' && grep -q -- '--input 128x128' '$T/amb.err' && grep -q -- '--input 256x256' '$T/amb.err'"

# ---- nothing succeeded among the evaluated: exit 1, said, JSON still one object ----
printf 'x,time_s\n1,\n2,\n3,0.5\n4,\n' >"$T/one.csv"
found=
for s in 1 2 3 4 5 6 7 8; do
    $H tune --replay "$T/one.csv" --strategy random --budget 1 --seed $s --json >"$T/none.json" 2>"$T/none.err"
    [ $? -eq 1 ] && found=$s && break
done
check "a search whose evaluations all failed exits 1 (seed ${found:-none}) with best null" \
    bash -c "[ -n '$found' ] && grep -q 'none of the 1 configurations evaluated succeeded' '$T/none.err' &&
             python3 -c 'import json,sys; j = json.load(sys.stdin); sys.exit(not (j[\"best\"] is None and j[\"evaluations\"] == 1))' <'$T/none.json'"

# ---- bad input: exit 2, the file (and line) named, no database ----
bad() { # NAME EXPECTED-TEXT ARGS...: exit 2 and the text on stderr
    local name=$1 want=$2; shift 2
    $H tune "$@" >"$T/bad.out" 2>"$T/bad.err"
    local rc=$?
    check "$name: exit 2 (got $rc), says '$want'" bash -c "[ $rc -eq 2 ] && grep -qF -- \"\$1\" '$T/bad.err'" _ "$want"
}
printf 'hello, this is no landscape\n' >"$T/notjson.json"
bad "not JSON" "$T/notjson.json:1: expected a value" --replay "$T/notjson.json" --strategy exhaustive
printf '{"tune_params": {"a": [1, 2]},\n"cache": {\n"1": {"a": 1, "time": 1.0},\n"2": {"a": 2, "time": 2.0,}\n}}\n' >"$T/malformed.json"
bad "malformed JSON" "$T/malformed.json:4: expected a member name" --replay "$T/malformed.json" --strategy exhaustive
printf '{"device_name": "x",\n"cache": {\n"1": {"a": 1, "time": 1.0}\n}}\n' >"$T/noparams.json"
bad "a cache with no tune_params" "$T/noparams.json: a Kernel Tuner cache without tune_params" \
    --replay "$T/noparams.json" --strategy exhaustive
printf '{"tune_params_keys": ["a", "b"],\n"tune_params": {"a": [1, 2],\n"b": []},\n"cache": {}}\n' >"$T/novalues.json"
bad "a parameter with no values" "$T/novalues.json:3: parameter b has no values" --replay "$T/novalues.json" --strategy exhaustive
printf '{"tune_params": {"a": [1, 2], "b": ["x", "y"]},\n"cache": {\n"1,x": {"a": 1, "b": "x", "time": 1.0},\n"2,x": {"a": 2, "b": "y", "time": 2.0}\n}}\n' >"$T/badkey.json"
bad "a key that does not match its values" "$T/badkey.json:4: the key \"2,x\" does not match the entry's values (2,y)" \
    --replay "$T/badkey.json" --strategy exhaustive
printf '{"tune_params": {"a": [1, 2]},\n"cache": {\n"1": {"a": 1, "time": 1.0},\n"3": {"a": 3, "time": 2.0}\n}}\n' >"$T/outside.json"
bad "a point outside tune_params" "$T/outside.json:4: the entry \"3\": a=3 is not among tune_params' values" \
    --replay "$T/outside.json" --strategy exhaustive
printf '{"tune_params": {"a": [1, 2]},\n"cache": {\n"1": {"a": 1, "time": "InvalidConfig"},\n"2": {"a": 2, "time": "CompilationFailedConfig"}\n}}\n' >"$T/nosuccess.json"
bad "no successful point" "$T/nosuccess.json: none of its 2 configurations succeeded" --replay "$T/nosuccess.json" --strategy exhaustive
bad "a budget larger than the space" "--budget 65 is more than the space's 64 points" \
    --replay $K/cache-complete.json --strategy random --budget 65
bad "a budget of 0%" "--budget 0%: need a count" --replay $K/cache-complete.json --strategy random --budget 0%
bad "an unknown strategy" "unknown --strategy bayesian; choose exhaustive, random" \
    --replay $K/cache-complete.json --strategy bayesian --budget 5
bad "no budget for a sampling strategy" "--strategy random needs --budget" --replay $K/cache-complete.json --strategy random
printf 'block_size_x,speed\n1,2\n' >"$T/notime.csv"
bad "a CSV with no time column" "$T/notime.csv:1: no time column" --replay "$T/notime.csv" --strategy exhaustive
printf 'block_size_x,time_min\n1,2\n' >"$T/unit.csv"
bad "a CSV time in an unknown unit" "$T/unit.csv:1: the time column \"time_min\" is in a unit not known" \
    --replay "$T/unit.csv" --strategy exhaustive
bad "a missing file" "$T/missing.json: No such file or directory" --replay "$T/missing.json" --strategy exhaustive
if [ "$(id -u)" -eq 0 ]; then # root reads any file: a directory is what it cannot read as one
    bad "an unreadable file (a directory)" "$T: a directory, not a landscape file" --replay "$T" --strategy exhaustive
else
    cp $K/landscape.csv "$T/locked.csv" && chmod 000 "$T/locked.csv"
    bad "an unreadable file" "$T/locked.csv: Permission denied" --replay "$T/locked.csv" --strategy exhaustive
fi
head -c 1000 $K/cache-complete.json.gz >"$T/cut.json.gz"
bad "a gzip file cut short" "$T/cut.json.gz: a corrupt gzip file" --replay "$T/cut.json.gz" --strategy exhaustive
python3 -c "import sys; d = bytearray(open(sys.argv[1], 'rb').read()); d[len(d) // 2] ^= 0x55; open(sys.argv[2], 'wb').write(d)" \
    $K/cache-complete.json.gz "$T/flipped.json.gz"
bad "a gzip file with damaged bytes" "$T/flipped.json.gz: a corrupt gzip file" --replay "$T/flipped.json.gz" --strategy exhaustive
bad "a database option" "--db does not apply" --replay $K/cache-complete.json --strategy random --budget 3 --db "$T/x.db"
bad "a sweep file after --replay" "a sweep file, not a recorded landscape" --replay sweeps/smoke.sweep --strategy random --budget 3
check "no database was created by any of it" bash -c "[ ! -e '$HARNESS_DB' ] && [ ! -e '$T/x.db' ]"

# ---- --replay alone still replays the database ----
$H tune --replay --strategy exhaustive --input gen:64x64 --device openmp >/dev/null 2>"$T/db.err"
rc=$?
check "--replay without a file still means the database: a missing one is exit 1 (got $rc), not created" \
    bash -c "[ $rc -eq 1 ] && grep -q 'does not exist; nothing to replay' '$T/db.err' && [ ! -e '$HARNESS_DB' ]"
$H tune --help >"$T/help.txt" 2>&1
check "tune --help documents --replay FILE, its formats and a percentage budget" \
    bash -c "grep -q -- '--replay FILE' '$T/help.txt' && grep -q 'Kernel Tuner cache' '$T/help.txt' && grep -q '10%' '$T/help.txt'"
exit $((fails > 0))
