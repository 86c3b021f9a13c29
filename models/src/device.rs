//! Device and numeric precision selection.
//!
//! Kept as small serde-friendly enums so that run configurations can say `"auto"`,
//! `"cpu"` or `"cuda:1"` and `"f32"`/`"bf16"`/`"auto"` and the code resolves them once.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use tch::{Device, Kind};

/// Where a network runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum DeviceChoice {
    /// The first CUDA device when libtorch sees one, else the CPU.
    #[default]
    Auto,
    Cpu,
    /// A CUDA device by ordinal.
    Cuda(usize),
}

/// Why a device or precision request cannot be honoured.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeviceError {
    #[error("unknown device `{0}` (expected auto, cpu, cuda or cuda:N)")]
    Parse(String),
    #[error("unknown precision `{0}` (expected auto, f32 or bf16)")]
    ParsePrecision(String),
    #[error("CUDA device {requested} requested but libtorch sees {available} CUDA device(s)")]
    CudaUnavailable { requested: usize, available: usize },
}

impl DeviceChoice {
    /// Resolves the choice against the machine. Asking for a CUDA device that is not
    /// there is an error rather than a silent fallback to a 100x slower CPU run.
    pub fn resolve(self) -> Result<Device, DeviceError> {
        match self {
            DeviceChoice::Auto => Ok(Device::cuda_if_available()),
            DeviceChoice::Cpu => Ok(Device::Cpu),
            DeviceChoice::Cuda(i) => {
                let available = cuda_device_count();
                if i < available {
                    Ok(Device::Cuda(i))
                } else {
                    Err(DeviceError::CudaUnavailable { requested: i, available })
                }
            }
        }
    }
}

/// Number of CUDA devices libtorch can use (0 when the CUDA library was not linked:
/// see `build.rs` for why binaries must link `libtorch_cuda.so` explicitly).
pub fn cuda_device_count() -> usize {
    if tch::Cuda::is_available() {
        usize::try_from(tch::Cuda::device_count()).unwrap_or(0)
    } else {
        0
    }
}

impl FromStr for DeviceChoice {
    type Err = DeviceError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(DeviceChoice::Auto),
            "cpu" => Ok(DeviceChoice::Cpu),
            "cuda" | "gpu" => Ok(DeviceChoice::Cuda(0)),
            other => other
                .strip_prefix("cuda:")
                .and_then(|n| n.parse().ok())
                .map(DeviceChoice::Cuda)
                .ok_or_else(|| DeviceError::Parse(s.to_string())),
        }
    }
}

impl fmt::Display for DeviceChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceChoice::Auto => f.write_str("auto"),
            DeviceChoice::Cpu => f.write_str("cpu"),
            DeviceChoice::Cuda(i) => write!(f, "cuda:{i}"),
        }
    }
}

impl TryFrom<String> for DeviceChoice {
    type Error = DeviceError;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

impl From<DeviceChoice> for String {
    fn from(d: DeviceChoice) -> String {
        d.to_string()
    }
}

/// Numeric precision of the weights and activations for inference.
///
/// Training keeps fp32 weights (bf16 training on CPU was unusably slow, and fp32 master
/// weights are the safe default on GPU); bf16 is an inference-time cast.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Precision {
    /// bf16 on CUDA (roughly 1.6x the throughput on an H200), fp32 on CPU.
    #[default]
    Auto,
    F32,
    Bf16,
}

impl Precision {
    /// The concrete precision for a device (never `Auto`).
    pub fn resolve(self, device: Device) -> Precision {
        match self {
            Precision::Auto if device.is_cuda() => Precision::Bf16,
            Precision::Auto => Precision::F32,
            p => p,
        }
    }

    /// The libtorch element kind for weights and inputs.
    pub fn kind(self, device: Device) -> Kind {
        match self.resolve(device) {
            Precision::Bf16 => Kind::BFloat16,
            _ => Kind::Float,
        }
    }
}

impl FromStr for Precision {
    type Err = DeviceError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(Precision::Auto),
            "f32" | "fp32" | "float" => Ok(Precision::F32),
            "bf16" | "bfloat16" => Ok(Precision::Bf16),
            _ => Err(DeviceError::ParsePrecision(s.to_string())),
        }
    }
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Precision::Auto => "auto",
            Precision::F32 => "f32",
            Precision::Bf16 => "bf16",
        })
    }
}

impl TryFrom<String> for Precision {
    type Error = DeviceError;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

impl From<Precision> for String {
    fn from(p: Precision) -> String {
        p.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_display() {
        for s in ["auto", "cpu", "cuda:0", "cuda:3"] {
            assert_eq!(s.parse::<DeviceChoice>().unwrap().to_string(), s);
        }
        assert_eq!("cuda".parse::<DeviceChoice>().unwrap(), DeviceChoice::Cuda(0));
        assert!("tpu".parse::<DeviceChoice>().is_err());
        assert_eq!("bf16".parse::<Precision>().unwrap(), Precision::Bf16);
        assert!("fp8".parse::<Precision>().is_err());
        let d: DeviceChoice = serde_json::from_str("\"cpu\"").unwrap();
        assert_eq!(d, DeviceChoice::Cpu);
    }

    #[test]
    fn resolve() {
        assert_eq!(DeviceChoice::Cpu.resolve().unwrap(), Device::Cpu);
        let missing = cuda_device_count() + 1;
        assert!(matches!(DeviceChoice::Cuda(missing).resolve(), Err(DeviceError::CudaUnavailable { .. })));
        assert_eq!(Precision::Auto.resolve(Device::Cpu), Precision::F32);
        assert_eq!(Precision::Auto.resolve(Device::Cuda(0)), Precision::Bf16);
    }
}
