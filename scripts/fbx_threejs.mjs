// An independent FBX reader for the FBX importer: three.js's FBXLoader (npm package "three", in node, no DOM) plays
// a file's first animation, and each joint's world transform is compared with animtune's evaluation of the same
// file (`animtune pose FILE.fbx --clip 0 --time T --json`), after the same unit normalisation (three.js keeps the
// file's units: METRES_PER_UNIT converts them; both Mixamo files are +Y up, +Z front, so axes need nothing).
// The error of a joint is measured at its origin and at three virtual points 3 cm along its axes; exit 1 when any
// joint is off by more than 0.01 cm.
// Usage: node scripts/fbx_threejs.mjs FILE.fbx METRES_PER_UNIT POSE.json...
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

// three is installed in the working directory (as gltf-validator is), not beside this script.
const require = createRequire(path.join(process.cwd(), 'noop.js'));
const threeDir = path.dirname(path.dirname(require.resolve('three')));
const THREE = await import(pathToFileURL(path.join(threeDir, 'build/three.module.js')).href);
const { FBXLoader } = await import(
  pathToFileURL(path.join(threeDir, 'examples/jsm/loaders/FBXLoader.js')).href
);

const TOLERANCE_M = 0.0001;
const VIRTUAL_POINT_M = 0.03;

const [file, unitArg, ...poseFiles] = process.argv.slice(2);
const metresPerUnit = Number(unitArg);
if (!file || !(metresPerUnit > 0) || poseFiles.length === 0) {
  console.error('usage: node fbx_threejs.mjs FILE.fbx METRES_PER_UNIT POSE.json...');
  process.exit(2);
}

const bytes = await readFile(file);
const group = new FBXLoader().parse(
  bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
  '',
);
if (group.animations.length === 0) {
  console.error(`${file}: three.js found no animation`);
  process.exit(1);
}
// FBXLoader names objects as the file does, sanitised for animation bindings ("mixamorig:Hips" → "mixamorigHips").
const objectsByName = new Map();
group.traverse((object) => objectsByName.set(object.name, object));
// The clip animtune plays first: the first stack that moves something (three.js keeps empty takes too).
const clip = group.animations.find((a) => a.tracks.length > 0);
const mixer = new THREE.AnimationMixer(group);
mixer.clipAction(clip).play();

// Origin and three points VIRTUAL_POINT_M along the unit axes of a world matrix given in metres.
const framePoints = (m) => {
  const e = m.elements;
  const o = new THREE.Vector3(e[12], e[13], e[14]);
  const axis = (i) =>
    new THREE.Vector3(e[i], e[i + 1], e[i + 2]).normalize().multiplyScalar(VIRTUAL_POINT_M).add(o);
  return [o, axis(0), axis(4), axis(8)];
};

let worst = { error: 0 };
let compared = 0;
for (const poseFile of poseFiles) {
  const pose = JSON.parse(await readFile(poseFile, 'utf8'));
  mixer.setTime(pose.time);
  group.updateMatrixWorld(true);
  for (const joint of pose.joints) {
    const object = objectsByName.get(THREE.PropertyBinding.sanitizeNodeName(joint.name));
    if (!object) {
      console.error(`${file}: joint '${joint.name}' is not an object three.js loaded`);
      process.exit(1);
    }
    // three.js's world matrix in the file's units → metres.
    const theirs = object.matrixWorld.clone().premultiply(new THREE.Matrix4().makeScale(
      metresPerUnit, metresPerUnit, metresPerUnit,
    ));
    const ours = new THREE.Matrix4().compose(
      new THREE.Vector3(...joint.model.translation),
      new THREE.Quaternion(...joint.model.rotation).normalize(),
      new THREE.Vector3(...(joint.model.scale ?? [1, 1, 1])),
    );
    const a = framePoints(ours);
    const b = framePoints(theirs);
    const error = Math.max(...a.map((p, i) => p.distanceTo(b[i])));
    compared += 1;
    if (error > worst.error) worst = { error, joint: joint.name, time: pose.time };
  }
}

const cm = (m) => (m * 100).toFixed(5);
const where = worst.joint ? ` (${worst.joint} at ${worst.time} s)` : '';
console.log(
  `${file}: three.js ${THREE.REVISION} FBXLoader played ${compared} joint poses of '${clip.name}', max difference ` +
    `${cm(worst.error)} cm at 3 cm points${where}`,
);
process.exit(worst.error > TOLERANCE_M ? 1 : 0);
