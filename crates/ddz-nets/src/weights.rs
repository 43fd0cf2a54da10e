//! Weights in host memory and on disk (safetensors), with loads that say exactly what is wrong.
//! No arithmetic and no libtorch: the trainer's networks export to and import from
//! [`Weights`], and this crate's networks are built from them.

use crate::config::FEATURE_LAYOUT;
pub use crate::config::ShapeMismatch;
use ddz_engine::error::Cause;
use std::path::{Path, PathBuf};

/// Why weights could not be saved or loaded.
#[derive(Debug, thiserror::Error)]
pub enum WeightsError {
    /// No file (or folder) at the path.
    #[error("checkpoint {0} does not exist")]
    NotFound(PathBuf),
    /// The file is not readable safetensors or holds values that are not finite (or a DouZero
    /// checkpoint could not be converted).
    #[error("checkpoint {path} is corrupt or not a safetensors file: {reason}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        #[source]
        reason: Cause,
    },
    /// The file's tensor names or shapes are not the network's.
    #[error("checkpoint {path} does not match this network: {reason}")]
    Mismatch {
        /// The file.
        path: PathBuf,
        /// What differs.
        #[source]
        reason: Cause,
    },
    /// Writing the file (or renaming it into place) failed.
    #[error("writing {path}: {reason}")]
    Write {
        /// The file that was being written.
        path: PathBuf,
        /// The I/O or libtorch error.
        #[source]
        reason: Cause,
    },
    /// Published weights (bytes from Redis) that do not read back.
    #[error("{0}")]
    Bytes(#[source] Cause),
}

/// What is wrong with the start of a safetensors file ([`check_header`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HeaderError {
    /// Fewer bytes than the header's length field.
    #[error("{0} bytes is too short")]
    TooShort(usize),
    /// A header length past the end of the file.
    #[error("header length {0} runs past the end of the file")]
    PastEnd(u64),
    /// A header that does not parse as JSON (the parser's message).
    #[error("header is not JSON: {0}")]
    NotJson(String),
    /// A header of JSON that is not an object.
    #[error("header is not a JSON object")]
    NotObject,
    /// A tensor entry without readable data offsets.
    #[error("{0}: no data_offsets, or bad ones")]
    Offsets(String),
    /// A tensor whose data runs past the end of the file.
    #[error("{0}: data runs past the end of the file (truncated?)")]
    Truncated(String),
}

/// Why a safetensors file's feature layout is refused ([`check_layout`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    /// The metadata does not read (the reader's message).
    #[error("unreadable metadata: {0}")]
    Unreadable(String),
    /// The file's network reads another layout.
    #[error("its network reads features of layout {0}; this ddz encodes {FEATURE_LAYOUT}")]
    Other(String),
}

/// The metadata key of the feature layout a weights file's network reads ([`FEATURE_LAYOUT`]):
/// written with every file, and a file of another layout is refused. Files from before it was
/// written hold no such key; their layout is told by their first layer's width.
pub const LAYOUT_KEY: &str = "ddz_feature_layout";

/// A snapshot of all weights, detached from any device or thread (tensors are not `Sync`).
#[derive(Clone, Debug, Default)]
pub struct Weights {
    /// The version they were exported as (in training, the learner's step), so that holders
    /// can tell newer weights from those they have.
    pub version: u64,
    /// Every variable as (name, shape, values flattened in row-major order), sorted by name.
    pub tensors: Vec<(String, Vec<i64>, Vec<f32>)>,
}

impl Weights {
    /// Whether these weights fit a network whose own export is `like`: the same tensor names,
    /// each of the same shape and with as many values as its shape holds. The reason when not.
    /// Weights that arrive from outside (Redis, files) go through this before any network takes
    /// them, so a mismatch is refused where it arrives instead of failing inside an actor.
    pub fn fits(&self, like: &Weights) -> Result<(), ShapeMismatch> {
        let shapes: Vec<(String, Vec<i64>)> = like.tensors.iter().map(|(n, s, _)| (n.clone(), s.clone())).collect();
        self.fits_shapes(&shapes)
    }

    /// [`Weights::fits`] against a list of (name, shape), sorted by name.
    pub fn fits_shapes(&self, like: &[(String, Vec<i64>)]) -> Result<(), ShapeMismatch> {
        if self.tensors.len() != like.len() {
            return Err(ShapeMismatch::Count { given: self.tensors.len(), want: like.len() });
        }
        for ((name, shape, data), (want, want_shape)) in self.tensors.iter().zip(like) {
            if name != want {
                return Err(ShapeMismatch::Name { given: name.clone(), want: want.clone() });
            }
            if shape != want_shape {
                return Err(ShapeMismatch::Shape {
                    name: name.clone(),
                    given: shape.clone(),
                    want: want_shape.clone(),
                });
            }
            let values: i64 = shape.iter().product();
            if values < 0 || data.len() as u64 != values as u64 {
                return Err(ShapeMismatch::Values { name: name.clone(), values: data.len(), shape: shape.clone() });
            }
        }
        Ok(())
    }

    /// Weights of these (name, shape) that are all zero, at version 0.
    pub fn zeros(shapes: &[(String, Vec<i64>)]) -> Weights {
        let tensors = shapes
            .iter()
            .map(|(name, shape)| {
                (name.clone(), shape.clone(), vec![0.0; shape.iter().product::<i64>().max(0) as usize])
            })
            .collect();
        Weights { version: 0, tensors }
    }

    /// Weights of these (name, shape) drawn from `seed` as libtorch initialises a layer:
    /// uniform within ±1/√fan-in, where the fan-in of a bias is its layer's (an LSTM's, its
    /// width). For networks that need to be some network (tests, examples), not trained ones.
    pub fn random(shapes: &[(String, Vec<i64>)], seed: u64) -> Weights {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let fan_in = |name: &str, shape: &[i64]| -> i64 {
            if shape.len() == 2 {
                return if name.contains("weight_hh") || name.contains("weight_ih") { shape[0] / 4 } else { shape[1] };
            }
            let layer = name.strip_suffix(".bias").map(|l| format!("{l}.weight"));
            match shapes.iter().find(|(n, _)| Some(n) == layer.as_ref()) {
                Some((_, w)) => w[1],
                None => shape.first().map_or(1, |&h| h / 4), // an LSTM's biases: 4 gates of its width
            }
        };
        let tensors = shapes
            .iter()
            .map(|(name, shape)| {
                let bound = 1.0 / (fan_in(name, shape).max(1) as f32).sqrt();
                let n = shape.iter().product::<i64>().max(0) as usize;
                (name.clone(), shape.clone(), (0..n).map(|_| rng.random_range(-bound..bound)).collect())
            })
            .collect();
        Weights { version: 0, tensors }
    }

    /// The names and shapes of the tensors, in order.
    pub fn shapes(&self) -> Vec<(String, Vec<i64>)> {
        self.tensors.iter().map(|(n, s, _)| (n.clone(), s.clone())).collect()
    }

    /// The values of tensor `name`, if there is one.
    pub fn get(&self, name: &str) -> Option<&[f32]> {
        self.tensors.binary_search_by(|(n, _, _)| n.as_str().cmp(name)).ok().map(|i| self.tensors[i].2.as_slice())
    }

    /// The weights of a safetensors file (f32 tensors, as ddz writes them), sorted by name, at
    /// version 0; every value must be finite. The error names the file and what is wrong.
    pub fn read(path: &Path) -> Result<Weights, WeightsError> {
        if !path.is_file() {
            return Err(WeightsError::NotFound(path.to_path_buf()));
        }
        let corrupt = |reason: Cause| WeightsError::Corrupt { path: path.to_path_buf(), reason };
        let bytes = std::fs::read(path).map_err(|e| corrupt(e.into()))?;
        check_header(&bytes).map_err(|reason| corrupt(reason.into()))?;
        check_layout(&bytes)
            .map_err(|reason| WeightsError::Mismatch { path: path.to_path_buf(), reason: reason.into() })?;
        let file = safetensors::SafeTensors::deserialize(&bytes).map_err(|e| corrupt(format!("{e:?}").into()))?;
        let mut tensors = Vec::new();
        for (name, view) in file.tensors() {
            if view.dtype() != safetensors::Dtype::F32 {
                return Err(corrupt(format!("{name} is {:?}, not f32", view.dtype()).into()));
            }
            let data: Vec<f32> = view.data().as_chunks::<4>().0.iter().map(|&c| f32::from_le_bytes(c)).collect();
            if data.iter().any(|x| !x.is_finite()) {
                return Err(corrupt(format!("{name} holds values that are not finite (NaN or infinite)").into()));
            }
            tensors.push((name, view.shape().iter().map(|&d| d as i64).collect(), data));
        }
        tensors.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(Weights { version: 0, tensors })
    }

    /// Writes the weights as a safetensors file through a temporary file and a rename, so a
    /// crash never leaves a half-written file under the final name.
    pub fn write(&self, path: &Path) -> Result<(), WeightsError> {
        let err = |reason: Cause| WeightsError::Write { path: path.to_path_buf(), reason };
        let bytes = self.to_bytes_with(None).map_err(|e| err(e.into()))?;
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("weights");
        let tmp = path.with_file_name(format!(".{stem}.tmp-{}.safetensors", std::process::id()));
        std::fs::write(&tmp, bytes).map_err(|e| err(e.into()))?;
        std::fs::rename(&tmp, path).map_err(|e| err(e.into()))
    }

    /// The weights as safetensors bytes (f32 tensors; the version in the metadata), for actors
    /// in other processes; [`WeightsError::Bytes`] when a tensor's data does not fill its shape.
    pub fn to_bytes(&self) -> Result<Vec<u8>, WeightsError> {
        self.to_bytes_with(Some(self.version))
    }

    /// Safetensors bytes with the feature layout in the metadata, and `version` when given.
    fn to_bytes_with(&self, version: Option<u64>) -> Result<Vec<u8>, WeightsError> {
        let raw: Vec<(&str, Vec<usize>, Vec<u8>)> = self
            .tensors
            .iter()
            .map(|(name, shape, data)| {
                let bytes = data.iter().flat_map(|x| x.to_le_bytes()).collect();
                (name.as_str(), shape.iter().map(|&d| d as usize).collect(), bytes)
            })
            .collect();
        let views = raw
            .iter()
            .map(|(name, shape, bytes)| {
                let view = safetensors::tensor::TensorView::new(safetensors::Dtype::F32, shape.clone(), bytes);
                view.map(|v| (*name, v)).map_err(|e| WeightsError::Bytes(format!("{name}: {e:?}").into()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut meta: std::collections::HashMap<String, String> =
            [(LAYOUT_KEY.to_string(), FEATURE_LAYOUT.to_string())].into_iter().collect();
        if let Some(v) = version {
            meta.insert("version".to_string(), v.to_string());
        }
        let meta = Some(meta);
        safetensors::serialize(views, &meta).map_err(|e| WeightsError::Bytes(format!("{e:?}").into()))
    }

    /// The weights in safetensors bytes written by [`Weights::to_bytes`]; the reason when they
    /// are not.
    pub fn from_bytes(bytes: &[u8]) -> Result<Weights, WeightsError> {
        let bad = WeightsError::Bytes;
        let (_, meta) = safetensors::SafeTensors::read_metadata(bytes).map_err(|e| bad(format!("{e:?}").into()))?;
        let version = meta
            .metadata()
            .as_ref()
            .and_then(|m| m.get("version"))
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| bad("no version in the metadata".into()))?;
        let file = safetensors::SafeTensors::deserialize(bytes).map_err(|e| bad(format!("{e:?}").into()))?;
        let mut tensors = Vec::new();
        for (name, view) in file.tensors() {
            if view.dtype() != safetensors::Dtype::F32 {
                return Err(bad(format!("{name} is {:?}, not f32", view.dtype()).into()));
            }
            let data = view.data().as_chunks::<4>().0.iter().map(|&c| f32::from_le_bytes(c)).collect();
            tensors.push((name, view.shape().iter().map(|&d| d as i64).collect(), data));
        }
        tensors.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(Weights { version, tensors })
    }
}

/// A safetensors file starts with an 8-byte little-endian header length and a JSON header;
/// the reason when what `bytes` start with is not that, or a tensor's data runs past the end
/// (libtorch's reader can abort on such files, so ddz checks before any reader sees them).
pub fn check_header(bytes: &[u8]) -> Result<(), HeaderError> {
    let Some((&len, _)) = bytes.split_first_chunk::<8>() else {
        return Err(HeaderError::TooShort(bytes.len()));
    };
    let n = u64::from_le_bytes(len);
    if n > (bytes.len() - 8) as u64 {
        return Err(HeaderError::PastEnd(n));
    }
    let n = n as usize;
    let header: serde_json::Value =
        serde_json::from_slice(&bytes[8..8 + n]).map_err(|e| HeaderError::NotJson(e.to_string()))?;
    let entries = header.as_object().ok_or(HeaderError::NotObject)?;
    let data_len = bytes.len() - 8 - n;
    for (name, entry) in entries.iter().filter(|(k, _)| *k != "__metadata__") {
        let end = entry["data_offsets"].as_array().and_then(|o| o.get(1)).and_then(|v| v.as_u64());
        match end {
            None => return Err(HeaderError::Offsets(name.clone())),
            Some(end) if end > data_len as u64 => return Err(HeaderError::Truncated(name.clone())),
            Some(_) => {}
        }
    }
    Ok(())
}

/// Refuses safetensors `bytes` (whose header [`check_header`] passed) that say that their
/// network reads another feature layout than [`FEATURE_LAYOUT`].
pub fn check_layout(bytes: &[u8]) -> Result<(), LayoutError> {
    let (_, meta) =
        safetensors::SafeTensors::read_metadata(bytes).map_err(|e| LayoutError::Unreadable(format!("{e:?}")))?;
    match meta.metadata().as_ref().and_then(|m| m.get(LAYOUT_KEY)) {
        Some(layout) if layout != FEATURE_LAYOUT => Err(LayoutError::Other(layout.clone())),
        _ => Ok(()),
    }
}

/// The weights file of `path`: itself, or `model.safetensors` inside a checkpoint folder.
pub fn weights_file(path: &Path) -> PathBuf {
    if path.is_dir() { path.join("model.safetensors") } else { path.to_path_buf() }
}
