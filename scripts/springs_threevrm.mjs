// Simulates a VRM's spring bones with pixiv's three-vrm 3.5.5 and compares every update with animtune's.
// Usage: node scripts/springs_threevrm.mjs CHARACTER.vrm CLIP.vrma POSE.json [TOLERANCE_M]
//   POSE.json is `animtune pose CHARACTER.vrm --clip-file CLIP.vrma --springs --fps F --time T --trace --json
//   [--sway X,Y,Z,HZ] [--loop]`; its "springs" object gives the rate, the joints and every update's tails.
// The oracle runs three-vrm's own loop: the reset (`springBoneManager.reset()`) with the clip at 0, then for
// update k the root placed where --sway puts it at k/F, `mixer.setTime(k / F)` and `vrm.update(1 / F)`.
// Compared: every spring joint's tail (its tail joint, or its virtual tail) in world space at every update.
// Exit 1 when one is further than TOLERANCE_M (default 0.0005 m) from animtune's.
import { readFile } from 'node:fs/promises';
import path from 'node:path';

import { THREE, loadVrm, loadVrmAnimation, objectsByNodeName, vrmAnimationClip } from './three_vrm.mjs';

const [characterFile, clipFile, poseFile, toleranceArg] = process.argv.slice(2);
if (!poseFile) {
  console.error('usage: node springs_threevrm.mjs CHARACTER.vrm CLIP.vrma POSE.json [TOLERANCE_M]');
  process.exit(2);
}
const tolerance = toleranceArg ? Number(toleranceArg) : 0.0005;
const pose = JSON.parse(await readFile(poseFile, 'utf8'));
const springs = pose.springs;
if (!springs || !springs.trace?.length) {
  console.error(`${poseFile}: no "springs.trace" (run pose with --springs --trace --json)`);
  process.exit(1);
}

const { gltf, vrm } = await loadVrm(characterFile);
const manager = vrm.springBoneManager;
if (!manager) {
  console.error(`${characterFile}: three-vrm found no spring bones`);
  process.exit(1);
}
const clip = await vrmAnimationClip(await loadVrmAnimation(clipFile), vrm);
const mixer = new THREE.AnimationMixer(vrm.scene);
mixer.clipAction(clip).play();

// three-vrm's joints by bone node name (three.js's names are sanitised; the parser's associations are not).
const objects = objectsByNodeName(gltf);
const nodeName = new Map([...objects].map(([name, object]) => [object, name]));
const joints = new Map();
for (const joint of manager.joints) joints.set(nodeName.get(joint.bone), joint);
for (const j of springs.joints) {
  if (!joints.has(j.joint)) {
    console.error(`${characterFile}: animtune's spring joint '${j.joint}' is not one of three-vrm's`);
    process.exit(1);
  }
}
if (joints.size !== springs.joints.length) {
  console.error(`${characterFile}: three-vrm has ${joints.size} spring joints, animtune ${springs.joints.length}`);
  process.exit(1);
}

const dt = 1 / springs.fps;
const [sx, sy, sz, hz] = springs.sway ?? [0, 0, 0, 0];
const place = (t) => vrm.scene.position.set(sx, sy, sz).multiplyScalar(Math.sin(2 * Math.PI * hz * t));
const tail = (joint) =>
  joint.child
    ? joint.child.getWorldPosition(new THREE.Vector3())
    : joint.bone.localToWorld(joint.initialLocalChildPosition.clone());

place(0);
mixer.setTime(0);
vrm.humanoid.update();
vrm.scene.updateMatrixWorld(true);
manager.reset();
vrm.scene.updateMatrixWorld(true);
const prerolls = Math.round(springs.preroll_s * springs.fps);
for (let k = 0; k < prerolls; k++) vrm.update(dt);

let worst = { value: 0 };
springs.trace.forEach((frame, k) => {
  place(k * dt);
  mixer.setTime(k * dt);
  vrm.update(dt);
  springs.joints.forEach((j, i) => {
    const d = tail(joints.get(j.joint)).distanceTo(new THREE.Vector3(...frame[i]));
    if (!(d <= worst.value)) worst = { value: d, where: `${j.joint} at update ${k}` };
  });
});
console.log(
  `${path.basename(clipFile)} on ${path.basename(characterFile)}: three-vrm stepped ${joints.size} spring joints ` +
    `${springs.trace.length} times at ${springs.fps} fps; max tail difference ${(worst.value * 1000).toFixed(4)} mm` +
    (worst.where ? ` (${worst.where})` : ''),
);
process.exit(worst.value <= tolerance ? 0 : 1);
