// An outside check of Mirror: three.js plays a clip's export and its mirrored export (GLTFLoader +
// AnimationMixer), and at each time every joint of the mirrored file must stand where its partner (Left/Right
// swapped in the name, or .L/.R and the like; a joint on the middle line is its own partner) stands in the original, reflected across
// the character's sagittal plane (x -> -x). Neither pose comes from animtune's evaluator, only the files do.
// Joint positions carry every parent's rotation; a joint's own turn shows in its children.
// Usage: node scripts/mirror_threejs.mjs ORIGINAL.glb MIRRORED.glb TOLERANCE_CM
// Exit 1 when a joint is further than TOLERANCE_CM from its partner reflected.
import { THREE, loadAnimatedGlb } from './three_glb.mjs';

const [originalFile, mirroredFile, toleranceArg] = process.argv.slice(2);
const toleranceM = Number(toleranceArg) / 100;
if (!originalFile || !mirroredFile || !(toleranceM > 0)) {
  console.error('usage: node mirror_threejs.mjs ORIGINAL.glb MIRRORED.glb TOLERANCE_CM');
  process.exit(2);
}

// The other side's name: Left/Right anywhere, or a side letter after a '.' or '_' that ends the name or is
// followed by one ("upperarm.L", "hand_r", VRM 0.x exports' "upper_arm.l_Armature").
const partner = (name) => {
  const side = name.match(/^(.*[._])([LRlr])($|[._].*$)/);
  if (side) {
    const other = { L: 'R', R: 'L', l: 'r', r: 'l' }[side[2]];
    return side[1] + other + side[3];
  }
  if (name.includes('Left')) return name.replace('Left', 'Right');
  if (name.includes('Right')) return name.replace('Right', 'Left');
  return name;
};

const position = (object) => object.getWorldPosition(new THREE.Vector3());
const reflected = (object) => {
  const p = position(object);
  p.x = -p.x;
  return p;
};

const players = [];
let restAsymmetry = 0;
for (const file of [originalFile, mirroredFile]) {
  const { gltf, objectsByName } = await loadAnimatedGlb(file);
  if (file === originalFile) {
    // How far the rest pose itself is from symmetric: a mirror assumes a symmetric rest (as Unity's does), so
    // this much is left whatever the mirror does.
    gltf.scene.updateMatrixWorld(true);
    for (const [name, object] of objectsByName) {
      const other = objectsByName.get(partner(name));
      if (other) restAsymmetry = Math.max(restAsymmetry, position(object).distanceTo(reflected(other)));
    }
  }
  const mixer = new THREE.AnimationMixer(gltf.scene);
  mixer.clipAction(gltf.animations[0]).play();
  players.push({ gltf, objectsByName, mixer, duration: gltf.animations[0].duration });
}
const [original, mirrored] = players;

// The joints: the animated nodes of the mirrored file.
const joints = new Set(
  mirrored.gltf.animations[0].tracks.map((t) => t.name.slice(0, t.name.lastIndexOf('.'))),
);
let worst = { error: 0 };
let compared = 0;
const steps = 12;
for (let k = 0; k <= steps; k += 1) {
  const time = (mirrored.duration * k) / steps;
  for (const p of players) {
    p.mixer.setTime(time);
    p.gltf.scene.updateMatrixWorld(true);
  }
  for (const [name, object] of mirrored.objectsByName) {
    if (!joints.has(object.name)) continue;
    const other = original.objectsByName.get(partner(name));
    if (!other) {
      console.error(`${originalFile}: no joint '${partner(name)}', partner of '${name}'`);
      process.exit(1);
    }
    const error = position(object).distanceTo(reflected(other));
    compared += 1;
    if (error > worst.error) worst = { error, joint: name, time };
  }
}
if (compared === 0) {
  console.error(`${mirroredFile}: no animated joint to compare`);
  process.exit(1);
}
const where = worst.joint ? ` (${worst.joint} at ${worst.time.toFixed(3)} s)` : '';
console.log(
  `${mirroredFile}: three.js ${THREE.REVISION} compared ${compared} joint positions with their partners in ` +
    `${originalFile} reflected, max distance ${(worst.error * 100).toFixed(5)} cm${where}; the rest pose's own ` +
    `asymmetry ${(restAsymmetry * 100).toFixed(5)} cm`,
);
process.exit(worst.error > toleranceM ? 1 : 0);
