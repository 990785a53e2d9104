"""PyTorch reference for drivekit's learning-engine benchmark (tools/bench/nn.bench.ts): the same
three models, threads, optimizer and step protocol, printing the same JSON line per model; and mirrors
of the LiDAR tokenizer's training step (worldmodel/, tools/bench/tokenizerReference.ts: lidar_tokenizer) and
of the learned agent policy's (simulation/rtr/, tools/bench/policyReference.ts: policy). `--check-policy FILE`
prints the policy's loss and gradient norm on the weights and inputs of FILE (tools/bench/pytorch/checkPolicy.ts).

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


# The LiDAR tokenizer at DEFAULT_TOKENIZER_CONFIG (worldmodel/config.ts) and the input sizes of
# tools/bench/tokenizerReference.ts. Layer for layer as worldmodel/tokenizerNetwork.ts, quantizer.ts,
# render.ts and tokenizerGraph.ts build it; initialised as drivekit initialises it (He-normal convs).
LIDAR_TOKENIZER = dict(
    range_m=40.0, z_min=-3.0, z_max=3.0, cells=256, cells_z=16, downsample=4, slots=8,
    point_features=16, bev=32, stem=32, trunk=64, residual_blocks=1, up=32, head=32,
    codes=512, code_dim=32, codebook_weight=0.25, commitment_weight=1.0,
    step_m=0.2, rays=2048, min_range_m=2.5, skip_below=0.01, surface_margin_m=0.4,
    voxels=11000, elevation_deg=(-24.9, 2.0), clip_grad_norm=1.0,
)


def he_conv(cin, cout, k, stride=1, gain=math.sqrt(2)):
    c = tnn.Conv2d(cin, cout, k, stride=stride, padding=0 if k == 1 else 1)
    tnn.init.normal_(c.weight, 0, gain / math.sqrt(cin * k * k))
    return c


def he_up(cin, cout):
    c = tnn.ConvTranspose2d(cin, cout, 2, stride=2)
    tnn.init.normal_(c.weight, 0, math.sqrt(2) / math.sqrt(cin * 4))
    return c


class Residual(tnn.Module):
    def __init__(self, ch):
        super().__init__()
        # The second conv starts small so the block starts near the identity.
        self.a, self.b = he_conv(ch, ch, 3), he_conv(ch, ch, 3, gain=0.1)

    def forward(self, x):
        return F.relu(x + self.b(F.relu(self.a(x))))


class LidarTokenizer(tnn.Module):
    def __init__(self, c=LIDAR_TOKENIZER):
        super().__init__()
        self.c = c
        self.clip_grad_norm = c["clip_grad_norm"]
        P, C = c["point_features"], c["bev"]
        self.pn0, self.pn_norm, self.pn1 = tnn.Linear(3, P), tnn.LayerNorm(P), tnn.Linear(P, P)
        self.pillar_proj = tnn.Linear(P, C)
        self.pillar_height = tnn.Embedding(c["cells_z"], C)
        tnn.init.normal_(self.pillar_height.weight, 0, 0.02)
        self.pillar_norm = tnn.LayerNorm(C)
        downs = int(math.log2(c["downsample"]))
        self.enc_down = tnn.ModuleList()
        for i in range(downs):
            cin = C if i == 0 else c["stem"] if i == 1 else c["trunk"]
            self.enc_down.append(he_conv(cin, c["trunk"] if i == downs - 1 else c["stem"], 3, 2))
        self.enc_res = tnn.ModuleList([Residual(c["trunk"]) for _ in range(c["residual_blocks"])])
        self.enc_out = he_conv(c["trunk"], c["code_dim"], 1)
        self.codebook = tnn.Embedding(c["codes"], c["code_dim"])  # N(0, 1), as drivekit's embedding
        self.dec_in = he_conv(c["code_dim"], c["trunk"], 1)
        self.dec_res = tnn.ModuleList([Residual(c["trunk"]) for _ in range(c["residual_blocks"])])
        self.dec_up, self.dec_up_conv = tnn.ModuleList(), tnn.ModuleList()
        for i in range(downs):
            last = i == downs - 1
            cin = c["trunk"] if i == 0 else c["up"]
            cout = c["head"] if last else c["up"]
            self.dec_up.append(he_up(cin, cout))
            conv = tnn.Identity() if last else tnn.Sequential(he_conv(cout, cout, 3), tnn.ReLU())
            self.dec_up_conv.append(conv)
        self.head = he_conv(c["head"], 2 * c["cells_z"], 1)
        with torch.no_grad():
            self.head.bias.fill_(-3)

    def encode(self, offsets, slot_penalty, pillar, level):
        c, N, C = self.c, self.c["cells"], self.c["bev"]
        h = self.pn1(F.relu(self.pn_norm(self.pn0(offsets))))
        h = (h + slot_penalty.unsqueeze(-1)).amax(1)  # max over the voxel's points
        feat = self.pillar_proj(h) + self.pillar_height(level)
        bev = torch.zeros(N * N, C).index_add(0, pillar, feat)  # pillar pooling: sum per pillar
        x = self.pillar_norm(bev.view(1, N, N, C)).permute(0, 3, 1, 2)
        for d in self.enc_down:
            x = F.relu(d(x))
        for r in self.enc_res:
            x = r(x)
        return self.enc_out(x).permute(0, 2, 3, 1).reshape(-1, c["code_dim"])

    def quantize(self, z, vq_on):
        l2 = lambda x: x / torch.sqrt((x * x).sum(-1, keepdim=True) + 1e-12)
        zn, cn = l2(z), l2(self.codebook.weight)
        index = (zn @ cn.t()).argmax(-1)
        e = cn[index]
        zq = zn + vq_on * (e - zn).detach()  # straight-through
        loss = self.c["codebook_weight"] * ((zn.detach() - e) ** 2).mean()
        loss = loss + self.c["commitment_weight"] * ((zn - e.detach()) ** 2).mean()
        return zq, vq_on * loss

    def decode(self, zq):
        t = self.c["cells"] // self.c["downsample"]
        x = F.relu(self.dec_in(zq.view(1, t, t, -1).permute(0, 3, 1, 2)))
        for r in self.dec_res:
            x = r(x)
        for up, conv in zip(self.dec_up, self.dec_up_conv):
            x = conv(F.relu(up(x)))
        return self.head(x).split(self.c["cells_z"], 1)

    def forward(self, f):
        z = self.encode(f["offsets"], f["slot_penalty"], f["pillar"], f["level"])
        zq, vq_loss = self.quantize(z, f["vq_on"])
        occupancy, density = self.decode(zq)
        # Renderer: trilinear gather of the density logits, empty space (occupancy < skip) skipped.
        interp = lambda grid: (grid.reshape(-1)[f["corner"]] * f["corner_weight"]).sum(-1)
        logits = interp(density)
        occ = torch.sigmoid(interp(occupancy.detach()))
        mask = f["inside"] * (occ >= self.c["skip_below"]).float()
        alpha = torch.sigmoid(logits) * mask
        log_pass = -F.softplus(logits) * mask  # log(1 - alpha), stable where alpha -> 1
        log_t = F.pad(torch.cumsum(log_pass, 1)[:, :-1], (1, 0))  # exclusive cumulative transmittance
        weights = alpha * torch.exp(log_t)
        escaped = torch.exp(log_pass.sum(1))
        depth = (weights * f["sample_depth"]).sum(1) + escaped * f["exit"]
        depth_l1 = (depth - f["gt_depth"]).abs().mean()
        surface = (weights * weights * f["far_from_surface"]).sum(1).mean()
        bce = F.binary_cross_entropy_with_logits(occupancy, f["occupancy"])
        return depth_l1 + surface + bce + vq_loss


def region_exit(c, d):
    """Distance along unit rays d [R, 3] from the sensor to the region's edge (worldmodel/rays.ts)."""
    inf = torch.full(d.shape[:1], math.inf, dtype=d.dtype)
    t = inf
    for k in (0, 1):
        t = torch.minimum(t, torch.where(d[:, k] != 0, c["range_m"] / d[:, k].abs(), inf))
    tz = torch.where(d[:, 2] > 0, c["z_max"] / d[:, 2], torch.where(d[:, 2] < 0, c["z_min"] / d[:, 2], inf))
    return torch.minimum(t, tz)


def sample_rays(c, d, depth):
    """The renderer's sample table (worldmodel/rays.ts sampleRays), vectorised; float64 geometry."""
    S = math.ceil(math.hypot(c["range_m"], c["range_m"], max(-c["z_min"], c["z_max"])) / c["step_m"])
    N, Z = c["cells"], c["cells_z"]
    cell, cell_z = 2 * c["range_m"] / N, (c["z_max"] - c["z_min"]) / Z
    exit_m = region_exit(c, d)
    h = (torch.arange(S, dtype=torch.float64) + 0.5) * c["step_m"]
    inside = h[None, :] < exit_m[:, None]
    p = h[None, :, None] * d[:, None, :]
    u = (p[..., 0] + c["range_m"]) / cell - 0.5
    v = (p[..., 1] + c["range_m"]) / cell - 0.5
    w = (p[..., 2] - c["z_min"]) / cell_z - 0.5
    u0, v0, w0 = u.floor(), v.floor(), w.floor()
    fu, fv, fw = u - u0, v - v0, w - w0
    cl = lambda i, n: i.clamp(0, n - 1).long()
    cu, cv, cw = (cl(u0, N), cl(u0 + 1, N)), (cl(v0, N), cl(v0 + 1, N)), (cl(w0, Z), cl(w0 + 1, Z))
    corners, weights = [], []
    for kz in (0, 1):
        for ky in (0, 1):
            for kx in (0, 1):
                corners.append(cw[kz] * N * N + cv[ky] * N + cu[kx])
                weights.append((fw if kz else 1 - fw) * (fv if ky else 1 - fv) * (fu if kx else 1 - fu))
    corner = torch.stack(corners, -1) * inside[..., None]  # past the exit: corner 0, weight 0
    weight = torch.stack(weights, -1) * inside[..., None]
    sample_depth = h[None, :].expand(d.shape[0], S)
    return dict(
        corner=corner,
        corner_weight=weight.float(),
        sample_depth=sample_depth.float(),
        inside=inside.float(),
        exit=exit_m.float(),
        far_from_surface=((sample_depth - depth[:, None]).abs() > c["surface_margin_m"]).float(),
    )


def lidar_tokenizer_feeds(g, c=LIDAR_TOKENIZER):
    """Random inputs drawn as tools/bench/tokenizerReference.ts draws them: distinct voxels holding 1-8
    points, rays uniform in the HDL-64E field of view with a return between the minimum range and the edge."""
    N, Z, P, V, R = c["cells"], c["cells_z"], c["slots"], c["voxels"], c["rays"]
    vox = torch.randperm(Z * N * N, generator=g)[:V]
    filled = torch.arange(P)[None, :] < torch.randint(1, P + 1, (V, 1), generator=g)
    offsets = (torch.rand(V, P, 3, generator=g) - 0.5) * filled[..., None]
    occupancy = torch.zeros(Z * N * N)
    occupancy[vox] = 1
    az = (torch.rand(R, generator=g, dtype=torch.float64) * 2 - 1) * math.pi
    lo, hi = (math.radians(a) for a in c["elevation_deg"])
    el = lo + torch.rand(R, generator=g, dtype=torch.float64) * (hi - lo)
    d = torch.stack([el.cos() * az.cos(), el.cos() * az.sin(), el.sin()], -1)
    lo_m = c["min_range_m"]
    depth = lo_m + torch.rand(R, generator=g, dtype=torch.float64) * (region_exit(c, d) - lo_m)
    return dict(
        offsets=offsets,
        slot_penalty=torch.where(filled, 0.0, -1e4),
        pillar=vox % (N * N),
        level=torch.div(vox, N * N, rounding_mode="floor"),
        occupancy=occupancy.view(1, Z, N, N),
        gt_depth=depth.float(),
        vq_on=torch.tensor(1.0),
        **sample_rays(c, d, depth),
    )


# The learned traffic-agent policy (simulation/rtr/policyNet.ts at its defaults) and its training loss
# (lossGraph: imitation cross-entropy + coef[1] x PPO), on one RTR minibatch as tools/bench/policyReference.ts
# draws it. Parameter names match drivekit's, so the same weights load by name (Linear weights transposed).
AGENT_POLICY = dict(
    own=12, agent=(16, 10), lane=(32, 6), edge=(16, 3), width=32, hidden=(192, 128), actions=13 * 25,
    rl_rows=512, il_rows=256, valid_share=0.7, coef=(1.0, 0.5), clip=0.2, value_coef=0.5, entropy_coef=0.01,
    anchor_top_k=8, kl_coef=0.1, clip_grad_norm=1.0,
)
# Fixed feature scales of policyNet.ts (featureScale).
OWN_SCALE = [0.1, 0.1, 0.1, 0.2, 0.5, 1, 1, 1, 1, 0.02, 0.02, 1]
AGENT_SCALE, LANE_SCALE, EDGE_SCALE = [1, 0.05, 0.05, 1, 1, 0.1, 0.1, 0.2, 0.5, 1], [1, 0.05, 0.05, 1, 1, 1], [1, 0.05, 0.05]


class AgentPolicy(tnn.Module):
    def __init__(self, c=AGENT_POLICY):
        super().__init__()
        self.c, self.clip_grad_norm = c, c["clip_grad_norm"]
        W = c["width"]
        enc = lambda f: tnn.ModuleList([tnn.Linear(f, W), tnn.Linear(W, W)])
        self.own, self.agent = enc(c["own"]), enc(c["agent"][1])
        self.lane, self.edge = enc(c["lane"][1]), enc(c["edge"][1])
        sizes = [4 * W, *c["hidden"]]
        self.trunk = tnn.ModuleList([tnn.Linear(a, b) for a, b in zip(sizes, sizes[1:])])
        self.policy, self.value = tnn.Linear(sizes[-1], c["actions"]), tnn.Linear(sizes[-1], 1)
        scale = OWN_SCALE + AGENT_SCALE * c["agent"][0] + LANE_SCALE * c["lane"][0] + EDGE_SCALE * c["edge"][0]
        self.register_buffer("scale", torch.tensor(scale, dtype=torch.float32))

    def forward(self, raw):
        x = raw * self.scale
        mlp = lambda layers, h: F.relu(layers[1](F.relu(layers[0](h))))
        c, B = self.c, raw.shape[0]
        at = c["own"]
        pooled = []
        for layers, (count, feat) in ((self.agent, c["agent"]), (self.lane, c["lane"]), (self.edge, c["edge"])):
            block = x[:, at : at + count * feat].reshape(B, count, feat)
            # Empty slots (valid flag 0) are zeroed after encoding, then max over the entities.
            pooled.append((mlp(layers, block) * block[:, :, :1]).amax(1))
            at += count * feat
        z = mlp(self.trunk, torch.cat([mlp(self.own, x[:, : c["own"]]), *pooled], 1))
        return self.policy(z), self.value(z).squeeze(1)


def agent_policy_loss(m, f):
    c = m.c
    logits, value = m(f["obs"])
    logp = F.log_softmax(logits, -1)
    chosen = logp.gather(1, f["action"][:, None]).squeeze(1)
    wmean = lambda v, w: (v * w).sum() / torch.clamp(w.sum(), min=1)
    ce = wmean(-chosen, f["il_weight"])
    ratio = torch.exp(chosen - f["old_logp"])
    adv = f["advantage"]
    surrogate = torch.min(ratio * adv, ratio.clamp(1 - c["clip"], 1 + c["clip"]) * adv)
    w = f["rl_weight"]
    rl = -wmean(surrogate, w) + c["value_coef"] * wmean((value - f["return"]) ** 2, w)
    rl = rl - c["entropy_coef"] * wmean(-(logp.exp() * logp).sum(1), w)
    # EMA-PG: KL(anchor || policy) over the anchor's top-k actions, both renormalised there.
    tiny, p = 1e-30, f["anchor_p"]
    cross = (p * (torch.log(p.clamp(min=tiny)) - logp)).sum(1)
    mass_k = (logp.exp() * (p / p.clamp(min=tiny))).sum(1)
    kl = wmean(cross + torch.log((mass_k + 1 - p.sum(1)).clamp(min=tiny)), w)
    rl = rl + kl * f["kl_coef"].sum()
    return ce * f["coef"][0] + rl * f["coef"][1]


def agent_policy_feeds(g, c=AGENT_POLICY):
    """Random inputs drawn as policyReference.ts draws them (same distributions, not the same values)."""
    n = c["rl_rows"] + c["il_rows"]
    parts = [torch.randn(n, c["own"], generator=g)]
    for count, feat in (c["agent"], c["lane"], c["edge"]):
        valid = (torch.rand(n, count, 1, generator=g) < c["valid_share"]).float()
        feats = torch.cat([torch.ones(n, count, 1), torch.randn(n, count, feat - 1, generator=g)], 2)
        parts.append((feats * valid).reshape(n, count * feat))
    rl = (torch.arange(n) < c["rl_rows"]).float()
    top = torch.rand(n, c["actions"], generator=g).argsort(1)[:, : c["anchor_top_k"]]
    w = 0.1 + torch.rand(n, c["anchor_top_k"], generator=g)
    anchor = torch.zeros(n, c["actions"]).scatter(1, top, w / w.sum(1, keepdim=True)) * rl[:, None]
    return dict(
        obs=torch.cat(parts, 1),
        action=torch.randint(0, c["actions"], (n,), generator=g),
        il_weight=1 - rl,
        rl_weight=rl,
        old_logp=-5.8 + 0.5 * torch.randn(n, generator=g),
        advantage=torch.randn(n, generator=g),
        **{"return": torch.randn(n, generator=g)},
        coef=torch.tensor(c["coef"]),
        anchor_p=anchor,
        kl_coef=torch.tensor([c["kl_coef"]]),
    )


def read_safetensors(path):
    """Tensors of a safetensors file (8-byte header length, JSON header, raw little-endian data)."""
    import numpy as np

    raw = open(path, "rb").read()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8 : 8 + n])
    types = {"F32": np.float32, "F64": np.float64, "I32": np.int32, "I64": np.int64}
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        a, b = t["data_offsets"]
        data = np.frombuffer(raw[8 + n + a : 8 + n + b], dtype=types[t["dtype"]]).reshape(t["shape"])
        out[name] = torch.from_numpy(data.copy())
    return out


def check_policy(path):
    """Loss and gradient norm of AgentPolicy on drivekit's weights and inputs (param/<name>, feed/<name>)."""
    t = read_safetensors(path)
    m = AgentPolicy()
    with torch.no_grad():
        for name, p in m.named_parameters():
            w = t["param/" + name]
            p.copy_(w.t() if name.endswith("weight") else w)
    feeds = {k[5:]: v for k, v in t.items() if k.startswith("feed/")}
    loss = agent_policy_loss(m, feeds)
    loss.backward()
    norm = torch.sqrt(sum((p.grad.double() ** 2).sum() for p in m.parameters()))
    return {"name": "pytorch_check_policy", "loss": loss.item(), "grad_norm": norm.item()}


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
    if name == "policy":
        m = AgentPolicy()
        feeds = agent_policy_feeds(g)
        return m, lambda: agent_policy_loss(m, feeds)
    if name == "lidar_tokenizer":
        m = LidarTokenizer()
        feeds = lidar_tokenizer_feeds(g)
        return m, lambda: m(feeds)
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
    weighted = (tnn.Linear, tnn.Conv2d, tnn.ConvTranspose2d)
    decay = [mod.weight for mod in m.modules() if isinstance(mod, weighted)]
    rest = [p for n, p in m.named_parameters() if not any(p is q for q in decay)]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 1e-4}, {"params": rest, "weight_decay": 0}], lr=1e-3)

    def step():
        opt.zero_grad(set_to_none=True)
        l = loss_fn()
        l.backward()
        if getattr(m, "clip_grad_norm", None):
            tnn.utils.clip_grad_norm_(m.parameters(), m.clip_grad_norm)
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
    if sys.argv[1:2] == ["--check-policy"]:
        print(json.dumps(check_policy(sys.argv[2])), flush=True)
        sys.exit(0)
    for name in sys.argv[1:] or ["bev_unet", "token_transformer", "policy_mlp", "lidar_tokenizer", "policy"]:
        print(json.dumps(bench(name)), flush=True)
