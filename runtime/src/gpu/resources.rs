//! Resource usage of compiled kernels, read from ptxas' verbose report, and budgets on it.
//!
//! NVRTC passes `--ptxas-options=-v` through to ptxas when it compiles to a CUBIN (no GPU
//! needed); its log then holds, per entry function, the registers, spills, stack frame and
//! static shared memory. CI rejects kernels that spill or use more registers than their role
//! may hold.

use super::GpuError;

/// What ptxas reported for one kernel.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct KernelResources {
    /// The entry function's name as ptxas prints it (mangled unless `extern "C"`).
    pub kernel: String,
    /// Registers per thread at entry.
    pub registers: u32,
    /// Bytes of spill stores to local memory.
    pub spill_stores: u32,
    /// Bytes of spill loads from local memory.
    pub spill_loads: u32,
    /// Bytes of per-thread stack frame (local memory that is not spills: arrays indexed at run time).
    pub stack_frame: u32,
    /// Bytes of static shared memory (`__shared__` declarations; dynamic shared memory is extra).
    pub static_smem: u32,
    /// Named barriers the kernel uses.
    pub barriers: u32,
}

/// Limits a kernel must stay within.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResourceBudget {
    /// Most registers per thread at entry (for `setmaxnreg` kernels: the entry budget).
    pub max_registers: u32,
    /// Most bytes of spills (stores plus loads); CI uses 0.
    pub max_spill_bytes: u32,
    /// Most bytes of stack frame; CI uses 0 for kernels whose arrays must stay in registers.
    pub max_stack_frame: u32,
}

impl ResourceBudget {
    /// No spills and no stack frame, at most `max_registers` registers per thread.
    pub fn strict(max_registers: u32) -> Self {
        ResourceBudget { max_registers, max_spill_bytes: 0, max_stack_frame: 0 }
    }
}

impl KernelResources {
    /// Ok when every figure is within `budget`; otherwise [`GpuError::OverBudget`] naming the first excess.
    pub fn check(&self, budget: &ResourceBudget) -> Result<(), GpuError> {
        let over = |what: String| Err(GpuError::OverBudget { kernel: self.kernel.clone(), what });
        let spills = self.spill_stores + self.spill_loads;
        if self.registers > budget.max_registers {
            return over(format!("{} registers per thread, budget {}", self.registers, budget.max_registers));
        }
        if spills > budget.max_spill_bytes {
            return over(format!(
                "{} bytes spill stores and {} bytes spill loads, budget {} bytes",
                self.spill_stores, self.spill_loads, budget.max_spill_bytes
            ));
        }
        if self.stack_frame > budget.max_stack_frame {
            return over(format!(
                "{} bytes stack frame (local memory), budget {}",
                self.stack_frame, budget.max_stack_frame
            ));
        }
        Ok(())
    }
}

/// Parses every entry function's report out of an NVRTC program log compiled with `-v`.
pub fn parse_ptxas_log(log: &str) -> Vec<KernelResources> {
    let mut out: Vec<KernelResources> = Vec::new();
    for line in log.lines() {
        if let Some(name) = quoted_after(line, "Compiling entry function '") {
            out.push(KernelResources { kernel: name.to_string(), ..Default::default() });
            continue;
        }
        let Some(cur) = out.last_mut() else { continue };
        if line.contains("bytes stack frame") {
            cur.stack_frame = number_before(line, "bytes stack frame").unwrap_or(0);
            cur.spill_stores = number_before(line, "bytes spill stores").unwrap_or(0);
            cur.spill_loads = number_before(line, "bytes spill loads").unwrap_or(0);
        } else if line.contains("Used ") && line.contains("registers") {
            cur.registers = number_before(line, "registers").unwrap_or(0);
            cur.barriers = number_before(line, "barriers").unwrap_or(0);
            cur.static_smem = number_before(line, "bytes smem").unwrap_or(0);
        }
    }
    out
}

/// The text between `prefix` and the next `'`.
fn quoted_after<'a>(line: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = &line[line.find(prefix)? + prefix.len()..];
    Some(&rest[..rest.find('\'')?])
}

/// The integer in the comma-separated field of `line` that contains `label` (e.g.
/// `used 1 barriers` -> 1 for `barriers`).
fn number_before(line: &str, label: &str) -> Option<u32> {
    let field = line.split([',', ':']).find(|f| f.contains(label))?;
    field.split_whitespace().find_map(|w| w.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = "ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'k' for 'sm_90a'
ptxas info    : Function properties for k
ptxas         .     128 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 232 registers, used 1 barriers, 128 bytes cumulative stack size, 8200 bytes smem
ptxas info    : Compiling entry function 'other' for 'sm_90a'
ptxas info    : Function properties for other
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 40 registers, 384 bytes cmem[0]
";

    #[test]
    fn parses_each_entry_function() {
        let r = parse_ptxas_log(LOG);
        assert_eq!(r.len(), 2);
        assert_eq!(
            r[0],
            KernelResources {
                kernel: "k".into(),
                registers: 232,
                spill_stores: 8,
                spill_loads: 4,
                stack_frame: 128,
                static_smem: 8200,
                barriers: 1,
            }
        );
        assert_eq!((r[1].kernel.as_str(), r[1].registers, r[1].static_smem), ("other", 40, 0));
    }

    #[test]
    fn budget_names_the_first_excess() {
        let r = parse_ptxas_log(LOG);
        let e = r[0].check(&ResourceBudget::strict(240)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "kernel k is over its budget: 8 bytes spill stores and 4 bytes spill loads, budget 0 bytes"
        );
        let e = r[0].check(&ResourceBudget::strict(128)).unwrap_err();
        assert!(e.to_string().contains("232 registers per thread, budget 128"), "{e}");
        assert!(r[1].check(&ResourceBudget::strict(40)).is_ok());
    }
}
