//! Physical time: physical actions from threads and actors, keepalive, waking a sleeping scheduler,
//! physical connections, deadlines, and logical time chasing physical time. These programs are
//! nondeterministic by design (their tags come from the clock), so they check properties, never
//! times.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::reactors::{log_on, startup_source};
use common::{configs, runner, Config, Log};
use motet_reactor::{Declare, ProgramBuilder, Readable, Scope, Shutdown, Startup, Tag};

const ZERO: Duration = Duration::ZERO;

fn all_configs() -> Vec<Config> {
    configs(&[1, 2])
}

/// What a reaction saw: (tag, value) in the order it saw them.
type Seen<T> = Arc<Mutex<Vec<(Tag, T)>>>;

/// A reaction `recv` of `scope`, triggered by `x`, that records each value of `x` with its tag.
fn record<S: 'static, T: Clone + Send + 'static>(
    b: &mut ProgramBuilder,
    scope: impl Into<Scope<S>>,
    x: impl Declare + Readable<T> + Send + 'static,
) -> Seen<T> {
    let seen = Seen::default();
    let s = seen.clone();
    b.reaction(scope, "recv").trigger(x).body(move |_, ctx| {
        let v = ctx.get(x).unwrap().clone();
        s.lock().unwrap().push((ctx.tag(), v));
    });
    seen
}

#[test]
fn physical_actions_from_a_thread_arrive_in_order_and_keepalive_ends_with_the_sender() {
    for cfg in all_configs() {
        let mut b = ProgramBuilder::new();
        let r = b.reactor("r", ());
        let a = b.physical_action::<u32, _>(r, "a", ZERO);
        let seen = record(&mut b, r, a);
        let mut program = b.build().unwrap();
        let tx = program.sender(a);
        let t = std::thread::spawn(move || {
            for v in 1..=3 {
                std::thread::sleep(Duration::from_millis(2));
                tx.send(v);
            }
            // dropping `tx` lets the program end
        });
        runner(cfg, false, None).run(&mut program).unwrap();
        t.join().unwrap();
        let seen = seen.lock().unwrap();
        let values: Vec<u32> = seen.iter().map(|e| e.1).collect();
        assert_eq!(values, [1, 2, 3], "{cfg:?}");
        assert!(
            seen.windows(2).all(|w| w[0].0 < w[1].0),
            "tags increase: {seen:?}"
        );
        assert!(seen[0].0 > Tag::ZERO);
    }
}

#[test]
fn without_senders_a_physical_program_ends() {
    let log = Log::new();
    let mut b = ProgramBuilder::new();
    let r = b.reactor("r", ());
    let a = b.physical_action::<u32, _>(r, "a", ZERO);
    b.reaction(r, "recv").trigger(a).body(|_, _| {});
    log_on(&mut b, &log, r, "down", Shutdown, "down");
    let mut program = b.build().unwrap();
    drop(program.sender(a));
    runner(all_configs()[0], false, None)
        .run(&mut program)
        .unwrap();
    assert_eq!(log.lines(), ["(0, 1) r.down: down"]);
}

#[test]
fn a_physical_action_wakes_a_scheduler_sleeping_toward_a_far_event() {
    for cfg in all_configs() {
        let log = Log::new();
        let mut b = ProgramBuilder::new();
        let r = b.reactor("r", ());
        let far = b.timer(r, "far", Duration::from_secs(60), ZERO);
        let a = b.physical_action::<u32, _>(r, "a", ZERO);
        log_on(&mut b, &log, r, "far", far, "far timer");
        let l = log.clone();
        b.reaction(r, "recv").trigger(a).body(move |_, ctx| {
            l.record(ctx, "physical");
            ctx.request_stop();
        });
        let mut program = b.build().unwrap();
        let tx = program.sender(a);
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            tx.send(1);
        });
        runner(cfg, false, None).run(&mut program).unwrap();
        t.join().unwrap();
        let lines = log.lines();
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(lines[0].ends_with("r.recv: physical"));
    }
}

#[test]
fn many_senders_stress_the_inbox() {
    const SENDERS: u32 = 4;
    const EACH: u32 = 2000;
    for cfg in all_configs() {
        let mut b = ProgramBuilder::new();
        let r = b.reactor("r", ());
        let a = b.physical_action::<(u32, u32), _>(r, "a", ZERO);
        let seen = record(&mut b, r, a);
        let mut program = b.build().unwrap();
        let threads: Vec<_> = (0..SENDERS)
            .map(|k| {
                let tx = program.sender(a);
                std::thread::spawn(move || {
                    for i in 0..EACH {
                        tx.send((k, i));
                    }
                })
            })
            .collect();
        runner(cfg, true, None).run(&mut program).unwrap();
        for t in threads {
            t.join().unwrap();
        }
        let seen: Vec<(u32, u32)> = seen.lock().unwrap().iter().map(|e| e.1).collect();
        // Every value arrives (values stamped with an instant already taken go a microstep
        // later), each sender's in the order sent.
        assert_eq!(seen.len(), (SENDERS * EACH) as usize, "{cfg:?}");
        for k in 0..SENDERS {
            let mine: Vec<u32> = seen.iter().filter(|v| v.0 == k).map(|v| v.1).collect();
            assert_eq!(mine, (0..EACH).collect::<Vec<_>>(), "{cfg:?}: sender {k}");
        }
    }
}

#[test]
fn physical_actions_from_an_actor() {
    use motet_actor::{spawn, Actor, Context};
    use motet_reactor::PhysicalSender;

    struct Forward(Option<PhysicalSender<u64>>);
    impl Actor for Forward {
        type Msg = Option<u64>;
        fn handle(&mut self, ctx: &mut Context<'_, Self>, msg: Option<u64>) {
            match msg {
                Some(v) => {
                    if let Some(tx) = &self.0 {
                        tx.send(v * 10);
                    }
                }
                None => {
                    self.0 = None;
                    ctx.stop();
                }
            }
        }
    }

    let rt = motet_runtime::Runtime::builder()
        .workers(2)
        .build()
        .unwrap();
    let mut b = ProgramBuilder::new();
    let r = b.reactor("r", ());
    let a = b.physical_action::<u64, _>(r, "a", ZERO);
    let seen = record(&mut b, r, a);
    let mut program = b.build().unwrap();
    let actor = spawn(rt.handle(), Forward(Some(program.sender(a))));
    for v in 1..=3 {
        actor.tell(Some(v)).unwrap();
    }
    actor.tell(None).unwrap();
    drop(actor);
    common::runner(configs(&[1])[0], false, None)
        .run(&mut program)
        .unwrap();
    let seen: Vec<u64> = seen.lock().unwrap().iter().map(|e| e.1).collect();
    assert_eq!(seen.iter().sum::<u64>(), 60, "{seen:?}");
}

#[test]
fn physical_connection_tags_from_the_clock() {
    for cfg in all_configs() {
        let mut b = ProgramBuilder::new();
        let o = startup_source(&mut b, "src", 5);
        let sink = b.reactor("sink", ());
        let i = b.input::<u32, _>(sink, "in");
        let seen = record(&mut b, sink, i);
        b.connect_physical(o, i);
        let mut program = b.build().unwrap();
        runner(cfg, false, None).run(&mut program).unwrap();
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), 1, "{cfg:?}");
        assert_eq!(seen[0].1, 5);
        assert!(seen[0].0 > Tag::ZERO);
    }
}

#[test]
fn logical_time_never_runs_ahead_of_physical_time() {
    for cfg in all_configs() {
        let lags = Arc::new(Mutex::new(Vec::new()));
        let mut b = ProgramBuilder::new();
        let r = b.reactor("r", lags.clone());
        let t = b.timer(r, "t", ZERO, Duration::from_millis(3));
        b.reaction(r, "tick")
            .trigger(t)
            .body(|s, ctx| s.lock().unwrap().push(ctx.physical_time() >= ctx.time()));
        let mut program = b.build().unwrap();
        runner(cfg, false, Some(Duration::from_millis(15)))
            .run(&mut program)
            .unwrap();
        let lags = lags.lock().unwrap();
        assert_eq!(lags.len(), 6);
        assert!(lags.iter().all(|&ok| ok), "{cfg:?}");
    }
}

#[test]
fn deadlines_run_the_handler_when_missed() {
    for cfg in all_configs() {
        let log = Log::new();
        let mut b = ProgramBuilder::new();
        let slow = b.reactor("slow", ());
        let o = b.output::<u32, _>(slow, "out");
        b.reaction(slow, "work")
            .trigger(Startup)
            .effect(o)
            .body(move |_, ctx| {
                std::thread::sleep(Duration::from_millis(30));
                ctx.set(o, 1);
            });
        for (name, deadline) in [
            ("tight", Duration::from_millis(1)),
            ("loose", Duration::from_secs(60)),
        ] {
            let r = b.reactor(name, ());
            let i = b.input::<u32, _>(r, "in");
            let (l, l2) = (log.clone(), log.clone());
            b.reaction(r, "react")
                .trigger(i)
                .deadline(deadline, move |_, ctx| l2.record(ctx, "missed"))
                .body(move |_, ctx| l.record(ctx, "on time"));
            b.connect(o, i);
        }
        let mut program = b.build().unwrap();
        runner(cfg, false, None).run(&mut program).unwrap();
        assert_eq!(
            log.lines(),
            ["(0, 0) tight.react: missed", "(0, 0) loose.react: on time"],
            "{cfg:?}"
        );
    }
}

#[test]
fn a_deadline_handlers_output_is_seen_by_the_container() {
    let log = Log::new();
    let mut b = ProgramBuilder::new();
    let top = b.reactor("top", ());
    let child = b.child(top, "child", ());
    let cin = b.input::<u32, _>(child, "in");
    let cout = b.output::<u32, _>(child, "out");
    b.reaction(child, "react")
        .trigger(cin)
        .effect(cout)
        .deadline(Duration::from_millis(1), move |_, ctx| ctx.set(cout, 666))
        .body(move |_, ctx| ctx.set(cout, 1));
    b.reaction(top, "start")
        .trigger(Startup)
        .effect(cin)
        .body(move |_, ctx| {
            std::thread::sleep(Duration::from_millis(20));
            ctx.set(cin, 0);
        });
    let l = log.clone();
    b.reaction(top, "see")
        .trigger(cout)
        .body(move |_, ctx| l.record(ctx, ctx.get(cout).unwrap()));
    let mut program = b.build().unwrap();
    runner(all_configs()[0], false, None)
        .run(&mut program)
        .unwrap();
    assert_eq!(log.lines(), ["(0, 0) top.see: 666"]);
}
