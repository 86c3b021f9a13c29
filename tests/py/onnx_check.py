"""Runs an exported ONNX model in onnxruntime on szero's own inputs and compares.

    python onnx_check.py DIR   (DIR: model.onnx, model.json, planes.f32, reference.f32)

planes.f32: [N, planes, 8, 8] float32 little-endian; reference.f32: szero's outputs
[N, output_width] (the TorchScript row layout). Prints JSON: the largest absolute
difference at batch 1 and at batch N, the outputs' scale, and onnxruntime's speed.
"""
import json
import sys
import time

import numpy as np
import onnxruntime as ort

d = sys.argv[1]
info = json.load(open(f"{d}/model.json"))
planes = info["architecture"]["input_planes"]
width = info["output"]["shape"][1]
x = np.fromfile(f"{d}/planes.f32", dtype="<f4").reshape(-1, planes, 8, 8)
ref = np.fromfile(f"{d}/reference.f32", dtype="<f4").reshape(x.shape[0], width)
onnx = info["onnx"]
s = ort.InferenceSession(f"{d}/{onnx['file']}", providers=["CPUExecutionProvider"])
assert [i.name for i in s.get_inputs()] == onnx["inputs"], s.get_inputs()
assert [o.name for o in s.get_outputs()] == onnx["outputs"], s.get_outputs()


def run(batch):
    out = s.run(None, {"planes": batch})
    return np.concatenate([a if a.ndim == 2 else a[:, None] for a in out], axis=1)


result = {"scale": float(np.abs(ref).max())}
for n in (1, x.shape[0]):
    got = run(x[:n])
    assert got.shape == (n, width), got.shape
    result[f"max_diff_{n}"] = float(np.abs(got - ref[:n]).max())
    t = time.perf_counter()
    reps = 0
    while time.perf_counter() - t < 0.5:
        run(x[:n])
        reps += 1
    result[f"ort_positions_per_sec_{n}"] = reps * n / (time.perf_counter() - t)
print(json.dumps(result))
