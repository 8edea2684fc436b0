//! The registry: names are unique, lookups are typed (a clear error for another message type),
//! names go away when their actor stops, and unregistering lets the actor become unreachable.

use motet_actor::{spawn, Actor, Context, Registry, RegistryError};
use motet_runtime::testing;

struct Echo;
impl Actor for Echo {
    type Msg = String;
    fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: String) {
        if msg == "stop" {
            ctx.stop();
        }
    }
}

struct Counter;
impl Actor for Counter {
    type Msg = u64;
    fn handle(&mut self, _: &mut Context<'_, Self>, _: u64) {}
}

#[test]
fn a_name_is_registered_once_and_looked_up_typed() {
    testing::check(|rt| {
        let registry = Registry::new();
        let echo = spawn(rt.handle(), Echo);
        let counter = spawn(rt.handle(), Counter);
        registry.register("echo", &echo).unwrap();
        registry.register("counter", &counter).unwrap();
        assert_eq!(
            registry.register("echo", &counter),
            Err(RegistryError::Taken {
                name: "echo".into(),
                holder: echo.id()
            })
        );
        assert_eq!(registry.lookup::<String>("echo").unwrap(), echo);
        assert_eq!(registry.lookup::<u64>("counter").unwrap(), counter);
        match registry.lookup::<u64>("echo") {
            Err(RegistryError::WrongType {
                expected, found, ..
            }) => {
                assert_eq!(expected, "u64");
                assert!(found.contains("String"), "{found}");
            }
            other => panic!("unexpected {other:?}"),
        }
        assert_eq!(
            registry.lookup::<u64>("nobody"),
            Err(RegistryError::NotFound("nobody".into()))
        );
        let names: Vec<String> = registry.entries().into_iter().map(|e| e.name).collect();
        assert_eq!(names, vec!["counter", "echo"]);
    });
}

#[test]
fn a_name_is_removed_when_its_actor_stops() {
    testing::check(|rt| {
        let registry = Registry::new();
        let echo = spawn(rt.handle(), Echo);
        registry.register("echo", &echo).unwrap();
        registry.register("alias", &echo).unwrap();
        let stopped = echo.watch();
        echo.tell("stop".into()).unwrap();
        assert!(stopped.wait().is_normal());
        assert!(!registry.contains("echo"));
        assert!(!registry.contains("alias"));
        assert!(registry.is_empty());
        assert_eq!(
            registry.register("echo", &echo),
            Err(RegistryError::Stopped)
        );
        // The name is free for another actor.
        let other = spawn(rt.handle(), Echo);
        registry.register("echo", &other).unwrap();
        assert_eq!(registry.lookup::<String>("echo").unwrap(), other);
    });
}

#[test]
fn a_reregistered_name_is_not_removed_by_the_old_actors_exit() {
    testing::check(|rt| {
        let registry = Registry::new();
        let old = spawn(rt.handle(), Echo);
        let new = spawn(rt.handle(), Echo);
        registry.register("svc", &old).unwrap();
        assert!(registry.unregister("svc"));
        registry.register("svc", &new).unwrap();
        let stopped = old.watch();
        old.tell("stop".into()).unwrap();
        stopped.wait();
        assert_eq!(registry.lookup::<String>("svc").unwrap(), new);
    });
}

#[test]
fn an_unregistered_actor_can_become_unreachable() {
    testing::check(|rt| {
        let registry = Registry::new();
        let echo = spawn(rt.handle(), Echo);
        registry.register("echo", &echo).unwrap();
        let stopped = echo.watch();
        drop(echo);
        assert!(registry.unregister("echo"));
        assert_eq!(stopped.wait(), motet_actor::ExitReason::Unreachable);
    });
}

#[test]
fn an_actor_registered_again_loses_its_names_when_it_stops() {
    testing::check(|rt| {
        let registry = Registry::new();
        let echo = spawn(rt.handle(), Echo);
        for _ in 0..5 {
            registry.register("echo", &echo).unwrap();
            assert!(registry.unregister("echo"));
        }
        registry.register("echo", &echo).unwrap();
        registry.register("alias", &echo).unwrap();
        let stopped = echo.watch();
        echo.tell("stop".into()).unwrap();
        stopped.wait();
        assert!(registry.is_empty());
    });
}
