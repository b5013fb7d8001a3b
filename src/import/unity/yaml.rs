//! Unity's text serialization: a file of documents, each headed `--- !u!CLASS &FILEID` (64-bit, negative allowed,
//! `stripped` after it for a prefab's stand-in) and holding a one-key mapping `ClassName: {fields}`.
//!
//! Headers are read by hand: `stripped` is not YAML. Each body is parsed by yaml-rust2's event parser into a tree
//! of plain text with no typing at all, so `m_Name: ON`, `m_Name: 0` and a mask's digits-only `m_Mask` stay the
//! text they were; the field that reads a value knows its type. Aliases are refused (Unity writes none, and they
//! are how a small file expands without bound), and the documents, nodes, nesting and file size are bounded.

use std::path::Path;

use yaml_rust2::parser::{Event, Parser};

/// Most documents in one file.
pub const MAX_DOCUMENTS: usize = 200_000;
/// Most nodes (scalars, sequences and mappings) in one file.
pub const MAX_NODES: usize = 20_000_000;
/// Deepest nesting of sequences and mappings.
pub const MAX_DEPTH: usize = 64;

/// Why a Unity file could not be read: one line that names the file.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UnityError(pub String);

impl UnityError {
    /// An error about `path`.
    pub fn new(path: &Path, message: impl std::fmt::Display) -> Self {
        UnityError(format!("{}: {message}", path.display()))
    }
}

/// One node of a document: text, a list, or a mapping in file order.
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    /// A scalar, as written (quotes removed, no typing).
    Scalar(String),
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping, its keys in file order.
    Map(Vec<(String, Node)>),
}

/// A reference to an object: `{fileID: N}` in the same file, or with `guid` in another asset.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectRef {
    /// The object's file ID in its file (0: no object).
    pub file_id: i64,
    /// The asset's GUID (32 hex digits) when the object is in another file.
    pub guid: Option<String>,
}

impl ObjectRef {
    /// Whether the reference names no object (`{fileID: 0}`).
    pub fn is_none(&self) -> bool {
        self.file_id == 0 && self.guid.is_none()
    }
}

impl Node {
    /// The value under `key` in a mapping.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match self {
            Node::Map(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The text of a scalar.
    pub fn text(&self) -> Option<&str> {
        match self {
            Node::Scalar(s) => Some(s),
            _ => None,
        }
    }

    /// The items of a sequence (an empty one for `[]` or a missing list).
    pub fn items(&self) -> &[Node] {
        match self {
            Node::Seq(items) => items,
            _ => &[],
        }
    }

    /// The entries of a mapping.
    pub fn entries(&self) -> &[(String, Node)] {
        match self {
            Node::Map(entries) => entries,
            _ => &[],
        }
    }

    /// The text under `key`.
    pub fn str(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(Node::text)
    }

    /// The number under `key`, read as Unity writes floats (`Infinity`, `-Infinity` and `NaN` included).
    pub fn f64(&self, key: &str) -> Option<f64> {
        self.str(key).and_then(parse_f64)
    }

    /// The integer under `key`.
    pub fn i64(&self, key: &str) -> Option<i64> {
        self.str(key).and_then(|s| s.trim().parse().ok())
    }

    /// The object reference under `key` (`{fileID: N, guid: G, type: T}`).
    pub fn object(&self, key: &str) -> Option<ObjectRef> {
        self.get(key).and_then(Node::as_object)
    }

    /// This node read as an object reference.
    pub fn as_object(&self) -> Option<ObjectRef> {
        let file_id = self.i64("fileID")?;
        let guid = self
            .str("guid")
            .map(str::trim)
            .filter(|g| !g.is_empty() && g.bytes().any(|b| b != b'0'))
            .map(str::to_ascii_lowercase);
        Some(ObjectRef { file_id, guid })
    }
}

/// A number as Unity writes it: decimal or exponent notation, or `Infinity`, `-Infinity`, `NaN`.
pub fn parse_f64(s: &str) -> Option<f64> {
    match s.trim() {
        "Infinity" | "+Infinity" | "inf" => Some(f64::INFINITY),
        "-Infinity" | "-inf" => Some(f64::NEG_INFINITY),
        "NaN" | "nan" => Some(f64::NAN),
        t => t.parse().ok(),
    }
}

/// One document of a Unity file.
#[derive(Clone, Debug, PartialEq)]
pub struct Document {
    /// Unity's class ID (`!u!91`: AnimatorController).
    pub class_id: u32,
    /// The object's file ID (`&9100000`).
    pub file_id: i64,
    /// A prefab instance's stand-in (`stripped`): its fields live in the prefab.
    pub stripped: bool,
    /// The class name, the body's one key (`AnimatorController`).
    pub class_name: String,
    /// The object's fields.
    pub fields: Node,
    /// The header's line (1-based), for messages.
    pub line: usize,
}

/// A whole Unity text file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UnityFile {
    /// Its documents in file order.
    pub documents: Vec<Document>,
}

impl UnityFile {
    /// The document with this file ID.
    pub fn object(&self, file_id: i64) -> Option<&Document> {
        self.documents.iter().find(|d| d.file_id == file_id)
    }

    /// The documents of one class.
    pub fn of_class(&self, class_id: u32) -> impl Iterator<Item = &Document> {
        self.documents
            .iter()
            .filter(move |d| d.class_id == class_id)
    }
}

/// Reads a Unity text file of at most `max_bytes`.
pub fn read(path: &Path, max_bytes: u64) -> Result<UnityFile, UnityError> {
    let bytes =
        crate::io::limits::read_file(path, max_bytes).map_err(|e| UnityError(e.to_string()))?;
    let text = std::str::from_utf8(&bytes).map_err(|e| {
        UnityError::new(
            path,
            format!(
                "is not UTF-8 text (byte {}): not a Unity text asset, or saved in binary serialization",
                e.valid_up_to()
            ),
        )
    })?;
    parse(text, path)
}

/// Parses the text of a Unity file; `path` names it in errors.
pub fn parse(text: &str, path: &Path) -> Result<UnityFile, UnityError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut documents = Vec::new();
    let mut nodes = 0usize;
    // Each document runs from its header line to the next header.
    let mut starts = Vec::new();
    let mut offset = 0;
    for (n, line) in text.split_inclusive('\n').enumerate() {
        if line.starts_with("--- ") || line.trim_end() == "---" {
            starts.push((offset, n + 1));
        }
        offset += line.len();
    }
    if starts.is_empty() {
        if text.trim_start().starts_with("%YAML") || text.contains("%TAG !u!") {
            return Ok(UnityFile::default());
        }
        return Err(UnityError::new(
            path,
            "is not a Unity text asset: no `--- !u!` document header",
        ));
    }
    if starts.len() > MAX_DOCUMENTS {
        return Err(UnityError::new(
            path,
            format!(
                "has {} documents, more than the {MAX_DOCUMENTS} read",
                starts.len()
            ),
        ));
    }
    for (i, &(start, line)) in starts.iter().enumerate() {
        let end = starts.get(i + 1).map_or(text.len(), |s| s.0);
        let chunk = &text[start..end];
        let (header, body) = chunk.split_once('\n').unwrap_or((chunk, ""));
        let at = |message: String| UnityError::new(path, format!("line {line}: {message}"));
        let (class_id, file_id, stripped) = parse_header(header).map_err(at)?;
        let root = parse_body(body, &mut nodes)
            .map_err(|(l, m)| UnityError::new(path, format!("line {}: {m}", line + l)))?;
        let (class_name, fields) = match root {
            Node::Map(mut entries) if entries.len() == 1 => entries.pop().expect("one entry"),
            Node::Map(entries) if entries.is_empty() => (String::new(), Node::Map(Vec::new())),
            _ => {
                return Err(at(
                    "a document must be one mapping `ClassName: {fields}`".to_string()
                ));
            }
        };
        documents.push(Document {
            class_id,
            file_id,
            stripped,
            class_name,
            fields,
            line,
        });
    }
    Ok(UnityFile { documents })
}

/// Parses plain YAML with no Unity document headers (a `.meta` file), into the same untyped tree.
pub fn parse_plain(text: &str, path: &Path) -> Result<Node, UnityError> {
    let mut nodes = 0;
    parse_body(text.strip_prefix('\u{feff}').unwrap_or(text), &mut nodes)
        .map_err(|(line, m)| UnityError::new(path, format!("line {line}: {m}")))
}

/// Reads `--- !u!CLASS &FILEID [stripped]`.
fn parse_header(header: &str) -> Result<(u32, i64, bool), String> {
    let mut words = header.split_whitespace();
    words.next(); // ---
    let tag = words.next().unwrap_or("");
    let class = tag.strip_prefix("!u!").ok_or_else(|| {
        format!("a document header must read `--- !u!CLASS &FILEID`, not `{header}`")
    })?;
    let class_id = class
        .parse()
        .map_err(|_| format!("class ID `{class}` is not a number"))?;
    let anchor = words.next().unwrap_or("");
    let file_id = anchor
        .strip_prefix('&')
        .and_then(|id| id.parse().ok())
        .ok_or_else(|| format!("file ID `{anchor}` is not a 64-bit number"))?;
    let stripped = match words.next() {
        None => false,
        Some("stripped") => true,
        Some(other) => return Err(format!("unexpected `{other}` after the file ID")),
    };
    Ok((class_id, file_id, stripped))
}

/// Parses one document's body into a text tree; an error carries the body's line (1-based from the header).
fn parse_body(body: &str, nodes: &mut usize) -> Result<Node, (usize, String)> {
    if body.trim().is_empty() {
        return Ok(Node::Map(Vec::new()));
    }
    // Containers being filled: a sequence's items, or a mapping's entries with the key waiting for its value.
    enum Open {
        Seq(Vec<Node>),
        Map(Vec<(String, Node)>, Option<String>),
    }
    let mut stack: Vec<Open> = Vec::new();
    let mut root = None;
    let mut parser = Parser::new_from_str(body);
    loop {
        let (event, mark) = parser
            .next_token()
            .map_err(|e| (e.marker().line(), e.info().to_string()))?;
        let line = mark.line();
        let value = match event {
            Event::StreamEnd => break,
            Event::Nothing | Event::StreamStart | Event::DocumentStart | Event::DocumentEnd => {
                continue;
            }
            Event::Alias(_) => {
                return Err((
                    line,
                    "uses a YAML alias (`*name`): Unity never writes one, and aliases can expand without bound"
                        .into(),
                ));
            }
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                if stack.len() >= MAX_DEPTH {
                    return Err((line, format!("nests deeper than {MAX_DEPTH} levels")));
                }
                *nodes += 1;
                stack.push(if matches!(event, Event::SequenceStart(..)) {
                    Open::Seq(Vec::new())
                } else {
                    Open::Map(Vec::new(), None)
                });
                continue;
            }
            Event::SequenceEnd | Event::MappingEnd => match stack.pop() {
                Some(Open::Seq(items)) => Node::Seq(items),
                Some(Open::Map(entries, _)) => Node::Map(entries),
                None => return Err((line, "unbalanced YAML".into())),
            },
            Event::Scalar(text, ..) => {
                *nodes += 1;
                Node::Scalar(text)
            }
        };
        if *nodes > MAX_NODES {
            return Err((line, format!("has more than {MAX_NODES} values")));
        }
        match stack.last_mut() {
            None => root = Some(value),
            Some(Open::Seq(items)) => items.push(value),
            Some(Open::Map(entries, key)) => match key.take() {
                Some(k) => entries.push((k, value)),
                None => match value {
                    Node::Scalar(k) => *key = Some(k),
                    _ => return Err((line, "a mapping key must be plain text".into())),
                },
            },
        }
    }
    root.ok_or((1, "empty document".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONTROLLER: &str = "%YAML 1.1
%TAG !u! tag:unity3d.com,2011:
--- !u!91 &9100000
AnimatorController:
  m_ObjectHideFlags: 0
  m_Name: ON
  m_AnimatorParameters:
  - m_Name: 0
    m_Type: 1
    m_DefaultFloat: 0
  m_AnimatorLayers:
  - serializedVersion: 5
    m_Name: Base Layer
    m_StateMachine: {fileID: -6391174046390390337}
    m_Mask: {fileID: 31900000, guid: 0d8e1c2a9b1e6b44c8a2ac1c5d5b2f3e, type: 2}
--- !u!1102 &-6391174046390390337
AnimatorState:
  m_Speed: 1
  m_Tag: 'yes'
--- !u!1001 &100100000 stripped
Prefab:
  m_Mask: 01000000010000000100000001000000
  m_Slope: -Infinity
";

    #[test]
    fn documents_headers_and_untyped_scalars() {
        let f = parse(CONTROLLER, Path::new("a.controller")).unwrap();
        assert_eq!(f.documents.len(), 3);
        let c = &f.documents[0];
        assert_eq!((c.class_id, c.file_id, c.stripped), (91, 9_100_000, false));
        assert_eq!(c.class_name, "AnimatorController");
        assert_eq!(
            c.fields.str("m_Name"),
            Some("ON"),
            "YAML 1.1 booleans stay text"
        );
        let p = &c.fields.get("m_AnimatorParameters").unwrap().items()[0];
        assert_eq!(p.str("m_Name"), Some("0"), "a number-like name stays text");
        let layer = &c.fields.get("m_AnimatorLayers").unwrap().items()[0];
        assert_eq!(
            layer.object("m_StateMachine"),
            Some(ObjectRef {
                file_id: -6391174046390390337,
                guid: None
            })
        );
        assert_eq!(
            layer.object("m_Mask").unwrap().guid.as_deref(),
            Some("0d8e1c2a9b1e6b44c8a2ac1c5d5b2f3e")
        );
        let s = f.object(-6391174046390390337).unwrap();
        assert_eq!(s.class_id, 1102);
        assert_eq!(s.fields.str("m_Tag"), Some("yes"));
        let p = &f.documents[2];
        assert!(p.stripped);
        assert_eq!(
            p.fields.str("m_Mask"),
            Some("01000000010000000100000001000000"),
            "a digits-only mask stays its text"
        );
        assert_eq!(p.fields.f64("m_Slope"), Some(f64::NEG_INFINITY));
    }

    #[test]
    fn hostile_files_are_refused_by_name() {
        let path = Path::new("hostile.anim");
        let bomb = "--- !u!74 &1\nAnimationClip:\n  a: &a [x, x, x]\n  b: [*a, *a, *a]\n";
        let e = parse(bomb, path).unwrap_err().to_string();
        assert!(e.contains("hostile.anim") && e.contains("alias"), "{e}");
        let deep = format!(
            "--- !u!74 &1\nAnimationClip:\n  a: {}{}\n",
            "[".repeat(200),
            "]".repeat(200)
        );
        let e = parse(&deep, path).unwrap_err().to_string();
        assert!(e.contains("deeper"), "{e}");
        for header in [
            "--- !u!x &1",
            "--- !u!74 &abc",
            "--- !u!74 &1 strippedd",
            "--- !x!74 &1",
        ] {
            let e = parse(&format!("{header}\nA:\n  b: 1\n"), path)
                .unwrap_err()
                .to_string();
            assert!(e.contains("line 1"), "{header}: {e}");
        }
        let e = parse("just: yaml\n", path).unwrap_err().to_string();
        assert!(e.contains("not a Unity text asset"), "{e}");
        let e = parse("--- !u!74 &1\nA: [unclosed\n", path)
            .unwrap_err()
            .to_string();
        assert!(e.contains("hostile.anim: line"), "{e}");
    }

    #[test]
    fn non_utf8_is_refused_naming_the_file() {
        let dir = crate::test_support::temp_dir("unity-yaml");
        let file = dir.join("binary.controller");
        std::fs::write(&file, b"\x00\x01\xff\xfe unity binary").unwrap();
        let e = read(&file, 1 << 20).unwrap_err().to_string();
        assert!(
            e.contains("binary.controller") && e.contains("UTF-8"),
            "{e}"
        );
    }
}
