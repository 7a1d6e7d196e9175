"""The kernels of Triton's tutorials, written with tinycomp's tile DSL (shared by the
tests and the benchmarks): vector add, fused softmax, layernorm forward, matmul with
grouped program order, and the FlashAttention forward pass.

>>> import numpy as np
>>> x, y = np.arange(5, dtype=np.float32), np.ones(5, np.float32)
>>> out = np.zeros(5, np.float32)
>>> add_kernel[(1,)](x, y, out, 5, BLOCK=8)
>>> out.tolist()
[1.0, 2.0, 3.0, 4.0, 5.0]
"""

from tinycomp import tile


@tile.kernel
def add_kernel(x, y, out, n, BLOCK: tile.constexpr):
    pid = tile.program_id(0)
    offs = pid * BLOCK + tile.arange(0, BLOCK)
    mask = offs < n
    a = tile.load(x + offs, mask=mask, other=0.0)
    b = tile.load(y + offs, mask=mask, other=0.0)
    tile.store(out + offs, a + b, mask=mask)


@tile.kernel
def softmax_kernel(
    output_ptr,
    input_ptr,
    input_row_stride,
    output_row_stride,
    n_cols,
    BLOCK_SIZE: tile.constexpr,
):
    row_idx = tile.program_id(0)
    row_start_ptr = input_ptr + row_idx * input_row_stride
    col_offsets = tile.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols
    row = tile.load(row_start_ptr + col_offsets, mask=mask, other=-float("inf"))
    row_minus_max = row - tile.max(row, axis=0)
    numerator = tile.exp(row_minus_max)
    denominator = tile.sum(numerator, axis=0)
    softmax_output = numerator / denominator
    output_row_start_ptr = output_ptr + row_idx * output_row_stride
    tile.store(output_row_start_ptr + col_offsets, softmax_output, mask=mask)


@tile.kernel
def layer_norm_fwd(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tile.constexpr):
    row = tile.program_id(0)
    Y += row * stride
    X += row * stride
    _mean = tile.zeros([BLOCK_SIZE], dtype=tile.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tile.arange(0, BLOCK_SIZE)
        a = tile.load(X + cols, mask=cols < N, other=0.0).to(tile.float32)
        _mean += a
    mean = tile.sum(_mean, axis=0) / N
    _var = tile.zeros([BLOCK_SIZE], dtype=tile.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tile.arange(0, BLOCK_SIZE)
        x = tile.load(X + cols, mask=cols < N, other=0.0).to(tile.float32)
        x = tile.where(cols < N, x - mean, 0.0)
        _var += x * x
    var = tile.sum(_var, axis=0) / N
    rstd = 1 / tile.sqrt(var + eps)
    tile.store(Mean + row, mean)
    tile.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tile.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tile.load(W + cols, mask=mask)
        b = tile.load(B + cols, mask=mask)
        x = tile.load(X + cols, mask=mask, other=0.0).to(tile.float32)
        x_hat = (x - mean) * rstd
        y = x_hat * w + b
        tile.store(Y + cols, y, mask=mask)


@tile.kernel
def matmul_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    stride_am,
    stride_ak,
    stride_bk,
    stride_bn,
    stride_cm,
    stride_cn,
    BLOCK_SIZE_M: tile.constexpr,
    BLOCK_SIZE_N: tile.constexpr,
    BLOCK_SIZE_K: tile.constexpr,
    GROUP_SIZE_M: tile.constexpr,
):
    pid = tile.program_id(axis=0)
    num_pid_m = tile.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tile.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_SIZE_M + tile.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tile.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tile.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tile.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tile.float32)
    for k in range(0, tile.cdiv(K, BLOCK_SIZE_K)):
        a = tile.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tile.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tile.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c = accumulator.to(c_ptr.dtype)
    offs_cm = pid_m * BLOCK_SIZE_M + tile.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tile.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tile.store(c_ptrs, c, mask=c_mask)


@tile.kernel
def attention_fwd(
    Q,
    K,
    V,
    Out,
    seq_len,
    stride_m,
    head_stride,
    sm_scale,
    HEAD_DIM: tile.constexpr,
    BLOCK_M: tile.constexpr,
    BLOCK_N: tile.constexpr,
):
    start_m = tile.program_id(0)
    base = tile.program_id(1) * head_stride
    offs_m = start_m * BLOCK_M + tile.arange(0, BLOCK_M)
    offs_n = tile.arange(0, BLOCK_N)
    offs_d = tile.arange(0, HEAD_DIM)
    rows = offs_m[:, None] < seq_len
    q = tile.load(Q + base + offs_m[:, None] * stride_m + offs_d[None, :], mask=rows, other=0.0)
    m_i = tile.full((BLOCK_M,), -float("inf"), tile.float32)
    l_i = tile.zeros((BLOCK_M,), tile.float32)
    acc = tile.zeros((BLOCK_M, HEAD_DIM), tile.float32)
    for start_n in range(0, seq_len, BLOCK_N):
        cols = start_n + offs_n
        k_ptrs = K + base + cols[None, :] * stride_m + offs_d[:, None]
        k = tile.load(k_ptrs, mask=cols[None, :] < seq_len, other=0.0)
        qk = tile.dot(q, k) * sm_scale
        qk = tile.where(cols[None, :] < seq_len, qk, -float("inf"))
        m_ij = tile.maximum(m_i, tile.max(qk, 1))
        p = tile.exp(qk - m_ij[:, None])
        alpha = tile.exp(m_i - m_ij)
        l_i = l_i * alpha + tile.sum(p, 1)
        v_ptrs = V + base + cols[:, None] * stride_m + offs_d[None, :]
        v = tile.load(v_ptrs, mask=cols[:, None] < seq_len, other=0.0)
        acc = tile.dot(p.to(v.dtype), v, acc * alpha[:, None])
        m_i = m_ij
    out = acc / l_i[:, None]
    tile.store(Out + base + offs_m[:, None] * stride_m + offs_d[None, :], out, mask=rows)
