//! Render-ready mesh data of a character: primitives, skins, materials, textures (no GPU types).

use glam::{Mat4, Vec3};

/// One triangle list with its vertex attributes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Primitive {
    /// Vertex positions in the mesh's bind space.
    pub positions: Vec<[f32; 3]>,
    /// Unit normals, one per vertex (generated when the file has none).
    pub normals: Vec<[f32; 3]>,
    /// First texture coordinate set, if any.
    pub uvs: Option<Vec<[f32; 2]>>,
    /// Up to four skin-joint indices per vertex (indices into the skin's joint list).
    pub joints: Option<Vec<[u16; 4]>>,
    /// Weights matching `joints`, summing to 1.
    pub weights: Option<Vec<[f32; 4]>>,
    /// Triangle vertex indices.
    pub indices: Vec<u32>,
    /// Material index, if any.
    pub material: Option<usize>,
    /// Morph targets: per target, a displacement of every vertex (empty when the primitive has none). Every
    /// primitive of a mesh has the same number of targets (glTF requires it), weighted by the mesh's
    /// [`MorphSet`].
    pub targets: Vec<MorphTarget>,
}

/// One morph target of a primitive: displacements added to the vertices, scaled by the target's weight (glTF
/// `primitive.targets`; sparse accessors are expanded at import).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MorphTarget {
    /// Position displacement per vertex.
    pub positions: Vec<[f32; 3]>,
    /// Normal displacement per vertex, when the target has one.
    pub normals: Option<Vec<[f32; 3]>>,
}

/// The morph targets of a mesh as one set: their names and default weights, and the node whose glTF `weights`
/// channels drive them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MorphSet {
    /// Name of the node that instances the mesh (what a clip's `weights` channel targets).
    pub node: String,
    /// Name of the mesh.
    pub mesh: String,
    /// A name per target (`mesh.extras.targetNames`, else "target N").
    pub target_names: Vec<String>,
    /// Weights when no clip animates them (the node's `weights`, else the mesh's, else zeros).
    pub default_weights: Vec<f32>,
}

impl Primitive {
    /// Vertex `v` posed on the CPU by a mesh palette (see `Character::mesh_palette`): linear blend skinning
    /// when the primitive has joints and weights and the palette more than one matrix, else the palette's one
    /// matrix.
    pub fn posed_position(&self, v: usize, palette: &[Mat4]) -> Vec3 {
        self.posed_morphed_position(v, palette, &[])
    }

    /// Vertex `v` displaced by its morph targets at `weights` (glTF: the base position plus the sum of each
    /// target's displacement times its weight; missing weights count as 0), then posed as
    /// [`Primitive::posed_position`] poses it.
    pub fn posed_morphed_position(&self, v: usize, palette: &[Mat4], weights: &[f32]) -> Vec3 {
        let pos = self.morphed_position(v, weights);
        match (&self.joints, &self.weights, palette.len() > 1) {
            (Some(j), Some(w), true) => (0..4)
                .map(|k| {
                    palette
                        .get(j[v][k] as usize)
                        .map_or(Vec3::ZERO, |m| m.transform_point3(pos) * w[v][k])
                })
                .sum(),
            _ => palette.first().map_or(pos, |m| m.transform_point3(pos)),
        }
    }

    /// Vertex `v` in bind space with its morph targets applied at `weights`.
    pub fn morphed_position(&self, v: usize, weights: &[f32]) -> Vec3 {
        let base = Vec3::from(self.positions[v]);
        self.targets
            .iter()
            .zip(weights)
            .filter(|(_, w)| **w != 0.0)
            .fold(base, |p, (t, &w)| p + Vec3::from(t.positions[v]) * w)
    }
}

/// Where a mesh sits relative to the skeleton.
#[derive(Clone, Debug, PartialEq)]
pub enum MeshPlacement {
    /// Deformed by a skin: vertices follow `joint model matrix × inverse bind matrix`.
    Skinned {
        /// Index into the character's skins.
        skin: usize,
    },
    /// Rigidly attached to a joint with a fixed offset.
    Joint {
        /// The joint it follows.
        joint: usize,
        /// Transform from the joint to the mesh.
        offset: Mat4,
    },
    /// Fixed in model space.
    Model {
        /// Transform from the mesh to model space.
        transform: Mat4,
    },
}

/// A mesh of a character.
#[derive(Clone, Debug, PartialEq)]
pub struct Mesh {
    /// Mesh (or node) name.
    pub name: String,
    /// How it follows the skeleton.
    pub placement: MeshPlacement,
    /// Its triangle lists.
    pub primitives: Vec<Primitive>,
    /// Its morph targets' names and default weights, when its primitives have targets.
    pub morph: Option<MorphSet>,
}

impl Mesh {
    /// Total vertex count over all primitives.
    pub fn vertex_count(&self) -> usize {
        self.primitives.iter().map(|p| p.positions.len()).sum()
    }
}

/// A skin: joints and their inverse bind matrices.
#[derive(Clone, Debug, PartialEq)]
pub struct Skin {
    /// Skin name.
    pub name: String,
    /// Skeleton joint index for each skin joint.
    pub joints: Vec<usize>,
    /// Inverse bind matrix for each skin joint (model space → joint space at bind time).
    pub inverse_bind: Vec<Mat4>,
}

/// The parts of a glTF material the viewport draws.
#[derive(Clone, Debug, PartialEq)]
pub struct Material {
    /// Material name.
    pub name: String,
    /// Linear RGBA base colour factor.
    pub base_color: [f32; 4],
    /// Index into the character's textures for the base colour, if any.
    pub base_color_texture: Option<usize>,
    /// Whether both faces are drawn.
    pub double_sided: bool,
}

impl Default for Material {
    fn default() -> Self {
        Material {
            name: String::new(),
            base_color: [1.0; 4],
            base_color_texture: None,
            double_sided: false,
        }
    }
}

/// An RGBA8 image (sRGB colour).
#[derive(Clone, Debug, PartialEq)]
pub struct Texture {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Pixels, 4 bytes each, row by row.
    pub rgba: Vec<u8>,
}
