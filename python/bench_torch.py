"""PyTorch's throughput on a szero network, for scripts/bench-vs-pytorch.

    python bench_torch.py NET.safetensors [--device cpu] [--precision f32] [--batches 1,8,64]
        [--seconds 1] [--train-batch 256] [--train-seconds 10] [--threads N]
        [--optimizer adamw] [--lr 0.002] [--weight-decay 0.05] [--check DIR]

The network is built by szero_net.py from the file's own architecture and weights.
Inference is timed as szero's search calls it (host planes in, the legal moves' policy
logits and the other heads back, no autograd); training as szero's trainer steps (forward, the same losses, backward,
gradient clipping at norm 10, the same optimiser with decay on weights of rank >= 2
only) on random batches of the same shapes, with bf16 autocast on CUDA when asked.
With --check DIR, the outputs on DIR/input.f32 are compared with szero's DIR/output.f32.
Prints one JSON object. Needs torch only (no numpy), as on a bare GPU machine.
"""

import argparse
import copy
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import szero_net  # noqa: E402


def sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize()


def infer(net, x_host, device, dtype):
    with torch.inference_mode():
        x = x_host.to(device=device, dtype=dtype)
        outs = net(x)
        return [o.float().cpu() for o in outs]


def read_f32(path, shape):
    with open(path, "rb") as f:
        return torch.frombuffer(bytearray(f.read()), dtype=torch.float32).reshape(shape)


# Legal moves a position in the inference benchmark (szero bench uses the same).
LEGAL_MOVES = 40


def infer_legal(net, x_host, index_host, device, dtype):
    """What szero's search path does: planes up in the network's precision, the legal
    moves' policy logits gathered on the device, those and the other heads back as fp32."""
    with torch.inference_mode():
        x = x_host.to(dtype).to(device)
        outs = net(x)
        policy = outs[0].gather(1, index_host.to(device))
        return [policy.cpu().float()] + [o.cpu().float() for o in outs[1:]]


def time_inference(net, planes, n, device, dtype, seconds):
    x = torch.randn(n, planes, 8, 8, generator=torch.Generator().manual_seed(n))
    with torch.inference_mode():
        width = net(x[:1].to(device=device, dtype=dtype))[0].shape[1]
    index = torch.tensor([[(r * 7 + k * 53) % width for k in range(LEGAL_MOVES)] for r in range(n)])
    for _ in range(2):
        infer_legal(net, x, index, device, dtype)
    sync(device)
    calls, t0 = 0, time.perf_counter()
    while calls < 3 or time.perf_counter() - t0 < seconds:
        infer_legal(net, x, index, device, dtype)
        calls += 1
    return {"batch": n, "positions_per_sec": calls * n / (time.perf_counter() - t0), "calls": calls}


def losses(outs, batch, arch):
    policy, wdl = outs[0].float(), outs[1].float()
    policy = policy + (1.0 - batch["legal"]) * -1e9
    loss = -(batch["policy"] * policy.log_softmax(1)).sum(1).mean()
    loss = loss - (batch["wdl"] * wdl.log_softmax(1)).sum(1).mean()
    k = 2
    if arch.get("moves_left"):
        ml = outs[k].float() / 20.0
        loss = loss + 0.1 * torch.nn.functional.huber_loss(ml, batch["moves_left"] / 20.0, delta=0.5)
        k += 1
    if arch.get("material"):
        loss = loss + torch.nn.functional.huber_loss(outs[k].float() / 4.0, batch["material"] / 4.0, delta=1.0)
    return loss


def random_batch(n, planes, policy_size, g):
    """Host tensors shaped like a szero training batch: ~40 legal moves a position, the
    target spread over 8 of them."""
    legal = torch.zeros(n, policy_size)
    policy = torch.zeros(n, policy_size)
    for i in range(n):
        idx = torch.randperm(policy_size, generator=g)[:40]
        legal[i, idx] = 1.0
        p = torch.rand(8, generator=g)
        policy[i, idx[:8]] = p / p.sum()
    return {
        "inputs": torch.randn(n, planes, 8, 8, generator=g),
        "policy": policy,
        "legal": legal,
        "wdl": torch.eye(3)[torch.randint(0, 3, (n,), generator=g)],
        "moves_left": torch.rand(n, generator=g) * 200,
        "material": torch.randn(n, generator=g) * 5,
    }


def time_training(net, arch, args, device):
    net = copy.deepcopy(net).float().to(device).train()
    decay = [p for p in net.parameters() if p.dim() >= 2]
    rest = [p for p in net.parameters() if p.dim() < 2]
    groups = [{"params": decay, "weight_decay": args.weight_decay}, {"params": rest, "weight_decay": 0.0}]
    if args.optimizer == "adamw":
        opt = torch.optim.AdamW(groups, lr=args.lr)
    else:
        opt = torch.optim.SGD(groups, lr=args.lr, momentum=0.9, nesterov=True)
    g = torch.Generator().manual_seed(1)
    host = [random_batch(args.train_batch, arch["input_planes"], arch["policy_size"], g) for _ in range(4)]
    autocast = device.type == "cuda" and args.precision == "bf16"

    def step(b):
        batch = {k: v.to(device) for k, v in b.items()}
        opt.zero_grad(set_to_none=True)
        with torch.autocast(device_type=device.type, dtype=torch.bfloat16, enabled=autocast):
            outs = net(batch["inputs"])
        loss = losses(outs, batch, arch)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 10.0)
        opt.step()

    for i in range(3):
        step(host[i % len(host)])
    sync(device)
    steps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < args.train_seconds:
        step(host[steps % len(host)])
        steps += 1
    sync(device)
    secs = time.perf_counter() - t0
    return {"batch": args.train_batch, "optimizer": args.optimizer, "samples_per_sec": steps * args.train_batch / secs, "steps": steps}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("net")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--precision", default="f32", choices=["f32", "bf16"])
    ap.add_argument("--batches", default="1,8,64,256,1024,4096")
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--train-batch", type=int, default=256)
    ap.add_argument("--train-seconds", type=float, default=10.0)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--optimizer", default="adamw", choices=["adamw", "sgd"])
    ap.add_argument("--lr", type=float, default=0.002)
    ap.add_argument("--weight-decay", type=float, default=0.05)
    ap.add_argument("--check")
    args = ap.parse_args()
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    dtype = torch.bfloat16 if args.precision == "bf16" else torch.float32
    net, meta = szero_net.load(args.net)
    arch = meta["architecture"]
    net = net.to(device=device, dtype=dtype)
    report = {"device": str(device), "precision": args.precision, "torch_threads": torch.get_num_threads(), "torch": torch.__version__}
    if args.check:
        x = read_f32(os.path.join(args.check, "input.f32"), (-1, arch["input_planes"], 8, 8))
        ref = read_f32(os.path.join(args.check, "output.f32"), (x.shape[0], -1))
        outs = infer(net, x, device, dtype)
        got = torch.cat([o if o.dim() == 2 else o[:, None] for o in outs], 1)
        report["max_output_difference"] = float((got - ref).abs().max())
        report["output_scale"] = float(ref.abs().max())
    report["inference"] = [time_inference(net, arch["input_planes"], int(n), device, dtype, args.seconds) for n in args.batches.split(",")]
    if args.train_batch > 0:
        report["training"] = time_training(net, arch, args, device)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
