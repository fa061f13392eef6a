//! The device library: `device.cuh` (inline-PTX wrappers) plus the `wgmma.mma_async`
//! variants generated here, one function per (operand form, input type, N).
//!
//! A kernel source is `device_lib::source()` followed by the kernel; see `docs/cuda.md` for
//! what each wrapper lowers to.

use std::fmt::Write as _;
use std::sync::OnceLock;

/// The hand-written part: addresses, mbarrier, fences, TMA, descriptors, wgmma control,
/// named barriers, `setmaxnreg`, `elect.sync`.
pub const HEADER: &str = include_str!("device.cuh");

/// Widths N of the generated `m64nNk16` variants.
pub const WGMMA_N: [u32; 8] = [8, 16, 32, 64, 96, 128, 192, 256];

/// Input (A and B) element type of a wgmma; accumulators are always f32.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MmaInput {
    /// bfloat16.
    Bf16,
    /// IEEE half.
    F16,
}

impl MmaInput {
    fn ptx(self) -> &'static str {
        match self {
            MmaInput::Bf16 => "bf16",
            MmaInput::F16 => "f16",
        }
    }
}

/// Where the A operand comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OperandForm {
    /// A and B from shared memory, through matrix descriptors.
    SharedShared,
    /// A from four registers per thread (bf16x2/f16x2 in the accumulator layout), B from shared memory.
    RegisterShared,
}

/// One generated `wgmma.mma_async.sync.aligned.m64nNk16.f32.<in>.<in>` wrapper.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WgmmaVariant {
    /// Operand form.
    pub form: OperandForm,
    /// Input type.
    pub input: MmaInput,
    /// N: columns of B and D (a multiple of 8, 8..=256).
    pub n: u32,
}

impl WgmmaVariant {
    /// Every generated variant.
    pub fn all() -> impl Iterator<Item = WgmmaVariant> {
        [OperandForm::SharedShared, OperandForm::RegisterShared].into_iter().flat_map(|form| {
            [MmaInput::Bf16, MmaInput::F16]
                .into_iter()
                .flat_map(move |input| WGMMA_N.into_iter().map(move |n| WgmmaVariant { form, input, n }))
        })
    }

    /// The C++ function name, e.g. `wgmma_ss_m64n128k16_f32_bf16` (in namespace `ws`).
    pub fn name(&self) -> String {
        let form = match self.form {
            OperandForm::SharedShared => "ss",
            OperandForm::RegisterShared => "rs",
        };
        format!("wgmma_{form}_m64n{}k16_f32_{}", self.n, self.input.ptx())
    }

    /// f32 accumulator registers per thread: 64 x N over 128 threads.
    pub fn accumulators(&self) -> u32 {
        self.n / 2
    }

    /// Appends the C++ definition to `out`.
    fn render(&self, out: &mut String) {
        let acc = self.accumulators();
        let regs: Vec<String> = (0..acc).map(|i| format!("%{i}")).collect();
        let outs: Vec<String> = (0..acc).map(|i| format!("\"+f\"(d[{i}])")).collect();
        let ty = self.input.ptx();
        let (template, params, a_operand, ins, scale, tail) = match self.form {
            OperandForm::SharedShared => (
                "template <int TA = 0, int TB = 0>",
                "u64 desc_a, u64 desc_b, u32 scale_d",
                format!("%{acc}, %{}", acc + 1),
                "\"l\"(desc_a), \"l\"(desc_b), \"r\"(scale_d), \"n\"(TA), \"n\"(TB)".to_string(),
                acc + 2,
                format!("%{}, %{}", acc + 3, acc + 4),
            ),
            OperandForm::RegisterShared => (
                "template <int TB = 0>",
                "const u32 (&a)[4], u64 desc_b, u32 scale_d",
                format!("{{%{}, %{}, %{}, %{}}}, %{}", acc, acc + 1, acc + 2, acc + 3, acc + 4),
                "\"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3]), \"l\"(desc_b), \"r\"(scale_d), \"n\"(TB)"
                    .to_string(),
                acc + 5,
                format!("%{}", acc + 6),
            ),
        };
        let _ = writeln!(
            out,
            "/// D(64x{n}, f32) = A(64x16) * B(16x{n}) + (scale_d ? D : 0); {form:?} operands.\n\
             {template}\n\
             __device__ __forceinline__ void {name}(float (&d)[{acc}], {params}) {{\n\
             \x20   asm volatile(\n\
             \x20       \"{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{scale}, 0;\\n\"\n\
             \x20       \"wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{ty}.{ty} \"\n\
             \x20       \"{{{regs}}}, {a_operand}, p, 1, 1, {tail};\\n}}\\n\"\n\
             \x20       : {outs}\n\
             \x20       : {ins});\n\
             }}",
            n = self.n,
            form = self.form,
            name = self.name(),
            regs = regs.join(", "),
            outs = outs.join(", "),
        );
    }
}

/// The generated wgmma variants, guarded for sm_90a.
pub fn wgmma_source() -> String {
    let mut out = String::from("#if defined(__CUDA_ARCH_FEAT_SM90_ALL)\nnamespace ws {\n");
    for v in WgmmaVariant::all() {
        v.render(&mut out);
    }
    out.push_str("}  // namespace ws\n#endif  // __CUDA_ARCH_FEAT_SM90_ALL\n");
    out
}

/// The whole device library: [`HEADER`] and the wgmma variants, built once.
pub fn source() -> &'static str {
    static SOURCE: OnceLock<String> = OnceLock::new();
    SOURCE.get_or_init(|| format!("{HEADER}\n{}", wgmma_source()))
}

/// `source()` followed by `kernels`: a complete translation unit for NVRTC.
pub fn with_kernels(kernels: &str) -> String {
    format!("{}\n// ---- kernels\n{kernels}", source())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_type_and_width_is_generated_once() {
        let all: Vec<_> = WgmmaVariant::all().collect();
        assert_eq!(all.len(), 2 * 2 * WGMMA_N.len());
        let src = wgmma_source();
        for v in &all {
            assert_eq!(src.matches(&format!(" {}(", v.name())).count(), 1, "{}", v.name());
        }
    }

    #[test]
    fn operand_numbering_matches_the_register_count() {
        let mut s = String::new();
        WgmmaVariant { form: OperandForm::RegisterShared, input: MmaInput::F16, n: 64 }.render(&mut s);
        assert!(s.contains("float (&d)[32]"), "{s}");
        assert!(s.contains("{%32, %33, %34, %35}, %36, p, 1, 1, %38;"), "{s}");
        assert!(s.contains("setp.ne.b32 p, %37, 0;"), "{s}");
        assert!(s.contains("m64n64k16.f32.f16.f16"), "{s}");
        let mut s = String::new();
        WgmmaVariant { form: OperandForm::SharedShared, input: MmaInput::Bf16, n: 256 }.render(&mut s);
        assert!(s.contains("%127}, %128, %129, p, 1, 1, %131, %132;"), "{s}");
        assert!(s.contains("\"+f\"(d[127])"), "{s}");
    }
}
