// Plays a VRM Animation's expression tracks on a VRM with pixiv's three-vrm 3.5.5 and compares, at each pose's
// time, every expression weight and every morph-target weight with animtune's.
// Usage: node scripts/expressions_threevrm.mjs CHARACTER.vrm CLIP.vrma POSE.json...
//   each POSE.json is `animtune pose CHARACTER.vrm --clip-file CLIP.vrma --time T --json`.
// The oracle: `mixer.setTime(T)` then `vrm.update(0)` (its VRMExpressionManager clears the bound targets and
// applies the weights: binary snapping, block and blend overrides; its look-at applier turns the eyes or sets the
// look expressions from the VRMA's look-at track). The eyes' world rotations are compared too. Exit 1 when a
// weight is more than 1e-5 off or an eye more than 0.01°.
import { readFile } from 'node:fs/promises';
import path from 'node:path';

import { THREE, loadVrm, loadVrmAnimation, objectsByNodeName, vrmAnimationClip } from './three_vrm.mjs';

const TOLERANCE = 1e-5;
const EYE_TOLERANCE_DEG = 0.01;
const [characterFile, clipFile, ...poseFiles] = process.argv.slice(2);
if (poseFiles.length === 0) {
  console.error('usage: node expressions_threevrm.mjs CHARACTER.vrm CLIP.vrma POSE.json...');
  process.exit(2);
}
const { gltf, vrm } = await loadVrm(characterFile);
const clip = await vrmAnimationClip(await loadVrmAnimation(clipFile), vrm);
const mixer = new THREE.AnimationMixer(vrm.scene);
mixer.clipAction(clip).play();
const objects = objectsByNodeName(gltf);
// The influences three.js shows for a node: its mesh's, or its first primitive's when it is a group.
const influences = (node) => {
  let found = null;
  objects.get(node)?.traverse((o) => {
    if (!found && o.morphTargetInfluences) found = o.morphTargetInfluences;
  });
  return found;
};
const worst = { expression: { value: 0 }, morph: { value: 0 }, eye: { value: 0 } };
let eyes = 0;
const note = (kind, value, where) => {
  if (!(value <= worst[kind].value)) worst[kind] = { value, where };
};
let shown = 0;
for (const poseFile of poseFiles) {
  const pose = JSON.parse(await readFile(poseFile, 'utf8'));
  mixer.setTime(pose.time);
  vrm.update(0);
  const manager = vrm.expressionManager;
  for (const [name, ours] of Object.entries(pose.expressions)) {
    const theirs = manager.getValue(name);
    if (theirs == null) {
      console.error(`${characterFile}: three-vrm has no expression '${name}'`);
      process.exit(1);
    }
    note('expression', Math.abs(theirs - ours), `${name} at ${pose.time} s`);
  }
  if (Object.keys(pose.expressions).length !== manager.expressions.length) {
    console.error(`${characterFile}: animtune lists ${Object.keys(pose.expressions).length} expressions, ` +
      `three-vrm ${manager.expressions.length}`);
    process.exit(1);
  }
  for (const joint of pose.joints) {
    if (joint.human_bone !== 'LeftEye' && joint.human_bone !== 'RightEye') continue;
    const theirs = objects.get(joint.name).getWorldQuaternion(new THREE.Quaternion());
    const ours = new THREE.Quaternion(...joint.model.rotation).normalize();
    note('eye', (theirs.angleTo(ours) * 180) / Math.PI, `${joint.human_bone} at ${pose.time} s`);
    eyes += 1;
  }
  for (const m of pose.morph_weights) {
    const theirs = influences(m.node);
    if (!theirs || theirs.length !== m.weights.length) {
      console.error(`${characterFile}: node '${m.node}' has no ${m.weights.length} morph targets in three.js`);
      process.exit(1);
    }
    m.weights.forEach((w, i) => {
      note('morph', Math.abs(theirs[i] - w), `${m.node} target ${i} at ${pose.time} s`);
      if (w > 0) shown += 1;
    });
  }
}
const at = (w) => (w.where ? ` (${w.where})` : '');
console.log(
  `${path.basename(clipFile)} on ${path.basename(characterFile)}: ${poseFiles.length} times, ${shown} non-zero ` +
    `morph weights; max expression difference ${worst.expression.value.toExponential(2)}${at(worst.expression)}, ` +
    `morph ${worst.morph.value.toExponential(2)}${at(worst.morph)}` +
    (eyes > 0 ? `, eyes ${worst.eye.value.toFixed(5)}°${at(worst.eye)}` : ''),
);
const ok = worst.expression.value <= TOLERANCE && worst.morph.value <= TOLERANCE && shown > 0;
process.exit(ok && worst.eye.value <= EYE_TOLERANCE_DEG ? 0 : 1);
