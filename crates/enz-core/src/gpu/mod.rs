//! GPU (NVPTX) support outside differentiation proper.
//!
//! - [`emulate`]: retargets an NVPTX module to the host so that its kernels
//!   run on the CPU SIMT emulator (`runtime/emu/`), which is how every CUDA
//!   test runs without a GPU.

mod emulate;

pub use emulate::retarget_to_host;
