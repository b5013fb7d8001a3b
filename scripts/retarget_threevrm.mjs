// Retargets a clip onto a VRM character with pixiv's three-vrm (the library most VRM apps run) and compares each
// humanoid bone with animtune's retargeting of the same clip onto the same character.
// Usage: node scripts/retarget_threevrm.mjs CHARACTER.vrm CLIP POSE.json...
//   CLIP is a .vrma (three-vrm-animation's loader and createVRMAnimationClip) or a Mixamo .fbx (three.js's
//   FBXLoader and three-vrm's loadMixamoAnimation example, ported below);
//   each POSE.json is `animtune pose CHARACTER.vrm --clip-file CLIP --time T --json` (its "time" says when).
// Compared per humanoid bone in model space (VRM 0.x turned to face +Z, as both tools do): the bone's direction
// (from it to its first child joint) and, for the hips, the position. Exit 1 when a direction is more than 1° off
// or the hips more than 0.5 cm. The world rotation's angle is printed too (it adds the twist about the bone).
//
// One rule is ours and the oracle is given it: a clip's UpperChest on a character without one is folded into
// Chest (three-vrm drops it). Where the character has no UpperChest, the oracle composes the two before playing.
import { readFile } from 'node:fs/promises';
import path from 'node:path';

import {
  FBXLoader,
  THREE,
  arrayBuffer,
  loadVrm,
  loadVrmAnimation,
  objectsByNodeName,
  composeTracks,
  quiet,
  vrmAnimationClip,
} from './three_vrm.mjs';

const DIRECTION_TOLERANCE_DEG = 1;
const HIPS_TOLERANCE_M = 0.005;

const [characterFile, clipFile, ...poseFiles] = process.argv.slice(2);
if (!clipFile || poseFiles.length === 0) {
  console.error('usage: node retarget_threevrm.mjs CHARACTER.vrm CLIP POSE.json...');
  process.exit(2);
}

const { gltf, vrm } = await loadVrm(characterFile);
const vrm0 = vrm.meta?.metaVersion === '0';
const hasUpperChest = vrm.humanoid.getNormalizedBoneNode('upperChest') != null;

let clip;
if (clipFile.toLowerCase().endsWith('.fbx')) {
  const asset = await quiet(async () => new FBXLoader().parse(arrayBuffer(await readFile(clipFile)), ''))();
  clip = loadMixamoAnimation(asset, vrm);
} else {
  clip = await vrmAnimationClip(await loadVrmAnimation(clipFile), vrm);
}

// three-vrm's examples/humanoidAnimation/loadMixamoAnimation.js (MIT), with its rig map: Mixamo's rest rotations
// are taken out (parent rest world rotation × key × inverse rest world rotation), VRM 0.x is turned by negating
// x and z, and the hips position is scaled by the ratio of the hips heights.
function loadMixamoAnimation(asset, vrm) {
  const rigMap = { Hips: 'hips', Spine: 'spine', Spine1: 'chest', Spine2: 'upperChest', Neck: 'neck', Head: 'head' };
  for (const side of ['Left', 'Right']) {
    const s = side.toLowerCase();
    Object.assign(rigMap, {
      [`${side}Shoulder`]: `${s}Shoulder`,
      [`${side}Arm`]: `${s}UpperArm`,
      [`${side}ForeArm`]: `${s}LowerArm`,
      [`${side}Hand`]: `${s}Hand`,
      [`${side}UpLeg`]: `${s}UpperLeg`,
      [`${side}Leg`]: `${s}LowerLeg`,
      [`${side}Foot`]: `${s}Foot`,
      [`${side}ToeBase`]: `${s}Toes`,
      [`${side}HandThumb1`]: `${s}ThumbMetacarpal`,
      [`${side}HandThumb2`]: `${s}ThumbProximal`,
      [`${side}HandThumb3`]: `${s}ThumbDistal`,
    });
    for (const [mixamo, vrmName] of [['Index', 'Index'], ['Middle', 'Middle'], ['Ring', 'Ring'], ['Pinky', 'Little']]) {
      rigMap[`${side}Hand${mixamo}1`] = `${s}${vrmName}Proximal`;
      rigMap[`${side}Hand${mixamo}2`] = `${s}${vrmName}Intermediate`;
      rigMap[`${side}Hand${mixamo}3`] = `${s}${vrmName}Distal`;
    }
  }
  const source = asset.animations[0];
  const motionHipsHeight = asset.getObjectByName('mixamorigHips').position.y;
  const vrmHipsY = vrm.humanoid.getNormalizedBoneNode('hips').getWorldPosition(new THREE.Vector3()).y;
  const vrmRootY = vrm.scene.getWorldPosition(new THREE.Vector3()).y;
  const hipsPositionScale = Math.abs(vrmHipsY - vrmRootY) / motionHipsHeight;
  const byBone = new Map();
  for (const track of source.tracks) {
    const [rigName, property] = track.name.split('.');
    const vrmBone = rigMap[rigName.replace(/^mixamorig/, '')];
    const rigNode = asset.getObjectByName(rigName);
    if (!vrmBone || !rigNode) continue;
    const restRotationInverse = rigNode.getWorldQuaternion(new THREE.Quaternion()).invert();
    const parentRestWorldRotation = rigNode.parent.getWorldQuaternion(new THREE.Quaternion());
    if (track instanceof THREE.QuaternionKeyframeTrack) {
      const values = track.values.slice();
      const q = new THREE.Quaternion();
      for (let i = 0; i < values.length; i += 4) {
        q.fromArray(values, i).premultiply(parentRestWorldRotation).multiply(restRotationInverse);
        q.toArray(values, i);
      }
      byBone.set(`${vrmBone}.quaternion`, new THREE.QuaternionKeyframeTrack('', track.times, values));
    } else if (track instanceof THREE.VectorKeyframeTrack && property === 'position' && vrmBone === 'hips') {
      const values = track.values.map((v, i) => (vrm0 && i % 3 !== 1 ? -v : v) * hipsPositionScale);
      byBone.set('hips.position', new THREE.VectorKeyframeTrack('', track.times, values));
    }
  }
  if (!hasUpperChest && byBone.has('upperChest.quaternion') && byBone.has('chest.quaternion')) {
    byBone.set('chest.quaternion', composeTracks(byBone.get('chest.quaternion'), byBone.get('upperChest.quaternion')));
    byBone.delete('upperChest.quaternion');
  }
  const tracks = [];
  for (const [key, track] of byBone) {
    const [bone, property] = key.split('.');
    const node = vrm.humanoid.getNormalizedBoneNode(bone);
    if (!node) continue;
    let values = track.values;
    if (property === 'quaternion' && vrm0) values = values.map((v, i) => (i % 2 === 0 ? -v : v));
    const Track = property === 'quaternion' ? THREE.QuaternionKeyframeTrack : THREE.VectorKeyframeTrack;
    tracks.push(new Track(`${node.name}.${property}`, track.times, values));
  }
  return new THREE.AnimationClip('vrmAnimation', source.duration, tracks);
}

// The raw bones three-vrm poses, by the glTF node name animtune prints.
const nodeNames = gltf.parser.json.nodes.map((n) => n.name);
const objectsByName = objectsByNodeName(gltf);

const mixer = new THREE.AnimationMixer(vrm.scene);
mixer.clipAction(clip).play();
const degrees = (rad) => (rad * 180) / Math.PI;
const worst = { direction: { value: 0 }, rotation: { value: 0 }, hips: { value: 0 } };
const note = (kind, value, where) => {
  if (value > worst[kind].value) worst[kind] = { value, where };
};
let compared = 0;
for (const poseFile of poseFiles) {
  const pose = JSON.parse(await readFile(poseFile, 'utf8'));
  mixer.setTime(pose.time);
  vrm.humanoid.update();
  vrm.scene.updateMatrixWorld(true);
  const ours = new Map(pose.joints.map((j) => [j.name, j]));
  const position = (j) => new THREE.Vector3(...j.model.translation);
  for (const joint of pose.joints) {
    if (!joint.human_bone) continue;
    const object = objectsByName.get(joint.name);
    if (!object) {
      console.error(`${characterFile}: joint '${joint.name}' is not a node three.js loaded`);
      process.exit(1);
    }
    const where = `${joint.human_bone} at ${pose.time} s`;
    const theirs = object.getWorldPosition(new THREE.Vector3());
    const rotation = object.getWorldQuaternion(new THREE.Quaternion());
    note('rotation', degrees(rotation.angleTo(new THREE.Quaternion(...joint.model.rotation).normalize())), where);
    if (joint.human_bone === 'Hips') note('hips', theirs.distanceTo(position(joint)), where);
    // The bone's direction: toward its first child joint (one that three.js also loaded), in both tools.
    const child = object.children.find((c) => {
      const index = gltf.parser.associations.get(c)?.nodes;
      return index !== undefined && ours.has(nodeNames[index]);
    });
    if (child) {
      const childName = nodeNames[gltf.parser.associations.get(child).nodes];
      const theirDirection = child.getWorldPosition(new THREE.Vector3()).sub(theirs);
      const ourDirection = position(ours.get(childName)).sub(position(joint));
      if (theirDirection.length() > 1e-6 && ourDirection.length() > 1e-6) {
        note('direction', degrees(theirDirection.angleTo(ourDirection)), where);
      }
    }
    compared += 1;
  }
}

const at = (w) => (w.where ? ` (${w.where})` : '');
console.log(
  `${path.basename(clipFile)} on ${path.basename(characterFile)}: three-vrm retargeted ${compared} bone poses; ` +
    `max direction difference ${worst.direction.value.toFixed(4)}°${at(worst.direction)}, ` +
    `hips ${(worst.hips.value * 100).toFixed(4)} cm${at(worst.hips)}, ` +
    `world rotation ${worst.rotation.value.toFixed(4)}°${at(worst.rotation)}`,
);
process.exit(worst.direction.value > DIRECTION_TOLERANCE_DEG || worst.hips.value > HIPS_TOLERANCE_M ? 1 : 0);
