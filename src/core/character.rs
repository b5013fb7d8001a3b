//! A loaded character: skeleton, humanoid map, meshes, and what import noticed.

use super::expression::Expression;
use super::humanoid::{HumanoidMap, TwistChain};
use glam::Mat4;

use super::mesh::{Material, Mesh, MeshPlacement, Skin, Texture};
use super::skeleton::Skeleton;

/// Everything the tool knows about one character.
#[derive(Clone, Debug)]
pub struct Character {
    /// Display name (usually the file stem).
    pub name: String,
    /// The joint hierarchy.
    pub skeleton: Skeleton,
    /// Which joints play which humanoid bones.
    pub humanoid: HumanoidMap,
    /// Skins of the skinned meshes.
    pub skins: Vec<Skin>,
    /// Meshes, skinned or rigidly attached.
    pub meshes: Vec<Mesh>,
    /// Materials the meshes use.
    pub materials: Vec<Material>,
    /// Decoded textures the materials use.
    pub textures: Vec<Texture>,
    /// Named expressions over the morph targets (VRM's, else one per morph-target name).
    pub expressions: Vec<Expression>,
    /// The expressions are the file's (VRM): the targets they bind are cleared before they apply, as three-vrm
    /// clears them every frame.
    pub vrm_expressions: bool,
    /// The VRM's look-at (eye bones or look expressions), which a VRM Animation's look-at track drives.
    pub vrm_look_at: Option<super::vrm_look_at::VrmLookAt>,
    /// Spring-bone chains and colliders (VRM's; empty otherwise).
    pub springs: super::spring::SpringSetup,
    /// True when import turned the character around to face +Z (VRM 0.x faces −Z).
    pub facing_corrected: bool,
    /// Things import skipped or noticed (morph channels, unsupported primitives…).
    pub notes: Vec<String>,
    /// What the user must hear about although the model loaded (a missing texture image): each also in
    /// `notes`; the CLI prints them on stderr and the editor in its status bar.
    pub warnings: Vec<String>,
}

impl Character {
    /// How tall the character stands at rest: the span of its joints' rest heights (None when that is not a
    /// usable length).
    pub fn rest_height(&self) -> Option<f32> {
        let model = super::Pose::rest(&self.skeleton).model_matrices(&self.skeleton);
        let (low, high) = model
            .iter()
            .map(|m| m.w_axis.y)
            .fold((f32::MAX, f32::MIN), |(lo, hi), y| (lo.min(y), hi.max(y)));
        let h = high - low;
        (h.is_finite() && h > 1e-4).then_some(h)
    }

    /// A character with a skeleton and humanoid map only (no meshes): what clip baking and evaluation need.
    pub fn skeleton_only(skeleton: &Skeleton, humanoid: Option<&HumanoidMap>) -> Self {
        Character {
            name: String::new(),
            skeleton: skeleton.clone(),
            humanoid: humanoid.cloned().unwrap_or_else(HumanoidMap::empty),
            skins: Vec::new(),
            meshes: Vec::new(),
            materials: Vec::new(),
            textures: Vec::new(),
            expressions: Vec::new(),
            vrm_expressions: false,
            vrm_look_at: None,
            springs: Default::default(),
            facing_corrected: false,
            notes: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// Matrices that place a mesh's vertices in model space for a pose: `joint model × inverse bind` per skin joint
    /// for a skinned mesh, a single matrix for a rigid one.
    pub fn mesh_palette(&self, mesh: &Mesh, model: &[Mat4]) -> Vec<Mat4> {
        match &mesh.placement {
            MeshPlacement::Skinned { skin } => {
                let s = &self.skins[*skin];
                s.joints
                    .iter()
                    .zip(&s.inverse_bind)
                    .map(|(&j, ibm)| model[j] * *ibm)
                    .collect()
            }
            MeshPlacement::Joint { joint, offset } => vec![model[*joint] * *offset],
            MeshPlacement::Model { transform } => vec![*transform],
        }
    }

    /// Twist joints between humanoid bone pairs.
    pub fn twist_chains(&self) -> Vec<TwistChain> {
        self.humanoid.twist_chains(&self.skeleton)
    }
}
