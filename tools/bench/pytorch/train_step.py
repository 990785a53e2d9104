"""PyTorch reference for drivekit's learning-engine benchmark (tools/bench/nn.bench.ts): the same
three models, threads, optimizer and step protocol, printing the same JSON line per model.

Not a drivekit dependency. Debian: apt-get install python3-torch libopenblas0-openmp (python3-torch
links whichever libblas.so.3 is selected; with the reference libblas3 its Linear layers are many times
slower). Run with glibc told to keep freed memory, as the drivekit benchmark does:
  MALLOC_MMAP_THRESHOLD_=1073741824 MALLOC_TRIM_THRESHOLD_=1073741824 MALLOC_TOP_PAD_=67108864 \
  MALLOC_ARENA_MAX=2 python3 tools/bench/pytorch/train_step.py [model ...]
"""
import json
import math
import resource
import statistics
import sys
import time

import torch
import torch.nn as tnn
import torch.nn.functional as F

THREADS = 2
WARMUP, TIMED = 3, 10


class BevUnet(tnn.Module):
    def __init__(self):
        super().__init__()
        c = lambda i, o, k, s=1: tnn.Conv2d(i, o, k, stride=s, padding=(k - 1) // 2)
        self.enc1 = tnn.ModuleList([c(8, 32, 3), c(32, 32, 3)])
        self.enc2 = tnn.ModuleList([c(32, 64, 3, 2), c(64, 64, 3)])
        self.enc3 = tnn.ModuleList([c(64, 128, 3, 2), c(128, 128, 3)])
        self.up = tnn.ConvTranspose2d(128, 64, 2, stride=2)
        self.dec = c(128, 64, 3)
        self.head0, self.head1 = c(64, 64, 3), c(64, 9, 1)

    def forward(self, x):
        for l in self.enc1:
            x = F.relu(l(x))
        e2 = x
        for l in self.enc2:
            e2 = F.relu(l(e2))
        e3 = e2
        for l in self.enc3:
            e3 = F.relu(l(e3))
        u = F.relu(self.up(e3))
        d = F.relu(self.dec(torch.cat([u, e2], 1)))
        return self.head1(F.relu(self.head0(d)))


class Block(tnn.Module):
    def __init__(self, d=256, heads=8):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = tnn.LayerNorm(d), tnn.LayerNorm(d)
        self.qkv, self.out = tnn.Linear(d, 3 * d), tnn.Linear(d, d)
        self.fc1, self.fc2 = tnn.Linear(d, 4 * d), tnn.Linear(4 * d, d)

    def forward(self, x):
        B, T, D = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(D, -1)
        sh = lambda t: t.view(B, T, self.heads, D // self.heads).transpose(1, 2)
        # Scale q before the product (as drivekit does): same result, no pass over the T×T scores.
        q, k, v = sh(q) * (1 / math.sqrt(D // self.heads)), sh(k), sh(v)
        att = torch.softmax(q @ k.transpose(-2, -1), -1)
        x = x + self.out((att @ v).transpose(1, 2).reshape(B, T, D))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class TokenTransformer(tnn.Module):
    def __init__(self, V=512, T=1024, D=256):
        super().__init__()
        self.tok = tnn.Embedding(V, D)
        self.pos = tnn.Parameter(torch.randn(T, D) * 0.02)
        self.blocks = tnn.ModuleList([Block(D) for _ in range(4)])
        self.ln_f, self.head = tnn.LayerNorm(D), tnn.Linear(D, V)

    def forward(self, tokens):
        h = self.tok(tokens) + self.pos
        for b in self.blocks:
            h = b(h)
        return self.head(self.ln_f(h))


class PolicyMlp(tnn.Module):
    def __init__(self):
        super().__init__()
        self.l1, self.l2 = tnn.Linear(64, 256), tnn.Linear(256, 256)
        self.mean, self.value = tnn.Linear(256, 2), tnn.Linear(256, 1)
        self.log_std = tnn.Parameter(torch.zeros(2))

    def forward(self, obs):
        h = torch.tanh(self.l2(torch.tanh(self.l1(obs))))
        return self.mean(h), self.log_std, self.value(h)


def setup(name):
    g = torch.Generator().manual_seed(2)
    if name == "bev_unet":
        m = BevUnet()
        x, t = torch.randn(2, 8, 256, 256, generator=g), torch.randn(2, 9, 128, 128, generator=g)
        return m, lambda: F.mse_loss(m(x), t)
    if name == "token_transformer":
        m = TokenTransformer()
        tok = torch.randint(0, 512, (4, 1024), generator=g)
        tgt = torch.randint(0, 512, (4, 1024), generator=g)
        return m, lambda: F.cross_entropy(m(tok).reshape(-1, 512), tgt.reshape(-1))
    m = PolicyMlp()
    obs, act = torch.randn(4096, 64, generator=g), torch.randn(4096, 2, generator=g)
    old_logp, adv = torch.randn(4096, generator=g) * 0.5 - 2, torch.randn(4096, generator=g)
    ret = torch.randn(4096, 1, generator=g)

    def loss():
        mean, log_std, v = m(obs)
        z = (act - mean) / log_std.exp()
        logp = (-0.5 * z * z - log_std - 0.5 * math.log(2 * math.pi)).sum(-1)
        ratio = (logp - old_logp).exp()
        surr = torch.min(ratio * adv, ratio.clamp(0.8, 1.2) * adv)
        entropy = (log_std + 0.5 * (1 + math.log(2 * math.pi))).sum()
        return -surr.mean() + 0.5 * F.mse_loss(v, ret) - 0.01 * entropy

    return m, loss


def bench(name):
    torch.manual_seed(1)
    m, loss_fn = setup(name)
    # Weight decay on weights only (not biases, norms, embeddings), as drivekit's AdamW default.
    decay = [p for n, p in m.named_parameters() if n.endswith("weight") and "ln" not in n and "tok" not in n]
    rest = [p for n, p in m.named_parameters() if not any(p is q for q in decay)]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 1e-4}, {"params": rest, "weight_decay": 0}], lr=1e-3)

    def step():
        opt.zero_grad(set_to_none=True)
        l = loss_fn()
        l.backward()
        opt.step()
        return l.item()

    for _ in range(WARMUP):
        step()
    ms = []
    for _ in range(TIMED):
        t = time.perf_counter()
        loss = step()
        ms.append((time.perf_counter() - t) * 1000)
    return {
        "name": f"pytorch_train_step_{name}",
        "ms_per_step_median": round(statistics.median(ms), 2),
        "ms_min": round(min(ms), 2),
        "ms_max": round(max(ms), 2),
        "params": sum(p.numel() for p in m.parameters()),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 2),
        "threads": THREADS,
        "torch": torch.__version__,
        "loss": round(loss, 4),
    }


if __name__ == "__main__":
    torch.set_num_threads(THREADS)
    for name in sys.argv[1:] or ["bev_unet", "token_transformer", "policy_mlp"]:
        print(json.dumps(bench(name)), flush=True)
