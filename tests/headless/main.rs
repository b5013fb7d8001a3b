//! Integration tests of the headless library (they need no cargo feature): importers, evaluation, blend
//! spaces, layers, file formats, the module structure, and how extended tests report. One module per topic.

#[path = "../common/mod.rs"]
mod common;

mod blend_layout;
mod blend_pose;
mod blend_weights;
mod extended;
mod feet;
mod fuzz_corpus;
mod import_assets;
mod import_formats;
mod layers;
mod look_at_article;
mod ozz_peer;
mod properties;
mod retarget_rules;
mod structure;
mod unity_curves;
mod unity_layout;
mod unity_muscles;
mod vrm_secondary;
mod vrma_binding;
