// Three warpgroups of 240 registers and a producer warp of 40: 97,408 registers, more than
// the 65,536 of an SM.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[role(warps = 1, regs = 40)]
    pub async fn producer(_cx: &Ctx<'_, ()>) {}

    #[role(warpgroups = 3, regs = 240)]
    pub async fn consumer(_cx: &Ctx<'_, ()>) {}
}

fn main() {}
