"""PyTorch SDPA (cuDNN and flash backends) measured burst and sustained, with clocks and power.

The attention half of the vendor references the FA3-style kernel is compared with, in the
project's standard form (the same as `warpspec::gpu::bench`, whose CSV columns this script
writes too):

- burst: after a 1 s rest and 10 warm-up calls, 10 calls each between two CUDA events;
  the figure is the median;
- sustained: back-to-back calls in chunks of about 50 ms between events for at least 5 s of
  GPU time; the figure is the mean over the last second;
- during each phase, SM clock, memory clock, power (NVML's average and instantaneous),
  temperature and throttle reasons are read every 10 ms through pynvml (nvidia-ml-py), or,
  without it, every 100 ms from `nvidia-smi --query-gpu=... -lms 100` in the background.

Shapes: batch 4 heads 16 seq 4096 d 128 and batch 1 heads 16 seq 16384 d 128, bf16, causal
and not. TFLOP/s counts 4*b*h*s^2*d, halved when causal. Inputs are random normal (never zeros).
`calibration/torch/attention_reference.py` is the older single-figure survey (every backend,
median of 20); this script is the one with burst/sustained figures and telemetry.

Run on the GPU machine:
    python3 calibration/gpu/sdpa_reference.py --csv sdpa.csv --series-csv sdpa_series.csv
"""

import argparse
import math
import statistics
import subprocess
import threading
import time

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

PHASE_HEADER = (
    "workload,phase,iterations,gpu_s,median_ms,min_ms,max_ms,steady_ms,window_s,tflops,"
    "sm_mhz_mean,sm_mhz_steady,mem_mhz,power_w_mean,power_w_steady,power_instant,energy_power_w,"
    "temp_max_c,sm_tau_s,time_tau_s,throttle"
)
SERIES_HEADER = "workload,phase,row,t_s,iterations,ms_per_iteration,sm_mhz,mem_mhz,power_w,power_instant_w,temp_c,throttle"
THROTTLE_NAMES = {  # NVML's clocks event (throttle) reason bits
    0x1: "GPU_IDLE", 0x2: "APPLICATIONS_CLOCKS_SETTING", 0x4: "SW_POWER_CAP", 0x8: "HW_SLOWDOWN",
    0x10: "SYNC_BOOST", 0x20: "SW_THERMAL_SLOWDOWN", 0x40: "HW_THERMAL_SLOWDOWN",
    0x80: "HW_POWER_BRAKE_SLOWDOWN", 0x100: "DISPLAY_CLOCK_SETTING",
}


class Sampler:
    """Background readings tagged with the current phase; pynvml first, nvidia-smi second."""

    def __init__(self, every_s):
        self.every_s, self.tag, self.log, self.stop = every_s, None, [], False
        self.lock = threading.Lock()
        self.note, self.nvml, self.proc = None, None, None
        try:
            import pynvml
            pynvml.nvmlInit()
            self.nvml = pynvml
            self.handle = pynvml.nvmlDeviceGetHandleByIndex(torch.cuda.current_device())
            limit = pynvml.nvmlDeviceGetEnforcedPowerLimit(self.handle) / 1e3
            self.note = f"pynvml: {pynvml.nvmlDeviceGetName(self.handle)}, driver {pynvml.nvmlSystemGetDriverVersion()}, power limit {limit:.0f} W"
            self.thread = threading.Thread(target=self._nvml_loop, daemon=True)
        except Exception as e:  # no pynvml: nvidia-smi at its 100 ms floor
            fields = "clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active"
            try:
                self.proc = subprocess.Popen(
                    ["nvidia-smi", f"--query-gpu={fields}", "--format=csv,noheader,nounits", "-lms", "100",
                     "-i", str(torch.cuda.current_device())],
                    stdout=subprocess.PIPE, text=True)
                self.note = f"nvidia-smi -lms 100 (pynvml unavailable: {e})"
                self.thread = threading.Thread(target=self._smi_loop, daemon=True)
            except OSError as e2:
                self.note = f"no NVML and no nvidia-smi ({e}; {e2}): clocks and power not sampled"
                self.thread = None
        if self.thread:
            self.thread.start()

    def _read_nvml(self):
        n, h = self.nvml, self.handle
        def get(f, *a):
            try:
                return f(h, *a)
            except Exception:
                return None
        instant = None
        try:
            fv = n.nvmlDeviceGetFieldValues(h, [186])[0]  # NVML_FI_DEV_POWER_INSTANT
            if fv.nvmlReturn == 0:
                instant = fv.value.uiVal / 1e3
        except Exception:
            pass
        power = get(n.nvmlDeviceGetPowerUsage)
        reasons = get(getattr(n, "nvmlDeviceGetCurrentClocksEventReasons", n.nvmlDeviceGetCurrentClocksThrottleReasons))
        return dict(sm=get(n.nvmlDeviceGetClockInfo, n.NVML_CLOCK_SM), mem=get(n.nvmlDeviceGetClockInfo, n.NVML_CLOCK_MEM),
                    power=None if power is None else power / 1e3, instant=instant,
                    temp=get(n.nvmlDeviceGetTemperature, n.NVML_TEMPERATURE_GPU), throttle=reasons)

    def _push(self, tag, reading):
        with self.lock:
            self.log.append((tag, time.perf_counter(), reading))

    def _nvml_loop(self):
        while not self.stop:
            tag = self.tag
            if tag is not None:
                self._push(tag, self._read_nvml())
            time.sleep(self.every_s)

    def _smi_loop(self):
        for line in self.proc.stdout:
            tag = self.tag
            if tag is None:
                continue
            try:
                sm, mem, power, temp, reasons = [x.strip() for x in line.split(",")]
                self._push(tag, dict(sm=int(sm), mem=int(mem), power=float(power), instant=None, temp=int(temp),
                                     throttle=int(reasons, 16)))
            except ValueError:
                pass

    def energy(self):
        try:
            return self.nvml.nvmlDeviceGetTotalEnergyConsumption(self.handle) if self.nvml else None
        except Exception:
            return None

    def begin(self, tag):
        mark = (tag, time.perf_counter(), self.energy())
        self.tag = tag
        if self.nvml:
            self._push(tag, self._read_nvml())
        return mark

    def end(self, mark):
        tag, start, e0 = mark
        if self.nvml:
            self._push(tag, self._read_nvml())
        self.tag = None
        wall = time.perf_counter() - start
        e1 = self.energy()
        with self.lock:
            samples = [dict(r, t=at - start) for (g, at, r) in self.log if g == tag]
            self.log = [x for x in self.log if x[0] != tag]
        energy_w = (e1 - e0) / 1e3 / wall if e0 is not None and e1 is not None and e1 > e0 else None
        return sorted(samples, key=lambda s: s["t"]), energy_w, wall

    def close(self):
        self.stop = True
        if self.proc:
            self.proc.terminate()


def time_constant(points, steady):
    """First time the value has fallen 1 - 1/e of the way from its start to `steady` (None if flat)."""
    head = points[:3]
    if not head:
        return None
    peak = max(range(len(head)), key=lambda i: head[i][1])
    start = head[peak][1]
    if start - steady < 0.01 * abs(start):
        return None
    threshold = steady + (start - steady) / math.e
    return next((t for t, v in points[peak:] if v <= threshold), None)


def mean_from(points, t0):
    tail = [v for t, v in points if t >= t0]
    return sum(tail) / len(tail) if tail else None


def phase(kind, chunks, readings, window_s):
    """The same figures as warpspec::gpu::bench::Phase::build."""
    samples, energy_w, wall = readings
    per_iter = [ms / n for (_, n, ms) in chunks]
    iterations = sum(n for (_, n, _) in chunks)
    gpu_s = chunks[-1][0] + chunks[-1][2] / 1e3
    if kind == "burst":
        steady, window_s, time_tau = statistics.median(per_iter), 0.0, None
    else:
        tail = [c for c in chunks if c[0] >= gpu_s - window_s]
        steady = sum(c[2] for c in tail) / sum(c[1] for c in tail)
        time_tau = time_constant([(c[0], c[1] / c[2]) for c in chunks], 1.0 / steady)
    t0 = -math.inf if kind == "burst" else wall - window_s
    series = lambda key: [(s["t"], float(s[key])) for s in samples if s.get(key) is not None]
    sm, mem = series("sm"), series("mem")
    watts, instant = series("instant"), True
    if not watts:
        watts, instant = series("power"), False
    mask = 0
    for s in samples:
        mask |= s.get("throttle") or 0
    sm_steady = mean_from(sm, t0) if sm else None
    return dict(
        kind=kind, iterations=iterations, gpu_s=gpu_s, median=statistics.median(per_iter), min=min(per_iter),
        max=max(per_iter), steady=steady, window=window_s, time_tau=time_tau, chunks=chunks, samples=samples,
        sm_mean=statistics.fmean(v for _, v in sm) if sm else None, sm_steady=sm_steady,
        mem=statistics.fmean(v for _, v in mem) if mem else None,
        w_mean=statistics.fmean(v for _, v in watts) if watts else None,
        w_steady=mean_from(watts, t0) if watts else None, instant=instant if watts else None, energy_w=energy_w,
        temp=max((s["temp"] for s in samples if s.get("temp") is not None), default=None),
        sm_tau=time_constant(sm, sm_steady) if kind == "sustained" and sm else None,
        throttle="+".join(n for bit, n in THROTTLE_NAMES.items() if mask & bit),
    )


def measure(fn, sampler, tag, args):
    """Warm-up, burst and sustained phases of `fn`, timed with CUDA events."""
    time.sleep(args.rest_s)
    for _ in range(args.warmup):
        fn()
    torch.cuda.synchronize()
    mark = sampler.begin((tag, "burst"))
    events = [torch.cuda.Event(enable_timing=True) for _ in range(args.burst + 1)]
    events[0].record()
    for e in events[1:]:
        fn()
        e.record()
    events[-1].synchronize()
    readings = sampler.end(mark)
    chunks, t = [], 0.0
    for a, b in zip(events, events[1:]):
        ms = a.elapsed_time(b)
        chunks.append((t / 1e3, 1, ms))
        t += ms
    burst = phase("burst", chunks, readings, 0.0)
    per_chunk = max(1, round(args.chunk_ms / burst["steady"]))
    mark = sampler.begin((tag, "sustained"))
    events = [torch.cuda.Event(enable_timing=True)]
    events[0].record()
    while True:
        for _ in range(per_chunk):
            fn()
        events.append(torch.cuda.Event(enable_timing=True))
        events[-1].record()
        events[-2].synchronize()  # one chunk queued behind the running one
        if events[0].elapsed_time(events[-2]) >= args.sustained_s * 1e3:
            events[-1].synchronize()
            break
    readings = sampler.end(mark)
    chunks, t = [], 0.0
    for a, b in zip(events, events[1:]):
        ms = a.elapsed_time(b)
        chunks.append((t / 1e3, per_chunk, ms))
        t += ms
    return burst, phase("sustained", chunks, readings, args.window_s)


def cell(v, d):
    return "" if v is None else f"{v:.{d}f}"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--backends", default="cudnn,flash", help="comma-separated: cudnn, flash")
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--burst", type=int, default=10)
    p.add_argument("--sustained-s", type=float, default=5.0)
    p.add_argument("--window-s", type=float, default=1.0)
    p.add_argument("--chunk-ms", type=float, default=50.0)
    p.add_argument("--rest-s", type=float, default=1.0)
    p.add_argument("--sample-ms", type=float, default=10.0)
    p.add_argument("--csv", help="one row per phase")
    p.add_argument("--series-csv", help="chunks and device readings")
    args = p.parse_args()
    torch.manual_seed(1)
    backends = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION}
    sampler = Sampler(args.sample_ms / 1e3)
    print(f"device {torch.cuda.get_device_name()} torch {torch.__version__} cudnn {torch.backends.cudnn.version()}; {sampler.note}")
    rows, series, table = [], [], []
    for (b, h, s, d) in [(4, 16, 4096, 128), (1, 16, 16384, 128)]:
        q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
        for causal in (False, True):
            flop = 4 * b * h * s * s * d / (2 if causal else 1)
            for name in args.backends.split(","):
                w = f"sdpa {name} b{b} h{h} s{s} d{d} bf16 {'causal' if causal else 'full'}"
                fn = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                try:
                    with sdpa_kernel(backends[name]):
                        phases = measure(fn, sampler, w, args)
                except Exception as e:  # a backend may be unavailable for a shape
                    print(f"{w}: unavailable ({type(e).__name__}: {str(e).splitlines()[0]})")
                    continue
                for ph in phases:
                    tf = flop / (ph["steady"] * 1e-3) / 1e12
                    print(f"{w} {ph['kind']}: {ph['iterations']} iterations in {ph['gpu_s']:.3f} s; ms/iter median "
                          f"{ph['median']:.4f} min {ph['min']:.4f} max {ph['max']:.4f}; figure {ph['steady']:.4f} ms "
                          f"= {tf:.0f} TFLOP/s; SM {cell(ph['sm_steady'], 0)} MHz; {cell(ph['w_steady'], 0)} W", flush=True)
                    rows.append(",".join([
                        w, ph["kind"], str(ph["iterations"]), f"{ph['gpu_s']:.6f}", f"{ph['median']:.6f}",
                        f"{ph['min']:.6f}", f"{ph['max']:.6f}", f"{ph['steady']:.6f}", f"{ph['window']:.3f}",
                        f"{tf:.2f}", cell(ph["sm_mean"], 1), cell(ph["sm_steady"], 1), cell(ph["mem"], 1),
                        cell(ph["w_mean"], 1), cell(ph["w_steady"], 1),
                        "" if ph["instant"] is None else str(ph["instant"]).lower(), cell(ph["energy_w"], 1),
                        "" if ph["temp"] is None else str(ph["temp"]), cell(ph["sm_tau"], 3), cell(ph["time_tau"], 3),
                        ph["throttle"]]))
                    for (t, n, ms) in ph["chunks"]:
                        series.append(f"{w},{ph['kind']},chunk,{t:.6f},{n},{ms / n:.6f},,,,,,")
                    for sm in ph["samples"]:
                        series.append(f"{w},{ph['kind']},sample,{sm['t']:.4f},,,{cell(sm.get('sm'), 0)},"
                                      f"{cell(sm.get('mem'), 0)},{cell(sm.get('power'), 2)},{cell(sm.get('instant'), 2)},"
                                      f"{'' if sm.get('temp') is None else sm['temp']},"
                                      f"{'' if sm.get('throttle') is None else hex(sm['throttle'])}")
                bu, su = phases
                table.append((w, bu, su, flop))
        del q, k, v
    sampler.close()
    print()
    hdr = f"{'workload':<42} {'burst ms':>9} {'TFLOP/s':>7} {'SM MHz':>6} {'W':>4} {'sust. ms':>9} {'TFLOP/s':>7} {'SM MHz':>6} {'W':>4} {'tau s':>5}  throttle (sustained)"
    print(hdr)
    print("-" * len(hdr))
    for w, bu, su, flop in table:
        tf = lambda ph: flop / (ph["steady"] * 1e-3) / 1e12
        print(f"{w:<42} {bu['steady']:>9.3f} {tf(bu):>7.0f} {cell(bu['sm_steady'], 0):>6} {cell(bu['w_steady'], 0):>4} "
              f"{su['steady']:>9.3f} {tf(su):>7.0f} {cell(su['sm_steady'], 0):>6} {cell(su['w_steady'], 0):>4} "
              f"{cell(su['sm_tau'], 2) or '-':>5}  {su['throttle'] or '-'}")
    print(f"(ms per call: burst median; sustained mean over the last {args.window_s:.1f} s; SM MHz and W the means over the same stretch)")
    if args.csv:
        with open(args.csv, "w") as f:
            f.write(PHASE_HEADER + "\n" + "\n".join(rows) + "\n")
    if args.series_csv:
        with open(args.series_csv, "w") as f:
            f.write(SERIES_HEADER + "\n" + "\n".join(series) + "\n")


if __name__ == "__main__":
    main()
