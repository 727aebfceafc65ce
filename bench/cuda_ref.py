"""The torch CUDA peer of bench/bw_probe.c, timed the same way (0.2 s of
warm-up, then the best of 10 rounds of 50 calls and one sync), so that the
probe's kernel-only figures have a ratio without building russet
(bench/gpu.sh probe). Not a benchmark of russet: bench_pointwise.py,
bench_reduce.py and bench_sort.py are."""

import time

import torch


def best(fn, per=50, rounds=10, warm_s=0.2):
    fn()
    torch.cuda.synchronize()
    t = time.perf_counter()
    while time.perf_counter() - t < warm_s:
        for _ in range(10):
            fn()
        torch.cuda.synchronize()
    b = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(per):
            fn()
        torch.cuda.synchronize()
        b = min(b, (time.perf_counter() - t0) / per)
    return b


def main():
    n = 64 << 20
    a = torch.rand(n, device="cuda") * 20 - 10
    b = torch.rand(n, device="cuda")
    out = torch.empty_like(a)
    o16 = torch.empty(n, device="cuda", dtype=torch.float16)
    x2 = a[: 4096 * 4096].view(4096, 4096)
    s = a[: 16 << 20].clone()
    a8b = torch.randint(-100, 100, (4 * n,), device="cuda", dtype=torch.int8)
    b8b = torch.randint(-100, 100, (4 * n,), device="cuda", dtype=torch.int8)
    o8b = torch.empty_like(a8b)
    cases = [
        ("copy float32 (out.copy_)", lambda: out.copy_(a), 8 * n),
        ("cast float32 -> float16", lambda: o16.copy_(a), 6 * n),
        ("exp float32", lambda: torch.exp(a, out=out), 8 * n),
        ("add float32", lambda: torch.add(a, b, out=out), 12 * n),
        ("add int8 (256M)", lambda: torch.add(a8b, b8b, out=o8b), 12 * n),
        ("softmax (4096, 4096) dim 1", lambda: torch.softmax(x2, 1), 2 * 4 * 4096 * 4096),
        ("log_softmax (4096, 4096) dim 1", lambda: torch.log_softmax(x2, 1), 2 * 4 * 4096 * 4096),
    ]
    print(f"torch CUDA {torch.__version__} on {torch.cuda.get_device_name()}, timed as bw_probe")
    for name, fn, nbytes in cases:
        t = best(fn)
        print(f"  {name:34s} {nbytes / t / 1e9:7.0f} GB/s")
    t = best(lambda: torch.sort(s), per=5)
    print(f"  {'sort 16M float32':34s} {t * 1e3:7.3f} ms")


if __name__ == "__main__":
    main()
