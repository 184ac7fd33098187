#!/usr/bin/env bash
# The sandpile's host_tile knob: a CPU's (OpenMP's) own tile shape, used in
# place of the config's (work-group) shape, alone and as a device set's CPU
# member. Checks: bit-exact (the grid and the exact count) for tall, wide,
# odd and full-width tiles, one and several steps a launch, two starts;
# that the tile really is host_tile's and not the config's (a kernel built
# with one halo column too few is right only where tiles span the grid's
# width: wrong with --wg 8x8, right with host_tile=65536xN over the same
# --wg); on PoCL + OpenMP (the GPU kernel's tile=double too, which the CPU
# member ignores); the identity of configs that leave it at auto unchanged;
# bad values and a GPU alone exit 2 with `what is wrong`.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
test_dir host_tile
H=bin/harness
export HARNESS_DB=$T/h.db
if ! $H devices 2>/dev/null | grep -q '^openmp '; then
    echo "ok - host_tile # skip needs openmp"
    exit 0
fi

# run INPUT VARIANT KNOBS [ARGS...]: one repetition on OpenMP, the result line.
run() {
    local input=$1 variant=$2 knobs=$3
    shift 3
    $H run --app sandpile --input "$input" --variant "$variant" --wg 8x8 --knobs "$knobs" --device openmp \
        --reps 1 --warmup 0 --quiet "$@" 2>&1 | grep -E ' (ok|wrong|invalid|crashed|runtime-error|compile-error) '
}
# 64x64 from 4 grains (1024 iterations), a random start on 61x77, seed 3 (1522).
for input in 64x64:1024 random:61x77:3:1522; do
    count=${input##*:}
    input=${input%:*}
    for variant in flag-1000 blocked-4 blocked-8; do
        for tile in 65536x5 65536x64 7x3 100x1 1x100 3x65536; do
            out=$(run "$input" $variant host_tile=$tile)
            check "$input $variant host_tile=$tile: verified, $count iterations" \
                bash -c "echo \"\$1\" | grep -q ' ok .*iterations $count '" _ "$out"
        done
    done
done

# The tile is host_tile's: with one halo column too few, tiles narrower
# than the grid go wrong at their edges; full-width tiles have no edges.
broken() { SANDPILE_TEST_DEFINES=-DK_BROKEN_HALO run 64x64 blocked-4 "$@"; }
out=$(broken host_tile=auto)
check "a halo one column short is wrong with the config's 8x8 tiles" bash -c "echo \"\$1\" | grep -q ' wrong '" _ "$out"
out=$(broken host_tile=13x64)
check "... and with host_tile=13x64" bash -c "echo \"\$1\" | grep -q ' wrong '" _ "$out"
out=$(broken host_tile=65536x8)
check "... but right with host_tile=65536x8 over the same --wg 8x8: the kernel ran host_tile's tiles" \
    bash -c "echo \"\$1\" | grep -q ' ok '" _ "$out"

# Stored: host_tile in the config's knobs when set, absent at auto (the
# identity every earlier config has).
sqlite3 "$HARNESS_DB" "SELECT knobs FROM config" >"$T/knobs.txt"
check "a config with host_tile stores it in its knobs" grep -q 'host_tile=65536x64' "$T/knobs.txt"
check "a config at host_tile=auto stores no host_tile" bash -c "grep -v host_tile '$T/knobs.txt' | grep -q 'steps=4'"

# A device set's CPU member runs host_tile while the GPU side runs the
# work-group (and tile=double and cells=R, which the CPU member ignores).
SET=opencl:0.0+openmp
if $H devices 2>/dev/null | grep -q '^opencl:0.0 '; then
    for knobs in "host_tile=65536x16,split=0.7,exchange=8" "host_tile=9x5,split=0.3,exchange=4" \
        "host_tile=65536x7,exchange=8" "tile=double,host_tile=65536x16,split=0.5,exchange=12" \
        "tile=double,cells=4,host_tile=65536x16,split=0.5,exchange=12" "cells=2,host_tile=9x5,split=0.3,exchange=4"; do
        out=$($H run --app sandpile --input random:61x77:3 --variant blocked-4 --wg 8x8 --knobs "$knobs" --device $SET \
            --reps 1 --warmup 0 --quiet 2>&1 | grep -E ' (ok|wrong|invalid|crashed|runtime-error) ')
        check "$SET blocked-4 $knobs: verified, 1522 iterations" bash -c "echo \"\$1\" | grep -q ' ok .*iterations 1522 '" _ "$out"
    done
    out=$(SANDPILE_TEST_DEFINES=-DK_BROKEN_HALO $H run --app sandpile --input 64x64 --variant blocked-4 --wg 8x8 \
        --knobs host_tile=13x8,split=0.5,exchange=8 --device $SET --reps 1 --warmup 0 --quiet 2>&1)
    check "a halo one column short in the CPU member's tiles is wrong on a set" \
        bash -c "echo \"\$1\" | grep -q ' wrong '" _ "$out"
else
    echo "ok - host_tile on a device set # skip needs opencl:0.0 (PoCL)"
fi

# Bad input: exit 2, `what is wrong`, nothing stored.
before=$(md5sum "$HARNESS_DB" | cut -d' ' -f1)
bad() { # NAME EXPECT ARGS...
    local name=$1 expect=$2 out rc
    shift 2
    out=$("$@" 2>&1)
    rc=$?
    if [ "$rc" = 2 ] && echo "$out" | grep -q -- "$expect"; then ok "$name"; else notok "$name (rc $rc: $out)"; fi
}
one() { $H run --app sandpile --input 40x36 --variant flag --wg 8x8 --device openmp "$@"; }
bad "host_tile=0x4" "knob host_tile: '0x4' is not one of auto|shape (shape: WxH" one --knobs host_tile=0x4
bad "host_tile=4x" "knob host_tile: '4x'" one --knobs host_tile=4x
bad "host_tile=65537x1" "knob host_tile: '65537x1'" one --knobs host_tile=65537x1
bad "host_tile=08x8 (a leading zero)" "knob host_tile: '08x8'" one --knobs host_tile=08x8
bad "host_tile=8" "knob host_tile: '8'" one --knobs host_tile=8
if $H devices 2>/dev/null | grep -q '^opencl:0.0 '; then
    bad "host_tile on a GPU-like device alone (PoCL has work-groups)" "host_tile is a CPU's (OpenMP's) tile shape" \
        $H run --app sandpile --input 40x36 --variant flag --wg 8x8 --device opencl:0.0 --knobs host_tile=32x8
fi
check "bad input left the database untouched" [ "$(md5sum "$HARNESS_DB" | cut -d' ' -f1)" = "$before" ]
exit $((fails > 0))
