//! A CRC-32 of a safetensors file's tensors, kept in its metadata.
//!
//! safetensors checks the header's structure but not the data: a flipped bit in a weight
//! loads silently and the network plays worse for no visible reason, and a trainer
//! resuming from it carries the damage on. Every file szero writes (networks, trainer
//! state) stores the CRC-32 of its tensors' names and bytes, in name order, under
//! [`KEY`]; readers check it before using any tensor. Files written before the key
//! existed have none and are read as before.

use safetensors::tensor::{SafeTensors, TensorView};
use std::collections::HashMap;

/// Metadata key of the checksum (lower-case hex).
pub const KEY: &str = "data_crc32";

/// The CRC-32 of `(name, bytes)` pairs, taken in name order.
fn crc32<'a>(mut tensors: Vec<(&'a str, &'a [u8])>) -> u32 {
    tensors.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let mut h = crc32fast::Hasher::new();
    for (name, data) in tensors {
        h.update(&(name.len() as u64).to_le_bytes());
        h.update(name.as_bytes());
        h.update(&(data.len() as u64).to_le_bytes());
        h.update(data);
    }
    h.finalize()
}

/// `safetensors::serialize` with the tensors' checksum added to `metadata`.
pub fn serialize(
    tensors: Vec<(String, TensorView<'_>)>,
    mut metadata: HashMap<String, String>,
) -> Result<Vec<u8>, safetensors::SafeTensorError> {
    let sum = crc32(tensors.iter().map(|(n, v)| (n.as_str(), v.data())).collect());
    metadata.insert(KEY.to_string(), format!("{sum:08x}"));
    safetensors::serialize(tensors, Some(metadata))
}

/// Checks the checksum of a parsed file whose header metadata is `metadata`. `Ok` when
/// it matches or the file has none; otherwise why the file is damaged.
pub fn verify(st: &SafeTensors<'_>, metadata: Option<&HashMap<String, String>>) -> Result<(), String> {
    let Some(stored) = metadata.and_then(|m| m.get(KEY)) else {
        return Ok(());
    };
    let stored = u32::from_str_radix(stored, 16).map_err(|_| format!("checksum {stored:?} is not hex"))?;
    let tensors = st.tensors();
    let found = crc32(tensors.iter().map(|(n, v)| (n.as_str(), v.data())).collect());
    if found == stored {
        Ok(())
    } else {
        Err(format!("the tensors' checksum is {found:08x}, the file says {stored:08x}: the file is damaged"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use safetensors::tensor::Dtype;

    fn file() -> Vec<u8> {
        let a = [1u8, 2, 3, 4, 5, 6, 7, 8];
        let b = [9u8; 4];
        let views = vec![
            ("b".to_string(), TensorView::new(Dtype::F32, vec![1], &b).unwrap()),
            ("a".to_string(), TensorView::new(Dtype::F32, vec![2], &a).unwrap()),
        ];
        serialize(views, HashMap::new()).unwrap()
    }

    fn check(bytes: &[u8]) -> Result<(), String> {
        let st = SafeTensors::deserialize(bytes).map_err(|e| e.to_string())?;
        let (_, meta) = SafeTensors::read_metadata(bytes).map_err(|e| e.to_string())?;
        verify(&st, meta.metadata().as_ref())
    }

    #[test]
    fn every_flipped_data_bit_is_found() {
        let bytes = file();
        check(&bytes).unwrap();
        let header = 8 + u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
        for i in header..bytes.len() {
            for bit in 0..8 {
                let mut damaged = bytes.clone();
                damaged[i] ^= 1 << bit;
                let e = check(&damaged).unwrap_err();
                assert!(e.contains("damaged"), "{e}");
            }
        }
    }

    #[test]
    fn files_without_a_checksum_still_read() {
        let a = [0u8; 4];
        let bytes =
            safetensors::serialize(vec![("a".to_string(), TensorView::new(Dtype::F32, vec![1], &a).unwrap())], None)
                .unwrap();
        check(&bytes).unwrap();
    }
}
