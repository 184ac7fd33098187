#!/usr/bin/env bash
# Issue 18's replay criterion, not met yet: on every informative landscape
# (a distinct winner that not searching misses) random and anneal reach
# within 2 % of the exhaustive best with 25 % of the evaluations and forest
# with 10 %, in the median of 20 seeds. tests/unit/test_tune_replay.c built
# with REPLAY_ISSUE18 adds the H200 knobs x shapes landscapes and forest.
# Fails today on the H200 256x256 87-point landscape for forest (4 of 20
# seeds; random 13, anneal 12 pass): the winner is one point of 87, 3.9 % ahead of the
# next, and forest has 8 evaluations. Run: bash tests/pending/tune_replay.sh
set -u
cd "$(dirname "$0")/../.."
make -s build/libharness.a >/dev/null || exit 1
# The unit tests' flags (Makefile), plus the define.
cc -DREPLAY_ISSUE18 -Iharness -Iharness/cli -Iharness/core -Iharness/backend -Iharness/store -Iharness/stats \
    -Iharness/track -Iharness/report -Ibuild/gen -Itests/unit -std=c11 -D_GNU_SOURCE -O2 \
    -o build/tests/pending_tune_replay tests/unit/test_tune_replay.c build/libharness.a -lsqlite3 -ldl -lm -lpthread || exit 1
build/tests/pending_tune_replay
