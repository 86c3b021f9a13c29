"""Exports a szero network file to ONNX (used by `szero export --format onnx`).

    python python/export_onnx.py NET.safetensors OUT.onnx

One input `planes` [N, input_planes, 8, 8] float32 with a dynamic batch axis N; outputs
`policy_logits` [N, policy_size], `wdl_logits` [N, 3], and `moves_left` [N] and
`material` [N] when the network has those heads. Prints one JSON line describing the
file (input and output names, opset) for the caller to put into model.json.
"""

import json
import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402
import szero_net  # noqa: E402

OPSET = 17


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: export_onnx.py NET.safetensors OUT.onnx")
    src, out = sys.argv[1], sys.argv[2]
    net, meta = szero_net.load(src)
    planes = meta["architecture"]["input_planes"]
    names = net.output_names()
    example = torch.zeros(2, planes, 8, 8)
    tmp = out + ".tmp"
    with warnings.catch_warnings():
        # torch >= 2.9 calls the TorchScript-based exporter legacy; it needs no extra
        # packages (the new one needs onnxscript) and handles this plain network.
        warnings.simplefilter("ignore")
        torch.onnx.export(
            net,
            (example,),
            tmp,
            input_names=["planes"],
            output_names=names,
            dynamic_axes={"planes": {0: "N"}, **{n: {0: "N"} for n in names}},
            opset_version=OPSET,
            dynamo=False,
        )
    os.replace(tmp, out)
    print(json.dumps({"file": os.path.basename(out), "inputs": ["planes"], "outputs": names, "opset": OPSET}))


if __name__ == "__main__":
    main()
