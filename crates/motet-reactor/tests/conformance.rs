//! Conformance: one test per scenario of LF's semantics (see `common/scenarios/`), each checking
//! the exact log of (tag, reaction, value) events, on one worker and on two workers with both
//! schedulers.

mod common;

use common::{assert_lines, run_all, scenarios};

fn check(name: &str) {
    let sc = scenarios::all()
        .into_iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no scenario {name}"));
    let lines = run_all(sc.timeout, &sc.build);
    let exp: Vec<&str> = sc.expected.iter().map(String::as_str).collect();
    assert_lines(&lines, &exp);
}

macro_rules! conformance {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                check(stringify!($name));
            }
        )*

        #[test]
        fn every_scenario_has_a_test() {
            let tested = [$(stringify!($name)),*];
            for sc in scenarios::all() {
                assert!(tested.contains(&sc.name), "scenario {} has no test", sc.name);
            }
        }
    };
}

conformance!(
    microsteps,
    microstep_counter,
    reaction_order_uses,
    diamond,
    double_invocation,
    double_trigger,
    previous_output,
    only_if_present,
    hierarchy,
    sending_inside,
    moving_average,
    timeout,
    timeout_zero,
    request_stop,
    starve,
    starve_zero,
    stop_idempotent,
    stop_clears_ports,
    timer_is_present,
    timer_once,
    action_delay_values,
    action_same_tag,
    spacing_defer,
    spacing_drop,
    spacing_replace,
    after,
    after_zero,
    after_overlapped,
    bank_to_multiport,
    broadcast,
    fork_join,
    fully_connected,
    bank_self_broadcast,
    cascade,
    multiport_to_ports,
    width_mismatch,
    sparse_multiport,
    multiport_after,
    multiport_hierarchy,
    bank_index,
    modes_cycle,
    mode_reset_history,
    mode_timers,
    modal_startup_shutdown,
    modal_after,
    modal_actions,
    watchdog_restart,
    watchdog_heartbeat,
    watchdog_stop,
    watchdog_extra,
);
