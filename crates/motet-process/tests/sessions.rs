//! Session-typed channels: protocols run to their end, recursion, choices, and the error a peer sees
//! when the other endpoint is dropped early. The compile-fail tests (`session_fail/`) check that
//! deviating from a protocol does not compile.

use motet_process::session::{
    session, Branch, Chan, Choose, Disconnected, End, Offer, Rec, Recv, Send, Session, Var, Z,
};
use motet_process::ProcessSystem;
use motet_runtime::testing;

/// A bank account: repeatedly deposit (get the new balance back) or quit.
type Account = Rec<Offer<Recv<u64, Send<u64, Var<Z>>>, End>>;
type Customer = <Account as Session>::Dual;

#[test]
fn the_dual_is_computed_by_the_type_system() {
    // Compiles only if the dual is exactly this type.
    type Expected = Rec<Choose<Send<u64, Recv<u64, Var<Z>>>, End>>;
    let (_account, _customer): (Chan<Account>, Chan<Expected>) = session::<Account>();
    // The dual of the dual is the protocol itself.
    let _: Chan<<Customer as Session>::Dual> = session::<Account>().0;
    let _: Chan<Customer> = session::<Account>().1;
}

#[test]
fn a_recursive_protocol_runs_to_its_end() {
    testing::check(|rt| {
        let system = ProcessSystem::new(rt.handle());
        let (account, customer) = session::<Account>();
        system.spawn(async move {
            let mut balance = 0;
            let mut chan = account.enter();
            loop {
                match chan.offer().await.unwrap() {
                    Branch::Left(deposit) => {
                        let (amount, reply) = deposit.recv().await.unwrap();
                        balance += amount;
                        chan = reply.send(balance).unwrap().zero();
                    }
                    Branch::Right(end) => {
                        end.close();
                        return;
                    }
                }
            }
        });
        let balances = system
            .block_on(async move {
                let mut chan = customer.enter();
                let mut seen = Vec::new();
                for amount in [10, 20, 30] {
                    let reply = chan.left().unwrap().send(amount).unwrap();
                    let (balance, next) = reply.recv().await.unwrap();
                    seen.push(balance);
                    chan = next.zero();
                }
                chan.right().unwrap().close();
                seen
            })
            .unwrap();
        assert_eq!(balances, [10, 30, 60]);
        system.wait().unwrap();
    });
}

#[test]
fn dropping_an_endpoint_early_disconnects_the_peer() {
    testing::check(|rt| {
        let system = ProcessSystem::new(rt.handle());
        // The server drops its endpoint instead of answering.
        let (server, client) = session::<Recv<u32, Send<u32, End>>>();
        system.spawn(async move {
            let (_request, reply) = server.recv().await.unwrap();
            drop(reply);
        });
        let result = system
            .block_on(async move {
                let waiting = client.send(1).unwrap();
                waiting.recv().await.map(|(v, c)| {
                    c.close();
                    v
                })
            })
            .unwrap();
        assert_eq!(result, Err(Disconnected(())));
        system.wait().unwrap();
        // A send to a dropped peer hands the value back.
        let (a, b) = session::<Send<String, End>>();
        drop(b);
        match a.send("lost?".to_string()) {
            Err(Disconnected(v)) => assert_eq!(v, "lost?"),
            Ok(c) => {
                c.close();
                panic!("sent to a dropped peer")
            }
        }
    });
}

#[test]
fn blocking_endpoints_for_threads() {
    let rt = motet_runtime::Runtime::builder()
        .workers(2)
        .build()
        .unwrap();
    let system = ProcessSystem::new(rt.handle());
    let (server, client) = session::<Offer<Recv<u8, End>, End>>();
    system.spawn(async move {
        client.left().unwrap().send(9).unwrap().close();
    });
    match server.offer_blocking().unwrap() {
        Branch::Left(c) => {
            let (v, end) = c.recv_blocking().unwrap();
            end.close();
            assert_eq!(v, 9);
        }
        Branch::Right(end) => {
            end.close();
            panic!("the client chose left");
        }
    }
    system.wait().unwrap();
}

#[test]
fn protocol_violations_do_not_compile() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/session_fail/*.rs");
}
