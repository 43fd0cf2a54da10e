//! The arithmetic: one dense layer over rows of inputs, two ways.
//!
//! - **Sparse rows**: each output row starts at the bias and adds, for every non-zero input,
//!   that input's row of the transposed weights. A state row has about 69 of its 1,339
//!   features set and a play row about 15 of 249, so the first layers read a twentieth of their
//!   weights (the trick of chess NNUE engines); after a ReLU about half the inputs are zero, so
//!   hidden layers at one or a few rows gain too.
//! - **Dense rows**: `matrixmultiply`'s sgemm, for the hidden layers over many rows (a
//!   decision's plays, the trainer's batches), where a blocked product beats skipping zeros.
//!
//! Weights are stored transposed (`[inputs][outputs]`), so both read them in row order.
//!
//! `f32::mul_add` is a fused instruction only where the CPU has FMA and the code is compiled
//! for it; elsewhere it is a slow library call. So the sparse kernel is written once over
//! [`Arith`] and compiled twice: with AVX2 and FMA enabled (chosen at run time when the CPU has
//! them) and plainly. sgemm makes the same choice inside `matrixmultiply`.

/// Which build of the kernels runs: found once per network from the CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// AVX2 with fused multiply-add.
    Fma,
    /// Whatever the target's baseline is (SSE2 on x86_64).
    Plain,
}

impl Kernel {
    /// The fastest build this CPU runs.
    pub fn detect() -> Kernel {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
            return Kernel::Fma;
        }
        Kernel::Plain
    }
}

/// Rows from which a layer's product goes to a dense kernel rather than the sparse loop:
/// measured on the shipped networks' hidden layers (docs/inference.md); the first layers always
/// go sparse.
pub const DENSE_FROM_ROWS: usize = 6;

/// Multiply-adds (rows × inputs × outputs) from which sgemm beats the blocked kernel (its
/// packing of the weights is then a small part of the work).
pub const SGEMM_FROM: usize = 8_000_000;

/// Multiply-add, fused or not.
trait Arith {
    fn mul_add(a: f32, b: f32, c: f32) -> f32;
}

struct Fused;
impl Arith for Fused {
    #[inline(always)]
    fn mul_add(a: f32, b: f32, c: f32) -> f32 {
        a.mul_add(b, c)
    }
}

struct Unfused;
impl Arith for Unfused {
    #[inline(always)]
    fn mul_add(a: f32, b: f32, c: f32) -> f32 {
        a * b + c
    }
}

/// Rows of inputs: `rows` rows, `stride` floats apart, of which a layer reads the first
/// `ins`.
#[derive(Clone, Copy)]
struct Rows<'a> {
    x: &'a [f32],
    stride: usize,
    rows: usize,
}

/// Outputs summed in one pass over a row's non-zero inputs: 64 floats are 8 AVX registers,
/// so the sums stay in registers while the weight rows stream by, and each output is stored
/// once per row rather than once per input.
const TILE: usize = 64;

/// `out[r] = bias + Σ_i x[r][i] · w[i]` for each row `r`, skipping zero inputs; without a bias
/// the rows start at zero, or with `add` at what `out` holds (and a bias is added to it).
#[inline(always)]
fn sparse_rows_body<A: Arith>(input: Rows, layer: &Linear, add: bool, out: &mut [f32]) {
    let (ins, outs) = (layer.ins, layer.outs);
    let mut set: Vec<(usize, f32)> = Vec::with_capacity(ins);
    for r in 0..input.rows {
        let o = &mut out[r * outs..(r + 1) * outs];
        match (&layer.bias, add) {
            (Some(b), false) => o.copy_from_slice(b),
            (Some(b), true) => o.iter_mut().zip(b).for_each(|(o, b)| *o += b),
            (None, false) => o.fill(0.0),
            (None, true) => {}
        }
        let row = &input.x[r * input.stride..r * input.stride + ins];
        non_zero(row, &mut set);
        let mut tiles = o.chunks_exact_mut(TILE);
        for (t, tile) in (&mut tiles).enumerate() {
            let mut acc = [0.0f32; TILE];
            acc.copy_from_slice(tile);
            for &(i, v) in &set {
                let w: &[f32; TILE] = layer.w[i * outs + t * TILE..][..TILE].try_into().expect("a whole tile");
                for j in 0..TILE {
                    acc[j] = A::mul_add(v, w[j], acc[j]);
                }
            }
            tile.copy_from_slice(&acc);
        }
        let rest = tiles.into_remainder();
        let from = outs - rest.len();
        for &(i, v) in &set {
            for (o, &wv) in rest.iter_mut().zip(&layer.w[i * outs + from..(i + 1) * outs]) {
                *o = A::mul_add(v, wv, *o);
            }
        }
    }
}

/// The non-zero inputs of `row` and their positions into `set`, found eight at a time: a mask
/// of the eight comparisons (one vector compare), then its set bits, so that the blocks of
/// zeros that make up most of a state's features cost one test each.
#[inline(always)]
fn non_zero(row: &[f32], set: &mut Vec<(usize, f32)>) {
    set.clear();
    let mut blocks = row.chunks_exact(8);
    for (k, block) in (&mut blocks).enumerate() {
        let block: &[f32; 8] = block.try_into().expect("eight");
        let mut mask = 0u32;
        for (j, &v) in block.iter().enumerate() {
            mask |= ((v != 0.0) as u32) << j;
        }
        while mask != 0 {
            let j = mask.trailing_zeros() as usize;
            set.push((k * 8 + j, block[j]));
            mask &= mask - 1;
        }
    }
    let tail = row.len() - blocks.remainder().len();
    set.extend(blocks.remainder().iter().enumerate().filter(|(_, v)| **v != 0.0).map(|(j, &v)| (tail + j, v)));
}

/// `out[r] = bias + x[r] · w` for layers of one output (the Q and points heads).
#[inline(always)]
fn dot_rows_body<A: Arith>(input: Rows, layer: &Linear, out: &mut [f32]) {
    let bias = layer.bias.as_ref().map_or(0.0, |b| b[0]);
    for (r, o) in out.iter_mut().enumerate().take(input.rows) {
        let row = &input.x[r * input.stride..r * input.stride + layer.ins];
        let mut lanes = [0.0f32; 8];
        let mut blocks = row.chunks_exact(8).zip(layer.w.chunks_exact(8));
        for (x, w) in &mut blocks {
            for j in 0..8 {
                lanes[j] = A::mul_add(x[j], w[j], lanes[j]);
            }
        }
        let tail = row.len() / 8 * 8;
        let mut sum: f32 = lanes.iter().sum();
        for (x, w) in row[tail..].iter().zip(&layer.w[tail..]) {
            sum = A::mul_add(*x, *w, sum);
        }
        *o = bias + sum;
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn dot_rows_fma(input: Rows, layer: &Linear, out: &mut [f32]) {
    dot_rows_body::<Fused>(input, layer, out)
}

fn dot_rows_plain(input: Rows, layer: &Linear, out: &mut [f32]) {
    dot_rows_body::<Unfused>(input, layer, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn sparse_rows_fma(input: Rows, layer: &Linear, add: bool, out: &mut [f32]) {
    sparse_rows_body::<Fused>(input, layer, add, out)
}

fn sparse_rows_plain(input: Rows, layer: &Linear, add: bool, out: &mut [f32]) {
    sparse_rows_body::<Unfused>(input, layer, add, out)
}

/// Rows and outputs of the blocked dense kernel's block: 6 × 16 sums are 12 AVX registers,
/// which with two weight loads and a broadcast fit the 16 there are.
const BLOCK_ROWS: usize = 6;
const BLOCK_OUTS: usize = 16;

/// `out[r] += x[r] · W` for `MR` rows from `r0`, outputs `j0..j0 + BLOCK_OUTS`: the weights
/// are read in place (row `i` of the transposed weights holds what input `i` adds), so that
/// nothing is packed per call as a general sgemm packs.
#[inline(always)]
fn dense_block<A: Arith, const MR: usize>(x: &[f32], layer: &Linear, r0: usize, j0: usize, out: &mut [f32]) {
    let (k, n) = (layer.ins, layer.outs);
    let mut acc = [[0.0f32; BLOCK_OUTS]; MR];
    for (r, a) in acc.iter_mut().enumerate() {
        a.copy_from_slice(&out[(r0 + r) * n + j0..][..BLOCK_OUTS]);
    }
    let rows: [&[f32]; MR] = std::array::from_fn(|r| &x[(r0 + r) * k..(r0 + r + 1) * k]);
    for (i, w_row) in layer.w.chunks_exact(n).enumerate() {
        let w: &[f32; BLOCK_OUTS] = w_row[j0..j0 + BLOCK_OUTS].try_into().expect("a whole block");
        for (r, row) in rows.iter().enumerate() {
            let v = row[i];
            for j in 0..BLOCK_OUTS {
                acc[r][j] = A::mul_add(v, w[j], acc[r][j]);
            }
        }
    }
    for (r, a) in acc.iter().enumerate() {
        out[(r0 + r) * n + j0..][..BLOCK_OUTS].copy_from_slice(a);
    }
}

/// `out = bias + x · W` over `rows` contiguous rows by [`dense_block`]s; outputs past the last
/// whole block of 16 by a plain loop.
#[inline(always)]
fn dense_rows_body<A: Arith>(x: &[f32], rows: usize, layer: &Linear, out: &mut [f32]) {
    let (k, n) = (layer.ins, layer.outs);
    for o in out[..rows * n].chunks_exact_mut(n) {
        match &layer.bias {
            Some(b) => o.copy_from_slice(b),
            None => o.fill(0.0),
        }
    }
    let whole = n / BLOCK_OUTS * BLOCK_OUTS;
    for j0 in (0..whole).step_by(BLOCK_OUTS) {
        let mut r0 = 0;
        while r0 + BLOCK_ROWS <= rows {
            dense_block::<A, BLOCK_ROWS>(x, layer, r0, j0, out);
            r0 += BLOCK_ROWS;
        }
        while r0 + 2 <= rows {
            dense_block::<A, 2>(x, layer, r0, j0, out);
            r0 += 2;
        }
        if r0 < rows {
            dense_block::<A, 1>(x, layer, r0, j0, out);
        }
    }
    if whole < n {
        for r in 0..rows {
            for i in 0..k {
                let v = x[r * k + i];
                for j in whole..n {
                    out[r * n + j] = A::mul_add(v, layer.w[i * n + j], out[r * n + j]);
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn dense_rows_fma(x: &[f32], rows: usize, layer: &Linear, out: &mut [f32]) {
    dense_rows_body::<Fused>(x, rows, layer, out)
}

fn dense_rows_plain(x: &[f32], rows: usize, layer: &Linear, out: &mut [f32]) {
    dense_rows_body::<Unfused>(x, rows, layer, out)
}

/// A dense layer: `outs` outputs of `ins` inputs, weights transposed, an optional bias.
#[derive(Clone, Debug)]
pub struct Linear {
    /// Inputs read.
    pub ins: usize,
    /// Outputs written.
    pub outs: usize,
    /// `[ins][outs]`: row `i` is what input `i` adds to the outputs.
    pub w: Vec<f32>,
    /// The bias, `outs` long; `None` for a layer without one.
    pub bias: Option<Vec<f32>>,
}

impl Linear {
    /// A layer from libtorch's layout: `weight` as `[outs][ins]` (row-major), `bias` `outs` long.
    pub fn from_torch(weight: &[f32], ins: usize, outs: usize, bias: Option<&[f32]>) -> Linear {
        assert_eq!(weight.len(), ins * outs, "a weight of {outs} x {ins}");
        let mut w = vec![0.0; ins * outs];
        for o in 0..outs {
            for i in 0..ins {
                w[i * outs + o] = weight[o * ins + i];
            }
        }
        Linear { ins, outs, w, bias: bias.map(<[f32]>::to_vec) }
    }

    /// The layer over `rows` rows of `x` (each `stride` floats apart, the first `ins` read) into
    /// `out` (`rows × outs`), by the sparse loop; with `add`, added to what `out` holds.
    pub fn sparse(&self, kernel: Kernel, x: &[f32], stride: usize, rows: usize, add: bool, out: &mut [f32]) {
        assert!(stride >= self.ins && (rows == 0 || x.len() >= (rows - 1) * stride + self.ins));
        assert!(out.len() >= rows * self.outs);
        let input = Rows { x, stride, rows };
        match kernel {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Kernel::Fma` is only chosen when the CPU has AVX2 and FMA.
            Kernel::Fma => unsafe { sparse_rows_fma(input, self, add, out) },
            _ => sparse_rows_plain(input, self, add, out),
        }
    }

    /// The layer over `rows` contiguous rows of `x` (`rows × ins`) into `out` (`rows × outs`),
    /// by whichever way is fastest there (measured: docs/inference.md): a dot product for one
    /// output, the sparse loop below [`DENSE_FROM_ROWS`] rows (a ReLU's zeros are skipped), the
    /// blocked kernel up to [`SGEMM_FROM`], sgemm past it (its packing pays off only there).
    pub fn rows(&self, kernel: Kernel, x: &[f32], rows: usize, out: &mut [f32]) {
        if self.outs == 1 {
            assert!(x.len() >= rows * self.ins && out.len() >= rows);
            let input = Rows { x, stride: self.ins, rows };
            return match kernel {
                #[cfg(target_arch = "x86_64")]
                // SAFETY: `Kernel::Fma` is only chosen when the CPU has AVX2 and FMA.
                Kernel::Fma => unsafe { dot_rows_fma(input, self, out) },
                _ => dot_rows_plain(input, self, out),
            };
        }
        if rows < DENSE_FROM_ROWS {
            return self.sparse(kernel, x, self.ins, rows, false, out);
        }
        if rows * self.ins * self.outs >= SGEMM_FROM {
            return self.dense(x, rows, out);
        }
        self.blocked(kernel, x, rows, out)
    }

    /// [`Linear::rows`] always by the blocked kernel (no packing).
    pub fn blocked(&self, kernel: Kernel, x: &[f32], rows: usize, out: &mut [f32]) {
        assert!(x.len() >= rows * self.ins && out.len() >= rows * self.outs);
        match kernel {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Kernel::Fma` is only chosen when the CPU has AVX2 and FMA.
            Kernel::Fma => unsafe { dense_rows_fma(x, rows, self, out) },
            _ => dense_rows_plain(x, rows, self, out),
        }
    }

    /// [`Linear::rows`] always by sgemm.
    pub fn dense(&self, x: &[f32], rows: usize, out: &mut [f32]) {
        let (k, n) = (self.ins, self.outs);
        assert!(x.len() >= rows * k && out.len() >= rows * n);
        let beta = match &self.bias {
            Some(b) => {
                out[..rows * n].chunks_exact_mut(n).for_each(|o| o.copy_from_slice(b));
                1.0
            }
            None => 0.0,
        };
        // SAFETY: the asserts above keep every row of x, w and out inside its slice; the
        // strides are those of row-major [rows × k], [k × n] and [rows × n].
        unsafe {
            matrixmultiply::sgemm(
                rows,
                k,
                n,
                1.0,
                x.as_ptr(),
                k as isize,
                1,
                self.w.as_ptr(),
                n as isize,
                1,
                beta,
                out.as_mut_ptr(),
                n as isize,
                1,
            );
        }
    }
}

/// A one-layer LSTM (libtorch's gate order: input, forget, cell, output), run from a zero
/// state over a few steps; only its last output is kept.
#[derive(Clone, Debug)]
pub struct Lstm {
    /// The gates from a step's input, with both of libtorch's biases summed into one.
    input: Linear,
    /// The gates from the previous output.
    recurrent: Linear,
    /// Width of the state and the output.
    pub hidden: usize,
}

impl Lstm {
    /// An LSTM from libtorch's tensors: `weight_ih` `[4h][x]`, `weight_hh` `[4h][h]` and the
    /// two biases `[4h]`.
    pub fn from_torch(weight_ih: &[f32], weight_hh: &[f32], bias_ih: &[f32], bias_hh: &[f32], hidden: usize) -> Lstm {
        let x = weight_ih.len() / (4 * hidden);
        let bias: Vec<f32> = bias_ih.iter().zip(bias_hh).map(|(a, b)| a + b).collect();
        Lstm {
            input: Linear::from_torch(weight_ih, x, 4 * hidden, Some(&bias)),
            recurrent: Linear::from_torch(weight_hh, hidden, 4 * hidden, None),
            hidden,
        }
    }

    /// Width of a step's input.
    pub fn inputs(&self) -> usize {
        self.input.ins
    }

    /// The last output after reading `steps` inputs in order (each [`Lstm::inputs`] wide),
    /// into `out` (`hidden` wide).
    pub fn last_output<'a>(&self, kernel: Kernel, steps: impl IntoIterator<Item = &'a [f32]>, out: &mut [f32]) {
        let h = self.hidden;
        let (mut state, mut gates) = (vec![0.0f32; h], vec![0.0f32; 4 * h]);
        out[..h].fill(0.0);
        for x in steps {
            self.input.sparse(kernel, x, x.len(), 1, false, &mut gates);
            self.recurrent.sparse(kernel, out, h, 1, true, &mut gates);
            for j in 0..h {
                let i = sigmoid(gates[j]);
                let f = sigmoid(gates[h + j]);
                let g = gates[2 * h + j].tanh();
                let o = sigmoid(gates[3 * h + j]);
                state[j] = f * state[j] + i * g;
                out[j] = o * state[j].tanh();
            }
        }
    }
}

/// ReLU in place.
pub fn relu(x: &mut [f32]) {
    x.iter_mut().for_each(|v| *v = v.max(0.0));
}

/// The logistic function.
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(l: &Linear, x: &[f32], rows: usize) -> Vec<f32> {
        let mut out = vec![0.0f32; rows * l.outs];
        for r in 0..rows {
            for o in 0..l.outs {
                let mut s = l.bias.as_ref().map_or(0.0, |b| b[o]) as f64;
                for i in 0..l.ins {
                    s += x[r * l.ins + i] as f64 * l.w[i * l.outs + o] as f64;
                }
                out[r * l.outs + o] = s as f32;
            }
        }
        out
    }

    #[test]
    fn every_kernel_computes_the_same_layer() {
        // One output (the dot product), fewer than a tile, and tiles with a remainder.
        for (ins, outs) in [(37, 19), (37, 1), (45, 150)] {
            one_layer(ins, outs);
        }
    }

    fn one_layer(ins: usize, outs: usize) {
        let weight: Vec<f32> = (0..ins * outs).map(|i| ((i * 7919) % 101) as f32 / 50.0 - 1.0).collect();
        let bias: Vec<f32> = (0..outs).map(|i| i as f32 / 10.0).collect();
        for with_bias in [true, false] {
            let l = Linear::from_torch(&weight, ins, outs, with_bias.then_some(bias.as_slice()));
            for rows in [1, 3, DENSE_FROM_ROWS, 20] {
                let x: Vec<f32> = (0..rows * ins)
                    .map(|i| if i.is_multiple_of(3) { ((i * 31) % 17) as f32 / 8.0 - 1.0 } else { 0.0 })
                    .collect();
                let want = naive(&l, &x, rows);
                let mut outs_of = Vec::new();
                for kernel in [Kernel::detect(), Kernel::Plain] {
                    let mut out = vec![9.0; rows * outs];
                    l.sparse(kernel, &x, ins, rows, false, &mut out);
                    outs_of.push(out);
                }
                let mut out = vec![9.0; rows * outs];
                l.dense(&x, rows, &mut out);
                outs_of.push(out);
                for kernel in [Kernel::detect(), Kernel::Plain] {
                    let mut out = vec![9.0; rows * outs];
                    l.blocked(kernel, &x, rows, &mut out);
                    outs_of.push(out);
                }
                let mut out = vec![9.0; rows * outs];
                l.rows(Kernel::detect(), &x, rows, &mut out);
                outs_of.push(out);
                for got in outs_of {
                    for (g, w) in got.iter().zip(&want) {
                        assert!((g - w).abs() < 1e-5, "{ins} x {outs}, rows {rows}, bias {with_bias}: {g} vs {w}");
                    }
                }
            }
        }
    }
}
