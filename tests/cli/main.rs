//! Tests that run the `animtune` binary or the offscreen renderer (feature `cli`): its subcommands, bakes and
//! their independent decoders, atomic writes, the glTF spec oracle, FBX import. One module per topic.

#[path = "../common/mod.rs"]
mod common;

mod animclip_reader;
mod atomic_writes;
mod bake;
mod bake_hostile;
mod baked_clips;
mod blend;
mod commands;
mod gltf_spec_eval;
mod ik_goals;
mod import_fbx;
mod loop_seam;
mod nlerp_reading;
mod render;
mod root_pass;
mod skate_fix;
mod state_machine;
mod unity_assets;
mod vrm_limits;
