//! Turns of the requests other servers forward here: so many answered at once, at most
//! half of them for one page address, the rest of that address's requests waiting in a
//! line of its own. One student's flood through other servers then delays that
//! student's address, never everyone else's forwarded requests.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::net::limits::ClientKey;

/// Forwarded requests being answered or waiting, overall and per page address.
pub struct Turns {
    at_once: Arc<Semaphore>,
    limits: TurnLimits,
    addresses: Arc<Mutex<HashMap<ClientKey, Address>>>,
}

/// How many requests are answered at once, and what one page address may hold.
#[derive(Clone, Copy, Debug)]
pub struct TurnLimits {
    /// Answered at once, every address together.
    pub at_once: usize,
    /// Answered at once for one address.
    pub per_address: usize,
    /// Answered or waiting for one address; past it the next is refused.
    pub held_per_address: usize,
}

/// One address's requests: how many are held, and its own turns.
struct Address {
    held: usize,
    turns: Arc<Semaphore>,
}

/// A request's place in its address's line; given back when dropped.
pub struct Place {
    address: ClientKey,
    turns: Arc<Semaphore>,
    addresses: Arc<Mutex<HashMap<ClientKey, Address>>>,
}

/// A request's turn to be answered: its place, one of its address's turns and one of
/// the overall ones.
pub struct Turn {
    _overall: OwnedSemaphorePermit,
    _address: OwnedSemaphorePermit,
    _place: Place,
}

impl Turns {
    /// Turns as `limits` say.
    pub fn new(limits: TurnLimits) -> Turns {
        Turns { at_once: Arc::new(Semaphore::new(limits.at_once)), limits, addresses: Arc::default() }
    }

    /// A place for a request from `address`, or `None` when that address already holds
    /// as many (answered or waiting) as it may: refuse it at once.
    pub fn place(&self, address: IpAddr) -> Option<Place> {
        // Counted as every other limit counts a client: an IPv6 one as its /64.
        let address = ClientKey::of(address);
        let mut addresses = self.addresses.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let entry = addresses
            .entry(address)
            .or_insert_with(|| Address { held: 0, turns: Arc::new(Semaphore::new(self.limits.per_address)) });
        if entry.held >= self.limits.held_per_address {
            return None;
        }
        entry.held += 1;
        Some(Place { address, turns: Arc::clone(&entry.turns), addresses: Arc::clone(&self.addresses) })
    }

    /// Waits for one of the address's turns, then for one of the overall ones (both
    /// served in order of arrival).
    pub async fn turn(&self, place: Place) -> Turn {
        let address = Arc::clone(&place.turns).acquire_owned().await.expect("an address's turns are never closed");
        let overall = Arc::clone(&self.at_once).acquire_owned().await.expect("the turns are never closed");
        Turn { _overall: overall, _address: address, _place: place }
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut addresses = self.addresses.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(entry) = addresses.get_mut(&self.address) {
            entry.held -= 1;
            if entry.held == 0 {
                addresses.remove(&self.address);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use futures_util::poll;

    use super::*;

    const LIMITS: TurnLimits = TurnLimits { at_once: 4, per_address: 2, held_per_address: 3 };

    fn address(last: u8) -> IpAddr {
        IpAddr::from([10, 0, 0, last])
    }

    #[tokio::test]
    async fn one_address_has_at_most_its_share_answered_while_another_is_answered_beside_it() {
        let turns = Turns::new(LIMITS);
        let first = turns.turn(turns.place(address(1)).unwrap()).await;
        let _second = turns.turn(turns.place(address(1)).unwrap()).await;
        let third = turns.turn(turns.place(address(1)).unwrap());
        tokio::pin!(third);
        assert!(poll!(&mut third).is_pending(), "a third from one address waits for its address's turn");
        let other = turns.turn(turns.place(address(2)).unwrap());
        tokio::pin!(other);
        assert!(poll!(&mut other).is_ready(), "another address is answered while the first one waits");
        drop(first);
        assert!(poll!(&mut third).is_ready(), "the address's next request goes when one of its own is done");
    }

    #[tokio::test]
    async fn an_address_holding_its_most_is_refused_and_then_forgotten() {
        let turns = Turns::new(LIMITS);
        let held: Vec<Place> = (0..3).map(|_| turns.place(address(1)).unwrap()).collect();
        assert!(turns.place(address(1)).is_none(), "a fourth held from one address is refused");
        assert!(turns.place(address(2)).is_some(), "another address is not");
        drop(held);
        assert!(turns.addresses.lock().unwrap().is_empty(), "addresses holding nothing are forgotten");
        assert!(turns.place(address(1)).is_some());
    }

    #[tokio::test]
    async fn past_the_overall_turns_every_address_waits_in_order() {
        let turns = Turns::new(TurnLimits { at_once: 1, ..LIMITS });
        let first = turns.turn(turns.place(address(1)).unwrap()).await;
        let waiting = turns.turn(turns.place(address(2)).unwrap());
        tokio::pin!(waiting);
        assert!(poll!(&mut waiting).is_pending());
        drop(first);
        assert!(poll!(&mut waiting).is_ready());
    }
}
