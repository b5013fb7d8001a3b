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

    /// The character with a new joint named `name` (or `name` and a number, when taken) above `top`, a joint
    /// with no parent: it rests at the identity in the skeleton's root frame, so `top` stays where it was. The new
    /// joint comes first and every other joint moves one place down; skins (those holding `top` list the new
    /// joint last), meshes on joints, the humanoid map and the springs follow. Returns the character and the new
    /// joint's name.
    pub fn with_joint_above(
        &self,
        top: usize,
        name: &str,
    ) -> Result<(Character, String), super::skeleton::SkeletonError> {
        use super::skeleton::JointDef;
        let s = &self.skeleton;
        let name = std::iter::once(name.to_string())
            .chain((1..).map(|k| format!("{name}{k}")))
            .find(|n| s.find_by_name(n).is_none())
            .expect("an unused name");
        let moved = |j: usize| j + 1;
        let joints = std::iter::once(JointDef {
            name: name.clone(),
            parent: None,
            rest: super::Transform::IDENTITY,
            deforms: false,
        })
        .chain((0..s.len()).map(|j| JointDef {
            name: s.name(j).to_string(),
            parent: match s.parent(j) {
                Some(p) => Some(moved(p)),
                None if j == top => Some(0),
                None => None,
            },
            rest: s.rest()[j],
            deforms: s.deforms(j),
        }))
        .collect();
        let mut out = self.clone();
        out.skeleton = Skeleton::new(joints, s.root_transform())?;
        out.humanoid = self.humanoid.with_joints_moved(moved);
        // Each skin holding `top` lists the new joint too (after its own, so no vertex changes joints), as a
        // skin lists a rig's root: a file written from the character keeps it among the skeleton's joints.
        let new_inverse_bind = s.root_transform().inverse();
        for skin in &mut out.skins {
            let holds_top = skin.joints.contains(&top);
            skin.joints.iter_mut().for_each(|j| *j = moved(*j));
            if holds_top && new_inverse_bind.is_finite() {
                skin.joints.push(0);
                skin.inverse_bind.push(new_inverse_bind);
            }
        }
        for mesh in &mut out.meshes {
            if let MeshPlacement::Joint { joint, .. } = &mut mesh.placement {
                *joint = moved(*joint);
            }
        }
        let springs = &mut out.springs;
        for spring in &mut springs.springs {
            for sj in &mut spring.joints {
                sj.joint = moved(sj.joint);
                sj.tail = sj.tail.map(moved);
            }
            spring.center = spring.center.map(moved);
        }
        for collider in &mut springs.colliders {
            collider.joint = moved(collider.joint);
        }
        Ok((out, name))
    }

    /// Twist joints between humanoid bone pairs.
    pub fn twist_chains(&self) -> Vec<TwistChain> {
        self.humanoid.twist_chains(&self.skeleton)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_joint_added_above_the_hips_leaves_every_joint_and_skin_where_it_was() {
        let model = crate::demo::mannequin::load();
        let c = &model.character;
        let hips = c.humanoid.joint(super::super::HumanBone::Hips).unwrap();
        let (with_root, name) = c.with_joint_above(hips, "Root").unwrap();
        assert_eq!(name, "Root");
        let (s, t) = (&c.skeleton, &with_root.skeleton);
        assert_eq!(t.len(), s.len() + 1);
        assert_eq!(t.name(0), "Root");
        let before = super::super::Pose::rest(s).model_matrices(s);
        let after = super::super::Pose::rest(t).model_matrices(t);
        for j in 0..s.len() {
            assert_eq!(t.name(j + 1), s.name(j));
            assert!(before[j].abs_diff_eq(after[j + 1], 1e-6), "{}", s.name(j));
        }
        for (bone, joint) in c.humanoid.bones() {
            assert_eq!(with_root.humanoid.joint(bone), Some(joint + 1));
        }
        for (a, b) in c.meshes.iter().zip(&with_root.meshes) {
            let (pa, pb) = (
                c.mesh_palette(a, &before),
                with_root.mesh_palette(b, &after),
            );
            assert!(pa.iter().zip(&pb).all(|(x, y)| x.abs_diff_eq(*y, 1e-6)));
        }
        // A second one takes a free name.
        let (_, second) = with_root.with_joint_above(0, "Root").unwrap();
        assert_eq!(second, "Root1");
    }
}
