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
}

impl Primitive {
    /// Vertex `v` posed on the CPU by a mesh palette (see `Character::mesh_palette`): linear blend skinning
    /// when the primitive has joints and weights and the palette more than one matrix, else the palette's one
    /// matrix.
    pub fn posed_position(&self, v: usize, palette: &[Mat4]) -> Vec3 {
        let pos = Vec3::from(self.positions[v]);
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
