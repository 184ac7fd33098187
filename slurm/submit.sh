#!/usr/bin/env bash
# slurm/submit.sh SWEEP_FILE N [K] [SBATCH_OPTION...]: an N-task array of the
# sweep (at most K tasks at once, default N) and a merge job that runs once
# every task has ended, however it ended (afterany). Options after K go to
# both jobs (e.g. --exclusive for timing runs, --partition=gpu, --gpus-per-task=0
# on CPU-only nodes). Prints the two job ids.
set -eu
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: slurm/submit.sh SWEEP_FILE N [K] [SBATCH_OPTION...]" >&2; exit 2; }
sweep=$1 n=$2 k=${3:-$2}
shift $(($# >= 3 ? 3 : 2))
mkdir -p "${OUT:-results/shards}"
case " $* " in *" --output="* | *" -o "*) ;; *) mkdir -p logs ;; esac # the scripts log to logs/
array=$(sbatch --parsable --array="0-$((n - 1))%$k" --export=ALL,SHARDS="$n" "$@" slurm/sweep-array.sbatch "$sweep")
array=${array%%;*}
merge=$(sbatch --parsable --dependency=afterany:"$array" --export=ALL,SHARDS="$n" "$@" slurm/merge.sbatch "$sweep")
echo "array $array, merge ${merge%%;*}"
