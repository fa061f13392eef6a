//! Clocks, power, temperature and throttle reasons read through NVML while work runs.
//!
//! NVML (`libnvidia-ml.so.1`, part of the driver) is opened at run time by `nvml-wrapper`;
//! where it cannot be opened, or the device is not found, the sampler still runs the
//! benchmark and its [`Telemetry`] says why there are no readings. A background thread
//! reads the device every sampling interval and tags each reading with the phase the
//! harness is in; the harness also takes one reading itself at the start and end of each
//! phase, so a phase shorter than the interval still has readings.

use crate::gpu::Gpu;
use cudarc::driver::sys::CUdevice_attribute::*;
use nvml_wrapper::Nvml;
use nvml_wrapper::bitmasks::device::ThrottleReasons;
use nvml_wrapper::enum_wrappers::device::{Clock, TemperatureSensor};
use nvml_wrapper::enums::device::SampleValue;
use nvml_wrapper::structs::device::FieldId;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// NVML's field id of the instantaneous board power (`NVML_FI_DEV_POWER_INSTANT`).
const POWER_INSTANT: u32 = 186;

/// One reading of the device; a field NVML could not read is `None`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// Seconds since the start of the phase (host clock).
    pub t_s: f64,
    /// SM clock, MHz.
    pub sm_mhz: Option<u32>,
    /// Memory clock, MHz.
    pub mem_mhz: Option<u32>,
    /// Board power as NVML's power usage reports it (averaged by the driver), W.
    pub power_w: Option<f64>,
    /// Instantaneous board power (`NVML_FI_DEV_POWER_INSTANT`), W.
    pub power_instant_w: Option<f64>,
    /// GPU die temperature, °C.
    pub temp_c: Option<u32>,
    /// Clock throttle (event) reasons, NVML's bit mask; see [`throttle_names`].
    pub throttle: Option<u64>,
}

/// The names of the reasons set in an NVML throttle mask, e.g. `SW_POWER_CAP`.
pub fn throttle_names(mask: u64) -> Vec<&'static str> {
    ThrottleReasons::from_bits_truncate(mask).iter_names().map(|(name, _)| name).collect()
}

/// Where the readings come from, or why there are none.
#[derive(Debug, Clone, PartialEq)]
pub enum Telemetry {
    /// NVML answered for this device.
    Nvml {
        /// The device as NVML names it.
        device: String,
        /// The enforced board power limit, W.
        power_limit_w: Option<f64>,
        /// The driver version.
        driver: String,
    },
    /// No readings: why.
    Unavailable(String),
}

impl std::fmt::Display for Telemetry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Telemetry::Nvml { device, power_limit_w, driver } => {
                write!(f, "NVML: {device}, driver {driver}")?;
                match power_limit_w {
                    Some(w) => write!(f, ", power limit {w:.0} W"),
                    None => Ok(()),
                }
            }
            Telemetry::Unavailable(why) => write!(f, "no NVML: {why}; clocks and power not sampled"),
        }
    }
}

/// NVML and the PCI bus id that names the benchmarked device in it.
struct Source {
    nvml: Nvml,
    bus_id: String,
}

impl Source {
    fn open(gpu: &Gpu) -> Result<(Source, Telemetry), String> {
        let pci = |a| gpu.attribute(a).map_err(|e| e.to_string());
        let bus_id = format!(
            "{:08X}:{:02X}:{:02X}.0",
            pci(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID)?,
            pci(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID)?,
            pci(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID)?
        );
        let nvml = Nvml::init().map_err(|e| format!("NVML could not be initialised ({e})"))?;
        let source = Source { nvml, bus_id };
        let dev = source
            .nvml
            .device_by_pci_bus_id(source.bus_id.as_str())
            .map_err(|e| format!("NVML has no device at PCI {} ({e})", source.bus_id))?;
        let telemetry = Telemetry::Nvml {
            device: dev.name().unwrap_or_else(|_| "(unnamed)".into()),
            power_limit_w: dev.enforced_power_limit().ok().map(|mw| f64::from(mw) / 1e3),
            driver: source.nvml.sys_driver_version().unwrap_or_else(|_| "?".into()),
        };
        Ok((source, telemetry))
    }

    /// One reading; `None` when the device handle cannot be had.
    fn read(&self, t_s: f64) -> Option<Sample> {
        let dev = self.nvml.device_by_pci_bus_id(self.bus_id.as_str()).ok()?;
        let instant = dev.field_values_for(&[FieldId(POWER_INSTANT)]).ok().and_then(|mut v| v.pop());
        let power_instant_w = instant.and_then(|s| s.ok()).and_then(|s| s.value.ok()).map(|v| match v {
            SampleValue::F64(x) => x / 1e3,
            SampleValue::U32(x) => f64::from(x) / 1e3,
            SampleValue::U64(x) => x as f64 / 1e3,
            SampleValue::I64(x) => x as f64 / 1e3,
        });
        Some(Sample {
            t_s,
            sm_mhz: dev.clock_info(Clock::SM).ok(),
            mem_mhz: dev.clock_info(Clock::Memory).ok(),
            power_w: dev.power_usage().ok().map(|mw| f64::from(mw) / 1e3),
            power_instant_w,
            temp_c: dev.temperature(TemperatureSensor::Gpu).ok(),
            throttle: dev.current_throttle_reasons().ok().map(|r| r.bits()),
        })
    }

    /// The board's energy counter, millijoules since the driver loaded.
    fn energy_mj(&self) -> Option<u64> {
        self.nvml.device_by_pci_bus_id(self.bus_id.as_str()).ok()?.total_energy_consumption().ok()
    }
}

/// Readings taken so far: (phase tag, host time, reading without its phase-relative time).
type Log = Mutex<Vec<(usize, Instant, Sample)>>;

/// A background thread sampling the device during tagged phases.
pub struct Sampler {
    source: Option<Arc<Source>>,
    telemetry: Telemetry,
    phase: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    log: Arc<Log>,
    thread: Option<JoinHandle<()>>,
}

/// A phase being sampled: returned by [`Sampler::begin`], consumed by [`Sampler::end`].
pub struct PhaseMark {
    tag: usize,
    start: Instant,
    energy_mj: Option<u64>,
}

/// What the sampler saw during one phase.
#[derive(Debug, Clone, PartialEq)]
pub struct PhaseReadings {
    /// Readings in time order, times relative to the phase start.
    pub samples: Vec<Sample>,
    /// Mean board power from the energy counter over the phase, W.
    pub energy_power_w: Option<f64>,
    /// Host seconds from begin to end.
    pub wall_s: f64,
}

impl Sampler {
    /// Opens NVML for `gpu` and starts sampling every `every` (between phases the thread
    /// idles). Never fails: without NVML, [`Sampler::telemetry`] says why.
    pub fn start(gpu: &Gpu, every: Duration) -> Sampler {
        let (phase, stop, log) =
            (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicBool::new(false)), Arc::new(Log::default()));
        let (source, telemetry) = match Source::open(gpu) {
            Ok((s, t)) => (Some(Arc::new(s)), t),
            Err(why) => (None, Telemetry::Unavailable(why)),
        };
        let thread = source.clone().map(|src| {
            let (phase, stop, log) = (phase.clone(), stop.clone(), log.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let tag = phase.load(Ordering::Relaxed);
                    if tag != 0
                        && let Some(s) = src.read(0.0)
                    {
                        log.lock().unwrap_or_else(|p| p.into_inner()).push((tag, Instant::now(), s));
                    }
                    std::thread::sleep(every);
                }
            })
        });
        Sampler { source, telemetry, phase, stop, log, thread }
    }

    /// Where the readings come from, or why there are none.
    pub fn telemetry(&self) -> &Telemetry {
        &self.telemetry
    }

    /// Starts phase `tag` (non-zero, distinct per phase): takes a reading and the energy counter.
    pub fn begin(&self, tag: usize) -> PhaseMark {
        let start = Instant::now();
        let energy_mj = self.source.as_ref().and_then(|s| s.energy_mj());
        self.phase.store(tag, Ordering::Relaxed);
        self.push_now(tag);
        PhaseMark { tag, start, energy_mj }
    }

    /// Ends the phase: takes a closing reading and returns the phase's readings.
    pub fn end(&self, mark: PhaseMark) -> PhaseReadings {
        self.push_now(mark.tag);
        self.phase.store(0, Ordering::Relaxed);
        let wall_s = mark.start.elapsed().as_secs_f64();
        let energy_end = self.source.as_ref().and_then(|s| s.energy_mj());
        let energy_power_w = match (mark.energy_mj, energy_end) {
            (Some(a), Some(b)) if b > a && wall_s > 0.0 => Some((b - a) as f64 / 1e3 / wall_s),
            _ => None,
        };
        let mut log = self.log.lock().unwrap_or_else(|p| p.into_inner());
        let mut samples: Vec<Sample> = log
            .iter()
            .filter(|(tag, _, _)| *tag == mark.tag)
            .map(|&(_, at, s)| Sample { t_s: at.saturating_duration_since(mark.start).as_secs_f64(), ..s })
            .collect();
        log.retain(|(tag, _, _)| *tag != mark.tag);
        samples.sort_by(|a, b| a.t_s.total_cmp(&b.t_s));
        PhaseReadings { samples, energy_power_w, wall_s }
    }

    fn push_now(&self, tag: usize) {
        if let Some(s) = self.source.as_ref().and_then(|src| src.read(0.0)) {
            self.log.lock().unwrap_or_else(|p| p.into_inner()).push((tag, Instant::now(), s));
        }
    }
}

impl Drop for Sampler {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn throttle_mask_names() {
        // NVML: SW power cap 0x4, HW slowdown 0x8, SW thermal 0x20.
        assert_eq!(throttle_names(0x4), vec!["SW_POWER_CAP"]);
        assert_eq!(throttle_names(0x4 | 0x20), vec!["SW_POWER_CAP", "SW_THERMAL_SLOWDOWN"]);
        assert!(throttle_names(0).is_empty());
    }

    #[test]
    fn telemetry_lines() {
        let t = Telemetry::Nvml { device: "NVIDIA H200".into(), power_limit_w: Some(700.0), driver: "580".into() };
        assert_eq!(t.to_string(), "NVML: NVIDIA H200, driver 580, power limit 700 W");
        let u = Telemetry::Unavailable("NVML could not be initialised (x)".into());
        assert_eq!(u.to_string(), "no NVML: NVML could not be initialised (x); clocks and power not sampled");
    }
}
