//! End to end: the real editor window under Xvfb saves its own screenshot and exits 0.

use std::process::Command;

fn screenshot(args: &[&str], name: &str) -> image::RgbaImage {
    let dir = std::env::temp_dir().join(format!("animtune-xvfb-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join(name);
    let xdg = dir.join("xdg");
    std::fs::create_dir_all(&xdg).unwrap();
    let status = Command::new("xvfb-run")
        .args([
            "-a",
            "-s",
            "-screen 0 1280x800x24",
            env!("CARGO_BIN_EXE_animtune"),
        ])
        .args(args)
        .arg("--screenshot")
        .arg(&out)
        .args(["--frames", "8"])
        .env("XDG_RUNTIME_DIR", &xdg)
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .expect("xvfb-run (apt-get install xvfb xauth)");
    assert!(
        status.status.success(),
        "exit {:?}: {}",
        status.status.code(),
        String::from_utf8_lossy(&status.stderr)
    );
    image::open(&out).unwrap().to_rgba8()
}

fn count(img: &image::RgbaImage, pred: impl Fn(&image::Rgba<u8>) -> bool) -> usize {
    let (w, h) = img.dimensions();
    (h / 5..h * 4 / 5)
        .flat_map(|y| (w * 3 / 10..w * 7 / 10).map(move |x| (x, y)))
        .filter(|&(x, y)| pred(img.get_pixel(x, y)))
        .count()
}

#[test]
fn the_editor_window_shows_the_mannequin() {
    let img = screenshot(&[], "mannequin.png");
    assert!(
        img.width() >= 800 && img.height() >= 500,
        "{:?}",
        img.dimensions()
    );
    let skin = count(&img, |p| {
        p[0] > 150 && i32::from(p[0]) > i32::from(p[2]) + 20
    });
    let background = count(&img, |p| {
        (p[0] as i32 - 56).abs() < 6 && (p[2] as i32 - 64).abs() < 6
    });
    assert!(skin > 5000, "{skin} mannequin pixels");
    assert!(background > 5000, "{background} viewport background pixels");
}

#[test]
fn the_editor_opens_a_model_given_on_the_command_line() {
    let assets = std::env::var_os("ANIMTUNE_TEST_ASSETS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/assets")
        });
    let robot = assets.join("RobotExpressive.glb");
    assert!(robot.is_file(), "test assets missing: {}", robot.display());
    let img = screenshot(&[robot.to_str().unwrap()], "robot.png");
    // The robot is yellow-orange.
    let orange = count(&img, |p| p[0] > 150 && p[1] > 90 && p[2] < 80);
    assert!(orange > 3000, "{orange} robot pixels");
}

#[test]
fn a_short_soak_cycles_the_editor_and_reports_memory() {
    let dir = std::env::temp_dir().join(format!("animtune-soak-{}", std::process::id()));
    let xdg = dir.join("xdg");
    std::fs::create_dir_all(&xdg).unwrap();
    let csv = dir.join("soak.csv");
    let out = Command::new("xvfb-run")
        .args([
            "-a",
            "-s",
            "-screen 0 1280x800x24",
            env!("CARGO_BIN_EXE_animtune"),
        ])
        .args(["--soak", "4", "--soak-out"])
        .arg(&csv)
        .env("XDG_RUNTIME_DIR", &xdg)
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .expect("xvfb-run (apt-get install xvfb xauth)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("soak: 4 s") && stdout.contains("growth"),
        "{stdout}"
    );
    let samples = std::fs::read_to_string(&csv).unwrap();
    assert!(samples.lines().count() >= 4, "{samples}");
    let _ = std::fs::remove_dir_all(&dir);
}
