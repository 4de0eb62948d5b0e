//! Lab leases on a real nats-server: one owner at a time, renewals, expiry of a dead
//! holder's lease, release, and a holder cut off from NATS giving up before anyone else
//! can claim.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use vlab_cluster::testkit::{NatsServer, nats_url, unique_name};
use vlab_cluster::{ClaimError, ReleaseError};

use super::proxy::Proxy;
use super::{FAST, directory, eventually};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn of_two_servers_claiming_a_lab_at_once_exactly_one_wins_and_the_other_is_told_who() {
    let name = unique_name("claims");
    let (a, b) = (directory(&nats_url(), &name).await, directory(&nats_url(), &name).await);
    for round in 0..5 {
        let lab = format!("lab-{round}");
        let (from_a, from_b) = tokio::join!(a.claim(&lab, "server-a"), b.claim(&lab, "server-b"));
        let (winner, loser) = match (from_a, from_b) {
            (Ok(lease), Err(error)) => (("server-a", lease), error),
            (Err(error), Ok(lease)) => (("server-b", lease), error),
            (a, b) => panic!("round {round}: not exactly one winner: {:?} / {:?}", a.err(), b.err()),
        };
        match loser {
            ClaimError::Taken { owner } => assert_eq!(owner, winner.0),
            other => panic!("round {round}: the loser got {other}"),
        }
        assert!(winner.1.is_held());
        assert_eq!(a.owner_of(&lab).await.unwrap().as_deref(), Some(winner.0));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn renewals_keep_a_lease_held_and_taken_for_several_ttls() {
    let name = unique_name("renewals");
    let (a, b) = (directory(&nats_url(), &name).await, directory(&nats_url(), &name).await);
    let lease = a.claim("demo", "server-a").await.unwrap();
    let holder = lease.holder();
    let end = Instant::now() + FAST.lease_ttl * 4;
    let mut checks = 0;
    while Instant::now() < end {
        tokio::time::sleep(FAST.lease_ttl / 2).await;
        assert!(holder.is_held(), "the lease was lost after {checks} checks");
        assert!(matches!(b.claim("demo", "server-b").await, Err(ClaimError::Taken { owner }) if owner == "server-a"));
        checks += 1;
    }
    assert!(b.orphans(["demo"]).await.unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_holders_lease_expires_and_another_server_claims_it() {
    let name = unique_name("killed");
    let b = directory(&nats_url(), &name).await;
    let a = directory(&nats_url(), &name).await;
    let lease = a.claim("demo", "server-a").await.unwrap();
    let other = a.claim("other", "server-a").await.unwrap();
    // Killed: its renewals stop, nothing is released, its connection goes.
    drop((lease, other, a));
    assert!(matches!(b.claim("demo", "server-b").await, Err(ClaimError::Taken { .. })));

    let orphans = eventually("the dead holder's labs are orphans", || async {
        let orphans = b.orphans(["demo", "other", "never-claimed"]).await.unwrap();
        (orphans.len() == 3).then_some(orphans)
    })
    .await;
    assert_eq!(orphans, ["demo", "other", "never-claimed"]);
    assert_eq!(b.owner_of("demo").await.unwrap(), None);
    let taken = b.claim("demo", "server-b").await.unwrap();
    assert!(taken.is_held());
    assert_eq!(b.owner_of("demo").await.unwrap().as_deref(), Some("server-b"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_released_lease_is_given_up_at_once_and_claimable_at_once() {
    let name = unique_name("release");
    let (a, b) = (directory(&nats_url(), &name).await, directory(&nats_url(), &name).await);
    // A name that is not a valid key as it is.
    let lab = "class 3.b/ramp*";
    let lease = a.claim(lab, "server-a").await.unwrap();
    let holder = lease.holder();
    lease.release().await.unwrap();
    assert!(!holder.is_held());
    assert_eq!(b.orphans([lab]).await.unwrap(), [lab]);
    let taken = b.claim(lab, "server-b").await.unwrap();
    assert_eq!(a.owner_of(lab).await.unwrap().as_deref(), Some("server-b"));
    assert!(taken.is_held());
    assert!(!holder.is_held(), "a lost lease stays lost");
}

/// A holder whose NATS connection is cut stops holding before the NATS server expires
/// its lease, so before anyone else's claim can succeed; when its connection comes back
/// it holds nothing, and its release does not delete the new owner's lease.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_holder_cut_off_from_nats_gives_its_lease_up_before_another_server_can_claim_it() {
    let nats = NatsServer::start_private();
    let proxy = Proxy::start(nats.port()).await;
    let name = unique_name("partition");
    let a = directory(&proxy.url(), &name).await;
    let b = directory(&nats.url(), &name).await;
    let lease = a.claim("demo", "server-a").await.unwrap();

    // The lab's loop, as it will run: it checks the lease before every step and notes
    // when it first finds it gone.
    let first_not_held: Arc<Mutex<Option<Instant>>> = Arc::default();
    let stepper = tokio::spawn({
        let (holder, first_not_held) = (lease.holder(), first_not_held.clone());
        async move {
            while holder.is_held() {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            *first_not_held.lock().unwrap() = Some(Instant::now());
        }
    });
    // Renewed through the proxy for a while first.
    tokio::time::sleep(FAST.lease_ttl).await;
    assert!(lease.is_held());

    proxy.sever();
    let claim_sent = eventually("server b claims the lab", || async {
        let sent = Instant::now();
        match b.claim("demo", "server-b").await {
            Ok(new_lease) => Some((sent, new_lease)),
            Err(ClaimError::Taken { owner }) => {
                assert_eq!(owner, "server-a");
                None
            }
            Err(error) => panic!("{error}"),
        }
    })
    .await;
    let (claim_sent, new_lease) = claim_sent;
    stepper.await.unwrap();
    let stepped_last = first_not_held.lock().unwrap().expect("the stepper noted when it stopped");
    let lost_at = lease.holder().lost().await;
    assert!(lost_at <= stepped_last);
    // The NATS server stored b's claim after b sent it: a had stopped before that.
    assert!(stepped_last < claim_sent, "a stopped at {stepped_last:?}, b claimed at {claim_sent:?}");

    proxy.restore();
    // Back on NATS, a holds nothing and cannot delete b's lease.
    assert!(!lease.is_held());
    match lease.release().await {
        Err(ReleaseError::NotOurs { lab }) => assert_eq!(lab, "demo"),
        other => panic!("a's release of b's lease gave {other:?}"),
    }
    assert_eq!(b.owner_of("demo").await.unwrap().as_deref(), Some("server-b"));
    assert!(new_lease.is_held());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_evaluations_lease_has_one_holder_and_a_dead_holders_becomes_unheld_and_claimable() {
    let name = unique_name("evaluations");
    let b = directory(&nats_url(), &name).await;
    let a = directory(&nats_url(), &name).await;
    let held = a.claim_evaluation(7, "server-a").await.unwrap();
    // A lab whose name spells the evaluation's key is another lease.
    let lab = b.claim("evaluation.7", "server-b").await.unwrap();
    assert!(matches!(b.claim_evaluation(7, "server-b").await, Err(ClaimError::Taken { owner }) if owner == "server-a"));
    assert_eq!(b.evaluation_owner(7).await.unwrap().as_deref(), Some("server-a"));
    assert_eq!(b.unheld_evaluations([7, 8]).await.unwrap(), [8], "7 is held, 8 never was");
    assert_eq!(held.lab(), "evaluation 7");

    // Killed: nothing released.
    drop((held, a));
    let unheld = eventually("the dead holder's evaluation is unheld", || async {
        let unheld = b.unheld_evaluations([7, 8]).await.unwrap();
        (unheld.len() == 2).then_some(unheld)
    })
    .await;
    assert_eq!(unheld, [7, 8]);
    let taken = b.claim_evaluation(7, "server-b").await.unwrap();
    assert!(taken.is_held() && lab.is_held());
    assert_eq!(b.evaluation_owner(7).await.unwrap().as_deref(), Some("server-b"));
    taken.release().await.unwrap();
    assert_eq!(b.unheld_evaluations([7]).await.unwrap(), [7], "released: claimable at once");
}
