#!/usr/bin/env bash
# The layers of harness/ and kernels/ (harness/layers.txt), checked on the
# include graph: every quoted #include is resolved as the compiler resolves it
# (beside the file, then -Iharness; the run-time headers by name), and an
# arrow the table does not allow fails, as does a harness header named
# without its folder, an include that resolves nowhere, and a backend's name
# as a C string outside backend/ (comments stripped by the preprocessor).
# Then the check must fail: on a copy of the sources, the five crossings
# issue 36 removed are put back one at a time (and a bare include, a backend
# name in an app), and each must be named.
# Prints "ok - ..." / "not ok - ..." per check.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
test_dir layers

# layers_check ROOT: each violation on a line of its own; status 1 when any.
layers_check() {
    local root=$1 kind where may x
    local -a layers=() runtime=()
    local -A at=() allow=() name_ok=()
    while read -r kind where may x; do
        case $kind in
        '' | '#'*) ;;
        runtime) runtime+=("$where") ;;
        name-ok) name_ok["$where|$may"]=1 ;;
        *) layers+=("$kind") at[$kind]=$where allow[$kind]=" $may $x " ;;
        esac
    done <"$root/harness/layers.txt"
    local layer
    layer_of() { # PATH: sets $layer to the layer of the longest matching place, or ""
        local l w n=0
        layer=
        for l in "${layers[@]}"; do
            w=${at[$l]}
            if [[ $1 == "$w" || $1 == "$w"/* ]] && ((${#w} > n)); then layer=$l n=${#w}; fi
        done
    }
    local bad=0 f ln inc t how lf lt r line
    local re='^([^:]+):([0-9]+):[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)"'
    while IFS= read -r line; do
        [[ $line =~ $re ]] || continue
        f=${BASH_REMATCH[1]} ln=${BASH_REMATCH[2]} inc=${BASH_REMATCH[3]} t= how=
        if [ -f "$root/harness/$inc" ] && { [ "${f%/*}" = harness ] || [ ! -f "$root/${f%/*}/$inc" ]; }; then
            t=harness/$inc how=path
        elif [ -f "$root/${f%/*}/$inc" ]; then t=${f%/*}/$inc how=beside
        else
            for r in "${runtime[@]}"; do [ "${r##*/}" = "$inc" ] && t=$r how=runtime; done
        fi
        if [ -z "$t" ]; then
            echo "$f:$ln: \"$inc\" is neither beside it nor under harness/"
            bad=1
            continue
        fi
        # Host code names a harness header with its folder; only the sources
        # compiled at run time (backend/peak/, backend/offload/) go by name.
        if [[ $f == harness/* && $f != harness/backend/peak/* && $f != harness/backend/offload/* &&
            $how != path ]]; then
            echo "$f:$ln: \"$inc\": name its folder (\"${t#harness/}\")"
            bad=1
        fi
        layer_of "$f"
        lf=$layer
        layer_of "$t"
        lt=$layer
        if [ -z "$lf" ] || [ -z "$lt" ]; then
            echo "$f:$ln: \"$inc\": ${lf:+$t}${lf:-$f} is in no layer of harness/layers.txt"
            bad=1
        elif [ "$lf" != "$lt" ] && [[ ${allow[$lf]} != *" $lt "* ]]; then
            echo "$f:$ln: $lf includes $lt (\"$inc\"); harness/layers.txt lets $lf include:${allow[$lf]}"
            bad=1
        fi
    done < <(cd "$root" && find harness kernels -type f \( -name '*.[ch]' -o -name '*.cl' -o -name '*.cu' \) |
        sort | xargs grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"')
    local name
    while IFS= read -r f; do
        for name in $(cc -fpreprocessed -dD -E -P "$root/$f" 2>/dev/null |
            grep -oE '"(cuda|opencl|openmp|openacc|omp-target)"' | tr -d '"' | sort -u); do
            [ -n "${name_ok[$f|$name]:-}" ] && continue
            echo "$f: the backend name \"$name\" outside backend/ (ask the device's caps)"
            bad=1
        done
    done < <(cd "$root" && grep -rlE --include='*.[ch]' '"(cuda|opencl|openmp|openacc|omp-target)"' harness kernels |
        grep -v '^harness/backend/' | sort)
    return $bad
}

out=$(layers_check .)
check "the include graph of harness/ and kernels/ keeps harness/layers.txt, with no backend name outside backend/" \
    test -z "$out"
[ -z "$out" ] || echo "$out" | sed 's/^/#   /'

# harness/README.md quotes the table's layer lines as they are.
missing=$(grep -vE '^(#|runtime|name-ok|$)' harness/layers.txt | while IFS= read -r l; do
    grep -qxF "$l" harness/README.md || echo "$l"
done)
check "harness/README.md quotes every layer line of harness/layers.txt" test -z "$missing"
[ -z "$missing" ] || echo "$missing" | sed 's/^/#   /'

# The check must be able to fail: each mutation on a copy must be named.
(find harness kernels -type f \( -name '*.[ch]' -o -name '*.cl' -o -name '*.cu' -o -name layers.txt \) |
    tar cf - -T -) | tar xf - -C "$T"
mutant() { # WHAT FILE LINE: the check fails on the copy with LINE added to FILE, naming FILE
    cp "$T/$2" "$T/$2.orig"
    printf '%s\n' "$3" >>"$T/$2"
    local said
    said=$(layers_check "$T")
    local rc=$?
    mv "$T/$2.orig" "$T/$2"
    check "it fails on $1 ($2)" bash -c "[ $rc -ne 0 ] && grep -qF '$2' <<<\"\$1\"" _ "$said"
}
mutant "the backend registry including the device sets' header" harness/backend/backend_registry.c \
    '#include "core/devset.h"'
mutant "the runner including the store" harness/core/runner.h '#include "store/store.h"'
mutant "the rounds including the store" harness/core/rounds.h '#include "store/store.h"'
mutant "the worker including the commands" harness/core/worker.c '#include "cli/commands.h"'
mutant "the burn-in including cli.h" harness/track/burn_in.c '#include "cli/cli.h"'
mutant "the host check including cli.h" harness/track/host_check.c '#include "cli/cli.h"'
mutant "the launch-cost figure including the commands" harness/report/launch_cost_plot.c \
    '#include "cli/commands.h"'
mutant "a header named without its folder" harness/core/knobs.c '#include "app.h"'
mutant "a backend asked for by name in an app" kernels/lbm/app.c \
    'int lbm_is_acc(const char *b) { return !strcmp(b, "openacc"); }'
exit $((fails > 0))
