//! End to end: the real editor window under Xvfb saves its own screenshot and exits 0.

use crate::common;

use std::process::Command;
use std::sync::Mutex;

/// One Xvfb at a time: `xvfb-run -a` picks the first free display by its lock file, and two started together can
/// pick the same one, leaving one editor with no X server to connect to.
static XVFB: Mutex<()> = Mutex::new(());

/// Holds [`XVFB`] (a test that panicked while holding it leaves it usable).
fn one_xvfb() -> std::sync::MutexGuard<'static, ()> {
    XVFB.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs the editor with `args` and the environment `envs` under Xvfb (1280×800 screen) with its runtime folder in
/// `dir`; returns its output.
fn run_in_xvfb(
    dir: &std::path::Path,
    args: &[&std::ffi::OsStr],
    envs: &[(&str, &str)],
) -> std::process::Output {
    let xdg = dir.join("xdg");
    std::fs::create_dir_all(&xdg).unwrap();
    let _xvfb = one_xvfb();
    Command::new("xvfb-run")
        .args([
            "-a",
            "-s",
            "-screen 0 1280x800x24",
            env!("CARGO_BIN_EXE_animtune"),
        ])
        .args(args)
        .env("XDG_RUNTIME_DIR", &xdg)
        .env_remove("WAYLAND_DISPLAY")
        .envs(envs.iter().copied())
        .output()
        .expect("xvfb-run (apt-get install xvfb xauth)")
}

/// Runs the editor with `args` under Xvfb with its runtime folder in `dir`; asserts it exited 0 and returns what it
/// printed.
fn editor_in_xvfb(dir: &std::path::Path, args: &[&std::ffi::OsStr]) -> String {
    editor_in_xvfb_with(dir, args, &[]).0
}

/// As [`editor_in_xvfb`], with environment variables; returns stdout and stderr.
fn editor_in_xvfb_with(
    dir: &std::path::Path,
    args: &[&std::ffi::OsStr],
    envs: &[(&str, &str)],
) -> (String, String) {
    let out = run_in_xvfb(dir, args, envs);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "exit {:?}: {stdout}{stderr}",
        out.status.code(),
    );
    (stdout, stderr)
}

fn screenshot(args: &[&str], name: &str) -> image::RgbaImage {
    screenshot_with(args, &[], name).0
}

/// The editor's screenshot after 8 frames with `args` and the environment `envs`, and what it wrote on stderr.
fn screenshot_with(args: &[&str], envs: &[(&str, &str)], name: &str) -> (image::RgbaImage, String) {
    let dir = std::env::temp_dir().join(format!("animtune-xvfb-{}", std::process::id()));
    let out = dir.join(name);
    let mut all: Vec<&std::ffi::OsStr> = args.iter().map(std::ffi::OsStr::new).collect();
    all.extend([
        "--screenshot".as_ref(),
        out.as_os_str(),
        "--frames".as_ref(),
        "8".as_ref(),
    ]);
    let (_, stderr) = editor_in_xvfb_with(&dir, &all, envs);
    (image::open(&out).unwrap().to_rgba8(), stderr)
}

/// The Vulkan loader pointed at a driver list that does not exist: a machine with no Vulkan driver.
const NO_VULKAN_DRIVER: [(&str, &str); 2] = [
    ("VK_ICD_FILENAMES", "/nonexistent/no-driver.json"),
    ("VK_DRIVER_FILES", "/nonexistent/no-driver.json"),
];

/// Mannequin-coloured pixels (a warm light tone) in the middle of a screenshot.
fn mannequin_pixels(img: &image::RgbaImage) -> usize {
    count(img, |p| {
        p[0] > 150 && i32::from(p[0]) > i32::from(p[2]) + 20
    })
}

fn count(img: &image::RgbaImage, pred: impl Fn(&image::Rgba<u8>) -> bool) -> usize {
    let (w, h) = img.dimensions();
    (h / 5..h * 4 / 5)
        .flat_map(|y| (w * 3 / 10..w * 7 / 10).map(move |x| (x, y)))
        .filter(|&(x, y)| pred(img.get_pixel(x, y)))
        .count()
}

/// The mannequin on its background; in software rendering the viewport draws into the window's own pass (a
/// texture the size of the viewport, sampled by egui, cost a third of each frame there).
#[test]
fn the_editor_window_shows_the_mannequin() {
    let (img, stderr) = screenshot_with(&[], &[], "mannequin.png");
    assert!(
        !stderr.contains("llvmpipe") || stderr.contains("into the window's pass"),
        "a software rasteriser draws the viewport into the window's pass: {stderr}"
    );
    assert!(
        img.width() >= 800 && img.height() >= 500,
        "{:?}",
        img.dimensions()
    );
    let skin = mannequin_pixels(&img);
    let background = count(&img, |p| {
        (p[0] as i32 - 56).abs() < 6 && (p[2] as i32 - 64).abs() < 6
    });
    assert!(skin > 5000, "{skin} mannequin pixels");
    assert!(background > 5000, "{background} viewport background pixels");
}

/// Without a Vulkan driver the window opens on OpenGL (the joint palette in a texture, as WebGL2-level devices
/// have no vertex storage buffers) and shows the character; before, `Renderer::new` panicked there.
#[test]
fn without_a_vulkan_driver_the_window_opens_on_gl_and_shows_the_mannequin() {
    let (img, stderr) = screenshot_with(&[], &NO_VULKAN_DRIVER, "gl-mannequin.png");
    assert!(
        stderr.contains("(Gl)")
            && stderr.contains("joint palette in a texture")
            && (!stderr.contains("llvmpipe") || stderr.contains("into the window's pass")),
        "the adapter line should name GL and the texture palette: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    let skin = mannequin_pixels(&img);
    assert!(skin > 5000, "{skin} mannequin pixels on GL");
    // The viewport's background is the colour the Vulkan path shows (the GL target is plain unorm, encoded by hand).
    let background = count(&img, |p| {
        (p[0] as i32 - 56).abs() < 6 && (p[2] as i32 - 64).abs() < 6
    });
    assert!(
        background > 5000,
        "{background} viewport background pixels on GL"
    );
}

/// With no driver at all (Vulkan pointed at none, GL not allowed) the window cannot open: one line names the
/// drivers tried and the packages to install, exit 1, no panic.
#[test]
fn with_no_graphics_driver_the_window_says_what_to_install() {
    let dir = std::env::temp_dir().join(format!("animtune-xvfb-nodrv-{}", std::process::id()));
    let mut envs = NO_VULKAN_DRIVER.to_vec();
    envs.push(("WGPU_BACKEND", "vulkan"));
    let out = run_in_xvfb(&dir, &[], &envs);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        stderr.contains("mesa-vulkan-drivers") && stderr.contains("libegl-mesa0"),
        "{stderr}"
    );
}

/// A window asked for wider than a surface may be (8192 pixels) is clamped to it instead of panicking in wgpu's
/// `Surface::configure`.
#[test]
fn a_window_size_over_the_surface_limit_is_clamped() {
    let (img, _) = screenshot_with(&["--window-size", "8193x600"], &[], "wide.png");
    assert!(
        img.width() <= 8192 && img.width() > 1280,
        "{:?}",
        img.dimensions()
    );
}

#[test]
fn the_editor_opens_a_model_given_on_the_command_line() {
    let robot = common::asset("RobotExpressive.glb");
    let img = screenshot(&[robot.to_str().unwrap()], "robot.png");
    // The robot is yellow-orange.
    let orange = count(&img, |p| p[0] > 150 && p[1] > 90 && p[2] < 80);
    assert!(orange > 3000, "{orange} robot pixels");
}

#[test]
fn a_short_soak_cycles_the_editor_and_reports_memory() {
    let dir = std::env::temp_dir().join(format!("animtune-soak-{}", std::process::id()));
    let csv = dir.join("soak.csv");
    let stdout = editor_in_xvfb(
        &dir,
        &[
            "--soak".as_ref(),
            "4".as_ref(),
            "--soak-out".as_ref(),
            csv.as_os_str(),
        ],
    );
    assert!(
        stdout.contains("soak: 4 s") && stdout.contains("growth"),
        "{stdout}"
    );
    let samples = std::fs::read_to_string(&csv).unwrap();
    assert!(samples.lines().count() >= 4, "{samples}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// With no XDG portal (no session bus) and no zenity, File > Open model… opens the in-app file browser; a
/// double-click on a file in it opens the model, which the window's title then names. Driven with real pointer
/// events (xdotool) on the real window under Xvfb; the browser sits at the window's centre.
#[test]
fn without_a_portal_open_model_goes_through_the_in_app_browser() {
    let dir = std::env::temp_dir().join(format!("animtune-browser-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("xdg")).unwrap();
    std::fs::create_dir_all(dir.join("home")).unwrap();
    let robot = common::asset("RobotExpressive.glb");
    // The browser opens in the working directory (no model file open yet, no recent files).
    let model = dir.join("robot.glb");
    std::os::unix::fs::symlink(&robot, &model).unwrap();
    let script = r#"
        "$ANIMTUNE" & app=$!
        win=""
        for i in $(seq 150); do
            win=$(xdotool search --name '^animtune' 2>/dev/null | head -1)
            [ -n "$win" ] && break
            sleep 0.2
        done
        [ -n "$win" ] || { echo "no window"; kill $app; exit 2; }
        sleep 2
        # File > Open model… with the pointer (Xvfb has no window manager to give the window the keyboard).
        xdotool mousemove 19 12 click 1
        sleep 0.7
        xdotool mousemove 70 38 click 1
        sleep 1.5
        # The browser lists the working directory, folders first: home, xdg, then robot.glb. Double-click it.
        xdotool mousemove 420 336 click --repeat 2 --delay 80 1
        opened=""
        for i in $(seq 100); do
            if xdotool search --name 'robot.glb' >/dev/null 2>&1; then opened=yes; break; fi
            sleep 0.2
        done
        xdotool search --name '^animtune' getwindowname 2>/dev/null
        kill $app
        wait $app 2>/dev/null
        [ -n "$opened" ] && echo OPENED
        exit 0
    "#;
    let _xvfb = one_xvfb();
    let out = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1280x800x24", "sh", "-c", script])
        .current_dir(&dir)
        .env("ANIMTUNE", env!("CARGO_BIN_EXE_animtune"))
        .env("XDG_RUNTIME_DIR", dir.join("xdg"))
        .env("HOME", dir.join("home"))
        .env("XDG_DATA_HOME", dir.join("home"))
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("ANIMTUNE_FILE_DIALOG")
        .output()
        .expect("xvfb-run and xdotool (apt-get install xvfb xauth xdotool)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("OPENED"),
        "the model did not open through the in-app browser; titles: {stdout}\nstderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("animtune — robot.glb"), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `animtune missing.glb` opens the window anyway and says what is wrong in the status bar (a desktop
/// launcher shows no stderr); the screenshot shows the status bar's error colour.
#[test]
fn a_missing_model_opens_the_window_with_the_error_in_the_status_bar() {
    let missing = std::env::temp_dir().join("animtune-no-such-model.glb");
    let img = screenshot(&[missing.to_str().unwrap()], "missing.png");
    let (w, h) = img.dimensions();
    // The status bar is the bottom 30 pixels; an error is written in red.
    let red = (h - 30..h)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let p = img.get_pixel(x, y);
            p[0] > 150 && i32::from(p[0]) > i32::from(p[1]) + 60
        })
        .count();
    assert!(red > 100, "{red} red status-bar pixels");
}

#[test]
fn the_frame_time_run_plays_in_real_time_at_the_size_asked() {
    // scripts/frame-times.sh reads the last line; --window-size must win over any saved window, and playback
    // must keep real time whatever the frame time (issue 31).
    let dir = std::env::temp_dir().join(format!("animtune-xvfb-ft-{}", std::process::id()));
    let args = ["--frame-times", "1", "--window-size", "1000x700"];
    let stdout = editor_in_xvfb(&dir, &args.map(std::ffi::OsStr::new));
    assert!(stdout.contains("window: 1000x700 pixels"), "{stdout}");
    let median: f32 = stdout
        .lines()
        .last()
        .and_then(|l| l.strip_prefix("median frame ms: "))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no median line: {stdout}"));
    assert!(median > 0.0 && median < 2000.0, "{stdout}");
    for line in stdout.lines().filter(|l| l.contains("playback ")) {
        let speed: f32 = line
            .split("playback ")
            .nth(1)
            .and_then(|v| v.split(' ').next())
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no playback figure: {line}"));
        assert!((speed - 1.0).abs() <= 0.05, "not real time: {line}");
    }
}

/// Opened with `--clips` from a long-named file (Quaternius' library), the scene panel opens at its width: the
/// viewport (its background, sRGB 56, 58, 64, under the mannequin's head height) begins where it does without.
/// The clip group's header had widened the panel by 80 pixels.
#[test]
fn the_scene_panel_opens_at_its_width_with_clips() {
    let q = common::quaternius();
    let (img, _) = screenshot_with(
        &["--window-size", "1280x800", "--clips", q.to_str().unwrap()],
        &[],
        "clips.png",
    );
    // The first column of viewport background in the row 150 pixels down.
    let left = (0..img.width() / 2)
        .find(|&x| {
            let p = img.get_pixel(x, 150);
            (i32::from(p[0]) - 56).abs() <= 3
                && (i32::from(p[1]) - 58).abs() <= 3
                && (i32::from(p[2]) - 64).abs() <= 3
        })
        .expect("the viewport's background");
    assert!(
        left < 270,
        "the viewport begins at {left} px: the scene panel widened"
    );
}
