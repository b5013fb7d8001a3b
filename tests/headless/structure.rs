//! The module structure ARCHITECTURE.md describes, checked on the source: the top-level modules import each
//! other without a cycle, and the headless layers (core, runtime, eval, offline, import and the formats)
//! never reach up into the app, the CLI or the renderer. Inside the app, its modules import each other without a
//! cycle too, and `command` (the vocabulary: commands, purposes, kinds) imports nothing of the app. No file imports
//! its parent module's private items back (a parent uses its children, not the other way round), and the
//! Evaluator's sources (`eval/source/`) import nothing of `eval/mod.rs`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Modules that must not import `app`, `cli` or `render`.
const HEADLESS: [&str; 12] = [
    "core", "runtime", "compile", "eval", "offline", "import", "clipfile", "blend", "layers", "io",
    "graph", "analysis",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file of `src/` belongs to (`src/core/clip.rs` → `core`, `src/glb.rs` → `glb`).
fn top_module(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

/// Top-level modules named in `crate::name` paths of a file, outside its own.
fn imports(text: &str, own: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (i, _) in text.match_indices("crate::") {
        let rest = &text[i + "crate::".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if name != own && modules.contains(&name) {
            found.insert(name);
        }
    }
    found
}

/// Dependency graph of the top-level modules, from the library's shipped sources.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let is_root = |m: &str| m == "lib" || m == "main";
    let modules: BTreeSet<String> = files
        .iter()
        .map(|f| top_module(&src, f))
        .filter(|m| !is_root(m))
        .collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in &files {
        let own = top_module(&src, f);
        let name = f.file_name().unwrap().to_string_lossy();
        // Test modules may use other layers as oracles (the importer reading an export); only shipped code counts.
        if is_root(&own) || name == "tests.rs" {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap();
        let shipped = text.split("#[cfg(test)]").next().unwrap_or_default();
        graph
            .entry(own.clone())
            .or_default()
            .extend(imports(shipped, &own, &modules));
    }
    graph
}

fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = stack.iter().position(|n| n == node) {
            let mut cycle = stack[at..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        stack.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(c) = visit(next, graph, stack, done) {
                return Some(c);
            }
        }
        stack.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|n| visit(n, graph, &mut Vec::new(), &mut done))
}

#[test]
fn the_top_level_modules_import_each_other_without_a_cycle() {
    let g = graph();
    assert!(g.len() > 10, "read the modules: {g:?}");
    assert!(g["offline"].contains("clipfile"), "read the imports: {g:?}");
    if let Some(cycle) = find_cycle(&g) {
        panic!("import cycle: {}", cycle.join(" -> "));
    }
}

#[test]
fn the_headless_layers_never_import_the_app_the_cli_or_the_renderer() {
    let g = graph();
    for m in HEADLESS {
        let deps = g.get(m).unwrap_or_else(|| panic!("no module {m}"));
        for ui in ["app", "cli", "render"] {
            assert!(!deps.contains(ui), "{m} imports {ui}: {deps:?}");
        }
    }
    // The encoders verify what they write with their own decoders, not through the importer.
    assert!(!g["offline"].contains("import"), "{:?}", g["offline"]);
    assert!(!g["clipfile"].contains("import"), "{:?}", g["clipfile"]);
    // The formats and their decoders: the encoders are offline's (offline/encode/).
    assert!(!g["clipfile"].contains("offline"), "{:?}", g["clipfile"]);
    // The runtime samples what the builder made: it neither builds nor searches (compile/ does).
    assert!(!g["runtime"].contains("compile"), "{:?}", g["runtime"]);
    assert!(g["compile"].contains("runtime"), "{:?}", g["compile"]);
}

/// Dependency graph of the modules of `src/app/` (`command`, `state`, `editor`, `panels`, …), from `crate::app::`
/// and `super::` paths outside comments (a doc link is not an import).
fn app_graph() -> BTreeMap<String, BTreeSet<String>> {
    let app = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/app");
    let mut files = Vec::new();
    rust_files(&app, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in &files {
        // The module path: src/app/panels/scene.rs → [panels, scene]; a mod.rs is its folder.
        let rel = f.strip_prefix(&app).unwrap().with_extension("");
        let mut path: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if path.last().is_some_and(|p| p == "mod") {
            path.pop();
        }
        let Some(own) = path.first().cloned() else {
            continue;
        };
        let text = std::fs::read_to_string(f).unwrap();
        let shipped = text.split("#[cfg(test)]").next().unwrap_or_default();
        let code: String = shipped
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let ident = |rest: &str| -> String {
            rest.chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect()
        };
        let deps = graph.entry(own.clone()).or_default();
        for (i, _) in code.match_indices("crate::app::") {
            deps.insert(ident(&code[i + "crate::app::".len()..]));
        }
        for (i, _) in code.match_indices("super::") {
            if code[..i].ends_with("super::") {
                continue;
            }
            let mut ups = 0;
            let mut rest = &code[i..];
            while let Some(r) = rest.strip_prefix("super::") {
                ups += 1;
                rest = r;
            }
            let mut target = path[..path.len().saturating_sub(ups)].to_vec();
            target.push(ident(rest));
            deps.insert(target[0].clone());
        }
        deps.remove(&own);
    }
    let modules: BTreeSet<String> = graph.keys().cloned().collect();
    for deps in graph.values_mut() {
        deps.retain(|d| modules.contains(d));
    }
    graph
}

#[test]
fn the_app_modules_import_each_other_without_a_cycle_and_commands_import_nothing_of_the_app() {
    let g = app_graph();
    assert!(g.len() > 8, "read the app's modules: {g:?}");
    assert!(g["panels"].contains("editor"), "read the imports: {g:?}");
    assert!(
        g["command"].is_empty(),
        "command imports {:?}",
        g["command"]
    );
    if let Some(cycle) = find_cycle(&g) {
        panic!("import cycle in the app: {}", cycle.join(" -> "));
    }
}

#[test]
fn a_planted_cycle_is_found() {
    let mut g = BTreeMap::new();
    g.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
    g.insert("b".to_string(), BTreeSet::from(["c".to_string()]));
    g.insert("c".to_string(), BTreeSet::from(["a".to_string()]));
    assert_eq!(find_cycle(&g).unwrap(), ["a", "b", "c", "a"]);
}

/// The shipped code of a file: before its tests, without comment lines.
fn shipped_code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    text.split("#[cfg(test)]")
        .next()
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The names a file reaches through `super::` (`use super::{A, b::C}` gives A and b; `super::x(…)` gives x).
fn super_names(code: &str) -> BTreeSet<String> {
    let ident = |rest: &str| -> String {
        rest.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut names = BTreeSet::new();
    for (i, _) in code.match_indices("super::") {
        let rest = &code[i + "super::".len()..];
        if let Some(list) = rest.strip_prefix('{') {
            let list = &list[..list.find('}').unwrap_or(list.len())];
            names.extend(list.split(',').map(|n| ident(n.trim())));
        } else {
            names.insert(ident(rest));
        }
    }
    names.remove("");
    names
}

/// The items a module file defines at its top level that are not `pub` (private, `pub(crate)`, `pub(super)`).
fn private_items(code: &str) -> BTreeSet<String> {
    let mut items = BTreeSet::new();
    for line in code.lines() {
        let rest = line
            .strip_prefix("pub(crate) ")
            .or_else(|| line.strip_prefix("pub(super) "))
            .unwrap_or(line);
        if rest.starts_with("pub ") {
            continue;
        }
        for kind in [
            "fn ", "struct ", "enum ", "const ", "static ", "type ", "trait ",
        ] {
            if let Some(name) = rest.strip_prefix(kind) {
                let name: String = name
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                items.insert(name);
            }
        }
    }
    items
}

#[test]
fn no_file_imports_its_parent_modules_private_items() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut checked = 0;
    let mut found = Vec::new();
    for f in &files {
        if f.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        let dir = f.parent().unwrap();
        let parent = if f.file_name().is_some_and(|n| n == "mod.rs") {
            dir.parent().unwrap().join("mod.rs")
        } else {
            dir.join("mod.rs")
        };
        if !parent.is_file() {
            continue;
        }
        checked += 1;
        let private = private_items(&shipped_code(&parent));
        let reached: Vec<String> = super_names(&shipped_code(f))
            .intersection(&private)
            .cloned()
            .collect();
        if !reached.is_empty() {
            found.push(format!(
                "{} uses {reached:?} of {}",
                f.display(),
                parent.display()
            ));
        }
    }
    assert!(checked > 50, "read the module files: {checked}");
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn the_sources_import_nothing_of_the_evaluators_module() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/eval/source");
    let mut files = Vec::new();
    rust_files(&dir, &mut files);
    assert!(files.len() >= 6, "{files:?}");
    let siblings = ["clock", "io", "source"];
    for f in &files {
        let code = shipped_code(f);
        assert!(
            !code.contains("super::super"),
            "{} reaches into eval/mod.rs",
            f.display()
        );
        for (i, _) in code.match_indices("crate::eval::") {
            let name: String = code[i + "crate::eval::".len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            assert!(
                siblings.contains(&name.as_str()),
                "{} uses crate::eval::{name}: a source takes nothing of the Evaluator",
                f.display()
            );
        }
    }
}

#[test]
fn the_checks_of_the_module_files_read_what_they_should() {
    assert_eq!(
        super_names("use super::{JobError, check::check_len};\nlet x = super::wrap(1);"),
        BTreeSet::from(["JobError".into(), "check".into(), "wrap".into()])
    );
    assert_eq!(
        private_items(
            "pub fn a() {}\nfn b() {}\npub(crate) struct C;\npub(super) enum D {}\npub struct E;"
        ),
        BTreeSet::from(["b".into(), "C".into(), "D".into()])
    );
}
