//! Predictions of the timing model for one configuration: the burst (boost clock) and the
//! sustained run (the clock at the power limit), with the activity counts the power model
//! reads.

use std::path::Path;

use warpspec::Grid;
use warpspec::dsl::Kernel;
use warpspec::sim::clock::{self, Activity, simulate_clocked};
use warpspec::sim::{Machine, SimOptions, TraceOptions, kernel_occupancy, simulate};

use crate::kernels::{self, Launch};
use crate::split::Config;

/// What the model predicts for one configuration.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Prediction {
    /// Cycles at the boost clock.
    pub burst_cycles: u64,
    /// The boost clock, GHz.
    pub burst_ghz: f64,
    /// Burst time, ms.
    pub burst_ms: f64,
    /// Cycles at the sustained clock.
    pub sustained_cycles: u64,
    /// The predicted sustained clock, GHz.
    pub sustained_ghz: f64,
    /// Sustained time, ms.
    pub sustained_ms: f64,
    /// Predicted board power at the top clock under load, W.
    pub power_at_top_w: f64,
    /// Tensor-core utilisation of the burst run.
    pub tensor_util: f64,
    /// Counts of the burst run.
    pub activity: Activity,
    /// Share of the bytes the SMs loaded from L2 in the burst run that the L2's request
    /// coalescer answered with another load's data.
    pub l2_coalesced_share: f64,
    /// Shares of the bytes that reached the L2's slices in the burst run that hit in the
    /// SM's own partition, that hit in the far one, and that came from HBM.
    pub l2_sources: [f64; 3],
    /// Host seconds the runs took.
    pub host_s: f64,
}

/// Columns of [`Prediction::row`].
pub const HEADER: &str = "model_burst_cycles,model_burst_ghz,model_burst_ms,model_burst_tflops,model_sust_cycles,model_sust_ghz,model_sust_ms,model_sust_tflops,model_power_at_top_w,model_tensor_util,act_flops,act_instructions,act_l2_bytes,act_hbm_bytes,model_l2_coalesced,model_l2_near,model_l2_far,model_l2_hbm,model_host_s,model_error";

impl Prediction {
    /// One CSV fragment (no id), `flops` per launch for TFLOP/s.
    pub fn row(&self, flops: f64) -> String {
        let tflops = |ms: f64| flops / (ms * 1e-3) / 1e12;
        let a = &self.activity;
        format!(
            "{},{:.4},{:.5},{:.1},{},{:.4},{:.5},{:.1},{:.1},{:.4},{:.4e},{:.4e},{:.4e},{:.4e},{:.4},{:.4},{:.4},{:.4},{:.2},",
            self.burst_cycles,
            self.burst_ghz,
            self.burst_ms,
            tflops(self.burst_ms),
            self.sustained_cycles,
            self.sustained_ghz,
            self.sustained_ms,
            tflops(self.sustained_ms),
            self.power_at_top_w,
            self.tensor_util,
            a.flops,
            a.instructions,
            a.l2_bytes,
            a.hbm_bytes,
            self.l2_coalesced_share,
            self.l2_sources[0],
            self.l2_sources[1],
            self.l2_sources[2],
            self.host_s
        )
    }

    /// The CSV fragment of a configuration the model could not run.
    pub fn failed(error: &str) -> String {
        let empty = HEADER.split(',').count() - 1;
        format!("{}{}", ",".repeat(empty), crate::table::field(error))
    }
}

/// How to run the model for a configuration.
#[derive(Clone, Copy, Debug, Default)]
pub struct How<'a> {
    /// Run again at the predicted burst and sustained clocks (`predict`).
    pub resimulate: bool,
    /// Write the burst run's report (`ID.txt`) and timeline (`ID.json`) here.
    pub reports: Option<&'a Path>,
    /// With `reports`: the timeline records the first this many CTAs of every SM (else the
    /// first two of SM 0).
    pub trace_ctas: Option<u32>,
    /// Without `resimulate`: run again until the clock of the burst run is the burst clock
    /// its own activity gives (`sim::clock::settle`; off where the clock is imposed).
    pub settle: bool,
    /// Every TMA load lands at its issue (`SimOptions::copies_free`).
    pub copies_free: bool,
    /// Per kernel, where its compiled code builds its descriptors
    /// (`SimOptions::descriptor_placement`); a kernel without a row: the machine's rule.
    pub placements: Option<&'a crate::placement::Placements>,
    /// Per kernel, its waits addressed per thread (`SimOptions::wait_forms`); none: every
    /// wait uniform.
    pub wait_forms: Option<&'a crate::wait_forms::Forms>,
}

struct ModelLaunch<'a> {
    machine: &'a Machine,
    opts: &'a SimOptions,
    resimulate: bool,
    /// Where to write the burst run's report and timeline, and the configuration's id.
    reports: Option<(&'a Path, usize)>,
    /// The clock to run at (else the top clock under load).
    clock_ghz: Option<f64>,
    /// Settle the burst run at its own burst clock.
    settle: bool,
}

impl Launch for ModelLaunch<'_> {
    type Output = Result<Prediction, String>;

    fn launch<K: Kernel>(&mut self, grid: Grid, params: &K::Params) -> Self::Output {
        let start = std::time::Instant::now();
        let top = self.machine.power.loaded_max_ghz.value.min(self.machine.clocks.boost_ghz.value);
        let (burst, burst_ghz, sustained, sustained_ghz, power_at_top_w) = if self.resimulate {
            let run = simulate_clocked::<K>(self.machine, grid, params, self.opts).map_err(|e| e.to_string())?;
            (run.burst, run.burst_ghz, run.sustained, run.sustained_ghz, run.power_at_top_w)
        } else {
            let opts = SimOptions { clock_ghz: Some(self.clock_ghz.unwrap_or(top)), ..self.opts.clone() };
            let mut burst = simulate::<K>(self.machine, grid, params, &opts).map_err(|e| e.to_string())?;
            if self.settle {
                let limit = self.machine.power.burst_limit_w.value;
                let settled = clock::settle::<K>(self.machine, grid, params, self.opts, burst, limit)
                    .map_err(|e| e.to_string())?;
                if settled.runs > 1 {
                    eprintln!("  ran {} times to settle at {:.4} GHz", settled.runs, settled.clock_ghz);
                }
                burst = settled.report;
            }
            let figures = clock::figures(self.machine, &burst);
            (burst.clone(), figures.burst.clock_ghz, burst, figures.sustained.clock_ghz, figures.power_at_top_w)
        };
        if let Some((dir, id)) = self.reports {
            let text = dir.join(format!("{id}.txt"));
            std::fs::write(&text, format!("{burst}")).map_err(|e| format!("{}: {e}", text.display()))?;
            if let Some(trace) = &burst.trace {
                let json = dir.join(format!("{id}.json"));
                trace.write(&json).map_err(|e| format!("{}: {e}", json.display()))?;
            }
        }
        Ok(Prediction {
            burst_cycles: burst.cycles,
            burst_ghz,
            burst_ms: burst.cycles as f64 / (burst_ghz * 1e9) * 1e3,
            sustained_cycles: sustained.cycles,
            sustained_ghz,
            sustained_ms: sustained.cycles as f64 / (sustained_ghz * 1e9) * 1e3,
            power_at_top_w,
            tensor_util: burst.utilisation[warpspec::report::Unit::TensorCores],
            activity: Activity::of(self.machine, &burst),
            l2_coalesced_share: {
                let l2 = burst.traffic.iter().find(|t| t.level == warpspec::report::MemoryLevel::L2);
                l2.map_or(0.0, |t| burst.l2_coalesced_bytes as f64 / t.bytes.max(1) as f64)
            },
            l2_sources: burst.l2_sources.shares(),
            host_s: start.elapsed().as_secs_f64(),
        })
    }

    fn clusters<K: Kernel>(&self) -> Result<usize, String> {
        resident_clusters::<K>(self.machine)
    }
}

/// Clusters of `K` resident at once on `machine`: the size of a persistent grid.
pub fn resident_clusters<K: Kernel>(machine: &Machine) -> Result<usize, String> {
    let occupancy = kernel_occupancy(machine, &K::SPEC).map_err(|e| e.to_string())?;
    Ok(K::SPEC.cluster_shape().resident_clusters(machine.clusters.gpc_sms.value, occupancy.ctas_per_sm) as usize)
}

/// The options `config`'s kernel is simulated with from its compiled code: its descriptor
/// placement and wait forms where `how` has their tables, else the machine's rule.
pub fn compiled_options(config: &Config, how: How<'_>) -> SimOptions {
    SimOptions {
        descriptor_placement: how.placements.and_then(|p| p.get(&config.kernel)).cloned().unwrap_or_default(),
        wait_forms: how.wait_forms.and_then(|f| f.get(&config.kernel)).cloned().unwrap_or_default(),
        ..SimOptions::default()
    }
}

/// Predicts `config` on `machine` (shape-only tensors: no data, no arithmetic).
///
/// The kernel runs once at the top clock under load (`power.loaded_max_ghz`); the burst and
/// sustained figures are its cycles at the burst and sustained clocks the power model gives
/// for its activity. With `how.resimulate`, the kernel is run again at each of those clocks
/// (`sim::clock::simulate_clocked`: more bytes per cycle from L2 and HBM at a lower SM
/// clock), at up to several times the host time. Without it, `clock_ghz` (the burst clock
/// predicted from an earlier run's counts, which hardly depend on the clock) is the clock of
/// the first run instead of the top clock, and with `how.settle` the kernel runs again at the
/// burst clock its own activity gives until the two agree within 1% (`sim::clock::settle`).
pub fn predict(config: &Config, machine: &Machine, how: How<'_>, clock_ghz: Option<f64>) -> Result<Prediction, String> {
    let plain = SimOptions { copies_free: how.copies_free, ..compiled_options(config, how) };
    let opts = match how.reports {
        Some(_) => plain.with_trace(match how.trace_ctas {
            Some(ctas) => TraceOptions {
                sms: machine.sm_count.value,
                ctas_per_sm: ctas,
                max_events_per_sm: 4_000_000,
                window: None,
            },
            None => TraceOptions::default(),
        }),
        None => plain,
    };
    let reports = how.reports.map(|dir| (dir, config.id));
    let mut launch =
        ModelLaunch { machine, opts: &opts, resimulate: how.resimulate, reports, clock_ghz, settle: how.settle };
    kernels::launch_shape_only(config, &mut launch)?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prediction_writes_its_report_and_timeline_where_asked() {
        let split = "id,family,kernel,tile,stages,bk,m,n,k,batch,heads,seq,d,causal,variant,set\n\
                     7,ws_gemm,ws_gemm_128x128_p2,128x128,2,64,256,256,256,,,,,,ws,calibration\n";
        let config = &crate::split::parse(split).unwrap()[0];
        let dir = std::env::temp_dir().join(format!("warpspec-validate-reports-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let machine = Machine::h200();
        let plain = predict(config, &machine, How::default(), None).unwrap();
        let reported =
            predict(config, &machine, How { reports: Some(&dir), settle: true, ..How::default() }, None).unwrap();
        // The report and the timeline sit beside the same prediction.
        assert_eq!(plain.burst_cycles, reported.burst_cycles);
        let text = std::fs::read_to_string(dir.join("7.txt")).unwrap();
        assert!(text.contains("ws_gemm_128x128_p2") && text.contains("stalls"), "{text}");
        let json = std::fs::read_to_string(dir.join("7.json")).unwrap();
        assert!(json.contains("traceEvents") && json.contains("wgmma"), "{}", &json[..json.len().min(200)]);
        assert!((0.0..1.0).contains(&reported.l2_coalesced_share));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
