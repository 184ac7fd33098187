#!/usr/bin/env bash
# Issue 18's replay criterion on landscape-h200-cuda-heldout.csv, not met
# yet: forest (the model-based strategy) must reach within 2 % of the
# exhaustive best with 10 % of the evaluations in the median of 20 seeds on
# every informative landscape. The file (512x512 and 1024x1024) was
# recorded on the H200 after the forest's constants were chosen on
# landscape-h200-cuda.csv; it has since been used to develop the forest, so
# it is no longer held out (the file keeps its name). tests/unit/
# test_tune_replay.c built with REPLAY_HELDOUT replays it. Today: 512x512
# passes (18 of 20 seeds); 1024x1024 fails (3 of 20): its winner
# (temporal=3, group tiles, 32x16) goes against the landscape's main effect
# (with group tiles temporal=5 is faster at 8 of the 12 shapes; temporal=3
# with group tiles is at least 16 % slower than the winner at every other
# shape), and it is the only point within 2 %; 8 evaluations of 87 do not
# find that interaction: the cold forest reaches it only through its
# 3-point design (16 of 100 seeds), never in a model-chosen step, and an
# end-of-budget polish of the incumbent's neighbours (branch forest-polish)
# lifted it to at most 39 % of 100 seeds while losing 256x256. Warm-started
# from 512x512 the forest reaches it in 12 of 20 seeds, but that does not
# count: 512x512's 8 fastest points alone hold the winner (the test prints
# the warm figure as not informative), and the criterion is the cold search's.
# tests/data/landscape-h100-cuda.csv, the same sweep at 128x128 to 1024x1024
# on an H100 (2026-11-27, recorded after the forest's last change: held
# out), confirms the miss is not one card's needle: its 1024x1024 winner
# (temporal=5, group tiles, 32x16; +6.59 % over the runner-up) goes with the
# main effects, yet the cold forest reaches it in 2 of 20 seeds (random at
# the same 8 evaluations: 46 of 100). Traced: expected improvement spends
# the evaluations on the corners of the shape range (8x4, 64x4, 64x16, where
# the additive model's size and aspect terms are least certain), and after
# a design that found temporal=3 at 32x16 it never flips temporal at that
# shape. Warm-started from its 512x512 it reaches it in 13 of 20, and there
# the 512x512's 8 best points alone miss it (19.87 % off): informative, but
# not the cold criterion. Its other three inputs are ties.
# results/published/nvidia-h200/tuning.md ("Replay") lists what was tried,
# with figures.
# Run: bash tests/pending/tune_replay_heldout.sh
set -u
cd "$(dirname "$0")/../.."
make -s build/libharness.a >/dev/null || exit 1
mkdir -p build/tests
cc -DREPLAY_HELDOUT -Iharness -Iharness/cli -Iharness/core -Iharness/backend -Iharness/store -Iharness/stats \
    -Iharness/track -Iharness/report -Ibuild/gen -Itests/unit -std=c11 -D_GNU_SOURCE -O2 \
    -o build/tests/pending_tune_replay_heldout tests/unit/test_tune_replay.c build/libharness.a -lsqlite3 -ldl -lm \
    -lpthread || exit 1
build/tests/pending_tune_replay_heldout
