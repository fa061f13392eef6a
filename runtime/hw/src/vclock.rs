//! Vector clocks: the happens-before order that barrier arrivals and waits create between
//! agents (role instances, asynchronous units).
//!
//! Each agent counts its own events; a clock holds, per agent, the latest of its events
//! known to have happened before. An arrival publishes the arriving agent's clock into the
//! barrier; a wait that passes joins what the barrier published into the waiter's clock.
//! Event `e` of agent `a` happened before whatever holds a clock `c` with `c[a] >= e`.

/// One event of one agent: agent `agent`'s `time`-th event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Epoch {
    /// The agent.
    pub agent: u32,
    /// Its event count at the event.
    pub time: u32,
}

/// A vector clock over a fixed number of agents.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct VectorClock(Vec<u32>);

impl VectorClock {
    /// The clock that has seen nothing, over `agents` agents.
    pub fn zero(agents: usize) -> Self {
        Self(vec![0; agents])
    }

    /// Agents the clock covers.
    pub fn agents(&self) -> usize {
        self.0.len()
    }

    /// The latest event of `agent` this clock has seen (0: none; out of range: 0).
    pub fn get(&self, agent: usize) -> u32 {
        self.0.get(agent).copied().unwrap_or(0)
    }

    /// Joins `other` into this clock: afterwards it has seen everything either had.
    pub fn join(&mut self, other: &VectorClock) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a = (*a).max(*b);
        }
    }

    /// Records that `agent`'s event `time` has been seen.
    pub fn raise(&mut self, agent: usize, time: u32) {
        if let Some(a) = self.0.get_mut(agent) {
            *a = (*a).max(time);
        }
    }

    /// Counts a new event of `agent` (the clock's owner) and returns it.
    pub fn tick(&mut self, agent: usize) -> Epoch {
        let time = match self.0.get_mut(agent) {
            Some(a) => {
                *a += 1;
                *a
            }
            None => 0,
        };
        Epoch { agent: agent as u32, time }
    }

    /// Whether event `epoch` happened before this clock.
    pub fn covers(&self, epoch: Epoch) -> bool {
        self.get(epoch.agent as usize) >= epoch.time
    }

    /// Whether this clock has seen everything `other` has (`other` ≤ `self`).
    pub fn dominates(&self, other: &VectorClock) -> bool {
        other.0.iter().enumerate().all(|(agent, &t)| self.get(agent) >= t)
    }

    /// Whether the events of agent `a` at clock `ca` and of agent `b` at clock `cb` are
    /// unordered: neither has seen the other's own latest event.
    pub fn concurrent(a: usize, ca: &VectorClock, b: usize, cb: &VectorClock) -> bool {
        ca.get(a) > cb.get(a) && cb.get(b) > ca.get(b)
    }

    /// Clears the clock back to having seen nothing.
    pub fn clear(&mut self) {
        self.0.iter_mut().for_each(|t| *t = 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrivals_and_waits_order_events() {
        let (mut producer, mut consumer, mut barrier) =
            (VectorClock::zero(2), VectorClock::zero(2), VectorClock::zero(2));
        let write = producer.tick(0);
        assert!(!consumer.covers(write));
        barrier.join(&producer); // arrive
        consumer.join(&barrier); // wait passes
        assert!(consumer.covers(write) && consumer.dominates(&producer));
        consumer.tick(1);
        assert!(!producer.dominates(&consumer));
    }

    #[test]
    fn unordered_events_are_concurrent() {
        let (mut a, mut b) = (VectorClock::zero(2), VectorClock::zero(2));
        a.tick(0);
        b.tick(1);
        assert!(VectorClock::concurrent(0, &a, 1, &b));
        b.join(&a);
        b.tick(1);
        assert!(!VectorClock::concurrent(0, &a, 1, &b));
    }
}
