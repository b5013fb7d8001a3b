// Plays a GLB's first animation in three.js (GLTFLoader + AnimationMixer, npm package "three") and compares each
// joint's world transform with animtune's evaluation of the same file, so an export is known to replay the same poses
// in another glTF tool, not only in our own importer.
// Usage: node scripts/replay_threejs.mjs FILE.glb [--except JOINT] POSE.json...
//   each POSE.json is `animtune pose FILE.glb --clip 0 --time T --json` (its "time" says where to sample), or the
//   pose of the clip FILE.glb was made from by a pass that keeps every joint but one where it was: --except names
//   that joint (a root-motion pass's root), which is then not compared.
// The error of a joint is measured as at the clip checks: position difference plus the rotation difference seen at
// a virtual vertex 3 cm from the joint. Exit 1 when any joint is off by more than 0.01 cm.
import { readFile } from 'node:fs/promises';
import { THREE, loadAnimatedGlb } from './three_glb.mjs';

const TOLERANCE_M = 0.0001;
const VIRTUAL_VERTEX_M = 0.03;

const args = process.argv.slice(2);
const exceptAt = args.indexOf('--except');
const except = exceptAt >= 0 ? args.splice(exceptAt, 2)[1] : undefined;
const [file, ...poseFiles] = args;
if (!file || poseFiles.length === 0) {
  console.error('usage: node replay_threejs.mjs FILE.glb POSE.json...');
  process.exit(2);
}

const { gltf, objectsByName } = await loadAnimatedGlb(file);

const mixer = new THREE.AnimationMixer(gltf.scene);
mixer.clipAction(gltf.animations[0]).play();

let worst = { error: 0 };
let compared = 0;
for (const poseFile of poseFiles) {
  const pose = JSON.parse(await readFile(poseFile, 'utf8'));
  mixer.setTime(pose.time);
  gltf.scene.updateMatrixWorld(true);
  for (const joint of pose.joints) {
    if (joint.name === except) continue;
    const object = objectsByName.get(joint.name);
    if (!object) {
      console.error(`${file}: joint '${joint.name}' is not a node three.js loaded`);
      process.exit(1);
    }
    const position = object.getWorldPosition(new THREE.Vector3());
    const rotation = object.getWorldQuaternion(new THREE.Quaternion());
    const ours = joint.model;
    const positionError = position.distanceTo(new THREE.Vector3(...ours.translation));
    const angle = rotation.angleTo(new THREE.Quaternion(...ours.rotation).normalize());
    const error = positionError + 2 * VIRTUAL_VERTEX_M * Math.sin(angle / 2);
    compared += 1;
    if (error > worst.error) worst = { error, joint: joint.name, time: pose.time };
  }
}

const cm = (m) => (m * 100).toFixed(5);
const where = worst.joint ? ` (${worst.joint} at ${worst.time} s)` : '';
console.log(
  `${file}: three.js ${THREE.REVISION} replayed ${compared} joint poses, max difference ${cm(worst.error)} cm${where}`,
);
process.exit(worst.error > TOLERANCE_M ? 1 : 0);
