"""Whether a run directory learned what `configs/default.toml` at one seed and one budget of
trainer steps would learn, so that a study may use it instead of training the same run again
(`scripts/step-study --default-run SEED=DIR`: e.g. the standard rule's run of
`scripts/entry-rules`, which is configs/default.toml at the same seed and budget).

    python3 scripts/run_config_matches.py CONFIG RUN_DIR SEED STEPS

Compares every setting CONFIG gives with the one RUN_DIR/config.toml holds (the config the
run ran with: `szero study` writes every field out, `szero run` the file it was given and its
command line's overrides as comments); the budget ([run] max_steps = STEPS, no
minutes) and [train] seed = SEED are what the study would set. Settings CONFIG leaves out are
the build's defaults on both sides. Exits 0 when they all agree, else 1 naming each one that
differs, and 2 on a missing or unreadable file."""
import math
import os
import re
import sys
import tomllib


def load(p):
    try:
        with open(p, "rb") as f:
            return tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        print(f"run_config_matches: cannot read {p}: {e}", file=sys.stderr)
        sys.exit(2)


def overridden(path, config):
    """`config` (the run's config.toml) with the overrides `szero run` gave on its command
    line, which it records as comments after the file's text ("#   [train] seed = 2"), not as
    settings. (`szero study` writes every setting out, so its runs have none.)"""
    with open(path) as f:
        lines = f.read().splitlines()
    if "# Overridden on the command line:" not in lines:
        return config
    for line in lines[lines.index("# Overridden on the command line:") + 1:]:
        m = re.fullmatch(r"#\s+\[([a-z_.]+)\] ([a-z_]+) = (.+)", line)
        if m:
            table = config
            for t in m[1].split("."):
                table = table.setdefault(t, {})
            table[m[2]] = tomllib.loads(f"v = {m[3]}")["v"]
    return config


def same(a, b):
    # The run writes its floats back as f32 (0.95 reads 0.949999988079071).
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, (int, float)) and isinstance(b, (int, float)) and math.isclose(a, b, rel_tol=1e-6)
    return a == b


def differences(want, have, where=""):
    """Each setting of `want` that `have` lacks or holds otherwise, as "[table] key: A, run B"."""
    out = []
    for k, v in want.items():
        name = f"{where}.{k}" if where else k
        if isinstance(v, dict):
            out += differences(v, have.get(k) if isinstance(have.get(k), dict) else {}, name)
        elif k not in have:
            out.append(f"{name}: {v!r} in the config, absent from the run's")
        elif not same(v, have[k]):
            out.append(f"{name}: {v!r} in the config, {have[k]!r} in the run's")
    return out


def main():
    if len(sys.argv) != 5:
        print("usage: python3 scripts/run_config_matches.py CONFIG RUN_DIR SEED STEPS", file=sys.stderr)
        sys.exit(2)
    config, run, seed, steps = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    run_config = os.path.join(run, "config.toml")
    if not os.path.isfile(run_config):
        print(f"run_config_matches: {run} holds no config.toml: not a run directory", file=sys.stderr)
        sys.exit(2)
    want = load(config)
    want.setdefault("train", {})["seed"] = seed
    want.setdefault("run", {}).update(max_steps=steps, max_minutes=0)
    diffs = differences(want, overridden(run_config, load(run_config)))
    if diffs:
        print(f"{run} did not learn {config} at seed {seed} for {steps} steps:", file=sys.stderr)
        for d in diffs:
            print(f"  {d}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
