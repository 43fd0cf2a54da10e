//! Process-wide libtorch settings: threads and devices, and the `ddz info` report.

use serde::{Deserialize, Serialize};
use std::fmt;

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

/// Where a network computes, as a config or the command line names it: `auto` (CUDA when
/// available), `cpu`, `cuda` (the first GPU) or `cuda:N`. Parsed once, where it is read; whether
/// the GPU exists is checked when a network is placed on it ([`Device::resolve`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Device {
    /// The first GPU when there is one, else the CPU (the default).
    #[default]
    Auto,
    /// The CPU.
    Cpu,
    /// The GPU of this index, counting from 0.
    Cuda(usize),
}

/// A device name that does not parse, or a GPU that is not there.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DeviceError {
    /// Not `auto`, `cpu`, `cuda` or `cuda:N`; holds the trimmed text.
    #[error("unknown device {0:?}: use auto, cpu, cuda or cuda:N")]
    Unknown(String),
    /// A GPU index beyond those this machine has.
    #[error("cuda:{requested} requested but {available} CUDA device(s) are available")]
    Unavailable {
        /// The index asked for.
        requested: usize,
        /// How many CUDA devices libtorch sees.
        available: usize,
    },
}

impl std::str::FromStr for Device {
    type Err = DeviceError;
    fn from_str(text: &str) -> Result<Device, DeviceError> {
        match text.trim() {
            "auto" => Ok(Device::Auto),
            "cpu" => Ok(Device::Cpu),
            "cuda" => Ok(Device::Cuda(0)),
            other => match other.strip_prefix("cuda:").map(str::parse::<usize>) {
                Some(Ok(n)) => Ok(Device::Cuda(n)),
                _ => Err(DeviceError::Unknown(other.to_string())),
            },
        }
    }
}

impl TryFrom<String> for Device {
    type Error = DeviceError;
    fn try_from(text: String) -> Result<Device, DeviceError> {
        text.parse()
    }
}

impl From<Device> for String {
    fn from(device: Device) -> String {
        device.to_string()
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Device::Auto => write!(f, "auto"),
            Device::Cpu => write!(f, "cpu"),
            Device::Cuda(n) => write!(f, "cuda:{n}"),
        }
    }
}

impl Device {
    /// The device to compute on: `auto` becomes the first GPU when there is one, else the CPU;
    /// a GPU that is not there is an error.
    pub fn resolve(self) -> Result<Device, DeviceError> {
        let available = tch::Cuda::device_count() as usize;
        match self {
            Device::Auto if available > 0 => Ok(Device::Cuda(0)),
            Device::Auto | Device::Cpu => Ok(Device::Cpu),
            Device::Cuda(n) if n < available => Ok(Device::Cuda(n)),
            Device::Cuda(n) => Err(DeviceError::Unavailable { requested: n, available }),
        }
    }

    /// libtorch's name of a resolved device (`auto` counts as the CPU: resolve it first).
    pub(crate) fn torch(self) -> tch::Device {
        match self {
            Device::Cuda(n) => tch::Device::Cuda(n),
            Device::Auto | Device::Cpu => tch::Device::Cpu,
        }
    }
}

/// The `ddz info` report: versions, devices and threads, and proof that libtorch links.
#[derive(Debug, Serialize)]
pub struct Info {
    /// This crate's version.
    pub ddz_version: &'static str,
    /// libtorch's version ([`LIBTORCH_VERSION`]).
    pub libtorch_version: &'static str,
    /// Whether libtorch can use CUDA.
    pub cuda_available: bool,
    /// How many CUDA devices libtorch sees.
    pub cuda_devices: i64,
    /// Whether libtorch can use cuDNN.
    pub cudnn_available: bool,
    /// libtorch's intra-op thread count at the time of the report.
    pub intra_op_threads: i32,
    /// The cores this process may use (1 if unknown).
    pub cores: usize,
    /// The result of a small matrix computation beside the value expected, as text.
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

#[cfg(test)]
mod tests {
    use super::Device;

    #[test]
    fn devices_parse_print_and_resolve() {
        assert_eq!("auto".parse::<Device>().unwrap(), Device::Auto);
        assert_eq!(" cpu ".parse::<Device>().unwrap(), Device::Cpu);
        assert_eq!("cuda".parse::<Device>().unwrap(), Device::Cuda(0));
        assert_eq!("cuda:3".parse::<Device>().unwrap(), Device::Cuda(3));
        for bad in ["gpu", "cuda:", "cuda:x", ""] {
            assert!(bad.parse::<Device>().unwrap_err().to_string().contains("auto, cpu, cuda"), "{bad}");
        }
        assert_eq!(Device::Cuda(2).to_string(), "cuda:2");
        assert_eq!(Device::Cpu.resolve().unwrap(), Device::Cpu);
        let gpus = tch::Cuda::device_count() as usize;
        assert!(Device::Cuda(gpus).resolve().unwrap_err().to_string().contains("requested"));
    }
}
