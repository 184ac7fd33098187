#!/usr/bin/env bash
# The ladder table from a results database: variant x input x device, the
# latest measurement of each, median seconds scaled to the input's full step
# count where the run was shortened (marked "scaled").
db=${1:-results/results.db}
sqlite3 -separator ' | ' "$db" "
WITH latest AS (
  SELECT COALESCE(m.variant, c.variant) AS variant, c.input, d.spec, d.name, m.status, m.median_s, m.iters, m.iters_full, m.gbs,
         m.max_rel_err, p.copy_gbs,
         ROW_NUMBER() OVER (PARTITION BY COALESCE(m.variant, c.variant), c.input, d.id ORDER BY m.id DESC) AS rn
  FROM measurement m JOIN config c ON c.id = m.config_id JOIN run r ON r.id = m.run_id
  JOIN device d ON d.id = r.device_id
  LEFT JOIN (SELECT device_id, copy_gbs, MAX(id) FROM peak GROUP BY device_id) p ON p.device_id = d.id
  WHERE c.app = 'lbm')
SELECT '| ' || variant, input, spec,
       CASE WHEN status IN ('ok','unverified') THEN printf('%.3f', median_s * iters_full / iters) ELSE status END
         || CASE WHEN iters < iters_full THEN printf(' (scaled from %d steps)', iters) ELSE '' END,
       CASE WHEN gbs IS NULL THEN '-' ELSE printf('%.1f', gbs) END
         || CASE WHEN copy_gbs > 0 AND gbs IS NOT NULL THEN printf(' (%.0f%%)', 100.0 * gbs / copy_gbs) ELSE '' END,
       status || ' |'
FROM latest WHERE rn = 1 ORDER BY input, spec, variant;" | sed '1i | variant | input | device | median s (full steps) | GB/s (% of peak) | status |\n|---|---|---|---|---|---|'
