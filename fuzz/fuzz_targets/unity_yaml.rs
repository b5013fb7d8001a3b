//! libFuzzer target: `animtune::fuzzing::run` on Unity's text assets (a panic, a timeout or an RSS blow-up is a finding).
#![no_main]

use animtune::fuzzing::{Target, run};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    run(Target::UnityYaml, data);
});
