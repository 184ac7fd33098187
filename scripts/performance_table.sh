#!/usr/bin/env bash
# The tables of performance.md from databases scripts/performance.sh filled:
# the fastest verified run per device and input, then every run. Times are
# end-to-end medians; a run on fewer steps than the input's own is scaled to
# the full count (and says so). GLUPS = cell updates per second / 1e9; GB/s
# from the 73-byte cost model; % of the device's latest `harness peak`.
# A variant name ending in + ran with knobs set on top (`--knobs`); `custom`
# is the defaults (final) with knobs set: the database's config.knobs says which.
# Usage: scripts/performance_table.sh DB...
set -eu
q="
WITH runs AS (
  SELECT d.spec, d.name, c.input, m.variant, c.knobs, c.wg_x || 'x' || c.wg_y AS wg, m.iters, m.iters_full,
         m.median_s * m.iters_full / m.iters AS full_s, m.mlups / 1000.0 AS glups, m.gbs,
         (SELECT p.copy_gbs FROM peak p WHERE p.device_id = d.id ORDER BY p.id DESC LIMIT 1) AS peak
  FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id
  JOIN device d ON d.id = r.device_id WHERE m.status = 'ok')
"
echo "| device | input | fastest | shape | seconds (full steps) | GLUPS | GB/s | % of copy peak |"
echo "|---|---|---|---|---|---|---|---|"
for db in "$@"; do
    sqlite3 -separator ' | ' "$db" "$q
      SELECT '| ' || spec, input, variant, wg,
             printf('%.4f%s', full_s, CASE WHEN iters < iters_full THEN ' (' || iters || ' of ' || iters_full || ' steps, scaled)' ELSE '' END),
             printf('%.2f', glups), printf('%.0f', gbs), CASE WHEN peak > 0 THEN printf('%.0f %% of %.0f |', 100 * gbs / peak, peak) ELSE '- (no peak in this database) |' END
      FROM runs r1 WHERE full_s = (SELECT min(full_s) FROM runs r2 WHERE r2.spec = r1.spec AND r2.input = r1.input)
      ORDER BY spec, CAST(input AS INTEGER)"
done
echo
echo "Every verified run:"
echo
echo "| device | input | variant | shape | seconds | GB/s | % of peak |"
echo "|---|---|---|---|---|---|---|"
for db in "$@"; do
    sqlite3 -separator ' | ' "$db" "$q
      SELECT '| ' || spec, input, variant, wg, printf('%.4f%s', full_s, CASE WHEN iters < iters_full THEN ' (scaled)' ELSE '' END),
             printf('%.0f', gbs), CASE WHEN peak > 0 THEN printf('%.0f %% |', 100 * gbs / peak) ELSE '- |' END
      FROM runs ORDER BY spec, CAST(input AS INTEGER), full_s"
done
