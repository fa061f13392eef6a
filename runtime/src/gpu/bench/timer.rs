//! CUDA events recorded between back-to-back launches on a [`Gpu`]'s stream: the timestamps
//! the harness turns into per-iteration and per-chunk times.

use crate::gpu::GpuError;
use crate::gpu::context::{Gpu, Inner};
use crate::gpu::error::driver as driver_err;
use crate::gpu::launch::wait_event;
use cudarc::driver::{result, sys};
use std::sync::Arc;
use std::time::Duration;

/// Timing events recorded in order on one stream; destroyed on drop (leaked if the context
/// is poisoned).
pub(crate) struct Events {
    events: Vec<sys::CUevent>,
    inner: Arc<Inner>,
}

impl Events {
    /// No events yet, on `gpu`'s stream.
    pub(crate) fn new(gpu: &Gpu) -> Events {
        Events { events: Vec::new(), inner: gpu.inner.clone() }
    }

    /// Records a fresh timing event after the work enqueued so far; returns its index.
    pub(crate) fn record(&mut self) -> Result<usize, GpuError> {
        self.inner.check_usable()?;
        self.inner.bind()?;
        let event =
            result::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT).map_err(|e| driver_err("cuEventCreate", e))?;
        self.events.push(event);
        // SAFETY: fresh event, this context's stream.
        unsafe { result::event::record(event, self.inner.stream) }.map_err(|e| driver_err("cuEventRecord", e))?;
        Ok(self.events.len() - 1)
    }

    /// Waits for event `i` with a host-side deadline; `what` names the work for the report.
    pub(crate) fn wait(&self, i: usize, timeout: Duration, what: &str) -> Result<(), GpuError> {
        wait_event(&self.inner, self.events[i], timeout, what)
    }

    /// Milliseconds between events `a` and `b`, both completed.
    pub(crate) fn elapsed_ms(&self, a: usize, b: usize) -> Result<f64, GpuError> {
        self.inner.bind()?;
        // SAFETY: both events were recorded on this context's stream and have completed.
        let ms = unsafe { result::event::elapsed(self.events[a], self.events[b]) }
            .map_err(|e| driver_err("cuEventElapsedTime", e))?;
        Ok(f64::from(ms))
    }

    /// Milliseconds between each pair of consecutive events from `from` on.
    pub(crate) fn intervals_ms(&self, from: usize) -> Result<Vec<f64>, GpuError> {
        (from..self.events.len().saturating_sub(1)).map(|i| self.elapsed_ms(i, i + 1)).collect()
    }
}

impl Drop for Events {
    fn drop(&mut self) {
        if self.inner.is_poisoned() || self.inner.bind().is_err() {
            return;
        }
        for &e in &self.events {
            // SAFETY: created by `record`, destroyed once, here.
            let _ = unsafe { result::event::destroy(e) };
        }
    }
}
