//! Replays the fuzzing corpus and every saved crasher through the decoders: none may panic, and the seeds decode.

use std::path::Path;

use animtune::fuzzing::{Target, run, seeds};

#[test]
fn corpus_and_crashers_never_panic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut replayed = 0;
    for target in Target::ALL {
        for seed in seeds(target) {
            assert_eq!(
                run(target, &seed),
                "ok",
                "{target:?}: a seed no longer decodes"
            );
        }
        for kind in ["corpus", "crashers"] {
            let dir = root.join(kind).join(target.name());
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let bytes = std::fs::read(entry.path()).unwrap();
                let outcome = std::panic::catch_unwind(|| run(target, &bytes));
                assert!(outcome.is_ok(), "{} panics", entry.path().display());
                replayed += 1;
            }
        }
    }
    assert!(replayed > 50, "the corpus is missing ({replayed} files)");
}
