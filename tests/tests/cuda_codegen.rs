//! The CUDA code generator on the example kernels: `ws_gemm`, every buildable trade-off
//! variant and the Hopper attention kernels render and compile for sm_90a, the Blackwell
//! (FlashAttention-4 style) attention kernels for sm_100a, with NVRTC (no GPU needed) and
//! without spills, stack frames or registers over the roles' budget; kernels that cannot
//! run are refused with an error naming kernel, target and reason; the sources of `ws_gemm`,
//! `fa3_bf16_d128` and `fa4v_bf16_d128` are snapshotted.
//!
//! Needs `libnvrtc.so.13` on the loader path (`.ci/run` installs PyPI `nvidia-cuda-nvrtc`);
//! without it the compile test prints a notice and passes, except under `CI=true`.

use warpspec::gpu::codegen::{self, Generated};
use warpspec::gpu::{Arch, GpuError, Program, compile, probe};
use warpspec::ir::Kernel as Ir;
use warpspec_examples::attention::blackwell as fa4;
use warpspec_examples::attention::hopper as fa;
use warpspec_examples::cluster_gemm::cluster_gemm;
use warpspec_examples::gemm::{ws_gemm, ws_gemm_bf16};
use warpspec_examples::gemm_tradeoff as t;

fn nvrtc_available(test: &str) -> bool {
    match probe::nvrtc() {
        Ok(()) => true,
        Err(e) if std::env::var("CI").is_ok_and(|v| v == "true") => panic!("CI=true but {e}"),
        Err(e) => {
            eprintln!("note: {test} skipped: {e}");
            false
        }
    }
}

macro_rules! kernels {
    ($($path:path),* $(,)?) => {
        vec![$(<$path>::ir()),*]
    };
}

/// Kernels that run on Hopper: `ws_gemm` (f32 and bf16 C) and the trade-off stamps whose f32 accumulator fits.
fn buildable() -> Vec<&'static Ir> {
    kernels![
        ws_gemm::Kernel,
        ws_gemm_bf16::Kernel,
        t::ws_128x256_p2::Kernel,
        t::ws_128x256_p4::Kernel,
        t::ws_256x128_p2::Kernel,
        t::ws_256x128_p4::Kernel,
        t::ws_128x128_p2::Kernel,
        t::ws_128x128_p4::Kernel,
        t::flat_128x256_p2::Kernel,
        t::flat_128x256_p4::Kernel,
        t::flat_256x128_p2::Kernel,
        t::flat_256x128_p4::Kernel,
        t::flat_128x128_p2::Kernel,
        t::flat_128x128_p4::Kernel,
    ]
}

/// The Hopper attention kernels: FA3-style and the non-specialized baseline, bf16 and f16,
/// head dimensions 64 and 128.
fn attention() -> Vec<&'static Ir> {
    kernels![
        fa::fa3_bf16_d64::Kernel,
        fa::fa3_bf16_d128::Kernel,
        fa::fa3_f16_d64::Kernel,
        fa::fa3_f16_d128::Kernel,
        fa::flat_bf16_d64::Kernel,
        fa::flat_bf16_d128::Kernel,
        fa::flat_f16_d64::Kernel,
        fa::flat_f16_d128::Kernel,
    ]
}

/// The Blackwell attention kernels: the baseline and the kernels taking FlashAttention-4's
/// softmax variants as arguments, bf16 and f16, head dimensions 64 and 128.
fn blackwell() -> Vec<&'static Ir> {
    kernels![
        fa4::fa4_bf16_d64::Kernel,
        fa4::fa4_bf16_d128::Kernel,
        fa4::fa4_f16_d64::Kernel,
        fa4::fa4_f16_d128::Kernel,
        fa4::fa4v_bf16_d64::Kernel,
        fa4::fa4v_bf16_d128::Kernel,
        fa4::fa4v_f16_d64::Kernel,
        fa4::fa4v_f16_d128::Kernel,
    ]
}

fn generate(k: &Ir) -> Generated {
    codegen::generate(k).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_gemm_kernel_compiles_within_its_budget() {
    compile_within_budget("every_gemm_kernel_compiles_within_its_budget", &buildable());
}

/// The 2-CTA cluster GEMM: multicast loads, remote arrivals, the cluster barrier, the
/// persistent schedule and the TMA-store epilogue.
#[test]
fn the_cluster_gemm_compiles_within_its_budget() {
    compile_within_budget("the_cluster_gemm_compiles_within_its_budget", &[cluster_gemm::Kernel::ir()]);
}

#[test]
fn the_cluster_gemm_renders_its_cluster_operations() {
    let g = generate(cluster_gemm::Kernel::ir());
    let src = &g.source;
    for needle in [
        "__cluster_dims__(2, 1, 1)",
        "wsg::tma_load_multicast_2d(",
        "wsg::mbar_arrive_cluster(&S.Operands_empty[",
        "wsg::cluster_linear()",
        "wsg::store_frag_smem<wsg::Bf16, 128, 64, 128>(",
        "ws::tma_store_2d(P.c_map,",
    ] {
        assert!(src.contains(needle), "the generated source lacks `{needle}`");
    }
    // A stage's release to the peers is a plain remote arrive: a release at cluster scope
    // fences every k-step (53% tensor-pipe activity on the H200 instead of 96%).
    assert!(src.contains("mbarrier.arrive.shared::cluster.b64 _, [remote];"), "no remote arrive");
    assert!(!src.contains("mbarrier.arrive.release.cluster"), "a cluster-scope release on every k-step");
    // The mbarrier inits are visible to the cluster before any role starts.
    let init = src.find("ws::fence_mbarrier_init();").expect("barrier init fence");
    let dispatch = src.find("const ws::u32 warp = ws::warp_idx();").expect("dispatch");
    assert!(src[init..dispatch].contains("wsg::cluster_sync();"), "no cluster barrier after the inits");
    // B is multicast in half-tile boxes; C is stored in boxes of one warpgroup's rows.
    use codegen::ParamSlot;
    let map = |name: &str| {
        g.params.iter().find_map(|p| match p {
            ParamSlot::Map { global, rows, cols, .. } if global == name => Some((*rows, *cols)),
            _ => None,
        })
    };
    assert_eq!((map("a"), map("b"), map("c")), (Some((128, 64)), Some((32, 64)), Some((64, 64))));
}

#[test]
fn the_cluster_gemm_overlaps_each_tiles_store_with_the_next_tile() {
    let src = generate(cluster_gemm::Kernel::ir()).source;
    let start = src.find("void consumer(").expect("the consumer's function");
    let consumer = &src[start..start + src[start..].find("\n}\n").expect("its end")];
    // Per tile: wait for the stores issued so far, write the tile, store it; no wait after
    // the store in the loop, one after it, before the teardown's cluster barrier.
    let wait = "if (leader) ws::tma_store_wait_read<0>();";
    assert_eq!(consumer.matches(wait).count(), 2, "{consumer}");
    let at = |needle: &str| consumer.find(needle).unwrap_or_else(|| panic!("no `{needle}` in {consumer}"));
    let first_wait = at(wait);
    let (write, commit) = (at("wsg::store_frag_smem<"), at("ws::tma_store_commit();"));
    let last_wait = consumer.rfind(wait).unwrap_or(0);
    let teardown = consumer.rfind("wsg::cluster_sync();").unwrap_or(0);
    assert!(first_wait < write && write < commit && commit < last_wait && last_wait < teardown, "{consumer}");
    // Each wait is the instance's: the leader waits, then its warpgroup meets.
    let after = |i: usize| consumer[i + wait.len()..].trim_start().starts_with("ws::named_sync(2u + instance, 128);");
    assert!(after(first_wait) && after(last_wait), "{consumer}");
}

#[test]
fn cluster_gemm_source() {
    insta::assert_snapshot!(generate(cluster_gemm::Kernel::ir()).source);
}

#[test]
fn every_attention_kernel_compiles_within_its_budget() {
    compile_within_budget("every_attention_kernel_compiles_within_its_budget", &attention());
}

#[test]
fn every_blackwell_kernel_compiles_for_sm100a_within_its_budget() {
    let kernels = blackwell();
    for k in &kernels {
        assert_eq!(codegen::arch_of(k), Arch::Sm100a, "{}", k.name);
    }
    compile_within_budget("every_blackwell_kernel_compiles_for_sm100a_within_its_budget", &kernels);
}

/// Renders, compiles for the kernel's architecture and checks ptxas' report of every
/// kernel: no spills, no stack frame, registers within the roles' budget, `setmaxnreg`
/// honoured.
fn compile_within_budget(test: &str, kernels: &[&Ir]) {
    compile_generated_within_budget(test, kernels.iter().map(|k| generate(k)).collect());
}

fn compile_generated_within_budget(test: &str, generated: Vec<Generated>) {
    if !nvrtc_available(test) {
        return;
    }
    for g in &generated {
        let program = Program::new(format!("{}.cu", g.entry), g.translation_unit(), g.arch);
        let compiled = match compile(&program) {
            Ok(c) => c,
            Err(GpuError::Compile { log, .. }) => panic!("{}:\n{log}", g.entry),
            Err(e) => panic!("{}: {e}", g.entry),
        };
        let res = compiled.resources(&g.entry).unwrap_or_else(|e| panic!("{e}"));
        eprintln!("{}: {res:?}, {} threads, {} bytes dynamic shared memory", g.entry, g.threads, g.smem_bytes);
        res.check(&g.resource_budget()).unwrap_or_else(|e| panic!("{e}"));
        let ignored: Vec<&str> = compiled.warnings().into_iter().filter(|w| w.contains("C7508")).collect();
        assert!(ignored.is_empty(), "{}: ptxas ignored setmaxnreg: {ignored:?}", g.entry);
    }
}

/// The diagnostic build without TMA loads (`WS_COPIES_FREE`, `Cuda::without_copies`)
/// compiles within the same budget as the plain one, and is another binary: the define
/// reaches the copies (plain and multicast) and the transaction counts.
#[test]
fn copies_free_builds_compile_within_their_budget_and_differ() {
    let test = "copies_free_builds_compile_within_their_budget_and_differ";
    if !nvrtc_available(test) {
        return;
    }
    for k in [
        ws_gemm::Kernel::ir(),
        t::flat_128x256_p4::Kernel::ir(),
        fa::fa3_bf16_d128::Kernel::ir(),
        cluster_gemm::Kernel::ir(),
    ] {
        let g = generate(k);
        let plain = Program::new(format!("{}.cu", g.entry), g.translation_unit(), g.arch);
        let free = plain.clone().without_copies();
        let [plain, free] = [plain, free].map(|p| match compile(&p) {
            Ok(c) => c,
            Err(GpuError::Compile { log, .. }) => panic!("{}:\n{log}", g.entry),
            Err(e) => panic!("{}: {e}", g.entry),
        });
        let res = free.resources(&g.entry).unwrap_or_else(|e| panic!("{e}"));
        res.check(&g.resource_budget()).unwrap_or_else(|e| panic!("{}: {e}", g.entry));
        assert_ne!(plain.cubin, free.cubin, "{}: the define changed nothing", g.entry);
    }
}

/// Op timestamps: every role marks its work before each op (a site per op, naming role,
/// line and op), the buffer is the entry's last parameter, and the timestamped renderings
/// compile within the same register budget; the plain rendering has none of it.
#[test]
fn timestamped_kernels_mark_every_op_and_compile_within_their_budget() {
    let spec = codegen::TimestampSpec { ctas: 132, capacity: 4093, lines: None };
    let kernels = [
        ws_gemm::Kernel::ir(),
        t::flat_128x256_p4::Kernel::ir(),
        fa::fa3_bf16_d128::Kernel::ir(),
        fa::flat_bf16_d64::Kernel::ir(),
        cluster_gemm::Kernel::ir(),
        fa4::fa4_bf16_d128::Kernel::ir(),
    ];
    let mut generated = Vec::new();
    for k in kernels {
        let plain = generate(k);
        assert!(plain.timestamps.is_none() && !plain.source.contains("wsg::timestamp"), "{}", k.name);
        assert!(!plain.params.contains(&codegen::ParamSlot::Timestamps), "{}", k.name);
        let g = codegen::generate_timestamped(k, spec).unwrap_or_else(|e| panic!("{e}"));
        let layout = g.timestamps.as_ref().expect("a timestamp layout");
        assert_eq!((layout.spec, layout.warps), (spec, g.threads / 32), "{}", k.name);
        assert_eq!(g.params.last(), Some(&codegen::ParamSlot::Timestamps), "{}", k.name);
        assert_eq!(g.params.len(), plain.params.len() + 1, "{}", k.name);
        // One mark per site, each site's line in the kernel, every role marking.
        assert_eq!(
            g.source.matches("wsg::timestamp<4096u>(P.ws_timestamps, ws_ts, ").count(),
            layout.sites.len(),
            "{}",
            k.name
        );
        for role in &g.roles {
            let ops: Vec<&str> = layout.sites.iter().filter(|s| s.role == role.name).map(|s| s.op).collect();
            assert!(!ops.is_empty(), "{}: role `{}` marks nothing", k.name, role.name);
            assert!(!ops.contains(&"args") && !ops.contains(&"instance"), "{}: queries are not marked", k.name);
        }
        assert!(layout.sites.iter().all(|s| s.line > 0), "{}", k.name);
        assert!(layout.sites.iter().any(|s| s.op.contains("mma")), "{}", k.name);
        assert!(g.source.contains("wsg::timestamps_close<4096u>(P.ws_timestamps, ws_ts);"), "{}", k.name);
        // The budget of a timestamped rendering is its registers (it may spill: FA3's
        // consumers do, 156 bytes; the GPU run reports it).
        assert_eq!(g.resource_budget().max_registers, plain.resource_budget().max_registers, "{}", k.name);
        generated.push(g);
    }
    for bad in [
        codegen::TimestampSpec { ctas: 0, capacity: 30, lines: None },
        codegen::TimestampSpec { ctas: 1, capacity: 4094, lines: None },
    ] {
        let e = codegen::generate_timestamped(ws_gemm::Kernel::ir(), bad).expect_err("a bad spec");
        assert!(e.to_string().contains("power of two"), "{e}");
    }
    compile_generated_within_budget("timestamped_kernels_mark_every_op_and_compile_within_their_budget", generated);
}

/// Op timestamps on chosen lines only: the marks and sites are those of the full rendering
/// on those lines, and a bad set of lines is refused before rendering.
#[test]
fn timestamps_on_chosen_lines_mark_only_those_lines() {
    let k = t::flat_128x256_p4::Kernel::ir();
    let all = codegen::TimestampSpec { ctas: 1, capacity: 4093, lines: None };
    let every = codegen::generate_timestamped(k, all).unwrap_or_else(|e| panic!("{e}"));
    let sites = every.timestamps.expect("a layout").sites;
    let mut lines: Vec<u32> = sites.iter().filter(|s| s.op == "wgmma" || s.op == "release").map(|s| s.line).collect();
    lines.sort_unstable();
    lines.dedup();
    assert!(lines.len() >= 2, "{lines:?}");
    let chosen = codegen::MarkedLines::new(&lines).expect("a set of lines");
    let g = codegen::generate_timestamped(k, codegen::TimestampSpec { lines: Some(chosen), ..all })
        .unwrap_or_else(|e| panic!("{e}"));
    let marked = g.timestamps.expect("a layout").sites;
    let want: Vec<_> = sites.iter().filter(|s| lines.contains(&s.line)).collect();
    assert_eq!(marked.iter().collect::<Vec<_>>(), want);
    assert_eq!(g.source.matches("wsg::timestamp<4096u>(P.ws_timestamps, ws_ts, ").count(), marked.len());
    for bad in [&[][..], &[0], &[243, 243], &[1, 2, 3, 4, 5, 6, 7, 8, 9]] {
        assert!(codegen::MarkedLines::new(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn a_256_row_f32_accumulator_per_warpgroup_is_refused() {
    let e = codegen::generate(t::ws_256x256_p4::Kernel::ir()).expect_err("256 registers per thread do not fit");
    let msg = e.to_string();
    assert!(msg.contains("ws_256x256_p4") && msg.contains("sm_90a") && msg.contains("registers"), "{msg}");
}

#[test]
fn fa3_source() {
    insta::assert_snapshot!(generate(fa::fa3_bf16_d128::Kernel::ir()).source);
}

#[test]
fn ws_gemm_source() {
    insta::assert_snapshot!(generate(ws_gemm::Kernel::ir()).source);
}

#[test]
fn fa4v_source() {
    insta::assert_snapshot!(generate(fa4::fa4v_bf16_d128::Kernel::ir()).source);
}

#[test]
fn fa4_packs_its_one_warp_roles_into_one_warpgroup_to_fit_the_register_file() {
    let g = generate(fa4::fa4_bf16_d128::Kernel::ir());
    assert_eq!(g.arch, Arch::Sm100a);
    let at: Vec<(&str, u32, u32, Option<u32>)> =
        g.roles.iter().map(|r| (r.name.as_str(), r.base_warp, r.warps, r.regs)).collect();
    // load, mma and epilogue share warpgroup 0 (warp 3 idles); softmax takes warpgroups 1
    // and 2, correction 3.
    assert_eq!(
        at,
        [
            ("load", 0, 1, Some(48)),
            ("mma", 1, 1, Some(48)),
            ("softmax", 4, 8, Some(192)),
            ("correction", 12, 4, Some(80)),
            ("epilogue", 2, 1, Some(48)),
        ]
    );
    // 512 threads: 128 registers each at launch; setmaxnreg 48 + 2 x 192 + 80 per
    // warpgroup row of 128 threads is 128 x 512 = 65536, the whole register file.
    assert_eq!((g.threads, g.launch_registers), (512, 128));
    assert!(g.source.contains("ws::setmaxnreg_dec<48>();") && g.source.contains("ws::setmaxnreg_inc<192>();"));
    assert!(g.source.contains("wsg::tmem_alloc(&tmem_base, 512u);") && g.source.contains("wsg::tmem_dealloc("));
}

/// A Blackwell kernel whose roles fit the register file warp by warp but not once
/// `setmaxnreg` rounds them to warpgroups: `fetch` and `issue` share warpgroup 0 at 64
/// registers (8192), the two `spare` warpgroups take 2 x 128 x 232 = 59392.
#[warpspec::kernel]
mod over_budget {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub m: Global<f16>,
    }

    #[shared]
    pub struct Smem {
        tiles: Ring<Tile<f16, 128, 32>, 2>,
        acc: TmemTile<128, 128>,
    }

    #[pipeline(tma, producer = fetch, consumer = issue, guards = [tiles])]
    pub struct Operands;

    #[role(warps = 1, regs = 64)]
    pub async fn fetch(cx: &Ctx<'_, Args>, operands: Producer<'_, Operands>) {
        let slot = operands.acquire().await;
        cx.tma_load(&cx.args().m, &[0, 0], slot.tiles(), &slot);
        operands.commit(slot);
    }

    #[role(warps = 1, regs = 40)]
    pub async fn issue(cx: &Ctx<'_, Args>, operands: Consumer<'_, Operands>, acc: &TmemTile<128, 128>) {
        let ready = operands.wait().await;
        cx.umma(acc, ready.tiles(), ready.tiles().t(), false);
        operands.release_on_mma_completion(ready);
    }

    #[role(warpgroups = 2, regs = 232)]
    pub async fn spare(cx: &Ctx<'_, Args>) {
        let _ = cx.args();
    }
}

#[test]
fn a_kernel_over_the_register_file_once_packed_is_refused_naming_roles_and_numbers() {
    let e = codegen::generate(over_budget::Kernel::ir()).expect_err("67584 registers do not fit");
    let msg = e.to_string();
    for part in ["over_budget", "sm_100a", "67584", "65536", "fetch, issue", "64 x 128", "spare", "232 x 128"] {
        assert!(msg.contains(part), "`{part}` missing: {msg}");
    }
    assert!(!msg.contains('\n'), "{msg}");
}
