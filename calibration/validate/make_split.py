#!/usr/bin/env python3
"""Writes split.csv: every configuration of the validation sweep and whether it belongs to the
calibration set or the held-out set. Deterministic; the file is committed before any fitting.

Families:
  ws_gemm   the warp-specialized GEMM (examples/gemm_kernel.rs, BK 64), every tile shape
            128x128, 128x256, 256x128 at every stage count 2..6 that fits in the 227 KB of
            shared memory a CTA may use (stage bytes = (BM + BN) * BK * 2), at five problem shapes;
  tradeoff  the trade-off study's five schedules (examples/gemm_tradeoff_kernels.rs: ws, v1,
            v2, v1+bar.sync, v2+bar.sync; 128x256 tile, 4 stages, BK 32) at three shapes;
  fa3       the FA3-style attention kernel (examples/attention/hopper.rs), every ablation
            (ping-pong + overlap, overlap only, ping-pong only, neither, non-specialized) x
            seq 1k..16k x head dim 64/128 x causal, bf16, in the FlashAttention-3 paper's setup
            (arXiv 2407.08608, Sec. 4.1: 16k tokens per batch, hidden size 2048, so batch =
            16384 / seq and heads = 2048 / d).

Held out: every configuration at a problem shape the calibration set never has (GEMM
6144x6144x6144 and 12288x4096x2048; attention seq 2048 and 8192), plus two ws_gemm stamps
(128x128 with 5 stages, 256x128 with 3 stages) at every calibration shape.
"""
import csv
import sys

SMEM_PER_CTA = 227 * 1024  # Hopper Tuning Guide: 227 KB per CTA (opt-in)
BK_WS = 64
CAL_GEMM = [(8192, 8192, 8192), (4096, 4096, 4096), (8192, 8192, 1024)]
HELD_GEMM = [(6144, 6144, 6144), (12288, 4096, 2048)]
HELD_STAMPS = {("128x128", 5), ("256x128", 3)}
TRADEOFF_SHAPES = [((8192, 8192, 8192), "calibration"), ((4096, 4096, 4096), "calibration"),
                   ((6144, 6144, 6144), "heldout")]
TRADEOFF = ["ws", "v1", "v2", "v1+bar.sync", "v2+bar.sync"]
FA3_VARIANTS = ["pingpong+overlap", "overlap", "pingpong", "none", "nonspecialized"]
SEQS = [1024, 2048, 4096, 8192, 16384]
HELD_SEQS = {2048, 8192}

HEADER = ["id", "family", "kernel", "tile", "stages", "bk", "m", "n", "k",
          "batch", "heads", "seq", "d", "causal", "variant", "set"]


# The shapes of calibration/gpu/cluster_gemm/h200_run2, all held out.
CLUSTER_GEMM = [(8192, 8192, 8192), (4096, 4096, 4096), (16384, 16384, 4096), (8192, 8192, 1024)]


def rows():
    out = []
    skipped = []
    for tile in ["128x128", "128x256", "256x128"]:
        bm, bn = map(int, tile.split("x"))
        for stages in range(2, 7):
            smem = stages * (bm + bn) * BK_WS * 2 + 1024  # + 1 KB alignment slack
            if smem > SMEM_PER_CTA:
                skipped.append(f"ws_gemm {tile} {stages} stages: {smem} B > {SMEM_PER_CTA} B")
                continue
            for shape in CAL_GEMM + HELD_GEMM:
                held = shape in HELD_GEMM or (tile, stages) in HELD_STAMPS
                out.append(dict(family="ws_gemm", kernel=f"ws_gemm_{tile}_p{stages}", tile=tile,
                                stages=stages, bk=BK_WS, m=shape[0], n=shape[1], k=shape[2],
                                variant="ws", set="heldout" if held else "calibration"))
    for shape, which in TRADEOFF_SHAPES:
        for v in TRADEOFF:
            kernel = "ws_128x256_p4" if v == "ws" else "flat_128x256_p4"
            out.append(dict(family="tradeoff", kernel=kernel, tile="128x256", stages=4, bk=32,
                            m=shape[0], n=shape[1], k=shape[2], variant=v, set=which))
    for d in [64, 128]:
        for causal in [0, 1]:
            for seq in SEQS:
                for v in FA3_VARIANTS:
                    kernel = (f"flat_bf16_d{d}" if v == "nonspecialized" else f"fa3_bf16_d{d}")
                    out.append(dict(family="fa3", kernel=kernel, tile="128x128", stages=2,
                                    batch=16384 // seq, heads=2048 // d, seq=seq, d=d,
                                    causal=causal, variant=v,
                                    set="heldout" if seq in HELD_SEQS else "calibration"))
    # The 2-CTA multicast GEMM (examples/cluster_gemm_kernel.rs), persistent over the
    # resident clusters: every shape held out (the model's cluster terms are not fitted).
    for shape in CLUSTER_GEMM:
        out.append(dict(family="cluster_gemm", kernel="cluster_gemm", tile="128x256", stages=3,
                        bk=64, m=shape[0], n=shape[1], k=shape[2], variant="persistent",
                        set="heldout"))
    for i, r in enumerate(out):
        r["id"] = i
    return out, skipped


def main():
    out, skipped = rows()
    path = sys.argv[1] if len(sys.argv) > 1 else "split.csv"
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=HEADER, restval="", lineterminator="\n")
        w.writeheader()
        w.writerows(out)
    for s in skipped:
        print("does not fit:", s)
    by = {}
    for r in out:
        by.setdefault((r["family"], r["set"]), 0)
        by[(r["family"], r["set"])] += 1
    for key, n in sorted(by.items()):
        print(*key, n)
    print("total", len(out))


if __name__ == "__main__":
    main()
