#!/usr/bin/env python3
"""Writes the experiment files whose expectations are one per configuration: the stride sweep
(experiments/stride/*.yaml) and the padding sweep (experiments/padding/sweep.yaml).

Each expected signature is what the bank model's rules v2 (runner/model/rules.hpp) predict for the
kernel's requests: 32 banks of 4-byte words; lanes asking for the same word share it; 8-byte
accesses served per half-warp and 16-byte ones per quarter-warp, except loads whose lane pairs
(2i, 2i + 1) each read one address, served in groups twice as wide. `bankbench run --backend model`
on the written files must meet every expectation (the C++ model, from the kernels' own access
plans, agrees with this script), and so did an H200 (bench/probes/measured/h200-stride-wide.json holds
its 8- and 16-byte stride rows; this script checks that the rules reproduce every one of them).

Usage: bench/probes/gen_expectations.py [REPO_ROOT]
"""
import math
import json
import pathlib
import sys
import textwrap

WIDTHS = [1, 2, 4, 8, 16]


def cost(addresses, width, load=True):
    """Rules v2 for one full-warp request: (wavefronts, groups). Per group of lanes, the most
    distinct words one bank serves; the hardware counts wavefronts - groups as conflicts."""
    group = 32 if width <= 4 else 128 // width
    if load and width >= 8 and all(addresses[i] == addresses[i + 1] for i in range(0, 32, 2)):
        group *= 2  # rule 3b: lane pairs that share addresses are served twice as wide
    words_per_lane = max(1, width // 4)
    total = groups = 0
    for first in range(0, 32, group):
        words = {a // 4 + k for a in addresses[first:first + group] for k in range(words_per_lane)}
        per_bank = {}
        for w in words:
            per_bank[w % 32] = per_bank.get(w % 32, 0) + 1
        total += max(per_bank.values())
        groups += 1
    return total, groups


def wavefronts(addresses, width, load=True):
    return cost(addresses, width, load)[0]


# What an H200 measured for the 8- and 16-byte stride rows, which rules v1 got wrong for pairs and
# broadcasts; rules v2 must reproduce each (checked in stride_file).
MEASURED = json.loads((pathlib.Path(__file__).parent / "measured" / "h200-stride-wide.json").read_text())


def ideal(width):
    return max(1, math.ceil(32 * width / 128))


def wrap(text):
    return "\n  ".join(textwrap.wrap(text, 98))


def fmt(x):
    return f"{x:.3f}".rstrip("0").rstrip(".")


def bound_lines(where, metric, predicted, variants=None, allowance_of=None):
    """One flow-style expectation: within max(0.1, 2%) of the prediction (or of `allowance_of`);
    `below` for zero. The H200 counted up to 0.08 per request of arbitration noise on 16-byte
    column reads (padding sweep, float4, pitch 34 and 35, with L2 emptied before each pass), hence
    0.1. Conflicts are wavefronts less the ideal and carry the same noise, so the padding sweep
    gives them the wavefronts' allowance (float4, pitch 34: 4.066 to 4.101 conflicts per request in
    twelve runs on an H200, 2026-11-21, where 2 % of 4 allowed 4.08)."""
    d = max(0.1, 0.02 * (predicted if allowance_of is None else allowance_of))
    head = "  - {"
    if variants:
        head += "variants: [" + ", ".join(variants) + "], "
    head += "where: {" + ", ".join(f"{k}: {v}" for k, v in where.items()) + "}, "
    if predicted == 0:
        return head + f"metric: {metric}, below: 0.1}}"
    return head + f"metric: {metric}, between: [{fmt(max(0.0, predicted - d))}, {fmt(predicted + d)}]}}"


# --- stride -------------------------------------------------------------------------------------

def stride_signature(stride, width, group):
    """(wavefronts, groups) of the stride kernel's loads; each of its 8 address shifts gives the same."""
    seen = set()
    for k in range(8):
        seen.add(cost([((lane // group) * stride + k * (128 // width)) * width for lane in range(32)], width))
    assert len(seen) == 1, (stride, width, group, seen)
    return seen.pop()


STRIDE_HEADER = """\
# Written by bench/probes/gen_expectations.py (the bank model's rules v2); adjust to what the GPU measures.
# {what}
# Loads are the measured requests (the kernel loads nothing else); stores only fill the array, in
# nvcc's 4x-unrolled fill loop, whose requests the plan follows (kernels/stride/family.cuh).
# Every width follows the bank model's rules v2, which an H200 confirmed row by row (2026-11-21):
# 8- and 16-byte loads are served per half- and quarter-warp, or twice as wide when every lane
# pair (2i, 2i + 1) reads one address (multicast, broadcast); conflicts are wavefronts - groups.
name: {name}
description: >-
  {description}
claim: >-
  {claim}
family: stride
variants: [{variant}]
axes:
{axes}
metrics: bank_conflicts
repeat:
  warmup: 1
  samples: 5
seed: 20261122
expect:
  # The fill stores are conflict-free except where one request holds lanes a trip of the fill
  # loop apart: at widths 1 and 2 up to 0.12 excess wavefronts per request, which the model
  # predicts and an H100 measured (docs/bank-model.md), hence the bound.
  - metric: store_excess_wavefronts_per_request
    below: 0.2
"""


def stride_file(name, variant, group, strides, what, description, claim):
    axes = []
    if strides is not None:
        axes.append("  stride: [" + ", ".join(str(s) for s in strides) + "]")
    axes.append("  width: [" + ", ".join(str(w) for w in WIDTHS) + "]")
    text = STRIDE_HEADER.format(name=name, what=what, description=wrap(description), claim=wrap(claim),
                                variant=variant, axes="\n".join(axes))
    for width in WIDTHS:
        groups = stride_signature(1, width, group)[1]
        text += f"  # width {width}: {groups} group(s) of lanes, the least wavefronts per request\n"
        for stride in strides or [1]:
            where = {"stride": stride, "width": width} if strides is not None else {"width": width}
            p, groups = stride_signature(stride, width, group)
            m = MEASURED["load"].get(f"{variant} stride={stride} width={width}")
            if m is not None:  # the H200 row must be what the rules say
                assert (m["load_wavefronts_per_request"], m["load_conflicts_per_request"]) == (p, p - groups), \
                    (variant, stride, width, m, p, groups)
            text += bound_lines(where, "load_wavefronts_per_request", p) + "\n"
            text += bound_lines(where, "load_conflicts_per_request", p - groups) + "\n"
    return text


# --- padding ------------------------------------------------------------------------------------

TYPES = {  # name: (bytes per element, bytes per access, accesses per element)
    "char": (1, 1, 1),
    "short": (2, 2, 1),
    "float": (4, 4, 1),
    "double": (8, 8, 1),
    "float4": (16, 16, 1),
    "struct12": (12, 4, 3),
}


def column_signature(type_name, pitch, cols=32):
    """Mean wavefronts per request of the column requests (lane = row) over every column: for
    1- and 2-byte elements the column's offset inside a word changes the count."""
    size, width, accesses = TYPES[type_name]
    total = 0
    for c in range(cols):
        for f in range(accesses):
            total += wavefronts([(r * pitch + c) * size + 4 * f for r in range(32)], width)
    return total / (cols * accesses)


PADDING_HEADER = """\
# Written by bench/probes/gen_expectations.py (the bank model's rules v2); adjust to what the GPU measures.
# tile[32][pitch] of each element type, 32 columns of data and pitch - 32 of padding, columns read
# (column_read: loads measured) or written (column_write: stores measured) with lane = row. The
# other direction is a row access and ideal for every type and pitch.
# Per element type, for pitch 32..36, the rules predict (wavefronts per request; ideal in brackets):
{table}
# For char and short the count depends on where the column sits in its word, so the expectation
# is the mean over the 32 columns (char[32][33]: 1.75, not 1). struct12 moves as three 4-byte
# requests per element. double and float4 columns and rows (distinct lanes) follow the half- and
# quarter-warp rule, and the conflict counter reads wavefronts above the ideal: both confirmed on
# an H200 (2026-11-21) for every type and pitch, loads and stores.
name: padding_sweep
description: >-
  Column access to tile[32][32 + pad] for pad = 0..4 and element types char, short, float, double,
  float4 and struct {{float a, b, c}}: which paddings remove the conflict depends on the row length
  in 4-byte words, not in elements.
claim: >-
  Padding each row by one element makes column access to a shared tile conflict-free, whatever the
  element type.
family: padding
variants: [column_read, column_write]
axes:
  type: [char, short, float, double, float4, struct12]
  pitch: [32, 33, 34, 35, 36]
metrics: bank_conflicts
repeat:
  warmup: 3
  samples: 10
seed: 20261123
expect:
  # The other side (the row fill or read) is ideal by construction; an H200 adds up to 0.07 per
  # request of arbitration noise to it (float4, 2026-11-21), hence the bound.
  - variants: [column_read]
    metric: store_excess_wavefronts_per_request
    below: 0.15
  - variants: [column_write]
    metric: load_excess_wavefronts_per_request
    below: 0.15
"""


def padding_sweep():
    table = []
    for t, (_, width, _) in TYPES.items():
        table.append(f"#   {t:8} " + "  ".join(fmt(column_signature(t, p)) for p in range(32, 37)) + f"  [{ideal(width)}]")
    text = PADDING_HEADER.format(table="\n".join(table))
    for variant, side in (("column_read", "load"), ("column_write", "store")):
        for t, (_, width, _) in TYPES.items():
            for pitch in range(32, 37):
                p = column_signature(t, pitch)
                where = {"type": t, "pitch": pitch}
                text += bound_lines(where, f"{side}_wavefronts_per_request", p, [variant]) + "\n"
                text += bound_lines(where, f"{side}_conflicts_per_request", p - ideal(width), [variant], p) + "\n"
    return text


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[2])
    files = {
        "experiments/stride/strided.yaml": stride_file(
            "stride_strided", "strided", 1, list(range(1, 65)),
            "Lane l loads element l * stride; for 4-byte words the degree is gcd(stride, 32).",
            "A warp loading s[lane * stride] for strides 1 to 64 and elements of 1, 2, 4, 8 and 16 bytes.",
            "Odd strides of 4-byte words are conflict-free and stride 2^k is 2^k-way (up to 32); 1- and "
            "2-byte elements at small strides share words and are conflict-free; 8- and 16-byte elements "
            "are served per half- and quarter-warp."),
        "experiments/stride/multicast.yaml": stride_file(
            "stride_multicast", "multicast", 2, [1, 2, 3, 4, 5, 8, 16, 32, 33, 64],
            "Lanes 2g and 2g + 1 load element g * stride: 16 distinct elements per request.",
            "Pairs of lanes loading the same element (multicast), at strides between the pairs.",
            "Lanes that read the same word share it (multicast), so a pair costs what one lane costs: "
            "the degree is that of 16 lanes at the same stride. The documented rule (8-byte accesses per "
            "half-warp, 16-byte per quarter-warp, so at least 2 and 4 wavefronts) does not hold for pairs "
            "on the H200: 8- and 16-byte pairs are served twice as wide (the whole warp, half-warps), so a "
            "conflict-free pair request takes 1 and 2 wavefronts, measured below."),
        "experiments/stride/broadcast.yaml": stride_file(
            "stride_broadcast", "broadcast", 32, None,
            "Every lane loads element 0.",
            "All 32 lanes loading one element (broadcast), for elements of 1 to 16 bytes.",
            "A broadcast is conflict-free whatever the width: one word, served to every lane at once. The "
            "documented half-warp (8-byte) and quarter-warp (16-byte) phases would make it 2 and 4 "
            "wavefronts; the H200 takes 1 and 2 (measured below): lanes sharing an address are served "
            "twice as wide."),
        "experiments/padding/sweep.yaml": padding_sweep(),
    }
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
        print(path)


if __name__ == "__main__":
    main()
