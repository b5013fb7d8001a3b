//! Writing binary glTF (.glb): a JSON document plus one binary buffer of accessors.

use serde_json::{Value, json};

/// glTF accessor component types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Component {
    /// UNSIGNED_BYTE (5121).
    U8,
    /// UNSIGNED_SHORT (5123).
    U16,
    /// UNSIGNED_INT (5125).
    U32,
    /// FLOAT (5126).
    F32,
}

impl Component {
    fn code(self) -> u32 {
        match self {
            Component::U8 => 5121,
            Component::U16 => 5123,
            Component::U32 => 5125,
            Component::F32 => 5126,
        }
    }
}

/// Buffer view target hints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Vertex attributes (ARRAY_BUFFER).
    Vertices,
    /// Triangle indices (ELEMENT_ARRAY_BUFFER).
    Indices,
}

/// Collects binary data and the accessors that describe it, then writes a .glb.
#[derive(Default)]
pub struct GlbBuilder {
    bin: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl GlbBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    fn push_view(&mut self, bytes: &[u8], target: Option<Target>) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let mut view =
            json!({"buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len()});
        if let Some(t) = target {
            view["target"] = json!(match t {
                Target::Vertices => 34962,
                Target::Indices => 34963,
            });
        }
        self.bin.extend_from_slice(bytes);
        self.views.push(view);
        self.views.len() - 1
    }

    /// Adds float data of `kind` ("SCALAR", "VEC3", "MAT4"…) with `width` floats per element; returns the accessor index.
    /// `bounds` adds min/max (required for positions and animation inputs).
    pub fn floats(
        &mut self,
        data: &[f32],
        kind: &str,
        width: usize,
        target: Option<Target>,
        bounds: bool,
    ) -> usize {
        let bytes: Vec<u8> = data.iter().flat_map(|f| f.to_le_bytes()).collect();
        let view = self.push_view(&bytes, target);
        let count = data.len() / width;
        let mut acc = json!({"bufferView": view, "componentType": Component::F32.code(), "count": count, "type": kind});
        if bounds && count > 0 {
            let mut min = vec![f32::MAX; width];
            let mut max = vec![f32::MIN; width];
            for e in data.chunks_exact(width) {
                for (i, &v) in e.iter().enumerate() {
                    min[i] = min[i].min(v);
                    max[i] = max[i].max(v);
                }
            }
            acc["min"] = json!(min);
            acc["max"] = json!(max);
        }
        self.accessors.push(acc);
        self.accessors.len() - 1
    }

    /// Adds unsigned integer data (joints or indices) stored as `component`; returns the accessor index.
    pub fn uints(
        &mut self,
        data: &[u32],
        component: Component,
        kind: &str,
        width: usize,
        target: Option<Target>,
    ) -> usize {
        let bytes: Vec<u8> = match component {
            Component::U8 => data.iter().map(|&v| v as u8).collect(),
            Component::U16 => data
                .iter()
                .flat_map(|&v| (v as u16).to_le_bytes())
                .collect(),
            _ => data.iter().flat_map(|v| v.to_le_bytes()).collect(),
        };
        let view = self.push_view(&bytes, target);
        self.accessors.push(json!({
            "bufferView": view, "componentType": component.code(), "count": data.len() / width, "type": kind
        }));
        self.accessors.len() - 1
    }

    /// Adds raw bytes (an encoded image, say) as a buffer view; returns the view index.
    pub fn bytes(&mut self, data: &[u8]) -> usize {
        self.push_view(data, None)
    }

    /// Marks an integer accessor as normalized (e.g. UNSIGNED_BYTE weights read as 0–1).
    pub fn set_normalized(&mut self, accessor: usize) {
        self.accessors[accessor]["normalized"] = Value::Bool(true);
    }

    /// Writes the .glb: `document` gets `buffers`, `bufferViews` and `accessors` added.
    pub fn finish(mut self, mut document: Value) -> Vec<u8> {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        document["buffers"] = json!([{"byteLength": self.bin.len()}]);
        document["bufferViews"] = Value::Array(self.views);
        document["accessors"] = Value::Array(self.accessors);
        let text = serde_json::to_vec(&document).expect("a JSON value always serializes");
        assemble(&text, &self.bin)
    }
}

/// A .glb from raw JSON bytes and a binary chunk: header, JSON chunk padded with spaces, BIN chunk.
pub fn assemble(json: &[u8], bin: &[u8]) -> Vec<u8> {
    let mut text = json.to_vec();
    while !text.len().is_multiple_of(4) {
        text.push(b' ');
    }
    let total = 12 + 8 + text.len() + 8 + bin.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&text);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(bin);
    out
}
