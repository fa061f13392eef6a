// A request/response handshake on two single barriers, each side keeping its own parity
// variable and flipping it after every wait.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub rounds: usize,
    }

    #[barrier(arrive = [client], wait = [server])]
    pub struct Request;

    #[barrier(arrive = [server], wait = [client])]
    pub struct Response;

    #[role(warps = 1, regs = 40)]
    pub async fn client(cx: &Ctx<'_, Args>, request: Arriver<'_, Request>, response: Waiter<'_, Response>) {
        let mut parity = 0;
        for _ in 0..cx.args().rounds {
            request.arrive(0);
            response.wait(0, parity).await;
            parity ^= 1;
        }
    }

    #[role(warps = 1, regs = 40)]
    pub async fn server(cx: &Ctx<'_, Args>, request: Waiter<'_, Request>, response: Arriver<'_, Response>) {
        let mut parity = 0;
        let mut served = 0;
        loop {
            if served == cx.args().rounds {
                break;
            }
            request.wait(0, parity).await;
            parity ^= 1;
            response.arrive(0);
            served += 1;
        }
    }
}

fn main() {}
