"""szero's network in plain PyTorch, built from a network file's own description.

A szero network file is safetensors with its architecture (`NetConfig` as JSON) in the
header metadata. `load(path)` builds the identical module here (same layers, same
order of operations as `models/src/net.rs`) and loads the weights, so that Python tools
can run, export (ONNX) or time szero's networks with nothing but torch:

    import szero_net
    net, meta = szero_net.load("runs/default/best.safetensors")
    policy, wdl, *rest = net(planes)       # planes: [N, input_planes, 8, 8] float32

Outputs, in order: policy logits over the move index, W/D/L logits for the side to
move, then the moves-left prediction and the material prediction when the network has
those heads (the columns of `model.json`'s `output_layout`, as separate tensors).
"""

import json
import struct

import torch
from torch import nn

FORMAT_MAGIC = "szero-net-v1"
BN_EPS = 1e-5  # tch's BatchNormConfig default


class ConvBn(nn.Module):
    """Convolution without bias, then batch norm (`ConvBn` in net.rs)."""

    def __init__(self, c_in, c_out, k):
        super().__init__()
        self.conv = nn.Conv2d(c_in, c_out, k, padding=k // 2, bias=False)
        self.bn = nn.BatchNorm2d(c_out, eps=BN_EPS)

    def forward(self, x):
        return self.bn(self.conv(x))


class SqueezeExcitation(nn.Module):
    def __init__(self, channels, ratio):
        super().__init__()
        self.fc1 = nn.Linear(channels, channels // ratio)
        self.fc2 = nn.Linear(channels // ratio, 2 * channels)

    def forward(self, x):
        g = self.fc2(torch.relu(self.fc1(x.mean(dim=(2, 3)))))
        scale, bias = g.chunk(2, dim=1)
        return x * torch.sigmoid(scale)[:, :, None, None] + bias[:, :, None, None]


class ResBlock(nn.Module):
    def __init__(self, channels, se_ratio):
        super().__init__()
        self.a = ConvBn(channels, channels, 3)
        self.b = ConvBn(channels, channels, 3)
        self.se = SqueezeExcitation(channels, se_ratio) if se_ratio else None

    def forward(self, x):
        h = self.b(torch.relu(self.a(x)))
        if self.se is not None:
            h = self.se(h)
        return torch.relu(h + x)


class PolicyHead(nn.Module):
    # The head's 1x1 convolution and batch norm sit at the head's own path in net.rs
    # (`policy.conv`, `policy.bn`), not inside a ConvBn submodule.
    def __init__(self, channels, policy_channels, policy_size):
        super().__init__()
        self.conv = nn.Conv2d(channels, policy_channels, 1, bias=False)
        self.bn = nn.BatchNorm2d(policy_channels, eps=BN_EPS)
        self.fc = nn.Linear(policy_channels * 64, policy_size)

    def forward(self, x):
        return self.fc(torch.relu(self.bn(self.conv(x))).flatten(1))


class MlpHead(nn.Module):
    """1x1 conv, flatten or mean+max pooling, two-layer MLP (`MlpHead` in net.rs)."""

    def __init__(self, c_in, channels, hidden, out, pool):
        super().__init__()
        self.conv = nn.Conv2d(c_in, channels, 1, bias=False)
        self.bn = nn.BatchNorm2d(channels, eps=BN_EPS)
        self.pool = pool
        self.fc1 = nn.Linear(2 * channels if pool else channels * 64, hidden)
        self.fc2 = nn.Linear(hidden, out)

    def forward(self, x):
        h = torch.relu(self.bn(self.conv(x)))
        if self.pool:
            flat = h.flatten(2)
            features = torch.cat([flat.mean(dim=2), flat.max(dim=2).values], dim=1)
        else:
            features = h.flatten(1)
        return self.fc2(torch.relu(self.fc1(features)))


class SzeroNet(nn.Module):
    """The residual policy/value network described by a `NetConfig` dict."""

    def __init__(self, arch):
        super().__init__()
        self.arch = arch
        c = arch["channels"]
        se = arch.get("squeeze_excitation")
        self.stem = ConvBn(arch["input_planes"], c, 3)
        self.tower = nn.ModuleList(ResBlock(c, se["ratio"] if se else None) for _ in range(arch["blocks"]))
        self.policy = PolicyHead(c, arch["policy_channels"], arch["policy_size"])
        self.value = MlpHead(c, arch["value_channels"], arch["value_hidden"], 3, arch.get("value_pooling", False))
        ml = arch.get("moves_left")
        self.moves_left = MlpHead(c, ml["channels"], ml["hidden"], 1, False) if ml else None
        mat = arch.get("material")
        self.material = MlpHead(c, mat["channels"], mat["hidden"], 1, True) if mat else None

    def output_names(self):
        names = ["policy_logits", "wdl_logits"]
        if self.moves_left is not None:
            names.append("moves_left")
        if self.material is not None:
            names.append("material")
        return names

    def forward(self, x):
        h = torch.relu(self.stem(x))
        for block in self.tower:
            h = block(h)
        out = [self.policy(h), self.value(h)]
        if self.moves_left is not None:
            out.append(torch.nn.functional.softplus(self.moves_left(h)).squeeze(1))
        if self.material is not None:
            out.append(self.material(h).squeeze(1))
        return tuple(out)


def read(path):
    """(metadata dict, {name: tensor}) of a szero network file.

    Reads the safetensors layout itself (8-byte little-endian header length, JSON header,
    raw data; szero writes every tensor as little-endian F32), so that only torch is
    needed, as on a GPU machine with a bare PyTorch install."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    meta = dict(header.pop("__metadata__", {}) or {})
    if meta.get("format") != FORMAT_MAGIC:
        raise ValueError(f"{path}: not a szero network file (format {meta.get('format')!r})")
    body = memoryview(data)[8 + n :]
    tensors = {}
    for name, t in header.items():
        if t["dtype"] != "F32":
            raise ValueError(f"{path}: tensor {name} has dtype {t['dtype']}, expected F32")
        start, end = t["data_offsets"]
        flat = torch.frombuffer(bytearray(body[start:end]), dtype=torch.float32)
        tensors[name] = flat.reshape(t["shape"])
    meta["architecture"] = json.loads(meta["architecture"])
    return meta, tensors


def load(path):
    """The network of a szero file, in evaluation mode, with its metadata."""
    meta, tensors = read(path)
    net = SzeroNet(meta["architecture"])
    state = net.state_dict()
    expected = {k for k in state if not k.endswith("num_batches_tracked")}
    missing, unexpected = expected - tensors.keys(), tensors.keys() - expected
    if missing or unexpected:
        raise ValueError(f"{path}: tensors do not match the architecture: missing {sorted(missing)}, unexpected {sorted(unexpected)}")
    for k, t in tensors.items():
        if tuple(state[k].shape) != tuple(t.shape):
            raise ValueError(f"{path}: {k} has shape {tuple(t.shape)}, expected {tuple(state[k].shape)}")
    net.load_state_dict(tensors, strict=False)
    return net.eval(), meta
