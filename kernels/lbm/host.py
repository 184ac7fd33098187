"""The LBM `final` schedule with Python as the host language (seed 000's
Table 16), through pyopencl.

The harness's worker (kernels/lbm/python_host.c) starts this program and
talks to it over stdin/stdout, one line at a time:

  worker -> host   `KEY VALUE` setup lines, then `end`
  host -> worker   `ready`, or `compile-error MSG` / `error MSG`
  worker -> host   `rep`      one repetition from the initial state
  host -> worker   `ok WALL DEVICE SUM` (seconds; SUM: the repetition's
                              per-step averages summed, which the worker
                              checks against the first repetition's), or
                              `error MSG`
  worker -> host   `result`   the last repetition's lattice and averages
                              into the files the setup named
  host -> worker   `ok`, or `error MSG`

The worker loads the input, computes the kernel options from the knobs (the
very string its C host builds `final` with) and verifies what comes back;
this program owns what the report's Python host owned: building the
program, the buffers, every launch of every step, and its own clock. So the
time it reports is the Python host's, as in the report.

Only the schedule `final` has is here: kernels=fused-accel,
reduction=deferred, layout=soa-3d, args=packed, sync=in-order, bind=each
(the rules in python_host.c refuse the rest).

HARNESS_PYHOST_SKIP_STEP=N (tests only) leaves step N's launch out, so the
tests can see a wrong Python host reported wrong.
"""

import os
import sys
import time
import warnings

import numpy as np
import pyopencl as cl


def reply(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def one_line(exc):
    """A message on one line: the protocol is line-based."""
    return " ".join(str(exc).split())[:3000]


def read_setup():
    setup = {}
    for line in sys.stdin:
        line = line.rstrip("\n")
        if line == "end":
            return setup
        key, _, value = line.partition(" ")
        setup[key] = value
    raise SystemExit("python host: the setup ended early")


def find_device(p, i, name):
    """The harness's opencl:P.D. pyopencl's wheels bring their own ICD
    loader, which may list the platforms in another order than the
    harness's: the device at P.D must have the harness's name, else the
    platform whose device D has it (device order within a platform is the
    driver's own), else no device at all rather than another one."""
    platforms = cl.get_platforms()

    def device_at(q):
        devices = platforms[q].get_devices() if q < len(platforms) else []
        return devices[i] if i < len(devices) and devices[i].name.strip() == name else None

    if device_at(p):
        return device_at(p)
    found = [d for d in (device_at(q) for q in range(len(platforms))) if d]
    if len(found) == 1:
        return found[0]
    raise RuntimeError("no single OpenCL device %d named '%s' in pyopencl's platforms (%s)" % (
        i, name, "; ".join("%s: %s" % (pl.name, [d.name for d in pl.get_devices()]) for pl in platforms)))


class Host:
    def __init__(self, s):
        self.nx, self.ny = int(s["nx"]), int(s["ny"])
        self.iters = int(s["iters"])
        self.local = (int(s["wg_x"]), int(s["wg_y"]))
        self.row_local = int(s["row_local"])
        # Steps whose group partials the device holds (the C host's
        # lbm_partials_capacity): reduced on the device when full.
        self.chunk = int(s["chunk"])
        self.reduce_local = int(s["reduce_local"])
        self.omega = np.float32(s["omega"])
        self.acc_a = np.float32(s["acc_a"])
        self.acc_b = np.float32(s["acc_b"])
        self.inv_cells = np.float32(s["inv_cells"])
        self.out_cells, self.out_av = s["out_cells"], s["out_av"]
        skip = os.environ.get("HARNESS_PYHOST_SKIP_STEP", "")
        self.skip = int(skip) if skip.isdigit() else -1

        device = find_device(int(s["platform"]), int(s["device"]), s["device_name"])
        self.ctx = cl.Context([device])
        # Profiling for the device time: markers around the same region
        # the C host marks (backend_opencl.c's mark/elapsed).
        self.queue = cl.CommandQueue(self.ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)

        with open(s["source"]) as f:
            source = f.read()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # PoCL's build log arrives as a warning
                # No pyopencl cache: its key would not see lbm_gpu.h change.
                self.prg = cl.Program(self.ctx, source).build(options=s["options"].split(), cache_dir=False)
        except cl.RuntimeError as exc:
            raise BuildError(one_line(exc))
        self.accel = self.prg.accelerate_flow
        self.fused = self.prg.fused_step
        self.reduce = self.prg.reduce_steps
        i32, f32 = np.int32, np.float32
        self.accel.set_scalar_arg_dtypes([None, None, i32, i32, f32, f32, f32])
        self.fused.set_scalar_arg_dtypes(
            [None, None, None, None, i32, i32, f32, f32, f32, i32, i32, None])
        self.reduce.set_scalar_arg_dtypes([None, None, i32, i32, i32, f32])

        n = self.nx * self.ny
        mf = cl.mem_flags
        self.initial = np.fromfile(s["initial"], dtype=np.float32)
        obstacles = np.fromfile(s["obstacles"], dtype=np.uint8)
        if self.initial.size != 9 * n or obstacles.size != n:
            raise RuntimeError("the initial state or the obstacles are not %dx%d" % (self.nx, self.ny))
        self.lat = [cl.Buffer(self.ctx, mf.READ_WRITE, 9 * n * 4) for _ in range(2)]
        self.obstacles = cl.Buffer(self.ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=obstacles)
        self.global_ = (self.nx, self.ny)
        self.ngroups = (self.nx // self.local[0]) * (self.ny // self.local[1])
        self.partials = cl.Buffer(self.ctx, mf.READ_WRITE, self.ngroups * self.chunk * 4)
        self.av = cl.Buffer(self.ctx, mf.READ_WRITE, self.iters * 4)
        self.scratch = cl.LocalMemory(self.local[0] * self.local[1] * 4)
        self.av_host = np.empty(self.iters, dtype=np.float32)

    def reduce_on_device(self, first, nsteps):
        l = self.reduce_local
        g = ((nsteps + l - 1) // l * l, 1)
        self.reduce(self.queue, g, (l, 1), self.partials, self.av, self.ngroups, nsteps, first, self.inv_cells)

    def repetition(self):
        """One repetition as schedule.c's repetition() runs `final`."""
        cl.enqueue_copy(self.queue, self.lat[0], self.initial)
        self.queue.finish()
        src, dst = self.lat
        start = cl.enqueue_marker(self.queue)
        t0 = time.perf_counter()
        # The first step's acceleration; fused_step does every later one.
        self.accel(self.queue, (self.nx, 1), (self.row_local, 1), src, self.obstacles,
                   self.nx, self.ny, self.omega, self.acc_a, self.acc_b)
        last = self.iters - 1
        for t in range(self.iters):
            slot = t % self.chunk
            if t != self.skip:
                self.fused(self.queue, self.global_, self.local, src, dst, self.obstacles, self.partials,
                           self.nx, self.ny, self.omega, self.acc_a, self.acc_b, slot, int(t != last),
                           self.scratch)
            src, dst = dst, src
            if slot == self.chunk - 1 or t == last:
                self.reduce_on_device(t - slot, slot + 1)
        cl.enqueue_copy(self.queue, self.av_host, self.av)  # blocking: the averages are home
        end = cl.enqueue_marker(self.queue)
        self.queue.finish()
        wall = time.perf_counter() - t0
        self.current = src
        device = (end.profile.end - start.profile.end) * 1e-9
        return wall, device

    def result(self):
        cells = np.empty(9 * self.nx * self.ny, dtype=np.float32)
        cl.enqueue_copy(self.queue, cells, self.current)
        cells.tofile(self.out_cells)
        self.av_host.tofile(self.out_av)


class BuildError(Exception):
    pass


def main():
    setup = read_setup()
    try:
        host = Host(setup)
    except BuildError as exc:
        reply("compile-error " + str(exc))
        return 0
    except Exception as exc:  # any failure is the worker's row, said in one line
        reply("error " + one_line(exc))
        return 0
    reply("ready")
    for line in sys.stdin:
        cmd = line.strip()
        try:
            if cmd == "rep":
                wall, device = host.repetition()
                reply("ok %.9e %.9e %.17g" % (wall, device, float(host.av_host.sum(dtype=np.float64))))
            elif cmd == "result":
                host.result()
                reply("ok")
            else:
                reply("error unknown command `%s`" % cmd)
        except Exception as exc:
            reply("error " + one_line(exc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
