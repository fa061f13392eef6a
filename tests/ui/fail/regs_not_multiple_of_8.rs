// `setmaxnreg` takes a multiple of 8 in 24..=256.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[role(warps = 1, regs = 100)]
    pub async fn only(_cx: &Ctx<'_, ()>) {}
}

fn main() {}
