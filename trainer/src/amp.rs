//! bf16 autocast on CUDA.
//!
//! tch 0.24's `autocast` turns on libtorch's CUDA autocast, whose default lower
//! precision is fp16 (which needs loss scaling). libtorch exports
//! `at::autocast::set_autocast_dtype(DeviceType, ScalarType)` but tch does not wrap it,
//! so we call it by its mangled name. Both arguments are `int8_t`-backed enums, passed
//! as such by the C calling convention. The setting is thread-local in libtorch, so it
//! is applied on the training thread before each training call.

extern "C" {
    #[link_name = "_ZN2at8autocast18set_autocast_dtypeEN3c1010DeviceTypeENS1_10ScalarTypeE"]
    fn at_set_autocast_dtype(device_type: i8, dtype: i8);
    #[link_name = "_ZN2at8autocast18get_autocast_dtypeEN3c1010DeviceTypeE"]
    fn at_get_autocast_dtype(device_type: i8) -> i8;
}

/// `c10::DeviceType::CUDA`.
const CUDA: i8 = 1;
/// `c10::ScalarType::BFloat16`.
const BFLOAT16: i8 = 15;

/// The lower-precision dtype CUDA autocast uses on this thread (a `c10::ScalarType`).
pub(crate) fn cuda_autocast_dtype() -> i8 {
    // SAFETY: a plain getter of a thread-local array, no preconditions.
    unsafe { at_get_autocast_dtype(CUDA) }
}

/// Makes CUDA autocast on this thread compute in bf16 (no loss scaling needed, unlike
/// fp16); returns whether libtorch reads the setting back. Harmless without a GPU.
pub(crate) fn use_bf16_for_cuda_autocast() -> bool {
    set_cuda_autocast_dtype(BFLOAT16);
    cuda_autocast_dtype() == BFLOAT16
}

pub(crate) fn set_cuda_autocast_dtype(dtype: i8) {
    // SAFETY: a plain setter of a thread-local array; `dtype` is a valid ScalarType.
    unsafe { at_set_autocast_dtype(CUDA, dtype) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bf16_autocast_dtype_can_be_set() {
        // Thread-local in libtorch: this test thread only.
        let before = cuda_autocast_dtype();
        assert_eq!(before, 5, "libtorch's CUDA autocast default should be fp16 (Half = 5)");
        assert!(use_bf16_for_cuda_autocast());
        assert_eq!(cuda_autocast_dtype(), BFLOAT16);
        set_cuda_autocast_dtype(before);
    }
}
