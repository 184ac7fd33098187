#!/usr/bin/env bash
# halo=cluster (a row of tiles one thread-block cluster, the x halo read
# from the neighbours' shared memory each sub-step) against g11-paired as
# it is, same call, full step counts: the shapes where the cluster spans
# 128 or 256 columns (8 or 16 blocks) and the grid has 128 or 256 blocks.
# Usage: HARNESS_DB=h.db scripts/halo_cluster.sh [REPS]
RUN_TIMEOUT=200
. "$(dirname "$0")/gpu_bench.sh"
peak "$cuda"
# Resident clusters for the shapes' blocks (threads:bytes of shared memory)
# and a cluster barrier's cost against a block barrier's.
if command -v nvcc > /dev/null; then
    probe=$(mktemp)
    nvcc -arch=sm_90 -o "$probe" scripts/cluster_probe.cu && "$probe" 128:11152 192:15824 256:21664 320:26592 384:31008 640:49696
    rm -f "$probe"
fi
v=g11-paired c=halo=cluster,tile=inner
runs "$cuda" $v 128x128 temporal=5,tile=inner:24x16 \
    $c,temporal=5:8x24 $c,temporal=5:16x16 $c,temporal=5:8x16 $c,temporal=3:8x20 \
    $c,temporal=7:8x28 $c,temporal=4:16x14 $c,temporal=6:16x18 $c,temporal=7:16x20 $c,temporal=8:16x22
runs "$cuda" $v 256x256 temporal=5:32x16 \
    $c,temporal=5:16x40 $c,temporal=5:16x24 $c,temporal=7:16x44 $c,temporal=8:16x46 \
    $c,temporal=5:32x24 $c,temporal=7:32x28 $c,temporal=8:32x30 halo=cluster,temporal=5:16x32
exit $status
