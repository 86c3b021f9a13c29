//! Fuzzes network-file loading (safetensors header, szero metadata, tensors, checksum):
//! any bytes are a network or an error naming the problem, never a panic; a network
//! that loads saves back to a file that loads to the same metadata.
#![no_main]

use libfuzzer_sys::fuzz_target;
use models::checkpoint::{load_bytes, save};
use models::{tch::Device, Precision, FORMAT_VERSIONS};
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let path = Path::new("fuzz.safetensors");
    // Refuse what would only measure libtorch's allocator (a real small net is ~1 MB).
    if let Some(len) = data.get(..8).map(|b| u64::from_le_bytes(b.try_into().unwrap())) {
        if len > 1 << 20 {
            return;
        }
    }
    match load_bytes(data, path, FORMAT_VERSIONS, Device::Cpu, Precision::F32) {
        Ok((net, meta)) => {
            let dir = std::env::temp_dir().join(format!("szero-fuzz-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let file = dir.join("net.safetensors");
            save(&net, &file, FORMAT_VERSIONS, meta.training_step).expect("a loaded net saves");
            let (_, again) = models::checkpoint::load(&file, FORMAT_VERSIONS, Device::Cpu, Precision::F32)
                .expect("our own file loads");
            assert_eq!(again, meta);
        }
        Err(e) => {
            let msg = e.to_string();
            assert!(msg.contains("fuzz.safetensors"), "the error names the file: {msg}");
        }
    }
});
