"""Measured attention forward throughput on the GPU, as a reference for the timing model.

Times PyTorch's scaled_dot_product_attention with each backend it offers on this machine
(cuDNN, FlashAttention-2, memory-efficient) for batch 4, heads 16, seq 4096, head dim 128,
bf16, causal and not, plus the 8192^3 bf16 matrix product. TFLOP/s counts 4*b*h*s^2*d
(halved when causal). Median of 20 timed runs after 5 warm-ups, timed with CUDA events.

Run: python3 calibration/torch/attention_reference.py > calibration/results/attention_h200.txt
"""

import statistics

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel


def time_ms(fn, warmup=5, runs=20):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times), min(times), max(times)


def main():
    print(f"device {torch.cuda.get_device_name()} torch {torch.__version__} cudnn {torch.backends.cudnn.version()}")
    b, h, s, d = 4, 16, 4096, 128
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    backends = [
        ("cudnn", SDPBackend.CUDNN_ATTENTION),
        ("flash2", SDPBackend.FLASH_ATTENTION),
        ("mem_efficient", SDPBackend.EFFICIENT_ATTENTION),
    ]
    for causal in (False, True):
        flops = 4 * b * h * s * s * d / (2 if causal else 1)
        for name, backend in backends:
            try:
                with sdpa_kernel(backend):
                    med, lo, hi = time_ms(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal))
                print(
                    f"attention b{b} h{h} s{s} d{d} bf16 causal={causal} backend={name}: "
                    f"median {med:.3f} ms ({flops / med / 1e9:.0f} TFLOP/s), min {lo:.3f} max {hi:.3f}"
                )
            except Exception as e:  # a backend may be unavailable for these shapes
                print(f"attention causal={causal} backend={name}: unavailable ({type(e).__name__}: {e})")
    n = 8192
    a, bm = (torch.randn(n, n, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    med, lo, hi = time_ms(lambda: a @ bm)
    print(f"matmul {n}^3 bf16: median {med:.3f} ms ({2 * n**3 / med / 1e9:.0f} TFLOP/s), min {lo:.3f} max {hi:.3f}")


if __name__ == "__main__":
    main()
