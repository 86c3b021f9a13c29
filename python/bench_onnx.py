"""onnxruntime's CPU throughput on a network exported by `szero export --format onnx`,
for scripts/bench-vs-pytorch --onnx.

    python bench_onnx.py MODEL.onnx [--batches 1,8,64] [--seconds 1] [--threads N]

Timed as bench_torch.py times PyTorch: the same random planes per batch size (host
arrays in, host outputs back), two warm-up calls, then calls for at least --seconds.
--threads sets onnxruntime's intra-op threads (0: its default, one per core).
Prints one JSON object.
"""

import argparse
import json
import time

import numpy as np
import onnxruntime as ort


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--batches", default="1,8,64,256,1024,4096")
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--threads", type=int, default=0)
    args = ap.parse_args()
    opts = ort.SessionOptions()
    if args.threads > 0:
        opts.intra_op_num_threads = args.threads
        opts.inter_op_num_threads = 1
    session = ort.InferenceSession(args.model, opts, providers=["CPUExecutionProvider"])
    inp = session.get_inputs()[0]
    planes = inp.shape[1]
    rows = []
    for n in [int(b) for b in args.batches.split(",")]:
        x = np.random.default_rng(n).standard_normal((n, planes, 8, 8), dtype=np.float32)
        for _ in range(2):
            session.run(None, {inp.name: x})
        calls, t0 = 0, time.perf_counter()
        while calls < 3 or time.perf_counter() - t0 < args.seconds:
            session.run(None, {inp.name: x})
            calls += 1
        rows.append({"batch": n, "positions_per_sec": calls * n / (time.perf_counter() - t0), "calls": calls})
    print(json.dumps({"onnxruntime": ort.__version__, "threads": args.threads, "inference": rows}))


if __name__ == "__main__":
    main()
