//! Process-wide libtorch settings: threads and devices, and the `ddz info` report.

use serde::Serialize;

/// libtorch's version, read from the PyTorch package at build time.
pub const LIBTORCH_VERSION: &str = env!("DDZ_LIBTORCH_VERSION");

/// Sets libtorch's intra-op and inter-op thread pools. Called once at start-up: with several
/// actor threads each running small networks, libtorch's default (one thread per core in every
/// caller) oversubscribes the cores, so actors run with 1 and only the learner may use more.
pub fn configure_threads(intra_op: i32) {
    tch::set_num_threads(intra_op.max(1));
    // Inter-op threads can only be set once, before any parallel work; ignore a second call.
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| tch::set_num_interop_threads(1));
}

/// Parses `auto`, `cpu`, `cuda` or `cuda:N`.
pub fn parse_device(text: &str) -> Result<tch::Device, String> {
    match text.trim() {
        "auto" => Ok(tch::Device::cuda_if_available()),
        "cpu" => Ok(tch::Device::Cpu),
        "cuda" => cuda(0),
        other => match other.strip_prefix("cuda:").map(str::parse::<usize>) {
            Some(Ok(n)) => cuda(n),
            _ => Err(format!("unknown device {other:?}: use auto, cpu, cuda or cuda:N")),
        },
    }
}

fn cuda(n: usize) -> Result<tch::Device, String> {
    let count = tch::Cuda::device_count() as usize;
    if n < count {
        Ok(tch::Device::Cuda(n))
    } else {
        Err(format!("cuda:{n} requested but {count} CUDA device(s) are available"))
    }
}

#[derive(Debug, Serialize)]
pub struct Info {
    pub ddz_version: &'static str,
    pub libtorch_version: &'static str,
    pub cuda_available: bool,
    pub cuda_devices: i64,
    pub cudnn_available: bool,
    pub intra_op_threads: i32,
    pub cores: usize,
    pub link_check: String,
}

/// Gathers the report and proves the link by running a small computation.
pub fn info() -> Info {
    let a = tch::Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0]).reshape([2, 2]);
    let b = a.matmul(&a).sum(tch::Kind::Float).double_value(&[]);
    Info {
        ddz_version: env!("CARGO_PKG_VERSION"),
        libtorch_version: LIBTORCH_VERSION,
        cuda_available: tch::Cuda::is_available(),
        cuda_devices: tch::Cuda::device_count(),
        cudnn_available: tch::Cuda::cudnn_is_available(),
        intra_op_threads: tch::get_num_threads(),
        cores: std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        link_check: format!("sum([[1,2],[3,4]]²) = {b} (expected 54)"),
    }
}
