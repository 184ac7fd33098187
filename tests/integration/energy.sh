#!/usr/bin/env bash
# Energy with every measurement, on a machine whose devices have no energy
# meter (CPUs): runs through a worker (two rounds) and in this process
# (--out) store NULL energy in every row, never a zero; export carries the
# energy_j and power_w columns, empty; `devices --csv` lists no meter for
# openmp.
# (The meter itself is tested against a fake NVML in test_energy.)
# Prints "ok - ..." / "not ok - ..." per check.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
test_dir energy
H=bin/harness
q() { sqlite3 "$1" "$2" 2>&1; }

$H run --input 128x128 --iters 20 --device openmp --db "$T/x.db" >"$T/run.out" 2>&1
rc=$?
check "run on openmp exits 0 (got $rc)" [ $rc -eq 0 ]
rows=$(q "$T/x.db" "SELECT count(*) FROM measurement")
nulls=$(q "$T/x.db" "SELECT count(*) FROM measurement WHERE energy_j IS NULL AND power_w IS NULL")
check "openmp: every row's energy is NULL ($nulls of $rows)" [ "$rows" -ge 1 ] && [ "$nulls" = "$rows" ]
check "openmp: the printed line claims no energy" bash -c "! grep -q '/rep' '$T/run.out'"

$H run --input gen:32x32 --iters 20 --device openmp --rounds 2 --reps 2 --db "$T/x.db" >/dev/null 2>&1
$H run --input gen:32x32 --iters 20 --device openmp --reps 2 --out "$T/out" --db "$T/x.db" >/dev/null 2>&1
rows=$(q "$T/x.db" "SELECT count(*) FROM measurement")
nulls=$(q "$T/x.db" "SELECT count(*) FROM measurement WHERE energy_j IS NULL AND power_w IS NULL")
check "in rounds and in this process (--out) too: NULL energy ($nulls of $rows rows)" \
    [ "$rows" -eq 3 ] && [ "$nulls" = "$rows" ]

$H export --format csv --db "$T/x.db" >"$T/e.csv" 2>/dev/null
check "export csv: energy_j and power_w columns, empty" python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
sys.exit(not (len(rows) == 3 and all(r["energy_j"] == "" and r["power_w"] == "" for r in rows)))
' "$T/e.csv"

$H devices --csv >"$T/devices.csv" 2>/dev/null
check "devices --csv: pci_bus and energy columns, no meter on openmp" python3 -c '
import csv, sys
rows = {r["spec"]: r for r in csv.DictReader(open(sys.argv[1]))}
sys.exit(not ("openmp" in rows and rows["openmp"]["energy"] == "" and "pci_bus" in rows["openmp"]))
' "$T/devices.csv"
exit $((fails > 0))
