-- The results database. Applied by store_open on every open, so every
-- statement must be idempotent (IF NOT EXISTS). The schema version lives in
-- PRAGMA user_version; store.c holds the migrations that bring an older file
-- up to the shape written here (see store_migrate).
--
-- Conventions:
--   * Times are ISO 8601 UTC text with milliseconds ("2024-05-01T12:34:56.789Z"),
--     so they sort as text and read without conversion.
--   * A double that is unknown (NaN in C) is stored as NULL, never as 0:
--     a stored 0.000 would read as "infinitely fast".
--   * Columns in a UNIQUE key are NOT NULL with '' for "unknown", because
--     SQLite treats NULLs as distinct and the key would stop deduplicating.

-- The machine a run happened on.
CREATE TABLE IF NOT EXISTS host (
    id       INTEGER PRIMARY KEY,
    hostname TEXT NOT NULL,
    os       TEXT NOT NULL DEFAULT '',
    cpu      TEXT NOT NULL DEFAULT '',
    UNIQUE (hostname, os, cpu)
);

-- A device as its backend reported it. The fingerprint hashes the identifying
-- fields, driver included, so a new driver is a new device row and a new
-- time series rather than a false step in an old one.
CREATE TABLE IF NOT EXISTS device (
    id            INTEGER PRIMARY KEY,
    fingerprint   TEXT NOT NULL UNIQUE,
    backend       TEXT NOT NULL,
    spec          TEXT NOT NULL,
    vendor        TEXT NOT NULL DEFAULT '',
    name          TEXT NOT NULL DEFAULT '',
    driver        TEXT NOT NULL DEFAULT '',
    kind          TEXT NOT NULL DEFAULT '',
    compute_units INTEGER,
    max_wg        INTEGER,
    max_item0     INTEGER,
    max_item1     INTEGER,
    max_item2     INTEGER,
    global_mem    INTEGER,
    local_mem     INTEGER,
    max_alloc     INTEGER,
    arch          TEXT NOT NULL DEFAULT ''
);

-- The members of a device set (a device row of backend 'set', spec
-- "opencl:0.0+openmp", harness/core/devset.h): each member's own device row,
-- in the order the spec names them (position 0 takes the split's share).
CREATE TABLE IF NOT EXISTS device_member (
    set_id    INTEGER NOT NULL REFERENCES device (id),
    position  INTEGER NOT NULL,
    member_id INTEGER NOT NULL REFERENCES device (id),
    PRIMARY KEY (set_id, position)
);

-- The harness binary that produced a run, so a regression can be traced to
-- a commit, a compiler or a flag.
CREATE TABLE IF NOT EXISTS build (
    id               INTEGER PRIMARY KEY,
    git_commit       TEXT NOT NULL,
    dirty            INTEGER NOT NULL,
    compiler         TEXT NOT NULL DEFAULT '',
    flags            TEXT NOT NULL DEFAULT '',
    kernel_compilers TEXT NOT NULL DEFAULT '',
    UNIQUE (git_commit, dirty, compiler, flags, kernel_compilers)
);

-- A session: one command on one device. ended_at stays NULL when the
-- command was killed, which is itself worth knowing.
CREATE TABLE IF NOT EXISTS run (
    id         INTEGER PRIMARY KEY,
    host_id    INTEGER NOT NULL REFERENCES host (id),
    device_id  INTEGER NOT NULL REFERENCES device (id),
    build_id   INTEGER NOT NULL REFERENCES build (id),
    command    TEXT NOT NULL DEFAULT '',
    started_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    ended_at   TEXT,
    -- The process that wrote it and the machine's boot (kernel boot_id): a
    -- row still open whose process is gone on this boot was killed, and the
    -- next harness to open the database closes it as 'interrupted'.
    pid        INTEGER,
    boot       TEXT,
    outcome    TEXT             -- NULL: ended normally; 'interrupted': closed for a killed command
);

-- What was measured. The canonical knob string is the identity; variant is
-- only the name it was first stored under (two names for the same knobs are
-- one config).
CREATE TABLE IF NOT EXISTS config (
    id      INTEGER PRIMARY KEY,
    app     TEXT NOT NULL,
    input   TEXT NOT NULL,
    variant TEXT NOT NULL DEFAULT '',
    knobs   TEXT NOT NULL,
    wg_x    INTEGER NOT NULL,
    wg_y    INTEGER NOT NULL,
    UNIQUE (app, input, knobs, wg_x, wg_y)
);

-- One finished measurement of one config in one run, with its summary.
-- The raw repetitions are in sample; the summary is kept so reports need
-- not recompute quantiles.
CREATE TABLE IF NOT EXISTS measurement (
    id              INTEGER PRIMARY KEY,
    run_id          INTEGER NOT NULL REFERENCES run (id),
    config_id       INTEGER NOT NULL REFERENCES config (id),
    status          TEXT NOT NULL,  -- status_name(): ok, wrong, invalid, ...
    reason          TEXT,           -- why it is not ok (NULL when there is none)
    iters           INTEGER,        -- steps per repetition as run
    iters_full      INTEGER,        -- the input's own step count
    scaled          INTEGER NOT NULL DEFAULT 0, -- 1 when iters < iters_full
    warmup          INTEGER,
    reps            INTEGER NOT NULL DEFAULT 0,
    max_abs_err     REAL,
    max_rel_err     REAL,
    tolerance       REAL,
    median_s        REAL,
    q1_s            REAL,
    q3_s            REAL,
    device_median_s REAL,
    cell_updates    REAL,           -- per repetition
    mlups           REAL,
    gbs             REAL,
    result          REAL,           -- the app's headline number
    created_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    -- The variant name this run used (config.variant keeps the first name
    -- seen for these knobs; `final` and `t-bitmask` share one config).
    variant         TEXT,
    -- The repetitions are spread over rounds, each a fresh worker process
    -- (runner.h): rounds planned and rounds whose samples are stored. A
    -- measurement from before rounds existed is one round.
    rounds          INTEGER NOT NULL DEFAULT 1,
    rounds_done     INTEGER NOT NULL DEFAULT 1,
    -- Energy per repetition over the timed repetitions, and the mean power
    -- drawn meanwhile, where the device reports it (NVML); NULL elsewhere.
    energy_j        REAL,
    power_w         REAL,
    -- Registers and local memory of each kernel the config loaded,
    -- "kernel:registers:local_bytes ..." (CUDA's function attributes,
    -- ptxas's report on the directive backends); NULL where the backend has
    -- no such query (CPU backends, OpenCL).
    resources       TEXT
);
CREATE INDEX IF NOT EXISTS measurement_config ON measurement (config_id);
CREATE INDEX IF NOT EXISTS measurement_run ON measurement (run_id);

-- Every repetition, kept raw (summaries alone cannot be re-analysed).
CREATE TABLE IF NOT EXISTS sample (
    measurement_id INTEGER NOT NULL REFERENCES measurement (id) ON DELETE CASCADE,
    rep            INTEGER NOT NULL,
    seconds        REAL,  -- end-to-end, host clock after a full finish
    device_seconds REAL,  -- from device events; NULL when unavailable
    round          INTEGER NOT NULL DEFAULT 0, -- the round (worker process) it ran in
    -- What the repetition cost the host process (every thread it started),
    -- NULL where not taken: CPU seconds (user + system), and user-space
    -- cycles and instructions where perf_event_open allows (core/cpu_counters.h).
    cpu_seconds    REAL,
    cycles         REAL,
    instructions   REAL
);
CREATE INDEX IF NOT EXISTS sample_measurement ON sample (measurement_id);

-- One round of a measuring command on one run: every config's round r ran
-- in a fresh worker process, configs in a shuffled order. What the rest of
-- the host did meanwhile: CPU time of processes outside the harness over
-- the round's wall time (foreign_cores), and whether that disturbed it.
CREATE TABLE IF NOT EXISTS round_state (
    run_id        INTEGER NOT NULL REFERENCES run (id),
    round         INTEGER NOT NULL,
    started_at    TEXT NOT NULL,
    wall_s        REAL,
    foreign_cores REAL,
    steal_cores   REAL,   -- CPU time the hypervisor gave to other machines
    disturbed     INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (run_id, round)
);

-- Measured device ceilings (copy bandwidth, FP32 rate); the latest wins.
CREATE TABLE IF NOT EXISTS peak (
    id          INTEGER PRIMARY KEY,
    device_id   INTEGER NOT NULL REFERENCES device (id),
    copy_gbs    REAL,
    fp32_gflops REAL,
    measured_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

-- The best work-group shape per device, app, input and variant, with how sure
-- we are: margin to the runner-up, the noise it was judged against, and
-- whether the top was a tie. Keyed by fingerprint, not device id, so the
-- decision travels with exports and merges.
CREATE TABLE IF NOT EXISTS tuned (
    id                 INTEGER PRIMARY KEY,
    device_fingerprint TEXT NOT NULL,
    app                TEXT NOT NULL,
    input              TEXT NOT NULL,
    variant            TEXT NOT NULL,
    wg_x               INTEGER NOT NULL,
    wg_y               INTEGER NOT NULL,
    median_s           REAL,
    margin             REAL,     -- relative: (runner-up - best) / best
    noise              REAL,     -- relative IQR of the best
    samples            INTEGER,
    tie                INTEGER NOT NULL DEFAULT 0,  -- 1 when within noise of the runner-up
    decided_at         TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    -- A search over a space of knobs and shapes (harness tune FILE) stores a
    -- configuration under variant 'tuned': its canonical knobs and name. NULL
    -- for a shape-only search of a named variant (its knobs are the variant's).
    knobs              TEXT,
    config             TEXT,
    objective          TEXT NOT NULL DEFAULT 'time',  -- time or energy
    energy_j           REAL,     -- per step count run, when measured
    strategy           TEXT,
    evaluations        INTEGER,  -- distinct points the search measured
    search_s           REAL,     -- wall seconds the search's measurements took
    UNIQUE (device_fingerprint, app, input, variant)
);

-- Every decision tune made about a tuned row, kept: the search that made it
-- (strategy, budget, step count, evaluations), the shape it found, and what
-- became of the stored row: new, confirmed (the same shape again), replaced
-- (beaten round for round, or --replace), kept (the stored shape not beaten).
CREATE TABLE IF NOT EXISTS tuned_history (
    id                 INTEGER PRIMARY KEY,
    device_fingerprint TEXT NOT NULL,
    app                TEXT NOT NULL,
    input              TEXT NOT NULL,
    variant            TEXT NOT NULL,
    wg_x               INTEGER NOT NULL,  -- the search's best
    wg_y               INTEGER NOT NULL,
    median_s           REAL,
    strategy           TEXT NOT NULL,
    budget             INTEGER,
    iters              INTEGER,
    evaluations        INTEGER,
    decision           TEXT NOT NULL,
    why                TEXT,
    decided_at         TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    knobs              TEXT,  -- as in tuned
    config             TEXT,
    objective          TEXT NOT NULL DEFAULT 'time',
    search_s           REAL
);

-- Nightly tracking: a detected step in one series, and what a person decided
-- about it (detected, acknowledged, fixed, false-positive).
CREATE TABLE IF NOT EXISTS change_point (
    id        INTEGER PRIMARY KEY,
    series    TEXT NOT NULL,
    night     TEXT NOT NULL,
    magnitude REAL,
    p_value   REAL,
    triage    TEXT NOT NULL DEFAULT 'detected',
    note      TEXT
);

-- Launch cost (`harness launch-cost`, the report's Figure 1): the host time
-- to launch `launches` near-empty kernels with `nargs` arguments of one kind
-- on a 1x1 grid. enqueue_* time the loop of launch() calls alone; total_*
-- run until finish() returned. Seconds for the whole loop of one repetition
-- (per launch: / launches), median and quartiles over the repetitions, which
-- are kept raw in launch_cost_sample. device_id repeats the run's device so
-- a figure needs one join.
CREATE TABLE IF NOT EXISTS launch_cost (
    id               INTEGER PRIMARY KEY,
    run_id           INTEGER NOT NULL REFERENCES run (id),
    device_id        INTEGER NOT NULL REFERENCES device (id),
    kind             TEXT NOT NULL CHECK (kind IN ('buffer', 'int')),
    nargs            INTEGER NOT NULL,
    launches         INTEGER NOT NULL,  -- per repetition
    reps             INTEGER NOT NULL,
    enqueue_median_s REAL,
    enqueue_q1_s     REAL,
    enqueue_q3_s     REAL,
    total_median_s   REAL,
    total_q1_s       REAL,
    total_q3_s       REAL,
    UNIQUE (run_id, kind, nargs)
);
CREATE INDEX IF NOT EXISTS launch_cost_device ON launch_cost (device_id);

CREATE TABLE IF NOT EXISTS launch_cost_sample (
    launch_cost_id INTEGER NOT NULL REFERENCES launch_cost (id) ON DELETE CASCADE,
    rep            INTEGER NOT NULL,
    enqueue_s      REAL,
    total_s        REAL
);
CREATE INDEX IF NOT EXISTS launch_cost_sample_row ON launch_cost_sample (launch_cost_id);

-- What `harness report` found by probing the machine rather than measuring
-- a kernel (is there an OpenACC compiler that offloads, which other host
-- languages are installed), per run, so a report drawn again from the
-- database (--from-db) says what the measuring machine had.
CREATE TABLE IF NOT EXISTS report_note (
    run_id INTEGER NOT NULL REFERENCES run (id),
    key    TEXT NOT NULL,   -- "openacc", "hostlang:Python", ...
    text   TEXT NOT NULL,
    UNIQUE (run_id, key)
);
