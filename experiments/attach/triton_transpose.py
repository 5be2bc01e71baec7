"""Triton kernels with known shared-memory behaviour, for `bankbench attach`.

tile_transpose (Triton Gluon) writes a 32x32 float tile to shared memory by rows and reads it back
by columns. With the plain shared layout every column read puts a warp's 32 lanes in one bank:
32 wavefronts per load request. `--swizzle` XORs each row's columns with the row number
(SwizzledSharedLayout max_phase 32): 1 wavefront per request. Same kernel name, same grid: between
two attach runs, `bankbench regress` sees the change. softmax_rows is an ordinary Triton kernel
(tl.*) whose cross-warp reductions go through shared memory.

    bankbench attach -- python3 experiments/attach/triton_transpose.py [--swizzle] [--n 4096]
"""
import argparse

import torch
import triton
import triton.language as tl
from triton.experimental import gluon
from triton.experimental.gluon import language as ttgl


@gluon.jit
def tile_transpose(src, dst, n, BLOCK: ttgl.constexpr, SMEM: ttgl.constexpr):
    by_rows: ttgl.constexpr = ttgl.BlockedLayout([1, 1], [1, 32], [4, 1], [1, 0])  # a warp spans a row
    by_cols: ttgl.constexpr = ttgl.BlockedLayout([1, 1], [32, 1], [1, 4], [0, 1])  # a warp spans a column
    row0 = ttgl.program_id(0) * BLOCK
    col0 = ttgl.program_id(1) * BLOCK
    r = row0 + ttgl.arange(0, BLOCK, layout=ttgl.SliceLayout(1, by_rows))
    c = col0 + ttgl.arange(0, BLOCK, layout=ttgl.SliceLayout(0, by_rows))
    tile = ttgl.load(src + r[:, None] * n + c[None, :])
    smem = ttgl.allocate_shared_memory(ttgl.float32, [BLOCK, BLOCK], SMEM, tile)
    t = smem.load(by_cols)
    r2 = row0 + ttgl.arange(0, BLOCK, layout=ttgl.SliceLayout(1, by_cols))
    c2 = col0 + ttgl.arange(0, BLOCK, layout=ttgl.SliceLayout(0, by_cols))
    ttgl.store(dst + c2[None, :] * n + r2[:, None], t)


@triton.jit
def softmax_rows(x, y, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    v = tl.load(x + row * cols + offs, mask=offs < cols, other=-float("inf"))
    v = v - tl.max(v, 0)
    e = tl.exp(v)
    tl.store(y + row * cols + offs, e / tl.sum(e, 0), mask=offs < cols)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--swizzle", action="store_true", help="XOR-swizzled shared layout: no conflicts")
    ap.add_argument("--n", type=int, default=4096)
    a = ap.parse_args()
    layout = ttgl.SwizzledSharedLayout(1, 1, 32 if a.swizzle else 1, [1, 0])
    x = torch.randn(a.n, a.n, device="cuda")
    y = torch.empty_like(x)
    tile_transpose[(a.n // 32, a.n // 32)](x, y, a.n, BLOCK=32, SMEM=layout, num_warps=4)
    torch.testing.assert_close(y, x.t())
    s = torch.empty_like(x)
    softmax_rows[(a.n,)](x, s, a.n, BLOCK=triton.next_power_of_2(a.n), num_warps=8)
    torch.testing.assert_close(s, torch.softmax(x, dim=1))
    torch.cuda.synchronize()
    print(f"triton_transpose: ok ({'swizzled' if a.swizzle else 'plain'} layout, n = {a.n})")


if __name__ == "__main__":
    main()
