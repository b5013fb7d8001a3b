# Sourced by scripts/run.sh and scripts/test.sh: `ensure_packages PKG...` installs the Debian packages that are
# missing when run as root; otherwise it prints the `apt-get` line and returns 1 (the caller decides whether to go
# on). Packages are checked with dpkg, so this is for Debian and Ubuntu.
ensure_packages() {
  local missing=() p
  for p in "$@"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" = 0 ]; then
    echo "installing: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    return 0
  fi
  echo "Missing system packages. Run:"
  echo "  sudo apt-get install -y ${missing[*]}"
  return 1
}

# What the editor window loads at run time: the Vulkan loader and Mesa's drivers (software Vulkan, and OpenGL/EGL,
# which the window falls back to), and the X11 libraries winit opens.
WINDOW_PACKAGES=(libvulkan1 mesa-vulkan-drivers libegl1 libegl-mesa0 libgl1-mesa-dri libxkbcommon-x11-0 libxcursor1
  libxi6 libxrandr2 libx11-xcb1)

# What building the editor needs besides Rust: gilrs reads gamepads through libudev (found by pkg-config).
BUILD_PACKAGES=(pkg-config libudev-dev)
