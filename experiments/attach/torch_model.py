"""A small PyTorch program for `bankbench attach`: a transformer-style block (layer norm, attention
with softmax, a GELU MLP) forward and backward in float16, inside an NVTX range per step.

    bankbench attach --nvtx-include step -- python3 experiments/attach/torch_model.py
    bankbench attach --kernel-name 'softmax|layer_norm' -- python3 experiments/attach/torch_model.py
"""
import argparse

import torch


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=2)
    ap.add_argument("--width", type=int, default=1024)
    a = ap.parse_args()
    torch.manual_seed(0)
    d = a.width
    dev, dt = "cuda", torch.float16
    norm = torch.nn.LayerNorm(d, device=dev, dtype=dt)
    qkv = torch.nn.Linear(d, 3 * d, device=dev, dtype=dt)
    mlp = torch.nn.Sequential(torch.nn.Linear(d, 4 * d), torch.nn.GELU(), torch.nn.Linear(4 * d, d)).to(dev, dt)
    x = torch.randn(8, 256, d, device=dev, dtype=dt, requires_grad=True)
    for step in range(a.steps):
        torch.cuda.nvtx.range_push(f"step {step}")
        h = norm(x)
        q, k, v = qkv(h).chunk(3, dim=-1)
        att = torch.softmax(q @ k.transpose(-1, -2) / d ** 0.5, dim=-1) @ v
        out = x + att + mlp(norm(x + att))
        out.float().pow(2).mean().backward()
        torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()
    print(f"torch_model: ok ({a.steps} steps, loss {out.float().pow(2).mean().item():.4f})")


if __name__ == "__main__":
    main()
