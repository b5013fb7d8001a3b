//! `animtune preset default | validate`.

use anyhow::Result;

use super::PresetValidateArgs;
use crate::preset::Preset;

pub fn default() -> Result<()> {
    let preset = Preset {
        blend: Some(crate::demo::locomotion::default_blend_space()),
        ..Preset::default()
    };
    outln!("{}", preset.to_json());
    Ok(())
}

pub fn validate(args: &PresetValidateArgs) -> Result<()> {
    let preset = Preset::load(&args.file)?;
    let blend = match &preset.blend {
        Some(b) => {
            let issues = b.issues();
            let mut text = format!(
                "blend space {} with {} nodes",
                b.mode.as_str(),
                b.nodes.len()
            );
            for issue in issues {
                text.push_str(&format!("; warning: {issue}"));
            }
            text
        }
        None => "no blend space".into(),
    };
    outln!(
        "{}: valid preset (version {}), {blend}",
        args.file.display(),
        preset.version
    );
    Ok(())
}
