//! What the sanitizer's test files share. Each runs the emulator as a sanitizer: for a class
//! of barrier bug that only shows at run time (see `shared/reference/barrier-bugs.md`), a
//! kernel with the bug planted and a test of the report's content: the kind of violation, the
//! warps and role, the barrier and phase, and the kernel source line.
//!
//! `#[kernel]` rejects at compile time every bug it can see in the module's text, so the
//! planted bugs sit where it cannot look: role bodies written as functions outside the
//! `#[kernel]` module (as code shared from another module or crate would be), values it
//! cannot evaluate (`const fn` calls), and stage indices chosen at launch. The emulator is
//! what catches them.
//!
//! Source lines are found by markers (`// @name`) on the lines the report must point at
//! ([`Marked`]). The planted bugs here are the ones more than one test file runs.

use warpspec::Grid;
use warpspec::dsl::{Barrier, Kernel};
use warpspec::emu::{self, EmuError, EmuOptions, Violation};
use warpspec::prelude::*;

/// A source file whose lines carry markers (`// @name`): the end of its path and its text.
pub struct Marked {
    file: &'static str,
    text: &'static str,
}

impl Marked {
    /// The file whose path ends with `file`, with text `text`.
    pub const fn new(file: &'static str, text: &'static str) -> Self {
        Self { file, text }
    }

    /// The line of the file that carries `marker` (and is not a call of this function).
    pub fn line_of(&self, marker: &str) -> u32 {
        let tag = format!("// {marker}");
        let found = self.text.lines().position(|l| l.trim_end().ends_with(&tag) && !l.contains("line_of("));
        found.map_or_else(|| panic!("no line marked {marker}"), |i| i as u32 + 1)
    }

    /// Checks that `v` points at the line of the file that carries `marker`, and names it.
    pub fn assert_at(&self, v: &Violation, marker: &str) {
        let at = v.at.unwrap_or_else(|| panic!("no source location in: {v}"));
        assert!(at.file().ends_with(self.file), "{at}");
        assert_eq!(at.line(), self.line_of(marker), "{v}");
        assert!(v.to_string().contains(&format!("{}:{}", self.file, at.line())), "{v}");
    }
}

/// The markers of this file, on the planted bugs below.
pub const SOURCE: Marked = Marked::new("sanitizer.rs", include_str!("sanitizer.rs"));

/// Runs `K` on one CTA with race detection on and returns the violation it must report.
pub fn violation<K: Kernel>(params: &K::Params) -> Violation {
    violation_with::<K>(params, &EmuOptions::checked())
}

/// Runs `K` on one CTA with `options` and returns the violation it must report.
pub fn violation_with<K: Kernel>(params: &K::Params, options: &EmuOptions) -> Violation {
    match emu::run_with::<K>(Grid::new(1, 1, 1), params, options) {
        Err(EmuError::Violation(v)) => *v,
        Err(other) => panic!("expected a violation, got: {other}"),
        Ok(_) => panic!("expected a violation, the run succeeded"),
    }
}

/// Checks that `v` was found at an instance of `role` on warps `warps`.
pub fn assert_by(v: &Violation, role: &str, warps: (u32, u32)) {
    let by = v.by.as_ref().unwrap_or_else(|| panic!("no instance in: {v}"));
    assert_eq!((by.role, by.warps), (role, warps), "{v}");
}

/// The size of one 64 x 16 f32 tile.
pub const TILE_BYTES: u32 = 64 * 16 * 4;

// ---- class 2: arrival-count mismatch (over-arrival) ----

/// Every lane of the producer arrives with the expected bytes, as if the elected-thread guard
/// were missing: the second arrival underflows a barrier that counts one.
#[warpspec::kernel]
pub mod every_lane_arrives {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub x: Global<f32>,
        pub lanes: usize,
    }

    #[shared]
    pub struct Smem {
        buf: Tile<f32, 64, 16>,
    }

    #[barrier(arrive = [producer], wait = [consumer], count = 1)]
    pub struct Loaded;

    #[role(warps = 1, regs = 40)]
    pub async fn producer(cx: &Ctx<'_, Args>, loaded: Arriver<'_, Loaded>, buf: &Tile<f32, 64, 16>) {
        super::every_lane_arrives_producer(cx, &loaded, buf);
    }

    #[role(warpgroups = 1, regs = 232)]
    pub async fn consumer(cx: &Ctx<'_, Args>, loaded: Waiter<'_, Loaded>, buf: &Tile<f32, 64, 16>) {
        super::load_after(cx, &loaded, buf, 0, &cx.args().x).await;
    }
}

fn every_lane_arrives_producer(
    cx: &Ctx<'_, every_lane_arrives::Args>,
    loaded: &Arriver<'_, every_lane_arrives::Loaded>,
    buf: &Tile<f32, 64, 16>,
) {
    for _ in 0..cx.args().lanes {
        loaded.arrive_expect_tx(0, TILE_BYTES); // @every-lane
    }
    cx.tma_load(&cx.args().x, &[0, 0], buf, &loaded.tx(0));
}

/// Waits on stage 0 of `loaded` with `parity`, then copies `buf` to `out`.
async fn load_after<P, B: Barrier>(
    cx: &Ctx<'_, P>,
    loaded: &Waiter<'_, B>,
    buf: &Tile<f32, 64, 16>,
    parity: u32,
    out: &Global<f32>,
) {
    loaded.wait(0, parity).await;
    let tile = cx.load(buf);
    cx.store_global(&tile, out, &[0, 0]);
}

// ---- class 3: transaction bytes above and below the expected count ----

/// The producer expects two tiles' bytes and loads one; nobody waits, so the CTA ends with
/// the phase open.
#[warpspec::kernel]
pub mod too_few_bytes {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub x: Global<f32>,
        pub expected: u32,
    }

    #[shared]
    pub struct Smem {
        buf: Tile<f32, 64, 16>,
    }

    #[barrier(arrive = [producer], wait = [consumer], count = 1)]
    pub struct Loaded;

    #[role(warps = 1, regs = 40)]
    pub async fn producer(cx: &Ctx<'_, Args>, loaded: Arriver<'_, Loaded>, buf: &Tile<f32, 64, 16>) {
        super::too_few_bytes_producer(cx, &loaded, buf);
    }

    #[role(warps = 1, regs = 40)]
    pub async fn consumer(_cx: &Ctx<'_, Args>, _loaded: Waiter<'_, Loaded>) {}
}

fn too_few_bytes_producer(
    cx: &Ctx<'_, too_few_bytes::Args>,
    loaded: &Arriver<'_, too_few_bytes::Loaded>,
    buf: &Tile<f32, 64, 16>,
) {
    cx.tma_load(&cx.args().x, &[0, 0], buf, &loaded.tx(0));
    loaded.arrive_expect_tx(0, cx.args().expected); // @expect-bytes
}

// ---- classes 1 and 5: races on shared memory ----

/// The consumer waits with the wrong initial parity (1, the phase "before" the first, which
/// passes at once) and reads the tile while the TMA load filling it is in flight.
#[warpspec::kernel]
pub mod wrong_initial_parity {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub x: Global<f32>,
        pub parity: u32,
    }

    #[shared]
    pub struct Smem {
        buf: Tile<f32, 64, 16>,
    }

    #[barrier(arrive = [producer], wait = [consumer], count = 1)]
    pub struct Loaded;

    #[barrier(arrive = [consumer], wait = [producer], count = 1)]
    pub struct Go;

    #[role(warps = 1, regs = 40)]
    pub async fn producer(
        cx: &Ctx<'_, Args>,
        loaded: Arriver<'_, Loaded>,
        go: Waiter<'_, Go>,
        buf: &Tile<f32, 64, 16>,
    ) {
        super::wrong_initial_parity_producer(cx, &loaded, &go, buf).await;
    }

    #[role(warps = 1, regs = 40)]
    pub async fn consumer(
        cx: &Ctx<'_, Args>,
        loaded: Waiter<'_, Loaded>,
        go: Arriver<'_, Go>,
        buf: &Tile<f32, 64, 16>,
    ) {
        super::wrong_initial_parity_consumer(cx, &loaded, &go, buf).await;
    }
}

async fn wrong_initial_parity_producer(
    cx: &Ctx<'_, wrong_initial_parity::Args>,
    loaded: &Arriver<'_, wrong_initial_parity::Loaded>,
    go: &Waiter<'_, wrong_initial_parity::Go>,
    buf: &Tile<f32, 64, 16>,
) {
    cx.tma_load(&cx.args().x, &[0, 0], buf, &loaded.tx(0)); // @tma-write
    if cx.args().parity == 1 {
        go.wait(0, 0).await;
    }
    loaded.arrive_expect_tx(0, TILE_BYTES);
}

async fn wrong_initial_parity_consumer(
    cx: &Ctx<'_, wrong_initial_parity::Args>,
    loaded: &Waiter<'_, wrong_initial_parity::Loaded>,
    go: &Arriver<'_, wrong_initial_parity::Go>,
    buf: &Tile<f32, 64, 16>,
) {
    loaded.wait(0, cx.args().parity).await;
    let tile = cx.load(buf); // @read-in-flight
    if cx.args().parity == 1 {
        go.arrive(0);
    }
    cx.store_global(&tile, &cx.args().x, &[0, 0]);
}
